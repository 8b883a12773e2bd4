module @jit_f attributes {jax.uses_shape_polymorphism = false, mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<6x20xf32>) -> (tensor<6xf32> {jax.result_info = "result[0]"}, tensor<f32> {jax.result_info = "result[1]"}) {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %cst_0 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %0 = stablehlo.reduce(%arg0 init: %cst_0) applies stablehlo.maximum across dimensions = [1] : (tensor<6x20xf32>, tensor<f32>) -> tensor<6xf32>
    %1 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<6xf32>
    %2 = stablehlo.maximum %1, %0 : tensor<6xf32>
    %3 = stablehlo.is_finite %2 : (tensor<6xf32>) -> tensor<6xi1>
    %4 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<6xf32>
    %5 = stablehlo.select %3, %2, %4 : tensor<6xi1>, tensor<6xf32>
    %6 = stablehlo.broadcast_in_dim %5, dims = [0] : (tensor<6xf32>) -> tensor<6x1xf32>
    %7 = stablehlo.broadcast_in_dim %6, dims = [0, 1] : (tensor<6x1xf32>) -> tensor<6x20xf32>
    %8 = stablehlo.subtract %arg0, %7 : tensor<6x20xf32>
    %9 = stablehlo.exponential %8 : tensor<6x20xf32>
    %10 = stablehlo.reduce(%9 init: %cst) applies stablehlo.add across dimensions = [1] : (tensor<6x20xf32>, tensor<f32>) -> tensor<6xf32>
    %11 = stablehlo.abs %10 : tensor<6xf32>
    %12 = stablehlo.log %11 : tensor<6xf32>
    %13 = stablehlo.add %12, %5 : tensor<6xf32>
    %14 = stablehlo.reduce(%arg0 init: %cst_0) applies stablehlo.maximum across dimensions = [0, 1] : (tensor<6x20xf32>, tensor<f32>) -> tensor<f32>
    %15 = stablehlo.maximum %cst_0, %14 : tensor<f32>
    %16 = stablehlo.is_finite %15 : (tensor<f32>) -> tensor<i1>
    %17 = stablehlo.select %16, %15, %cst : tensor<i1>, tensor<f32>
    %18 = stablehlo.broadcast_in_dim %17, dims = [] : (tensor<f32>) -> tensor<1x1xf32>
    %19 = stablehlo.broadcast_in_dim %18, dims = [0, 1] : (tensor<1x1xf32>) -> tensor<6x20xf32>
    %20 = stablehlo.subtract %arg0, %19 : tensor<6x20xf32>
    %21 = stablehlo.exponential %20 : tensor<6x20xf32>
    %22 = stablehlo.reduce(%21 init: %cst) applies stablehlo.add across dimensions = [0, 1] : (tensor<6x20xf32>, tensor<f32>) -> tensor<f32>
    %23 = stablehlo.abs %22 : tensor<f32>
    %24 = stablehlo.log %23 : tensor<f32>
    %25 = stablehlo.add %24, %17 : tensor<f32>
    return %13, %25 : tensor<6xf32>, tensor<f32>
  }
}
