module @jit_f attributes {jax.uses_shape_polymorphism = false, mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<3xf32>, %arg1: tensor<2xi32>) -> (tensor<3xf32> {jax.result_info = "result['a'][0]"}, tensor<3xf32> {jax.result_info = "result['b'][0]"}, tensor<2xi32> {jax.result_info = "result['b'][1][0]"}, tensor<2xi32> {jax.result_info = "result['b'][1][1]['a']"}, tensor<f32> {jax.result_info = "result['b'][1][1]['z']"}, tensor<2xi1> {jax.result_info = "result['c']"}) {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %c_1 = stablehlo.constant dense<1> : tensor<i32>
    %cst_2 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<3xf32>
    %1 = stablehlo.multiply %arg0, %0 : tensor<3xf32>
    %2 = stablehlo.broadcast_in_dim %c_1, dims = [] : (tensor<i32>) -> tensor<2xi32>
    %3 = stablehlo.add %arg1, %2 : tensor<2xi32>
    %4 = stablehlo.reduce(%arg0 init: %cst_0) applies stablehlo.add across dimensions = [0] : (tensor<3xf32>, tensor<f32>) -> tensor<f32>
    %5 = stablehlo.multiply %arg1, %arg1 : tensor<2xi32>
    %6 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<3xf32>
    %7 = stablehlo.subtract %arg0, %6 : tensor<3xf32>
    %8 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<2xi32>
    %9 = stablehlo.compare GT, %arg1, %8, SIGNED : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi1>
    return %7, %1, %3, %5, %4, %9 : tensor<3xf32>, tensor<3xf32>, tensor<2xi32>, tensor<2xi32>, tensor<f32>, tensor<2xi1>
  }
}
