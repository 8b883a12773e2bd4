module @jit_f attributes {jax.uses_shape_polymorphism = false, mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<256xf32>, %arg1: tensor<256xf32>, %arg2: tensor<f32>, %arg3: tensor<f32>) -> (tensor<256xf32> {jax.result_info = "result"}) {
    %0 = stablehlo.custom_call @axpby(%arg0, %arg1, %arg2, %arg3) {api_version = 2 : i32, operand_layouts = [dense<0> : tensor<1xindex>, dense<0> : tensor<1xindex>, dense<> : tensor<0xindex>, dense<> : tensor<0xindex>], result_layouts = [dense<0> : tensor<1xindex>]} : (tensor<256xf32>, tensor<256xf32>, tensor<f32>, tensor<f32>) -> tensor<256xf32>
    return %0 : tensor<256xf32>
  }
}
