module @jit_f attributes {jax.uses_shape_polymorphism = false, mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<3x4x5xf32>, %arg1: tensor<3x5x6xf32>, %arg2: tensor<2x2x4x8xf32>, %arg3: tensor<2x2x6x8xf32>, %arg4: tensor<4x7xf32>, %arg5: tensor<4x7xf32>) -> (tensor<3x4x6xf32> {jax.result_info = "result[0]"}, tensor<2x2x4x6xf32> {jax.result_info = "result[1]"}, tensor<f32> {jax.result_info = "result[2]"}, tensor<4xf32> {jax.result_info = "result[3]"}, tensor<7x7xf32> {jax.result_info = "result[4]"}, tensor<5x3xf32> {jax.result_info = "result[5]"}, tensor<3x4x3x6xf32> {jax.result_info = "result[6]"}) {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.dot_general %arg0, %arg1, batching_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<3x4x5xf32>, tensor<3x5x6xf32>) -> tensor<3x4x6xf32>
    %1 = stablehlo.dot_general %arg2, %arg3, batching_dims = [0, 1] x [0, 1], contracting_dims = [3] x [3] : (tensor<2x2x4x8xf32>, tensor<2x2x6x8xf32>) -> tensor<2x2x4x6xf32>
    %2 = stablehlo.dot_general %arg4, %arg5, contracting_dims = [0, 1] x [0, 1] : (tensor<4x7xf32>, tensor<4x7xf32>) -> tensor<f32>
    %3 = stablehlo.dot_general %arg4, %arg5, batching_dims = [0] x [0], contracting_dims = [1] x [1] : (tensor<4x7xf32>, tensor<4x7xf32>) -> tensor<4xf32>
    %4 = stablehlo.slice %arg4 [0:1, 0:7] : (tensor<4x7xf32>) -> tensor<1x7xf32>
    %5 = stablehlo.reshape %4 : (tensor<1x7xf32>) -> tensor<7xf32>
    %6 = stablehlo.slice %arg5 [1:2, 0:7] : (tensor<4x7xf32>) -> tensor<1x7xf32>
    %7 = stablehlo.reshape %6 : (tensor<1x7xf32>) -> tensor<7xf32>
    %8 = stablehlo.dot_general %5, %7, contracting_dims = [] x [] : (tensor<7xf32>, tensor<7xf32>) -> tensor<7x7xf32>
    %9 = stablehlo.reduce(%arg0 init: %cst) applies stablehlo.add across dimensions = [1] : (tensor<3x4x5xf32>, tensor<f32>) -> tensor<3x5xf32>
    %10 = stablehlo.transpose %9, dims = [1, 0] : (tensor<3x5xf32>) -> tensor<5x3xf32>
    %11 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [2] x [1] : (tensor<3x4x5xf32>, tensor<3x5x6xf32>) -> tensor<3x4x3x6xf32>
    return %0, %1, %2, %3, %8, %10, %11 : tensor<3x4x6xf32>, tensor<2x2x4x6xf32>, tensor<f32>, tensor<4xf32>, tensor<7x7xf32>, tensor<5x3xf32>, tensor<3x4x3x6xf32>
  }
}
