module @jit_f attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<64xf32>, %arg1: tensor<64xf32>, %arg2: tensor<64xf32>) -> (tensor<64xf32> {jax.result_info = "result['cbrt']"}, tensor<64xf32> {jax.result_info = "result['cos']"}, tensor<64xf32> {jax.result_info = "result['erf']"}, tensor<64xf32> {jax.result_info = "result['exp']"}, tensor<64xf32> {jax.result_info = "result['expm1']"}, tensor<64xf32> {jax.result_info = "result['log']"}, tensor<64xf32> {jax.result_info = "result['log1p']"}, tensor<64xf32> {jax.result_info = "result['logistic']"}, tensor<64xf32> {jax.result_info = "result['neg']"}, tensor<64xf32> {jax.result_info = "result['rsqrt']"}, tensor<64xf32> {jax.result_info = "result['sin']"}, tensor<64xf32> {jax.result_info = "result['sqrt']"}, tensor<64xf32> {jax.result_info = "result['tan']"}, tensor<64xf32> {jax.result_info = "result['tanh']"}) {
    %0 = stablehlo.exponential %arg0 : tensor<64xf32>
    %1 = stablehlo.exponential_minus_one %arg0 : tensor<64xf32>
    %2 = stablehlo.log %arg1 : tensor<64xf32>
    %3 = stablehlo.log_plus_one %arg1 : tensor<64xf32>
    %4 = stablehlo.sqrt %arg1 : tensor<64xf32>
    %5 = stablehlo.rsqrt %arg1 : tensor<64xf32>
    %6 = stablehlo.cbrt %arg0 : tensor<64xf32>
    %7 = stablehlo.tanh %arg0 : tensor<64xf32>
    %8 = stablehlo.negate %arg0 : tensor<64xf32>
    %9 = stablehlo.exponential %8 : tensor<64xf32>
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %10 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<64xf32>
    %11 = stablehlo.add %10, %9 : tensor<64xf32>
    %cst_0 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %12 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<64xf32>
    %13 = stablehlo.divide %12, %11 : tensor<64xf32>
    %14 = stablehlo.sine %arg0 : tensor<64xf32>
    %15 = stablehlo.cosine %arg0 : tensor<64xf32>
    %16 = stablehlo.tan %arg2 : tensor<64xf32>
    %17 = chlo.erf %arg0 : tensor<64xf32> -> tensor<64xf32>
    %18 = stablehlo.negate %arg0 : tensor<64xf32>
    return %6, %15, %17, %0, %1, %2, %3, %13, %18, %5, %14, %4, %16, %7 : tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>
  }
}
