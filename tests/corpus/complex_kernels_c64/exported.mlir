module @jit_f attributes {jax.uses_shape_polymorphism = false, mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<2x3x9xcomplex<f32>>, %arg1: tensor<4x3x3xcomplex<f32>>, %arg2: tensor<1x2x6x5xcomplex<f32>>, %arg3: tensor<4x1x3x2xcomplex<f32>>, %arg4: tensor<3x10xcomplex<f32>>, %arg5: tensor<3x10xi32>, %arg6: tensor<8x3xcomplex<f32>>, %arg7: tensor<6xi32>, %arg8: tensor<6x3xcomplex<f32>>, %arg9: tensor<12xcomplex<f32>>) -> (tensor<10xi32> {jax.result_info = "result['argsort']"}, tensor<2x4x9xcomplex<f32>> {jax.result_info = "result['conv1d']"}, tensor<2x4x4xcomplex<f32>> {jax.result_info = "result['conv1d_strided']"}, tensor<1x4x4x4xcomplex<f32>> {jax.result_info = "result['conv2d_groups']"}, tensor<15xcomplex<f32>> {jax.result_info = "result['convolve']"}, tensor<12xcomplex<f32>> {jax.result_info = "result['cumprod']"}, tensor<12xcomplex<f32>> {jax.result_info = "result['cumsum']"}, tensor<8x3xcomplex<f32>> {jax.result_info = "result['cumsum_2d']"}, tensor<8x3xcomplex<f32>> {jax.result_info = "result['scatter_add']"}, tensor<8x3xcomplex<f32>> {jax.result_info = "result['scatter_mul']"}, tensor<8x3xcomplex<f32>> {jax.result_info = "result['scatter_set']"}, tensor<3x10xcomplex<f32>> {jax.result_info = "result['sort']"}, tensor<3x10xcomplex<f32>> {jax.result_info = "result['sort_axis0']"}, tensor<3x10xcomplex<f32>> {jax.result_info = "result['sort_payload'][0]"}, tensor<3x10xi32> {jax.result_info = "result['sort_payload'][1]"}, tensor<1x2x3x5xcomplex<f32>> {jax.result_info = "result['window_sum']"}) {
    %cst = stablehlo.constant dense<(0.000000e+00,0.000000e+00)> : tensor<complex<f32>>
    %cst_0 = stablehlo.constant dense<(8.000000e-01,0.000000e+00)> : tensor<complex<f32>>
    %c = stablehlo.constant dense<8> : tensor<i32>
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %cst_2 = stablehlo.constant dense<0x7FC00000> : tensor<f32>
    %cst_3 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.real %arg0 : (tensor<2x3x9xcomplex<f32>>) -> tensor<2x3x9xf32>
    %1 = stablehlo.imag %arg0 : (tensor<2x3x9xcomplex<f32>>) -> tensor<2x3x9xf32>
    %2 = stablehlo.real %arg1 : (tensor<4x3x3xcomplex<f32>>) -> tensor<4x3x3xf32>
    %3 = stablehlo.imag %arg1 : (tensor<4x3x3xcomplex<f32>>) -> tensor<4x3x3xf32>
    %4 = stablehlo.add %0, %1 : tensor<2x3x9xf32>
    %5 = stablehlo.convolution(%4, %2) dim_numbers = [b, f, 0]x[o, i, 0]->[b, f, 0], window = {pad = [[1, 1]]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<2x3x9xf32>, tensor<4x3x3xf32>) -> tensor<2x4x9xf32>
    %6 = stablehlo.subtract %3, %2 : tensor<4x3x3xf32>
    %7 = stablehlo.convolution(%0, %6) dim_numbers = [b, f, 0]x[o, i, 0]->[b, f, 0], window = {pad = [[1, 1]]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<2x3x9xf32>, tensor<4x3x3xf32>) -> tensor<2x4x9xf32>
    %8 = stablehlo.add %2, %3 : tensor<4x3x3xf32>
    %9 = stablehlo.convolution(%1, %8) dim_numbers = [b, f, 0]x[o, i, 0]->[b, f, 0], window = {pad = [[1, 1]]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<2x3x9xf32>, tensor<4x3x3xf32>) -> tensor<2x4x9xf32>
    %10 = stablehlo.subtract %5, %9 : tensor<2x4x9xf32>
    %11 = stablehlo.add %5, %7 : tensor<2x4x9xf32>
    %12 = stablehlo.complex %10, %11 : tensor<2x4x9xcomplex<f32>>
    %13 = stablehlo.real %arg0 : (tensor<2x3x9xcomplex<f32>>) -> tensor<2x3x9xf32>
    %14 = stablehlo.imag %arg0 : (tensor<2x3x9xcomplex<f32>>) -> tensor<2x3x9xf32>
    %15 = stablehlo.real %arg1 : (tensor<4x3x3xcomplex<f32>>) -> tensor<4x3x3xf32>
    %16 = stablehlo.imag %arg1 : (tensor<4x3x3xcomplex<f32>>) -> tensor<4x3x3xf32>
    %17 = stablehlo.add %13, %14 : tensor<2x3x9xf32>
    %18 = stablehlo.convolution(%17, %15) dim_numbers = [b, f, 0]x[o, i, 0]->[b, f, 0], window = {stride = [2], pad = [[2, 1]], rhs_dilate = [2]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<2x3x9xf32>, tensor<4x3x3xf32>) -> tensor<2x4x4xf32>
    %19 = stablehlo.subtract %16, %15 : tensor<4x3x3xf32>
    %20 = stablehlo.convolution(%13, %19) dim_numbers = [b, f, 0]x[o, i, 0]->[b, f, 0], window = {stride = [2], pad = [[2, 1]], rhs_dilate = [2]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<2x3x9xf32>, tensor<4x3x3xf32>) -> tensor<2x4x4xf32>
    %21 = stablehlo.add %15, %16 : tensor<4x3x3xf32>
    %22 = stablehlo.convolution(%14, %21) dim_numbers = [b, f, 0]x[o, i, 0]->[b, f, 0], window = {stride = [2], pad = [[2, 1]], rhs_dilate = [2]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<2x3x9xf32>, tensor<4x3x3xf32>) -> tensor<2x4x4xf32>
    %23 = stablehlo.subtract %18, %22 : tensor<2x4x4xf32>
    %24 = stablehlo.add %18, %20 : tensor<2x4x4xf32>
    %25 = stablehlo.complex %23, %24 : tensor<2x4x4xcomplex<f32>>
    %26 = stablehlo.real %arg2 : (tensor<1x2x6x5xcomplex<f32>>) -> tensor<1x2x6x5xf32>
    %27 = stablehlo.imag %arg2 : (tensor<1x2x6x5xcomplex<f32>>) -> tensor<1x2x6x5xf32>
    %28 = stablehlo.real %arg3 : (tensor<4x1x3x2xcomplex<f32>>) -> tensor<4x1x3x2xf32>
    %29 = stablehlo.imag %arg3 : (tensor<4x1x3x2xcomplex<f32>>) -> tensor<4x1x3x2xf32>
    %30 = stablehlo.add %26, %27 : tensor<1x2x6x5xf32>
    %31 = stablehlo.convolution(%30, %28) dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1], window = {} {batch_group_count = 1 : i64, feature_group_count = 2 : i64} : (tensor<1x2x6x5xf32>, tensor<4x1x3x2xf32>) -> tensor<1x4x4x4xf32>
    %32 = stablehlo.subtract %29, %28 : tensor<4x1x3x2xf32>
    %33 = stablehlo.convolution(%26, %32) dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1], window = {} {batch_group_count = 1 : i64, feature_group_count = 2 : i64} : (tensor<1x2x6x5xf32>, tensor<4x1x3x2xf32>) -> tensor<1x4x4x4xf32>
    %34 = stablehlo.add %28, %29 : tensor<4x1x3x2xf32>
    %35 = stablehlo.convolution(%27, %34) dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1], window = {} {batch_group_count = 1 : i64, feature_group_count = 2 : i64} : (tensor<1x2x6x5xf32>, tensor<4x1x3x2xf32>) -> tensor<1x4x4x4xf32>
    %36 = stablehlo.subtract %31, %35 : tensor<1x4x4x4xf32>
    %37 = stablehlo.add %31, %33 : tensor<1x4x4x4xf32>
    %38 = stablehlo.complex %36, %37 : tensor<1x4x4x4xcomplex<f32>>
    %39 = stablehlo.slice %arg9 [0:4] : (tensor<12xcomplex<f32>>) -> tensor<4xcomplex<f32>>
    %40 = call @convolve(%arg9, %39) : (tensor<12xcomplex<f32>>, tensor<4xcomplex<f32>>) -> tensor<15xcomplex<f32>>
    %41 = call @sort(%arg4) : (tensor<3x10xcomplex<f32>>) -> tensor<3x10xcomplex<f32>>
    %42 = call @sort_0(%arg4) : (tensor<3x10xcomplex<f32>>) -> tensor<3x10xcomplex<f32>>
    %43 = stablehlo.slice %arg4 [0:1, 0:10] : (tensor<3x10xcomplex<f32>>) -> tensor<1x10xcomplex<f32>>
    %44 = stablehlo.reshape %43 : (tensor<1x10xcomplex<f32>>) -> tensor<10xcomplex<f32>>
    %45 = call @argsort(%44) : (tensor<10xcomplex<f32>>) -> tensor<10xi32>
    %46:2 = "stablehlo.sort"(%arg4, %arg5) <{dimension = 1 : i64, is_stable = true}> ({
    ^bb0(%arg10: tensor<complex<f32>>, %arg11: tensor<complex<f32>>, %arg12: tensor<i32>, %arg13: tensor<i32>):
      %77 = stablehlo.real %arg10 : (tensor<complex<f32>>) -> tensor<f32>
      %78 = stablehlo.compare EQ, %77, %cst_3, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %79 = stablehlo.select %78, %cst_3, %77 : tensor<i1>, tensor<f32>
      %80 = stablehlo.compare NE, %77, %77, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %81 = stablehlo.select %80, %cst_2, %79 : tensor<i1>, tensor<f32>
      %82 = stablehlo.imag %arg10 : (tensor<complex<f32>>) -> tensor<f32>
      %83 = stablehlo.compare EQ, %82, %cst_3, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %84 = stablehlo.select %83, %cst_3, %82 : tensor<i1>, tensor<f32>
      %85 = stablehlo.compare NE, %82, %82, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %86 = stablehlo.select %85, %cst_2, %84 : tensor<i1>, tensor<f32>
      %87 = stablehlo.real %arg11 : (tensor<complex<f32>>) -> tensor<f32>
      %88 = stablehlo.compare EQ, %87, %cst_3, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %89 = stablehlo.select %88, %cst_3, %87 : tensor<i1>, tensor<f32>
      %90 = stablehlo.compare NE, %87, %87, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %91 = stablehlo.select %90, %cst_2, %89 : tensor<i1>, tensor<f32>
      %92 = stablehlo.imag %arg11 : (tensor<complex<f32>>) -> tensor<f32>
      %93 = stablehlo.compare EQ, %92, %cst_3, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %94 = stablehlo.select %93, %cst_3, %92 : tensor<i1>, tensor<f32>
      %95 = stablehlo.compare NE, %92, %92, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %96 = stablehlo.select %95, %cst_2, %94 : tensor<i1>, tensor<f32>
      %97 = stablehlo.compare LT, %86, %96, TOTALORDER : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %98 = stablehlo.compare LT, %81, %91, TOTALORDER : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %99 = stablehlo.compare EQ, %81, %91, TOTALORDER : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %100 = stablehlo.and %99, %97 : tensor<i1>
      %101 = stablehlo.or %98, %100 : tensor<i1>
      stablehlo.return %101 : tensor<i1>
    }) : (tensor<3x10xcomplex<f32>>, tensor<3x10xi32>) -> (tensor<3x10xcomplex<f32>>, tensor<3x10xi32>)
    %47 = stablehlo.broadcast_in_dim %c_1, dims = [] : (tensor<i32>) -> tensor<6xi32>
    %48 = stablehlo.compare LT, %arg7, %47, SIGNED : (tensor<6xi32>, tensor<6xi32>) -> tensor<6xi1>
    %49 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<6xi32>
    %50 = stablehlo.add %arg7, %49 : tensor<6xi32>
    %51 = stablehlo.select %48, %50, %arg7 : tensor<6xi1>, tensor<6xi32>
    %52 = stablehlo.broadcast_in_dim %51, dims = [0] : (tensor<6xi32>) -> tensor<6x1xi32>
    %53 = "stablehlo.scatter"(%arg6, %52, %arg8) <{scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>}> ({
    ^bb0(%arg10: tensor<complex<f32>>, %arg11: tensor<complex<f32>>):
      %77 = stablehlo.add %arg10, %arg11 : tensor<complex<f32>>
      stablehlo.return %77 : tensor<complex<f32>>
    }) : (tensor<8x3xcomplex<f32>>, tensor<6x1xi32>, tensor<6x3xcomplex<f32>>) -> tensor<8x3xcomplex<f32>>
    %54 = stablehlo.slice %arg7 [0:3] : (tensor<6xi32>) -> tensor<3xi32>
    %55 = stablehlo.slice %arg8 [0:3, 0:3] : (tensor<6x3xcomplex<f32>>) -> tensor<3x3xcomplex<f32>>
    %56 = stablehlo.broadcast_in_dim %c_1, dims = [] : (tensor<i32>) -> tensor<3xi32>
    %57 = stablehlo.compare LT, %54, %56, SIGNED : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi1>
    %58 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<3xi32>
    %59 = stablehlo.add %54, %58 : tensor<3xi32>
    %60 = stablehlo.select %57, %59, %54 : tensor<3xi1>, tensor<3xi32>
    %61 = stablehlo.broadcast_in_dim %60, dims = [0] : (tensor<3xi32>) -> tensor<3x1xi32>
    %62 = "stablehlo.scatter"(%arg6, %61, %55) <{scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>}> ({
    ^bb0(%arg10: tensor<complex<f32>>, %arg11: tensor<complex<f32>>):
      stablehlo.return %arg11 : tensor<complex<f32>>
    }) : (tensor<8x3xcomplex<f32>>, tensor<3x1xi32>, tensor<3x3xcomplex<f32>>) -> tensor<8x3xcomplex<f32>>
    %63 = stablehlo.broadcast_in_dim %c_1, dims = [] : (tensor<i32>) -> tensor<6xi32>
    %64 = stablehlo.compare LT, %arg7, %63, SIGNED : (tensor<6xi32>, tensor<6xi32>) -> tensor<6xi1>
    %65 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<6xi32>
    %66 = stablehlo.add %arg7, %65 : tensor<6xi32>
    %67 = stablehlo.select %64, %66, %arg7 : tensor<6xi1>, tensor<6xi32>
    %68 = stablehlo.broadcast_in_dim %67, dims = [0] : (tensor<6xi32>) -> tensor<6x1xi32>
    %69 = "stablehlo.scatter"(%arg6, %68, %arg8) <{scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>}> ({
    ^bb0(%arg10: tensor<complex<f32>>, %arg11: tensor<complex<f32>>):
      %77 = stablehlo.multiply %arg10, %arg11 : tensor<complex<f32>>
      stablehlo.return %77 : tensor<complex<f32>>
    }) : (tensor<8x3xcomplex<f32>>, tensor<6x1xi32>, tensor<6x3xcomplex<f32>>) -> tensor<8x3xcomplex<f32>>
    %70 = call @cumsum(%arg9) : (tensor<12xcomplex<f32>>) -> tensor<12xcomplex<f32>>
    %71 = call @cumsum_2(%arg6) : (tensor<8x3xcomplex<f32>>) -> tensor<8x3xcomplex<f32>>
    %72 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<complex<f32>>) -> tensor<12xcomplex<f32>>
    %73 = stablehlo.multiply %arg9, %72 : tensor<12xcomplex<f32>>
    %74 = call @cumprod(%73) : (tensor<12xcomplex<f32>>) -> tensor<12xcomplex<f32>>
    %75 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<complex<f32>>) -> tensor<complex<f32>>
    %76 = "stablehlo.reduce_window"(%arg2, %75) <{padding = dense<[[0, 0], [0, 0], [0, 0], [0, 1]]> : tensor<4x2xi64>, window_dimensions = array<i64: 1, 1, 2, 2>, window_strides = array<i64: 1, 1, 2, 1>}> ({
    ^bb0(%arg10: tensor<complex<f32>>, %arg11: tensor<complex<f32>>):
      %77 = stablehlo.add %arg10, %arg11 : tensor<complex<f32>>
      stablehlo.return %77 : tensor<complex<f32>>
    }) : (tensor<1x2x6x5xcomplex<f32>>, tensor<complex<f32>>) -> tensor<1x2x3x5xcomplex<f32>>
    return %45, %12, %25, %38, %40, %74, %70, %71, %53, %69, %62, %41, %42, %46#0, %46#1, %76 : tensor<10xi32>, tensor<2x4x9xcomplex<f32>>, tensor<2x4x4xcomplex<f32>>, tensor<1x4x4x4xcomplex<f32>>, tensor<15xcomplex<f32>>, tensor<12xcomplex<f32>>, tensor<12xcomplex<f32>>, tensor<8x3xcomplex<f32>>, tensor<8x3xcomplex<f32>>, tensor<8x3xcomplex<f32>>, tensor<8x3xcomplex<f32>>, tensor<3x10xcomplex<f32>>, tensor<3x10xcomplex<f32>>, tensor<3x10xcomplex<f32>>, tensor<3x10xi32>, tensor<1x2x3x5xcomplex<f32>>
  }
  func.func private @convolve(%arg0: tensor<12xcomplex<f32>>, %arg1: tensor<4xcomplex<f32>>) -> tensor<15xcomplex<f32>> {
    %0 = call @_conv(%arg0, %arg1) : (tensor<12xcomplex<f32>>, tensor<4xcomplex<f32>>) -> tensor<15xcomplex<f32>>
    return %0 : tensor<15xcomplex<f32>>
  }
  func.func private @_conv(%arg0: tensor<12xcomplex<f32>>, %arg1: tensor<4xcomplex<f32>>) -> tensor<15xcomplex<f32>> {
    %0 = call @_flip(%arg1) : (tensor<4xcomplex<f32>>) -> tensor<4xcomplex<f32>>
    %1 = stablehlo.broadcast_in_dim %arg0, dims = [2] : (tensor<12xcomplex<f32>>) -> tensor<1x1x12xcomplex<f32>>
    %2 = stablehlo.broadcast_in_dim %0, dims = [2] : (tensor<4xcomplex<f32>>) -> tensor<1x1x4xcomplex<f32>>
    %3 = stablehlo.real %1 : (tensor<1x1x12xcomplex<f32>>) -> tensor<1x1x12xf32>
    %4 = stablehlo.imag %1 : (tensor<1x1x12xcomplex<f32>>) -> tensor<1x1x12xf32>
    %5 = stablehlo.real %2 : (tensor<1x1x4xcomplex<f32>>) -> tensor<1x1x4xf32>
    %6 = stablehlo.imag %2 : (tensor<1x1x4xcomplex<f32>>) -> tensor<1x1x4xf32>
    %7 = stablehlo.add %3, %4 : tensor<1x1x12xf32>
    %8 = stablehlo.convolution(%7, %5) dim_numbers = [b, f, 0]x[o, i, 0]->[b, f, 0], window = {pad = [[3, 3]]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x1x12xf32>, tensor<1x1x4xf32>) -> tensor<1x1x15xf32>
    %9 = stablehlo.subtract %6, %5 : tensor<1x1x4xf32>
    %10 = stablehlo.convolution(%3, %9) dim_numbers = [b, f, 0]x[o, i, 0]->[b, f, 0], window = {pad = [[3, 3]]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x1x12xf32>, tensor<1x1x4xf32>) -> tensor<1x1x15xf32>
    %11 = stablehlo.add %5, %6 : tensor<1x1x4xf32>
    %12 = stablehlo.convolution(%4, %11) dim_numbers = [b, f, 0]x[o, i, 0]->[b, f, 0], window = {pad = [[3, 3]]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x1x12xf32>, tensor<1x1x4xf32>) -> tensor<1x1x15xf32>
    %13 = stablehlo.subtract %8, %12 : tensor<1x1x15xf32>
    %14 = stablehlo.add %8, %10 : tensor<1x1x15xf32>
    %15 = stablehlo.complex %13, %14 : tensor<1x1x15xcomplex<f32>>
    %16 = stablehlo.reshape %15 : (tensor<1x1x15xcomplex<f32>>) -> tensor<15xcomplex<f32>>
    return %16 : tensor<15xcomplex<f32>>
  }
  func.func private @_flip(%arg0: tensor<4xcomplex<f32>>) -> tensor<4xcomplex<f32>> {
    %0 = stablehlo.reverse %arg0, dims = [0] : tensor<4xcomplex<f32>>
    return %0 : tensor<4xcomplex<f32>>
  }
  func.func private @sort(%arg0: tensor<3x10xcomplex<f32>>) -> tensor<3x10xcomplex<f32>> {
    %cst = stablehlo.constant dense<0x7FC00000> : tensor<f32>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = "stablehlo.sort"(%arg0) <{dimension = 1 : i64, is_stable = true}> ({
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
    }) : (tensor<3x10xcomplex<f32>>) -> tensor<3x10xcomplex<f32>>
    return %0 : tensor<3x10xcomplex<f32>>
  }
  func.func private @sort_0(%arg0: tensor<3x10xcomplex<f32>>) -> tensor<3x10xcomplex<f32>> {
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
    }) : (tensor<3x10xcomplex<f32>>) -> tensor<3x10xcomplex<f32>>
    return %0 : tensor<3x10xcomplex<f32>>
  }
  func.func private @argsort(%arg0: tensor<10xcomplex<f32>>) -> tensor<10xi32> {
    %cst = stablehlo.constant dense<0x7FC00000> : tensor<f32>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.iota dim = 0 : tensor<10xi32>
    %1:2 = "stablehlo.sort"(%arg0, %0) <{dimension = 0 : i64, is_stable = true}> ({
    ^bb0(%arg1: tensor<complex<f32>>, %arg2: tensor<complex<f32>>, %arg3: tensor<i32>, %arg4: tensor<i32>):
      %2 = stablehlo.real %arg1 : (tensor<complex<f32>>) -> tensor<f32>
      %3 = stablehlo.compare EQ, %2, %cst_0, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %4 = stablehlo.select %3, %cst_0, %2 : tensor<i1>, tensor<f32>
      %5 = stablehlo.compare NE, %2, %2, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %6 = stablehlo.select %5, %cst, %4 : tensor<i1>, tensor<f32>
      %7 = stablehlo.imag %arg1 : (tensor<complex<f32>>) -> tensor<f32>
      %8 = stablehlo.compare EQ, %7, %cst_0, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %9 = stablehlo.select %8, %cst_0, %7 : tensor<i1>, tensor<f32>
      %10 = stablehlo.compare NE, %7, %7, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %11 = stablehlo.select %10, %cst, %9 : tensor<i1>, tensor<f32>
      %12 = stablehlo.real %arg2 : (tensor<complex<f32>>) -> tensor<f32>
      %13 = stablehlo.compare EQ, %12, %cst_0, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %14 = stablehlo.select %13, %cst_0, %12 : tensor<i1>, tensor<f32>
      %15 = stablehlo.compare NE, %12, %12, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %16 = stablehlo.select %15, %cst, %14 : tensor<i1>, tensor<f32>
      %17 = stablehlo.imag %arg2 : (tensor<complex<f32>>) -> tensor<f32>
      %18 = stablehlo.compare EQ, %17, %cst_0, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %19 = stablehlo.select %18, %cst_0, %17 : tensor<i1>, tensor<f32>
      %20 = stablehlo.compare NE, %17, %17, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %21 = stablehlo.select %20, %cst, %19 : tensor<i1>, tensor<f32>
      %22 = stablehlo.compare LT, %11, %21, TOTALORDER : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %23 = stablehlo.compare LT, %6, %16, TOTALORDER : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %24 = stablehlo.compare EQ, %6, %16, TOTALORDER : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %25 = stablehlo.and %24, %22 : tensor<i1>
      %26 = stablehlo.or %23, %25 : tensor<i1>
      stablehlo.return %26 : tensor<i1>
    }) : (tensor<10xcomplex<f32>>, tensor<10xi32>) -> (tensor<10xcomplex<f32>>, tensor<10xi32>)
    return %1#1 : tensor<10xi32>
  }
  func.func private @cumsum(%arg0: tensor<12xcomplex<f32>>) -> tensor<12xcomplex<f32>> {
    %0 = call @cumsum_1(%arg0) : (tensor<12xcomplex<f32>>) -> tensor<12xcomplex<f32>>
    return %0 : tensor<12xcomplex<f32>>
  }
  func.func private @cumsum_1(%arg0: tensor<12xcomplex<f32>>) -> tensor<12xcomplex<f32>> {
    %cst = stablehlo.constant dense<(0.000000e+00,0.000000e+00)> : tensor<complex<f32>>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<complex<f32>>) -> tensor<complex<f32>>
    %1 = "stablehlo.reduce_window"(%arg0, %0) <{padding = dense<[[11, 0]]> : tensor<1x2xi64>, window_dimensions = array<i64: 12>}> ({
    ^bb0(%arg1: tensor<complex<f32>>, %arg2: tensor<complex<f32>>):
      %2 = stablehlo.add %arg1, %arg2 : tensor<complex<f32>>
      stablehlo.return %2 : tensor<complex<f32>>
    }) : (tensor<12xcomplex<f32>>, tensor<complex<f32>>) -> tensor<12xcomplex<f32>>
    return %1 : tensor<12xcomplex<f32>>
  }
  func.func private @cumsum_2(%arg0: tensor<8x3xcomplex<f32>>) -> tensor<8x3xcomplex<f32>> {
    %0 = call @cumsum_3(%arg0) : (tensor<8x3xcomplex<f32>>) -> tensor<8x3xcomplex<f32>>
    return %0 : tensor<8x3xcomplex<f32>>
  }
  func.func private @cumsum_3(%arg0: tensor<8x3xcomplex<f32>>) -> tensor<8x3xcomplex<f32>> {
    %cst = stablehlo.constant dense<(0.000000e+00,0.000000e+00)> : tensor<complex<f32>>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<complex<f32>>) -> tensor<complex<f32>>
    %1 = "stablehlo.reduce_window"(%arg0, %0) <{padding = dense<[[7, 0], [0, 0]]> : tensor<2x2xi64>, window_dimensions = array<i64: 8, 1>}> ({
    ^bb0(%arg1: tensor<complex<f32>>, %arg2: tensor<complex<f32>>):
      %2 = stablehlo.add %arg1, %arg2 : tensor<complex<f32>>
      stablehlo.return %2 : tensor<complex<f32>>
    }) : (tensor<8x3xcomplex<f32>>, tensor<complex<f32>>) -> tensor<8x3xcomplex<f32>>
    return %1 : tensor<8x3xcomplex<f32>>
  }
  func.func private @cumprod(%arg0: tensor<12xcomplex<f32>>) -> tensor<12xcomplex<f32>> {
    %0 = call @cumprod_4(%arg0) : (tensor<12xcomplex<f32>>) -> tensor<12xcomplex<f32>>
    return %0 : tensor<12xcomplex<f32>>
  }
  func.func private @cumprod_4(%arg0: tensor<12xcomplex<f32>>) -> tensor<12xcomplex<f32>> {
    %cst = stablehlo.constant dense<(1.000000e+00,0.000000e+00)> : tensor<complex<f32>>
    %0 = "stablehlo.reduce_window"(%arg0, %cst) <{padding = dense<[[11, 0]]> : tensor<1x2xi64>, window_dimensions = array<i64: 12>}> ({
    ^bb0(%arg1: tensor<complex<f32>>, %arg2: tensor<complex<f32>>):
      %1 = stablehlo.multiply %arg1, %arg2 : tensor<complex<f32>>
      stablehlo.return %1 : tensor<complex<f32>>
    }) : (tensor<12xcomplex<f32>>, tensor<complex<f32>>) -> tensor<12xcomplex<f32>>
    return %0 : tensor<12xcomplex<f32>>
  }
}
