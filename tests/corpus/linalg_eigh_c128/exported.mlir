module @jit_f attributes {jax.uses_shape_polymorphism = false, mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<2x5x5xcomplex<f64>>) -> (tensor<2x5xf64> {jax.result_info = "result[0]"}, tensor<2x5x5xcomplex<f64>> {jax.result_info = "result[1]"}, tensor<2x5x5xf64> {jax.result_info = "result[2]"}, tensor<2x5xf64> {jax.result_info = "result[3]"}, tensor<2x5x5xf64> {jax.result_info = "result[4]"}, tensor<2x5xf64> {jax.result_info = "result[5]"}, tensor<2x5x5xcomplex<f64>> {jax.result_info = "result[6]"}) {
    %0:2 = call @eigh(%arg0) : (tensor<2x5x5xcomplex<f64>>) -> (tensor<2x5xf64>, tensor<2x5x5xcomplex<f64>>)
    %1:2 = call @eigh_0(%arg0) : (tensor<2x5x5xcomplex<f64>>) -> (tensor<2x5xf64>, tensor<2x5x5xcomplex<f64>>)
    %2 = stablehlo.transpose %0#1, dims = [0, 2, 1] : (tensor<2x5x5xcomplex<f64>>) -> tensor<2x5x5xcomplex<f64>>
    %3 = stablehlo.real %2 : (tensor<2x5x5xcomplex<f64>>) -> tensor<2x5x5xf64>
    %4 = stablehlo.imag %2 : (tensor<2x5x5xcomplex<f64>>) -> tensor<2x5x5xf64>
    %5 = stablehlo.negate %4 : tensor<2x5x5xf64>
    %6 = stablehlo.complex %3, %5 : tensor<2x5x5xcomplex<f64>>
    %7 = stablehlo.broadcast_in_dim %0#0, dims = [0, 2] : (tensor<2x5xf64>) -> tensor<2x1x5xf64>
    %8 = stablehlo.convert %7 : (tensor<2x1x5xf64>) -> tensor<2x1x5xcomplex<f64>>
    %9 = stablehlo.broadcast_in_dim %8, dims = [0, 1, 2] : (tensor<2x1x5xcomplex<f64>>) -> tensor<2x5x5xcomplex<f64>>
    %10 = stablehlo.multiply %0#1, %9 : tensor<2x5x5xcomplex<f64>>
    %11 = stablehlo.dot_general %10, %6, batching_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<2x5x5xcomplex<f64>>, tensor<2x5x5xcomplex<f64>>) -> tensor<2x5x5xcomplex<f64>>
    %12 = stablehlo.abs %0#1 : (tensor<2x5x5xcomplex<f64>>) -> tensor<2x5x5xf64>
    %13 = stablehlo.abs %1#1 : (tensor<2x5x5xcomplex<f64>>) -> tensor<2x5x5xf64>
    %14 = call @eigvalsh(%arg0) : (tensor<2x5x5xcomplex<f64>>) -> tensor<2x5xf64>
    %15 = stablehlo.dot_general %6, %0#1, batching_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<2x5x5xcomplex<f64>>, tensor<2x5x5xcomplex<f64>>) -> tensor<2x5x5xcomplex<f64>>
    return %0#0, %11, %12, %1#0, %13, %14, %15 : tensor<2x5xf64>, tensor<2x5x5xcomplex<f64>>, tensor<2x5x5xf64>, tensor<2x5xf64>, tensor<2x5x5xf64>, tensor<2x5xf64>, tensor<2x5x5xcomplex<f64>>
  }
  func.func private @eigh(%arg0: tensor<2x5x5xcomplex<f64>>) -> (tensor<2x5xf64>, tensor<2x5x5xcomplex<f64>>) {
    %cst = stablehlo.constant dense<0x7FF8000000000000> : tensor<f64>
    %cst_0 = stablehlo.constant dense<(0x7FF8000000000000,0x7FF8000000000000)> : tensor<complex<f64>>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %cst_1 = stablehlo.constant dense<(2.000000e+00,0.000000e+00)> : tensor<complex<f64>>
    %0 = stablehlo.transpose %arg0, dims = [0, 2, 1] : (tensor<2x5x5xcomplex<f64>>) -> tensor<2x5x5xcomplex<f64>>
    %1 = stablehlo.real %0 : (tensor<2x5x5xcomplex<f64>>) -> tensor<2x5x5xf64>
    %2 = stablehlo.imag %0 : (tensor<2x5x5xcomplex<f64>>) -> tensor<2x5x5xf64>
    %3 = stablehlo.negate %2 : tensor<2x5x5xf64>
    %4 = stablehlo.complex %1, %3 : tensor<2x5x5xcomplex<f64>>
    %5 = stablehlo.add %arg0, %4 : tensor<2x5x5xcomplex<f64>>
    %6 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<complex<f64>>) -> tensor<2x5x5xcomplex<f64>>
    %7 = stablehlo.divide %5, %6 : tensor<2x5x5xcomplex<f64>>
    %8:3 = stablehlo.custom_call @lapack_zheevd_ffi(%7) {mhlo.backend_config = {mode = 86 : ui8, uplo = 76 : ui8}, mhlo.frontend_attributes = {num_batch_dims = "1"}, operand_layouts = [dense<[1, 2, 0]> : tensor<3xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 0, operand_tuple_indices = []>], result_layouts = [dense<[1, 2, 0]> : tensor<3xindex>, dense<[1, 0]> : tensor<2xindex>, dense<0> : tensor<1xindex>], sdy.sharding_rule = #sdy.op_sharding_rule<([i, j, k])->([i, l, m], [i, n], [i]) {i=2, j=5, k=5, l=5, m=5, n=5}, custom>} : (tensor<2x5x5xcomplex<f64>>) -> (tensor<2x5x5xcomplex<f64>>, tensor<2x5xf64>, tensor<2xi32>)
    %9 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<2xi32>
    %10 = stablehlo.compare EQ, %8#2, %9, SIGNED : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi1>
    %11 = stablehlo.broadcast_in_dim %10, dims = [0] : (tensor<2xi1>) -> tensor<2x1x1xi1>
    %12 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<complex<f64>>) -> tensor<2x5x5xcomplex<f64>>
    %13 = stablehlo.broadcast_in_dim %11, dims = [0, 1, 2] : (tensor<2x1x1xi1>) -> tensor<2x5x5xi1>
    %14 = stablehlo.select %13, %8#0, %12 : tensor<2x5x5xi1>, tensor<2x5x5xcomplex<f64>>
    %15 = stablehlo.broadcast_in_dim %10, dims = [0] : (tensor<2xi1>) -> tensor<2x1xi1>
    %16 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f64>) -> tensor<2x5xf64>
    %17 = stablehlo.broadcast_in_dim %15, dims = [0, 1] : (tensor<2x1xi1>) -> tensor<2x5xi1>
    %18 = stablehlo.select %17, %8#1, %16 : tensor<2x5xi1>, tensor<2x5xf64>
    return %18, %14 : tensor<2x5xf64>, tensor<2x5x5xcomplex<f64>>
  }
  func.func private @eigh_0(%arg0: tensor<2x5x5xcomplex<f64>>) -> (tensor<2x5xf64>, tensor<2x5x5xcomplex<f64>>) {
    %cst = stablehlo.constant dense<0x7FF8000000000000> : tensor<f64>
    %cst_0 = stablehlo.constant dense<(0x7FF8000000000000,0x7FF8000000000000)> : tensor<complex<f64>>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %cst_1 = stablehlo.constant dense<(2.000000e+00,0.000000e+00)> : tensor<complex<f64>>
    %0 = stablehlo.transpose %arg0, dims = [0, 2, 1] : (tensor<2x5x5xcomplex<f64>>) -> tensor<2x5x5xcomplex<f64>>
    %1 = stablehlo.real %0 : (tensor<2x5x5xcomplex<f64>>) -> tensor<2x5x5xf64>
    %2 = stablehlo.imag %0 : (tensor<2x5x5xcomplex<f64>>) -> tensor<2x5x5xf64>
    %3 = stablehlo.negate %2 : tensor<2x5x5xf64>
    %4 = stablehlo.complex %1, %3 : tensor<2x5x5xcomplex<f64>>
    %5 = stablehlo.add %arg0, %4 : tensor<2x5x5xcomplex<f64>>
    %6 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<complex<f64>>) -> tensor<2x5x5xcomplex<f64>>
    %7 = stablehlo.divide %5, %6 : tensor<2x5x5xcomplex<f64>>
    %8:3 = stablehlo.custom_call @lapack_zheevd_ffi(%7) {mhlo.backend_config = {mode = 86 : ui8, uplo = 85 : ui8}, mhlo.frontend_attributes = {num_batch_dims = "1"}, operand_layouts = [dense<[1, 2, 0]> : tensor<3xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 0, operand_tuple_indices = []>], result_layouts = [dense<[1, 2, 0]> : tensor<3xindex>, dense<[1, 0]> : tensor<2xindex>, dense<0> : tensor<1xindex>], sdy.sharding_rule = #sdy.op_sharding_rule<([i, j, k])->([i, l, m], [i, n], [i]) {i=2, j=5, k=5, l=5, m=5, n=5}, custom>} : (tensor<2x5x5xcomplex<f64>>) -> (tensor<2x5x5xcomplex<f64>>, tensor<2x5xf64>, tensor<2xi32>)
    %9 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<2xi32>
    %10 = stablehlo.compare EQ, %8#2, %9, SIGNED : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi1>
    %11 = stablehlo.broadcast_in_dim %10, dims = [0] : (tensor<2xi1>) -> tensor<2x1x1xi1>
    %12 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<complex<f64>>) -> tensor<2x5x5xcomplex<f64>>
    %13 = stablehlo.broadcast_in_dim %11, dims = [0, 1, 2] : (tensor<2x1x1xi1>) -> tensor<2x5x5xi1>
    %14 = stablehlo.select %13, %8#0, %12 : tensor<2x5x5xi1>, tensor<2x5x5xcomplex<f64>>
    %15 = stablehlo.broadcast_in_dim %10, dims = [0] : (tensor<2xi1>) -> tensor<2x1xi1>
    %16 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f64>) -> tensor<2x5xf64>
    %17 = stablehlo.broadcast_in_dim %15, dims = [0, 1] : (tensor<2x1xi1>) -> tensor<2x5xi1>
    %18 = stablehlo.select %17, %8#1, %16 : tensor<2x5xi1>, tensor<2x5xf64>
    return %18, %14 : tensor<2x5xf64>, tensor<2x5x5xcomplex<f64>>
  }
  func.func private @eigvalsh(%arg0: tensor<2x5x5xcomplex<f64>>) -> tensor<2x5xf64> {
    %0 = call @eigh_1(%arg0) : (tensor<2x5x5xcomplex<f64>>) -> tensor<2x5xf64>
    return %0 : tensor<2x5xf64>
  }
  func.func private @eigh_1(%arg0: tensor<2x5x5xcomplex<f64>>) -> tensor<2x5xf64> {
    %cst = stablehlo.constant dense<0x7FF8000000000000> : tensor<f64>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %cst_0 = stablehlo.constant dense<(2.000000e+00,0.000000e+00)> : tensor<complex<f64>>
    %0 = stablehlo.transpose %arg0, dims = [0, 2, 1] : (tensor<2x5x5xcomplex<f64>>) -> tensor<2x5x5xcomplex<f64>>
    %1 = stablehlo.real %0 : (tensor<2x5x5xcomplex<f64>>) -> tensor<2x5x5xf64>
    %2 = stablehlo.imag %0 : (tensor<2x5x5xcomplex<f64>>) -> tensor<2x5x5xf64>
    %3 = stablehlo.negate %2 : tensor<2x5x5xf64>
    %4 = stablehlo.complex %1, %3 : tensor<2x5x5xcomplex<f64>>
    %5 = stablehlo.add %arg0, %4 : tensor<2x5x5xcomplex<f64>>
    %6 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<complex<f64>>) -> tensor<2x5x5xcomplex<f64>>
    %7 = stablehlo.divide %5, %6 : tensor<2x5x5xcomplex<f64>>
    %8:3 = stablehlo.custom_call @lapack_zheevd_ffi(%7) {mhlo.backend_config = {mode = 86 : ui8, uplo = 76 : ui8}, mhlo.frontend_attributes = {num_batch_dims = "1"}, operand_layouts = [dense<[1, 2, 0]> : tensor<3xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 0, operand_tuple_indices = []>], result_layouts = [dense<[1, 2, 0]> : tensor<3xindex>, dense<[1, 0]> : tensor<2xindex>, dense<0> : tensor<1xindex>], sdy.sharding_rule = #sdy.op_sharding_rule<([i, j, k])->([i, l, m], [i, n], [i]) {i=2, j=5, k=5, l=5, m=5, n=5}, custom>} : (tensor<2x5x5xcomplex<f64>>) -> (tensor<2x5x5xcomplex<f64>>, tensor<2x5xf64>, tensor<2xi32>)
    %9 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<2xi32>
    %10 = stablehlo.compare EQ, %8#2, %9, SIGNED : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi1>
    %11 = stablehlo.broadcast_in_dim %10, dims = [0] : (tensor<2xi1>) -> tensor<2x1xi1>
    %12 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f64>) -> tensor<2x5xf64>
    %13 = stablehlo.broadcast_in_dim %11, dims = [0, 1] : (tensor<2x1xi1>) -> tensor<2x5xi1>
    %14 = stablehlo.select %13, %8#1, %12 : tensor<2x5xi1>, tensor<2x5xf64>
    return %14 : tensor<2x5xf64>
  }
}
