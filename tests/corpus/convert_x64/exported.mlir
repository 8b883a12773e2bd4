module @jit_f attributes {jax.uses_shape_polymorphism = false, mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<10xf64>, %arg1: tensor<10xi64>, %arg2: tensor<10xui64>) -> (tensor<10xf32> {jax.result_info = "result[0]"}, tensor<10xi64> {jax.result_info = "result[1]"}, tensor<10xui64> {jax.result_info = "result[2]"}, tensor<10xf16> {jax.result_info = "result[3]"}, tensor<10xf64> {jax.result_info = "result[4]"}, tensor<10xi32> {jax.result_info = "result[5]"}, tensor<10xui64> {jax.result_info = "result[6]"}, tensor<10xf32> {jax.result_info = "result[7]"}, tensor<10xf64> {jax.result_info = "result[8]"}, tensor<10xi64> {jax.result_info = "result[9]"}, tensor<10xui32> {jax.result_info = "result[10]"}, tensor<10xi64> {jax.result_info = "result[11]"}, tensor<10x2xui32> {jax.result_info = "result[12]"}) {
    %0 = stablehlo.convert %arg0 : (tensor<10xf64>) -> tensor<10xf32>
    %1 = stablehlo.convert %arg0 : (tensor<10xf64>) -> tensor<10xi64>
    %2 = stablehlo.convert %arg0 : (tensor<10xf64>) -> tensor<10xui64>
    %3 = stablehlo.convert %arg0 : (tensor<10xf64>) -> tensor<10xf16>
    %4 = stablehlo.convert %arg1 : (tensor<10xi64>) -> tensor<10xf64>
    %5 = stablehlo.convert %arg1 : (tensor<10xi64>) -> tensor<10xi32>
    %6 = stablehlo.convert %arg1 : (tensor<10xi64>) -> tensor<10xui64>
    %7 = stablehlo.convert %arg1 : (tensor<10xi64>) -> tensor<10xf32>
    %8 = stablehlo.convert %arg2 : (tensor<10xui64>) -> tensor<10xf64>
    %9 = stablehlo.convert %arg2 : (tensor<10xui64>) -> tensor<10xi64>
    %10 = stablehlo.convert %arg2 : (tensor<10xui64>) -> tensor<10xui32>
    %11 = stablehlo.bitcast_convert %arg0 : (tensor<10xf64>) -> tensor<10xi64>
    %12 = stablehlo.bitcast_convert %arg1 : (tensor<10xi64>) -> tensor<10x2xui32>
    return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12 : tensor<10xf32>, tensor<10xi64>, tensor<10xui64>, tensor<10xf16>, tensor<10xf64>, tensor<10xi32>, tensor<10xui64>, tensor<10xf32>, tensor<10xf64>, tensor<10xi64>, tensor<10xui32>, tensor<10xi64>, tensor<10x2xui32>
  }
}
