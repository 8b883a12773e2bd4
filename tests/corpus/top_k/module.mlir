module @jit_f attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<5x20xf32>) -> (tensor<5x4xf32> {jax.result_info = "result[0]"}, tensor<5x4xi32> {jax.result_info = "result[1]"}) {
    %values, %indices = chlo.top_k(%arg0, k = 4) : tensor<5x20xf32> -> (tensor<5x4xf32>, tensor<5x4xi32>)
    return %values, %indices : tensor<5x4xf32>, tensor<5x4xi32>
  }
}
