module @jit_f attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<48xcomplex<f64>>, %arg1: tensor<48xcomplex<f64>>, %arg2: tensor<48xcomplex<f64>>, %arg3: tensor<48xf64>, %arg4: tensor<48xf64>, %arg5: tensor<48xi1>) -> (tensor<48xf64> {jax.result_info = "result['abs']"}, tensor<48xcomplex<f64>> {jax.result_info = "result['add']"}, tensor<48xcomplex<f64>> {jax.result_info = "result['chain']"}, tensor<48xcomplex<f64>> {jax.result_info = "result['complex']"}, tensor<48xcomplex<f64>> {jax.result_info = "result['conj']"}, tensor<48xcomplex<f64>> {jax.result_info = "result['convert']"}, tensor<48xcomplex<f64>> {jax.result_info = "result['cos']"}, tensor<48xcomplex<f64>> {jax.result_info = "result['div']"}, tensor<48xi1> {jax.result_info = "result['eq']"}, tensor<48xcomplex<f64>> {jax.result_info = "result['exp']"}, tensor<48xcomplex<f64>> {jax.result_info = "result['expm1']"}, tensor<48xf64> {jax.result_info = "result['imag']"}, tensor<48xcomplex<f64>> {jax.result_info = "result['log']"}, tensor<48xcomplex<f64>> {jax.result_info = "result['log1p']"}, tensor<48xcomplex<f64>> {jax.result_info = "result['mul']"}, tensor<48xi1> {jax.result_info = "result['ne']"}, tensor<48xcomplex<f64>> {jax.result_info = "result['neg']"}, tensor<48xcomplex<f64>> {jax.result_info = "result['pow']"}, tensor<48xf64> {jax.result_info = "result['real']"}, tensor<48xcomplex<f64>> {jax.result_info = "result['rsqrt']"}, tensor<48xcomplex<f64>> {jax.result_info = "result['select']"}, tensor<48xcomplex<f64>> {jax.result_info = "result['sign']"}, tensor<48xcomplex<f64>> {jax.result_info = "result['sin']"}, tensor<48xcomplex<f64>> {jax.result_info = "result['sqrt']"}, tensor<48xcomplex<f64>> {jax.result_info = "result['sub']"}, tensor<48xcomplex<f64>> {jax.result_info = "result['tan']"}, tensor<48xcomplex<f64>> {jax.result_info = "result['tanh']"}) {
    %0 = stablehlo.complex %arg3, %arg4 : tensor<48xcomplex<f64>>
    %1 = stablehlo.real %arg0 : (tensor<48xcomplex<f64>>) -> tensor<48xf64>
    %2 = stablehlo.imag %arg0 : (tensor<48xcomplex<f64>>) -> tensor<48xf64>
    %3 = stablehlo.real %arg0 : (tensor<48xcomplex<f64>>) -> tensor<48xf64>
    %4 = stablehlo.imag %arg0 : (tensor<48xcomplex<f64>>) -> tensor<48xf64>
    %5 = stablehlo.negate %4 : tensor<48xf64>
    %6 = stablehlo.complex %3, %5 : tensor<48xcomplex<f64>>
    %7 = stablehlo.add %arg0, %arg1 : tensor<48xcomplex<f64>>
    %8 = stablehlo.subtract %arg0, %arg1 : tensor<48xcomplex<f64>>
    %9 = stablehlo.multiply %arg0, %arg1 : tensor<48xcomplex<f64>>
    %10 = stablehlo.divide %arg0, %arg2 : tensor<48xcomplex<f64>>
    %11 = stablehlo.negate %arg0 : tensor<48xcomplex<f64>>
    %12 = stablehlo.abs %arg0 : (tensor<48xcomplex<f64>>) -> tensor<48xf64>
    %13 = stablehlo.sign %arg0 : tensor<48xcomplex<f64>>
    %14 = stablehlo.exponential %arg0 : tensor<48xcomplex<f64>>
    %15 = stablehlo.exponential_minus_one %arg0 : tensor<48xcomplex<f64>>
    %16 = stablehlo.log %arg2 : tensor<48xcomplex<f64>>
    %17 = stablehlo.log_plus_one %arg0 : tensor<48xcomplex<f64>>
    %18 = stablehlo.sqrt %arg0 : tensor<48xcomplex<f64>>
    %19 = stablehlo.rsqrt %arg2 : tensor<48xcomplex<f64>>
    %cst = stablehlo.constant dense<(5.000000e-01,0.000000e+00)> : tensor<complex<f64>>
    %20 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<complex<f64>>) -> tensor<48xcomplex<f64>>
    %21 = stablehlo.multiply %arg1, %20 : tensor<48xcomplex<f64>>
    %22 = stablehlo.power %arg2, %21 : tensor<48xcomplex<f64>>
    %23 = stablehlo.real %arg0 : (tensor<48xcomplex<f64>>) -> tensor<48xf64>
    %24 = stablehlo.imag %arg0 : (tensor<48xcomplex<f64>>) -> tensor<48xf64>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f64>
    %25 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f64>) -> tensor<48xf64>
    %26 = stablehlo.compare EQ, %23, %25, FLOAT : (tensor<48xf64>, tensor<48xf64>) -> tensor<48xi1>
    %27 = stablehlo.sine %23 : tensor<48xf64>
    %28 = stablehlo.cosine %23 : tensor<48xf64>
    %29 = stablehlo.exponential_minus_one %24 : tensor<48xf64>
    %30 = stablehlo.negate %24 : tensor<48xf64>
    %31 = stablehlo.exponential_minus_one %30 : tensor<48xf64>
    %32 = stablehlo.subtract %29, %31 : tensor<48xf64>
    %cst_1 = stablehlo.constant dense<2.000000e+00> : tensor<f64>
    %33 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f64>) -> tensor<48xf64>
    %34 = stablehlo.divide %32, %33 : tensor<48xf64>
    %35 = stablehlo.add %29, %31 : tensor<48xf64>
    %cst_2 = stablehlo.constant dense<2.000000e+00> : tensor<f64>
    %36 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f64>) -> tensor<48xf64>
    %37 = stablehlo.add %35, %36 : tensor<48xf64>
    %cst_3 = stablehlo.constant dense<2.000000e+00> : tensor<f64>
    %38 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f64>) -> tensor<48xf64>
    %39 = stablehlo.divide %37, %38 : tensor<48xf64>
    %40 = stablehlo.multiply %27, %39 : tensor<48xf64>
    %41 = stablehlo.multiply %28, %34 : tensor<48xf64>
    %cst_4 = stablehlo.constant dense<0.000000e+00> : tensor<f64>
    %42 = stablehlo.broadcast_in_dim %cst_4, dims = [] : (tensor<f64>) -> tensor<48xf64>
    %43 = stablehlo.complex %42, %41 : tensor<48xcomplex<f64>>
    %44 = stablehlo.complex %40, %41 : tensor<48xcomplex<f64>>
    %45 = stablehlo.select %26, %43, %44 : tensor<48xi1>, tensor<48xcomplex<f64>>
    %46 = stablehlo.real %arg0 : (tensor<48xcomplex<f64>>) -> tensor<48xf64>
    %47 = stablehlo.imag %arg0 : (tensor<48xcomplex<f64>>) -> tensor<48xf64>
    %cst_5 = stablehlo.constant dense<0.000000e+00> : tensor<f64>
    %48 = stablehlo.broadcast_in_dim %cst_5, dims = [] : (tensor<f64>) -> tensor<48xf64>
    %49 = stablehlo.compare EQ, %46, %48, FLOAT : (tensor<48xf64>, tensor<48xf64>) -> tensor<48xi1>
    %50 = stablehlo.sine %46 : tensor<48xf64>
    %51 = stablehlo.cosine %46 : tensor<48xf64>
    %52 = stablehlo.exponential_minus_one %47 : tensor<48xf64>
    %53 = stablehlo.negate %47 : tensor<48xf64>
    %54 = stablehlo.exponential_minus_one %53 : tensor<48xf64>
    %55 = stablehlo.subtract %52, %54 : tensor<48xf64>
    %cst_6 = stablehlo.constant dense<2.000000e+00> : tensor<f64>
    %56 = stablehlo.broadcast_in_dim %cst_6, dims = [] : (tensor<f64>) -> tensor<48xf64>
    %57 = stablehlo.divide %55, %56 : tensor<48xf64>
    %58 = stablehlo.add %52, %54 : tensor<48xf64>
    %cst_7 = stablehlo.constant dense<2.000000e+00> : tensor<f64>
    %59 = stablehlo.broadcast_in_dim %cst_7, dims = [] : (tensor<f64>) -> tensor<48xf64>
    %60 = stablehlo.add %58, %59 : tensor<48xf64>
    %cst_8 = stablehlo.constant dense<2.000000e+00> : tensor<f64>
    %61 = stablehlo.broadcast_in_dim %cst_8, dims = [] : (tensor<f64>) -> tensor<48xf64>
    %62 = stablehlo.divide %60, %61 : tensor<48xf64>
    %63 = stablehlo.multiply %51, %62 : tensor<48xf64>
    %64 = stablehlo.negate %50 : tensor<48xf64>
    %65 = stablehlo.multiply %64, %57 : tensor<48xf64>
    %cst_9 = stablehlo.constant dense<0.000000e+00> : tensor<f64>
    %66 = stablehlo.broadcast_in_dim %cst_9, dims = [] : (tensor<f64>) -> tensor<48xf64>
    %67 = stablehlo.complex %63, %66 : tensor<48xcomplex<f64>>
    %68 = stablehlo.complex %63, %65 : tensor<48xcomplex<f64>>
    %69 = stablehlo.select %49, %67, %68 : tensor<48xi1>, tensor<48xcomplex<f64>>
    %70 = stablehlo.tan %arg0 : tensor<48xcomplex<f64>>
    %71 = stablehlo.tanh %arg0 : tensor<48xcomplex<f64>>
    %72 = call @_where(%arg5, %arg0, %arg1) : (tensor<48xi1>, tensor<48xcomplex<f64>>, tensor<48xcomplex<f64>>) -> tensor<48xcomplex<f64>>
    %73 = stablehlo.compare EQ, %arg0, %72, FLOAT : (tensor<48xcomplex<f64>>, tensor<48xcomplex<f64>>) -> tensor<48xi1>
    %74 = call @_where(%arg5, %arg0, %arg1) : (tensor<48xi1>, tensor<48xcomplex<f64>>, tensor<48xcomplex<f64>>) -> tensor<48xcomplex<f64>>
    %75 = stablehlo.compare NE, %arg0, %74, FLOAT : (tensor<48xcomplex<f64>>, tensor<48xcomplex<f64>>) -> tensor<48xi1>
    %76 = stablehlo.convert %arg3 : (tensor<48xf64>) -> tensor<48xcomplex<f64>>
    %77 = stablehlo.add %76, %arg0 : tensor<48xcomplex<f64>>
    %78 = call @_where(%arg5, %arg0, %arg1) : (tensor<48xi1>, tensor<48xcomplex<f64>>, tensor<48xcomplex<f64>>) -> tensor<48xcomplex<f64>>
    %79 = stablehlo.multiply %arg0, %arg1 : tensor<48xcomplex<f64>>
    %80 = stablehlo.add %79, %0 : tensor<48xcomplex<f64>>
    %81 = stablehlo.exponential %80 : tensor<48xcomplex<f64>>
    %82 = stablehlo.abs %arg0 : (tensor<48xcomplex<f64>>) -> tensor<48xf64>
    %cst_10 = stablehlo.constant dense<1.000000e+00> : tensor<f64>
    %83 = stablehlo.broadcast_in_dim %cst_10, dims = [] : (tensor<f64>) -> tensor<48xf64>
    %84 = stablehlo.add %83, %82 : tensor<48xf64>
    %85 = stablehlo.convert %84 : (tensor<48xf64>) -> tensor<48xcomplex<f64>>
    %86 = stablehlo.divide %81, %85 : tensor<48xcomplex<f64>>
    return %12, %7, %86, %0, %6, %77, %69, %10, %73, %14, %15, %2, %16, %17, %9, %75, %11, %22, %1, %19, %78, %13, %45, %18, %8, %70, %71 : tensor<48xf64>, tensor<48xcomplex<f64>>, tensor<48xcomplex<f64>>, tensor<48xcomplex<f64>>, tensor<48xcomplex<f64>>, tensor<48xcomplex<f64>>, tensor<48xcomplex<f64>>, tensor<48xcomplex<f64>>, tensor<48xi1>, tensor<48xcomplex<f64>>, tensor<48xcomplex<f64>>, tensor<48xf64>, tensor<48xcomplex<f64>>, tensor<48xcomplex<f64>>, tensor<48xcomplex<f64>>, tensor<48xi1>, tensor<48xcomplex<f64>>, tensor<48xcomplex<f64>>, tensor<48xf64>, tensor<48xcomplex<f64>>, tensor<48xcomplex<f64>>, tensor<48xcomplex<f64>>, tensor<48xcomplex<f64>>, tensor<48xcomplex<f64>>, tensor<48xcomplex<f64>>, tensor<48xcomplex<f64>>, tensor<48xcomplex<f64>>
  }
  func.func private @_where(%arg0: tensor<48xi1>, %arg1: tensor<48xcomplex<f64>>, %arg2: tensor<48xcomplex<f64>>) -> tensor<48xcomplex<f64>> {
    %0 = stablehlo.select %arg0, %arg1, %arg2 : tensor<48xi1>, tensor<48xcomplex<f64>>
    return %0 : tensor<48xcomplex<f64>>
  }
}
