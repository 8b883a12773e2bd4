module @jit_f attributes {jax.uses_shape_polymorphism = false, mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<8x16xbf16>, %arg1: tensor<16x8xbf16>) -> (tensor<8x16xbf16> {jax.result_info = "result[0]"}, tensor<8x16xbf16> {jax.result_info = "result[1]"}, tensor<8x16xbf16> {jax.result_info = "result[2]"}, tensor<8x16xbf16> {jax.result_info = "result[3]"}, tensor<8xbf16> {jax.result_info = "result[4]"}, tensor<8x8xbf16> {jax.result_info = "result[5]"}, tensor<8x8xf32> {jax.result_info = "result[6]"}) {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %cst_0 = stablehlo.constant dense<1.000000e+00> : tensor<bf16>
    %cst_1 = stablehlo.constant dense<1.500000e+00> : tensor<bf16>
    %0 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<bf16>) -> tensor<8x16xbf16>
    %1 = stablehlo.multiply %arg0, %0 : tensor<8x16xbf16>
    %2 = stablehlo.add %1, %arg0 : tensor<8x16xbf16>
    %3 = stablehlo.abs %arg0 : tensor<8x16xbf16>
    %4 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<bf16>) -> tensor<8x16xbf16>
    %5 = stablehlo.add %3, %4 : tensor<8x16xbf16>
    %6 = stablehlo.divide %arg0, %5 : tensor<8x16xbf16>
    %7 = stablehlo.exponential %arg0 : tensor<8x16xbf16>
    %8 = stablehlo.negate %arg0 : tensor<8x16xbf16>
    %9 = stablehlo.exponential %8 : tensor<8x16xbf16>
    %10 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<bf16>) -> tensor<8x16xbf16>
    %11 = stablehlo.add %10, %9 : tensor<8x16xbf16>
    %12 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<bf16>) -> tensor<8x16xbf16>
    %13 = stablehlo.divide %12, %11 : tensor<8x16xbf16>
    %14 = stablehlo.convert %arg0 : (tensor<8x16xbf16>) -> tensor<8x16xf32>
    %15 = stablehlo.reduce(%14 init: %cst) applies stablehlo.add across dimensions = [1] : (tensor<8x16xf32>, tensor<f32>) -> tensor<8xf32>
    %16 = stablehlo.convert %15 : (tensor<8xf32>) -> tensor<8xbf16>
    %17 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0] : (tensor<8x16xbf16>, tensor<16x8xbf16>) -> tensor<8x8xbf16>
    %18 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0] : (tensor<8x16xbf16>, tensor<16x8xbf16>) -> tensor<8x8xf32>
    return %2, %6, %7, %13, %16, %17, %18 : tensor<8x16xbf16>, tensor<8x16xbf16>, tensor<8x16xbf16>, tensor<8x16xbf16>, tensor<8xbf16>, tensor<8x8xbf16>, tensor<8x8xf32>
  }
}
