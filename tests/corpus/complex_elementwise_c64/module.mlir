module @jit_f attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<48xcomplex<f32>>, %arg1: tensor<48xcomplex<f32>>, %arg2: tensor<48xcomplex<f32>>, %arg3: tensor<48xf32>, %arg4: tensor<48xf32>, %arg5: tensor<48xi1>) -> (tensor<48xf32> {jax.result_info = "result['abs']"}, tensor<48xcomplex<f32>> {jax.result_info = "result['add']"}, tensor<48xcomplex<f32>> {jax.result_info = "result['chain']"}, tensor<48xcomplex<f32>> {jax.result_info = "result['complex']"}, tensor<48xcomplex<f32>> {jax.result_info = "result['conj']"}, tensor<48xcomplex<f32>> {jax.result_info = "result['convert']"}, tensor<48xcomplex<f32>> {jax.result_info = "result['cos']"}, tensor<48xcomplex<f32>> {jax.result_info = "result['div']"}, tensor<48xi1> {jax.result_info = "result['eq']"}, tensor<48xcomplex<f32>> {jax.result_info = "result['exp']"}, tensor<48xcomplex<f32>> {jax.result_info = "result['expm1']"}, tensor<48xf32> {jax.result_info = "result['imag']"}, tensor<48xcomplex<f32>> {jax.result_info = "result['log']"}, tensor<48xcomplex<f32>> {jax.result_info = "result['log1p']"}, tensor<48xcomplex<f32>> {jax.result_info = "result['mul']"}, tensor<48xi1> {jax.result_info = "result['ne']"}, tensor<48xcomplex<f32>> {jax.result_info = "result['neg']"}, tensor<48xcomplex<f32>> {jax.result_info = "result['pow']"}, tensor<48xf32> {jax.result_info = "result['real']"}, tensor<48xcomplex<f32>> {jax.result_info = "result['rsqrt']"}, tensor<48xcomplex<f32>> {jax.result_info = "result['select']"}, tensor<48xcomplex<f32>> {jax.result_info = "result['sign']"}, tensor<48xcomplex<f32>> {jax.result_info = "result['sin']"}, tensor<48xcomplex<f32>> {jax.result_info = "result['sqrt']"}, tensor<48xcomplex<f32>> {jax.result_info = "result['sub']"}, tensor<48xcomplex<f32>> {jax.result_info = "result['tan']"}, tensor<48xcomplex<f32>> {jax.result_info = "result['tanh']"}) {
    %0 = stablehlo.complex %arg3, %arg4 : tensor<48xcomplex<f32>>
    %1 = stablehlo.real %arg0 : (tensor<48xcomplex<f32>>) -> tensor<48xf32>
    %2 = stablehlo.imag %arg0 : (tensor<48xcomplex<f32>>) -> tensor<48xf32>
    %3 = stablehlo.real %arg0 : (tensor<48xcomplex<f32>>) -> tensor<48xf32>
    %4 = stablehlo.imag %arg0 : (tensor<48xcomplex<f32>>) -> tensor<48xf32>
    %5 = stablehlo.negate %4 : tensor<48xf32>
    %6 = stablehlo.complex %3, %5 : tensor<48xcomplex<f32>>
    %7 = stablehlo.add %arg0, %arg1 : tensor<48xcomplex<f32>>
    %8 = stablehlo.subtract %arg0, %arg1 : tensor<48xcomplex<f32>>
    %9 = stablehlo.multiply %arg0, %arg1 : tensor<48xcomplex<f32>>
    %10 = stablehlo.divide %arg0, %arg2 : tensor<48xcomplex<f32>>
    %11 = stablehlo.negate %arg0 : tensor<48xcomplex<f32>>
    %12 = stablehlo.abs %arg0 : (tensor<48xcomplex<f32>>) -> tensor<48xf32>
    %13 = stablehlo.sign %arg0 : tensor<48xcomplex<f32>>
    %14 = stablehlo.exponential %arg0 : tensor<48xcomplex<f32>>
    %15 = stablehlo.exponential_minus_one %arg0 : tensor<48xcomplex<f32>>
    %16 = stablehlo.log %arg2 : tensor<48xcomplex<f32>>
    %17 = stablehlo.log_plus_one %arg0 : tensor<48xcomplex<f32>>
    %18 = stablehlo.sqrt %arg0 : tensor<48xcomplex<f32>>
    %19 = stablehlo.rsqrt %arg2 : tensor<48xcomplex<f32>>
    %cst = stablehlo.constant dense<(5.000000e-01,0.000000e+00)> : tensor<complex<f32>>
    %20 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<complex<f32>>) -> tensor<48xcomplex<f32>>
    %21 = stablehlo.multiply %arg1, %20 : tensor<48xcomplex<f32>>
    %22 = stablehlo.power %arg2, %21 : tensor<48xcomplex<f32>>
    %23 = stablehlo.real %arg0 : (tensor<48xcomplex<f32>>) -> tensor<48xf32>
    %24 = stablehlo.imag %arg0 : (tensor<48xcomplex<f32>>) -> tensor<48xf32>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %25 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<48xf32>
    %26 = stablehlo.compare EQ, %23, %25, FLOAT : (tensor<48xf32>, tensor<48xf32>) -> tensor<48xi1>
    %27 = stablehlo.sine %23 : tensor<48xf32>
    %28 = stablehlo.cosine %23 : tensor<48xf32>
    %29 = stablehlo.exponential_minus_one %24 : tensor<48xf32>
    %30 = stablehlo.negate %24 : tensor<48xf32>
    %31 = stablehlo.exponential_minus_one %30 : tensor<48xf32>
    %32 = stablehlo.subtract %29, %31 : tensor<48xf32>
    %cst_1 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %33 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<48xf32>
    %34 = stablehlo.divide %32, %33 : tensor<48xf32>
    %35 = stablehlo.add %29, %31 : tensor<48xf32>
    %cst_2 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %36 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<48xf32>
    %37 = stablehlo.add %35, %36 : tensor<48xf32>
    %cst_3 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %38 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f32>) -> tensor<48xf32>
    %39 = stablehlo.divide %37, %38 : tensor<48xf32>
    %40 = stablehlo.multiply %27, %39 : tensor<48xf32>
    %41 = stablehlo.multiply %28, %34 : tensor<48xf32>
    %cst_4 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %42 = stablehlo.broadcast_in_dim %cst_4, dims = [] : (tensor<f32>) -> tensor<48xf32>
    %43 = stablehlo.complex %42, %41 : tensor<48xcomplex<f32>>
    %44 = stablehlo.complex %40, %41 : tensor<48xcomplex<f32>>
    %45 = stablehlo.select %26, %43, %44 : tensor<48xi1>, tensor<48xcomplex<f32>>
    %46 = stablehlo.real %arg0 : (tensor<48xcomplex<f32>>) -> tensor<48xf32>
    %47 = stablehlo.imag %arg0 : (tensor<48xcomplex<f32>>) -> tensor<48xf32>
    %cst_5 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %48 = stablehlo.broadcast_in_dim %cst_5, dims = [] : (tensor<f32>) -> tensor<48xf32>
    %49 = stablehlo.compare EQ, %46, %48, FLOAT : (tensor<48xf32>, tensor<48xf32>) -> tensor<48xi1>
    %50 = stablehlo.sine %46 : tensor<48xf32>
    %51 = stablehlo.cosine %46 : tensor<48xf32>
    %52 = stablehlo.exponential_minus_one %47 : tensor<48xf32>
    %53 = stablehlo.negate %47 : tensor<48xf32>
    %54 = stablehlo.exponential_minus_one %53 : tensor<48xf32>
    %55 = stablehlo.subtract %52, %54 : tensor<48xf32>
    %cst_6 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %56 = stablehlo.broadcast_in_dim %cst_6, dims = [] : (tensor<f32>) -> tensor<48xf32>
    %57 = stablehlo.divide %55, %56 : tensor<48xf32>
    %58 = stablehlo.add %52, %54 : tensor<48xf32>
    %cst_7 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %59 = stablehlo.broadcast_in_dim %cst_7, dims = [] : (tensor<f32>) -> tensor<48xf32>
    %60 = stablehlo.add %58, %59 : tensor<48xf32>
    %cst_8 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %61 = stablehlo.broadcast_in_dim %cst_8, dims = [] : (tensor<f32>) -> tensor<48xf32>
    %62 = stablehlo.divide %60, %61 : tensor<48xf32>
    %63 = stablehlo.multiply %51, %62 : tensor<48xf32>
    %64 = stablehlo.negate %50 : tensor<48xf32>
    %65 = stablehlo.multiply %64, %57 : tensor<48xf32>
    %cst_9 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %66 = stablehlo.broadcast_in_dim %cst_9, dims = [] : (tensor<f32>) -> tensor<48xf32>
    %67 = stablehlo.complex %63, %66 : tensor<48xcomplex<f32>>
    %68 = stablehlo.complex %63, %65 : tensor<48xcomplex<f32>>
    %69 = stablehlo.select %49, %67, %68 : tensor<48xi1>, tensor<48xcomplex<f32>>
    %70 = stablehlo.tan %arg0 : tensor<48xcomplex<f32>>
    %71 = stablehlo.tanh %arg0 : tensor<48xcomplex<f32>>
    %72 = call @_where(%arg5, %arg0, %arg1) : (tensor<48xi1>, tensor<48xcomplex<f32>>, tensor<48xcomplex<f32>>) -> tensor<48xcomplex<f32>>
    %73 = stablehlo.compare EQ, %arg0, %72, FLOAT : (tensor<48xcomplex<f32>>, tensor<48xcomplex<f32>>) -> tensor<48xi1>
    %74 = call @_where(%arg5, %arg0, %arg1) : (tensor<48xi1>, tensor<48xcomplex<f32>>, tensor<48xcomplex<f32>>) -> tensor<48xcomplex<f32>>
    %75 = stablehlo.compare NE, %arg0, %74, FLOAT : (tensor<48xcomplex<f32>>, tensor<48xcomplex<f32>>) -> tensor<48xi1>
    %76 = stablehlo.convert %arg3 : (tensor<48xf32>) -> tensor<48xcomplex<f32>>
    %77 = stablehlo.add %76, %arg0 : tensor<48xcomplex<f32>>
    %78 = call @_where(%arg5, %arg0, %arg1) : (tensor<48xi1>, tensor<48xcomplex<f32>>, tensor<48xcomplex<f32>>) -> tensor<48xcomplex<f32>>
    %79 = stablehlo.multiply %arg0, %arg1 : tensor<48xcomplex<f32>>
    %80 = stablehlo.add %79, %0 : tensor<48xcomplex<f32>>
    %81 = stablehlo.exponential %80 : tensor<48xcomplex<f32>>
    %82 = stablehlo.abs %arg0 : (tensor<48xcomplex<f32>>) -> tensor<48xf32>
    %cst_10 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %83 = stablehlo.broadcast_in_dim %cst_10, dims = [] : (tensor<f32>) -> tensor<48xf32>
    %84 = stablehlo.add %83, %82 : tensor<48xf32>
    %85 = stablehlo.convert %84 : (tensor<48xf32>) -> tensor<48xcomplex<f32>>
    %86 = stablehlo.divide %81, %85 : tensor<48xcomplex<f32>>
    return %12, %7, %86, %0, %6, %77, %69, %10, %73, %14, %15, %2, %16, %17, %9, %75, %11, %22, %1, %19, %78, %13, %45, %18, %8, %70, %71 : tensor<48xf32>, tensor<48xcomplex<f32>>, tensor<48xcomplex<f32>>, tensor<48xcomplex<f32>>, tensor<48xcomplex<f32>>, tensor<48xcomplex<f32>>, tensor<48xcomplex<f32>>, tensor<48xcomplex<f32>>, tensor<48xi1>, tensor<48xcomplex<f32>>, tensor<48xcomplex<f32>>, tensor<48xf32>, tensor<48xcomplex<f32>>, tensor<48xcomplex<f32>>, tensor<48xcomplex<f32>>, tensor<48xi1>, tensor<48xcomplex<f32>>, tensor<48xcomplex<f32>>, tensor<48xf32>, tensor<48xcomplex<f32>>, tensor<48xcomplex<f32>>, tensor<48xcomplex<f32>>, tensor<48xcomplex<f32>>, tensor<48xcomplex<f32>>, tensor<48xcomplex<f32>>, tensor<48xcomplex<f32>>, tensor<48xcomplex<f32>>
  }
  func.func private @_where(%arg0: tensor<48xi1>, %arg1: tensor<48xcomplex<f32>>, %arg2: tensor<48xcomplex<f32>>) -> tensor<48xcomplex<f32>> {
    %0 = stablehlo.select %arg0, %arg1, %arg2 : tensor<48xi1>, tensor<48xcomplex<f32>>
    return %0 : tensor<48xcomplex<f32>>
  }
}
