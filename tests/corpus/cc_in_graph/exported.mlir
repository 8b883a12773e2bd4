module @jit_f attributes {jax.uses_shape_polymorphism = false, mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<128xf32>, %arg1: tensor<2048xf32>) -> (tensor<f32> {jax.result_info = "result[0]"}, tensor<2048xf32> {jax.result_info = "result[1]"}) {
    %cst = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %cst_1 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<128xf32>
    %1 = stablehlo.multiply %arg0, %0 : tensor<128xf32>
    %2 = stablehlo.custom_call @do_custom_call(%1, %arg1) {mhlo.backend_config = {}, operand_layouts = [dense<0> : tensor<1xindex>, dense<0> : tensor<1xindex>], result_layouts = [dense<0> : tensor<1xindex>]} : (tensor<128xf32>, tensor<2048xf32>) -> tensor<2048xf32>
    %3:2 = stablehlo.custom_call @add_sub(%2, %arg1) {mhlo.backend_config = {}, operand_layouts = [dense<0> : tensor<1xindex>, dense<0> : tensor<1xindex>], result_layouts = [dense<0> : tensor<1xindex>, dense<0> : tensor<1xindex>]} : (tensor<2048xf32>, tensor<2048xf32>) -> (tensor<2048xf32>, tensor<2048xf32>)
    %4 = stablehlo.reduce(%3#0 init: %cst_0) applies stablehlo.add across dimensions = [0] : (tensor<2048xf32>, tensor<f32>) -> tensor<f32>
    %5 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<2048xf32>
    %6 = stablehlo.multiply %3#1, %5 : tensor<2048xf32>
    return %4, %6 : tensor<f32>, tensor<2048xf32>
  }
}
