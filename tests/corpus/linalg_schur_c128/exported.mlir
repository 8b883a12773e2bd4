module @jit_f attributes {jax.uses_shape_polymorphism = false, mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<6x6xcomplex<f64>>, %arg1: tensor<2x4x4xcomplex<f64>>) -> (tensor<6x6xcomplex<f64>> {jax.result_info = "result[0]"}, tensor<6x6xcomplex<f64>> {jax.result_info = "result[1]"}, tensor<6x6xcomplex<f64>> {jax.result_info = "result[2]"}, tensor<6xf64> {jax.result_info = "result[3]"}, tensor<6xf64> {jax.result_info = "result[4]"}, tensor<6xf64> {jax.result_info = "result[5]"}, tensor<6xf64> {jax.result_info = "result[6]"}, tensor<2x4x4xcomplex<f64>> {jax.result_info = "result[7]"}, tensor<2x4x4xcomplex<f64>> {jax.result_info = "result[8]"}, tensor<2x4x4xcomplex<f64>> {jax.result_info = "result[9]"}, tensor<2x4xf64> {jax.result_info = "result[10]"}, tensor<2x4xf64> {jax.result_info = "result[11]"}, tensor<2x4xf64> {jax.result_info = "result[12]"}, tensor<2x4xf64> {jax.result_info = "result[13]"}, tensor<2x4xf64> {jax.result_info = "result[14]"}, tensor<2x4xf64> {jax.result_info = "result[15]"}) {
    %cst = stablehlo.constant dense<(0x7FF8000000000000,0x7FF8000000000000)> : tensor<complex<f64>>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0:2 = call @_schur(%arg0) : (tensor<6x6xcomplex<f64>>) -> (tensor<6x6xcomplex<f64>>, tensor<6x6xcomplex<f64>>)
    %1:5 = stablehlo.custom_call @lapack_zgees_ffi(%arg1) {mhlo.backend_config = {mode = 86 : ui8, sort = 78 : ui8}, mhlo.frontend_attributes = {num_batch_dims = "1"}, operand_layouts = [dense<[1, 2, 0]> : tensor<3xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 0, operand_tuple_indices = []>], result_layouts = [dense<[1, 2, 0]> : tensor<3xindex>, dense<[1, 2, 0]> : tensor<3xindex>, dense<[1, 0]> : tensor<2xindex>, dense<0> : tensor<1xindex>, dense<0> : tensor<1xindex>], sdy.sharding_rule = #sdy.op_sharding_rule<([i, j, k])->([i, l, m], [i, n, o], [i, p], [i], [i]) {i=2, j=4, k=4, l=4, m=4, n=4, o=4, p=4}, custom>} : (tensor<2x4x4xcomplex<f64>>) -> (tensor<2x4x4xcomplex<f64>>, tensor<2x4x4xcomplex<f64>>, tensor<2x4xcomplex<f64>>, tensor<2xi32>, tensor<2xi32>)
    %2 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<2xi32>
    %3 = stablehlo.compare EQ, %1#4, %2, SIGNED : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi1>
    %4 = stablehlo.broadcast_in_dim %3, dims = [0] : (tensor<2xi1>) -> tensor<2x1x1xi1>
    %5 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<complex<f64>>) -> tensor<2x4x4xcomplex<f64>>
    %6 = stablehlo.broadcast_in_dim %4, dims = [0, 1, 2] : (tensor<2x1x1xi1>) -> tensor<2x4x4xi1>
    %7 = stablehlo.select %6, %1#0, %5 : tensor<2x4x4xi1>, tensor<2x4x4xcomplex<f64>>
    %8 = stablehlo.broadcast_in_dim %3, dims = [0] : (tensor<2xi1>) -> tensor<2x1x1xi1>
    %9 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<complex<f64>>) -> tensor<2x4x4xcomplex<f64>>
    %10 = stablehlo.broadcast_in_dim %8, dims = [0, 1, 2] : (tensor<2x1x1xi1>) -> tensor<2x4x4xi1>
    %11 = stablehlo.select %10, %1#1, %9 : tensor<2x4x4xi1>, tensor<2x4x4xcomplex<f64>>
    %12:5 = stablehlo.custom_call @lapack_zgees_ffi(%arg1) {mhlo.backend_config = {mode = 78 : ui8, sort = 78 : ui8}, mhlo.frontend_attributes = {num_batch_dims = "1"}, operand_layouts = [dense<[1, 2, 0]> : tensor<3xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 0, operand_tuple_indices = []>], result_layouts = [dense<[1, 2, 0]> : tensor<3xindex>, dense<[1, 2, 0]> : tensor<3xindex>, dense<[1, 0]> : tensor<2xindex>, dense<0> : tensor<1xindex>, dense<0> : tensor<1xindex>], sdy.sharding_rule = #sdy.op_sharding_rule<([i, j, k])->([i, l, m], [i, n, o], [i, p], [i], [i]) {i=2, j=4, k=4, l=4, m=4, n=4, o=4, p=4}, custom>} : (tensor<2x4x4xcomplex<f64>>) -> (tensor<2x4x4xcomplex<f64>>, tensor<2x4x4xcomplex<f64>>, tensor<2x4xcomplex<f64>>, tensor<2xi32>, tensor<2xi32>)
    %13 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<2xi32>
    %14 = stablehlo.compare EQ, %12#4, %13, SIGNED : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi1>
    %15 = stablehlo.broadcast_in_dim %14, dims = [0] : (tensor<2xi1>) -> tensor<2x1x1xi1>
    %16 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<complex<f64>>) -> tensor<2x4x4xcomplex<f64>>
    %17 = stablehlo.broadcast_in_dim %15, dims = [0, 1, 2] : (tensor<2x1x1xi1>) -> tensor<2x4x4xi1>
    %18 = stablehlo.select %17, %12#0, %16 : tensor<2x4x4xi1>, tensor<2x4x4xcomplex<f64>>
    %19 = call @diagonal(%18) : (tensor<2x4x4xcomplex<f64>>) -> tensor<2x4xcomplex<f64>>
    %20 = stablehlo.transpose %0#1, dims = [1, 0] : (tensor<6x6xcomplex<f64>>) -> tensor<6x6xcomplex<f64>>
    %21 = stablehlo.real %20 : (tensor<6x6xcomplex<f64>>) -> tensor<6x6xf64>
    %22 = stablehlo.imag %20 : (tensor<6x6xcomplex<f64>>) -> tensor<6x6xf64>
    %23 = stablehlo.negate %22 : tensor<6x6xf64>
    %24 = stablehlo.complex %21, %23 : tensor<6x6xcomplex<f64>>
    %25 = call @tril(%0#0) : (tensor<6x6xcomplex<f64>>) -> tensor<6x6xcomplex<f64>>
    %26 = call @eigvals(%0#0) : (tensor<6x6xcomplex<f64>>) -> tensor<6xcomplex<f64>>
    %27 = call @diagonal_0(%0#0) : (tensor<6x6xcomplex<f64>>) -> tensor<6xcomplex<f64>>
    %28 = stablehlo.real %26 : (tensor<6xcomplex<f64>>) -> tensor<6xf64>
    %29 = call @sort(%28) : (tensor<6xf64>) -> tensor<6xf64>
    %30 = stablehlo.imag %26 : (tensor<6xcomplex<f64>>) -> tensor<6xf64>
    %31 = call @sort(%30) : (tensor<6xf64>) -> tensor<6xf64>
    %32 = stablehlo.real %27 : (tensor<6xcomplex<f64>>) -> tensor<6xf64>
    %33 = call @sort(%32) : (tensor<6xf64>) -> tensor<6xf64>
    %34 = stablehlo.imag %27 : (tensor<6xcomplex<f64>>) -> tensor<6xf64>
    %35 = call @sort(%34) : (tensor<6xf64>) -> tensor<6xf64>
    %36 = stablehlo.dot_general %0#1, %0#0, contracting_dims = [1] x [0] : (tensor<6x6xcomplex<f64>>, tensor<6x6xcomplex<f64>>) -> tensor<6x6xcomplex<f64>>
    %37 = stablehlo.dot_general %36, %24, contracting_dims = [1] x [0] : (tensor<6x6xcomplex<f64>>, tensor<6x6xcomplex<f64>>) -> tensor<6x6xcomplex<f64>>
    %38 = stablehlo.dot_general %24, %0#1, contracting_dims = [1] x [0] : (tensor<6x6xcomplex<f64>>, tensor<6x6xcomplex<f64>>) -> tensor<6x6xcomplex<f64>>
    %39 = stablehlo.transpose %11, dims = [0, 2, 1] : (tensor<2x4x4xcomplex<f64>>) -> tensor<2x4x4xcomplex<f64>>
    %40 = stablehlo.real %39 : (tensor<2x4x4xcomplex<f64>>) -> tensor<2x4x4xf64>
    %41 = stablehlo.imag %39 : (tensor<2x4x4xcomplex<f64>>) -> tensor<2x4x4xf64>
    %42 = stablehlo.negate %41 : tensor<2x4x4xf64>
    %43 = stablehlo.complex %40, %42 : tensor<2x4x4xcomplex<f64>>
    %44 = call @tril_1(%7) : (tensor<2x4x4xcomplex<f64>>) -> tensor<2x4x4xcomplex<f64>>
    %45 = call @eigvals_2(%7) : (tensor<2x4x4xcomplex<f64>>) -> tensor<2x4xcomplex<f64>>
    %46 = call @diagonal(%7) : (tensor<2x4x4xcomplex<f64>>) -> tensor<2x4xcomplex<f64>>
    %47 = stablehlo.real %45 : (tensor<2x4xcomplex<f64>>) -> tensor<2x4xf64>
    %48 = call @sort_3(%47) : (tensor<2x4xf64>) -> tensor<2x4xf64>
    %49 = stablehlo.imag %45 : (tensor<2x4xcomplex<f64>>) -> tensor<2x4xf64>
    %50 = call @sort_3(%49) : (tensor<2x4xf64>) -> tensor<2x4xf64>
    %51 = stablehlo.real %46 : (tensor<2x4xcomplex<f64>>) -> tensor<2x4xf64>
    %52 = call @sort_3(%51) : (tensor<2x4xf64>) -> tensor<2x4xf64>
    %53 = stablehlo.imag %46 : (tensor<2x4xcomplex<f64>>) -> tensor<2x4xf64>
    %54 = call @sort_3(%53) : (tensor<2x4xf64>) -> tensor<2x4xf64>
    %55 = stablehlo.dot_general %11, %7, batching_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<2x4x4xcomplex<f64>>, tensor<2x4x4xcomplex<f64>>) -> tensor<2x4x4xcomplex<f64>>
    %56 = stablehlo.dot_general %55, %43, batching_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<2x4x4xcomplex<f64>>, tensor<2x4x4xcomplex<f64>>) -> tensor<2x4x4xcomplex<f64>>
    %57 = stablehlo.dot_general %43, %11, batching_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<2x4x4xcomplex<f64>>, tensor<2x4x4xcomplex<f64>>) -> tensor<2x4x4xcomplex<f64>>
    %58 = stablehlo.real %19 : (tensor<2x4xcomplex<f64>>) -> tensor<2x4xf64>
    %59 = call @sort_3(%58) : (tensor<2x4xf64>) -> tensor<2x4xf64>
    %60 = stablehlo.imag %19 : (tensor<2x4xcomplex<f64>>) -> tensor<2x4xf64>
    %61 = call @sort_3(%60) : (tensor<2x4xf64>) -> tensor<2x4xf64>
    return %37, %38, %25, %29, %31, %33, %35, %56, %57, %44, %48, %50, %52, %54, %59, %61 : tensor<6x6xcomplex<f64>>, tensor<6x6xcomplex<f64>>, tensor<6x6xcomplex<f64>>, tensor<6xf64>, tensor<6xf64>, tensor<6xf64>, tensor<6xf64>, tensor<2x4x4xcomplex<f64>>, tensor<2x4x4xcomplex<f64>>, tensor<2x4x4xcomplex<f64>>, tensor<2x4xf64>, tensor<2x4xf64>, tensor<2x4xf64>, tensor<2x4xf64>, tensor<2x4xf64>, tensor<2x4xf64>
  }
  func.func private @_schur(%arg0: tensor<6x6xcomplex<f64>>) -> (tensor<6x6xcomplex<f64>>, tensor<6x6xcomplex<f64>>) {
    %cst = stablehlo.constant dense<(0x7FF8000000000000,0x7FF8000000000000)> : tensor<complex<f64>>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0:5 = stablehlo.custom_call @lapack_zgees_ffi(%arg0) {mhlo.backend_config = {mode = 86 : ui8, sort = 78 : ui8}, mhlo.frontend_attributes = {num_batch_dims = "0"}, operand_layouts = [dense<[0, 1]> : tensor<2xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 0, operand_tuple_indices = []>], result_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<[0, 1]> : tensor<2xindex>, dense<0> : tensor<1xindex>, dense<> : tensor<0xindex>, dense<> : tensor<0xindex>], sdy.sharding_rule = #sdy.op_sharding_rule<([i, j])->([k, l], [m, n], [o], [], []) {i=6, j=6, k=6, l=6, m=6, n=6, o=6}, custom>} : (tensor<6x6xcomplex<f64>>) -> (tensor<6x6xcomplex<f64>>, tensor<6x6xcomplex<f64>>, tensor<6xcomplex<f64>>, tensor<i32>, tensor<i32>)
    %1 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<i32>
    %2 = stablehlo.compare EQ, %0#4, %1, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %3 = stablehlo.broadcast_in_dim %2, dims = [] : (tensor<i1>) -> tensor<1x1xi1>
    %4 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<complex<f64>>) -> tensor<6x6xcomplex<f64>>
    %5 = stablehlo.broadcast_in_dim %3, dims = [0, 1] : (tensor<1x1xi1>) -> tensor<6x6xi1>
    %6 = stablehlo.select %5, %0#0, %4 : tensor<6x6xi1>, tensor<6x6xcomplex<f64>>
    %7 = stablehlo.broadcast_in_dim %2, dims = [] : (tensor<i1>) -> tensor<1x1xi1>
    %8 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<complex<f64>>) -> tensor<6x6xcomplex<f64>>
    %9 = stablehlo.broadcast_in_dim %7, dims = [0, 1] : (tensor<1x1xi1>) -> tensor<6x6xi1>
    %10 = stablehlo.select %9, %0#1, %8 : tensor<6x6xi1>, tensor<6x6xcomplex<f64>>
    return %6, %10 : tensor<6x6xcomplex<f64>>, tensor<6x6xcomplex<f64>>
  }
  func.func private @diagonal(%arg0: tensor<2x4x4xcomplex<f64>>) -> tensor<2x4xcomplex<f64>> {
    %c = stablehlo.constant dense<4> : tensor<i64>
    %c_0 = stablehlo.constant dense<0> : tensor<i64>
    %0 = stablehlo.iota dim = 0 : tensor<4xi64>
    %1 = stablehlo.iota dim = 0 : tensor<4xi64>
    %2 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i64>) -> tensor<4xi64>
    %3 = stablehlo.compare LT, %0, %2, SIGNED : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi1>
    %4 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i64>) -> tensor<4xi64>
    %5 = stablehlo.add %0, %4 : tensor<4xi64>
    %6 = stablehlo.select %3, %5, %0 : tensor<4xi1>, tensor<4xi64>
    %7 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i64>) -> tensor<4xi64>
    %8 = stablehlo.compare LT, %1, %7, SIGNED : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi1>
    %9 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i64>) -> tensor<4xi64>
    %10 = stablehlo.add %1, %9 : tensor<4xi64>
    %11 = stablehlo.select %8, %10, %1 : tensor<4xi1>, tensor<4xi64>
    %12 = stablehlo.convert %6 : (tensor<4xi64>) -> tensor<4xi32>
    %13 = stablehlo.convert %11 : (tensor<4xi64>) -> tensor<4xi32>
    %14 = stablehlo.broadcast_in_dim %12, dims = [0] : (tensor<4xi32>) -> tensor<4x1xi32>
    %15 = stablehlo.broadcast_in_dim %13, dims = [0] : (tensor<4xi32>) -> tensor<4x1xi32>
    %16 = stablehlo.concatenate %14, %15, dim = 1 : (tensor<4x1xi32>, tensor<4x1xi32>) -> tensor<4x2xi32>
    %17 = "stablehlo.gather"(%arg0, %16) <{dimension_numbers = #stablehlo.gather<offset_dims = [0], collapsed_slice_dims = [1, 2], start_index_map = [1, 2], index_vector_dim = 1>, slice_sizes = array<i64: 2, 1, 1>}> : (tensor<2x4x4xcomplex<f64>>, tensor<4x2xi32>) -> tensor<2x4xcomplex<f64>>
    return %17 : tensor<2x4xcomplex<f64>>
  }
  func.func private @tril(%arg0: tensor<6x6xcomplex<f64>>) -> tensor<6x6xcomplex<f64>> {
    %cst = stablehlo.constant dense<(0.000000e+00,0.000000e+00)> : tensor<complex<f64>>
    %c = stablehlo.constant dense<-1> : tensor<i64>
    %0 = stablehlo.iota dim = 0 : tensor<6x6xi64>
    %1 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i64>) -> tensor<6x6xi64>
    %2 = stablehlo.add %0, %1 : tensor<6x6xi64>
    %3 = stablehlo.iota dim = 1 : tensor<6x6xi64>
    %4 = stablehlo.compare GE, %2, %3, SIGNED : (tensor<6x6xi64>, tensor<6x6xi64>) -> tensor<6x6xi1>
    %5 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<complex<f64>>) -> tensor<6x6xcomplex<f64>>
    %6 = stablehlo.select %4, %arg0, %5 : tensor<6x6xi1>, tensor<6x6xcomplex<f64>>
    return %6 : tensor<6x6xcomplex<f64>>
  }
  func.func private @eigvals(%arg0: tensor<6x6xcomplex<f64>>) -> tensor<6xcomplex<f64>> {
    %cst = stablehlo.constant dense<(0x7FF8000000000000,0x7FF8000000000000)> : tensor<complex<f64>>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0:4 = stablehlo.custom_call @lapack_zgeev_ffi(%arg0) {mhlo.backend_config = {compute_left = 78 : ui8, compute_right = 78 : ui8}, mhlo.frontend_attributes = {num_batch_dims = "0"}, operand_layouts = [dense<[0, 1]> : tensor<2xindex>], result_layouts = [dense<0> : tensor<1xindex>, dense<[0, 1]> : tensor<2xindex>, dense<[0, 1]> : tensor<2xindex>, dense<> : tensor<0xindex>], sdy.sharding_rule = #sdy.op_sharding_rule<([i, j])->([k], [l, m], [n, o], []) {i=6, j=6, k=6, l=6, m=6, n=6, o=6}, custom>} : (tensor<6x6xcomplex<f64>>) -> (tensor<6xcomplex<f64>>, tensor<6x6xcomplex<f64>>, tensor<6x6xcomplex<f64>>, tensor<i32>)
    %1 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<i32>
    %2 = stablehlo.compare EQ, %0#3, %1, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %3 = stablehlo.broadcast_in_dim %2, dims = [] : (tensor<i1>) -> tensor<1xi1>
    %4 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<complex<f64>>) -> tensor<6xcomplex<f64>>
    %5 = stablehlo.broadcast_in_dim %3, dims = [0] : (tensor<1xi1>) -> tensor<6xi1>
    %6 = stablehlo.select %5, %0#0, %4 : tensor<6xi1>, tensor<6xcomplex<f64>>
    return %6 : tensor<6xcomplex<f64>>
  }
  func.func private @diagonal_0(%arg0: tensor<6x6xcomplex<f64>>) -> tensor<6xcomplex<f64>> {
    %c = stablehlo.constant dense<6> : tensor<i64>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %c_1 = stablehlo.constant dense<1> : tensor<i32>
    %c_2 = stablehlo.constant dense<0> : tensor<i64>
    %0 = "stablehlo.case"(%c_1) ({
      stablehlo.return %c_0 : tensor<i32>
    }, {
      stablehlo.return %c_0 : tensor<i32>
    }) : (tensor<i32>) -> tensor<i32>
    %1 = "stablehlo.case"(%0) ({
      %2 = stablehlo.iota dim = 0 : tensor<6xi64>
      %3 = stablehlo.iota dim = 0 : tensor<6xi64>
      %4 = stablehlo.broadcast_in_dim %c_2, dims = [] : (tensor<i64>) -> tensor<6xi64>
      %5 = stablehlo.compare LT, %2, %4, SIGNED : (tensor<6xi64>, tensor<6xi64>) -> tensor<6xi1>
      %6 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i64>) -> tensor<6xi64>
      %7 = stablehlo.add %2, %6 : tensor<6xi64>
      %8 = stablehlo.select %5, %7, %2 : tensor<6xi1>, tensor<6xi64>
      %9 = stablehlo.broadcast_in_dim %c_2, dims = [] : (tensor<i64>) -> tensor<6xi64>
      %10 = stablehlo.compare LT, %3, %9, SIGNED : (tensor<6xi64>, tensor<6xi64>) -> tensor<6xi1>
      %11 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i64>) -> tensor<6xi64>
      %12 = stablehlo.add %3, %11 : tensor<6xi64>
      %13 = stablehlo.select %10, %12, %3 : tensor<6xi1>, tensor<6xi64>
      %14 = stablehlo.convert %8 : (tensor<6xi64>) -> tensor<6xi32>
      %15 = stablehlo.convert %13 : (tensor<6xi64>) -> tensor<6xi32>
      %16 = stablehlo.broadcast_in_dim %14, dims = [0] : (tensor<6xi32>) -> tensor<6x1xi32>
      %17 = stablehlo.broadcast_in_dim %15, dims = [0] : (tensor<6xi32>) -> tensor<6x1xi32>
      %18 = stablehlo.concatenate %16, %17, dim = 1 : (tensor<6x1xi32>, tensor<6x1xi32>) -> tensor<6x2xi32>
      %19 = "stablehlo.gather"(%arg0, %18) <{dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [0, 1], start_index_map = [0, 1], index_vector_dim = 1>, slice_sizes = array<i64: 1, 1>}> : (tensor<6x6xcomplex<f64>>, tensor<6x2xi32>) -> tensor<6xcomplex<f64>>
      stablehlo.return %19 : tensor<6xcomplex<f64>>
    }) : (tensor<i32>) -> tensor<6xcomplex<f64>>
    return %1 : tensor<6xcomplex<f64>>
  }
  func.func private @sort(%arg0: tensor<6xf64>) -> tensor<6xf64> {
    %cst = stablehlo.constant dense<0x7FF8000000000000> : tensor<f64>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f64>
    %0 = "stablehlo.sort"(%arg0) <{dimension = 0 : i64, is_stable = true}> ({
    ^bb0(%arg1: tensor<f64>, %arg2: tensor<f64>):
      %1 = stablehlo.compare EQ, %arg1, %cst_0, FLOAT : (tensor<f64>, tensor<f64>) -> tensor<i1>
      %2 = stablehlo.select %1, %cst_0, %arg1 : tensor<i1>, tensor<f64>
      %3 = stablehlo.compare NE, %arg1, %arg1, FLOAT : (tensor<f64>, tensor<f64>) -> tensor<i1>
      %4 = stablehlo.select %3, %cst, %2 : tensor<i1>, tensor<f64>
      %5 = stablehlo.compare EQ, %arg2, %cst_0, FLOAT : (tensor<f64>, tensor<f64>) -> tensor<i1>
      %6 = stablehlo.select %5, %cst_0, %arg2 : tensor<i1>, tensor<f64>
      %7 = stablehlo.compare NE, %arg2, %arg2, FLOAT : (tensor<f64>, tensor<f64>) -> tensor<i1>
      %8 = stablehlo.select %7, %cst, %6 : tensor<i1>, tensor<f64>
      %9 = stablehlo.compare LT, %4, %8, TOTALORDER : (tensor<f64>, tensor<f64>) -> tensor<i1>
      stablehlo.return %9 : tensor<i1>
    }) : (tensor<6xf64>) -> tensor<6xf64>
    return %0 : tensor<6xf64>
  }
  func.func private @tril_1(%arg0: tensor<2x4x4xcomplex<f64>>) -> tensor<2x4x4xcomplex<f64>> {
    %cst = stablehlo.constant dense<(0.000000e+00,0.000000e+00)> : tensor<complex<f64>>
    %c = stablehlo.constant dense<-1> : tensor<i64>
    %0 = stablehlo.iota dim = 0 : tensor<4x4xi64>
    %1 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i64>) -> tensor<4x4xi64>
    %2 = stablehlo.add %0, %1 : tensor<4x4xi64>
    %3 = stablehlo.iota dim = 1 : tensor<4x4xi64>
    %4 = stablehlo.compare GE, %2, %3, SIGNED : (tensor<4x4xi64>, tensor<4x4xi64>) -> tensor<4x4xi1>
    %5 = stablehlo.broadcast_in_dim %4, dims = [1, 2] : (tensor<4x4xi1>) -> tensor<2x4x4xi1>
    %6 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<complex<f64>>) -> tensor<2x4x4xcomplex<f64>>
    %7 = stablehlo.select %5, %arg0, %6 : tensor<2x4x4xi1>, tensor<2x4x4xcomplex<f64>>
    return %7 : tensor<2x4x4xcomplex<f64>>
  }
  func.func private @eigvals_2(%arg0: tensor<2x4x4xcomplex<f64>>) -> tensor<2x4xcomplex<f64>> {
    %cst = stablehlo.constant dense<(0x7FF8000000000000,0x7FF8000000000000)> : tensor<complex<f64>>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0:4 = stablehlo.custom_call @lapack_zgeev_ffi(%arg0) {mhlo.backend_config = {compute_left = 78 : ui8, compute_right = 78 : ui8}, mhlo.frontend_attributes = {num_batch_dims = "1"}, operand_layouts = [dense<[1, 2, 0]> : tensor<3xindex>], result_layouts = [dense<[1, 0]> : tensor<2xindex>, dense<[1, 2, 0]> : tensor<3xindex>, dense<[1, 2, 0]> : tensor<3xindex>, dense<0> : tensor<1xindex>], sdy.sharding_rule = #sdy.op_sharding_rule<([i, j, k])->([i, l], [i, m, n], [i, o, p], [i]) {i=2, j=4, k=4, l=4, m=4, n=4, o=4, p=4}, custom>} : (tensor<2x4x4xcomplex<f64>>) -> (tensor<2x4xcomplex<f64>>, tensor<2x4x4xcomplex<f64>>, tensor<2x4x4xcomplex<f64>>, tensor<2xi32>)
    %1 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<2xi32>
    %2 = stablehlo.compare EQ, %0#3, %1, SIGNED : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi1>
    %3 = stablehlo.broadcast_in_dim %2, dims = [0] : (tensor<2xi1>) -> tensor<2x1xi1>
    %4 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<complex<f64>>) -> tensor<2x4xcomplex<f64>>
    %5 = stablehlo.broadcast_in_dim %3, dims = [0, 1] : (tensor<2x1xi1>) -> tensor<2x4xi1>
    %6 = stablehlo.select %5, %0#0, %4 : tensor<2x4xi1>, tensor<2x4xcomplex<f64>>
    return %6 : tensor<2x4xcomplex<f64>>
  }
  func.func private @sort_3(%arg0: tensor<2x4xf64>) -> tensor<2x4xf64> {
    %cst = stablehlo.constant dense<0x7FF8000000000000> : tensor<f64>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f64>
    %0 = "stablehlo.sort"(%arg0) <{dimension = 1 : i64, is_stable = true}> ({
    ^bb0(%arg1: tensor<f64>, %arg2: tensor<f64>):
      %1 = stablehlo.compare EQ, %arg1, %cst_0, FLOAT : (tensor<f64>, tensor<f64>) -> tensor<i1>
      %2 = stablehlo.select %1, %cst_0, %arg1 : tensor<i1>, tensor<f64>
      %3 = stablehlo.compare NE, %arg1, %arg1, FLOAT : (tensor<f64>, tensor<f64>) -> tensor<i1>
      %4 = stablehlo.select %3, %cst, %2 : tensor<i1>, tensor<f64>
      %5 = stablehlo.compare EQ, %arg2, %cst_0, FLOAT : (tensor<f64>, tensor<f64>) -> tensor<i1>
      %6 = stablehlo.select %5, %cst_0, %arg2 : tensor<i1>, tensor<f64>
      %7 = stablehlo.compare NE, %arg2, %arg2, FLOAT : (tensor<f64>, tensor<f64>) -> tensor<i1>
      %8 = stablehlo.select %7, %cst, %6 : tensor<i1>, tensor<f64>
      %9 = stablehlo.compare LT, %4, %8, TOTALORDER : (tensor<f64>, tensor<f64>) -> tensor<i1>
      stablehlo.return %9 : tensor<i1>
    }) : (tensor<2x4xf64>) -> tensor<2x4xf64>
    return %0 : tensor<2x4xf64>
  }
}
