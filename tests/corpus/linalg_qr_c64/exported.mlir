module @jit_f attributes {jax.uses_shape_polymorphism = false, mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<2x6x4xcomplex<f32>>, %arg1: tensor<3x5xcomplex<f32>>) -> (tensor<2x6x4xcomplex<f32>> {jax.result_info = "result[0]"}, tensor<2x4x4xcomplex<f32>> {jax.result_info = "result[1]"}, tensor<2x6x6xcomplex<f32>> {jax.result_info = "result[2]"}, tensor<2x6x4xcomplex<f32>> {jax.result_info = "result[3]"}, tensor<3x3xcomplex<f32>> {jax.result_info = "result[4]"}, tensor<3x5xcomplex<f32>> {jax.result_info = "result[5]"}) {
    %0:2 = call @qr(%arg0) : (tensor<2x6x4xcomplex<f32>>) -> (tensor<2x6x4xcomplex<f32>>, tensor<2x4x4xcomplex<f32>>)
    %1:2 = call @qr_0(%arg0) : (tensor<2x6x4xcomplex<f32>>) -> (tensor<2x6x6xcomplex<f32>>, tensor<2x6x4xcomplex<f32>>)
    %2:2 = call @qr_1(%arg1) : (tensor<3x5xcomplex<f32>>) -> (tensor<3x3xcomplex<f32>>, tensor<3x5xcomplex<f32>>)
    return %0#0, %0#1, %1#0, %1#1, %2#0, %2#1 : tensor<2x6x4xcomplex<f32>>, tensor<2x4x4xcomplex<f32>>, tensor<2x6x6xcomplex<f32>>, tensor<2x6x4xcomplex<f32>>, tensor<3x3xcomplex<f32>>, tensor<3x5xcomplex<f32>>
  }
  func.func private @qr(%arg0: tensor<2x6x4xcomplex<f32>>) -> (tensor<2x6x4xcomplex<f32>>, tensor<2x4x4xcomplex<f32>>) {
    %cst = stablehlo.constant dense<(0.000000e+00,0.000000e+00)> : tensor<complex<f32>>
    %c = stablehlo.constant dense<-1> : tensor<i32>
    %0:2 = stablehlo.custom_call @lapack_cgeqrf_ffi(%arg0) {mhlo.backend_config = {}, mhlo.frontend_attributes = {num_batch_dims = "1"}, operand_layouts = [dense<[1, 2, 0]> : tensor<3xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 0, operand_tuple_indices = []>], result_layouts = [dense<[1, 2, 0]> : tensor<3xindex>, dense<[1, 0]> : tensor<2xindex>], sdy.sharding_rule = #sdy.op_sharding_rule<([i, j, k])->([i, l, m], [i, n]) {i=2, j=6, k=4, l=6, m=4, n=4}, custom>} : (tensor<2x6x4xcomplex<f32>>) -> (tensor<2x6x4xcomplex<f32>>, tensor<2x4xcomplex<f32>>)
    %1 = stablehlo.custom_call @lapack_cungqr_ffi(%0#0, %0#1) {mhlo.backend_config = {}, mhlo.frontend_attributes = {num_batch_dims = "1"}, operand_layouts = [dense<[1, 2, 0]> : tensor<3xindex>, dense<[1, 0]> : tensor<2xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [], operand_index = 0, operand_tuple_indices = []>], result_layouts = [dense<[1, 2, 0]> : tensor<3xindex>], sdy.sharding_rule = #sdy.op_sharding_rule<([i, j, k], [i, l])->([i, m, n]) {i=2, j=6, k=4, l=4, m=6, n=4}, custom>} : (tensor<2x6x4xcomplex<f32>>, tensor<2x4xcomplex<f32>>) -> tensor<2x6x4xcomplex<f32>>
    %2 = stablehlo.slice %0#0 [0:2, 0:4, 0:4] : (tensor<2x6x4xcomplex<f32>>) -> tensor<2x4x4xcomplex<f32>>
    %3 = stablehlo.iota dim = 0 : tensor<4x4xi32>
    %4 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<4x4xi32>
    %5 = stablehlo.add %3, %4 : tensor<4x4xi32>
    %6 = stablehlo.iota dim = 1 : tensor<4x4xi32>
    %7 = stablehlo.compare GE, %5, %6, SIGNED : (tensor<4x4xi32>, tensor<4x4xi32>) -> tensor<4x4xi1>
    %8 = stablehlo.broadcast_in_dim %7, dims = [1, 2] : (tensor<4x4xi1>) -> tensor<2x4x4xi1>
    %9 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<complex<f32>>) -> tensor<2x4x4xcomplex<f32>>
    %10 = stablehlo.select %8, %9, %2 : tensor<2x4x4xi1>, tensor<2x4x4xcomplex<f32>>
    return %1, %10 : tensor<2x6x4xcomplex<f32>>, tensor<2x4x4xcomplex<f32>>
  }
  func.func private @qr_0(%arg0: tensor<2x6x4xcomplex<f32>>) -> (tensor<2x6x6xcomplex<f32>>, tensor<2x6x4xcomplex<f32>>) {
    %c = stablehlo.constant dense<-1> : tensor<i32>
    %cst = stablehlo.constant dense<(0.000000e+00,0.000000e+00)> : tensor<complex<f32>>
    %0:2 = stablehlo.custom_call @lapack_cgeqrf_ffi(%arg0) {mhlo.backend_config = {}, mhlo.frontend_attributes = {num_batch_dims = "1"}, operand_layouts = [dense<[1, 2, 0]> : tensor<3xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 0, operand_tuple_indices = []>], result_layouts = [dense<[1, 2, 0]> : tensor<3xindex>, dense<[1, 0]> : tensor<2xindex>], sdy.sharding_rule = #sdy.op_sharding_rule<([i, j, k])->([i, l, m], [i, n]) {i=2, j=6, k=4, l=6, m=4, n=4}, custom>} : (tensor<2x6x4xcomplex<f32>>) -> (tensor<2x6x4xcomplex<f32>>, tensor<2x4xcomplex<f32>>)
    %1 = stablehlo.pad %0#0, %cst, low = [0, 0, 0], high = [0, 0, 2], interior = [0, 0, 0] : (tensor<2x6x4xcomplex<f32>>, tensor<complex<f32>>) -> tensor<2x6x6xcomplex<f32>>
    %2 = stablehlo.custom_call @lapack_cungqr_ffi(%1, %0#1) {mhlo.backend_config = {}, mhlo.frontend_attributes = {num_batch_dims = "1"}, operand_layouts = [dense<[1, 2, 0]> : tensor<3xindex>, dense<[1, 0]> : tensor<2xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [], operand_index = 0, operand_tuple_indices = []>], result_layouts = [dense<[1, 2, 0]> : tensor<3xindex>], sdy.sharding_rule = #sdy.op_sharding_rule<([i, j, k], [i, l])->([i, m, n]) {i=2, j=6, k=6, l=4, m=6, n=6}, custom>} : (tensor<2x6x6xcomplex<f32>>, tensor<2x4xcomplex<f32>>) -> tensor<2x6x6xcomplex<f32>>
    %3 = stablehlo.iota dim = 0 : tensor<6x4xi32>
    %4 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<6x4xi32>
    %5 = stablehlo.add %3, %4 : tensor<6x4xi32>
    %6 = stablehlo.iota dim = 1 : tensor<6x4xi32>
    %7 = stablehlo.compare GE, %5, %6, SIGNED : (tensor<6x4xi32>, tensor<6x4xi32>) -> tensor<6x4xi1>
    %8 = stablehlo.broadcast_in_dim %7, dims = [1, 2] : (tensor<6x4xi1>) -> tensor<2x6x4xi1>
    %9 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<complex<f32>>) -> tensor<2x6x4xcomplex<f32>>
    %10 = stablehlo.select %8, %9, %0#0 : tensor<2x6x4xi1>, tensor<2x6x4xcomplex<f32>>
    return %2, %10 : tensor<2x6x6xcomplex<f32>>, tensor<2x6x4xcomplex<f32>>
  }
  func.func private @qr_1(%arg0: tensor<3x5xcomplex<f32>>) -> (tensor<3x3xcomplex<f32>>, tensor<3x5xcomplex<f32>>) {
    %cst = stablehlo.constant dense<(0.000000e+00,0.000000e+00)> : tensor<complex<f32>>
    %c = stablehlo.constant dense<-1> : tensor<i32>
    %0:2 = stablehlo.custom_call @lapack_cgeqrf_ffi(%arg0) {mhlo.backend_config = {}, mhlo.frontend_attributes = {num_batch_dims = "0"}, operand_layouts = [dense<[0, 1]> : tensor<2xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 0, operand_tuple_indices = []>], result_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<0> : tensor<1xindex>], sdy.sharding_rule = #sdy.op_sharding_rule<([i, j])->([k, l], [m]) {i=3, j=5, k=3, l=5, m=3}, custom>} : (tensor<3x5xcomplex<f32>>) -> (tensor<3x5xcomplex<f32>>, tensor<3xcomplex<f32>>)
    %1 = stablehlo.slice %0#0 [0:3, 0:3] : (tensor<3x5xcomplex<f32>>) -> tensor<3x3xcomplex<f32>>
    %2 = stablehlo.custom_call @lapack_cungqr_ffi(%1, %0#1) {mhlo.backend_config = {}, mhlo.frontend_attributes = {num_batch_dims = "0"}, operand_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<0> : tensor<1xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [], operand_index = 0, operand_tuple_indices = []>], result_layouts = [dense<[0, 1]> : tensor<2xindex>], sdy.sharding_rule = #sdy.op_sharding_rule<([i, j], [k])->([l, m]) {i=3, j=3, k=3, l=3, m=3}, custom>} : (tensor<3x3xcomplex<f32>>, tensor<3xcomplex<f32>>) -> tensor<3x3xcomplex<f32>>
    %3 = stablehlo.iota dim = 0 : tensor<3x5xi32>
    %4 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<3x5xi32>
    %5 = stablehlo.add %3, %4 : tensor<3x5xi32>
    %6 = stablehlo.iota dim = 1 : tensor<3x5xi32>
    %7 = stablehlo.compare GE, %5, %6, SIGNED : (tensor<3x5xi32>, tensor<3x5xi32>) -> tensor<3x5xi1>
    %8 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<complex<f32>>) -> tensor<3x5xcomplex<f32>>
    %9 = stablehlo.select %7, %8, %0#0 : tensor<3x5xi1>, tensor<3x5xcomplex<f32>>
    return %2, %9 : tensor<3x3xcomplex<f32>>, tensor<3x5xcomplex<f32>>
  }
}
