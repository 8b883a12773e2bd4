module @jit_f attributes {jax.uses_shape_polymorphism = false, mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4x5xf32>, %arg1: tensor<6xi32>) -> (tensor<7x8xf32> {jax.result_info = "result[0]"}, tensor<7x13xf32> {jax.result_info = "result[1]"}, tensor<13x2xf32> {jax.result_info = "result[2]"}, tensor<13xi32> {jax.result_info = "result[3]"}, tensor<6x7xf32> {jax.result_info = "result[4]"}) {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<99> : tensor<i32>
    %cst = stablehlo.constant dense<7.000000e+00> : tensor<f32>
    %cst_1 = stablehlo.constant dense<-1.000000e+00> : tensor<f32>
    %cst_2 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.pad %arg0, %cst_2, low = [1, 0], high = [2, 3], interior = [0, 0] : (tensor<4x5xf32>, tensor<f32>) -> tensor<7x8xf32>
    %1 = stablehlo.pad %arg0, %cst_1, low = [-1, 2], high = [1, -2], interior = [1, 2] : (tensor<4x5xf32>, tensor<f32>) -> tensor<7x13xf32>
    %2 = stablehlo.pad %arg0, %cst, low = [0, -2], high = [0, -1], interior = [3, 0] : (tensor<4x5xf32>, tensor<f32>) -> tensor<13x2xf32>
    %3 = stablehlo.pad %arg1, %c_0, low = [-2], high = [4], interior = [1] : (tensor<6xi32>, tensor<i32>) -> tensor<13xi32>
    %4 = call @_pad(%arg0, %c) : (tensor<4x5xf32>, tensor<i32>) -> tensor<6x7xf32>
    return %0, %1, %2, %3, %4 : tensor<7x8xf32>, tensor<7x13xf32>, tensor<13x2xf32>, tensor<13xi32>, tensor<6x7xf32>
  }
  func.func private @_pad(%arg0: tensor<4x5xf32>, %arg1: tensor<i32>) -> tensor<6x7xf32> {
    %0 = stablehlo.convert %arg1 : (tensor<i32>) -> tensor<f32>
    %1 = stablehlo.pad %arg0, %0, low = [1, 2], high = [1, 0], interior = [0, 0] : (tensor<4x5xf32>, tensor<f32>) -> tensor<6x7xf32>
    return %1 : tensor<6x7xf32>
  }
}
