module @jit_f attributes {jax.uses_shape_polymorphism = false, mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<2x6x4xcomplex<f64>>, %arg1: tensor<3x5xcomplex<f64>>) -> (tensor<2x4xf64> {jax.result_info = "result[0]"}, tensor<2x6x4xcomplex<f64>> {jax.result_info = "result[1]"}, tensor<2x6x4xf64> {jax.result_info = "result[2]"}, tensor<2x4x4xf64> {jax.result_info = "result[3]"}, tensor<2x4xf64> {jax.result_info = "result[4]"}, tensor<2x6x6xcomplex<f64>> {jax.result_info = "result[5]"}, tensor<3xf64> {jax.result_info = "result[6]"}, tensor<3x5xcomplex<f64>> {jax.result_info = "result[7]"}, tensor<5x5xcomplex<f64>> {jax.result_info = "result[8]"}, tensor<3xf64> {jax.result_info = "result[9]"}, tensor<3x5xcomplex<f64>> {jax.result_info = "result[10]"}, tensor<3xf64> {jax.result_info = "result[11]"}, tensor<4x6xcomplex<f64>> {jax.result_info = "result[12]"}, tensor<f64> {jax.result_info = "result[13]"}) {
    %cst = stablehlo.constant dense<(0x7FF8000000000000,0x7FF8000000000000)> : tensor<complex<f64>>
    %cst_0 = stablehlo.constant dense<0x7FF8000000000000> : tensor<f64>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0:3 = call @svd(%arg0) : (tensor<2x6x4xcomplex<f64>>) -> (tensor<2x6x4xcomplex<f64>>, tensor<2x4xf64>, tensor<2x4x4xcomplex<f64>>)
    %1:2 = call @svd_0(%arg0) : (tensor<2x6x4xcomplex<f64>>) -> (tensor<2x6x6xcomplex<f64>>, tensor<2x4xf64>)
    %2:3 = call @svd_1(%arg1) : (tensor<3x5xcomplex<f64>>) -> (tensor<3x3xcomplex<f64>>, tensor<3xf64>, tensor<5x5xcomplex<f64>>)
    %3:5 = stablehlo.custom_call @lapack_zgesvd_ffi(%arg1) {mhlo.backend_config = {mode = 83 : ui8}, mhlo.frontend_attributes = {num_batch_dims = "0"}, operand_layouts = [dense<[0, 1]> : tensor<2xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 0, operand_tuple_indices = []>], result_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<0> : tensor<1xindex>, dense<[0, 1]> : tensor<2xindex>, dense<[0, 1]> : tensor<2xindex>, dense<> : tensor<0xindex>], sdy.sharding_rule = #sdy.op_sharding_rule<([i, j])->([k, l], [m], [n, o], [p, q], []) {i=3, j=5, k=3, l=5, m=3, n=3, o=3, p=3, q=5}, custom>} : (tensor<3x5xcomplex<f64>>) -> (tensor<3x5xcomplex<f64>>, tensor<3xf64>, tensor<3x3xcomplex<f64>>, tensor<3x5xcomplex<f64>>, tensor<i32>)
    %4 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<i32>
    %5 = stablehlo.compare EQ, %3#4, %4, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %6 = stablehlo.broadcast_in_dim %5, dims = [] : (tensor<i1>) -> tensor<1xi1>
    %7 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f64>) -> tensor<3xf64>
    %8 = stablehlo.broadcast_in_dim %6, dims = [0] : (tensor<1xi1>) -> tensor<3xi1>
    %9 = stablehlo.select %8, %3#1, %7 : tensor<3xi1>, tensor<3xf64>
    %10 = stablehlo.broadcast_in_dim %5, dims = [] : (tensor<i1>) -> tensor<1x1xi1>
    %11 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<complex<f64>>) -> tensor<3x3xcomplex<f64>>
    %12 = stablehlo.broadcast_in_dim %10, dims = [0, 1] : (tensor<1x1xi1>) -> tensor<3x3xi1>
    %13 = stablehlo.select %12, %3#2, %11 : tensor<3x3xi1>, tensor<3x3xcomplex<f64>>
    %14 = stablehlo.broadcast_in_dim %5, dims = [] : (tensor<i1>) -> tensor<1x1xi1>
    %15 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<complex<f64>>) -> tensor<3x5xcomplex<f64>>
    %16 = stablehlo.broadcast_in_dim %14, dims = [0, 1] : (tensor<1x1xi1>) -> tensor<3x5xi1>
    %17 = stablehlo.select %16, %3#3, %15 : tensor<3x5xi1>, tensor<3x5xcomplex<f64>>
    %18 = stablehlo.broadcast_in_dim %0#1, dims = [0, 2] : (tensor<2x4xf64>) -> tensor<2x1x4xf64>
    %19 = stablehlo.convert %18 : (tensor<2x1x4xf64>) -> tensor<2x1x4xcomplex<f64>>
    %20 = stablehlo.broadcast_in_dim %19, dims = [0, 1, 2] : (tensor<2x1x4xcomplex<f64>>) -> tensor<2x6x4xcomplex<f64>>
    %21 = stablehlo.multiply %0#0, %20 : tensor<2x6x4xcomplex<f64>>
    %22 = stablehlo.dot_general %21, %0#2, batching_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<2x6x4xcomplex<f64>>, tensor<2x4x4xcomplex<f64>>) -> tensor<2x6x4xcomplex<f64>>
    %23 = stablehlo.convert %2#1 : (tensor<3xf64>) -> tensor<3xcomplex<f64>>
    %24 = stablehlo.broadcast_in_dim %23, dims = [1] : (tensor<3xcomplex<f64>>) -> tensor<1x3xcomplex<f64>>
    %25 = stablehlo.broadcast_in_dim %24, dims = [0, 1] : (tensor<1x3xcomplex<f64>>) -> tensor<3x3xcomplex<f64>>
    %26 = stablehlo.multiply %2#0, %25 : tensor<3x3xcomplex<f64>>
    %27 = stablehlo.slice %2#2 [0:3, 0:5] : (tensor<5x5xcomplex<f64>>) -> tensor<3x5xcomplex<f64>>
    %28 = stablehlo.dot_general %26, %27, contracting_dims = [1] x [0] : (tensor<3x3xcomplex<f64>>, tensor<3x5xcomplex<f64>>) -> tensor<3x5xcomplex<f64>>
    %29 = stablehlo.transpose %1#0, dims = [0, 2, 1] : (tensor<2x6x6xcomplex<f64>>) -> tensor<2x6x6xcomplex<f64>>
    %30 = stablehlo.real %29 : (tensor<2x6x6xcomplex<f64>>) -> tensor<2x6x6xf64>
    %31 = stablehlo.imag %29 : (tensor<2x6x6xcomplex<f64>>) -> tensor<2x6x6xf64>
    %32 = stablehlo.negate %31 : tensor<2x6x6xf64>
    %33 = stablehlo.complex %30, %32 : tensor<2x6x6xcomplex<f64>>
    %34 = stablehlo.dot_general %33, %1#0, batching_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<2x6x6xcomplex<f64>>, tensor<2x6x6xcomplex<f64>>) -> tensor<2x6x6xcomplex<f64>>
    %35 = stablehlo.transpose %2#2, dims = [1, 0] : (tensor<5x5xcomplex<f64>>) -> tensor<5x5xcomplex<f64>>
    %36 = stablehlo.real %35 : (tensor<5x5xcomplex<f64>>) -> tensor<5x5xf64>
    %37 = stablehlo.imag %35 : (tensor<5x5xcomplex<f64>>) -> tensor<5x5xf64>
    %38 = stablehlo.negate %37 : tensor<5x5xf64>
    %39 = stablehlo.complex %36, %38 : tensor<5x5xcomplex<f64>>
    %40 = stablehlo.dot_general %2#2, %39, contracting_dims = [1] x [0] : (tensor<5x5xcomplex<f64>>, tensor<5x5xcomplex<f64>>) -> tensor<5x5xcomplex<f64>>
    %41 = stablehlo.abs %0#0 : (tensor<2x6x4xcomplex<f64>>) -> tensor<2x6x4xf64>
    %42 = stablehlo.abs %0#2 : (tensor<2x4x4xcomplex<f64>>) -> tensor<2x4x4xf64>
    %43 = stablehlo.convert %9 : (tensor<3xf64>) -> tensor<3xcomplex<f64>>
    %44 = stablehlo.broadcast_in_dim %43, dims = [1] : (tensor<3xcomplex<f64>>) -> tensor<1x3xcomplex<f64>>
    %45 = stablehlo.broadcast_in_dim %44, dims = [0, 1] : (tensor<1x3xcomplex<f64>>) -> tensor<3x3xcomplex<f64>>
    %46 = stablehlo.multiply %13, %45 : tensor<3x3xcomplex<f64>>
    %47 = stablehlo.dot_general %46, %17, contracting_dims = [1] x [0] : (tensor<3x3xcomplex<f64>>, tensor<3x5xcomplex<f64>>) -> tensor<3x5xcomplex<f64>>
    %48 = call @svd_2(%arg1) : (tensor<3x5xcomplex<f64>>) -> tensor<3xf64>
    %49 = stablehlo.slice %arg0 [0:1, 0:6, 0:4] : (tensor<2x6x4xcomplex<f64>>) -> tensor<1x6x4xcomplex<f64>>
    %50 = stablehlo.reshape %49 : (tensor<1x6x4xcomplex<f64>>) -> tensor<6x4xcomplex<f64>>
    %51 = call @_pinv(%50) : (tensor<6x4xcomplex<f64>>) -> tensor<4x6xcomplex<f64>>
    %52 = call @norm(%arg1) : (tensor<3x5xcomplex<f64>>) -> tensor<f64>
    return %0#1, %22, %41, %42, %1#1, %34, %2#1, %28, %40, %9, %47, %48, %51, %52 : tensor<2x4xf64>, tensor<2x6x4xcomplex<f64>>, tensor<2x6x4xf64>, tensor<2x4x4xf64>, tensor<2x4xf64>, tensor<2x6x6xcomplex<f64>>, tensor<3xf64>, tensor<3x5xcomplex<f64>>, tensor<5x5xcomplex<f64>>, tensor<3xf64>, tensor<3x5xcomplex<f64>>, tensor<3xf64>, tensor<4x6xcomplex<f64>>, tensor<f64>
  }
  func.func private @svd(%arg0: tensor<2x6x4xcomplex<f64>>) -> (tensor<2x6x4xcomplex<f64>>, tensor<2x4xf64>, tensor<2x4x4xcomplex<f64>>) {
    %cst = stablehlo.constant dense<(0x7FF8000000000000,0x7FF8000000000000)> : tensor<complex<f64>>
    %cst_0 = stablehlo.constant dense<0x7FF8000000000000> : tensor<f64>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0:5 = stablehlo.custom_call @lapack_zgesdd_ffi(%arg0) {mhlo.backend_config = {mode = 83 : ui8}, mhlo.frontend_attributes = {num_batch_dims = "1"}, operand_layouts = [dense<[1, 2, 0]> : tensor<3xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 0, operand_tuple_indices = []>], result_layouts = [dense<[1, 2, 0]> : tensor<3xindex>, dense<[1, 0]> : tensor<2xindex>, dense<[1, 2, 0]> : tensor<3xindex>, dense<[1, 2, 0]> : tensor<3xindex>, dense<0> : tensor<1xindex>], sdy.sharding_rule = #sdy.op_sharding_rule<([i, j, k])->([i, l, m], [i, n], [i, o, p], [i, q, r], [i]) {i=2, j=6, k=4, l=6, m=4, n=4, o=6, p=4, q=4, r=4}, custom>} : (tensor<2x6x4xcomplex<f64>>) -> (tensor<2x6x4xcomplex<f64>>, tensor<2x4xf64>, tensor<2x6x4xcomplex<f64>>, tensor<2x4x4xcomplex<f64>>, tensor<2xi32>)
    %1 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<2xi32>
    %2 = stablehlo.compare EQ, %0#4, %1, SIGNED : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi1>
    %3 = stablehlo.broadcast_in_dim %2, dims = [0] : (tensor<2xi1>) -> tensor<2x1xi1>
    %4 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f64>) -> tensor<2x4xf64>
    %5 = stablehlo.broadcast_in_dim %3, dims = [0, 1] : (tensor<2x1xi1>) -> tensor<2x4xi1>
    %6 = stablehlo.select %5, %0#1, %4 : tensor<2x4xi1>, tensor<2x4xf64>
    %7 = stablehlo.broadcast_in_dim %2, dims = [0] : (tensor<2xi1>) -> tensor<2x1x1xi1>
    %8 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<complex<f64>>) -> tensor<2x6x4xcomplex<f64>>
    %9 = stablehlo.broadcast_in_dim %7, dims = [0, 1, 2] : (tensor<2x1x1xi1>) -> tensor<2x6x4xi1>
    %10 = stablehlo.select %9, %0#2, %8 : tensor<2x6x4xi1>, tensor<2x6x4xcomplex<f64>>
    %11 = stablehlo.broadcast_in_dim %2, dims = [0] : (tensor<2xi1>) -> tensor<2x1x1xi1>
    %12 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<complex<f64>>) -> tensor<2x4x4xcomplex<f64>>
    %13 = stablehlo.broadcast_in_dim %11, dims = [0, 1, 2] : (tensor<2x1x1xi1>) -> tensor<2x4x4xi1>
    %14 = stablehlo.select %13, %0#3, %12 : tensor<2x4x4xi1>, tensor<2x4x4xcomplex<f64>>
    return %10, %6, %14 : tensor<2x6x4xcomplex<f64>>, tensor<2x4xf64>, tensor<2x4x4xcomplex<f64>>
  }
  func.func private @svd_0(%arg0: tensor<2x6x4xcomplex<f64>>) -> (tensor<2x6x6xcomplex<f64>>, tensor<2x4xf64>) {
    %cst = stablehlo.constant dense<(0x7FF8000000000000,0x7FF8000000000000)> : tensor<complex<f64>>
    %cst_0 = stablehlo.constant dense<0x7FF8000000000000> : tensor<f64>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0:5 = stablehlo.custom_call @lapack_zgesdd_ffi(%arg0) {mhlo.backend_config = {mode = 65 : ui8}, mhlo.frontend_attributes = {num_batch_dims = "1"}, operand_layouts = [dense<[1, 2, 0]> : tensor<3xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 0, operand_tuple_indices = []>], result_layouts = [dense<[1, 2, 0]> : tensor<3xindex>, dense<[1, 0]> : tensor<2xindex>, dense<[1, 2, 0]> : tensor<3xindex>, dense<[1, 2, 0]> : tensor<3xindex>, dense<0> : tensor<1xindex>], sdy.sharding_rule = #sdy.op_sharding_rule<([i, j, k])->([i, l, m], [i, n], [i, o, p], [i, q, r], [i]) {i=2, j=6, k=4, l=6, m=4, n=4, o=6, p=6, q=4, r=4}, custom>} : (tensor<2x6x4xcomplex<f64>>) -> (tensor<2x6x4xcomplex<f64>>, tensor<2x4xf64>, tensor<2x6x6xcomplex<f64>>, tensor<2x4x4xcomplex<f64>>, tensor<2xi32>)
    %1 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<2xi32>
    %2 = stablehlo.compare EQ, %0#4, %1, SIGNED : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi1>
    %3 = stablehlo.broadcast_in_dim %2, dims = [0] : (tensor<2xi1>) -> tensor<2x1xi1>
    %4 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f64>) -> tensor<2x4xf64>
    %5 = stablehlo.broadcast_in_dim %3, dims = [0, 1] : (tensor<2x1xi1>) -> tensor<2x4xi1>
    %6 = stablehlo.select %5, %0#1, %4 : tensor<2x4xi1>, tensor<2x4xf64>
    %7 = stablehlo.broadcast_in_dim %2, dims = [0] : (tensor<2xi1>) -> tensor<2x1x1xi1>
    %8 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<complex<f64>>) -> tensor<2x6x6xcomplex<f64>>
    %9 = stablehlo.broadcast_in_dim %7, dims = [0, 1, 2] : (tensor<2x1x1xi1>) -> tensor<2x6x6xi1>
    %10 = stablehlo.select %9, %0#2, %8 : tensor<2x6x6xi1>, tensor<2x6x6xcomplex<f64>>
    return %10, %6 : tensor<2x6x6xcomplex<f64>>, tensor<2x4xf64>
  }
  func.func private @svd_1(%arg0: tensor<3x5xcomplex<f64>>) -> (tensor<3x3xcomplex<f64>>, tensor<3xf64>, tensor<5x5xcomplex<f64>>) {
    %cst = stablehlo.constant dense<(0x7FF8000000000000,0x7FF8000000000000)> : tensor<complex<f64>>
    %cst_0 = stablehlo.constant dense<0x7FF8000000000000> : tensor<f64>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0:5 = stablehlo.custom_call @lapack_zgesdd_ffi(%arg0) {mhlo.backend_config = {mode = 65 : ui8}, mhlo.frontend_attributes = {num_batch_dims = "0"}, operand_layouts = [dense<[0, 1]> : tensor<2xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 0, operand_tuple_indices = []>], result_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<0> : tensor<1xindex>, dense<[0, 1]> : tensor<2xindex>, dense<[0, 1]> : tensor<2xindex>, dense<> : tensor<0xindex>], sdy.sharding_rule = #sdy.op_sharding_rule<([i, j])->([k, l], [m], [n, o], [p, q], []) {i=3, j=5, k=3, l=5, m=3, n=3, o=3, p=5, q=5}, custom>} : (tensor<3x5xcomplex<f64>>) -> (tensor<3x5xcomplex<f64>>, tensor<3xf64>, tensor<3x3xcomplex<f64>>, tensor<5x5xcomplex<f64>>, tensor<i32>)
    %1 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<i32>
    %2 = stablehlo.compare EQ, %0#4, %1, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %3 = stablehlo.broadcast_in_dim %2, dims = [] : (tensor<i1>) -> tensor<1xi1>
    %4 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f64>) -> tensor<3xf64>
    %5 = stablehlo.broadcast_in_dim %3, dims = [0] : (tensor<1xi1>) -> tensor<3xi1>
    %6 = stablehlo.select %5, %0#1, %4 : tensor<3xi1>, tensor<3xf64>
    %7 = stablehlo.broadcast_in_dim %2, dims = [] : (tensor<i1>) -> tensor<1x1xi1>
    %8 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<complex<f64>>) -> tensor<3x3xcomplex<f64>>
    %9 = stablehlo.broadcast_in_dim %7, dims = [0, 1] : (tensor<1x1xi1>) -> tensor<3x3xi1>
    %10 = stablehlo.select %9, %0#2, %8 : tensor<3x3xi1>, tensor<3x3xcomplex<f64>>
    %11 = stablehlo.broadcast_in_dim %2, dims = [] : (tensor<i1>) -> tensor<1x1xi1>
    %12 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<complex<f64>>) -> tensor<5x5xcomplex<f64>>
    %13 = stablehlo.broadcast_in_dim %11, dims = [0, 1] : (tensor<1x1xi1>) -> tensor<5x5xi1>
    %14 = stablehlo.select %13, %0#3, %12 : tensor<5x5xi1>, tensor<5x5xcomplex<f64>>
    return %10, %6, %14 : tensor<3x3xcomplex<f64>>, tensor<3xf64>, tensor<5x5xcomplex<f64>>
  }
  func.func private @svd_2(%arg0: tensor<3x5xcomplex<f64>>) -> tensor<3xf64> {
    %cst = stablehlo.constant dense<0x7FF8000000000000> : tensor<f64>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0:5 = stablehlo.custom_call @lapack_zgesdd_ffi(%arg0) {mhlo.backend_config = {mode = 78 : ui8}, mhlo.frontend_attributes = {num_batch_dims = "0"}, operand_layouts = [dense<[0, 1]> : tensor<2xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 0, operand_tuple_indices = []>], result_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<0> : tensor<1xindex>, dense<[0, 1]> : tensor<2xindex>, dense<[0, 1]> : tensor<2xindex>, dense<> : tensor<0xindex>], sdy.sharding_rule = #sdy.op_sharding_rule<([i, j])->([k, l], [m], [n, o], [p, q], []) {i=3, j=5, k=3, l=5, m=3, n=3, o=3, p=5, q=5}, custom>} : (tensor<3x5xcomplex<f64>>) -> (tensor<3x5xcomplex<f64>>, tensor<3xf64>, tensor<3x3xcomplex<f64>>, tensor<5x5xcomplex<f64>>, tensor<i32>)
    %1 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<i32>
    %2 = stablehlo.compare EQ, %0#4, %1, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %3 = stablehlo.broadcast_in_dim %2, dims = [] : (tensor<i1>) -> tensor<1xi1>
    %4 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f64>) -> tensor<3xf64>
    %5 = stablehlo.broadcast_in_dim %3, dims = [0] : (tensor<1xi1>) -> tensor<3xi1>
    %6 = stablehlo.select %5, %0#1, %4 : tensor<3xi1>, tensor<3xf64>
    return %6 : tensor<3xf64>
  }
  func.func private @_pinv(%arg0: tensor<6x4xcomplex<f64>>) -> tensor<4x6xcomplex<f64>> {
    %cst = stablehlo.constant dense<0x7FF0000000000000> : tensor<f64>
    %cst_0 = stablehlo.constant dense<2.2204460492503131E-16> : tensor<f64>
    %cst_1 = stablehlo.constant dense<6.000000e+01> : tensor<f64>
    %0 = stablehlo.real %arg0 : (tensor<6x4xcomplex<f64>>) -> tensor<6x4xf64>
    %1 = stablehlo.imag %arg0 : (tensor<6x4xcomplex<f64>>) -> tensor<6x4xf64>
    %2 = stablehlo.negate %1 : tensor<6x4xf64>
    %3 = stablehlo.complex %0, %2 : tensor<6x4xcomplex<f64>>
    %4 = stablehlo.multiply %cst_1, %cst_0 : tensor<f64>
    %5:3 = call @svd_3(%3) : (tensor<6x4xcomplex<f64>>) -> (tensor<6x4xcomplex<f64>>, tensor<4xf64>, tensor<4x4xcomplex<f64>>)
    %6 = stablehlo.broadcast_in_dim %4, dims = [] : (tensor<f64>) -> tensor<1xf64>
    %7 = stablehlo.slice %5#1 [0:1] : (tensor<4xf64>) -> tensor<1xf64>
    %8 = stablehlo.multiply %6, %7 : tensor<1xf64>
    %9 = stablehlo.broadcast_in_dim %8, dims = [0] : (tensor<1xf64>) -> tensor<4xf64>
    %10 = stablehlo.compare GT, %5#1, %9, FLOAT : (tensor<4xf64>, tensor<4xf64>) -> tensor<4xi1>
    %11 = call @_where(%10, %5#1, %cst) : (tensor<4xi1>, tensor<4xf64>, tensor<f64>) -> tensor<4xf64>
    %12 = stablehlo.convert %11 : (tensor<4xf64>) -> tensor<4xcomplex<f64>>
    %13 = stablehlo.transpose %5#2, dims = [1, 0] : (tensor<4x4xcomplex<f64>>) -> tensor<4x4xcomplex<f64>>
    %14 = stablehlo.transpose %5#0, dims = [1, 0] : (tensor<6x4xcomplex<f64>>) -> tensor<4x6xcomplex<f64>>
    %15 = stablehlo.broadcast_in_dim %12, dims = [0] : (tensor<4xcomplex<f64>>) -> tensor<4x1xcomplex<f64>>
    %16 = stablehlo.broadcast_in_dim %15, dims = [0, 1] : (tensor<4x1xcomplex<f64>>) -> tensor<4x6xcomplex<f64>>
    %17 = stablehlo.divide %14, %16 : tensor<4x6xcomplex<f64>>
    %18 = stablehlo.dot_general %13, %17, contracting_dims = [1] x [0], precision = [HIGHEST, HIGHEST] : (tensor<4x4xcomplex<f64>>, tensor<4x6xcomplex<f64>>) -> tensor<4x6xcomplex<f64>>
    return %18 : tensor<4x6xcomplex<f64>>
  }
  func.func private @svd_3(%arg0: tensor<6x4xcomplex<f64>>) -> (tensor<6x4xcomplex<f64>>, tensor<4xf64>, tensor<4x4xcomplex<f64>>) {
    %cst = stablehlo.constant dense<(0x7FF8000000000000,0x7FF8000000000000)> : tensor<complex<f64>>
    %cst_0 = stablehlo.constant dense<0x7FF8000000000000> : tensor<f64>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0:5 = stablehlo.custom_call @lapack_zgesdd_ffi(%arg0) {mhlo.backend_config = {mode = 83 : ui8}, mhlo.frontend_attributes = {num_batch_dims = "0"}, operand_layouts = [dense<[0, 1]> : tensor<2xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 0, operand_tuple_indices = []>], result_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<0> : tensor<1xindex>, dense<[0, 1]> : tensor<2xindex>, dense<[0, 1]> : tensor<2xindex>, dense<> : tensor<0xindex>], sdy.sharding_rule = #sdy.op_sharding_rule<([i, j])->([k, l], [m], [n, o], [p, q], []) {i=6, j=4, k=6, l=4, m=4, n=6, o=4, p=4, q=4}, custom>} : (tensor<6x4xcomplex<f64>>) -> (tensor<6x4xcomplex<f64>>, tensor<4xf64>, tensor<6x4xcomplex<f64>>, tensor<4x4xcomplex<f64>>, tensor<i32>)
    %1 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<i32>
    %2 = stablehlo.compare EQ, %0#4, %1, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %3 = stablehlo.broadcast_in_dim %2, dims = [] : (tensor<i1>) -> tensor<1xi1>
    %4 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f64>) -> tensor<4xf64>
    %5 = stablehlo.broadcast_in_dim %3, dims = [0] : (tensor<1xi1>) -> tensor<4xi1>
    %6 = stablehlo.select %5, %0#1, %4 : tensor<4xi1>, tensor<4xf64>
    %7 = stablehlo.broadcast_in_dim %2, dims = [] : (tensor<i1>) -> tensor<1x1xi1>
    %8 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<complex<f64>>) -> tensor<6x4xcomplex<f64>>
    %9 = stablehlo.broadcast_in_dim %7, dims = [0, 1] : (tensor<1x1xi1>) -> tensor<6x4xi1>
    %10 = stablehlo.select %9, %0#2, %8 : tensor<6x4xi1>, tensor<6x4xcomplex<f64>>
    %11 = stablehlo.broadcast_in_dim %2, dims = [] : (tensor<i1>) -> tensor<1x1xi1>
    %12 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<complex<f64>>) -> tensor<4x4xcomplex<f64>>
    %13 = stablehlo.broadcast_in_dim %11, dims = [0, 1] : (tensor<1x1xi1>) -> tensor<4x4xi1>
    %14 = stablehlo.select %13, %0#3, %12 : tensor<4x4xi1>, tensor<4x4xcomplex<f64>>
    return %10, %6, %14 : tensor<6x4xcomplex<f64>>, tensor<4xf64>, tensor<4x4xcomplex<f64>>
  }
  func.func private @_where(%arg0: tensor<4xi1>, %arg1: tensor<4xf64>, %arg2: tensor<f64>) -> tensor<4xf64> {
    %0 = stablehlo.convert %arg2 : tensor<f64>
    %1 = stablehlo.broadcast_in_dim %0, dims = [] : (tensor<f64>) -> tensor<4xf64>
    %2 = stablehlo.select %arg0, %arg1, %1 : tensor<4xi1>, tensor<4xf64>
    return %2 : tensor<4xf64>
  }
  func.func private @norm(%arg0: tensor<3x5xcomplex<f64>>) -> tensor<f64> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f64>
    %cst_0 = stablehlo.constant dense<0xFFF0000000000000> : tensor<f64>
    %0 = call @svd_2(%arg0) : (tensor<3x5xcomplex<f64>>) -> tensor<3xf64>
    %1 = stablehlo.reduce(%0 init: %cst_0) applies stablehlo.maximum across dimensions = [0] : (tensor<3xf64>, tensor<f64>) -> tensor<f64>
    %2 = stablehlo.maximum %cst, %1 : tensor<f64>
    return %2 : tensor<f64>
  }
}
