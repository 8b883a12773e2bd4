module @jit_f attributes {jax.uses_shape_polymorphism = false, mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<3x6x6xf32>, %arg1: tensor<4x4xcomplex<f32>>, %arg2: tensor<5x7xf32>, %arg3: tensor<5x5xf32>) -> (tensor<3x6xf32> {jax.result_info = "result[0]"}, tensor<4xf32> {jax.result_info = "result[1]"}, tensor<5xf32> {jax.result_info = "result[2]"}, tensor<5xcomplex<f32>> {jax.result_info = "result[3]"}, tensor<5x5xf32> {jax.result_info = "result[4]"}) {
    %cst = stablehlo.constant dense<(0x7FC00000,0x7FC00000)> : tensor<complex<f32>>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0 = call @eigvalsh(%arg0) : (tensor<3x6x6xf32>) -> tensor<3x6xf32>
    %1 = call @eigvalsh_0(%arg1) : (tensor<4x4xcomplex<f32>>) -> tensor<4xf32>
    %2 = call @svd(%arg2) : (tensor<5x7xf32>) -> tensor<5xf32>
    %3:5 = stablehlo.custom_call @lapack_sgeev_ffi(%arg3) {mhlo.backend_config = {compute_left = 78 : ui8, compute_right = 86 : ui8}, mhlo.frontend_attributes = {num_batch_dims = "0"}, operand_layouts = [dense<[0, 1]> : tensor<2xindex>], result_layouts = [dense<0> : tensor<1xindex>, dense<0> : tensor<1xindex>, dense<[0, 1]> : tensor<2xindex>, dense<[0, 1]> : tensor<2xindex>, dense<> : tensor<0xindex>], sdy.sharding_rule = #sdy.op_sharding_rule<([i, j])->([k], [l], [m, n], [o, p], []) {i=5, j=5, k=5, l=5, m=5, n=5, o=5, p=5}, custom>} : (tensor<5x5xf32>) -> (tensor<5xf32>, tensor<5xf32>, tensor<5x5xcomplex<f32>>, tensor<5x5xcomplex<f32>>, tensor<i32>)
    %4 = stablehlo.complex %3#0, %3#1 : tensor<5xcomplex<f32>>
    %5 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<i32>
    %6 = stablehlo.compare EQ, %3#4, %5, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %7 = stablehlo.broadcast_in_dim %6, dims = [] : (tensor<i1>) -> tensor<1xi1>
    %8 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<complex<f32>>) -> tensor<5xcomplex<f32>>
    %9 = stablehlo.broadcast_in_dim %7, dims = [0] : (tensor<1xi1>) -> tensor<5xi1>
    %10 = stablehlo.select %9, %4, %8 : tensor<5xi1>, tensor<5xcomplex<f32>>
    %11 = call @sort(%10) : (tensor<5xcomplex<f32>>) -> tensor<5xcomplex<f32>>
    %12 = call @_schur(%arg3) : (tensor<5x5xf32>) -> tensor<5x5xf32>
    %13 = stablehlo.abs %12 : tensor<5x5xf32>
    return %0, %1, %2, %11, %13 : tensor<3x6xf32>, tensor<4xf32>, tensor<5xf32>, tensor<5xcomplex<f32>>, tensor<5x5xf32>
  }
  func.func private @eigvalsh(%arg0: tensor<3x6x6xf32>) -> tensor<3x6xf32> {
    %0 = call @eigh(%arg0) : (tensor<3x6x6xf32>) -> tensor<3x6xf32>
    return %0 : tensor<3x6xf32>
  }
  func.func private @eigh(%arg0: tensor<3x6x6xf32>) -> tensor<3x6xf32> {
    %cst = stablehlo.constant dense<0x7FC00000> : tensor<f32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %cst_0 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %0 = stablehlo.transpose %arg0, dims = [0, 2, 1] : (tensor<3x6x6xf32>) -> tensor<3x6x6xf32>
    %1 = stablehlo.add %arg0, %0 : tensor<3x6x6xf32>
    %2 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<3x6x6xf32>
    %3 = stablehlo.divide %1, %2 : tensor<3x6x6xf32>
    %4:3 = stablehlo.custom_call @lapack_ssyevd_ffi(%3) {mhlo.backend_config = {mode = 86 : ui8, uplo = 76 : ui8}, mhlo.frontend_attributes = {num_batch_dims = "1"}, operand_layouts = [dense<[1, 2, 0]> : tensor<3xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 0, operand_tuple_indices = []>], result_layouts = [dense<[1, 2, 0]> : tensor<3xindex>, dense<[1, 0]> : tensor<2xindex>, dense<0> : tensor<1xindex>], sdy.sharding_rule = #sdy.op_sharding_rule<([i, j, k])->([i, l, m], [i, n], [i]) {i=3, j=6, k=6, l=6, m=6, n=6}, custom>} : (tensor<3x6x6xf32>) -> (tensor<3x6x6xf32>, tensor<3x6xf32>, tensor<3xi32>)
    %5 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<3xi32>
    %6 = stablehlo.compare EQ, %4#2, %5, SIGNED : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi1>
    %7 = stablehlo.broadcast_in_dim %6, dims = [0] : (tensor<3xi1>) -> tensor<3x1xi1>
    %8 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<3x6xf32>
    %9 = stablehlo.broadcast_in_dim %7, dims = [0, 1] : (tensor<3x1xi1>) -> tensor<3x6xi1>
    %10 = stablehlo.select %9, %4#1, %8 : tensor<3x6xi1>, tensor<3x6xf32>
    return %10 : tensor<3x6xf32>
  }
  func.func private @eigvalsh_0(%arg0: tensor<4x4xcomplex<f32>>) -> tensor<4xf32> {
    %0 = call @eigh_1(%arg0) : (tensor<4x4xcomplex<f32>>) -> tensor<4xf32>
    return %0 : tensor<4xf32>
  }
  func.func private @eigh_1(%arg0: tensor<4x4xcomplex<f32>>) -> tensor<4xf32> {
    %cst = stablehlo.constant dense<0x7FC00000> : tensor<f32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %cst_0 = stablehlo.constant dense<(2.000000e+00,0.000000e+00)> : tensor<complex<f32>>
    %0 = stablehlo.transpose %arg0, dims = [1, 0] : (tensor<4x4xcomplex<f32>>) -> tensor<4x4xcomplex<f32>>
    %1 = stablehlo.real %0 : (tensor<4x4xcomplex<f32>>) -> tensor<4x4xf32>
    %2 = stablehlo.imag %0 : (tensor<4x4xcomplex<f32>>) -> tensor<4x4xf32>
    %3 = stablehlo.negate %2 : tensor<4x4xf32>
    %4 = stablehlo.complex %1, %3 : tensor<4x4xcomplex<f32>>
    %5 = stablehlo.add %arg0, %4 : tensor<4x4xcomplex<f32>>
    %6 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<complex<f32>>) -> tensor<4x4xcomplex<f32>>
    %7 = stablehlo.divide %5, %6 : tensor<4x4xcomplex<f32>>
    %8:3 = stablehlo.custom_call @lapack_cheevd_ffi(%7) {mhlo.backend_config = {mode = 86 : ui8, uplo = 76 : ui8}, mhlo.frontend_attributes = {num_batch_dims = "0"}, operand_layouts = [dense<[0, 1]> : tensor<2xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 0, operand_tuple_indices = []>], result_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<0> : tensor<1xindex>, dense<> : tensor<0xindex>], sdy.sharding_rule = #sdy.op_sharding_rule<([i, j])->([k, l], [m], []) {i=4, j=4, k=4, l=4, m=4}, custom>} : (tensor<4x4xcomplex<f32>>) -> (tensor<4x4xcomplex<f32>>, tensor<4xf32>, tensor<i32>)
    %9 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<i32>
    %10 = stablehlo.compare EQ, %8#2, %9, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %11 = stablehlo.broadcast_in_dim %10, dims = [] : (tensor<i1>) -> tensor<1xi1>
    %12 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %13 = stablehlo.broadcast_in_dim %11, dims = [0] : (tensor<1xi1>) -> tensor<4xi1>
    %14 = stablehlo.select %13, %8#1, %12 : tensor<4xi1>, tensor<4xf32>
    return %14 : tensor<4xf32>
  }
  func.func private @svd(%arg0: tensor<5x7xf32>) -> tensor<5xf32> {
    %cst = stablehlo.constant dense<0x7FC00000> : tensor<f32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0:5 = stablehlo.custom_call @lapack_sgesdd_ffi(%arg0) {mhlo.backend_config = {mode = 65 : ui8}, mhlo.frontend_attributes = {num_batch_dims = "0"}, operand_layouts = [dense<[0, 1]> : tensor<2xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 0, operand_tuple_indices = []>], result_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<0> : tensor<1xindex>, dense<[0, 1]> : tensor<2xindex>, dense<[0, 1]> : tensor<2xindex>, dense<> : tensor<0xindex>], sdy.sharding_rule = #sdy.op_sharding_rule<([i, j])->([k, l], [m], [n, o], [p, q], []) {i=5, j=7, k=5, l=7, m=5, n=5, o=5, p=7, q=7}, custom>} : (tensor<5x7xf32>) -> (tensor<5x7xf32>, tensor<5xf32>, tensor<5x5xf32>, tensor<7x7xf32>, tensor<i32>)
    %1 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<i32>
    %2 = stablehlo.compare EQ, %0#4, %1, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %3 = stablehlo.broadcast_in_dim %2, dims = [] : (tensor<i1>) -> tensor<1xi1>
    %4 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<5xf32>
    %5 = stablehlo.broadcast_in_dim %3, dims = [0] : (tensor<1xi1>) -> tensor<5xi1>
    %6 = stablehlo.select %5, %0#1, %4 : tensor<5xi1>, tensor<5xf32>
    return %6 : tensor<5xf32>
  }
  func.func private @sort(%arg0: tensor<5xcomplex<f32>>) -> tensor<5xcomplex<f32>> {
    %cst = stablehlo.constant dense<0x7FC00000> : tensor<f32>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = "stablehlo.sort"(%arg0) <{dimension = 0 : i64, is_stable = true}> ({
    ^bb0(%arg1: tensor<complex<f32>>, %arg2: tensor<complex<f32>>):
      %1 = stablehlo.real %arg1 : (tensor<complex<f32>>) -> tensor<f32>
      %2 = stablehlo.compare EQ, %1, %cst_0, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %3 = stablehlo.select %2, %cst_0, %1 : tensor<i1>, tensor<f32>
      %4 = stablehlo.compare NE, %1, %1, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %5 = stablehlo.select %4, %cst, %3 : tensor<i1>, tensor<f32>
      %6 = stablehlo.imag %arg1 : (tensor<complex<f32>>) -> tensor<f32>
      %7 = stablehlo.compare EQ, %6, %cst_0, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %8 = stablehlo.select %7, %cst_0, %6 : tensor<i1>, tensor<f32>
      %9 = stablehlo.compare NE, %6, %6, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %10 = stablehlo.select %9, %cst, %8 : tensor<i1>, tensor<f32>
      %11 = stablehlo.real %arg2 : (tensor<complex<f32>>) -> tensor<f32>
      %12 = stablehlo.compare EQ, %11, %cst_0, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %13 = stablehlo.select %12, %cst_0, %11 : tensor<i1>, tensor<f32>
      %14 = stablehlo.compare NE, %11, %11, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %15 = stablehlo.select %14, %cst, %13 : tensor<i1>, tensor<f32>
      %16 = stablehlo.imag %arg2 : (tensor<complex<f32>>) -> tensor<f32>
      %17 = stablehlo.compare EQ, %16, %cst_0, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %18 = stablehlo.select %17, %cst_0, %16 : tensor<i1>, tensor<f32>
      %19 = stablehlo.compare NE, %16, %16, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %20 = stablehlo.select %19, %cst, %18 : tensor<i1>, tensor<f32>
      %21 = stablehlo.compare LT, %10, %20, TOTALORDER : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %22 = stablehlo.compare LT, %5, %15, TOTALORDER : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %23 = stablehlo.compare EQ, %5, %15, TOTALORDER : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %24 = stablehlo.and %23, %21 : tensor<i1>
      %25 = stablehlo.or %22, %24 : tensor<i1>
      stablehlo.return %25 : tensor<i1>
    }) : (tensor<5xcomplex<f32>>) -> tensor<5xcomplex<f32>>
    return %0 : tensor<5xcomplex<f32>>
  }
  func.func private @_schur(%arg0: tensor<5x5xf32>) -> tensor<5x5xf32> {
    %cst = stablehlo.constant dense<0x7FC00000> : tensor<f32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0:6 = stablehlo.custom_call @lapack_sgees_ffi(%arg0) {mhlo.backend_config = {mode = 86 : ui8, sort = 78 : ui8}, mhlo.frontend_attributes = {num_batch_dims = "0"}, operand_layouts = [dense<[0, 1]> : tensor<2xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 0, operand_tuple_indices = []>], result_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<[0, 1]> : tensor<2xindex>, dense<0> : tensor<1xindex>, dense<0> : tensor<1xindex>, dense<> : tensor<0xindex>, dense<> : tensor<0xindex>], sdy.sharding_rule = #sdy.op_sharding_rule<([i, j])->([k, l], [m, n], [o], [p], [], []) {i=5, j=5, k=5, l=5, m=5, n=5, o=5, p=5}, custom>} : (tensor<5x5xf32>) -> (tensor<5x5xf32>, tensor<5x5xf32>, tensor<5xf32>, tensor<5xf32>, tensor<i32>, tensor<i32>)
    %1 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<i32>
    %2 = stablehlo.compare EQ, %0#5, %1, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %3 = stablehlo.broadcast_in_dim %2, dims = [] : (tensor<i1>) -> tensor<1x1xi1>
    %4 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<5x5xf32>
    %5 = stablehlo.broadcast_in_dim %3, dims = [0, 1] : (tensor<1x1xi1>) -> tensor<5x5xi1>
    %6 = stablehlo.select %5, %0#0, %4 : tensor<5x5xi1>, tensor<5x5xf32>
    return %6 : tensor<5x5xf32>
  }
}
