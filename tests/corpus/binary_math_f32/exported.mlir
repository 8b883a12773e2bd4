module @jit_f attributes {jax.uses_shape_polymorphism = false, mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<64xf32>, %arg1: tensor<64xf32>) -> (tensor<64xf32> {jax.result_info = "result[0]"}, tensor<64xf32> {jax.result_info = "result[1]"}, tensor<64xf32> {jax.result_info = "result[2]"}, tensor<64xf32> {jax.result_info = "result[3]"}, tensor<64xf32> {jax.result_info = "result[4]"}, tensor<64xf32> {jax.result_info = "result[5]"}, tensor<64xf32> {jax.result_info = "result[6]"}) {
    %0 = stablehlo.atan2 %arg0, %arg1 : tensor<64xf32>
    %1 = stablehlo.power %arg0, %arg1 : tensor<64xf32>
    %2 = stablehlo.remainder %arg0, %arg1 : tensor<64xf32>
    %3 = stablehlo.divide %arg0, %arg1 : tensor<64xf32>
    %4 = stablehlo.maximum %arg0, %arg1 : tensor<64xf32>
    %5 = stablehlo.minimum %arg0, %arg1 : tensor<64xf32>
    %6 = stablehlo.subtract %arg0, %arg1 : tensor<64xf32>
    return %0, %1, %2, %3, %4, %5, %6 : tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>
  }
}
