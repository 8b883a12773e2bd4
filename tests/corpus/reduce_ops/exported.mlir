module @jit_f attributes {jax.uses_shape_polymorphism = false, mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4x5x6xf32>, %arg1: tensor<4x6xi32>, %arg2: tensor<3x8xi1>) -> (tensor<f32> {jax.result_info = "result[0]"}, tensor<5xf32> {jax.result_info = "result[1]"}, tensor<4x6xf32> {jax.result_info = "result[2]"}, tensor<4x5xf32> {jax.result_info = "result[3]"}, tensor<5x6xf32> {jax.result_info = "result[4]"}, tensor<4x5xf32> {jax.result_info = "result[5]"}, tensor<4xi32> {jax.result_info = "result[6]"}, tensor<6xi32> {jax.result_info = "result[7]"}, tensor<3xi1> {jax.result_info = "result[8]"}, tensor<8xi1> {jax.result_info = "result[9]"}) {
    %c = stablehlo.constant dense<false> : tensor<i1>
    %c_0 = stablehlo.constant dense<true> : tensor<i1>
    %c_1 = stablehlo.constant dense<-2147483648> : tensor<i32>
    %c_2 = stablehlo.constant dense<0> : tensor<i32>
    %cst = stablehlo.constant dense<6.000000e+00> : tensor<f32>
    %cst_3 = stablehlo.constant dense<0x7F800000> : tensor<f32>
    %cst_4 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %cst_5 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %cst_6 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.reduce(%arg0 init: %cst_6) applies stablehlo.add across dimensions = [0, 1, 2] : (tensor<4x5x6xf32>, tensor<f32>) -> tensor<f32>
    %1 = stablehlo.reduce(%arg0 init: %cst_6) applies stablehlo.add across dimensions = [0, 2] : (tensor<4x5x6xf32>, tensor<f32>) -> tensor<5xf32>
    %2 = stablehlo.reduce(%arg0 init: %cst_5) applies stablehlo.multiply across dimensions = [1] : (tensor<4x5x6xf32>, tensor<f32>) -> tensor<4x6xf32>
    %3 = stablehlo.reduce(%arg0 init: %cst_4) applies stablehlo.maximum across dimensions = [2] : (tensor<4x5x6xf32>, tensor<f32>) -> tensor<4x5xf32>
    %4 = stablehlo.reduce(%arg0 init: %cst_3) applies stablehlo.minimum across dimensions = [0] : (tensor<4x5x6xf32>, tensor<f32>) -> tensor<5x6xf32>
    %5 = stablehlo.reduce(%arg0 init: %cst_6) applies stablehlo.add across dimensions = [2] : (tensor<4x5x6xf32>, tensor<f32>) -> tensor<4x5xf32>
    %6 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<4x5xf32>
    %7 = stablehlo.divide %5, %6 : tensor<4x5xf32>
    %8 = stablehlo.reduce(%arg1 init: %c_2) applies stablehlo.add across dimensions = [1] : (tensor<4x6xi32>, tensor<i32>) -> tensor<4xi32>
    %9 = stablehlo.reduce(%arg1 init: %c_1) applies stablehlo.maximum across dimensions = [0] : (tensor<4x6xi32>, tensor<i32>) -> tensor<6xi32>
    %10 = stablehlo.reduce(%arg2 init: %c_0) applies stablehlo.and across dimensions = [1] : (tensor<3x8xi1>, tensor<i1>) -> tensor<3xi1>
    %11 = stablehlo.reduce(%arg2 init: %c) applies stablehlo.or across dimensions = [0] : (tensor<3x8xi1>, tensor<i1>) -> tensor<8xi1>
    return %0, %1, %2, %3, %4, %7, %8, %9, %10, %11 : tensor<f32>, tensor<5xf32>, tensor<4x6xf32>, tensor<4x5xf32>, tensor<5x6xf32>, tensor<4x5xf32>, tensor<4xi32>, tensor<6xi32>, tensor<3xi1>, tensor<8xi1>
  }
}
