module @jit_f attributes {jax.uses_shape_polymorphism = false, mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<64xf32>, %arg1: tensor<64xf32>, %arg2: tensor<64xf32>) -> (tensor<64xf32> {jax.result_info = "result['cbrt']"}, tensor<64xf32> {jax.result_info = "result['cos']"}, tensor<64xf32> {jax.result_info = "result['erf']"}, tensor<64xf32> {jax.result_info = "result['exp']"}, tensor<64xf32> {jax.result_info = "result['expm1']"}, tensor<64xf32> {jax.result_info = "result['log']"}, tensor<64xf32> {jax.result_info = "result['log1p']"}, tensor<64xf32> {jax.result_info = "result['logistic']"}, tensor<64xf32> {jax.result_info = "result['neg']"}, tensor<64xf32> {jax.result_info = "result['rsqrt']"}, tensor<64xf32> {jax.result_info = "result['sin']"}, tensor<64xf32> {jax.result_info = "result['sqrt']"}, tensor<64xf32> {jax.result_info = "result['tan']"}, tensor<64xf32> {jax.result_info = "result['tanh']"}) {
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
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
    %10 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<64xf32>
    %11 = stablehlo.add %10, %9 : tensor<64xf32>
    %12 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<64xf32>
    %13 = stablehlo.divide %12, %11 : tensor<64xf32>
    %14 = stablehlo.sine %arg0 : tensor<64xf32>
    %15 = stablehlo.cosine %arg0 : tensor<64xf32>
    %16 = stablehlo.tan %arg2 : tensor<64xf32>
    %17 = stablehlo.composite "chlo.erf" %arg0 {decomposition = @chlo.erf.impl, version = 1 : i32} : (tensor<64xf32>) -> tensor<64xf32>
    %18 = stablehlo.negate %arg0 : tensor<64xf32>
    return %6, %15, %17, %0, %1, %2, %3, %13, %18, %5, %14, %4, %16, %7 : tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>
  }
  func.func private @chlo.erf.impl(%arg0: tensor<64xf32>) -> tensor<64xf32> {
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<64xf32>
    %cst_0 = stablehlo.constant dense<-1.000000e+00> : tensor<64xf32>
    %cst_1 = stablehlo.constant dense<-0.0142647391> : tensor<64xf32>
    %cst_2 = stablehlo.constant dense<-0.00737332925> : tensor<64xf32>
    %cst_3 = stablehlo.constant dense<-0.00168282702> : tensor<64xf32>
    %cst_4 = stablehlo.constant dense<-2.13374049E-4> : tensor<64xf32>
    %cst_5 = stablehlo.constant dense<-1.45660715E-5> : tensor<64xf32>
    %cst_6 = stablehlo.constant dense<-0.0160960332> : tensor<64xf32>
    %cst_7 = stablehlo.constant dense<-2.954600e-03> : tensor<64xf32>
    %cst_8 = stablehlo.constant dense<-7.34990637E-4> : tensor<64xf32>
    %cst_9 = stablehlo.constant dense<-5.69250624E-5> : tensor<64xf32>
    %cst_10 = stablehlo.constant dense<-2.10102394E-6> : tensor<64xf32>
    %cst_11 = stablehlo.constant dense<2.77068146E-8> : tensor<64xf32>
    %cst_12 = stablehlo.constant dense<-2.72614237E-10> : tensor<64xf32>
    %cst_13 = stablehlo.constant dense<-4.000000e+00> : tensor<64xf32>
    %cst_14 = stablehlo.constant dense<4.000000e+00> : tensor<64xf32>
    %0 = stablehlo.clamp %cst_13, %arg0, %cst_14 : tensor<64xf32>
    %1 = stablehlo.multiply %0, %0 : tensor<64xf32>
    %2 = stablehlo.multiply %cst_12, %1 : tensor<64xf32>
    %3 = stablehlo.add %2, %cst_11 : tensor<64xf32>
    %4 = stablehlo.multiply %3, %1 : tensor<64xf32>
    %5 = stablehlo.add %4, %cst_10 : tensor<64xf32>
    %6 = stablehlo.multiply %5, %1 : tensor<64xf32>
    %7 = stablehlo.add %6, %cst_9 : tensor<64xf32>
    %8 = stablehlo.multiply %7, %1 : tensor<64xf32>
    %9 = stablehlo.add %8, %cst_8 : tensor<64xf32>
    %10 = stablehlo.multiply %9, %1 : tensor<64xf32>
    %11 = stablehlo.add %10, %cst_7 : tensor<64xf32>
    %12 = stablehlo.multiply %11, %1 : tensor<64xf32>
    %13 = stablehlo.add %12, %cst_6 : tensor<64xf32>
    %14 = stablehlo.multiply %cst_5, %1 : tensor<64xf32>
    %15 = stablehlo.add %14, %cst_4 : tensor<64xf32>
    %16 = stablehlo.multiply %15, %1 : tensor<64xf32>
    %17 = stablehlo.add %16, %cst_3 : tensor<64xf32>
    %18 = stablehlo.multiply %17, %1 : tensor<64xf32>
    %19 = stablehlo.add %18, %cst_2 : tensor<64xf32>
    %20 = stablehlo.multiply %19, %1 : tensor<64xf32>
    %21 = stablehlo.add %20, %cst_1 : tensor<64xf32>
    %22 = stablehlo.multiply %0, %13 : tensor<64xf32>
    %23 = stablehlo.divide %22, %21 : tensor<64xf32>
    %24 = stablehlo.clamp %cst_0, %23, %cst : tensor<64xf32>
    return %24 : tensor<64xf32>
  }
}
