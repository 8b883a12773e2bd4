module @jit_f attributes {jax.uses_shape_polymorphism = false, mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<5x5xf64>, %arg1: tensor<5x5xf64>, %arg2: tensor<5xf64>) -> (tensor<5xf64> {jax.result_info = "result[0]"}, tensor<5x5xf64> {jax.result_info = "result[1]"}, tensor<5x5xf64> {jax.result_info = "result[2]"}, tensor<5x5xf64> {jax.result_info = "result[3]"}, tensor<5xf64> {jax.result_info = "result[4]"}, tensor<5x5xf64> {jax.result_info = "result[5]"}, tensor<5xf64> {jax.result_info = "result[6]"}, tensor<5x5xf64> {jax.result_info = "result[7]"}, tensor<f64> {jax.result_info = "result[8]"}) {
    %0:2 = call @qr(%arg0) : (tensor<5x5xf64>) -> (tensor<5x5xf64>, tensor<5x5xf64>)
    %1:2 = call @eigh(%arg1) : (tensor<5x5xf64>) -> (tensor<5xf64>, tensor<5x5xf64>)
    %2:3 = call @svd(%arg0) : (tensor<5x5xf64>) -> (tensor<5x5xf64>, tensor<5xf64>, tensor<5x5xf64>)
    %3 = call @solve(%arg0, %arg2) : (tensor<5x5xf64>, tensor<5xf64>) -> tensor<5xf64>
    %4 = call @cholesky(%arg1) : (tensor<5x5xf64>) -> tensor<5x5xf64>
    %5 = stablehlo.broadcast_in_dim %1#0, dims = [1] : (tensor<5xf64>) -> tensor<1x5xf64>
    %6 = stablehlo.broadcast_in_dim %5, dims = [0, 1] : (tensor<1x5xf64>) -> tensor<5x5xf64>
    %7 = stablehlo.multiply %1#1, %6 : tensor<5x5xf64>
    %8 = stablehlo.transpose %1#1, dims = [1, 0] : (tensor<5x5xf64>) -> tensor<5x5xf64>
    %9 = stablehlo.dot_general %7, %8, contracting_dims = [1] x [0] : (tensor<5x5xf64>, tensor<5x5xf64>) -> tensor<5x5xf64>
    %10 = stablehlo.broadcast_in_dim %2#1, dims = [1] : (tensor<5xf64>) -> tensor<1x5xf64>
    %11 = stablehlo.broadcast_in_dim %10, dims = [0, 1] : (tensor<1x5xf64>) -> tensor<5x5xf64>
    %12 = stablehlo.multiply %2#0, %11 : tensor<5x5xf64>
    %13 = stablehlo.dot_general %12, %2#2, contracting_dims = [1] x [0] : (tensor<5x5xf64>, tensor<5x5xf64>) -> tensor<5x5xf64>
    %14 = call @det(%arg0) : (tensor<5x5xf64>) -> tensor<f64>
    return %3, %4, %0#0, %0#1, %1#0, %9, %2#1, %13, %14 : tensor<5xf64>, tensor<5x5xf64>, tensor<5x5xf64>, tensor<5x5xf64>, tensor<5xf64>, tensor<5x5xf64>, tensor<5xf64>, tensor<5x5xf64>, tensor<f64>
  }
  func.func private @qr(%arg0: tensor<5x5xf64>) -> (tensor<5x5xf64>, tensor<5x5xf64>) {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f64>
    %c = stablehlo.constant dense<-1> : tensor<i64>
    %0:2 = stablehlo.custom_call @lapack_dgeqrf_ffi(%arg0) {mhlo.backend_config = {}, mhlo.frontend_attributes = {num_batch_dims = "0"}, operand_layouts = [dense<[0, 1]> : tensor<2xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 0, operand_tuple_indices = []>], result_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<0> : tensor<1xindex>], sdy.sharding_rule = #sdy.op_sharding_rule<([i, j])->([k, l], [m]) {i=5, j=5, k=5, l=5, m=5}, custom>} : (tensor<5x5xf64>) -> (tensor<5x5xf64>, tensor<5xf64>)
    %1 = stablehlo.custom_call @lapack_dorgqr_ffi(%0#0, %0#1) {mhlo.backend_config = {}, mhlo.frontend_attributes = {num_batch_dims = "0"}, operand_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<0> : tensor<1xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [], operand_index = 0, operand_tuple_indices = []>], result_layouts = [dense<[0, 1]> : tensor<2xindex>], sdy.sharding_rule = #sdy.op_sharding_rule<([i, j], [k])->([l, m]) {i=5, j=5, k=5, l=5, m=5}, custom>} : (tensor<5x5xf64>, tensor<5xf64>) -> tensor<5x5xf64>
    %2 = stablehlo.iota dim = 0 : tensor<5x5xi64>
    %3 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i64>) -> tensor<5x5xi64>
    %4 = stablehlo.add %2, %3 : tensor<5x5xi64>
    %5 = stablehlo.iota dim = 1 : tensor<5x5xi64>
    %6 = stablehlo.compare GE, %4, %5, SIGNED : (tensor<5x5xi64>, tensor<5x5xi64>) -> tensor<5x5xi1>
    %7 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f64>) -> tensor<5x5xf64>
    %8 = stablehlo.select %6, %7, %0#0 : tensor<5x5xi1>, tensor<5x5xf64>
    return %1, %8 : tensor<5x5xf64>, tensor<5x5xf64>
  }
  func.func private @eigh(%arg0: tensor<5x5xf64>) -> (tensor<5xf64>, tensor<5x5xf64>) {
    %cst = stablehlo.constant dense<0x7FF8000000000000> : tensor<f64>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %cst_0 = stablehlo.constant dense<2.000000e+00> : tensor<f64>
    %0 = stablehlo.transpose %arg0, dims = [1, 0] : (tensor<5x5xf64>) -> tensor<5x5xf64>
    %1 = stablehlo.add %arg0, %0 : tensor<5x5xf64>
    %2 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f64>) -> tensor<5x5xf64>
    %3 = stablehlo.divide %1, %2 : tensor<5x5xf64>
    %4:3 = stablehlo.custom_call @lapack_dsyevd_ffi(%3) {mhlo.backend_config = {mode = 86 : ui8, uplo = 76 : ui8}, mhlo.frontend_attributes = {num_batch_dims = "0"}, operand_layouts = [dense<[0, 1]> : tensor<2xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 0, operand_tuple_indices = []>], result_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<0> : tensor<1xindex>, dense<> : tensor<0xindex>], sdy.sharding_rule = #sdy.op_sharding_rule<([i, j])->([k, l], [m], []) {i=5, j=5, k=5, l=5, m=5}, custom>} : (tensor<5x5xf64>) -> (tensor<5x5xf64>, tensor<5xf64>, tensor<i32>)
    %5 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<i32>
    %6 = stablehlo.compare EQ, %4#2, %5, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %7 = stablehlo.broadcast_in_dim %6, dims = [] : (tensor<i1>) -> tensor<1x1xi1>
    %8 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f64>) -> tensor<5x5xf64>
    %9 = stablehlo.broadcast_in_dim %7, dims = [0, 1] : (tensor<1x1xi1>) -> tensor<5x5xi1>
    %10 = stablehlo.select %9, %4#0, %8 : tensor<5x5xi1>, tensor<5x5xf64>
    %11 = stablehlo.broadcast_in_dim %6, dims = [] : (tensor<i1>) -> tensor<1xi1>
    %12 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f64>) -> tensor<5xf64>
    %13 = stablehlo.broadcast_in_dim %11, dims = [0] : (tensor<1xi1>) -> tensor<5xi1>
    %14 = stablehlo.select %13, %4#1, %12 : tensor<5xi1>, tensor<5xf64>
    return %14, %10 : tensor<5xf64>, tensor<5x5xf64>
  }
  func.func private @svd(%arg0: tensor<5x5xf64>) -> (tensor<5x5xf64>, tensor<5xf64>, tensor<5x5xf64>) {
    %cst = stablehlo.constant dense<0x7FF8000000000000> : tensor<f64>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0:5 = stablehlo.custom_call @lapack_dgesdd_ffi(%arg0) {mhlo.backend_config = {mode = 65 : ui8}, mhlo.frontend_attributes = {num_batch_dims = "0"}, operand_layouts = [dense<[0, 1]> : tensor<2xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 0, operand_tuple_indices = []>], result_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<0> : tensor<1xindex>, dense<[0, 1]> : tensor<2xindex>, dense<[0, 1]> : tensor<2xindex>, dense<> : tensor<0xindex>], sdy.sharding_rule = #sdy.op_sharding_rule<([i, j])->([k, l], [m], [n, o], [p, q], []) {i=5, j=5, k=5, l=5, m=5, n=5, o=5, p=5, q=5}, custom>} : (tensor<5x5xf64>) -> (tensor<5x5xf64>, tensor<5xf64>, tensor<5x5xf64>, tensor<5x5xf64>, tensor<i32>)
    %1 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<i32>
    %2 = stablehlo.compare EQ, %0#4, %1, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %3 = stablehlo.broadcast_in_dim %2, dims = [] : (tensor<i1>) -> tensor<1xi1>
    %4 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f64>) -> tensor<5xf64>
    %5 = stablehlo.broadcast_in_dim %3, dims = [0] : (tensor<1xi1>) -> tensor<5xi1>
    %6 = stablehlo.select %5, %0#1, %4 : tensor<5xi1>, tensor<5xf64>
    %7 = stablehlo.broadcast_in_dim %2, dims = [] : (tensor<i1>) -> tensor<1x1xi1>
    %8 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f64>) -> tensor<5x5xf64>
    %9 = stablehlo.broadcast_in_dim %7, dims = [0, 1] : (tensor<1x1xi1>) -> tensor<5x5xi1>
    %10 = stablehlo.select %9, %0#2, %8 : tensor<5x5xi1>, tensor<5x5xf64>
    %11 = stablehlo.broadcast_in_dim %2, dims = [] : (tensor<i1>) -> tensor<1x1xi1>
    %12 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f64>) -> tensor<5x5xf64>
    %13 = stablehlo.broadcast_in_dim %11, dims = [0, 1] : (tensor<1x1xi1>) -> tensor<5x5xi1>
    %14 = stablehlo.select %13, %0#3, %12 : tensor<5x5xi1>, tensor<5x5xf64>
    return %10, %6, %14 : tensor<5x5xf64>, tensor<5xf64>, tensor<5x5xf64>
  }
  func.func private @solve(%arg0: tensor<5x5xf64>, %arg1: tensor<5xf64>) -> tensor<5xf64> {
    %c = stablehlo.constant dense<1> : tensor<i64>
    %c_0 = stablehlo.constant dense<5> : tensor<i64>
    %c_1 = stablehlo.constant dense<0> : tensor<i64>
    %cst = stablehlo.constant dense<0x7FF8000000000000> : tensor<f64>
    %c_2 = stablehlo.constant dense<0> : tensor<i32>
    %c_3 = stablehlo.constant dense<1> : tensor<i32>
    %0:3 = stablehlo.custom_call @lapack_dgetrf_ffi(%arg0) {mhlo.backend_config = {}, mhlo.frontend_attributes = {num_batch_dims = "0"}, operand_layouts = [dense<[0, 1]> : tensor<2xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 0, operand_tuple_indices = []>], result_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<0> : tensor<1xindex>, dense<> : tensor<0xindex>], sdy.sharding_rule = #sdy.op_sharding_rule<([i, j])->([k, l], [m], []) {i=5, j=5, k=5, l=5, m=5}, custom>} : (tensor<5x5xf64>) -> (tensor<5x5xf64>, tensor<5xi32>, tensor<i32>)
    %1 = stablehlo.broadcast_in_dim %c_3, dims = [] : (tensor<i32>) -> tensor<5xi32>
    %2 = stablehlo.subtract %0#1, %1 : tensor<5xi32>
    %3 = stablehlo.broadcast_in_dim %c_2, dims = [] : (tensor<i32>) -> tensor<i32>
    %4 = stablehlo.compare GE, %0#2, %3, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %5 = stablehlo.broadcast_in_dim %4, dims = [] : (tensor<i1>) -> tensor<1x1xi1>
    %6 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f64>) -> tensor<5x5xf64>
    %7 = stablehlo.broadcast_in_dim %5, dims = [0, 1] : (tensor<1x1xi1>) -> tensor<5x5xi1>
    %8 = stablehlo.select %7, %0#0, %6 : tensor<5x5xi1>, tensor<5x5xf64>
    %9 = stablehlo.iota dim = 0 : tensor<5xi32>
    %10:4 = stablehlo.while(%iterArg = %2, %iterArg_4 = %c_1, %iterArg_5 = %c_1, %iterArg_6 = %9) : tensor<5xi32>, tensor<i64>, tensor<i64>, tensor<5xi32>
    cond {
      %12 = stablehlo.compare LT, %iterArg_4, %c_0, SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>
      stablehlo.return %12 : tensor<i1>
    } do {
      %12:2 = func.call @closed_call(%iterArg, %iterArg_5, %iterArg_6) : (tensor<5xi32>, tensor<i64>, tensor<5xi32>) -> (tensor<i64>, tensor<5xi32>)
      %13 = stablehlo.add %iterArg_4, %c : tensor<i64>
      stablehlo.return %iterArg, %13, %12#0, %12#1 : tensor<5xi32>, tensor<i64>, tensor<i64>, tensor<5xi32>
    }
    %11 = call @_lu_solve(%8, %10#3, %arg1) : (tensor<5x5xf64>, tensor<5xi32>, tensor<5xf64>) -> tensor<5xf64>
    return %11 : tensor<5xf64>
  }
  func.func private @closed_call(%arg0: tensor<5xi32>, %arg1: tensor<i64>, %arg2: tensor<5xi32>) -> (tensor<i64>, tensor<5xi32>) {
    %c = stablehlo.constant dense<5> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %c_1 = stablehlo.constant dense<5> : tensor<i64>
    %c_2 = stablehlo.constant dense<0> : tensor<i64>
    %c_3 = stablehlo.constant dense<1> : tensor<i64>
    %0 = stablehlo.add %arg1, %c_3 : tensor<i64>
    %1 = stablehlo.compare LT, %arg1, %c_2, SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>
    %2 = stablehlo.convert %arg1 : tensor<i64>
    %3 = stablehlo.add %2, %c_1 : tensor<i64>
    %4 = stablehlo.select %1, %3, %arg1 : tensor<i1>, tensor<i64>
    %5 = stablehlo.dynamic_slice %arg0, %4, sizes = [1] : (tensor<5xi32>, tensor<i64>) -> tensor<1xi32>
    %6 = stablehlo.reshape %5 : (tensor<1xi32>) -> tensor<i32>
    %7 = stablehlo.compare LT, %arg1, %c_2, SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>
    %8 = stablehlo.convert %arg1 : tensor<i64>
    %9 = stablehlo.add %8, %c_1 : tensor<i64>
    %10 = stablehlo.select %7, %9, %arg1 : tensor<i1>, tensor<i64>
    %11 = stablehlo.dynamic_slice %arg2, %10, sizes = [1] : (tensor<5xi32>, tensor<i64>) -> tensor<1xi32>
    %12 = stablehlo.reshape %11 : (tensor<1xi32>) -> tensor<i32>
    %13 = stablehlo.compare LT, %6, %c_0, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %14 = stablehlo.add %6, %c : tensor<i32>
    %15 = stablehlo.select %13, %14, %6 : tensor<i1>, tensor<i32>
    %16 = stablehlo.dynamic_slice %arg2, %15, sizes = [1] : (tensor<5xi32>, tensor<i32>) -> tensor<1xi32>
    %17 = stablehlo.reshape %16 : (tensor<1xi32>) -> tensor<i32>
    %18 = stablehlo.compare LT, %arg1, %c_2, SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>
    %19 = stablehlo.add %arg1, %c_1 : tensor<i64>
    %20 = stablehlo.select %18, %19, %arg1 : tensor<i1>, tensor<i64>
    %21 = stablehlo.convert %20 : (tensor<i64>) -> tensor<i32>
    %22 = stablehlo.broadcast_in_dim %21, dims = [] : (tensor<i32>) -> tensor<1xi32>
    %23 = "stablehlo.scatter"(%arg2, %22, %17) <{indices_are_sorted = true, scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0], scatter_dims_to_operand_dims = [0]>, unique_indices = true}> ({
    ^bb0(%arg3: tensor<i32>, %arg4: tensor<i32>):
      stablehlo.return %arg4 : tensor<i32>
    }) : (tensor<5xi32>, tensor<1xi32>, tensor<i32>) -> tensor<5xi32>
    %24 = stablehlo.compare LT, %6, %c_0, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %25 = stablehlo.add %6, %c : tensor<i32>
    %26 = stablehlo.select %24, %25, %6 : tensor<i1>, tensor<i32>
    %27 = stablehlo.broadcast_in_dim %26, dims = [] : (tensor<i32>) -> tensor<1xi32>
    %28 = "stablehlo.scatter"(%23, %27, %12) <{indices_are_sorted = true, scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0], scatter_dims_to_operand_dims = [0]>, unique_indices = true}> ({
    ^bb0(%arg3: tensor<i32>, %arg4: tensor<i32>):
      stablehlo.return %arg4 : tensor<i32>
    }) : (tensor<5xi32>, tensor<1xi32>, tensor<i32>) -> tensor<5xi32>
    return %0, %28 : tensor<i64>, tensor<5xi32>
  }
  func.func private @_lu_solve(%arg0: tensor<5x5xf64>, %arg1: tensor<5xi32>, %arg2: tensor<5xf64>) -> tensor<5xf64> {
    %c = stablehlo.constant dense<5> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.broadcast_in_dim %arg2, dims = [0] : (tensor<5xf64>) -> tensor<5x1xf64>
    %1 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i32>) -> tensor<5xi32>
    %2 = stablehlo.compare LT, %arg1, %1, SIGNED : (tensor<5xi32>, tensor<5xi32>) -> tensor<5xi1>
    %3 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<5xi32>
    %4 = stablehlo.add %arg1, %3 : tensor<5xi32>
    %5 = stablehlo.select %2, %4, %arg1 : tensor<5xi1>, tensor<5xi32>
    %6 = stablehlo.broadcast_in_dim %5, dims = [0] : (tensor<5xi32>) -> tensor<5x1xi32>
    %7 = "stablehlo.gather"(%0, %6) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, slice_sizes = array<i64: 1, 1>}> : (tensor<5x1xf64>, tensor<5x1xi32>) -> tensor<5x1xf64>
    %8 = stablehlo.custom_call @lapack_dtrsm_ffi(%arg0, %7) {mhlo.backend_config = {diag = 85 : ui8, side = 76 : ui8, trans_x = 78 : ui8, uplo = 76 : ui8}, mhlo.frontend_attributes = {num_batch_dims = "0"}, operand_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<[0, 1]> : tensor<2xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [], operand_index = 1, operand_tuple_indices = []>], result_layouts = [dense<[0, 1]> : tensor<2xindex>], sdy.sharding_rule = #sdy.op_sharding_rule<([i, j], [k, l])->([m, n]) {i=5, j=5, k=5, l=1, m=5, n=1}, custom>} : (tensor<5x5xf64>, tensor<5x1xf64>) -> tensor<5x1xf64>
    %9 = stablehlo.custom_call @lapack_dtrsm_ffi(%arg0, %8) {mhlo.backend_config = {diag = 78 : ui8, side = 76 : ui8, trans_x = 78 : ui8, uplo = 85 : ui8}, mhlo.frontend_attributes = {num_batch_dims = "0"}, operand_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<[0, 1]> : tensor<2xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [], operand_index = 1, operand_tuple_indices = []>], result_layouts = [dense<[0, 1]> : tensor<2xindex>], sdy.sharding_rule = #sdy.op_sharding_rule<([i, j], [k, l])->([m, n]) {i=5, j=5, k=5, l=1, m=5, n=1}, custom>} : (tensor<5x5xf64>, tensor<5x1xf64>) -> tensor<5x1xf64>
    %10 = stablehlo.reshape %9 : (tensor<5x1xf64>) -> tensor<5xf64>
    return %10 : tensor<5xf64>
  }
  func.func private @cholesky(%arg0: tensor<5x5xf64>) -> tensor<5x5xf64> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f64>
    %c = stablehlo.constant dense<0> : tensor<i64>
    %cst_0 = stablehlo.constant dense<0x7FF8000000000000> : tensor<f64>
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %cst_2 = stablehlo.constant dense<2.000000e+00> : tensor<f64>
    %0 = stablehlo.transpose %arg0, dims = [1, 0] : (tensor<5x5xf64>) -> tensor<5x5xf64>
    %1 = stablehlo.add %arg0, %0 : tensor<5x5xf64>
    %2 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f64>) -> tensor<5x5xf64>
    %3 = stablehlo.divide %1, %2 : tensor<5x5xf64>
    %4:2 = stablehlo.custom_call @lapack_dpotrf_ffi(%3) {mhlo.backend_config = {uplo = 76 : ui8}, mhlo.frontend_attributes = {num_batch_dims = "0"}, operand_layouts = [dense<[0, 1]> : tensor<2xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 0, operand_tuple_indices = []>], result_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<> : tensor<0xindex>], sdy.sharding_rule = #sdy.op_sharding_rule<([i, j])->([k, l], []) {i=5, j=5, k=5, l=5}, custom>} : (tensor<5x5xf64>) -> (tensor<5x5xf64>, tensor<i32>)
    %5 = stablehlo.broadcast_in_dim %c_1, dims = [] : (tensor<i32>) -> tensor<i32>
    %6 = stablehlo.compare EQ, %4#1, %5, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %7 = stablehlo.broadcast_in_dim %6, dims = [] : (tensor<i1>) -> tensor<1x1xi1>
    %8 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f64>) -> tensor<5x5xf64>
    %9 = stablehlo.broadcast_in_dim %7, dims = [0, 1] : (tensor<1x1xi1>) -> tensor<5x5xi1>
    %10 = stablehlo.select %9, %4#0, %8 : tensor<5x5xi1>, tensor<5x5xf64>
    %11 = stablehlo.iota dim = 0 : tensor<5x5xi64>
    %12 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i64>) -> tensor<5x5xi64>
    %13 = stablehlo.add %11, %12 : tensor<5x5xi64>
    %14 = stablehlo.iota dim = 1 : tensor<5x5xi64>
    %15 = stablehlo.compare GE, %13, %14, SIGNED : (tensor<5x5xi64>, tensor<5x5xi64>) -> tensor<5x5xi1>
    %16 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f64>) -> tensor<5x5xf64>
    %17 = stablehlo.select %15, %10, %16 : tensor<5x5xi1>, tensor<5x5xf64>
    return %17 : tensor<5x5xf64>
  }
  func.func private @det(%arg0: tensor<5x5xf64>) -> tensor<f64> {
    %0:2 = call @slogdet(%arg0) : (tensor<5x5xf64>) -> (tensor<f64>, tensor<f64>)
    %1 = stablehlo.exponential %0#1 : tensor<f64>
    %2 = stablehlo.multiply %0#0, %1 : tensor<f64>
    return %2 : tensor<f64>
  }
  func.func private @slogdet(%arg0: tensor<5x5xf64>) -> (tensor<f64>, tensor<f64>) {
    %cst = stablehlo.constant dense<0xFFF0000000000000> : tensor<f64>
    %cst_0 = stablehlo.constant dense<1.000000e+00> : tensor<f64>
    %c = stablehlo.constant dense<-2> : tensor<i64>
    %c_1 = stablehlo.constant dense<2> : tensor<i64>
    %c_2 = stablehlo.constant dense<false> : tensor<i1>
    %cst_3 = stablehlo.constant dense<0.000000e+00> : tensor<f64>
    %c_4 = stablehlo.constant dense<1> : tensor<i64>
    %c_5 = stablehlo.constant dense<5> : tensor<i64>
    %c_6 = stablehlo.constant dense<0> : tensor<i64>
    %cst_7 = stablehlo.constant dense<0x7FF8000000000000> : tensor<f64>
    %c_8 = stablehlo.constant dense<0> : tensor<i32>
    %c_9 = stablehlo.constant dense<1> : tensor<i32>
    %0:3 = stablehlo.custom_call @lapack_dgetrf_ffi(%arg0) {mhlo.backend_config = {}, mhlo.frontend_attributes = {num_batch_dims = "0"}, operand_layouts = [dense<[0, 1]> : tensor<2xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 0, operand_tuple_indices = []>], result_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<0> : tensor<1xindex>, dense<> : tensor<0xindex>], sdy.sharding_rule = #sdy.op_sharding_rule<([i, j])->([k, l], [m], []) {i=5, j=5, k=5, l=5, m=5}, custom>} : (tensor<5x5xf64>) -> (tensor<5x5xf64>, tensor<5xi32>, tensor<i32>)
    %1 = stablehlo.broadcast_in_dim %c_9, dims = [] : (tensor<i32>) -> tensor<5xi32>
    %2 = stablehlo.subtract %0#1, %1 : tensor<5xi32>
    %3 = stablehlo.broadcast_in_dim %c_8, dims = [] : (tensor<i32>) -> tensor<i32>
    %4 = stablehlo.compare GE, %0#2, %3, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %5 = stablehlo.broadcast_in_dim %4, dims = [] : (tensor<i1>) -> tensor<1x1xi1>
    %6 = stablehlo.broadcast_in_dim %cst_7, dims = [] : (tensor<f64>) -> tensor<5x5xf64>
    %7 = stablehlo.broadcast_in_dim %5, dims = [0, 1] : (tensor<1x1xi1>) -> tensor<5x5xi1>
    %8 = stablehlo.select %7, %0#0, %6 : tensor<5x5xi1>, tensor<5x5xf64>
    %9 = stablehlo.iota dim = 0 : tensor<5xi32>
    %10:4 = stablehlo.while(%iterArg = %2, %iterArg_10 = %c_6, %iterArg_11 = %c_6, %iterArg_12 = %9) : tensor<5xi32>, tensor<i64>, tensor<i64>, tensor<5xi32>
    cond {
      %32 = stablehlo.compare LT, %iterArg_10, %c_5, SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>
      stablehlo.return %32 : tensor<i1>
    } do {
      %32:2 = func.call @closed_call(%iterArg, %iterArg_11, %iterArg_12) : (tensor<5xi32>, tensor<i64>, tensor<5xi32>) -> (tensor<i64>, tensor<5xi32>)
      %33 = stablehlo.add %iterArg_10, %c_4 : tensor<i64>
      stablehlo.return %iterArg, %33, %32#0, %32#1 : tensor<5xi32>, tensor<i64>, tensor<i64>, tensor<5xi32>
    }
    %11 = call @diagonal(%8) : (tensor<5x5xf64>) -> tensor<5xf64>
    %12 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f64>) -> tensor<5xf64>
    %13 = stablehlo.compare EQ, %11, %12, FLOAT : (tensor<5xf64>, tensor<5xf64>) -> tensor<5xi1>
    %14 = stablehlo.reduce(%13 init: %c_2) applies stablehlo.or across dimensions = [0] : (tensor<5xi1>, tensor<i1>) -> tensor<i1>
    %15 = stablehlo.iota dim = 0 : tensor<5xi32>
    %16 = stablehlo.compare NE, %2, %15, SIGNED : (tensor<5xi32>, tensor<5xi32>) -> tensor<5xi1>
    %17 = call @count_nonzero(%16) : (tensor<5xi1>) -> tensor<i64>
    %18 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f64>) -> tensor<5xf64>
    %19 = stablehlo.compare LT, %11, %18, FLOAT : (tensor<5xf64>, tensor<5xf64>) -> tensor<5xi1>
    %20 = call @count_nonzero(%19) : (tensor<5xi1>) -> tensor<i64>
    %21 = stablehlo.add %17, %20 : tensor<i64>
    %22 = call @remainder(%21, %c_1) : (tensor<i64>, tensor<i64>) -> tensor<i64>
    %23 = stablehlo.multiply %c, %22 : tensor<i64>
    %24 = stablehlo.add %23, %c_4 : tensor<i64>
    %25 = stablehlo.convert %24 : (tensor<i64>) -> tensor<f64>
    %26 = stablehlo.multiply %cst_0, %25 : tensor<f64>
    %27 = call @_where_0(%14, %cst_3, %26) : (tensor<i1>, tensor<f64>, tensor<f64>) -> tensor<f64>
    %28 = stablehlo.abs %11 : tensor<5xf64>
    %29 = stablehlo.log %28 : tensor<5xf64>
    %30 = stablehlo.reduce(%29 init: %cst_3) applies stablehlo.add across dimensions = [0] : (tensor<5xf64>, tensor<f64>) -> tensor<f64>
    %31 = call @_where_0(%14, %cst, %30) : (tensor<i1>, tensor<f64>, tensor<f64>) -> tensor<f64>
    return %27, %31 : tensor<f64>, tensor<f64>
  }
  func.func private @diagonal(%arg0: tensor<5x5xf64>) -> tensor<5xf64> {
    %c = stablehlo.constant dense<5> : tensor<i64>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %c_1 = stablehlo.constant dense<1> : tensor<i32>
    %c_2 = stablehlo.constant dense<0> : tensor<i64>
    %0 = "stablehlo.case"(%c_1) ({
      stablehlo.return %c_0 : tensor<i32>
    }, {
      stablehlo.return %c_0 : tensor<i32>
    }) : (tensor<i32>) -> tensor<i32>
    %1 = "stablehlo.case"(%0) ({
      %2 = stablehlo.iota dim = 0 : tensor<5xi64>
      %3 = stablehlo.iota dim = 0 : tensor<5xi64>
      %4 = stablehlo.broadcast_in_dim %c_2, dims = [] : (tensor<i64>) -> tensor<5xi64>
      %5 = stablehlo.compare LT, %2, %4, SIGNED : (tensor<5xi64>, tensor<5xi64>) -> tensor<5xi1>
      %6 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i64>) -> tensor<5xi64>
      %7 = stablehlo.add %2, %6 : tensor<5xi64>
      %8 = stablehlo.select %5, %7, %2 : tensor<5xi1>, tensor<5xi64>
      %9 = stablehlo.broadcast_in_dim %c_2, dims = [] : (tensor<i64>) -> tensor<5xi64>
      %10 = stablehlo.compare LT, %3, %9, SIGNED : (tensor<5xi64>, tensor<5xi64>) -> tensor<5xi1>
      %11 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i64>) -> tensor<5xi64>
      %12 = stablehlo.add %3, %11 : tensor<5xi64>
      %13 = stablehlo.select %10, %12, %3 : tensor<5xi1>, tensor<5xi64>
      %14 = stablehlo.convert %8 : (tensor<5xi64>) -> tensor<5xi32>
      %15 = stablehlo.convert %13 : (tensor<5xi64>) -> tensor<5xi32>
      %16 = stablehlo.broadcast_in_dim %14, dims = [0] : (tensor<5xi32>) -> tensor<5x1xi32>
      %17 = stablehlo.broadcast_in_dim %15, dims = [0] : (tensor<5xi32>) -> tensor<5x1xi32>
      %18 = stablehlo.concatenate %16, %17, dim = 1 : (tensor<5x1xi32>, tensor<5x1xi32>) -> tensor<5x2xi32>
      %19 = "stablehlo.gather"(%arg0, %18) <{dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [0, 1], start_index_map = [0, 1], index_vector_dim = 1>, slice_sizes = array<i64: 1, 1>}> : (tensor<5x5xf64>, tensor<5x2xi32>) -> tensor<5xf64>
      stablehlo.return %19 : tensor<5xf64>
    }) : (tensor<i32>) -> tensor<5xf64>
    return %1 : tensor<5xf64>
  }
  func.func private @count_nonzero(%arg0: tensor<5xi1>) -> tensor<i64> {
    %c = stablehlo.constant dense<0> : tensor<i64>
    %c_0 = stablehlo.constant dense<false> : tensor<i1>
    %0 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i1>) -> tensor<5xi1>
    %1 = stablehlo.compare NE, %arg0, %0, UNSIGNED : (tensor<5xi1>, tensor<5xi1>) -> tensor<5xi1>
    %2 = stablehlo.convert %1 : (tensor<5xi1>) -> tensor<5xi32>
    %3 = stablehlo.convert %2 : (tensor<5xi32>) -> tensor<5xi64>
    %4 = stablehlo.reduce(%3 init: %c) applies stablehlo.add across dimensions = [0] : (tensor<5xi64>, tensor<i64>) -> tensor<i64>
    return %4 : tensor<i64>
  }
  func.func private @remainder(%arg0: tensor<i64>, %arg1: tensor<i64>) -> tensor<i64> {
    %c = stablehlo.constant dense<1> : tensor<i64>
    %c_0 = stablehlo.constant dense<0> : tensor<i64>
    %0 = stablehlo.convert %arg1 : tensor<i64>
    %1 = stablehlo.compare EQ, %0, %c_0, SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>
    %2 = call @_where(%1, %c, %0) : (tensor<i1>, tensor<i64>, tensor<i64>) -> tensor<i64>
    %3 = stablehlo.remainder %arg0, %2 : tensor<i64>
    %4 = stablehlo.compare NE, %3, %c_0, SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>
    %5 = stablehlo.compare LT, %3, %c_0, SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>
    %6 = stablehlo.compare LT, %2, %c_0, SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>
    %7 = stablehlo.compare NE, %5, %6, UNSIGNED : (tensor<i1>, tensor<i1>) -> tensor<i1>
    %8 = stablehlo.and %7, %4 : tensor<i1>
    %9 = stablehlo.add %3, %2 : tensor<i64>
    %10 = stablehlo.select %8, %9, %3 : tensor<i1>, tensor<i64>
    return %10 : tensor<i64>
  }
  func.func private @_where(%arg0: tensor<i1>, %arg1: tensor<i64>, %arg2: tensor<i64>) -> tensor<i64> {
    %0 = stablehlo.select %arg0, %arg1, %arg2 : tensor<i1>, tensor<i64>
    return %0 : tensor<i64>
  }
  func.func private @_where_0(%arg0: tensor<i1>, %arg1: tensor<f64>, %arg2: tensor<f64>) -> tensor<f64> {
    %0 = stablehlo.select %arg0, %arg1, %arg2 : tensor<i1>, tensor<f64>
    return %0 : tensor<f64>
  }
}
