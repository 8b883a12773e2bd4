module @jit_f attributes {jax.uses_shape_polymorphism = false, mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<3x2xf32>) -> (tensor<3x2xf32> {jax.result_info = "result[0]"}, tensor<2x2xf32> {jax.result_info = "result[1]"}, tensor<3xi32> {jax.result_info = "result[2]"}, tensor<3x2xf32> {jax.result_info = "result[3]"}) {
    %c = stablehlo.constant dense<[1, 2, 3]> : tensor<3xi32>
    %cst = stablehlo.constant dense<3.500000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<2x2xf32>
    return %arg0, %0, %c, %arg0 : tensor<3x2xf32>, tensor<2x2xf32>, tensor<3xi32>, tensor<3x2xf32>
  }
}
