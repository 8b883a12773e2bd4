module @jit_f attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<106xf32>, %arg1: tensor<64xf16>) -> (tensor<106xf32> {jax.result_info = "result[0]"}, tensor<106xf32> {jax.result_info = "result[1]"}, tensor<64xf16> {jax.result_info = "result[2]"}, tensor<64xf16> {jax.result_info = "result[3]"}) {
    %0 = chlo.sinh %arg0 : tensor<106xf32> -> tensor<106xf32>
    %1 = chlo.cosh %arg0 : tensor<106xf32> -> tensor<106xf32>
    %2 = chlo.sinh %arg1 : tensor<64xf16> -> tensor<64xf16>
    %3 = chlo.cosh %arg1 : tensor<64xf16> -> tensor<64xf16>
    return %0, %1, %2, %3 : tensor<106xf32>, tensor<106xf32>, tensor<64xf16>, tensor<64xf16>
  }
}
