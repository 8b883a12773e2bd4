module @jit_f attributes {jax.uses_shape_polymorphism = false, mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<2x5x5xf32>) -> (tensor<2x5xf32> {jax.result_info = "result[0]"}, tensor<2x5x5xf32> {jax.result_info = "result[1]"}, tensor<2x5x5xf32> {jax.result_info = "result[2]"}, tensor<2x5xf32> {jax.result_info = "result[3]"}, tensor<2x5x5xf32> {jax.result_info = "result[4]"}, tensor<2x5xf32> {jax.result_info = "result[5]"}, tensor<2x5x5xf32> {jax.result_info = "result[6]"}) {
    %0:2 = call @eigh(%arg0) : (tensor<2x5x5xf32>) -> (tensor<2x5xf32>, tensor<2x5x5xf32>)
    %1:2 = call @eigh_0(%arg0) : (tensor<2x5x5xf32>) -> (tensor<2x5xf32>, tensor<2x5x5xf32>)
    %2 = stablehlo.broadcast_in_dim %0#0, dims = [0, 2] : (tensor<2x5xf32>) -> tensor<2x1x5xf32>
    %3 = stablehlo.broadcast_in_dim %2, dims = [0, 1, 2] : (tensor<2x1x5xf32>) -> tensor<2x5x5xf32>
    %4 = stablehlo.multiply %0#1, %3 : tensor<2x5x5xf32>
    %5 = stablehlo.transpose %0#1, dims = [0, 2, 1] : (tensor<2x5x5xf32>) -> tensor<2x5x5xf32>
    %6 = stablehlo.dot_general %4, %5, batching_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<2x5x5xf32>, tensor<2x5x5xf32>) -> tensor<2x5x5xf32>
    %7 = stablehlo.abs %0#1 : tensor<2x5x5xf32>
    %8 = stablehlo.abs %1#1 : tensor<2x5x5xf32>
    %9 = call @eigvalsh(%arg0) : (tensor<2x5x5xf32>) -> tensor<2x5xf32>
    %10 = stablehlo.transpose %0#1, dims = [0, 2, 1] : (tensor<2x5x5xf32>) -> tensor<2x5x5xf32>
    %11 = stablehlo.dot_general %10, %0#1, batching_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<2x5x5xf32>, tensor<2x5x5xf32>) -> tensor<2x5x5xf32>
    return %0#0, %6, %7, %1#0, %8, %9, %11 : tensor<2x5xf32>, tensor<2x5x5xf32>, tensor<2x5x5xf32>, tensor<2x5xf32>, tensor<2x5x5xf32>, tensor<2x5xf32>, tensor<2x5x5xf32>
  }
  func.func private @eigh(%arg0: tensor<2x5x5xf32>) -> (tensor<2x5xf32>, tensor<2x5x5xf32>) {
    %cst = stablehlo.constant dense<0x7FC00000> : tensor<f32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %cst_0 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %0 = stablehlo.transpose %arg0, dims = [0, 2, 1] : (tensor<2x5x5xf32>) -> tensor<2x5x5xf32>
    %1 = stablehlo.add %arg0, %0 : tensor<2x5x5xf32>
    %2 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<2x5x5xf32>
    %3 = stablehlo.divide %1, %2 : tensor<2x5x5xf32>
    %4:3 = stablehlo.custom_call @lapack_ssyevd_ffi(%3) {mhlo.backend_config = {mode = 86 : ui8, uplo = 76 : ui8}, mhlo.frontend_attributes = {num_batch_dims = "1"}, operand_layouts = [dense<[1, 2, 0]> : tensor<3xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 0, operand_tuple_indices = []>], result_layouts = [dense<[1, 2, 0]> : tensor<3xindex>, dense<[1, 0]> : tensor<2xindex>, dense<0> : tensor<1xindex>], sdy.sharding_rule = #sdy.op_sharding_rule<([i, j, k])->([i, l, m], [i, n], [i]) {i=2, j=5, k=5, l=5, m=5, n=5}, custom>} : (tensor<2x5x5xf32>) -> (tensor<2x5x5xf32>, tensor<2x5xf32>, tensor<2xi32>)
    %5 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<2xi32>
    %6 = stablehlo.compare EQ, %4#2, %5, SIGNED : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi1>
    %7 = stablehlo.broadcast_in_dim %6, dims = [0] : (tensor<2xi1>) -> tensor<2x1x1xi1>
    %8 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<2x5x5xf32>
    %9 = stablehlo.broadcast_in_dim %7, dims = [0, 1, 2] : (tensor<2x1x1xi1>) -> tensor<2x5x5xi1>
    %10 = stablehlo.select %9, %4#0, %8 : tensor<2x5x5xi1>, tensor<2x5x5xf32>
    %11 = stablehlo.broadcast_in_dim %6, dims = [0] : (tensor<2xi1>) -> tensor<2x1xi1>
    %12 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<2x5xf32>
    %13 = stablehlo.broadcast_in_dim %11, dims = [0, 1] : (tensor<2x1xi1>) -> tensor<2x5xi1>
    %14 = stablehlo.select %13, %4#1, %12 : tensor<2x5xi1>, tensor<2x5xf32>
    return %14, %10 : tensor<2x5xf32>, tensor<2x5x5xf32>
  }
  func.func private @eigh_0(%arg0: tensor<2x5x5xf32>) -> (tensor<2x5xf32>, tensor<2x5x5xf32>) {
    %cst = stablehlo.constant dense<0x7FC00000> : tensor<f32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %cst_0 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %0 = stablehlo.transpose %arg0, dims = [0, 2, 1] : (tensor<2x5x5xf32>) -> tensor<2x5x5xf32>
    %1 = stablehlo.add %arg0, %0 : tensor<2x5x5xf32>
    %2 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<2x5x5xf32>
    %3 = stablehlo.divide %1, %2 : tensor<2x5x5xf32>
    %4:3 = stablehlo.custom_call @lapack_ssyevd_ffi(%3) {mhlo.backend_config = {mode = 86 : ui8, uplo = 85 : ui8}, mhlo.frontend_attributes = {num_batch_dims = "1"}, operand_layouts = [dense<[1, 2, 0]> : tensor<3xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 0, operand_tuple_indices = []>], result_layouts = [dense<[1, 2, 0]> : tensor<3xindex>, dense<[1, 0]> : tensor<2xindex>, dense<0> : tensor<1xindex>], sdy.sharding_rule = #sdy.op_sharding_rule<([i, j, k])->([i, l, m], [i, n], [i]) {i=2, j=5, k=5, l=5, m=5, n=5}, custom>} : (tensor<2x5x5xf32>) -> (tensor<2x5x5xf32>, tensor<2x5xf32>, tensor<2xi32>)
    %5 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<2xi32>
    %6 = stablehlo.compare EQ, %4#2, %5, SIGNED : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi1>
    %7 = stablehlo.broadcast_in_dim %6, dims = [0] : (tensor<2xi1>) -> tensor<2x1x1xi1>
    %8 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<2x5x5xf32>
    %9 = stablehlo.broadcast_in_dim %7, dims = [0, 1, 2] : (tensor<2x1x1xi1>) -> tensor<2x5x5xi1>
    %10 = stablehlo.select %9, %4#0, %8 : tensor<2x5x5xi1>, tensor<2x5x5xf32>
    %11 = stablehlo.broadcast_in_dim %6, dims = [0] : (tensor<2xi1>) -> tensor<2x1xi1>
    %12 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<2x5xf32>
    %13 = stablehlo.broadcast_in_dim %11, dims = [0, 1] : (tensor<2x1xi1>) -> tensor<2x5xi1>
    %14 = stablehlo.select %13, %4#1, %12 : tensor<2x5xi1>, tensor<2x5xf32>
    return %14, %10 : tensor<2x5xf32>, tensor<2x5x5xf32>
  }
  func.func private @eigvalsh(%arg0: tensor<2x5x5xf32>) -> tensor<2x5xf32> {
    %0 = call @eigh_1(%arg0) : (tensor<2x5x5xf32>) -> tensor<2x5xf32>
    return %0 : tensor<2x5xf32>
  }
  func.func private @eigh_1(%arg0: tensor<2x5x5xf32>) -> tensor<2x5xf32> {
    %cst = stablehlo.constant dense<0x7FC00000> : tensor<f32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %cst_0 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %0 = stablehlo.transpose %arg0, dims = [0, 2, 1] : (tensor<2x5x5xf32>) -> tensor<2x5x5xf32>
    %1 = stablehlo.add %arg0, %0 : tensor<2x5x5xf32>
    %2 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<2x5x5xf32>
    %3 = stablehlo.divide %1, %2 : tensor<2x5x5xf32>
    %4:3 = stablehlo.custom_call @lapack_ssyevd_ffi(%3) {mhlo.backend_config = {mode = 86 : ui8, uplo = 76 : ui8}, mhlo.frontend_attributes = {num_batch_dims = "1"}, operand_layouts = [dense<[1, 2, 0]> : tensor<3xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 0, operand_tuple_indices = []>], result_layouts = [dense<[1, 2, 0]> : tensor<3xindex>, dense<[1, 0]> : tensor<2xindex>, dense<0> : tensor<1xindex>], sdy.sharding_rule = #sdy.op_sharding_rule<([i, j, k])->([i, l, m], [i, n], [i]) {i=2, j=5, k=5, l=5, m=5, n=5}, custom>} : (tensor<2x5x5xf32>) -> (tensor<2x5x5xf32>, tensor<2x5xf32>, tensor<2xi32>)
    %5 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<2xi32>
    %6 = stablehlo.compare EQ, %4#2, %5, SIGNED : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi1>
    %7 = stablehlo.broadcast_in_dim %6, dims = [0] : (tensor<2xi1>) -> tensor<2x1xi1>
    %8 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<2x5xf32>
    %9 = stablehlo.broadcast_in_dim %7, dims = [0, 1] : (tensor<2x1xi1>) -> tensor<2x5xi1>
    %10 = stablehlo.select %9, %4#1, %8 : tensor<2x5xi1>, tensor<2x5xf32>
    return %10 : tensor<2x5xf32>
  }
}
