module @jit_f attributes {jax.uses_shape_polymorphism = false, mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<40xf32>, %arg1: tensor<4x5xf32>, %arg2: tensor<4x5xf32>, %arg3: tensor<8xf16>) -> (tensor<40xf32> {jax.result_info = "result[0]"}, tensor<8xf16> {jax.result_info = "result[1]"}, tensor<4x5xf32> {jax.result_info = "result[2]"}, tensor<40xf32> {jax.result_info = "result[3]"}) {
    %cst = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %0 = stablehlo.logistic %arg0 : tensor<40xf32>
    %1 = stablehlo.logistic %arg3 : tensor<8xf16>
    %2 = "stablehlo.map"(%arg1, %arg2) <{dimensions = array<i64: 0, 1>}> ({
    ^bb0(%arg4: tensor<f32>, %arg5: tensor<f32>):
      %8 = stablehlo.sine %arg4 : tensor<f32>
      %9 = stablehlo.multiply %arg4, %arg5 : tensor<f32>
      %10 = stablehlo.add %8, %9 : tensor<f32>
      stablehlo.return %10 : tensor<f32>
    }) : (tensor<4x5xf32>, tensor<4x5xf32>) -> tensor<4x5xf32>
    %3 = stablehlo.after_all  : !stablehlo.token
    %4 = stablehlo.after_all %3, %3 : !stablehlo.token
    %5:2 = stablehlo.optimization_barrier %arg0, %4 : tensor<40xf32>, !stablehlo.token
    %6 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<40xf32>
    %7 = stablehlo.multiply %5#0, %6 : tensor<40xf32>
    return %0, %1, %2, %7 : tensor<40xf32>, tensor<8xf16>, tensor<4x5xf32>, tensor<40xf32>
  }
}
