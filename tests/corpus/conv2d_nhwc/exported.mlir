module @jit_f attributes {jax.uses_shape_polymorphism = false, mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<2x7x7x3xf32>, %arg1: tensor<3x3x3x5xf32>, %arg2: tensor<2x9x4xf32>, %arg3: tensor<3x4x2xf32>) -> (tensor<2x7x7x5xf32> {jax.result_info = "result[0]"}, tensor<2x18x2xf32> {jax.result_info = "result[1]"}) {
    %0 = stablehlo.convolution(%arg0, %arg1) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {pad = [[1, 1], [1, 1]]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<2x7x7x3xf32>, tensor<3x3x3x5xf32>) -> tensor<2x7x7x5xf32>
    %1 = stablehlo.convolution(%arg2, %arg3) dim_numbers = [b, 0, f]x[0, i, o]->[b, 0, f], window = {pad = [[2, 1]], lhs_dilate = [2]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<2x9x4xf32>, tensor<3x4x2xf32>) -> tensor<2x18x2xf32>
    return %0, %1 : tensor<2x7x7x5xf32>, tensor<2x18x2xf32>
  }
}
