module @jit_f attributes {jax.uses_shape_polymorphism = false, mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<16xf32>, %arg1: tensor<16xf32>) -> (tensor<16xf32> {jax.result_info = "result[0]"}, tensor<16xf32> {jax.result_info = "result[1]"}) {
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %cst_0 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<16xf32>
    %1 = stablehlo.multiply %arg0, %0 : tensor<16xf32>
    %2 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<16xf32>
    %3 = stablehlo.add %arg1, %2 : tensor<16xf32>
    %4:2 = stablehlo.optimization_barrier %1, %3 : tensor<16xf32>, tensor<16xf32>
    %5 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<16xf32>
    %6:2 = stablehlo.optimization_barrier %arg0, %5 : tensor<16xf32>, tensor<16xf32>
    %7 = stablehlo.sine %6#0 : tensor<16xf32>
    %8 = stablehlo.cosine %6#0 : tensor<16xf32>
    %9 = stablehlo.cosine %7 : tensor<16xf32>
    %10 = stablehlo.multiply %6#1, %9 : tensor<16xf32>
    %11 = stablehlo.multiply %10, %8 : tensor<16xf32>
    %12 = stablehlo.multiply %4#0, %4#1 : tensor<16xf32>
    return %12, %11 : tensor<16xf32>, tensor<16xf32>
  }
}
