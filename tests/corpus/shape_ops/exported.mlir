module @jit_f attributes {jax.uses_shape_polymorphism = false, mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<2x3x4xf32>, %arg1: tensor<5xf32>) -> (tensor<3x5x2xf32> {jax.result_info = "result[0]"}, tensor<4x6xf32> {jax.result_info = "result[1]"}, tensor<4x2x3xf32> {jax.result_info = "result[2]"}, tensor<2x3x4xf32> {jax.result_info = "result[3]"}, tensor<2x2x2xf32> {jax.result_info = "result[4]"}, tensor<2x2x2xf32> {jax.result_info = "result[5]"}, tensor<2x3x2xf32> {jax.result_info = "result[6]"}, tensor<1x5xf32> {jax.result_info = "result[7]"}, tensor<2x4xf32> {jax.result_info = "result[8]"}) {
    %cst = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [1] : (tensor<5xf32>) -> tensor<3x5x2xf32>
    %1 = stablehlo.reshape %arg0 : (tensor<2x3x4xf32>) -> tensor<4x6xf32>
    %2 = stablehlo.transpose %arg0, dims = [2, 0, 1] : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
    %3 = stablehlo.reverse %arg0, dims = [0, 2] : tensor<2x3x4xf32>
    %4 = stablehlo.slice %arg0 [0:2, 1:3, 0:4:3] : (tensor<2x3x4xf32>) -> tensor<2x2x2xf32>
    %5 = stablehlo.slice %arg0 [0:2, 0:3:2, 1:4:2] : (tensor<2x3x4xf32>) -> tensor<2x2x2xf32>
    %6 = stablehlo.slice %arg0 [0:2, 0:3, 1:3] : (tensor<2x3x4xf32>) -> tensor<2x3x2xf32>
    %7 = stablehlo.reverse %6, dims = [0] : tensor<2x3x2xf32>
    %8 = stablehlo.broadcast_in_dim %arg1, dims = [1] : (tensor<5xf32>) -> tensor<1x5xf32>
    %9 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<1x5xf32>
    %10 = stablehlo.multiply %8, %9 : tensor<1x5xf32>
    %11 = stablehlo.slice %arg0 [0:2, 0:1, 0:4] : (tensor<2x3x4xf32>) -> tensor<2x1x4xf32>
    %12 = stablehlo.reshape %11 : (tensor<2x1x4xf32>) -> tensor<2x4xf32>
    return %0, %1, %2, %3, %4, %5, %7, %10, %12 : tensor<3x5x2xf32>, tensor<4x6xf32>, tensor<4x2x3xf32>, tensor<2x3x4xf32>, tensor<2x2x2xf32>, tensor<2x2x2xf32>, tensor<2x3x2xf32>, tensor<1x5xf32>, tensor<2x4xf32>
  }
}
