module @jit_f attributes {jax.uses_shape_polymorphism = false, mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<8x16xf16>, %arg1: tensor<16x8xf16>) -> (tensor<8x16xf16> {jax.result_info = "result[0]"}, tensor<8x16xf16> {jax.result_info = "result[1]"}, tensor<8x16xf16> {jax.result_info = "result[2]"}, tensor<8x16xf16> {jax.result_info = "result[3]"}, tensor<8xf16> {jax.result_info = "result[4]"}, tensor<8x8xf16> {jax.result_info = "result[5]"}, tensor<16xf16> {jax.result_info = "result[6]"}) {
    %cst = stablehlo.constant dense<0xFC00> : tensor<f16>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %cst_1 = stablehlo.constant dense<1.000000e+00> : tensor<f16>
    %cst_2 = stablehlo.constant dense<1.500000e+00> : tensor<f16>
    %0 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f16>) -> tensor<8x16xf16>
    %1 = stablehlo.multiply %arg0, %0 : tensor<8x16xf16>
    %2 = stablehlo.add %1, %arg0 : tensor<8x16xf16>
    %3 = stablehlo.abs %arg0 : tensor<8x16xf16>
    %4 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f16>) -> tensor<8x16xf16>
    %5 = stablehlo.add %3, %4 : tensor<8x16xf16>
    %6 = stablehlo.divide %arg0, %5 : tensor<8x16xf16>
    %7 = stablehlo.exponential %arg0 : tensor<8x16xf16>
    %8 = stablehlo.tanh %arg0 : tensor<8x16xf16>
    %9 = stablehlo.convert %arg0 : (tensor<8x16xf16>) -> tensor<8x16xf32>
    %10 = stablehlo.reduce(%9 init: %cst_0) applies stablehlo.add across dimensions = [1] : (tensor<8x16xf32>, tensor<f32>) -> tensor<8xf32>
    %11 = stablehlo.convert %10 : (tensor<8xf32>) -> tensor<8xf16>
    %12 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0] : (tensor<8x16xf16>, tensor<16x8xf16>) -> tensor<8x8xf16>
    %13 = stablehlo.reduce(%arg0 init: %cst) applies stablehlo.maximum across dimensions = [0] : (tensor<8x16xf16>, tensor<f16>) -> tensor<16xf16>
    return %2, %6, %7, %8, %11, %12, %13 : tensor<8x16xf16>, tensor<8x16xf16>, tensor<8x16xf16>, tensor<8x16xf16>, tensor<8xf16>, tensor<8x8xf16>, tensor<16xf16>
  }
}
