module @jit_f attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<100xf32>, %arg1: tensor<32xf16>) -> (tensor<100xf32> {jax.result_info = "result[0]"}, tensor<100xf32> {jax.result_info = "result[1]"}, tensor<32xf16> {jax.result_info = "result[2]"}, tensor<32xf16> {jax.result_info = "result[3]"}) {
    %0 = chlo.lgamma %arg0 : tensor<100xf32> -> tensor<100xf32>
    %1 = chlo.digamma %arg0 : tensor<100xf32> -> tensor<100xf32>
    %2 = chlo.lgamma %arg1 : tensor<32xf16> -> tensor<32xf16>
    %3 = chlo.digamma %arg1 : tensor<32xf16> -> tensor<32xf16>
    return %0, %1, %2, %3 : tensor<100xf32>, tensor<100xf32>, tensor<32xf16>, tensor<32xf16>
  }
}
