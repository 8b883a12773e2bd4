module @jit_f attributes {jax.uses_shape_polymorphism = false, mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<12xf32>) -> (tensor<12xf32> {jax.result_info = "result"}) {
    %cst = stablehlo.constant dense<3.000000e+00> : tensor<f32>
    %0 = call @inner(%arg0) : (tensor<12xf32>) -> tensor<12xf32>
    %1 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<12xf32>
    %2 = stablehlo.multiply %arg0, %1 : tensor<12xf32>
    %3 = call @inner(%2) : (tensor<12xf32>) -> tensor<12xf32>
    %4 = stablehlo.add %0, %3 : tensor<12xf32>
    return %4 : tensor<12xf32>
  }
  func.func private @inner(%arg0: tensor<12xf32>) -> tensor<12xf32> {
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %cst_0 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %0 = stablehlo.sine %arg0 : tensor<12xf32>
    %1 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<12xf32>
    %2 = stablehlo.multiply %0, %1 : tensor<12xf32>
    %3 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<12xf32>
    %4 = stablehlo.add %2, %3 : tensor<12xf32>
    return %4 : tensor<12xf32>
  }
}
