module @jit_f attributes {jax.uses_shape_polymorphism = false, mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<2x4x9x10xf32>, %arg1: tensor<6x2x3x3xf32>) -> (tensor<2x4x9x10xf32> {jax.result_info = "result[0]"}, tensor<6x2x3x3xf32> {jax.result_info = "result[1]"}) {
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %cst_0 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %0 = stablehlo.convolution(%arg0, %arg1) dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1], window = {stride = [2, 1], pad = [[1, 2], [0, 1]], rhs_dilate = [1, 2]} {batch_group_count = 1 : i64, feature_group_count = 2 : i64} : (tensor<2x4x9x10xf32>, tensor<6x2x3x3xf32>) -> tensor<2x6x5x7xf32>
    %1 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<2x6x5x7xf32>
    %2 = stablehlo.multiply %1, %0 : tensor<2x6x5x7xf32>
    %3 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<2x6x5x7xf32>
    %4 = stablehlo.multiply %3, %2 : tensor<2x6x5x7xf32>
    %5 = stablehlo.convolution(%arg0, %4) dim_numbers = [f, b, 0, 1]x[i, o, 0, 1]->[f, b, 0, 1], window = {stride = [1, 2], pad = [[1, 1], [0, 1]], rhs_dilate = [2, 1]} {batch_group_count = 2 : i64, feature_group_count = 1 : i64} : (tensor<2x4x9x10xf32>, tensor<2x6x5x7xf32>) -> tensor<6x2x3x3xf32>
    %6 = stablehlo.reshape %arg1 : (tensor<6x2x3x3xf32>) -> tensor<2x3x2x3x3xf32>
    %7 = stablehlo.transpose %6, dims = [1, 0, 2, 3, 4] : (tensor<2x3x2x3x3xf32>) -> tensor<3x2x2x3x3xf32>
    %8 = stablehlo.reshape %7 : (tensor<3x2x2x3x3xf32>) -> tensor<3x4x3x3xf32>
    %9 = stablehlo.reverse %8, dims = [2, 3] : tensor<3x4x3x3xf32>
    %10 = stablehlo.convolution(%4, %9) dim_numbers = [b, f, 0, 1]x[i, o, 0, 1]->[b, f, 0, 1], window = {pad = [[1, 1], [4, 3]], lhs_dilate = [2, 1], rhs_dilate = [1, 2]} {batch_group_count = 1 : i64, feature_group_count = 2 : i64} : (tensor<2x6x5x7xf32>, tensor<3x4x3x3xf32>) -> tensor<2x4x9x10xf32>
    return %10, %5 : tensor<2x4x9x10xf32>, tensor<6x2x3x3xf32>
  }
}
