module @jit_f attributes {jax.uses_shape_polymorphism = false, mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<106xf32>, %arg1: tensor<64xf16>) -> (tensor<106xf32> {jax.result_info = "result[0]"}, tensor<106xf32> {jax.result_info = "result[1]"}, tensor<64xf16> {jax.result_info = "result[2]"}, tensor<64xf16> {jax.result_info = "result[3]"}) {
    %0 = stablehlo.composite "chlo.sinh" %arg0 {decomposition = @chlo.sinh.impl, version = 1 : i32} : (tensor<106xf32>) -> tensor<106xf32>
    %1 = stablehlo.composite "chlo.cosh" %arg0 {decomposition = @chlo.cosh.impl, version = 1 : i32} : (tensor<106xf32>) -> tensor<106xf32>
    %2 = stablehlo.composite "chlo.sinh" %arg1 {decomposition = @chlo.sinh.impl_0, version = 1 : i32} : (tensor<64xf16>) -> tensor<64xf16>
    %3 = stablehlo.composite "chlo.cosh" %arg1 {decomposition = @chlo.cosh.impl_1, version = 1 : i32} : (tensor<64xf16>) -> tensor<64xf16>
    return %0, %1, %2, %3 : tensor<106xf32>, tensor<106xf32>, tensor<64xf16>, tensor<64xf16>
  }
  func.func private @chlo.cosh.impl_1(%arg0: tensor<64xf16>) -> tensor<64xf16> {
    %cst = stablehlo.constant dense<5.000000e-01> : tensor<64xf32>
    %0 = stablehlo.convert %arg0 : (tensor<64xf16>) -> tensor<64xf32>
    %1 = stablehlo.log %cst : tensor<64xf32>
    %2 = stablehlo.add %0, %1 : tensor<64xf32>
    %3 = stablehlo.exponential %2 : tensor<64xf32>
    %4 = stablehlo.subtract %1, %0 : tensor<64xf32>
    %5 = stablehlo.exponential %4 : tensor<64xf32>
    %6 = stablehlo.add %3, %5 : tensor<64xf32>
    %7 = stablehlo.convert %6 : (tensor<64xf32>) -> tensor<64xf16>
    return %7 : tensor<64xf16>
  }
  func.func private @chlo.sinh.impl_0(%arg0: tensor<64xf16>) -> tensor<64xf16> {
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<64xf32>
    %cst_0 = stablehlo.constant dense<5.000000e-01> : tensor<64xf32>
    %0 = stablehlo.convert %arg0 : (tensor<64xf16>) -> tensor<64xf32>
    %1 = stablehlo.log %cst_0 : tensor<64xf32>
    %2 = stablehlo.add %0, %1 : tensor<64xf32>
    %3 = stablehlo.exponential %2 : tensor<64xf32>
    %4 = stablehlo.subtract %1, %0 : tensor<64xf32>
    %5 = stablehlo.exponential %4 : tensor<64xf32>
    %6 = stablehlo.subtract %3, %5 : tensor<64xf32>
    %7 = stablehlo.exponential_minus_one %0 : tensor<64xf32>
    %8 = stablehlo.add %7, %cst : tensor<64xf32>
    %9 = stablehlo.divide %7, %8 : tensor<64xf32>
    %10 = stablehlo.add %7, %9 : tensor<64xf32>
    %11 = stablehlo.multiply %cst_0, %10 : tensor<64xf32>
    %12 = stablehlo.abs %0 : tensor<64xf32>
    %13 = stablehlo.compare LT, %12, %cst : (tensor<64xf32>, tensor<64xf32>) -> tensor<64xi1>
    %14 = stablehlo.select %13, %11, %6 : tensor<64xi1>, tensor<64xf32>
    %15 = stablehlo.convert %14 : (tensor<64xf32>) -> tensor<64xf16>
    return %15 : tensor<64xf16>
  }
  func.func private @chlo.cosh.impl(%arg0: tensor<106xf32>) -> tensor<106xf32> {
    %cst = stablehlo.constant dense<5.000000e-01> : tensor<106xf32>
    %0 = stablehlo.log %cst : tensor<106xf32>
    %1 = stablehlo.add %arg0, %0 : tensor<106xf32>
    %2 = stablehlo.exponential %1 : tensor<106xf32>
    %3 = stablehlo.subtract %0, %arg0 : tensor<106xf32>
    %4 = stablehlo.exponential %3 : tensor<106xf32>
    %5 = stablehlo.add %2, %4 : tensor<106xf32>
    return %5 : tensor<106xf32>
  }
  func.func private @chlo.sinh.impl(%arg0: tensor<106xf32>) -> tensor<106xf32> {
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<106xf32>
    %cst_0 = stablehlo.constant dense<5.000000e-01> : tensor<106xf32>
    %0 = stablehlo.log %cst_0 : tensor<106xf32>
    %1 = stablehlo.add %arg0, %0 : tensor<106xf32>
    %2 = stablehlo.exponential %1 : tensor<106xf32>
    %3 = stablehlo.subtract %0, %arg0 : tensor<106xf32>
    %4 = stablehlo.exponential %3 : tensor<106xf32>
    %5 = stablehlo.subtract %2, %4 : tensor<106xf32>
    %6 = stablehlo.exponential_minus_one %arg0 : tensor<106xf32>
    %7 = stablehlo.add %6, %cst : tensor<106xf32>
    %8 = stablehlo.divide %6, %7 : tensor<106xf32>
    %9 = stablehlo.add %6, %8 : tensor<106xf32>
    %10 = stablehlo.multiply %cst_0, %9 : tensor<106xf32>
    %11 = stablehlo.abs %arg0 : tensor<106xf32>
    %12 = stablehlo.compare LT, %11, %cst : (tensor<106xf32>, tensor<106xf32>) -> tensor<106xi1>
    %13 = stablehlo.select %12, %10, %5 : tensor<106xi1>, tensor<106xf32>
    return %13 : tensor<106xf32>
  }
}
