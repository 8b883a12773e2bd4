module @jit_f attributes {jax.uses_shape_polymorphism = false, mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<86xf64>) -> (tensor<86xf64> {jax.result_info = "result[0]"}, tensor<86xf64> {jax.result_info = "result[1]"}) {
    %0 = stablehlo.composite "chlo.sinh" %arg0 {decomposition = @chlo.sinh.impl, version = 1 : i32} : (tensor<86xf64>) -> tensor<86xf64>
    %1 = stablehlo.composite "chlo.cosh" %arg0 {decomposition = @chlo.cosh.impl, version = 1 : i32} : (tensor<86xf64>) -> tensor<86xf64>
    return %0, %1 : tensor<86xf64>, tensor<86xf64>
  }
  func.func private @chlo.cosh.impl(%arg0: tensor<86xf64>) -> tensor<86xf64> {
    %cst = stablehlo.constant dense<5.000000e-01> : tensor<86xf64>
    %0 = stablehlo.log %cst : tensor<86xf64>
    %1 = stablehlo.add %arg0, %0 : tensor<86xf64>
    %2 = stablehlo.exponential %1 : tensor<86xf64>
    %3 = stablehlo.subtract %0, %arg0 : tensor<86xf64>
    %4 = stablehlo.exponential %3 : tensor<86xf64>
    %5 = stablehlo.add %2, %4 : tensor<86xf64>
    return %5 : tensor<86xf64>
  }
  func.func private @chlo.sinh.impl(%arg0: tensor<86xf64>) -> tensor<86xf64> {
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<86xf64>
    %cst_0 = stablehlo.constant dense<5.000000e-01> : tensor<86xf64>
    %0 = stablehlo.log %cst_0 : tensor<86xf64>
    %1 = stablehlo.add %arg0, %0 : tensor<86xf64>
    %2 = stablehlo.exponential %1 : tensor<86xf64>
    %3 = stablehlo.subtract %0, %arg0 : tensor<86xf64>
    %4 = stablehlo.exponential %3 : tensor<86xf64>
    %5 = stablehlo.subtract %2, %4 : tensor<86xf64>
    %6 = stablehlo.exponential_minus_one %arg0 : tensor<86xf64>
    %7 = stablehlo.add %6, %cst : tensor<86xf64>
    %8 = stablehlo.divide %6, %7 : tensor<86xf64>
    %9 = stablehlo.add %6, %8 : tensor<86xf64>
    %10 = stablehlo.multiply %cst_0, %9 : tensor<86xf64>
    %11 = stablehlo.abs %arg0 : tensor<86xf64>
    %12 = stablehlo.compare LT, %11, %cst : (tensor<86xf64>, tensor<86xf64>) -> tensor<86xi1>
    %13 = stablehlo.select %12, %10, %5 : tensor<86xi1>, tensor<86xf64>
    return %13 : tensor<86xf64>
  }
}
