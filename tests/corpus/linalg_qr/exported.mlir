module @jit_f attributes {jax.uses_shape_polymorphism = false, mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<2x6x4xf32>, %arg1: tensor<3x5xf32>, %arg2: tensor<5x4xf32>) -> (tensor<2x6x4xf32> {jax.result_info = "result[0]"}, tensor<2x4x4xf32> {jax.result_info = "result[1]"}, tensor<2x6x6xf32> {jax.result_info = "result[2]"}, tensor<2x6x4xf32> {jax.result_info = "result[3]"}, tensor<3x3xf32> {jax.result_info = "result[4]"}, tensor<3x5xf32> {jax.result_info = "result[5]"}, tensor<5x5xf32> {jax.result_info = "result[6]"}, tensor<5x4xf32> {jax.result_info = "result[7]"}, tensor<4xi32> {jax.result_info = "result[8]"}) {
    %0:2 = call @qr(%arg0) : (tensor<2x6x4xf32>) -> (tensor<2x6x4xf32>, tensor<2x4x4xf32>)
    %1:2 = call @qr_0(%arg0) : (tensor<2x6x4xf32>) -> (tensor<2x6x6xf32>, tensor<2x6x4xf32>)
    %2:2 = call @qr_1(%arg1) : (tensor<3x5xf32>) -> (tensor<3x3xf32>, tensor<3x5xf32>)
    %3:3 = call @_qr(%arg2) : (tensor<5x4xf32>) -> (tensor<5x5xf32>, tensor<5x4xf32>, tensor<4xi32>)
    return %0#0, %0#1, %1#0, %1#1, %2#0, %2#1, %3#0, %3#1, %3#2 : tensor<2x6x4xf32>, tensor<2x4x4xf32>, tensor<2x6x6xf32>, tensor<2x6x4xf32>, tensor<3x3xf32>, tensor<3x5xf32>, tensor<5x5xf32>, tensor<5x4xf32>, tensor<4xi32>
  }
  func.func private @qr(%arg0: tensor<2x6x4xf32>) -> (tensor<2x6x4xf32>, tensor<2x4x4xf32>) {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %c = stablehlo.constant dense<-1> : tensor<i32>
    %0:2 = stablehlo.custom_call @lapack_sgeqrf_ffi(%arg0) {mhlo.backend_config = {}, mhlo.frontend_attributes = {num_batch_dims = "1"}, operand_layouts = [dense<[1, 2, 0]> : tensor<3xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 0, operand_tuple_indices = []>], result_layouts = [dense<[1, 2, 0]> : tensor<3xindex>, dense<[1, 0]> : tensor<2xindex>], sdy.sharding_rule = #sdy.op_sharding_rule<([i, j, k])->([i, l, m], [i, n]) {i=2, j=6, k=4, l=6, m=4, n=4}, custom>} : (tensor<2x6x4xf32>) -> (tensor<2x6x4xf32>, tensor<2x4xf32>)
    %1 = stablehlo.custom_call @lapack_sorgqr_ffi(%0#0, %0#1) {mhlo.backend_config = {}, mhlo.frontend_attributes = {num_batch_dims = "1"}, operand_layouts = [dense<[1, 2, 0]> : tensor<3xindex>, dense<[1, 0]> : tensor<2xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [], operand_index = 0, operand_tuple_indices = []>], result_layouts = [dense<[1, 2, 0]> : tensor<3xindex>], sdy.sharding_rule = #sdy.op_sharding_rule<([i, j, k], [i, l])->([i, m, n]) {i=2, j=6, k=4, l=4, m=6, n=4}, custom>} : (tensor<2x6x4xf32>, tensor<2x4xf32>) -> tensor<2x6x4xf32>
    %2 = stablehlo.slice %0#0 [0:2, 0:4, 0:4] : (tensor<2x6x4xf32>) -> tensor<2x4x4xf32>
    %3 = stablehlo.iota dim = 0 : tensor<4x4xi32>
    %4 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<4x4xi32>
    %5 = stablehlo.add %3, %4 : tensor<4x4xi32>
    %6 = stablehlo.iota dim = 1 : tensor<4x4xi32>
    %7 = stablehlo.compare GE, %5, %6, SIGNED : (tensor<4x4xi32>, tensor<4x4xi32>) -> tensor<4x4xi1>
    %8 = stablehlo.broadcast_in_dim %7, dims = [1, 2] : (tensor<4x4xi1>) -> tensor<2x4x4xi1>
    %9 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<2x4x4xf32>
    %10 = stablehlo.select %8, %9, %2 : tensor<2x4x4xi1>, tensor<2x4x4xf32>
    return %1, %10 : tensor<2x6x4xf32>, tensor<2x4x4xf32>
  }
  func.func private @qr_0(%arg0: tensor<2x6x4xf32>) -> (tensor<2x6x6xf32>, tensor<2x6x4xf32>) {
    %c = stablehlo.constant dense<-1> : tensor<i32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0:2 = stablehlo.custom_call @lapack_sgeqrf_ffi(%arg0) {mhlo.backend_config = {}, mhlo.frontend_attributes = {num_batch_dims = "1"}, operand_layouts = [dense<[1, 2, 0]> : tensor<3xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 0, operand_tuple_indices = []>], result_layouts = [dense<[1, 2, 0]> : tensor<3xindex>, dense<[1, 0]> : tensor<2xindex>], sdy.sharding_rule = #sdy.op_sharding_rule<([i, j, k])->([i, l, m], [i, n]) {i=2, j=6, k=4, l=6, m=4, n=4}, custom>} : (tensor<2x6x4xf32>) -> (tensor<2x6x4xf32>, tensor<2x4xf32>)
    %1 = stablehlo.pad %0#0, %cst, low = [0, 0, 0], high = [0, 0, 2], interior = [0, 0, 0] : (tensor<2x6x4xf32>, tensor<f32>) -> tensor<2x6x6xf32>
    %2 = stablehlo.custom_call @lapack_sorgqr_ffi(%1, %0#1) {mhlo.backend_config = {}, mhlo.frontend_attributes = {num_batch_dims = "1"}, operand_layouts = [dense<[1, 2, 0]> : tensor<3xindex>, dense<[1, 0]> : tensor<2xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [], operand_index = 0, operand_tuple_indices = []>], result_layouts = [dense<[1, 2, 0]> : tensor<3xindex>], sdy.sharding_rule = #sdy.op_sharding_rule<([i, j, k], [i, l])->([i, m, n]) {i=2, j=6, k=6, l=4, m=6, n=6}, custom>} : (tensor<2x6x6xf32>, tensor<2x4xf32>) -> tensor<2x6x6xf32>
    %3 = stablehlo.iota dim = 0 : tensor<6x4xi32>
    %4 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<6x4xi32>
    %5 = stablehlo.add %3, %4 : tensor<6x4xi32>
    %6 = stablehlo.iota dim = 1 : tensor<6x4xi32>
    %7 = stablehlo.compare GE, %5, %6, SIGNED : (tensor<6x4xi32>, tensor<6x4xi32>) -> tensor<6x4xi1>
    %8 = stablehlo.broadcast_in_dim %7, dims = [1, 2] : (tensor<6x4xi1>) -> tensor<2x6x4xi1>
    %9 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<2x6x4xf32>
    %10 = stablehlo.select %8, %9, %0#0 : tensor<2x6x4xi1>, tensor<2x6x4xf32>
    return %2, %10 : tensor<2x6x6xf32>, tensor<2x6x4xf32>
  }
  func.func private @qr_1(%arg0: tensor<3x5xf32>) -> (tensor<3x3xf32>, tensor<3x5xf32>) {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %c = stablehlo.constant dense<-1> : tensor<i32>
    %0:2 = stablehlo.custom_call @lapack_sgeqrf_ffi(%arg0) {mhlo.backend_config = {}, mhlo.frontend_attributes = {num_batch_dims = "0"}, operand_layouts = [dense<[0, 1]> : tensor<2xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 0, operand_tuple_indices = []>], result_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<0> : tensor<1xindex>], sdy.sharding_rule = #sdy.op_sharding_rule<([i, j])->([k, l], [m]) {i=3, j=5, k=3, l=5, m=3}, custom>} : (tensor<3x5xf32>) -> (tensor<3x5xf32>, tensor<3xf32>)
    %1 = stablehlo.slice %0#0 [0:3, 0:3] : (tensor<3x5xf32>) -> tensor<3x3xf32>
    %2 = stablehlo.custom_call @lapack_sorgqr_ffi(%1, %0#1) {mhlo.backend_config = {}, mhlo.frontend_attributes = {num_batch_dims = "0"}, operand_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<0> : tensor<1xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [], operand_index = 0, operand_tuple_indices = []>], result_layouts = [dense<[0, 1]> : tensor<2xindex>], sdy.sharding_rule = #sdy.op_sharding_rule<([i, j], [k])->([l, m]) {i=3, j=3, k=3, l=3, m=3}, custom>} : (tensor<3x3xf32>, tensor<3xf32>) -> tensor<3x3xf32>
    %3 = stablehlo.iota dim = 0 : tensor<3x5xi32>
    %4 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<3x5xi32>
    %5 = stablehlo.add %3, %4 : tensor<3x5xi32>
    %6 = stablehlo.iota dim = 1 : tensor<3x5xi32>
    %7 = stablehlo.compare GE, %5, %6, SIGNED : (tensor<3x5xi32>, tensor<3x5xi32>) -> tensor<3x5xi1>
    %8 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<3x5xf32>
    %9 = stablehlo.select %7, %8, %0#0 : tensor<3x5xi1>, tensor<3x5xf32>
    return %2, %9 : tensor<3x3xf32>, tensor<3x5xf32>
  }
  func.func private @_qr(%arg0: tensor<5x4xf32>) -> (tensor<5x5xf32>, tensor<5x4xf32>, tensor<4xi32>) {
    %c = stablehlo.constant dense<-1> : tensor<i32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %c_0 = stablehlo.constant dense<1> : tensor<i32>
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.broadcast_in_dim %c_1, dims = [] : (tensor<i32>) -> tensor<4xi32>
    %1:3 = stablehlo.custom_call @lapack_sgeqp3_ffi(%arg0, %0) {mhlo.backend_config = {}, mhlo.frontend_attributes = {num_batch_dims = "0"}, operand_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<0> : tensor<1xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 0, operand_tuple_indices = []>, #stablehlo.output_operand_alias<output_tuple_indices = [1], operand_index = 1, operand_tuple_indices = []>], result_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<0> : tensor<1xindex>, dense<0> : tensor<1xindex>], sdy.sharding_rule = #sdy.op_sharding_rule<([i, j], [k])->([l, m], [n], [o]) {i=5, j=4, k=4, l=5, m=4, n=4, o=4}, custom>} : (tensor<5x4xf32>, tensor<4xi32>) -> (tensor<5x4xf32>, tensor<4xi32>, tensor<4xf32>)
    %2 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i32>) -> tensor<4xi32>
    %3 = stablehlo.subtract %1#1, %2 : tensor<4xi32>
    %4 = stablehlo.pad %1#0, %cst, low = [0, 0], high = [0, 1], interior = [0, 0] : (tensor<5x4xf32>, tensor<f32>) -> tensor<5x5xf32>
    %5 = stablehlo.custom_call @lapack_sorgqr_ffi(%4, %1#2) {mhlo.backend_config = {}, mhlo.frontend_attributes = {num_batch_dims = "0"}, operand_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<0> : tensor<1xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [], operand_index = 0, operand_tuple_indices = []>], result_layouts = [dense<[0, 1]> : tensor<2xindex>], sdy.sharding_rule = #sdy.op_sharding_rule<([i, j], [k])->([l, m]) {i=5, j=5, k=4, l=5, m=5}, custom>} : (tensor<5x5xf32>, tensor<4xf32>) -> tensor<5x5xf32>
    %6 = stablehlo.iota dim = 0 : tensor<5x4xi32>
    %7 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<5x4xi32>
    %8 = stablehlo.add %6, %7 : tensor<5x4xi32>
    %9 = stablehlo.iota dim = 1 : tensor<5x4xi32>
    %10 = stablehlo.compare GE, %8, %9, SIGNED : (tensor<5x4xi32>, tensor<5x4xi32>) -> tensor<5x4xi1>
    %11 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<5x4xf32>
    %12 = stablehlo.select %10, %11, %1#0 : tensor<5x4xi1>, tensor<5x4xf32>
    return %5, %12, %3 : tensor<5x5xf32>, tensor<5x4xf32>, tensor<4xi32>
  }
}
