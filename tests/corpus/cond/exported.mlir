module @jit_f attributes {jax.uses_shape_polymorphism = false, mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<2xi1>, %arg1: tensor<10xf32>) -> (tensor<10xf32> {jax.result_info = "result[0][0]"}, tensor<f32> {jax.result_info = "result[0][1]"}, tensor<10xf32> {jax.result_info = "result[1][0]"}, tensor<f32> {jax.result_info = "result[1][1]"}) {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %cst_0 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %cst_1 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %0 = stablehlo.slice %arg0 [0:1] : (tensor<2xi1>) -> tensor<1xi1>
    %1 = stablehlo.reshape %0 : (tensor<1xi1>) -> tensor<i1>
    %2 = stablehlo.convert %1 : (tensor<i1>) -> tensor<i32>
    %3:2 = "stablehlo.case"(%2) ({
      %8 = stablehlo.cosine %arg1 : tensor<10xf32>
      %9 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<10xf32>
      %10 = stablehlo.multiply %8, %9 : tensor<10xf32>
      %11 = stablehlo.reduce(%arg1 init: %cst_0) applies stablehlo.maximum across dimensions = [0] : (tensor<10xf32>, tensor<f32>) -> tensor<f32>
      stablehlo.return %10, %11 : tensor<10xf32>, tensor<f32>
    }, {
      %8 = stablehlo.sine %arg1 : tensor<10xf32>
      %9 = stablehlo.reduce(%arg1 init: %cst) applies stablehlo.add across dimensions = [0] : (tensor<10xf32>, tensor<f32>) -> tensor<f32>
      stablehlo.return %8, %9 : tensor<10xf32>, tensor<f32>
    }) : (tensor<i32>) -> (tensor<10xf32>, tensor<f32>)
    %4 = stablehlo.slice %arg0 [1:2] : (tensor<2xi1>) -> tensor<1xi1>
    %5 = stablehlo.reshape %4 : (tensor<1xi1>) -> tensor<i1>
    %6 = stablehlo.convert %5 : (tensor<i1>) -> tensor<i32>
    %7:2 = "stablehlo.case"(%6) ({
      %8 = stablehlo.cosine %arg1 : tensor<10xf32>
      %9 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<10xf32>
      %10 = stablehlo.multiply %8, %9 : tensor<10xf32>
      %11 = stablehlo.reduce(%arg1 init: %cst_0) applies stablehlo.maximum across dimensions = [0] : (tensor<10xf32>, tensor<f32>) -> tensor<f32>
      stablehlo.return %10, %11 : tensor<10xf32>, tensor<f32>
    }, {
      %8 = stablehlo.sine %arg1 : tensor<10xf32>
      %9 = stablehlo.reduce(%arg1 init: %cst) applies stablehlo.add across dimensions = [0] : (tensor<10xf32>, tensor<f32>) -> tensor<f32>
      stablehlo.return %8, %9 : tensor<10xf32>, tensor<f32>
    }) : (tensor<i32>) -> (tensor<10xf32>, tensor<f32>)
    return %3#0, %3#1, %7#0, %7#1 : tensor<10xf32>, tensor<f32>, tensor<10xf32>, tensor<f32>
  }
}
