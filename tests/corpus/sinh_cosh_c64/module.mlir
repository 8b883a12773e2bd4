module @jit_f attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<40xcomplex<f32>>) -> (tensor<40xcomplex<f32>> {jax.result_info = "result[0]"}, tensor<40xcomplex<f32>> {jax.result_info = "result[1]"}) {
    %0 = chlo.sinh %arg0 : tensor<40xcomplex<f32>> -> tensor<40xcomplex<f32>>
    %1 = chlo.cosh %arg0 : tensor<40xcomplex<f32>> -> tensor<40xcomplex<f32>>
    return %0, %1 : tensor<40xcomplex<f32>>, tensor<40xcomplex<f32>>
  }
}
