module @jit_f attributes {jax.uses_shape_polymorphism = false, mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<8xf32>, %arg1: tensor<i32>) -> (tensor<8xf32> {jax.result_info = "result[0]"}, tensor<8xf32> {jax.result_info = "result[1]"}, tensor<i32> {jax.result_info = "result[2]"}) {
    %c = stablehlo.constant dense<50> : tensor<i32>
    %cst = stablehlo.constant dense<1.000000e-03> : tensor<f32>
    %cst_0 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %cst_1 = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %c_2 = stablehlo.constant dense<1> : tensor<i32>
    %c_3 = stablehlo.constant dense<0> : tensor<i32>
    %cst_4 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst_4, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %1:3 = stablehlo.while(%iterArg = %c_3, %iterArg_5 = %arg1, %iterArg_6 = %0) : tensor<i32>, tensor<i32>, tensor<8xf32>
    cond {
      %3 = stablehlo.compare LT, %iterArg, %iterArg_5, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %3 : tensor<i1>
    } do {
      %3 = stablehlo.add %iterArg, %c_2 : tensor<i32>
      %4 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<8xf32>
      %5 = stablehlo.multiply %iterArg_6, %4 : tensor<8xf32>
      %6 = stablehlo.convert %iterArg : (tensor<i32>) -> tensor<f32>
      %7 = stablehlo.broadcast_in_dim %6, dims = [] : (tensor<f32>) -> tensor<8xf32>
      %8 = stablehlo.add %5, %7 : tensor<8xf32>
      stablehlo.return %3, %iterArg_5, %8 : tensor<i32>, tensor<i32>, tensor<8xf32>
    }
    %2:4 = stablehlo.while(%iterArg = %arg0, %iterArg_5 = %arg0, %iterArg_6 = %arg0, %iterArg_7 = %c_3) : tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<i32>
    cond {
      %3 = stablehlo.multiply %iterArg_6, %iterArg_6 : tensor<8xf32>
      %4 = stablehlo.subtract %3, %iterArg : tensor<8xf32>
      %5 = stablehlo.abs %4 : tensor<8xf32>
      %6 = stablehlo.reduce(%5 init: %cst_0) applies stablehlo.maximum across dimensions = [0] : (tensor<8xf32>, tensor<f32>) -> tensor<f32>
      %7 = stablehlo.compare GT, %6, %cst, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %8 = stablehlo.compare LT, %iterArg_7, %c, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %9 = stablehlo.and %7, %8 : tensor<i1>
      stablehlo.return %9 : tensor<i1>
    } do {
      %3 = stablehlo.divide %iterArg_5, %iterArg_6 : tensor<8xf32>
      %4 = stablehlo.add %iterArg_6, %3 : tensor<8xf32>
      %5 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<8xf32>
      %6 = stablehlo.multiply %5, %4 : tensor<8xf32>
      %7 = stablehlo.add %iterArg_7, %c_2 : tensor<i32>
      stablehlo.return %iterArg, %iterArg_5, %6, %7 : tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<i32>
    }
    return %1#2, %2#2, %2#3 : tensor<8xf32>, tensor<8xf32>, tensor<i32>
  }
}
