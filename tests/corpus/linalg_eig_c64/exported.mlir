module @jit_f attributes {jax.uses_shape_polymorphism = false, mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<2x5x5xcomplex<f32>>) -> (tensor<2x5xf32> {jax.result_info = "result[0]"}, tensor<2x5xf32> {jax.result_info = "result[1]"}, tensor<2x5xf32> {jax.result_info = "result[2]"}, tensor<2x5xf32> {jax.result_info = "result[3]"}, tensor<2x5xf32> {jax.result_info = "result[4]"}, tensor<2x5xf32> {jax.result_info = "result[5]"}, tensor<2x5xf32> {jax.result_info = "result[6]"}, tensor<2x1x5xf32> {jax.result_info = "result[7]"}, tensor<2x5xf32> {jax.result_info = "result[8]"}, tensor<2x5xf32> {jax.result_info = "result[9]"}, tensor<2x5xf32> {jax.result_info = "result[10]"}) {
    %cst = stablehlo.constant dense<(0x7FC00000,0x7FC00000)> : tensor<complex<f32>>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0:4 = stablehlo.custom_call @lapack_cgeev_ffi(%arg0) {mhlo.backend_config = {compute_left = 86 : ui8, compute_right = 86 : ui8}, mhlo.frontend_attributes = {num_batch_dims = "1"}, operand_layouts = [dense<[1, 2, 0]> : tensor<3xindex>], result_layouts = [dense<[1, 0]> : tensor<2xindex>, dense<[1, 2, 0]> : tensor<3xindex>, dense<[1, 2, 0]> : tensor<3xindex>, dense<0> : tensor<1xindex>], sdy.sharding_rule = #sdy.op_sharding_rule<([i, j, k])->([i, l], [i, m, n], [i, o, p], [i]) {i=2, j=5, k=5, l=5, m=5, n=5, o=5, p=5}, custom>} : (tensor<2x5x5xcomplex<f32>>) -> (tensor<2x5xcomplex<f32>>, tensor<2x5x5xcomplex<f32>>, tensor<2x5x5xcomplex<f32>>, tensor<2xi32>)
    %1 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<2xi32>
    %2 = stablehlo.compare EQ, %0#3, %1, SIGNED : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi1>
    %3 = stablehlo.broadcast_in_dim %2, dims = [0] : (tensor<2xi1>) -> tensor<2x1xi1>
    %4 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<complex<f32>>) -> tensor<2x5xcomplex<f32>>
    %5 = stablehlo.broadcast_in_dim %3, dims = [0, 1] : (tensor<2x1xi1>) -> tensor<2x5xi1>
    %6 = stablehlo.select %5, %0#0, %4 : tensor<2x5xi1>, tensor<2x5xcomplex<f32>>
    %7 = stablehlo.broadcast_in_dim %2, dims = [0] : (tensor<2xi1>) -> tensor<2x1x1xi1>
    %8 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<complex<f32>>) -> tensor<2x5x5xcomplex<f32>>
    %9 = stablehlo.broadcast_in_dim %7, dims = [0, 1, 2] : (tensor<2x1x1xi1>) -> tensor<2x5x5xi1>
    %10 = stablehlo.select %9, %0#1, %8 : tensor<2x5x5xi1>, tensor<2x5x5xcomplex<f32>>
    %11 = stablehlo.broadcast_in_dim %2, dims = [0] : (tensor<2xi1>) -> tensor<2x1x1xi1>
    %12 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<complex<f32>>) -> tensor<2x5x5xcomplex<f32>>
    %13 = stablehlo.broadcast_in_dim %11, dims = [0, 1, 2] : (tensor<2x1x1xi1>) -> tensor<2x5x5xi1>
    %14 = stablehlo.select %13, %0#2, %12 : tensor<2x5x5xi1>, tensor<2x5x5xcomplex<f32>>
    %15 = stablehlo.dot_general %arg0, %14, batching_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<2x5x5xcomplex<f32>>, tensor<2x5x5xcomplex<f32>>) -> tensor<2x5x5xcomplex<f32>>
    %16 = stablehlo.broadcast_in_dim %6, dims = [0, 2] : (tensor<2x5xcomplex<f32>>) -> tensor<2x1x5xcomplex<f32>>
    %17 = stablehlo.broadcast_in_dim %16, dims = [0, 1, 2] : (tensor<2x1x5xcomplex<f32>>) -> tensor<2x5x5xcomplex<f32>>
    %18 = stablehlo.multiply %14, %17 : tensor<2x5x5xcomplex<f32>>
    %19 = stablehlo.subtract %15, %18 : tensor<2x5x5xcomplex<f32>>
    %20 = call @norm(%19) : (tensor<2x5x5xcomplex<f32>>) -> tensor<2x5xf32>
    %21 = call @sort(%20) : (tensor<2x5xf32>) -> tensor<2x5xf32>
    %22 = stablehlo.transpose %10, dims = [0, 2, 1] : (tensor<2x5x5xcomplex<f32>>) -> tensor<2x5x5xcomplex<f32>>
    %23 = stablehlo.real %22 : (tensor<2x5x5xcomplex<f32>>) -> tensor<2x5x5xf32>
    %24 = stablehlo.imag %22 : (tensor<2x5x5xcomplex<f32>>) -> tensor<2x5x5xf32>
    %25 = stablehlo.negate %24 : tensor<2x5x5xf32>
    %26 = stablehlo.complex %23, %25 : tensor<2x5x5xcomplex<f32>>
    %27 = stablehlo.dot_general %26, %arg0, batching_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<2x5x5xcomplex<f32>>, tensor<2x5x5xcomplex<f32>>) -> tensor<2x5x5xcomplex<f32>>
    %28 = stablehlo.broadcast_in_dim %6, dims = [0, 1] : (tensor<2x5xcomplex<f32>>) -> tensor<2x5x1xcomplex<f32>>
    %29 = stablehlo.broadcast_in_dim %28, dims = [0, 1, 2] : (tensor<2x5x1xcomplex<f32>>) -> tensor<2x5x5xcomplex<f32>>
    %30 = stablehlo.multiply %29, %26 : tensor<2x5x5xcomplex<f32>>
    %31 = stablehlo.subtract %27, %30 : tensor<2x5x5xcomplex<f32>>
    %32 = call @norm_0(%31) : (tensor<2x5x5xcomplex<f32>>) -> tensor<2x5xf32>
    %33 = call @sort(%32) : (tensor<2x5xf32>) -> tensor<2x5xf32>
    %34 = call @norm(%14) : (tensor<2x5x5xcomplex<f32>>) -> tensor<2x5xf32>
    %35 = stablehlo.abs %14 : (tensor<2x5x5xcomplex<f32>>) -> tensor<2x5x5xf32>
    %36 = call @argmax(%35) : (tensor<2x5x5xf32>) -> tensor<2x5xi32>
    %37 = stablehlo.broadcast_in_dim %36, dims = [0, 2] : (tensor<2x5xi32>) -> tensor<2x1x5xi32>
    %38 = call @take_along_axis(%14, %37) : (tensor<2x5x5xcomplex<f32>>, tensor<2x1x5xi32>) -> tensor<2x1x5xcomplex<f32>>
    %39 = stablehlo.imag %38 : (tensor<2x1x5xcomplex<f32>>) -> tensor<2x1x5xf32>
    %40 = stablehlo.abs %39 : tensor<2x1x5xf32>
    %41 = call @eigvals(%arg0) : (tensor<2x5x5xcomplex<f32>>) -> tensor<2x5xcomplex<f32>>
    %42 = stablehlo.real %6 : (tensor<2x5xcomplex<f32>>) -> tensor<2x5xf32>
    %43 = call @sort(%42) : (tensor<2x5xf32>) -> tensor<2x5xf32>
    %44 = stablehlo.imag %6 : (tensor<2x5xcomplex<f32>>) -> tensor<2x5xf32>
    %45 = call @sort(%44) : (tensor<2x5xf32>) -> tensor<2x5xf32>
    %46 = stablehlo.abs %6 : (tensor<2x5xcomplex<f32>>) -> tensor<2x5xf32>
    %47 = call @sort(%46) : (tensor<2x5xf32>) -> tensor<2x5xf32>
    %48 = call @norm(%10) : (tensor<2x5x5xcomplex<f32>>) -> tensor<2x5xf32>
    %49 = stablehlo.real %41 : (tensor<2x5xcomplex<f32>>) -> tensor<2x5xf32>
    %50 = call @sort(%49) : (tensor<2x5xf32>) -> tensor<2x5xf32>
    %51 = stablehlo.imag %41 : (tensor<2x5xcomplex<f32>>) -> tensor<2x5xf32>
    %52 = call @sort(%51) : (tensor<2x5xf32>) -> tensor<2x5xf32>
    %53 = stablehlo.abs %41 : (tensor<2x5xcomplex<f32>>) -> tensor<2x5xf32>
    %54 = call @sort(%53) : (tensor<2x5xf32>) -> tensor<2x5xf32>
    return %43, %45, %47, %21, %33, %34, %48, %40, %50, %52, %54 : tensor<2x5xf32>, tensor<2x5xf32>, tensor<2x5xf32>, tensor<2x5xf32>, tensor<2x5xf32>, tensor<2x5xf32>, tensor<2x5xf32>, tensor<2x1x5xf32>, tensor<2x5xf32>, tensor<2x5xf32>, tensor<2x5xf32>
  }
  func.func private @norm(%arg0: tensor<2x5x5xcomplex<f32>>) -> tensor<2x5xf32> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.real %arg0 : (tensor<2x5x5xcomplex<f32>>) -> tensor<2x5x5xf32>
    %1 = stablehlo.imag %arg0 : (tensor<2x5x5xcomplex<f32>>) -> tensor<2x5x5xf32>
    %2 = stablehlo.negate %1 : tensor<2x5x5xf32>
    %3 = stablehlo.complex %0, %2 : tensor<2x5x5xcomplex<f32>>
    %4 = stablehlo.multiply %arg0, %3 : tensor<2x5x5xcomplex<f32>>
    %5 = stablehlo.real %4 : (tensor<2x5x5xcomplex<f32>>) -> tensor<2x5x5xf32>
    %6 = stablehlo.reduce(%5 init: %cst) applies stablehlo.add across dimensions = [1] : (tensor<2x5x5xf32>, tensor<f32>) -> tensor<2x5xf32>
    %7 = stablehlo.sqrt %6 : tensor<2x5xf32>
    return %7 : tensor<2x5xf32>
  }
  func.func private @sort(%arg0: tensor<2x5xf32>) -> tensor<2x5xf32> {
    %cst = stablehlo.constant dense<0x7FC00000> : tensor<f32>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = "stablehlo.sort"(%arg0) <{dimension = 1 : i64, is_stable = true}> ({
    ^bb0(%arg1: tensor<f32>, %arg2: tensor<f32>):
      %1 = stablehlo.compare EQ, %arg1, %cst_0, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %2 = stablehlo.select %1, %cst_0, %arg1 : tensor<i1>, tensor<f32>
      %3 = stablehlo.compare NE, %arg1, %arg1, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %4 = stablehlo.select %3, %cst, %2 : tensor<i1>, tensor<f32>
      %5 = stablehlo.compare EQ, %arg2, %cst_0, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %6 = stablehlo.select %5, %cst_0, %arg2 : tensor<i1>, tensor<f32>
      %7 = stablehlo.compare NE, %arg2, %arg2, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %8 = stablehlo.select %7, %cst, %6 : tensor<i1>, tensor<f32>
      %9 = stablehlo.compare LT, %4, %8, TOTALORDER : (tensor<f32>, tensor<f32>) -> tensor<i1>
      stablehlo.return %9 : tensor<i1>
    }) : (tensor<2x5xf32>) -> tensor<2x5xf32>
    return %0 : tensor<2x5xf32>
  }
  func.func private @norm_0(%arg0: tensor<2x5x5xcomplex<f32>>) -> tensor<2x5xf32> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.real %arg0 : (tensor<2x5x5xcomplex<f32>>) -> tensor<2x5x5xf32>
    %1 = stablehlo.imag %arg0 : (tensor<2x5x5xcomplex<f32>>) -> tensor<2x5x5xf32>
    %2 = stablehlo.negate %1 : tensor<2x5x5xf32>
    %3 = stablehlo.complex %0, %2 : tensor<2x5x5xcomplex<f32>>
    %4 = stablehlo.multiply %arg0, %3 : tensor<2x5x5xcomplex<f32>>
    %5 = stablehlo.real %4 : (tensor<2x5x5xcomplex<f32>>) -> tensor<2x5x5xf32>
    %6 = stablehlo.reduce(%5 init: %cst) applies stablehlo.add across dimensions = [2] : (tensor<2x5x5xf32>, tensor<f32>) -> tensor<2x5xf32>
    %7 = stablehlo.sqrt %6 : tensor<2x5xf32>
    return %7 : tensor<2x5xf32>
  }
  func.func private @argmax(%arg0: tensor<2x5x5xf32>) -> tensor<2x5xi32> {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %cst = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %0 = stablehlo.iota dim = 1 : tensor<2x5x5xi32>
    %1:2 = stablehlo.reduce(%arg0 init: %cst), (%0 init: %c) across dimensions = [1] : (tensor<2x5x5xf32>, tensor<2x5x5xi32>, tensor<f32>, tensor<i32>) -> (tensor<2x5xf32>, tensor<2x5xi32>)
     reducer(%arg1: tensor<f32>, %arg3: tensor<f32>) (%arg2: tensor<i32>, %arg4: tensor<i32>)  {
      %2 = stablehlo.compare GT, %arg1, %arg3, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %3 = stablehlo.compare NE, %arg1, %arg1, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %4 = stablehlo.or %2, %3 : tensor<i1>
      %5 = stablehlo.compare EQ, %arg1, %arg3, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %6 = stablehlo.compare LT, %arg2, %arg4, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %7 = stablehlo.and %5, %6 : tensor<i1>
      %8 = stablehlo.or %4, %7 : tensor<i1>
      %9 = stablehlo.select %4, %arg1, %arg3 : tensor<i1>, tensor<f32>
      %10 = stablehlo.select %8, %arg2, %arg4 : tensor<i1>, tensor<i32>
      stablehlo.return %9, %10 : tensor<f32>, tensor<i32>
    }
    return %1#1 : tensor<2x5xi32>
  }
  func.func private @take_along_axis(%arg0: tensor<2x5x5xcomplex<f32>>, %arg1: tensor<2x1x5xi32>) -> tensor<2x1x5xcomplex<f32>> {
    %cst = stablehlo.constant dense<(0x7FC00000,0.000000e+00)> : tensor<complex<f32>>
    %c = stablehlo.constant dense<true> : tensor<i1>
    %c_0 = stablehlo.constant dense<4> : tensor<1xi32>
    %c_1 = stablehlo.constant dense<5> : tensor<i32>
    %c_2 = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.broadcast_in_dim %c_2, dims = [] : (tensor<i32>) -> tensor<2x1x5xi32>
    %1 = stablehlo.compare LT, %arg1, %0, SIGNED : (tensor<2x1x5xi32>, tensor<2x1x5xi32>) -> tensor<2x1x5xi1>
    %2 = stablehlo.broadcast_in_dim %c_1, dims = [] : (tensor<i32>) -> tensor<2x1x5xi32>
    %3 = stablehlo.add %arg1, %2 : tensor<2x1x5xi32>
    %4 = stablehlo.select %1, %3, %arg1 : tensor<2x1x5xi1>, tensor<2x1x5xi32>
    %5 = stablehlo.reshape %4 : (tensor<2x1x5xi32>) -> tensor<2x1x5x1xi32>
    %6 = stablehlo.broadcast_in_dim %c_2, dims = [] : (tensor<i32>) -> tensor<2x1x5x1xi32>
    %7 = stablehlo.compare GE, %5, %6, SIGNED : (tensor<2x1x5x1xi32>, tensor<2x1x5x1xi32>) -> tensor<2x1x5x1xi1>
    %8 = stablehlo.broadcast_in_dim %c_0, dims = [3] : (tensor<1xi32>) -> tensor<1x1x1x1xi32>
    %9 = stablehlo.broadcast_in_dim %8, dims = [0, 1, 2, 3] : (tensor<1x1x1x1xi32>) -> tensor<2x1x5x1xi32>
    %10 = stablehlo.compare LE, %5, %9, SIGNED : (tensor<2x1x5x1xi32>, tensor<2x1x5x1xi32>) -> tensor<2x1x5x1xi1>
    %11 = stablehlo.and %7, %10 : tensor<2x1x5x1xi1>
    %12 = stablehlo.reduce(%11 init: %c) applies stablehlo.and across dimensions = [3] : (tensor<2x1x5x1xi1>, tensor<i1>) -> tensor<2x1x5xi1>
    %13 = "stablehlo.gather"(%arg0, %5) <{dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [1], operand_batching_dims = [0, 2], start_indices_batching_dims = [0, 2], start_index_map = [1], index_vector_dim = 3>, slice_sizes = array<i64: 1, 1, 1>}> : (tensor<2x5x5xcomplex<f32>>, tensor<2x1x5x1xi32>) -> tensor<2x1x5xcomplex<f32>>
    %14 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<complex<f32>>) -> tensor<2x1x5xcomplex<f32>>
    %15 = stablehlo.select %12, %13, %14 : tensor<2x1x5xi1>, tensor<2x1x5xcomplex<f32>>
    return %15 : tensor<2x1x5xcomplex<f32>>
  }
  func.func private @eigvals(%arg0: tensor<2x5x5xcomplex<f32>>) -> tensor<2x5xcomplex<f32>> {
    %cst = stablehlo.constant dense<(0x7FC00000,0x7FC00000)> : tensor<complex<f32>>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0:4 = stablehlo.custom_call @lapack_cgeev_ffi(%arg0) {mhlo.backend_config = {compute_left = 78 : ui8, compute_right = 78 : ui8}, mhlo.frontend_attributes = {num_batch_dims = "1"}, operand_layouts = [dense<[1, 2, 0]> : tensor<3xindex>], result_layouts = [dense<[1, 0]> : tensor<2xindex>, dense<[1, 2, 0]> : tensor<3xindex>, dense<[1, 2, 0]> : tensor<3xindex>, dense<0> : tensor<1xindex>], sdy.sharding_rule = #sdy.op_sharding_rule<([i, j, k])->([i, l], [i, m, n], [i, o, p], [i]) {i=2, j=5, k=5, l=5, m=5, n=5, o=5, p=5}, custom>} : (tensor<2x5x5xcomplex<f32>>) -> (tensor<2x5xcomplex<f32>>, tensor<2x5x5xcomplex<f32>>, tensor<2x5x5xcomplex<f32>>, tensor<2xi32>)
    %1 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<2xi32>
    %2 = stablehlo.compare EQ, %0#3, %1, SIGNED : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi1>
    %3 = stablehlo.broadcast_in_dim %2, dims = [0] : (tensor<2xi1>) -> tensor<2x1xi1>
    %4 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<complex<f32>>) -> tensor<2x5xcomplex<f32>>
    %5 = stablehlo.broadcast_in_dim %3, dims = [0, 1] : (tensor<2x1xi1>) -> tensor<2x5xi1>
    %6 = stablehlo.select %5, %0#0, %4 : tensor<2x5xi1>, tensor<2x5xcomplex<f32>>
    return %6 : tensor<2x5xcomplex<f32>>
  }
}
