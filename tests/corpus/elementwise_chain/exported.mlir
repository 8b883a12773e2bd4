module @jit_f attributes {jax.uses_shape_polymorphism = false, mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<16x16xf32>, %arg1: tensor<16x16xf32>) -> (tensor<16x16xf32> {jax.result_info = "result"}) {
    %cst = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %cst_0 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %cst_1 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %0 = stablehlo.multiply %arg0, %arg1 : tensor<16x16xf32>
    %1 = stablehlo.sine %arg0 : tensor<16x16xf32>
    %2 = stablehlo.add %0, %1 : tensor<16x16xf32>
    %3 = stablehlo.negate %arg1 : tensor<16x16xf32>
    %4 = stablehlo.exponential %3 : tensor<16x16xf32>
    %5 = stablehlo.subtract %2, %4 : tensor<16x16xf32>
    %6 = stablehlo.abs %5 : tensor<16x16xf32>
    %7 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<16x16xf32>
    %8 = stablehlo.add %7, %6 : tensor<16x16xf32>
    %9 = stablehlo.divide %5, %8 : tensor<16x16xf32>
    %10 = stablehlo.tanh %9 : tensor<16x16xf32>
    %11 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<16x16xf32>
    %12 = stablehlo.multiply %10, %11 : tensor<16x16xf32>
    %13 = stablehlo.sqrt %arg1 : tensor<16x16xf32>
    %14 = stablehlo.multiply %13, %arg0 : tensor<16x16xf32>
    %15 = stablehlo.add %12, %14 : tensor<16x16xf32>
    %16 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<16x16xf32>
    %17 = stablehlo.maximum %9, %16 : tensor<16x16xf32>
    %18 = stablehlo.subtract %15, %17 : tensor<16x16xf32>
    return %18 : tensor<16x16xf32>
  }
}
