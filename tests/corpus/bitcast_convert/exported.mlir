module @jit_f attributes {jax.uses_shape_polymorphism = false, mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<16xf32>, %arg1: tensor<16xi32>, %arg2: tensor<16xf16>, %arg3: tensor<16xbf16>, %arg4: tensor<4x4xui8>) -> (tensor<16xi32> {jax.result_info = "result[0]"}, tensor<16xui32> {jax.result_info = "result[1]"}, tensor<16x4xui8> {jax.result_info = "result[2]"}, tensor<16xf32> {jax.result_info = "result[3]"}, tensor<16x2xf16> {jax.result_info = "result[4]"}, tensor<16xi16> {jax.result_info = "result[5]"}, tensor<16xui16> {jax.result_info = "result[6]"}, tensor<16xbf16> {jax.result_info = "result[7]"}, tensor<4xf32> {jax.result_info = "result[8]"}) {
    %0 = stablehlo.bitcast_convert %arg0 : (tensor<16xf32>) -> tensor<16xi32>
    %1 = stablehlo.bitcast_convert %arg0 : (tensor<16xf32>) -> tensor<16xui32>
    %2 = stablehlo.bitcast_convert %arg0 : (tensor<16xf32>) -> tensor<16x4xui8>
    %3 = stablehlo.bitcast_convert %arg1 : (tensor<16xi32>) -> tensor<16xf32>
    %4 = stablehlo.bitcast_convert %arg1 : (tensor<16xi32>) -> tensor<16x2xf16>
    %5 = stablehlo.bitcast_convert %arg2 : (tensor<16xf16>) -> tensor<16xi16>
    %6 = stablehlo.bitcast_convert %arg3 : (tensor<16xbf16>) -> tensor<16xui16>
    %7 = stablehlo.bitcast_convert %arg3 : (tensor<16xbf16>) -> tensor<16xui16>
    %8 = stablehlo.bitcast_convert %7 : (tensor<16xui16>) -> tensor<16xbf16>
    %9 = stablehlo.bitcast_convert %arg4 : (tensor<4x4xui8>) -> tensor<4xf32>
    return %0, %1, %2, %3, %4, %5, %6, %8, %9 : tensor<16xi32>, tensor<16xui32>, tensor<16x4xui8>, tensor<16xf32>, tensor<16x2xf16>, tensor<16xi16>, tensor<16xui16>, tensor<16xbf16>, tensor<4xf32>
  }
}
