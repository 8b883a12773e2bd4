module @jit_f attributes {jax.uses_shape_polymorphism = false, mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<50x16xf32>, %arg1: tensor<4x6xi32>, %arg2: tensor<5x7xf32>, %arg3: tensor<5x3xi32>) -> (tensor<4x6x16xf32> {jax.result_info = "result[0]"}, tensor<5x3xf32> {jax.result_info = "result[1]"}, tensor<5x4xf32> {jax.result_info = "result[2]"}, tensor<5xf32> {jax.result_info = "result[3]"}) {
    %c = stablehlo.constant dense<5> : tensor<i32>
    %c_0 = stablehlo.constant dense<7> : tensor<i32>
    %c_1 = stablehlo.constant dense<50> : tensor<i32>
    %c_2 = stablehlo.constant dense<[0, 2, 2, 6]> : tensor<4xi32>
    %c_3 = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.broadcast_in_dim %c_3, dims = [] : (tensor<i32>) -> tensor<4x6xi32>
    %1 = stablehlo.compare LT, %arg1, %0, SIGNED : (tensor<4x6xi32>, tensor<4x6xi32>) -> tensor<4x6xi1>
    %2 = stablehlo.broadcast_in_dim %c_1, dims = [] : (tensor<i32>) -> tensor<4x6xi32>
    %3 = stablehlo.add %arg1, %2 : tensor<4x6xi32>
    %4 = stablehlo.select %1, %3, %arg1 : tensor<4x6xi1>, tensor<4x6xi32>
    %5 = stablehlo.broadcast_in_dim %4, dims = [0, 1] : (tensor<4x6xi32>) -> tensor<4x6x1xi32>
    %6 = "stablehlo.gather"(%arg0, %5) <{dimension_numbers = #stablehlo.gather<offset_dims = [2], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 2>, slice_sizes = array<i64: 1, 16>}> : (tensor<50x16xf32>, tensor<4x6x1xi32>) -> tensor<4x6x16xf32>
    %7 = call @take_along_axis(%arg2, %arg3) : (tensor<5x7xf32>, tensor<5x3xi32>) -> tensor<5x3xf32>
    %8 = stablehlo.broadcast_in_dim %c_3, dims = [] : (tensor<i32>) -> tensor<4xi32>
    %9 = stablehlo.compare LT, %c_2, %8, SIGNED : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi1>
    %10 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i32>) -> tensor<4xi32>
    %11 = stablehlo.add %c_2, %10 : tensor<4xi32>
    %12 = stablehlo.select %9, %11, %c_2 : tensor<4xi1>, tensor<4xi32>
    %13 = stablehlo.broadcast_in_dim %12, dims = [0] : (tensor<4xi32>) -> tensor<4x1xi32>
    %14 = "stablehlo.gather"(%arg2, %13) <{dimension_numbers = #stablehlo.gather<offset_dims = [0], collapsed_slice_dims = [1], start_index_map = [1], index_vector_dim = 1>, slice_sizes = array<i64: 5, 1>}> : (tensor<5x7xf32>, tensor<4x1xi32>) -> tensor<5x4xf32>
    %15 = stablehlo.slice %arg3 [0:5, 0:1] : (tensor<5x3xi32>) -> tensor<5x1xi32>
    %16 = stablehlo.reshape %15 : (tensor<5x1xi32>) -> tensor<5xi32>
    %17 = stablehlo.slice %arg3 [0:5, 1:2] : (tensor<5x3xi32>) -> tensor<5x1xi32>
    %18 = stablehlo.reshape %17 : (tensor<5x1xi32>) -> tensor<5xi32>
    %19 = stablehlo.broadcast_in_dim %c_3, dims = [] : (tensor<i32>) -> tensor<5xi32>
    %20 = stablehlo.compare LT, %16, %19, SIGNED : (tensor<5xi32>, tensor<5xi32>) -> tensor<5xi1>
    %21 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<5xi32>
    %22 = stablehlo.add %16, %21 : tensor<5xi32>
    %23 = stablehlo.select %20, %22, %16 : tensor<5xi1>, tensor<5xi32>
    %24 = stablehlo.broadcast_in_dim %c_3, dims = [] : (tensor<i32>) -> tensor<5xi32>
    %25 = stablehlo.compare LT, %18, %24, SIGNED : (tensor<5xi32>, tensor<5xi32>) -> tensor<5xi1>
    %26 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i32>) -> tensor<5xi32>
    %27 = stablehlo.add %18, %26 : tensor<5xi32>
    %28 = stablehlo.select %25, %27, %18 : tensor<5xi1>, tensor<5xi32>
    %29 = stablehlo.broadcast_in_dim %23, dims = [0] : (tensor<5xi32>) -> tensor<5x1xi32>
    %30 = stablehlo.broadcast_in_dim %28, dims = [0] : (tensor<5xi32>) -> tensor<5x1xi32>
    %31 = stablehlo.concatenate %29, %30, dim = 1 : (tensor<5x1xi32>, tensor<5x1xi32>) -> tensor<5x2xi32>
    %32 = "stablehlo.gather"(%arg2, %31) <{dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [0, 1], start_index_map = [0, 1], index_vector_dim = 1>, slice_sizes = array<i64: 1, 1>}> : (tensor<5x7xf32>, tensor<5x2xi32>) -> tensor<5xf32>
    return %6, %7, %14, %32 : tensor<4x6x16xf32>, tensor<5x3xf32>, tensor<5x4xf32>, tensor<5xf32>
  }
  func.func private @take_along_axis(%arg0: tensor<5x7xf32>, %arg1: tensor<5x3xi32>) -> tensor<5x3xf32> {
    %cst = stablehlo.constant dense<0x7FC00000> : tensor<f32>
    %c = stablehlo.constant dense<true> : tensor<i1>
    %c_0 = stablehlo.constant dense<6> : tensor<1xi32>
    %c_1 = stablehlo.constant dense<7> : tensor<i32>
    %c_2 = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.broadcast_in_dim %c_2, dims = [] : (tensor<i32>) -> tensor<5x3xi32>
    %1 = stablehlo.compare LT, %arg1, %0, SIGNED : (tensor<5x3xi32>, tensor<5x3xi32>) -> tensor<5x3xi1>
    %2 = stablehlo.broadcast_in_dim %c_1, dims = [] : (tensor<i32>) -> tensor<5x3xi32>
    %3 = stablehlo.add %arg1, %2 : tensor<5x3xi32>
    %4 = stablehlo.select %1, %3, %arg1 : tensor<5x3xi1>, tensor<5x3xi32>
    %5 = stablehlo.reshape %4 : (tensor<5x3xi32>) -> tensor<5x3x1xi32>
    %6 = stablehlo.broadcast_in_dim %c_2, dims = [] : (tensor<i32>) -> tensor<5x3x1xi32>
    %7 = stablehlo.compare GE, %5, %6, SIGNED : (tensor<5x3x1xi32>, tensor<5x3x1xi32>) -> tensor<5x3x1xi1>
    %8 = stablehlo.broadcast_in_dim %c_0, dims = [2] : (tensor<1xi32>) -> tensor<1x1x1xi32>
    %9 = stablehlo.broadcast_in_dim %8, dims = [0, 1, 2] : (tensor<1x1x1xi32>) -> tensor<5x3x1xi32>
    %10 = stablehlo.compare LE, %5, %9, SIGNED : (tensor<5x3x1xi32>, tensor<5x3x1xi32>) -> tensor<5x3x1xi1>
    %11 = stablehlo.and %7, %10 : tensor<5x3x1xi1>
    %12 = stablehlo.reduce(%11 init: %c) applies stablehlo.and across dimensions = [2] : (tensor<5x3x1xi1>, tensor<i1>) -> tensor<5x3xi1>
    %13 = "stablehlo.gather"(%arg0, %5) <{dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [1], operand_batching_dims = [0], start_indices_batching_dims = [0], start_index_map = [1], index_vector_dim = 2>, slice_sizes = array<i64: 1, 1>}> : (tensor<5x7xf32>, tensor<5x3x1xi32>) -> tensor<5x3xf32>
    %14 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<5x3xf32>
    %15 = stablehlo.select %12, %13, %14 : tensor<5x3xi1>, tensor<5x3xf32>
    return %15 : tensor<5x3xf32>
  }
}
