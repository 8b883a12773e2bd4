module @jit_f attributes {jax.uses_shape_polymorphism = false, mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<2x5x5xf64>) -> (tensor<2x5xf64> {jax.result_info = "result[0]"}, tensor<2x5xf64> {jax.result_info = "result[1]"}, tensor<2x5xf64> {jax.result_info = "result[2]"}, tensor<2x5xf64> {jax.result_info = "result[3]"}, tensor<2x5xf64> {jax.result_info = "result[4]"}, tensor<2x5xf64> {jax.result_info = "result[5]"}, tensor<2x5xf64> {jax.result_info = "result[6]"}, tensor<2x1x5xf64> {jax.result_info = "result[7]"}, tensor<2x5xf64> {jax.result_info = "result[8]"}, tensor<2x5xf64> {jax.result_info = "result[9]"}, tensor<2x5xf64> {jax.result_info = "result[10]"}) {
    %cst = stablehlo.constant dense<(0x7FF8000000000000,0x7FF8000000000000)> : tensor<complex<f64>>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0:5 = stablehlo.custom_call @lapack_dgeev_ffi(%arg0) {mhlo.backend_config = {compute_left = 86 : ui8, compute_right = 86 : ui8}, mhlo.frontend_attributes = {num_batch_dims = "1"}, operand_layouts = [dense<[1, 2, 0]> : tensor<3xindex>], result_layouts = [dense<[1, 0]> : tensor<2xindex>, dense<[1, 0]> : tensor<2xindex>, dense<[1, 2, 0]> : tensor<3xindex>, dense<[1, 2, 0]> : tensor<3xindex>, dense<0> : tensor<1xindex>], sdy.sharding_rule = #sdy.op_sharding_rule<([i, j, k])->([i, l], [i, m], [i, n, o], [i, p, q], [i]) {i=2, j=5, k=5, l=5, m=5, n=5, o=5, p=5, q=5}, custom>} : (tensor<2x5x5xf64>) -> (tensor<2x5xf64>, tensor<2x5xf64>, tensor<2x5x5xcomplex<f64>>, tensor<2x5x5xcomplex<f64>>, tensor<2xi32>)
    %1 = stablehlo.complex %0#0, %0#1 : tensor<2x5xcomplex<f64>>
    %2 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<2xi32>
    %3 = stablehlo.compare EQ, %0#4, %2, SIGNED : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi1>
    %4 = stablehlo.broadcast_in_dim %3, dims = [0] : (tensor<2xi1>) -> tensor<2x1xi1>
    %5 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<complex<f64>>) -> tensor<2x5xcomplex<f64>>
    %6 = stablehlo.broadcast_in_dim %4, dims = [0, 1] : (tensor<2x1xi1>) -> tensor<2x5xi1>
    %7 = stablehlo.select %6, %1, %5 : tensor<2x5xi1>, tensor<2x5xcomplex<f64>>
    %8 = stablehlo.broadcast_in_dim %3, dims = [0] : (tensor<2xi1>) -> tensor<2x1x1xi1>
    %9 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<complex<f64>>) -> tensor<2x5x5xcomplex<f64>>
    %10 = stablehlo.broadcast_in_dim %8, dims = [0, 1, 2] : (tensor<2x1x1xi1>) -> tensor<2x5x5xi1>
    %11 = stablehlo.select %10, %0#2, %9 : tensor<2x5x5xi1>, tensor<2x5x5xcomplex<f64>>
    %12 = stablehlo.broadcast_in_dim %3, dims = [0] : (tensor<2xi1>) -> tensor<2x1x1xi1>
    %13 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<complex<f64>>) -> tensor<2x5x5xcomplex<f64>>
    %14 = stablehlo.broadcast_in_dim %12, dims = [0, 1, 2] : (tensor<2x1x1xi1>) -> tensor<2x5x5xi1>
    %15 = stablehlo.select %14, %0#3, %13 : tensor<2x5x5xi1>, tensor<2x5x5xcomplex<f64>>
    %16 = stablehlo.convert %arg0 : (tensor<2x5x5xf64>) -> tensor<2x5x5xcomplex<f64>>
    %17 = stablehlo.dot_general %16, %15, batching_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<2x5x5xcomplex<f64>>, tensor<2x5x5xcomplex<f64>>) -> tensor<2x5x5xcomplex<f64>>
    %18 = stablehlo.broadcast_in_dim %7, dims = [0, 2] : (tensor<2x5xcomplex<f64>>) -> tensor<2x1x5xcomplex<f64>>
    %19 = stablehlo.broadcast_in_dim %18, dims = [0, 1, 2] : (tensor<2x1x5xcomplex<f64>>) -> tensor<2x5x5xcomplex<f64>>
    %20 = stablehlo.multiply %15, %19 : tensor<2x5x5xcomplex<f64>>
    %21 = stablehlo.subtract %17, %20 : tensor<2x5x5xcomplex<f64>>
    %22 = call @norm(%21) : (tensor<2x5x5xcomplex<f64>>) -> tensor<2x5xf64>
    %23 = call @sort(%22) : (tensor<2x5xf64>) -> tensor<2x5xf64>
    %24 = stablehlo.transpose %11, dims = [0, 2, 1] : (tensor<2x5x5xcomplex<f64>>) -> tensor<2x5x5xcomplex<f64>>
    %25 = stablehlo.real %24 : (tensor<2x5x5xcomplex<f64>>) -> tensor<2x5x5xf64>
    %26 = stablehlo.imag %24 : (tensor<2x5x5xcomplex<f64>>) -> tensor<2x5x5xf64>
    %27 = stablehlo.negate %26 : tensor<2x5x5xf64>
    %28 = stablehlo.complex %25, %27 : tensor<2x5x5xcomplex<f64>>
    %29 = stablehlo.dot_general %28, %16, batching_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<2x5x5xcomplex<f64>>, tensor<2x5x5xcomplex<f64>>) -> tensor<2x5x5xcomplex<f64>>
    %30 = stablehlo.broadcast_in_dim %7, dims = [0, 1] : (tensor<2x5xcomplex<f64>>) -> tensor<2x5x1xcomplex<f64>>
    %31 = stablehlo.broadcast_in_dim %30, dims = [0, 1, 2] : (tensor<2x5x1xcomplex<f64>>) -> tensor<2x5x5xcomplex<f64>>
    %32 = stablehlo.multiply %31, %28 : tensor<2x5x5xcomplex<f64>>
    %33 = stablehlo.subtract %29, %32 : tensor<2x5x5xcomplex<f64>>
    %34 = call @norm_0(%33) : (tensor<2x5x5xcomplex<f64>>) -> tensor<2x5xf64>
    %35 = call @sort(%34) : (tensor<2x5xf64>) -> tensor<2x5xf64>
    %36 = call @norm(%15) : (tensor<2x5x5xcomplex<f64>>) -> tensor<2x5xf64>
    %37 = stablehlo.abs %15 : (tensor<2x5x5xcomplex<f64>>) -> tensor<2x5x5xf64>
    %38 = call @argmax(%37) : (tensor<2x5x5xf64>) -> tensor<2x5xi64>
    %39 = stablehlo.broadcast_in_dim %38, dims = [0, 2] : (tensor<2x5xi64>) -> tensor<2x1x5xi64>
    %40 = call @take_along_axis(%15, %39) : (tensor<2x5x5xcomplex<f64>>, tensor<2x1x5xi64>) -> tensor<2x1x5xcomplex<f64>>
    %41 = stablehlo.imag %40 : (tensor<2x1x5xcomplex<f64>>) -> tensor<2x1x5xf64>
    %42 = stablehlo.abs %41 : tensor<2x1x5xf64>
    %43 = call @eigvals(%arg0) : (tensor<2x5x5xf64>) -> tensor<2x5xcomplex<f64>>
    %44 = stablehlo.real %7 : (tensor<2x5xcomplex<f64>>) -> tensor<2x5xf64>
    %45 = call @sort(%44) : (tensor<2x5xf64>) -> tensor<2x5xf64>
    %46 = stablehlo.imag %7 : (tensor<2x5xcomplex<f64>>) -> tensor<2x5xf64>
    %47 = call @sort(%46) : (tensor<2x5xf64>) -> tensor<2x5xf64>
    %48 = stablehlo.abs %7 : (tensor<2x5xcomplex<f64>>) -> tensor<2x5xf64>
    %49 = call @sort(%48) : (tensor<2x5xf64>) -> tensor<2x5xf64>
    %50 = call @norm(%11) : (tensor<2x5x5xcomplex<f64>>) -> tensor<2x5xf64>
    %51 = stablehlo.real %43 : (tensor<2x5xcomplex<f64>>) -> tensor<2x5xf64>
    %52 = call @sort(%51) : (tensor<2x5xf64>) -> tensor<2x5xf64>
    %53 = stablehlo.imag %43 : (tensor<2x5xcomplex<f64>>) -> tensor<2x5xf64>
    %54 = call @sort(%53) : (tensor<2x5xf64>) -> tensor<2x5xf64>
    %55 = stablehlo.abs %43 : (tensor<2x5xcomplex<f64>>) -> tensor<2x5xf64>
    %56 = call @sort(%55) : (tensor<2x5xf64>) -> tensor<2x5xf64>
    return %45, %47, %49, %23, %35, %36, %50, %42, %52, %54, %56 : tensor<2x5xf64>, tensor<2x5xf64>, tensor<2x5xf64>, tensor<2x5xf64>, tensor<2x5xf64>, tensor<2x5xf64>, tensor<2x5xf64>, tensor<2x1x5xf64>, tensor<2x5xf64>, tensor<2x5xf64>, tensor<2x5xf64>
  }
  func.func private @norm(%arg0: tensor<2x5x5xcomplex<f64>>) -> tensor<2x5xf64> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f64>
    %0 = stablehlo.real %arg0 : (tensor<2x5x5xcomplex<f64>>) -> tensor<2x5x5xf64>
    %1 = stablehlo.imag %arg0 : (tensor<2x5x5xcomplex<f64>>) -> tensor<2x5x5xf64>
    %2 = stablehlo.negate %1 : tensor<2x5x5xf64>
    %3 = stablehlo.complex %0, %2 : tensor<2x5x5xcomplex<f64>>
    %4 = stablehlo.multiply %arg0, %3 : tensor<2x5x5xcomplex<f64>>
    %5 = stablehlo.real %4 : (tensor<2x5x5xcomplex<f64>>) -> tensor<2x5x5xf64>
    %6 = stablehlo.reduce(%5 init: %cst) applies stablehlo.add across dimensions = [1] : (tensor<2x5x5xf64>, tensor<f64>) -> tensor<2x5xf64>
    %7 = stablehlo.sqrt %6 : tensor<2x5xf64>
    return %7 : tensor<2x5xf64>
  }
  func.func private @sort(%arg0: tensor<2x5xf64>) -> tensor<2x5xf64> {
    %cst = stablehlo.constant dense<0x7FF8000000000000> : tensor<f64>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f64>
    %0 = "stablehlo.sort"(%arg0) <{dimension = 1 : i64, is_stable = true}> ({
    ^bb0(%arg1: tensor<f64>, %arg2: tensor<f64>):
      %1 = stablehlo.compare EQ, %arg1, %cst_0, FLOAT : (tensor<f64>, tensor<f64>) -> tensor<i1>
      %2 = stablehlo.select %1, %cst_0, %arg1 : tensor<i1>, tensor<f64>
      %3 = stablehlo.compare NE, %arg1, %arg1, FLOAT : (tensor<f64>, tensor<f64>) -> tensor<i1>
      %4 = stablehlo.select %3, %cst, %2 : tensor<i1>, tensor<f64>
      %5 = stablehlo.compare EQ, %arg2, %cst_0, FLOAT : (tensor<f64>, tensor<f64>) -> tensor<i1>
      %6 = stablehlo.select %5, %cst_0, %arg2 : tensor<i1>, tensor<f64>
      %7 = stablehlo.compare NE, %arg2, %arg2, FLOAT : (tensor<f64>, tensor<f64>) -> tensor<i1>
      %8 = stablehlo.select %7, %cst, %6 : tensor<i1>, tensor<f64>
      %9 = stablehlo.compare LT, %4, %8, TOTALORDER : (tensor<f64>, tensor<f64>) -> tensor<i1>
      stablehlo.return %9 : tensor<i1>
    }) : (tensor<2x5xf64>) -> tensor<2x5xf64>
    return %0 : tensor<2x5xf64>
  }
  func.func private @norm_0(%arg0: tensor<2x5x5xcomplex<f64>>) -> tensor<2x5xf64> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f64>
    %0 = stablehlo.real %arg0 : (tensor<2x5x5xcomplex<f64>>) -> tensor<2x5x5xf64>
    %1 = stablehlo.imag %arg0 : (tensor<2x5x5xcomplex<f64>>) -> tensor<2x5x5xf64>
    %2 = stablehlo.negate %1 : tensor<2x5x5xf64>
    %3 = stablehlo.complex %0, %2 : tensor<2x5x5xcomplex<f64>>
    %4 = stablehlo.multiply %arg0, %3 : tensor<2x5x5xcomplex<f64>>
    %5 = stablehlo.real %4 : (tensor<2x5x5xcomplex<f64>>) -> tensor<2x5x5xf64>
    %6 = stablehlo.reduce(%5 init: %cst) applies stablehlo.add across dimensions = [2] : (tensor<2x5x5xf64>, tensor<f64>) -> tensor<2x5xf64>
    %7 = stablehlo.sqrt %6 : tensor<2x5xf64>
    return %7 : tensor<2x5xf64>
  }
  func.func private @argmax(%arg0: tensor<2x5x5xf64>) -> tensor<2x5xi64> {
    %c = stablehlo.constant dense<0> : tensor<i64>
    %cst = stablehlo.constant dense<0xFFF0000000000000> : tensor<f64>
    %0 = stablehlo.iota dim = 1 : tensor<2x5x5xi64>
    %1:2 = stablehlo.reduce(%arg0 init: %cst), (%0 init: %c) across dimensions = [1] : (tensor<2x5x5xf64>, tensor<2x5x5xi64>, tensor<f64>, tensor<i64>) -> (tensor<2x5xf64>, tensor<2x5xi64>)
     reducer(%arg1: tensor<f64>, %arg3: tensor<f64>) (%arg2: tensor<i64>, %arg4: tensor<i64>)  {
      %2 = stablehlo.compare GT, %arg1, %arg3, FLOAT : (tensor<f64>, tensor<f64>) -> tensor<i1>
      %3 = stablehlo.compare NE, %arg1, %arg1, FLOAT : (tensor<f64>, tensor<f64>) -> tensor<i1>
      %4 = stablehlo.or %2, %3 : tensor<i1>
      %5 = stablehlo.compare EQ, %arg1, %arg3, FLOAT : (tensor<f64>, tensor<f64>) -> tensor<i1>
      %6 = stablehlo.compare LT, %arg2, %arg4, SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>
      %7 = stablehlo.and %5, %6 : tensor<i1>
      %8 = stablehlo.or %4, %7 : tensor<i1>
      %9 = stablehlo.select %4, %arg1, %arg3 : tensor<i1>, tensor<f64>
      %10 = stablehlo.select %8, %arg2, %arg4 : tensor<i1>, tensor<i64>
      stablehlo.return %9, %10 : tensor<f64>, tensor<i64>
    }
    return %1#1 : tensor<2x5xi64>
  }
  func.func private @take_along_axis(%arg0: tensor<2x5x5xcomplex<f64>>, %arg1: tensor<2x1x5xi64>) -> tensor<2x1x5xcomplex<f64>> {
    %cst = stablehlo.constant dense<(0x7FF8000000000000,0.000000e+00)> : tensor<complex<f64>>
    %c = stablehlo.constant dense<true> : tensor<i1>
    %c_0 = stablehlo.constant dense<4> : tensor<1xi32>
    %c_1 = stablehlo.constant dense<5> : tensor<i32>
    %c_2 = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.convert %arg1 : (tensor<2x1x5xi64>) -> tensor<2x1x5xi32>
    %1 = stablehlo.broadcast_in_dim %c_2, dims = [] : (tensor<i32>) -> tensor<2x1x5xi32>
    %2 = stablehlo.compare LT, %0, %1, SIGNED : (tensor<2x1x5xi32>, tensor<2x1x5xi32>) -> tensor<2x1x5xi1>
    %3 = stablehlo.broadcast_in_dim %c_1, dims = [] : (tensor<i32>) -> tensor<2x1x5xi32>
    %4 = stablehlo.add %0, %3 : tensor<2x1x5xi32>
    %5 = stablehlo.select %2, %4, %0 : tensor<2x1x5xi1>, tensor<2x1x5xi32>
    %6 = stablehlo.reshape %5 : (tensor<2x1x5xi32>) -> tensor<2x1x5x1xi32>
    %7 = stablehlo.broadcast_in_dim %c_2, dims = [] : (tensor<i32>) -> tensor<2x1x5x1xi32>
    %8 = stablehlo.compare GE, %6, %7, SIGNED : (tensor<2x1x5x1xi32>, tensor<2x1x5x1xi32>) -> tensor<2x1x5x1xi1>
    %9 = stablehlo.broadcast_in_dim %c_0, dims = [3] : (tensor<1xi32>) -> tensor<1x1x1x1xi32>
    %10 = stablehlo.broadcast_in_dim %9, dims = [0, 1, 2, 3] : (tensor<1x1x1x1xi32>) -> tensor<2x1x5x1xi32>
    %11 = stablehlo.compare LE, %6, %10, SIGNED : (tensor<2x1x5x1xi32>, tensor<2x1x5x1xi32>) -> tensor<2x1x5x1xi1>
    %12 = stablehlo.and %8, %11 : tensor<2x1x5x1xi1>
    %13 = stablehlo.reduce(%12 init: %c) applies stablehlo.and across dimensions = [3] : (tensor<2x1x5x1xi1>, tensor<i1>) -> tensor<2x1x5xi1>
    %14 = "stablehlo.gather"(%arg0, %6) <{dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [1], operand_batching_dims = [0, 2], start_indices_batching_dims = [0, 2], start_index_map = [1], index_vector_dim = 3>, slice_sizes = array<i64: 1, 1, 1>}> : (tensor<2x5x5xcomplex<f64>>, tensor<2x1x5x1xi32>) -> tensor<2x1x5xcomplex<f64>>
    %15 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<complex<f64>>) -> tensor<2x1x5xcomplex<f64>>
    %16 = stablehlo.select %13, %14, %15 : tensor<2x1x5xi1>, tensor<2x1x5xcomplex<f64>>
    return %16 : tensor<2x1x5xcomplex<f64>>
  }
  func.func private @eigvals(%arg0: tensor<2x5x5xf64>) -> tensor<2x5xcomplex<f64>> {
    %cst = stablehlo.constant dense<(0x7FF8000000000000,0x7FF8000000000000)> : tensor<complex<f64>>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0:5 = stablehlo.custom_call @lapack_dgeev_ffi(%arg0) {mhlo.backend_config = {compute_left = 78 : ui8, compute_right = 78 : ui8}, mhlo.frontend_attributes = {num_batch_dims = "1"}, operand_layouts = [dense<[1, 2, 0]> : tensor<3xindex>], result_layouts = [dense<[1, 0]> : tensor<2xindex>, dense<[1, 0]> : tensor<2xindex>, dense<[1, 2, 0]> : tensor<3xindex>, dense<[1, 2, 0]> : tensor<3xindex>, dense<0> : tensor<1xindex>], sdy.sharding_rule = #sdy.op_sharding_rule<([i, j, k])->([i, l], [i, m], [i, n, o], [i, p, q], [i]) {i=2, j=5, k=5, l=5, m=5, n=5, o=5, p=5, q=5}, custom>} : (tensor<2x5x5xf64>) -> (tensor<2x5xf64>, tensor<2x5xf64>, tensor<2x5x5xcomplex<f64>>, tensor<2x5x5xcomplex<f64>>, tensor<2xi32>)
    %1 = stablehlo.complex %0#0, %0#1 : tensor<2x5xcomplex<f64>>
    %2 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<2xi32>
    %3 = stablehlo.compare EQ, %0#4, %2, SIGNED : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi1>
    %4 = stablehlo.broadcast_in_dim %3, dims = [0] : (tensor<2xi1>) -> tensor<2x1xi1>
    %5 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<complex<f64>>) -> tensor<2x5xcomplex<f64>>
    %6 = stablehlo.broadcast_in_dim %4, dims = [0, 1] : (tensor<2x1xi1>) -> tensor<2x5xi1>
    %7 = stablehlo.select %6, %1, %5 : tensor<2x5xi1>, tensor<2x5xcomplex<f64>>
    return %7 : tensor<2x5xcomplex<f64>>
  }
}
