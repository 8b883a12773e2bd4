module @jit_f attributes {jax.uses_shape_polymorphism = false, mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<64xf32>) -> (tensor<64xf32> {jax.result_info = "result[0]"}, tensor<64xf32> {jax.result_info = "result[1]"}, tensor<64xf32> {jax.result_info = "result[2]"}, tensor<64xf32> {jax.result_info = "result[3]"}, tensor<64xf32> {jax.result_info = "result[4]"}, tensor<64xf32> {jax.result_info = "result[5]"}, tensor<64xi1> {jax.result_info = "result[6]"}) {
    %0 = stablehlo.floor %arg0 : tensor<64xf32>
    %1 = stablehlo.ceil %arg0 : tensor<64xf32>
    %2 = stablehlo.round_nearest_even %arg0 : tensor<64xf32>
    %3 = stablehlo.round_nearest_afz %arg0 : tensor<64xf32>
    %4 = stablehlo.sign %arg0 : tensor<64xf32>
    %5 = stablehlo.abs %arg0 : tensor<64xf32>
    %6 = stablehlo.is_finite %arg0 : (tensor<64xf32>) -> tensor<64xi1>
    return %0, %1, %2, %3, %4, %5, %6 : tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xi1>
  }
}
