module @jit_f attributes {jax.uses_shape_polymorphism = false, mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<2x4x4xcomplex<f32>>, %arg1: tensor<2x4x3xcomplex<f32>>, %arg2: tensor<3x5xcomplex<f32>>) -> (tensor<2x4x4xcomplex<f32>> {jax.result_info = "result[0]"}, tensor<2x4xi32> {jax.result_info = "result[1]"}, tensor<2x4xi32> {jax.result_info = "result[2]"}, tensor<3x5xcomplex<f32>> {jax.result_info = "result[3]"}, tensor<3xi32> {jax.result_info = "result[4]"}, tensor<2x4x3xcomplex<f32>> {jax.result_info = "result[5]"}, tensor<2x4x4xcomplex<f32>> {jax.result_info = "result[6]"}, tensor<2xcomplex<f32>> {jax.result_info = "result[7]"}, tensor<2xcomplex<f32>> {jax.result_info = "result[8]"}, tensor<2xf32> {jax.result_info = "result[9]"}) {
    %c = stablehlo.constant dense<3> : tensor<i32>
    %c_0 = stablehlo.constant dense<4> : tensor<i32>
    %cst = stablehlo.constant dense<(0x7FC00000,0x7FC00000)> : tensor<complex<f32>>
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %c_2 = stablehlo.constant dense<1> : tensor<i32>
    %0:3 = stablehlo.custom_call @lapack_cgetrf_ffi(%arg0) {mhlo.backend_config = {}, mhlo.frontend_attributes = {num_batch_dims = "1"}, operand_layouts = [dense<[1, 2, 0]> : tensor<3xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 0, operand_tuple_indices = []>], result_layouts = [dense<[1, 2, 0]> : tensor<3xindex>, dense<[1, 0]> : tensor<2xindex>, dense<0> : tensor<1xindex>], sdy.sharding_rule = #sdy.op_sharding_rule<([i, j, k])->([i, l, m], [i, n], [i]) {i=2, j=4, k=4, l=4, m=4, n=4}, custom>} : (tensor<2x4x4xcomplex<f32>>) -> (tensor<2x4x4xcomplex<f32>>, tensor<2x4xi32>, tensor<2xi32>)
    %1 = stablehlo.broadcast_in_dim %c_2, dims = [] : (tensor<i32>) -> tensor<2x4xi32>
    %2 = stablehlo.subtract %0#1, %1 : tensor<2x4xi32>
    %3 = stablehlo.broadcast_in_dim %c_1, dims = [] : (tensor<i32>) -> tensor<2xi32>
    %4 = stablehlo.compare GE, %0#2, %3, SIGNED : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi1>
    %5 = stablehlo.broadcast_in_dim %4, dims = [0] : (tensor<2xi1>) -> tensor<2x1x1xi1>
    %6 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<complex<f32>>) -> tensor<2x4x4xcomplex<f32>>
    %7 = stablehlo.broadcast_in_dim %5, dims = [0, 1, 2] : (tensor<2x1x1xi1>) -> tensor<2x4x4xi1>
    %8 = stablehlo.select %7, %0#0, %6 : tensor<2x4x4xi1>, tensor<2x4x4xcomplex<f32>>
    %9 = stablehlo.iota dim = 1 : tensor<2x4xi32>
    %10:4 = stablehlo.while(%iterArg = %2, %iterArg_3 = %c_1, %iterArg_4 = %c_1, %iterArg_5 = %9) : tensor<2x4xi32>, tensor<i32>, tensor<i32>, tensor<2x4xi32>
    cond {
      %26 = stablehlo.compare LT, %iterArg_3, %c_0, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %26 : tensor<i1>
    } do {
      %26:2 = func.call @closed_call(%iterArg, %iterArg_4, %iterArg_5) : (tensor<2x4xi32>, tensor<i32>, tensor<2x4xi32>) -> (tensor<i32>, tensor<2x4xi32>)
      %27 = stablehlo.add %iterArg_3, %c_2 : tensor<i32>
      stablehlo.return %iterArg, %27, %26#0, %26#1 : tensor<2x4xi32>, tensor<i32>, tensor<i32>, tensor<2x4xi32>
    }
    %11:3 = stablehlo.custom_call @lapack_cgetrf_ffi(%arg2) {mhlo.backend_config = {}, mhlo.frontend_attributes = {num_batch_dims = "0"}, operand_layouts = [dense<[0, 1]> : tensor<2xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 0, operand_tuple_indices = []>], result_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<0> : tensor<1xindex>, dense<> : tensor<0xindex>], sdy.sharding_rule = #sdy.op_sharding_rule<([i, j])->([k, l], [m], []) {i=3, j=5, k=3, l=5, m=3}, custom>} : (tensor<3x5xcomplex<f32>>) -> (tensor<3x5xcomplex<f32>>, tensor<3xi32>, tensor<i32>)
    %12 = stablehlo.broadcast_in_dim %c_2, dims = [] : (tensor<i32>) -> tensor<3xi32>
    %13 = stablehlo.subtract %11#1, %12 : tensor<3xi32>
    %14 = stablehlo.broadcast_in_dim %c_1, dims = [] : (tensor<i32>) -> tensor<i32>
    %15 = stablehlo.compare GE, %11#2, %14, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %16 = stablehlo.broadcast_in_dim %15, dims = [] : (tensor<i1>) -> tensor<1x1xi1>
    %17 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<complex<f32>>) -> tensor<3x5xcomplex<f32>>
    %18 = stablehlo.broadcast_in_dim %16, dims = [0, 1] : (tensor<1x1xi1>) -> tensor<3x5xi1>
    %19 = stablehlo.select %18, %11#0, %17 : tensor<3x5xi1>, tensor<3x5xcomplex<f32>>
    %20 = stablehlo.iota dim = 0 : tensor<3xi32>
    %21:4 = stablehlo.while(%iterArg = %13, %iterArg_3 = %c_1, %iterArg_4 = %c_1, %iterArg_5 = %20) : tensor<3xi32>, tensor<i32>, tensor<i32>, tensor<3xi32>
    cond {
      %26 = stablehlo.compare LT, %iterArg_3, %c, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %26 : tensor<i1>
    } do {
      %26:2 = func.call @closed_call_0(%iterArg, %iterArg_4, %iterArg_5) : (tensor<3xi32>, tensor<i32>, tensor<3xi32>) -> (tensor<i32>, tensor<3xi32>)
      %27 = stablehlo.add %iterArg_3, %c_2 : tensor<i32>
      stablehlo.return %iterArg, %27, %26#0, %26#1 : tensor<3xi32>, tensor<i32>, tensor<i32>, tensor<3xi32>
    }
    %22:2 = call @slogdet(%arg0) : (tensor<2x4x4xcomplex<f32>>) -> (tensor<2xcomplex<f32>>, tensor<2xf32>)
    %23 = call @solve(%arg0, %arg1) : (tensor<2x4x4xcomplex<f32>>, tensor<2x4x3xcomplex<f32>>) -> tensor<2x4x3xcomplex<f32>>
    %24 = call @inv(%arg0) : (tensor<2x4x4xcomplex<f32>>) -> tensor<2x4x4xcomplex<f32>>
    %25 = call @det(%arg0) : (tensor<2x4x4xcomplex<f32>>) -> tensor<2xcomplex<f32>>
    return %8, %2, %10#3, %19, %13, %23, %24, %25, %22#0, %22#1 : tensor<2x4x4xcomplex<f32>>, tensor<2x4xi32>, tensor<2x4xi32>, tensor<3x5xcomplex<f32>>, tensor<3xi32>, tensor<2x4x3xcomplex<f32>>, tensor<2x4x4xcomplex<f32>>, tensor<2xcomplex<f32>>, tensor<2xcomplex<f32>>, tensor<2xf32>
  }
  func.func private @closed_call(%arg0: tensor<2x4xi32>, %arg1: tensor<i32>, %arg2: tensor<2x4xi32>) -> (tensor<i32>, tensor<2x4xi32>) {
    %c = stablehlo.constant dense<4> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %c_1 = stablehlo.constant dense<1> : tensor<i32>
    %0 = stablehlo.add %arg1, %c_1 : tensor<i32>
    %1 = stablehlo.compare LT, %arg1, %c_0, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %2 = stablehlo.convert %arg1 : tensor<i32>
    %3 = stablehlo.add %2, %c : tensor<i32>
    %4 = stablehlo.select %1, %3, %arg1 : tensor<i1>, tensor<i32>
    %5 = stablehlo.broadcast_in_dim %4, dims = [] : (tensor<i32>) -> tensor<1xi32>
    %6 = "stablehlo.gather"(%arg0, %5) <{dimension_numbers = #stablehlo.gather<offset_dims = [0, 1], start_index_map = [1]>, indices_are_sorted = true, slice_sizes = array<i64: 2, 1>}> : (tensor<2x4xi32>, tensor<1xi32>) -> tensor<2x1xi32>
    %7 = stablehlo.reshape %6 : (tensor<2x1xi32>) -> tensor<2xi32>
    %8 = stablehlo.compare LT, %arg1, %c_0, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %9 = stablehlo.convert %arg1 : tensor<i32>
    %10 = stablehlo.add %9, %c : tensor<i32>
    %11 = stablehlo.select %8, %10, %arg1 : tensor<i1>, tensor<i32>
    %12 = stablehlo.broadcast_in_dim %11, dims = [] : (tensor<i32>) -> tensor<1xi32>
    %13 = "stablehlo.gather"(%arg2, %12) <{dimension_numbers = #stablehlo.gather<offset_dims = [0, 1], start_index_map = [1]>, indices_are_sorted = true, slice_sizes = array<i64: 2, 1>}> : (tensor<2x4xi32>, tensor<1xi32>) -> tensor<2x1xi32>
    %14 = stablehlo.reshape %13 : (tensor<2x1xi32>) -> tensor<2xi32>
    %15 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i32>) -> tensor<2xi32>
    %16 = stablehlo.compare LT, %7, %15, SIGNED : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi1>
    %17 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<2xi32>
    %18 = stablehlo.add %7, %17 : tensor<2xi32>
    %19 = stablehlo.select %16, %18, %7 : tensor<2xi1>, tensor<2xi32>
    %20 = stablehlo.broadcast_in_dim %19, dims = [0] : (tensor<2xi32>) -> tensor<2x1xi32>
    %21 = "stablehlo.gather"(%arg2, %20) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], operand_batching_dims = [0], start_indices_batching_dims = [0], start_index_map = [1], index_vector_dim = 1>, indices_are_sorted = true, slice_sizes = array<i64: 1, 1>}> : (tensor<2x4xi32>, tensor<2x1xi32>) -> tensor<2x1xi32>
    %22 = stablehlo.reshape %21 : (tensor<2x1xi32>) -> tensor<2xi32>
    %23 = stablehlo.compare LT, %arg1, %c_0, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %24 = stablehlo.add %arg1, %c : tensor<i32>
    %25 = stablehlo.select %23, %24, %arg1 : tensor<i1>, tensor<i32>
    %26 = stablehlo.convert %25 : tensor<i32>
    %27 = stablehlo.broadcast_in_dim %26, dims = [] : (tensor<i32>) -> tensor<1xi32>
    %28 = "stablehlo.scatter"(%arg2, %27, %22) <{indices_are_sorted = true, scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [0], inserted_window_dims = [1], scatter_dims_to_operand_dims = [1]>, unique_indices = true}> ({
    ^bb0(%arg3: tensor<i32>, %arg4: tensor<i32>):
      stablehlo.return %arg4 : tensor<i32>
    }) : (tensor<2x4xi32>, tensor<1xi32>, tensor<2xi32>) -> tensor<2x4xi32>
    %29 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i32>) -> tensor<2xi32>
    %30 = stablehlo.compare LT, %7, %29, SIGNED : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi1>
    %31 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<2xi32>
    %32 = stablehlo.add %7, %31 : tensor<2xi32>
    %33 = stablehlo.select %30, %32, %7 : tensor<2xi1>, tensor<2xi32>
    %34 = stablehlo.broadcast_in_dim %33, dims = [0] : (tensor<2xi32>) -> tensor<2x1xi32>
    %35 = "stablehlo.scatter"(%28, %34, %14) <{indices_are_sorted = true, scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [1], input_batching_dims = [0], scatter_indices_batching_dims = [0], scatter_dims_to_operand_dims = [1], index_vector_dim = 1>, unique_indices = true}> ({
    ^bb0(%arg3: tensor<i32>, %arg4: tensor<i32>):
      stablehlo.return %arg4 : tensor<i32>
    }) : (tensor<2x4xi32>, tensor<2x1xi32>, tensor<2xi32>) -> tensor<2x4xi32>
    return %0, %35 : tensor<i32>, tensor<2x4xi32>
  }
  func.func private @closed_call_0(%arg0: tensor<3xi32>, %arg1: tensor<i32>, %arg2: tensor<3xi32>) -> (tensor<i32>, tensor<3xi32>) {
    %c = stablehlo.constant dense<3> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %c_1 = stablehlo.constant dense<1> : tensor<i32>
    %0 = stablehlo.add %arg1, %c_1 : tensor<i32>
    %1 = stablehlo.compare LT, %arg1, %c_0, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %2 = stablehlo.convert %arg1 : tensor<i32>
    %3 = stablehlo.add %2, %c : tensor<i32>
    %4 = stablehlo.select %1, %3, %arg1 : tensor<i1>, tensor<i32>
    %5 = stablehlo.dynamic_slice %arg0, %4, sizes = [1] : (tensor<3xi32>, tensor<i32>) -> tensor<1xi32>
    %6 = stablehlo.reshape %5 : (tensor<1xi32>) -> tensor<i32>
    %7 = stablehlo.compare LT, %arg1, %c_0, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %8 = stablehlo.convert %arg1 : tensor<i32>
    %9 = stablehlo.add %8, %c : tensor<i32>
    %10 = stablehlo.select %7, %9, %arg1 : tensor<i1>, tensor<i32>
    %11 = stablehlo.dynamic_slice %arg2, %10, sizes = [1] : (tensor<3xi32>, tensor<i32>) -> tensor<1xi32>
    %12 = stablehlo.reshape %11 : (tensor<1xi32>) -> tensor<i32>
    %13 = stablehlo.compare LT, %6, %c_0, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %14 = stablehlo.add %6, %c : tensor<i32>
    %15 = stablehlo.select %13, %14, %6 : tensor<i1>, tensor<i32>
    %16 = stablehlo.dynamic_slice %arg2, %15, sizes = [1] : (tensor<3xi32>, tensor<i32>) -> tensor<1xi32>
    %17 = stablehlo.reshape %16 : (tensor<1xi32>) -> tensor<i32>
    %18 = stablehlo.compare LT, %arg1, %c_0, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %19 = stablehlo.add %arg1, %c : tensor<i32>
    %20 = stablehlo.select %18, %19, %arg1 : tensor<i1>, tensor<i32>
    %21 = stablehlo.convert %20 : tensor<i32>
    %22 = stablehlo.broadcast_in_dim %21, dims = [] : (tensor<i32>) -> tensor<1xi32>
    %23 = "stablehlo.scatter"(%arg2, %22, %17) <{indices_are_sorted = true, scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0], scatter_dims_to_operand_dims = [0]>, unique_indices = true}> ({
    ^bb0(%arg3: tensor<i32>, %arg4: tensor<i32>):
      stablehlo.return %arg4 : tensor<i32>
    }) : (tensor<3xi32>, tensor<1xi32>, tensor<i32>) -> tensor<3xi32>
    %24 = stablehlo.compare LT, %6, %c_0, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %25 = stablehlo.add %6, %c : tensor<i32>
    %26 = stablehlo.select %24, %25, %6 : tensor<i1>, tensor<i32>
    %27 = stablehlo.broadcast_in_dim %26, dims = [] : (tensor<i32>) -> tensor<1xi32>
    %28 = "stablehlo.scatter"(%23, %27, %12) <{indices_are_sorted = true, scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0], scatter_dims_to_operand_dims = [0]>, unique_indices = true}> ({
    ^bb0(%arg3: tensor<i32>, %arg4: tensor<i32>):
      stablehlo.return %arg4 : tensor<i32>
    }) : (tensor<3xi32>, tensor<1xi32>, tensor<i32>) -> tensor<3xi32>
    return %0, %28 : tensor<i32>, tensor<3xi32>
  }
  func.func private @slogdet(%arg0: tensor<2x4x4xcomplex<f32>>) -> (tensor<2xcomplex<f32>>, tensor<2xf32>) {
    %cst = stablehlo.constant dense<(0xFF800000,0.000000e+00)> : tensor<complex<f32>>
    %c = stablehlo.constant dense<-2> : tensor<i32>
    %c_0 = stablehlo.constant dense<2> : tensor<i32>
    %cst_1 = stablehlo.constant dense<(1.000000e+00,0.000000e+00)> : tensor<complex<f32>>
    %c_2 = stablehlo.constant dense<false> : tensor<i1>
    %cst_3 = stablehlo.constant dense<(0.000000e+00,0.000000e+00)> : tensor<complex<f32>>
    %c_4 = stablehlo.constant dense<4> : tensor<i32>
    %cst_5 = stablehlo.constant dense<(0x7FC00000,0x7FC00000)> : tensor<complex<f32>>
    %c_6 = stablehlo.constant dense<0> : tensor<i32>
    %c_7 = stablehlo.constant dense<1> : tensor<i32>
    %0:3 = stablehlo.custom_call @lapack_cgetrf_ffi(%arg0) {mhlo.backend_config = {}, mhlo.frontend_attributes = {num_batch_dims = "1"}, operand_layouts = [dense<[1, 2, 0]> : tensor<3xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 0, operand_tuple_indices = []>], result_layouts = [dense<[1, 2, 0]> : tensor<3xindex>, dense<[1, 0]> : tensor<2xindex>, dense<0> : tensor<1xindex>], sdy.sharding_rule = #sdy.op_sharding_rule<([i, j, k])->([i, l, m], [i, n], [i]) {i=2, j=4, k=4, l=4, m=4, n=4}, custom>} : (tensor<2x4x4xcomplex<f32>>) -> (tensor<2x4x4xcomplex<f32>>, tensor<2x4xi32>, tensor<2xi32>)
    %1 = stablehlo.broadcast_in_dim %c_7, dims = [] : (tensor<i32>) -> tensor<2x4xi32>
    %2 = stablehlo.subtract %0#1, %1 : tensor<2x4xi32>
    %3 = stablehlo.broadcast_in_dim %c_6, dims = [] : (tensor<i32>) -> tensor<2xi32>
    %4 = stablehlo.compare GE, %0#2, %3, SIGNED : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi1>
    %5 = stablehlo.broadcast_in_dim %4, dims = [0] : (tensor<2xi1>) -> tensor<2x1x1xi1>
    %6 = stablehlo.broadcast_in_dim %cst_5, dims = [] : (tensor<complex<f32>>) -> tensor<2x4x4xcomplex<f32>>
    %7 = stablehlo.broadcast_in_dim %5, dims = [0, 1, 2] : (tensor<2x1x1xi1>) -> tensor<2x4x4xi1>
    %8 = stablehlo.select %7, %0#0, %6 : tensor<2x4x4xi1>, tensor<2x4x4xcomplex<f32>>
    %9 = stablehlo.iota dim = 1 : tensor<2x4xi32>
    %10:4 = stablehlo.while(%iterArg = %2, %iterArg_8 = %c_6, %iterArg_9 = %c_6, %iterArg_10 = %9) : tensor<2x4xi32>, tensor<i32>, tensor<i32>, tensor<2x4xi32>
    cond {
      %38 = stablehlo.compare LT, %iterArg_8, %c_4, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %38 : tensor<i1>
    } do {
      %38:2 = func.call @closed_call(%iterArg, %iterArg_9, %iterArg_10) : (tensor<2x4xi32>, tensor<i32>, tensor<2x4xi32>) -> (tensor<i32>, tensor<2x4xi32>)
      %39 = stablehlo.add %iterArg_8, %c_7 : tensor<i32>
      stablehlo.return %iterArg, %39, %38#0, %38#1 : tensor<2x4xi32>, tensor<i32>, tensor<i32>, tensor<2x4xi32>
    }
    %11 = call @diagonal(%8) : (tensor<2x4x4xcomplex<f32>>) -> tensor<2x4xcomplex<f32>>
    %12 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<complex<f32>>) -> tensor<2x4xcomplex<f32>>
    %13 = stablehlo.compare EQ, %11, %12, FLOAT : (tensor<2x4xcomplex<f32>>, tensor<2x4xcomplex<f32>>) -> tensor<2x4xi1>
    %14 = stablehlo.reduce(%13 init: %c_2) applies stablehlo.or across dimensions = [1] : (tensor<2x4xi1>, tensor<i1>) -> tensor<2xi1>
    %15 = stablehlo.iota dim = 0 : tensor<4xi32>
    %16 = stablehlo.broadcast_in_dim %15, dims = [1] : (tensor<4xi32>) -> tensor<1x4xi32>
    %17 = stablehlo.broadcast_in_dim %16, dims = [0, 1] : (tensor<1x4xi32>) -> tensor<2x4xi32>
    %18 = stablehlo.compare NE, %2, %17, SIGNED : (tensor<2x4xi32>, tensor<2x4xi32>) -> tensor<2x4xi1>
    %19 = call @count_nonzero(%18) : (tensor<2x4xi1>) -> tensor<2xi32>
    %20 = stablehlo.abs %11 : (tensor<2x4xcomplex<f32>>) -> tensor<2x4xf32>
    %21 = stablehlo.convert %20 : (tensor<2x4xf32>) -> tensor<2x4xcomplex<f32>>
    %22 = stablehlo.divide %11, %21 : tensor<2x4xcomplex<f32>>
    %23 = stablehlo.reduce(%22 init: %cst_1) applies stablehlo.multiply across dimensions = [1] : (tensor<2x4xcomplex<f32>>, tensor<complex<f32>>) -> tensor<2xcomplex<f32>>
    %24 = call @remainder(%19, %c_0) : (tensor<2xi32>, tensor<i32>) -> tensor<2xi32>
    %25 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<2xi32>
    %26 = stablehlo.multiply %25, %24 : tensor<2xi32>
    %27 = stablehlo.broadcast_in_dim %c_7, dims = [] : (tensor<i32>) -> tensor<2xi32>
    %28 = stablehlo.add %26, %27 : tensor<2xi32>
    %29 = stablehlo.convert %28 : (tensor<2xi32>) -> tensor<2xcomplex<f32>>
    %30 = stablehlo.multiply %23, %29 : tensor<2xcomplex<f32>>
    %31 = call @_where_1(%14, %cst_3, %30) : (tensor<2xi1>, tensor<complex<f32>>, tensor<2xcomplex<f32>>) -> tensor<2xcomplex<f32>>
    %32 = stablehlo.abs %11 : (tensor<2x4xcomplex<f32>>) -> tensor<2x4xf32>
    %33 = stablehlo.log %32 : tensor<2x4xf32>
    %34 = stablehlo.convert %33 : (tensor<2x4xf32>) -> tensor<2x4xcomplex<f32>>
    %35 = stablehlo.reduce(%34 init: %cst_3) applies stablehlo.add across dimensions = [1] : (tensor<2x4xcomplex<f32>>, tensor<complex<f32>>) -> tensor<2xcomplex<f32>>
    %36 = call @_where_1(%14, %cst, %35) : (tensor<2xi1>, tensor<complex<f32>>, tensor<2xcomplex<f32>>) -> tensor<2xcomplex<f32>>
    %37 = stablehlo.real %36 : (tensor<2xcomplex<f32>>) -> tensor<2xf32>
    return %31, %37 : tensor<2xcomplex<f32>>, tensor<2xf32>
  }
  func.func private @diagonal(%arg0: tensor<2x4x4xcomplex<f32>>) -> tensor<2x4xcomplex<f32>> {
    %c = stablehlo.constant dense<4> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.iota dim = 0 : tensor<4xi32>
    %1 = stablehlo.iota dim = 0 : tensor<4xi32>
    %2 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i32>) -> tensor<4xi32>
    %3 = stablehlo.compare LT, %0, %2, SIGNED : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi1>
    %4 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<4xi32>
    %5 = stablehlo.add %0, %4 : tensor<4xi32>
    %6 = stablehlo.select %3, %5, %0 : tensor<4xi1>, tensor<4xi32>
    %7 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i32>) -> tensor<4xi32>
    %8 = stablehlo.compare LT, %1, %7, SIGNED : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi1>
    %9 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<4xi32>
    %10 = stablehlo.add %1, %9 : tensor<4xi32>
    %11 = stablehlo.select %8, %10, %1 : tensor<4xi1>, tensor<4xi32>
    %12 = stablehlo.broadcast_in_dim %6, dims = [0] : (tensor<4xi32>) -> tensor<4x1xi32>
    %13 = stablehlo.broadcast_in_dim %11, dims = [0] : (tensor<4xi32>) -> tensor<4x1xi32>
    %14 = stablehlo.concatenate %12, %13, dim = 1 : (tensor<4x1xi32>, tensor<4x1xi32>) -> tensor<4x2xi32>
    %15 = "stablehlo.gather"(%arg0, %14) <{dimension_numbers = #stablehlo.gather<offset_dims = [0], collapsed_slice_dims = [1, 2], start_index_map = [1, 2], index_vector_dim = 1>, slice_sizes = array<i64: 2, 1, 1>}> : (tensor<2x4x4xcomplex<f32>>, tensor<4x2xi32>) -> tensor<2x4xcomplex<f32>>
    return %15 : tensor<2x4xcomplex<f32>>
  }
  func.func private @count_nonzero(%arg0: tensor<2x4xi1>) -> tensor<2xi32> {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<false> : tensor<i1>
    %0 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i1>) -> tensor<2x4xi1>
    %1 = stablehlo.compare NE, %arg0, %0, UNSIGNED : (tensor<2x4xi1>, tensor<2x4xi1>) -> tensor<2x4xi1>
    %2 = stablehlo.convert %1 : (tensor<2x4xi1>) -> tensor<2x4xi32>
    %3 = stablehlo.reduce(%2 init: %c) applies stablehlo.add across dimensions = [1] : (tensor<2x4xi32>, tensor<i32>) -> tensor<2xi32>
    return %3 : tensor<2xi32>
  }
  func.func private @remainder(%arg0: tensor<2xi32>, %arg1: tensor<i32>) -> tensor<2xi32> {
    %c = stablehlo.constant dense<1> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.convert %arg1 : tensor<i32>
    %1 = stablehlo.compare EQ, %0, %c_0, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %2 = call @_where(%1, %c, %0) : (tensor<i1>, tensor<i32>, tensor<i32>) -> tensor<i32>
    %3 = stablehlo.broadcast_in_dim %2, dims = [] : (tensor<i32>) -> tensor<2xi32>
    %4 = stablehlo.remainder %arg0, %3 : tensor<2xi32>
    %5 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i32>) -> tensor<2xi32>
    %6 = stablehlo.compare NE, %4, %5, SIGNED : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi1>
    %7 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i32>) -> tensor<2xi32>
    %8 = stablehlo.compare LT, %4, %7, SIGNED : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi1>
    %9 = stablehlo.compare LT, %2, %c_0, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %10 = stablehlo.broadcast_in_dim %9, dims = [] : (tensor<i1>) -> tensor<2xi1>
    %11 = stablehlo.compare NE, %8, %10, UNSIGNED : (tensor<2xi1>, tensor<2xi1>) -> tensor<2xi1>
    %12 = stablehlo.and %11, %6 : tensor<2xi1>
    %13 = stablehlo.broadcast_in_dim %2, dims = [] : (tensor<i32>) -> tensor<2xi32>
    %14 = stablehlo.add %4, %13 : tensor<2xi32>
    %15 = stablehlo.select %12, %14, %4 : tensor<2xi1>, tensor<2xi32>
    return %15 : tensor<2xi32>
  }
  func.func private @_where(%arg0: tensor<i1>, %arg1: tensor<i32>, %arg2: tensor<i32>) -> tensor<i32> {
    %0 = stablehlo.select %arg0, %arg1, %arg2 : tensor<i1>, tensor<i32>
    return %0 : tensor<i32>
  }
  func.func private @_where_1(%arg0: tensor<2xi1>, %arg1: tensor<complex<f32>>, %arg2: tensor<2xcomplex<f32>>) -> tensor<2xcomplex<f32>> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [] : (tensor<complex<f32>>) -> tensor<2xcomplex<f32>>
    %1 = stablehlo.select %arg0, %0, %arg2 : tensor<2xi1>, tensor<2xcomplex<f32>>
    return %1 : tensor<2xcomplex<f32>>
  }
  func.func private @solve(%arg0: tensor<2x4x4xcomplex<f32>>, %arg1: tensor<2x4x3xcomplex<f32>>) -> tensor<2x4x3xcomplex<f32>> {
    %c = stablehlo.constant dense<4> : tensor<i32>
    %cst = stablehlo.constant dense<(0x7FC00000,0x7FC00000)> : tensor<complex<f32>>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %c_1 = stablehlo.constant dense<1> : tensor<i32>
    %0:3 = stablehlo.custom_call @lapack_cgetrf_ffi(%arg0) {mhlo.backend_config = {}, mhlo.frontend_attributes = {num_batch_dims = "1"}, operand_layouts = [dense<[1, 2, 0]> : tensor<3xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 0, operand_tuple_indices = []>], result_layouts = [dense<[1, 2, 0]> : tensor<3xindex>, dense<[1, 0]> : tensor<2xindex>, dense<0> : tensor<1xindex>], sdy.sharding_rule = #sdy.op_sharding_rule<([i, j, k])->([i, l, m], [i, n], [i]) {i=2, j=4, k=4, l=4, m=4, n=4}, custom>} : (tensor<2x4x4xcomplex<f32>>) -> (tensor<2x4x4xcomplex<f32>>, tensor<2x4xi32>, tensor<2xi32>)
    %1 = stablehlo.broadcast_in_dim %c_1, dims = [] : (tensor<i32>) -> tensor<2x4xi32>
    %2 = stablehlo.subtract %0#1, %1 : tensor<2x4xi32>
    %3 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i32>) -> tensor<2xi32>
    %4 = stablehlo.compare GE, %0#2, %3, SIGNED : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi1>
    %5 = stablehlo.broadcast_in_dim %4, dims = [0] : (tensor<2xi1>) -> tensor<2x1x1xi1>
    %6 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<complex<f32>>) -> tensor<2x4x4xcomplex<f32>>
    %7 = stablehlo.broadcast_in_dim %5, dims = [0, 1, 2] : (tensor<2x1x1xi1>) -> tensor<2x4x4xi1>
    %8 = stablehlo.select %7, %0#0, %6 : tensor<2x4x4xi1>, tensor<2x4x4xcomplex<f32>>
    %9 = stablehlo.iota dim = 1 : tensor<2x4xi32>
    %10:4 = stablehlo.while(%iterArg = %2, %iterArg_2 = %c_0, %iterArg_3 = %c_0, %iterArg_4 = %9) : tensor<2x4xi32>, tensor<i32>, tensor<i32>, tensor<2x4xi32>
    cond {
      %14 = stablehlo.compare LT, %iterArg_2, %c, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %14 : tensor<i1>
    } do {
      %14:2 = func.call @closed_call(%iterArg, %iterArg_3, %iterArg_4) : (tensor<2x4xi32>, tensor<i32>, tensor<2x4xi32>) -> (tensor<i32>, tensor<2x4xi32>)
      %15 = stablehlo.add %iterArg_2, %c_1 : tensor<i32>
      stablehlo.return %iterArg, %15, %14#0, %14#1 : tensor<2x4xi32>, tensor<i32>, tensor<i32>, tensor<2x4xi32>
    }
    %11 = stablehlo.transpose %arg1, dims = [0, 2, 1] : (tensor<2x4x3xcomplex<f32>>) -> tensor<2x3x4xcomplex<f32>>
    %12 = call @_lu_solve(%8, %10#3, %11) : (tensor<2x4x4xcomplex<f32>>, tensor<2x4xi32>, tensor<2x3x4xcomplex<f32>>) -> tensor<2x3x4xcomplex<f32>>
    %13 = stablehlo.transpose %12, dims = [0, 2, 1] : (tensor<2x3x4xcomplex<f32>>) -> tensor<2x4x3xcomplex<f32>>
    return %13 : tensor<2x4x3xcomplex<f32>>
  }
  func.func private @_lu_solve(%arg0: tensor<2x4x4xcomplex<f32>>, %arg1: tensor<2x4xi32>, %arg2: tensor<2x3x4xcomplex<f32>>) -> tensor<2x3x4xcomplex<f32>> {
    %c = stablehlo.constant dense<4> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.broadcast_in_dim %arg2, dims = [0, 1, 2] : (tensor<2x3x4xcomplex<f32>>) -> tensor<2x3x4x1xcomplex<f32>>
    %1 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i32>) -> tensor<2x4xi32>
    %2 = stablehlo.compare LT, %arg1, %1, SIGNED : (tensor<2x4xi32>, tensor<2x4xi32>) -> tensor<2x4xi1>
    %3 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<2x4xi32>
    %4 = stablehlo.add %arg1, %3 : tensor<2x4xi32>
    %5 = stablehlo.select %2, %4, %arg1 : tensor<2x4xi1>, tensor<2x4xi32>
    %6 = stablehlo.broadcast_in_dim %5, dims = [0, 1] : (tensor<2x4xi32>) -> tensor<2x4x1xi32>
    %7 = "stablehlo.gather"(%0, %6) <{dimension_numbers = #stablehlo.gather<offset_dims = [1, 3], collapsed_slice_dims = [2], operand_batching_dims = [0], start_indices_batching_dims = [0], start_index_map = [2], index_vector_dim = 2>, slice_sizes = array<i64: 1, 3, 1, 1>}> : (tensor<2x3x4x1xcomplex<f32>>, tensor<2x4x1xi32>) -> tensor<2x3x4x1xcomplex<f32>>
    %8 = stablehlo.transpose %7, dims = [0, 2, 3, 1] : (tensor<2x3x4x1xcomplex<f32>>) -> tensor<2x4x1x3xcomplex<f32>>
    %9 = stablehlo.reshape %8 : (tensor<2x4x1x3xcomplex<f32>>) -> tensor<2x4x3xcomplex<f32>>
    %10 = stablehlo.custom_call @lapack_ctrsm_ffi(%arg0, %9) {mhlo.backend_config = {diag = 85 : ui8, side = 76 : ui8, trans_x = 78 : ui8, uplo = 76 : ui8}, mhlo.frontend_attributes = {num_batch_dims = "1"}, operand_layouts = [dense<[1, 2, 0]> : tensor<3xindex>, dense<[1, 2, 0]> : tensor<3xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [], operand_index = 1, operand_tuple_indices = []>], result_layouts = [dense<[1, 2, 0]> : tensor<3xindex>], sdy.sharding_rule = #sdy.op_sharding_rule<([i, j, k], [i, l, m])->([i, n, o]) {i=2, j=4, k=4, l=4, m=3, n=4, o=3}, custom>} : (tensor<2x4x4xcomplex<f32>>, tensor<2x4x3xcomplex<f32>>) -> tensor<2x4x3xcomplex<f32>>
    %11 = stablehlo.reshape %10 : (tensor<2x4x3xcomplex<f32>>) -> tensor<2x4x1x3xcomplex<f32>>
    %12 = stablehlo.reshape %11 : (tensor<2x4x1x3xcomplex<f32>>) -> tensor<2x4x3xcomplex<f32>>
    %13 = stablehlo.custom_call @lapack_ctrsm_ffi(%arg0, %12) {mhlo.backend_config = {diag = 78 : ui8, side = 76 : ui8, trans_x = 78 : ui8, uplo = 85 : ui8}, mhlo.frontend_attributes = {num_batch_dims = "1"}, operand_layouts = [dense<[1, 2, 0]> : tensor<3xindex>, dense<[1, 2, 0]> : tensor<3xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [], operand_index = 1, operand_tuple_indices = []>], result_layouts = [dense<[1, 2, 0]> : tensor<3xindex>], sdy.sharding_rule = #sdy.op_sharding_rule<([i, j, k], [i, l, m])->([i, n, o]) {i=2, j=4, k=4, l=4, m=3, n=4, o=3}, custom>} : (tensor<2x4x4xcomplex<f32>>, tensor<2x4x3xcomplex<f32>>) -> tensor<2x4x3xcomplex<f32>>
    %14 = stablehlo.reshape %13 : (tensor<2x4x3xcomplex<f32>>) -> tensor<2x4x1x3xcomplex<f32>>
    %15 = stablehlo.transpose %14, dims = [0, 3, 1, 2] : (tensor<2x4x1x3xcomplex<f32>>) -> tensor<2x3x4x1xcomplex<f32>>
    %16 = stablehlo.reshape %15 : (tensor<2x3x4x1xcomplex<f32>>) -> tensor<2x3x4xcomplex<f32>>
    return %16 : tensor<2x3x4xcomplex<f32>>
  }
  func.func private @inv(%arg0: tensor<2x4x4xcomplex<f32>>) -> tensor<2x4x4xcomplex<f32>> {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.iota dim = 0 : tensor<4x4xi32>
    %1 = stablehlo.iota dim = 1 : tensor<4x4xi32>
    %2 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<4x4xi32>
    %3 = stablehlo.add %0, %2 : tensor<4x4xi32>
    %4 = stablehlo.compare EQ, %3, %1, SIGNED : (tensor<4x4xi32>, tensor<4x4xi32>) -> tensor<4x4xi1>
    %5 = stablehlo.convert %4 : (tensor<4x4xi1>) -> tensor<4x4xcomplex<f32>>
    %6 = stablehlo.broadcast_in_dim %5, dims = [1, 2] : (tensor<4x4xcomplex<f32>>) -> tensor<2x4x4xcomplex<f32>>
    %7 = call @solve_2(%arg0, %6) : (tensor<2x4x4xcomplex<f32>>, tensor<2x4x4xcomplex<f32>>) -> tensor<2x4x4xcomplex<f32>>
    return %7 : tensor<2x4x4xcomplex<f32>>
  }
  func.func private @solve_2(%arg0: tensor<2x4x4xcomplex<f32>>, %arg1: tensor<2x4x4xcomplex<f32>>) -> tensor<2x4x4xcomplex<f32>> {
    %c = stablehlo.constant dense<4> : tensor<i32>
    %cst = stablehlo.constant dense<(0x7FC00000,0x7FC00000)> : tensor<complex<f32>>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %c_1 = stablehlo.constant dense<1> : tensor<i32>
    %0:3 = stablehlo.custom_call @lapack_cgetrf_ffi(%arg0) {mhlo.backend_config = {}, mhlo.frontend_attributes = {num_batch_dims = "1"}, operand_layouts = [dense<[1, 2, 0]> : tensor<3xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 0, operand_tuple_indices = []>], result_layouts = [dense<[1, 2, 0]> : tensor<3xindex>, dense<[1, 0]> : tensor<2xindex>, dense<0> : tensor<1xindex>], sdy.sharding_rule = #sdy.op_sharding_rule<([i, j, k])->([i, l, m], [i, n], [i]) {i=2, j=4, k=4, l=4, m=4, n=4}, custom>} : (tensor<2x4x4xcomplex<f32>>) -> (tensor<2x4x4xcomplex<f32>>, tensor<2x4xi32>, tensor<2xi32>)
    %1 = stablehlo.broadcast_in_dim %c_1, dims = [] : (tensor<i32>) -> tensor<2x4xi32>
    %2 = stablehlo.subtract %0#1, %1 : tensor<2x4xi32>
    %3 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i32>) -> tensor<2xi32>
    %4 = stablehlo.compare GE, %0#2, %3, SIGNED : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi1>
    %5 = stablehlo.broadcast_in_dim %4, dims = [0] : (tensor<2xi1>) -> tensor<2x1x1xi1>
    %6 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<complex<f32>>) -> tensor<2x4x4xcomplex<f32>>
    %7 = stablehlo.broadcast_in_dim %5, dims = [0, 1, 2] : (tensor<2x1x1xi1>) -> tensor<2x4x4xi1>
    %8 = stablehlo.select %7, %0#0, %6 : tensor<2x4x4xi1>, tensor<2x4x4xcomplex<f32>>
    %9 = stablehlo.iota dim = 1 : tensor<2x4xi32>
    %10:4 = stablehlo.while(%iterArg = %2, %iterArg_2 = %c_0, %iterArg_3 = %c_0, %iterArg_4 = %9) : tensor<2x4xi32>, tensor<i32>, tensor<i32>, tensor<2x4xi32>
    cond {
      %14 = stablehlo.compare LT, %iterArg_2, %c, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %14 : tensor<i1>
    } do {
      %14:2 = func.call @closed_call(%iterArg, %iterArg_3, %iterArg_4) : (tensor<2x4xi32>, tensor<i32>, tensor<2x4xi32>) -> (tensor<i32>, tensor<2x4xi32>)
      %15 = stablehlo.add %iterArg_2, %c_1 : tensor<i32>
      stablehlo.return %iterArg, %15, %14#0, %14#1 : tensor<2x4xi32>, tensor<i32>, tensor<i32>, tensor<2x4xi32>
    }
    %11 = stablehlo.transpose %arg1, dims = [0, 2, 1] : (tensor<2x4x4xcomplex<f32>>) -> tensor<2x4x4xcomplex<f32>>
    %12 = call @_lu_solve_3(%8, %10#3, %11) : (tensor<2x4x4xcomplex<f32>>, tensor<2x4xi32>, tensor<2x4x4xcomplex<f32>>) -> tensor<2x4x4xcomplex<f32>>
    %13 = stablehlo.transpose %12, dims = [0, 2, 1] : (tensor<2x4x4xcomplex<f32>>) -> tensor<2x4x4xcomplex<f32>>
    return %13 : tensor<2x4x4xcomplex<f32>>
  }
  func.func private @_lu_solve_3(%arg0: tensor<2x4x4xcomplex<f32>>, %arg1: tensor<2x4xi32>, %arg2: tensor<2x4x4xcomplex<f32>>) -> tensor<2x4x4xcomplex<f32>> {
    %c = stablehlo.constant dense<4> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.broadcast_in_dim %arg2, dims = [0, 1, 2] : (tensor<2x4x4xcomplex<f32>>) -> tensor<2x4x4x1xcomplex<f32>>
    %1 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i32>) -> tensor<2x4xi32>
    %2 = stablehlo.compare LT, %arg1, %1, SIGNED : (tensor<2x4xi32>, tensor<2x4xi32>) -> tensor<2x4xi1>
    %3 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<2x4xi32>
    %4 = stablehlo.add %arg1, %3 : tensor<2x4xi32>
    %5 = stablehlo.select %2, %4, %arg1 : tensor<2x4xi1>, tensor<2x4xi32>
    %6 = stablehlo.broadcast_in_dim %5, dims = [0, 1] : (tensor<2x4xi32>) -> tensor<2x4x1xi32>
    %7 = "stablehlo.gather"(%0, %6) <{dimension_numbers = #stablehlo.gather<offset_dims = [1, 3], collapsed_slice_dims = [2], operand_batching_dims = [0], start_indices_batching_dims = [0], start_index_map = [2], index_vector_dim = 2>, slice_sizes = array<i64: 1, 4, 1, 1>}> : (tensor<2x4x4x1xcomplex<f32>>, tensor<2x4x1xi32>) -> tensor<2x4x4x1xcomplex<f32>>
    %8 = stablehlo.transpose %7, dims = [0, 2, 3, 1] : (tensor<2x4x4x1xcomplex<f32>>) -> tensor<2x4x1x4xcomplex<f32>>
    %9 = stablehlo.reshape %8 : (tensor<2x4x1x4xcomplex<f32>>) -> tensor<2x4x4xcomplex<f32>>
    %10 = stablehlo.custom_call @lapack_ctrsm_ffi(%arg0, %9) {mhlo.backend_config = {diag = 85 : ui8, side = 76 : ui8, trans_x = 78 : ui8, uplo = 76 : ui8}, mhlo.frontend_attributes = {num_batch_dims = "1"}, operand_layouts = [dense<[1, 2, 0]> : tensor<3xindex>, dense<[1, 2, 0]> : tensor<3xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [], operand_index = 1, operand_tuple_indices = []>], result_layouts = [dense<[1, 2, 0]> : tensor<3xindex>], sdy.sharding_rule = #sdy.op_sharding_rule<([i, j, k], [i, l, m])->([i, n, o]) {i=2, j=4, k=4, l=4, m=4, n=4, o=4}, custom>} : (tensor<2x4x4xcomplex<f32>>, tensor<2x4x4xcomplex<f32>>) -> tensor<2x4x4xcomplex<f32>>
    %11 = stablehlo.reshape %10 : (tensor<2x4x4xcomplex<f32>>) -> tensor<2x4x1x4xcomplex<f32>>
    %12 = stablehlo.reshape %11 : (tensor<2x4x1x4xcomplex<f32>>) -> tensor<2x4x4xcomplex<f32>>
    %13 = stablehlo.custom_call @lapack_ctrsm_ffi(%arg0, %12) {mhlo.backend_config = {diag = 78 : ui8, side = 76 : ui8, trans_x = 78 : ui8, uplo = 85 : ui8}, mhlo.frontend_attributes = {num_batch_dims = "1"}, operand_layouts = [dense<[1, 2, 0]> : tensor<3xindex>, dense<[1, 2, 0]> : tensor<3xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [], operand_index = 1, operand_tuple_indices = []>], result_layouts = [dense<[1, 2, 0]> : tensor<3xindex>], sdy.sharding_rule = #sdy.op_sharding_rule<([i, j, k], [i, l, m])->([i, n, o]) {i=2, j=4, k=4, l=4, m=4, n=4, o=4}, custom>} : (tensor<2x4x4xcomplex<f32>>, tensor<2x4x4xcomplex<f32>>) -> tensor<2x4x4xcomplex<f32>>
    %14 = stablehlo.reshape %13 : (tensor<2x4x4xcomplex<f32>>) -> tensor<2x4x1x4xcomplex<f32>>
    %15 = stablehlo.transpose %14, dims = [0, 3, 1, 2] : (tensor<2x4x1x4xcomplex<f32>>) -> tensor<2x4x4x1xcomplex<f32>>
    %16 = stablehlo.reshape %15 : (tensor<2x4x4x1xcomplex<f32>>) -> tensor<2x4x4xcomplex<f32>>
    return %16 : tensor<2x4x4xcomplex<f32>>
  }
  func.func private @det(%arg0: tensor<2x4x4xcomplex<f32>>) -> tensor<2xcomplex<f32>> {
    %0:2 = call @slogdet(%arg0) : (tensor<2x4x4xcomplex<f32>>) -> (tensor<2xcomplex<f32>>, tensor<2xf32>)
    %1 = stablehlo.exponential %0#1 : tensor<2xf32>
    %2 = stablehlo.convert %1 : (tensor<2xf32>) -> tensor<2xcomplex<f32>>
    %3 = stablehlo.multiply %0#0, %2 : tensor<2xcomplex<f32>>
    return %3 : tensor<2xcomplex<f32>>
  }
}
