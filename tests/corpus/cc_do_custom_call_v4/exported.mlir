module @jit_f attributes {jax.uses_shape_polymorphism = false, mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<128xf32>, %arg1: tensor<2048xf32>) -> (tensor<2048xf32> {jax.result_info = "result"}) {
    %0 = stablehlo.custom_call @do_custom_call(%arg0, %arg1) {mhlo.backend_config = {}, operand_layouts = [dense<0> : tensor<1xindex>, dense<0> : tensor<1xindex>], result_layouts = [dense<0> : tensor<1xindex>]} : (tensor<128xf32>, tensor<2048xf32>) -> tensor<2048xf32>
    return %0 : tensor<2048xf32>
  }
}
