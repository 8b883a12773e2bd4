module @jit_f attributes {jax.uses_shape_polymorphism = false, mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<2x3xf32>, %arg1: tensor<2x5xf32>, %arg2: tensor<4x3xf32>, %arg3: tensor<3xi32>) -> (tensor<2x11xf32> {jax.result_info = "result[0]"}, tensor<6x3xf32> {jax.result_info = "result[1]"}, tensor<9xi32> {jax.result_info = "result[2]"}, tensor<2x2x3xf32> {jax.result_info = "result[3]"}) {
    %cst = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %c = stablehlo.constant dense<2> : tensor<i32>
    %0 = stablehlo.concatenate %arg0, %arg1, %arg0, dim = 1 : (tensor<2x3xf32>, tensor<2x5xf32>, tensor<2x3xf32>) -> tensor<2x11xf32>
    %1 = stablehlo.concatenate %arg0, %arg2, dim = 0 : (tensor<2x3xf32>, tensor<4x3xf32>) -> tensor<6x3xf32>
    %2 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<3xi32>
    %3 = stablehlo.multiply %arg3, %2 : tensor<3xi32>
    %4 = stablehlo.reverse %arg3, dims = [0] : tensor<3xi32>
    %5 = stablehlo.concatenate %arg3, %3, %4, dim = 0 : (tensor<3xi32>, tensor<3xi32>, tensor<3xi32>) -> tensor<9xi32>
    %6 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<2x3xf32>
    %7 = stablehlo.multiply %arg0, %6 : tensor<2x3xf32>
    %8 = stablehlo.broadcast_in_dim %arg0, dims = [1, 2] : (tensor<2x3xf32>) -> tensor<1x2x3xf32>
    %9 = stablehlo.broadcast_in_dim %7, dims = [1, 2] : (tensor<2x3xf32>) -> tensor<1x2x3xf32>
    %10 = stablehlo.concatenate %8, %9, dim = 0 : (tensor<1x2x3xf32>, tensor<1x2x3xf32>) -> tensor<2x2x3xf32>
    return %0, %1, %5, %10 : tensor<2x11xf32>, tensor<6x3xf32>, tensor<9xi32>, tensor<2x2x3xf32>
  }
}
