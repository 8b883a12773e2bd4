module @jit_f attributes {jax.uses_shape_polymorphism = false, mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<20x8xf32>, %arg1: tensor<12xi32>, %arg2: tensor<12x8xf32>) -> (tensor<20x8xf32> {jax.result_info = "result"}) {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %cst_0 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %c = stablehlo.constant dense<20> : tensor<i32>
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.broadcast_in_dim %c_1, dims = [] : (tensor<i32>) -> tensor<12xi32>
    %1 = stablehlo.compare LT, %arg1, %0, SIGNED : (tensor<12xi32>, tensor<12xi32>) -> tensor<12xi1>
    %2 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<12xi32>
    %3 = stablehlo.add %arg1, %2 : tensor<12xi32>
    %4 = stablehlo.select %1, %3, %arg1 : tensor<12xi1>, tensor<12xi32>
    %5 = stablehlo.broadcast_in_dim %4, dims = [0] : (tensor<12xi32>) -> tensor<12x1xi32>
    %6 = "stablehlo.gather"(%arg0, %5) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, slice_sizes = array<i64: 1, 8>}> : (tensor<20x8xf32>, tensor<12x1xi32>) -> tensor<12x8xf32>
    %7 = stablehlo.tanh %6 : tensor<12x8xf32>
    %8 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<12x8xf32>
    %9 = stablehlo.subtract %8, %7 : tensor<12x8xf32>
    %10 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<12x8xf32>
    %11 = stablehlo.multiply %10, %arg2 : tensor<12x8xf32>
    %12 = stablehlo.multiply %11, %9 : tensor<12x8xf32>
    %13 = stablehlo.multiply %12, %7 : tensor<12x8xf32>
    %14 = stablehlo.add %12, %13 : tensor<12x8xf32>
    %15 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<20x8xf32>
    %16 = "stablehlo.scatter"(%15, %5, %14) <{scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>}> ({
    ^bb0(%arg3: tensor<f32>, %arg4: tensor<f32>):
      %17 = stablehlo.add %arg3, %arg4 : tensor<f32>
      stablehlo.return %17 : tensor<f32>
    }) : (tensor<20x8xf32>, tensor<12x1xi32>, tensor<12x8xf32>) -> tensor<20x8xf32>
    return %16 : tensor<20x8xf32>
  }
}
