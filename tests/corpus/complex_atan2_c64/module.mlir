module @jit_f attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<40xcomplex<f32>>, %arg1: tensor<40xcomplex<f32>>) -> (tensor<40xcomplex<f32>> {jax.result_info = "result['arctan2']"}, tensor<40xcomplex<f32>> {jax.result_info = "result['atan2']"}, tensor<40xcomplex<f32>> {jax.result_info = "result['chain']"}) {
    %0 = stablehlo.atan2 %arg0, %arg1 : tensor<40xcomplex<f32>>
    %1 = stablehlo.atan2 %arg1, %arg0 : tensor<40xcomplex<f32>>
    %2 = stablehlo.multiply %arg0, %arg1 : tensor<40xcomplex<f32>>
    %3 = stablehlo.add %arg0, %arg1 : tensor<40xcomplex<f32>>
    %4 = stablehlo.atan2 %2, %3 : tensor<40xcomplex<f32>>
    %5 = stablehlo.exponential %4 : tensor<40xcomplex<f32>>
    %6 = stablehlo.multiply %5, %arg0 : tensor<40xcomplex<f32>>
    return %1, %0, %6 : tensor<40xcomplex<f32>>, tensor<40xcomplex<f32>>, tensor<40xcomplex<f32>>
  }
}
