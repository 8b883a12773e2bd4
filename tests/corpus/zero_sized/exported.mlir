module @jit_f attributes {jax.uses_shape_polymorphism = false, mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<0x4xf32>, %arg1: tensor<3x0xf32>, %arg2: tensor<4x5xf32>, %arg3: tensor<2x4xf32>) -> (tensor<0x4xf32> {jax.result_info = "result[0]"}, tensor<4xf32> {jax.result_info = "result[1]"}, tensor<4xf32> {jax.result_info = "result[2]"}, tensor<0x5xf32> {jax.result_info = "result[3]"}, tensor<0x3xf32> {jax.result_info = "result[4]"}, tensor<2x4xf32> {jax.result_info = "result[5]"}, tensor<3x2xf32> {jax.result_info = "result[6]"}) {
    %cst = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %cst_1 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %cst_2 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<0x4xf32>
    %1 = stablehlo.multiply %arg0, %0 : tensor<0x4xf32>
    %2 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<0x4xf32>
    %3 = stablehlo.add %1, %2 : tensor<0x4xf32>
    %4 = stablehlo.reduce(%arg0 init: %cst_0) applies stablehlo.add across dimensions = [0] : (tensor<0x4xf32>, tensor<f32>) -> tensor<4xf32>
    %5 = stablehlo.reduce(%arg0 init: %cst) applies stablehlo.maximum across dimensions = [0] : (tensor<0x4xf32>, tensor<f32>) -> tensor<4xf32>
    %6 = stablehlo.dot_general %arg0, %arg2, contracting_dims = [1] x [0] : (tensor<0x4xf32>, tensor<4x5xf32>) -> tensor<0x5xf32>
    %7 = stablehlo.transpose %arg1, dims = [1, 0] : (tensor<3x0xf32>) -> tensor<0x3xf32>
    %8 = stablehlo.concatenate %arg0, %arg3, dim = 0 : (tensor<0x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
    %9 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<0x2xf32>
    %10 = stablehlo.dot_general %arg1, %9, contracting_dims = [1] x [0] : (tensor<3x0xf32>, tensor<0x2xf32>) -> tensor<3x2xf32>
    return %3, %4, %5, %6, %7, %8, %10 : tensor<0x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<0x5xf32>, tensor<0x3xf32>, tensor<2x4xf32>, tensor<3x2xf32>
  }
}
