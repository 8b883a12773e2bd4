module @jit_f attributes {jax.uses_shape_polymorphism = false, mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<5x5xf32>, %arg1: tensor<2x4x4xf32>, %arg2: tensor<2x5x5xf32>, %arg3: tensor<6x4xf32>) -> (tensor<5x5xf32> {jax.result_info = "result[0]"}, tensor<5x5xf32> {jax.result_info = "result[1]"}, tensor<2x4x4xf32> {jax.result_info = "result[2]"}, tensor<2x3xf32> {jax.result_info = "result[3]"}, tensor<2x5x5xf32> {jax.result_info = "result[4]"}, tensor<2x5xf32> {jax.result_info = "result[5]"}, tensor<2x4xf32> {jax.result_info = "result[6]"}, tensor<2x4xf32> {jax.result_info = "result[7]"}, tensor<2x5x5xf32> {jax.result_info = "result[8]"}, tensor<2x5xf32> {jax.result_info = "result[9]"}, tensor<2x4xf32> {jax.result_info = "result[10]"}, tensor<2x4xf32> {jax.result_info = "result[11]"}, tensor<6x4xf32> {jax.result_info = "result[12]"}, tensor<4x4xf32> {jax.result_info = "result[13]"}, tensor<4xi32> {jax.result_info = "result[14]"}) {
    %cst = stablehlo.constant dense<0x7FC00000> : tensor<f32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0:2 = call @hessenberg(%arg0) : (tensor<5x5xf32>) -> (tensor<5x5xf32>, tensor<5x5xf32>)
    %1:3 = stablehlo.custom_call @lapack_sgehrd_ffi(%arg1) {mhlo.backend_config = {high = 4 : i32, low = 1 : i32}, mhlo.frontend_attributes = {num_batch_dims = "1"}, operand_layouts = [dense<[1, 2, 0]> : tensor<3xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 0, operand_tuple_indices = []>], result_layouts = [dense<[1, 2, 0]> : tensor<3xindex>, dense<[1, 0]> : tensor<2xindex>, dense<0> : tensor<1xindex>], sdy.sharding_rule = #sdy.op_sharding_rule<([i, j, k])->([i, l, m], [i, n], [i]) {i=2, j=4, k=4, l=4, m=4, n=3}, custom>} : (tensor<2x4x4xf32>) -> (tensor<2x4x4xf32>, tensor<2x3xf32>, tensor<2xi32>)
    %2 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<2xi32>
    %3 = stablehlo.compare EQ, %1#2, %2, SIGNED : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi1>
    %4 = stablehlo.broadcast_in_dim %3, dims = [0] : (tensor<2xi1>) -> tensor<2x1x1xi1>
    %5 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<2x4x4xf32>
    %6 = stablehlo.broadcast_in_dim %4, dims = [0, 1, 2] : (tensor<2x1x1xi1>) -> tensor<2x4x4xi1>
    %7 = stablehlo.select %6, %1#0, %5 : tensor<2x4x4xi1>, tensor<2x4x4xf32>
    %8 = stablehlo.broadcast_in_dim %3, dims = [0] : (tensor<2xi1>) -> tensor<2x1xi1>
    %9 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<2x3xf32>
    %10 = stablehlo.broadcast_in_dim %8, dims = [0, 1] : (tensor<2x1xi1>) -> tensor<2x3xi1>
    %11 = stablehlo.select %10, %1#1, %9 : tensor<2x3xi1>, tensor<2x3xf32>
    %12:5 = stablehlo.custom_call @lapack_ssytrd_ffi(%arg2) {mhlo.backend_config = {uplo = 76 : ui8}, mhlo.frontend_attributes = {num_batch_dims = "1"}, operand_layouts = [dense<[1, 2, 0]> : tensor<3xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 0, operand_tuple_indices = []>], result_layouts = [dense<[1, 2, 0]> : tensor<3xindex>, dense<[1, 0]> : tensor<2xindex>, dense<[1, 0]> : tensor<2xindex>, dense<[1, 0]> : tensor<2xindex>, dense<0> : tensor<1xindex>], sdy.sharding_rule = #sdy.op_sharding_rule<([i, j, k])->([i, l, m], [i, n], [i, o], [i, p], [i]) {i=2, j=5, k=5, l=5, m=5, n=5, o=4, p=4}, custom>} : (tensor<2x5x5xf32>) -> (tensor<2x5x5xf32>, tensor<2x5xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<2xi32>)
    %13 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<2xi32>
    %14 = stablehlo.compare EQ, %12#4, %13, SIGNED : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi1>
    %15 = stablehlo.broadcast_in_dim %14, dims = [0] : (tensor<2xi1>) -> tensor<2x1x1xi1>
    %16 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<2x5x5xf32>
    %17 = stablehlo.broadcast_in_dim %15, dims = [0, 1, 2] : (tensor<2x1x1xi1>) -> tensor<2x5x5xi1>
    %18 = stablehlo.select %17, %12#0, %16 : tensor<2x5x5xi1>, tensor<2x5x5xf32>
    %19 = stablehlo.broadcast_in_dim %14, dims = [0] : (tensor<2xi1>) -> tensor<2x1xi1>
    %20 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<2x5xf32>
    %21 = stablehlo.broadcast_in_dim %19, dims = [0, 1] : (tensor<2x1xi1>) -> tensor<2x5xi1>
    %22 = stablehlo.select %21, %12#1, %20 : tensor<2x5xi1>, tensor<2x5xf32>
    %23 = stablehlo.broadcast_in_dim %14, dims = [0] : (tensor<2xi1>) -> tensor<2x1xi1>
    %24 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<2x4xf32>
    %25 = stablehlo.broadcast_in_dim %23, dims = [0, 1] : (tensor<2x1xi1>) -> tensor<2x4xi1>
    %26 = stablehlo.select %25, %12#2, %24 : tensor<2x4xi1>, tensor<2x4xf32>
    %27 = stablehlo.broadcast_in_dim %14, dims = [0] : (tensor<2xi1>) -> tensor<2x1xi1>
    %28 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<2x4xf32>
    %29 = stablehlo.broadcast_in_dim %27, dims = [0, 1] : (tensor<2x1xi1>) -> tensor<2x4xi1>
    %30 = stablehlo.select %29, %12#3, %28 : tensor<2x4xi1>, tensor<2x4xf32>
    %31:5 = stablehlo.custom_call @lapack_ssytrd_ffi(%arg2) {mhlo.backend_config = {uplo = 85 : ui8}, mhlo.frontend_attributes = {num_batch_dims = "1"}, operand_layouts = [dense<[1, 2, 0]> : tensor<3xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 0, operand_tuple_indices = []>], result_layouts = [dense<[1, 2, 0]> : tensor<3xindex>, dense<[1, 0]> : tensor<2xindex>, dense<[1, 0]> : tensor<2xindex>, dense<[1, 0]> : tensor<2xindex>, dense<0> : tensor<1xindex>], sdy.sharding_rule = #sdy.op_sharding_rule<([i, j, k])->([i, l, m], [i, n], [i, o], [i, p], [i]) {i=2, j=5, k=5, l=5, m=5, n=5, o=4, p=4}, custom>} : (tensor<2x5x5xf32>) -> (tensor<2x5x5xf32>, tensor<2x5xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<2xi32>)
    %32 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<2xi32>
    %33 = stablehlo.compare EQ, %31#4, %32, SIGNED : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi1>
    %34 = stablehlo.broadcast_in_dim %33, dims = [0] : (tensor<2xi1>) -> tensor<2x1x1xi1>
    %35 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<2x5x5xf32>
    %36 = stablehlo.broadcast_in_dim %34, dims = [0, 1, 2] : (tensor<2x1x1xi1>) -> tensor<2x5x5xi1>
    %37 = stablehlo.select %36, %31#0, %35 : tensor<2x5x5xi1>, tensor<2x5x5xf32>
    %38 = stablehlo.broadcast_in_dim %33, dims = [0] : (tensor<2xi1>) -> tensor<2x1xi1>
    %39 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<2x5xf32>
    %40 = stablehlo.broadcast_in_dim %38, dims = [0, 1] : (tensor<2x1xi1>) -> tensor<2x5xi1>
    %41 = stablehlo.select %40, %31#1, %39 : tensor<2x5xi1>, tensor<2x5xf32>
    %42 = stablehlo.broadcast_in_dim %33, dims = [0] : (tensor<2xi1>) -> tensor<2x1xi1>
    %43 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<2x4xf32>
    %44 = stablehlo.broadcast_in_dim %42, dims = [0, 1] : (tensor<2x1xi1>) -> tensor<2x4xi1>
    %45 = stablehlo.select %44, %31#2, %43 : tensor<2x4xi1>, tensor<2x4xf32>
    %46 = stablehlo.broadcast_in_dim %33, dims = [0] : (tensor<2xi1>) -> tensor<2x1xi1>
    %47 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<2x4xf32>
    %48 = stablehlo.broadcast_in_dim %46, dims = [0, 1] : (tensor<2x1xi1>) -> tensor<2x4xi1>
    %49 = stablehlo.select %48, %31#3, %47 : tensor<2x4xi1>, tensor<2x4xf32>
    %50:3 = call @_qr(%arg3) : (tensor<6x4xf32>) -> (tensor<6x4xf32>, tensor<4x4xf32>, tensor<4xi32>)
    return %0#0, %0#1, %7, %11, %18, %22, %26, %30, %37, %41, %45, %49, %50#0, %50#1, %50#2 : tensor<5x5xf32>, tensor<5x5xf32>, tensor<2x4x4xf32>, tensor<2x3xf32>, tensor<2x5x5xf32>, tensor<2x5xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x5x5xf32>, tensor<2x5xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<6x4xf32>, tensor<4x4xf32>, tensor<4xi32>
  }
  func.func private @hessenberg(%arg0: tensor<5x5xf32>) -> (tensor<5x5xf32>, tensor<5x5xf32>) {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %cst_0 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %cst_1 = stablehlo.constant dense<0x7FC00000> : tensor<f32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0:3 = stablehlo.custom_call @lapack_sgehrd_ffi(%arg0) {mhlo.backend_config = {high = 5 : i32, low = 1 : i32}, mhlo.frontend_attributes = {num_batch_dims = "0"}, operand_layouts = [dense<[0, 1]> : tensor<2xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 0, operand_tuple_indices = []>], result_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<0> : tensor<1xindex>, dense<> : tensor<0xindex>], sdy.sharding_rule = #sdy.op_sharding_rule<([i, j])->([k, l], [m], []) {i=5, j=5, k=5, l=5, m=4}, custom>} : (tensor<5x5xf32>) -> (tensor<5x5xf32>, tensor<4xf32>, tensor<i32>)
    %1 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<i32>
    %2 = stablehlo.compare EQ, %0#2, %1, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %3 = stablehlo.broadcast_in_dim %2, dims = [] : (tensor<i1>) -> tensor<1x1xi1>
    %4 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<5x5xf32>
    %5 = stablehlo.broadcast_in_dim %3, dims = [0, 1] : (tensor<1x1xi1>) -> tensor<5x5xi1>
    %6 = stablehlo.select %5, %0#0, %4 : tensor<5x5xi1>, tensor<5x5xf32>
    %7 = stablehlo.broadcast_in_dim %2, dims = [] : (tensor<i1>) -> tensor<1xi1>
    %8 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %9 = stablehlo.broadcast_in_dim %7, dims = [0] : (tensor<1xi1>) -> tensor<4xi1>
    %10 = stablehlo.select %9, %0#1, %8 : tensor<4xi1>, tensor<4xf32>
    %11 = call @triu(%6) : (tensor<5x5xf32>) -> tensor<5x5xf32>
    %12 = stablehlo.slice %6 [1:5, 0:4] : (tensor<5x5xf32>) -> tensor<4x4xf32>
    %13 = stablehlo.custom_call @lapack_sorgqr_ffi(%12, %10) {mhlo.backend_config = {}, mhlo.frontend_attributes = {num_batch_dims = "0"}, operand_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<0> : tensor<1xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [], operand_index = 0, operand_tuple_indices = []>], result_layouts = [dense<[0, 1]> : tensor<2xindex>], sdy.sharding_rule = #sdy.op_sharding_rule<([i, j], [k])->([l, m]) {i=4, j=4, k=4, l=4, m=4}, custom>} : (tensor<4x4xf32>, tensor<4xf32>) -> tensor<4x4xf32>
    %14 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<1x1xf32>
    %15 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<1x4xf32>
    %16 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<4x1xf32>
    %17 = call @block(%14, %15, %16, %13) : (tensor<1x1xf32>, tensor<1x4xf32>, tensor<4x1xf32>, tensor<4x4xf32>) -> tensor<5x5xf32>
    return %11, %17 : tensor<5x5xf32>, tensor<5x5xf32>
  }
  func.func private @triu(%arg0: tensor<5x5xf32>) -> tensor<5x5xf32> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %c = stablehlo.constant dense<-2> : tensor<i32>
    %0 = stablehlo.iota dim = 0 : tensor<5x5xi32>
    %1 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<5x5xi32>
    %2 = stablehlo.add %0, %1 : tensor<5x5xi32>
    %3 = stablehlo.iota dim = 1 : tensor<5x5xi32>
    %4 = stablehlo.compare GE, %2, %3, SIGNED : (tensor<5x5xi32>, tensor<5x5xi32>) -> tensor<5x5xi1>
    %5 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<5x5xf32>
    %6 = stablehlo.select %4, %5, %arg0 : tensor<5x5xi1>, tensor<5x5xf32>
    return %6 : tensor<5x5xf32>
  }
  func.func private @block(%arg0: tensor<1x1xf32>, %arg1: tensor<1x4xf32>, %arg2: tensor<4x1xf32>, %arg3: tensor<4x4xf32>) -> tensor<5x5xf32> {
    %0 = stablehlo.concatenate %arg0, %arg1, dim = 1 : (tensor<1x1xf32>, tensor<1x4xf32>) -> tensor<1x5xf32>
    %1 = stablehlo.concatenate %arg2, %arg3, dim = 1 : (tensor<4x1xf32>, tensor<4x4xf32>) -> tensor<4x5xf32>
    %2 = stablehlo.concatenate %0, %1, dim = 0 : (tensor<1x5xf32>, tensor<4x5xf32>) -> tensor<5x5xf32>
    return %2 : tensor<5x5xf32>
  }
  func.func private @_qr(%arg0: tensor<6x4xf32>) -> (tensor<6x4xf32>, tensor<4x4xf32>, tensor<4xi32>) {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %c = stablehlo.constant dense<-1> : tensor<i32>
    %c_0 = stablehlo.constant dense<1> : tensor<i32>
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.broadcast_in_dim %c_1, dims = [] : (tensor<i32>) -> tensor<4xi32>
    %1:3 = stablehlo.custom_call @lapack_sgeqp3_ffi(%arg0, %0) {mhlo.backend_config = {}, mhlo.frontend_attributes = {num_batch_dims = "0"}, operand_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<0> : tensor<1xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 0, operand_tuple_indices = []>, #stablehlo.output_operand_alias<output_tuple_indices = [1], operand_index = 1, operand_tuple_indices = []>], result_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<0> : tensor<1xindex>, dense<0> : tensor<1xindex>], sdy.sharding_rule = #sdy.op_sharding_rule<([i, j], [k])->([l, m], [n], [o]) {i=6, j=4, k=4, l=6, m=4, n=4, o=4}, custom>} : (tensor<6x4xf32>, tensor<4xi32>) -> (tensor<6x4xf32>, tensor<4xi32>, tensor<4xf32>)
    %2 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i32>) -> tensor<4xi32>
    %3 = stablehlo.subtract %1#1, %2 : tensor<4xi32>
    %4 = stablehlo.custom_call @lapack_sorgqr_ffi(%1#0, %1#2) {mhlo.backend_config = {}, mhlo.frontend_attributes = {num_batch_dims = "0"}, operand_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<0> : tensor<1xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [], operand_index = 0, operand_tuple_indices = []>], result_layouts = [dense<[0, 1]> : tensor<2xindex>], sdy.sharding_rule = #sdy.op_sharding_rule<([i, j], [k])->([l, m]) {i=6, j=4, k=4, l=6, m=4}, custom>} : (tensor<6x4xf32>, tensor<4xf32>) -> tensor<6x4xf32>
    %5 = stablehlo.slice %1#0 [0:4, 0:4] : (tensor<6x4xf32>) -> tensor<4x4xf32>
    %6 = stablehlo.iota dim = 0 : tensor<4x4xi32>
    %7 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<4x4xi32>
    %8 = stablehlo.add %6, %7 : tensor<4x4xi32>
    %9 = stablehlo.iota dim = 1 : tensor<4x4xi32>
    %10 = stablehlo.compare GE, %8, %9, SIGNED : (tensor<4x4xi32>, tensor<4x4xi32>) -> tensor<4x4xi1>
    %11 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<4x4xf32>
    %12 = stablehlo.select %10, %11, %5 : tensor<4x4xi1>, tensor<4x4xf32>
    return %4, %12, %3 : tensor<6x4xf32>, tensor<4x4xf32>, tensor<4xi32>
  }
}
