module @jit__conv attributes {jax.uses_shape_polymorphism = false, mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<2x4x9x10xf32>, %arg1: tensor<6x2x3x3xf32>) -> (tensor<2x6x5x7xf32> {jax.result_info = "result"}) {
    %0 = stablehlo.convolution(%arg0, %arg1) dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1], window = {stride = [2, 1], pad = [[1, 2], [0, 1]], rhs_dilate = [1, 2]} {batch_group_count = 1 : i64, feature_group_count = 2 : i64} : (tensor<2x4x9x10xf32>, tensor<6x2x3x3xf32>) -> tensor<2x6x5x7xf32>
    return %0 : tensor<2x6x5x7xf32>
  }
}
