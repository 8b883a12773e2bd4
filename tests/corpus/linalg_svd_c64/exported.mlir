module @jit_f attributes {jax.uses_shape_polymorphism = false, mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<2x6x4xcomplex<f32>>, %arg1: tensor<3x5xcomplex<f32>>) -> (tensor<2x4xf32> {jax.result_info = "result[0]"}, tensor<2x6x4xcomplex<f32>> {jax.result_info = "result[1]"}, tensor<2x6x4xf32> {jax.result_info = "result[2]"}, tensor<2x4x4xf32> {jax.result_info = "result[3]"}, tensor<2x4xf32> {jax.result_info = "result[4]"}, tensor<2x6x6xcomplex<f32>> {jax.result_info = "result[5]"}, tensor<3xf32> {jax.result_info = "result[6]"}, tensor<3x5xcomplex<f32>> {jax.result_info = "result[7]"}, tensor<5x5xcomplex<f32>> {jax.result_info = "result[8]"}, tensor<3xf32> {jax.result_info = "result[9]"}, tensor<3x5xcomplex<f32>> {jax.result_info = "result[10]"}, tensor<3xf32> {jax.result_info = "result[11]"}, tensor<4x6xcomplex<f32>> {jax.result_info = "result[12]"}, tensor<f32> {jax.result_info = "result[13]"}) {
    %cst = stablehlo.constant dense<(0x7FC00000,0x7FC00000)> : tensor<complex<f32>>
    %cst_0 = stablehlo.constant dense<0x7FC00000> : tensor<f32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0:3 = call @svd(%arg0) : (tensor<2x6x4xcomplex<f32>>) -> (tensor<2x6x4xcomplex<f32>>, tensor<2x4xf32>, tensor<2x4x4xcomplex<f32>>)
    %1:2 = call @svd_0(%arg0) : (tensor<2x6x4xcomplex<f32>>) -> (tensor<2x6x6xcomplex<f32>>, tensor<2x4xf32>)
    %2:3 = call @svd_1(%arg1) : (tensor<3x5xcomplex<f32>>) -> (tensor<3x3xcomplex<f32>>, tensor<3xf32>, tensor<5x5xcomplex<f32>>)
    %3:5 = stablehlo.custom_call @lapack_cgesvd_ffi(%arg1) {mhlo.backend_config = {mode = 83 : ui8}, mhlo.frontend_attributes = {num_batch_dims = "0"}, operand_layouts = [dense<[0, 1]> : tensor<2xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 0, operand_tuple_indices = []>], result_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<0> : tensor<1xindex>, dense<[0, 1]> : tensor<2xindex>, dense<[0, 1]> : tensor<2xindex>, dense<> : tensor<0xindex>], sdy.sharding_rule = #sdy.op_sharding_rule<([i, j])->([k, l], [m], [n, o], [p, q], []) {i=3, j=5, k=3, l=5, m=3, n=3, o=3, p=3, q=5}, custom>} : (tensor<3x5xcomplex<f32>>) -> (tensor<3x5xcomplex<f32>>, tensor<3xf32>, tensor<3x3xcomplex<f32>>, tensor<3x5xcomplex<f32>>, tensor<i32>)
    %4 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<i32>
    %5 = stablehlo.compare EQ, %3#4, %4, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %6 = stablehlo.broadcast_in_dim %5, dims = [] : (tensor<i1>) -> tensor<1xi1>
    %7 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<3xf32>
    %8 = stablehlo.broadcast_in_dim %6, dims = [0] : (tensor<1xi1>) -> tensor<3xi1>
    %9 = stablehlo.select %8, %3#1, %7 : tensor<3xi1>, tensor<3xf32>
    %10 = stablehlo.broadcast_in_dim %5, dims = [] : (tensor<i1>) -> tensor<1x1xi1>
    %11 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<complex<f32>>) -> tensor<3x3xcomplex<f32>>
    %12 = stablehlo.broadcast_in_dim %10, dims = [0, 1] : (tensor<1x1xi1>) -> tensor<3x3xi1>
    %13 = stablehlo.select %12, %3#2, %11 : tensor<3x3xi1>, tensor<3x3xcomplex<f32>>
    %14 = stablehlo.broadcast_in_dim %5, dims = [] : (tensor<i1>) -> tensor<1x1xi1>
    %15 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<complex<f32>>) -> tensor<3x5xcomplex<f32>>
    %16 = stablehlo.broadcast_in_dim %14, dims = [0, 1] : (tensor<1x1xi1>) -> tensor<3x5xi1>
    %17 = stablehlo.select %16, %3#3, %15 : tensor<3x5xi1>, tensor<3x5xcomplex<f32>>
    %18 = stablehlo.broadcast_in_dim %0#1, dims = [0, 2] : (tensor<2x4xf32>) -> tensor<2x1x4xf32>
    %19 = stablehlo.convert %18 : (tensor<2x1x4xf32>) -> tensor<2x1x4xcomplex<f32>>
    %20 = stablehlo.broadcast_in_dim %19, dims = [0, 1, 2] : (tensor<2x1x4xcomplex<f32>>) -> tensor<2x6x4xcomplex<f32>>
    %21 = stablehlo.multiply %0#0, %20 : tensor<2x6x4xcomplex<f32>>
    %22 = stablehlo.dot_general %21, %0#2, batching_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<2x6x4xcomplex<f32>>, tensor<2x4x4xcomplex<f32>>) -> tensor<2x6x4xcomplex<f32>>
    %23 = stablehlo.convert %2#1 : (tensor<3xf32>) -> tensor<3xcomplex<f32>>
    %24 = stablehlo.broadcast_in_dim %23, dims = [1] : (tensor<3xcomplex<f32>>) -> tensor<1x3xcomplex<f32>>
    %25 = stablehlo.broadcast_in_dim %24, dims = [0, 1] : (tensor<1x3xcomplex<f32>>) -> tensor<3x3xcomplex<f32>>
    %26 = stablehlo.multiply %2#0, %25 : tensor<3x3xcomplex<f32>>
    %27 = stablehlo.slice %2#2 [0:3, 0:5] : (tensor<5x5xcomplex<f32>>) -> tensor<3x5xcomplex<f32>>
    %28 = stablehlo.dot_general %26, %27, contracting_dims = [1] x [0] : (tensor<3x3xcomplex<f32>>, tensor<3x5xcomplex<f32>>) -> tensor<3x5xcomplex<f32>>
    %29 = stablehlo.transpose %1#0, dims = [0, 2, 1] : (tensor<2x6x6xcomplex<f32>>) -> tensor<2x6x6xcomplex<f32>>
    %30 = stablehlo.real %29 : (tensor<2x6x6xcomplex<f32>>) -> tensor<2x6x6xf32>
    %31 = stablehlo.imag %29 : (tensor<2x6x6xcomplex<f32>>) -> tensor<2x6x6xf32>
    %32 = stablehlo.negate %31 : tensor<2x6x6xf32>
    %33 = stablehlo.complex %30, %32 : tensor<2x6x6xcomplex<f32>>
    %34 = stablehlo.dot_general %33, %1#0, batching_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<2x6x6xcomplex<f32>>, tensor<2x6x6xcomplex<f32>>) -> tensor<2x6x6xcomplex<f32>>
    %35 = stablehlo.transpose %2#2, dims = [1, 0] : (tensor<5x5xcomplex<f32>>) -> tensor<5x5xcomplex<f32>>
    %36 = stablehlo.real %35 : (tensor<5x5xcomplex<f32>>) -> tensor<5x5xf32>
    %37 = stablehlo.imag %35 : (tensor<5x5xcomplex<f32>>) -> tensor<5x5xf32>
    %38 = stablehlo.negate %37 : tensor<5x5xf32>
    %39 = stablehlo.complex %36, %38 : tensor<5x5xcomplex<f32>>
    %40 = stablehlo.dot_general %2#2, %39, contracting_dims = [1] x [0] : (tensor<5x5xcomplex<f32>>, tensor<5x5xcomplex<f32>>) -> tensor<5x5xcomplex<f32>>
    %41 = stablehlo.abs %0#0 : (tensor<2x6x4xcomplex<f32>>) -> tensor<2x6x4xf32>
    %42 = stablehlo.abs %0#2 : (tensor<2x4x4xcomplex<f32>>) -> tensor<2x4x4xf32>
    %43 = stablehlo.convert %9 : (tensor<3xf32>) -> tensor<3xcomplex<f32>>
    %44 = stablehlo.broadcast_in_dim %43, dims = [1] : (tensor<3xcomplex<f32>>) -> tensor<1x3xcomplex<f32>>
    %45 = stablehlo.broadcast_in_dim %44, dims = [0, 1] : (tensor<1x3xcomplex<f32>>) -> tensor<3x3xcomplex<f32>>
    %46 = stablehlo.multiply %13, %45 : tensor<3x3xcomplex<f32>>
    %47 = stablehlo.dot_general %46, %17, contracting_dims = [1] x [0] : (tensor<3x3xcomplex<f32>>, tensor<3x5xcomplex<f32>>) -> tensor<3x5xcomplex<f32>>
    %48 = call @svd_2(%arg1) : (tensor<3x5xcomplex<f32>>) -> tensor<3xf32>
    %49 = stablehlo.slice %arg0 [0:1, 0:6, 0:4] : (tensor<2x6x4xcomplex<f32>>) -> tensor<1x6x4xcomplex<f32>>
    %50 = stablehlo.reshape %49 : (tensor<1x6x4xcomplex<f32>>) -> tensor<6x4xcomplex<f32>>
    %51 = call @_pinv(%50) : (tensor<6x4xcomplex<f32>>) -> tensor<4x6xcomplex<f32>>
    %52 = call @norm(%arg1) : (tensor<3x5xcomplex<f32>>) -> tensor<f32>
    return %0#1, %22, %41, %42, %1#1, %34, %2#1, %28, %40, %9, %47, %48, %51, %52 : tensor<2x4xf32>, tensor<2x6x4xcomplex<f32>>, tensor<2x6x4xf32>, tensor<2x4x4xf32>, tensor<2x4xf32>, tensor<2x6x6xcomplex<f32>>, tensor<3xf32>, tensor<3x5xcomplex<f32>>, tensor<5x5xcomplex<f32>>, tensor<3xf32>, tensor<3x5xcomplex<f32>>, tensor<3xf32>, tensor<4x6xcomplex<f32>>, tensor<f32>
  }
  func.func private @svd(%arg0: tensor<2x6x4xcomplex<f32>>) -> (tensor<2x6x4xcomplex<f32>>, tensor<2x4xf32>, tensor<2x4x4xcomplex<f32>>) {
    %cst = stablehlo.constant dense<(0x7FC00000,0x7FC00000)> : tensor<complex<f32>>
    %cst_0 = stablehlo.constant dense<0x7FC00000> : tensor<f32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0:5 = stablehlo.custom_call @lapack_cgesdd_ffi(%arg0) {mhlo.backend_config = {mode = 83 : ui8}, mhlo.frontend_attributes = {num_batch_dims = "1"}, operand_layouts = [dense<[1, 2, 0]> : tensor<3xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 0, operand_tuple_indices = []>], result_layouts = [dense<[1, 2, 0]> : tensor<3xindex>, dense<[1, 0]> : tensor<2xindex>, dense<[1, 2, 0]> : tensor<3xindex>, dense<[1, 2, 0]> : tensor<3xindex>, dense<0> : tensor<1xindex>], sdy.sharding_rule = #sdy.op_sharding_rule<([i, j, k])->([i, l, m], [i, n], [i, o, p], [i, q, r], [i]) {i=2, j=6, k=4, l=6, m=4, n=4, o=6, p=4, q=4, r=4}, custom>} : (tensor<2x6x4xcomplex<f32>>) -> (tensor<2x6x4xcomplex<f32>>, tensor<2x4xf32>, tensor<2x6x4xcomplex<f32>>, tensor<2x4x4xcomplex<f32>>, tensor<2xi32>)
    %1 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<2xi32>
    %2 = stablehlo.compare EQ, %0#4, %1, SIGNED : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi1>
    %3 = stablehlo.broadcast_in_dim %2, dims = [0] : (tensor<2xi1>) -> tensor<2x1xi1>
    %4 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<2x4xf32>
    %5 = stablehlo.broadcast_in_dim %3, dims = [0, 1] : (tensor<2x1xi1>) -> tensor<2x4xi1>
    %6 = stablehlo.select %5, %0#1, %4 : tensor<2x4xi1>, tensor<2x4xf32>
    %7 = stablehlo.broadcast_in_dim %2, dims = [0] : (tensor<2xi1>) -> tensor<2x1x1xi1>
    %8 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<complex<f32>>) -> tensor<2x6x4xcomplex<f32>>
    %9 = stablehlo.broadcast_in_dim %7, dims = [0, 1, 2] : (tensor<2x1x1xi1>) -> tensor<2x6x4xi1>
    %10 = stablehlo.select %9, %0#2, %8 : tensor<2x6x4xi1>, tensor<2x6x4xcomplex<f32>>
    %11 = stablehlo.broadcast_in_dim %2, dims = [0] : (tensor<2xi1>) -> tensor<2x1x1xi1>
    %12 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<complex<f32>>) -> tensor<2x4x4xcomplex<f32>>
    %13 = stablehlo.broadcast_in_dim %11, dims = [0, 1, 2] : (tensor<2x1x1xi1>) -> tensor<2x4x4xi1>
    %14 = stablehlo.select %13, %0#3, %12 : tensor<2x4x4xi1>, tensor<2x4x4xcomplex<f32>>
    return %10, %6, %14 : tensor<2x6x4xcomplex<f32>>, tensor<2x4xf32>, tensor<2x4x4xcomplex<f32>>
  }
  func.func private @svd_0(%arg0: tensor<2x6x4xcomplex<f32>>) -> (tensor<2x6x6xcomplex<f32>>, tensor<2x4xf32>) {
    %cst = stablehlo.constant dense<(0x7FC00000,0x7FC00000)> : tensor<complex<f32>>
    %cst_0 = stablehlo.constant dense<0x7FC00000> : tensor<f32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0:5 = stablehlo.custom_call @lapack_cgesdd_ffi(%arg0) {mhlo.backend_config = {mode = 65 : ui8}, mhlo.frontend_attributes = {num_batch_dims = "1"}, operand_layouts = [dense<[1, 2, 0]> : tensor<3xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 0, operand_tuple_indices = []>], result_layouts = [dense<[1, 2, 0]> : tensor<3xindex>, dense<[1, 0]> : tensor<2xindex>, dense<[1, 2, 0]> : tensor<3xindex>, dense<[1, 2, 0]> : tensor<3xindex>, dense<0> : tensor<1xindex>], sdy.sharding_rule = #sdy.op_sharding_rule<([i, j, k])->([i, l, m], [i, n], [i, o, p], [i, q, r], [i]) {i=2, j=6, k=4, l=6, m=4, n=4, o=6, p=6, q=4, r=4}, custom>} : (tensor<2x6x4xcomplex<f32>>) -> (tensor<2x6x4xcomplex<f32>>, tensor<2x4xf32>, tensor<2x6x6xcomplex<f32>>, tensor<2x4x4xcomplex<f32>>, tensor<2xi32>)
    %1 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<2xi32>
    %2 = stablehlo.compare EQ, %0#4, %1, SIGNED : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi1>
    %3 = stablehlo.broadcast_in_dim %2, dims = [0] : (tensor<2xi1>) -> tensor<2x1xi1>
    %4 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<2x4xf32>
    %5 = stablehlo.broadcast_in_dim %3, dims = [0, 1] : (tensor<2x1xi1>) -> tensor<2x4xi1>
    %6 = stablehlo.select %5, %0#1, %4 : tensor<2x4xi1>, tensor<2x4xf32>
    %7 = stablehlo.broadcast_in_dim %2, dims = [0] : (tensor<2xi1>) -> tensor<2x1x1xi1>
    %8 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<complex<f32>>) -> tensor<2x6x6xcomplex<f32>>
    %9 = stablehlo.broadcast_in_dim %7, dims = [0, 1, 2] : (tensor<2x1x1xi1>) -> tensor<2x6x6xi1>
    %10 = stablehlo.select %9, %0#2, %8 : tensor<2x6x6xi1>, tensor<2x6x6xcomplex<f32>>
    return %10, %6 : tensor<2x6x6xcomplex<f32>>, tensor<2x4xf32>
  }
  func.func private @svd_1(%arg0: tensor<3x5xcomplex<f32>>) -> (tensor<3x3xcomplex<f32>>, tensor<3xf32>, tensor<5x5xcomplex<f32>>) {
    %cst = stablehlo.constant dense<(0x7FC00000,0x7FC00000)> : tensor<complex<f32>>
    %cst_0 = stablehlo.constant dense<0x7FC00000> : tensor<f32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0:5 = stablehlo.custom_call @lapack_cgesdd_ffi(%arg0) {mhlo.backend_config = {mode = 65 : ui8}, mhlo.frontend_attributes = {num_batch_dims = "0"}, operand_layouts = [dense<[0, 1]> : tensor<2xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 0, operand_tuple_indices = []>], result_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<0> : tensor<1xindex>, dense<[0, 1]> : tensor<2xindex>, dense<[0, 1]> : tensor<2xindex>, dense<> : tensor<0xindex>], sdy.sharding_rule = #sdy.op_sharding_rule<([i, j])->([k, l], [m], [n, o], [p, q], []) {i=3, j=5, k=3, l=5, m=3, n=3, o=3, p=5, q=5}, custom>} : (tensor<3x5xcomplex<f32>>) -> (tensor<3x5xcomplex<f32>>, tensor<3xf32>, tensor<3x3xcomplex<f32>>, tensor<5x5xcomplex<f32>>, tensor<i32>)
    %1 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<i32>
    %2 = stablehlo.compare EQ, %0#4, %1, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %3 = stablehlo.broadcast_in_dim %2, dims = [] : (tensor<i1>) -> tensor<1xi1>
    %4 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<3xf32>
    %5 = stablehlo.broadcast_in_dim %3, dims = [0] : (tensor<1xi1>) -> tensor<3xi1>
    %6 = stablehlo.select %5, %0#1, %4 : tensor<3xi1>, tensor<3xf32>
    %7 = stablehlo.broadcast_in_dim %2, dims = [] : (tensor<i1>) -> tensor<1x1xi1>
    %8 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<complex<f32>>) -> tensor<3x3xcomplex<f32>>
    %9 = stablehlo.broadcast_in_dim %7, dims = [0, 1] : (tensor<1x1xi1>) -> tensor<3x3xi1>
    %10 = stablehlo.select %9, %0#2, %8 : tensor<3x3xi1>, tensor<3x3xcomplex<f32>>
    %11 = stablehlo.broadcast_in_dim %2, dims = [] : (tensor<i1>) -> tensor<1x1xi1>
    %12 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<complex<f32>>) -> tensor<5x5xcomplex<f32>>
    %13 = stablehlo.broadcast_in_dim %11, dims = [0, 1] : (tensor<1x1xi1>) -> tensor<5x5xi1>
    %14 = stablehlo.select %13, %0#3, %12 : tensor<5x5xi1>, tensor<5x5xcomplex<f32>>
    return %10, %6, %14 : tensor<3x3xcomplex<f32>>, tensor<3xf32>, tensor<5x5xcomplex<f32>>
  }
  func.func private @svd_2(%arg0: tensor<3x5xcomplex<f32>>) -> tensor<3xf32> {
    %cst = stablehlo.constant dense<0x7FC00000> : tensor<f32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0:5 = stablehlo.custom_call @lapack_cgesdd_ffi(%arg0) {mhlo.backend_config = {mode = 78 : ui8}, mhlo.frontend_attributes = {num_batch_dims = "0"}, operand_layouts = [dense<[0, 1]> : tensor<2xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 0, operand_tuple_indices = []>], result_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<0> : tensor<1xindex>, dense<[0, 1]> : tensor<2xindex>, dense<[0, 1]> : tensor<2xindex>, dense<> : tensor<0xindex>], sdy.sharding_rule = #sdy.op_sharding_rule<([i, j])->([k, l], [m], [n, o], [p, q], []) {i=3, j=5, k=3, l=5, m=3, n=3, o=3, p=5, q=5}, custom>} : (tensor<3x5xcomplex<f32>>) -> (tensor<3x5xcomplex<f32>>, tensor<3xf32>, tensor<3x3xcomplex<f32>>, tensor<5x5xcomplex<f32>>, tensor<i32>)
    %1 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<i32>
    %2 = stablehlo.compare EQ, %0#4, %1, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %3 = stablehlo.broadcast_in_dim %2, dims = [] : (tensor<i1>) -> tensor<1xi1>
    %4 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<3xf32>
    %5 = stablehlo.broadcast_in_dim %3, dims = [0] : (tensor<1xi1>) -> tensor<3xi1>
    %6 = stablehlo.select %5, %0#1, %4 : tensor<3xi1>, tensor<3xf32>
    return %6 : tensor<3xf32>
  }
  func.func private @_pinv(%arg0: tensor<6x4xcomplex<f32>>) -> tensor<4x6xcomplex<f32>> {
    %cst = stablehlo.constant dense<0x7F800000> : tensor<f32>
    %cst_0 = stablehlo.constant dense<1.1920929E-7> : tensor<f32>
    %cst_1 = stablehlo.constant dense<6.000000e+01> : tensor<f32>
    %0 = stablehlo.real %arg0 : (tensor<6x4xcomplex<f32>>) -> tensor<6x4xf32>
    %1 = stablehlo.imag %arg0 : (tensor<6x4xcomplex<f32>>) -> tensor<6x4xf32>
    %2 = stablehlo.negate %1 : tensor<6x4xf32>
    %3 = stablehlo.complex %0, %2 : tensor<6x4xcomplex<f32>>
    %4 = stablehlo.multiply %cst_1, %cst_0 : tensor<f32>
    %5:3 = call @svd_3(%3) : (tensor<6x4xcomplex<f32>>) -> (tensor<6x4xcomplex<f32>>, tensor<4xf32>, tensor<4x4xcomplex<f32>>)
    %6 = stablehlo.broadcast_in_dim %4, dims = [] : (tensor<f32>) -> tensor<1xf32>
    %7 = stablehlo.slice %5#1 [0:1] : (tensor<4xf32>) -> tensor<1xf32>
    %8 = stablehlo.multiply %6, %7 : tensor<1xf32>
    %9 = stablehlo.broadcast_in_dim %8, dims = [0] : (tensor<1xf32>) -> tensor<4xf32>
    %10 = stablehlo.compare GT, %5#1, %9, FLOAT : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
    %11 = call @_where(%10, %5#1, %cst) : (tensor<4xi1>, tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
    %12 = stablehlo.convert %11 : (tensor<4xf32>) -> tensor<4xcomplex<f32>>
    %13 = stablehlo.transpose %5#2, dims = [1, 0] : (tensor<4x4xcomplex<f32>>) -> tensor<4x4xcomplex<f32>>
    %14 = stablehlo.transpose %5#0, dims = [1, 0] : (tensor<6x4xcomplex<f32>>) -> tensor<4x6xcomplex<f32>>
    %15 = stablehlo.broadcast_in_dim %12, dims = [0] : (tensor<4xcomplex<f32>>) -> tensor<4x1xcomplex<f32>>
    %16 = stablehlo.broadcast_in_dim %15, dims = [0, 1] : (tensor<4x1xcomplex<f32>>) -> tensor<4x6xcomplex<f32>>
    %17 = stablehlo.divide %14, %16 : tensor<4x6xcomplex<f32>>
    %18 = stablehlo.dot_general %13, %17, contracting_dims = [1] x [0], precision = [HIGHEST, HIGHEST] : (tensor<4x4xcomplex<f32>>, tensor<4x6xcomplex<f32>>) -> tensor<4x6xcomplex<f32>>
    return %18 : tensor<4x6xcomplex<f32>>
  }
  func.func private @svd_3(%arg0: tensor<6x4xcomplex<f32>>) -> (tensor<6x4xcomplex<f32>>, tensor<4xf32>, tensor<4x4xcomplex<f32>>) {
    %cst = stablehlo.constant dense<(0x7FC00000,0x7FC00000)> : tensor<complex<f32>>
    %cst_0 = stablehlo.constant dense<0x7FC00000> : tensor<f32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0:5 = stablehlo.custom_call @lapack_cgesdd_ffi(%arg0) {mhlo.backend_config = {mode = 83 : ui8}, mhlo.frontend_attributes = {num_batch_dims = "0"}, operand_layouts = [dense<[0, 1]> : tensor<2xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 0, operand_tuple_indices = []>], result_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<0> : tensor<1xindex>, dense<[0, 1]> : tensor<2xindex>, dense<[0, 1]> : tensor<2xindex>, dense<> : tensor<0xindex>], sdy.sharding_rule = #sdy.op_sharding_rule<([i, j])->([k, l], [m], [n, o], [p, q], []) {i=6, j=4, k=6, l=4, m=4, n=6, o=4, p=4, q=4}, custom>} : (tensor<6x4xcomplex<f32>>) -> (tensor<6x4xcomplex<f32>>, tensor<4xf32>, tensor<6x4xcomplex<f32>>, tensor<4x4xcomplex<f32>>, tensor<i32>)
    %1 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<i32>
    %2 = stablehlo.compare EQ, %0#4, %1, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %3 = stablehlo.broadcast_in_dim %2, dims = [] : (tensor<i1>) -> tensor<1xi1>
    %4 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %5 = stablehlo.broadcast_in_dim %3, dims = [0] : (tensor<1xi1>) -> tensor<4xi1>
    %6 = stablehlo.select %5, %0#1, %4 : tensor<4xi1>, tensor<4xf32>
    %7 = stablehlo.broadcast_in_dim %2, dims = [] : (tensor<i1>) -> tensor<1x1xi1>
    %8 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<complex<f32>>) -> tensor<6x4xcomplex<f32>>
    %9 = stablehlo.broadcast_in_dim %7, dims = [0, 1] : (tensor<1x1xi1>) -> tensor<6x4xi1>
    %10 = stablehlo.select %9, %0#2, %8 : tensor<6x4xi1>, tensor<6x4xcomplex<f32>>
    %11 = stablehlo.broadcast_in_dim %2, dims = [] : (tensor<i1>) -> tensor<1x1xi1>
    %12 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<complex<f32>>) -> tensor<4x4xcomplex<f32>>
    %13 = stablehlo.broadcast_in_dim %11, dims = [0, 1] : (tensor<1x1xi1>) -> tensor<4x4xi1>
    %14 = stablehlo.select %13, %0#3, %12 : tensor<4x4xi1>, tensor<4x4xcomplex<f32>>
    return %10, %6, %14 : tensor<6x4xcomplex<f32>>, tensor<4xf32>, tensor<4x4xcomplex<f32>>
  }
  func.func private @_where(%arg0: tensor<4xi1>, %arg1: tensor<4xf32>, %arg2: tensor<f32>) -> tensor<4xf32> {
    %0 = stablehlo.convert %arg2 : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %0, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %2 = stablehlo.select %arg0, %arg1, %1 : tensor<4xi1>, tensor<4xf32>
    return %2 : tensor<4xf32>
  }
  func.func private @norm(%arg0: tensor<3x5xcomplex<f32>>) -> tensor<f32> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %cst_0 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %0 = call @svd_2(%arg0) : (tensor<3x5xcomplex<f32>>) -> tensor<3xf32>
    %1 = stablehlo.reduce(%0 init: %cst_0) applies stablehlo.maximum across dimensions = [0] : (tensor<3xf32>, tensor<f32>) -> tensor<f32>
    %2 = stablehlo.maximum %cst, %1 : tensor<f32>
    return %2 : tensor<f32>
  }
}
