module @jit_f attributes {jax.uses_shape_polymorphism = false, mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<8x16xf32>, %arg1: tensor<8x16xf32>, %arg2: tensor<16x4xf32>) -> (tensor<8x16xf32> {jax.result_info = "result[0]"}, tensor<8x16xf32> {jax.result_info = "result[1]"}, tensor<8x16xbf16> {jax.result_info = "result[2]"}, tensor<8x16xf32> {jax.result_info = "result[3]"}, tensor<8x16xf32> {jax.result_info = "result[4]"}, tensor<8x4xf32> {jax.result_info = "result[5]"}, tensor<16x8xf32> {jax.result_info = "result[6]"}, tensor<8x16xf32> {jax.result_info = "result[7]"}, tensor<8x16xf32> {jax.result_info = "result[8]"}, tensor<8x16xf32> {jax.result_info = "result[9]"}, tensor<8x16xf16> {jax.result_info = "result[10]"}) {
    %cst = stablehlo.constant dense<3.000000e+00> : tensor<f32>
    %cst_0 = stablehlo.constant dense<1.000000e+00> : tensor<bf16>
    %0 = stablehlo.convert %arg0 : (tensor<8x16xf32>) -> tensor<8x16xbf16>
    %1 = stablehlo.convert %arg1 : (tensor<8x16xf32>) -> tensor<8x16xbf16>
    %2 = stablehlo.convert %arg2 : (tensor<16x4xf32>) -> tensor<16x4xbf16>
    %3 = stablehlo.convert %arg0 : (tensor<8x16xf32>) -> tensor<8x16xf16>
    %4 = stablehlo.convert %arg1 : (tensor<8x16xf32>) -> tensor<8x16xf16>
    %5 = stablehlo.multiply %0, %1 : tensor<8x16xbf16>
    %6 = stablehlo.add %0, %1 : tensor<8x16xbf16>
    %7 = stablehlo.convert %6 : (tensor<8x16xbf16>) -> tensor<8x16xf32>
    %8 = stablehlo.convert %5 : (tensor<8x16xbf16>) -> tensor<8x16xf32>
    %9 = stablehlo.subtract %5, %0 : tensor<8x16xbf16>
    %10 = stablehlo.multiply %5, %1 : tensor<8x16xbf16>
    %11 = stablehlo.convert %10 : (tensor<8x16xbf16>) -> tensor<8x16xf32>
    %12 = stablehlo.abs %1 : tensor<8x16xbf16>
    %13 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<bf16>) -> tensor<8x16xbf16>
    %14 = stablehlo.add %12, %13 : tensor<8x16xbf16>
    %15 = stablehlo.divide %0, %14 : tensor<8x16xbf16>
    %16 = stablehlo.convert %15 : (tensor<8x16xbf16>) -> tensor<8x16xf32>
    %17 = stablehlo.dot_general %0, %2, contracting_dims = [1] x [0] : (tensor<8x16xbf16>, tensor<16x4xbf16>) -> tensor<8x4xbf16>
    %18 = stablehlo.convert %17 : (tensor<8x4xbf16>) -> tensor<8x4xf32>
    %19 = stablehlo.reshape %5 : (tensor<8x16xbf16>) -> tensor<16x8xbf16>
    %20 = stablehlo.convert %19 : (tensor<16x8xbf16>) -> tensor<16x8xf32>
    %21 = stablehlo.convert %arg0 : (tensor<8x16xf32>) -> tensor<8x16xbf16>
    %22 = stablehlo.convert %21 : (tensor<8x16xbf16>) -> tensor<8x16xf32>
    %23 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<8x16xf32>
    %24 = stablehlo.multiply %22, %23 : tensor<8x16xf32>
    %25 = call @inner(%0, %1) : (tensor<8x16xbf16>, tensor<8x16xbf16>) -> tensor<8x16xbf16>
    %26 = stablehlo.convert %25 : (tensor<8x16xbf16>) -> tensor<8x16xf32>
    %27 = stablehlo.multiply %3, %4 : tensor<8x16xf16>
    %28 = stablehlo.add %27, %3 : tensor<8x16xf16>
    %29 = stablehlo.convert %28 : (tensor<8x16xf16>) -> tensor<8x16xf32>
    %30 = stablehlo.multiply %3, %4 : tensor<8x16xf16>
    return %7, %8, %9, %11, %16, %18, %20, %24, %26, %29, %30 : tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xbf16>, tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x4xf32>, tensor<16x8xf32>, tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xf16>
  }
  func.func private @inner(%arg0: tensor<8x16xbf16>, %arg1: tensor<8x16xbf16>) -> tensor<8x16xbf16> {
    %0 = stablehlo.multiply %arg0, %arg1 : tensor<8x16xbf16>
    %1 = stablehlo.add %0, %arg0 : tensor<8x16xbf16>
    return %1 : tensor<8x16xbf16>
  }
}
