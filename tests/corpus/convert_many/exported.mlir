module @jit_f attributes {jax.uses_shape_polymorphism = false, mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<32xf32>, %arg1: tensor<32xf32>, %arg2: tensor<32xi32>, %arg3: tensor<32xui8>, %arg4: tensor<32xi1>, %arg5: tensor<32xf16>, %arg6: tensor<32xbf16>) -> (tensor<32xi32> {jax.result_info = "result[0]"}, tensor<32xi8> {jax.result_info = "result[1]"}, tensor<32xi16> {jax.result_info = "result[2]"}, tensor<32xf16> {jax.result_info = "result[3]"}, tensor<32xbf16> {jax.result_info = "result[4]"}, tensor<32xi1> {jax.result_info = "result[5]"}, tensor<32xui8> {jax.result_info = "result[6]"}, tensor<32xui16> {jax.result_info = "result[7]"}, tensor<32xui32> {jax.result_info = "result[8]"}, tensor<32xf32> {jax.result_info = "result[9]"}, tensor<32xf16> {jax.result_info = "result[10]"}, tensor<32xi8> {jax.result_info = "result[11]"}, tensor<32xui32> {jax.result_info = "result[12]"}, tensor<32xi16> {jax.result_info = "result[13]"}, tensor<32xui8> {jax.result_info = "result[14]"}, tensor<32xi32> {jax.result_info = "result[15]"}, tensor<32xf32> {jax.result_info = "result[16]"}, tensor<32xi8> {jax.result_info = "result[17]"}, tensor<32xf32> {jax.result_info = "result[18]"}, tensor<32xi32> {jax.result_info = "result[19]"}, tensor<32xf32> {jax.result_info = "result[20]"}, tensor<32xbf16> {jax.result_info = "result[21]"}, tensor<32xi32> {jax.result_info = "result[22]"}, tensor<32xf32> {jax.result_info = "result[23]"}, tensor<32xf16> {jax.result_info = "result[24]"}, tensor<32xi16> {jax.result_info = "result[25]"}) {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.convert %arg0 : (tensor<32xf32>) -> tensor<32xi32>
    %1 = stablehlo.convert %arg0 : (tensor<32xf32>) -> tensor<32xi8>
    %2 = stablehlo.convert %arg0 : (tensor<32xf32>) -> tensor<32xi16>
    %3 = stablehlo.convert %arg0 : (tensor<32xf32>) -> tensor<32xf16>
    %4 = stablehlo.convert %arg0 : (tensor<32xf32>) -> tensor<32xbf16>
    %5 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<32xf32>
    %6 = stablehlo.compare NE, %arg0, %5, FLOAT : (tensor<32xf32>, tensor<32xf32>) -> tensor<32xi1>
    %7 = stablehlo.convert %6 : tensor<32xi1>
    %8 = stablehlo.convert %arg1 : (tensor<32xf32>) -> tensor<32xui8>
    %9 = stablehlo.convert %arg1 : (tensor<32xf32>) -> tensor<32xui16>
    %10 = stablehlo.convert %arg1 : (tensor<32xf32>) -> tensor<32xui32>
    %11 = stablehlo.convert %arg2 : (tensor<32xi32>) -> tensor<32xf32>
    %12 = stablehlo.convert %arg2 : (tensor<32xi32>) -> tensor<32xf16>
    %13 = stablehlo.convert %arg2 : (tensor<32xi32>) -> tensor<32xi8>
    %14 = stablehlo.convert %arg2 : (tensor<32xi32>) -> tensor<32xui32>
    %15 = stablehlo.convert %arg2 : (tensor<32xi32>) -> tensor<32xi16>
    %16 = stablehlo.convert %arg2 : (tensor<32xi32>) -> tensor<32xui8>
    %17 = stablehlo.convert %arg3 : (tensor<32xui8>) -> tensor<32xi32>
    %18 = stablehlo.convert %arg3 : (tensor<32xui8>) -> tensor<32xf32>
    %19 = stablehlo.convert %arg3 : (tensor<32xui8>) -> tensor<32xi8>
    %20 = stablehlo.convert %arg4 : (tensor<32xi1>) -> tensor<32xf32>
    %21 = stablehlo.convert %arg4 : (tensor<32xi1>) -> tensor<32xi32>
    %22 = stablehlo.convert %arg5 : (tensor<32xf16>) -> tensor<32xf32>
    %23 = stablehlo.convert %arg5 : (tensor<32xf16>) -> tensor<32xbf16>
    %24 = stablehlo.convert %arg5 : (tensor<32xf16>) -> tensor<32xi32>
    %25 = stablehlo.convert %arg6 : (tensor<32xbf16>) -> tensor<32xf32>
    %26 = stablehlo.convert %arg6 : (tensor<32xbf16>) -> tensor<32xf16>
    %27 = stablehlo.convert %arg6 : (tensor<32xbf16>) -> tensor<32xi16>
    return %0, %1, %2, %3, %4, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27 : tensor<32xi32>, tensor<32xi8>, tensor<32xi16>, tensor<32xf16>, tensor<32xbf16>, tensor<32xi1>, tensor<32xui8>, tensor<32xui16>, tensor<32xui32>, tensor<32xf32>, tensor<32xf16>, tensor<32xi8>, tensor<32xui32>, tensor<32xi16>, tensor<32xui8>, tensor<32xi32>, tensor<32xf32>, tensor<32xi8>, tensor<32xf32>, tensor<32xi32>, tensor<32xf32>, tensor<32xbf16>, tensor<32xi32>, tensor<32xf32>, tensor<32xf16>, tensor<32xi16>
  }
}
