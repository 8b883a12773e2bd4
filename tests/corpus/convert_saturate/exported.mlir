module @jit_f attributes {jax.uses_shape_polymorphism = false, mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<26xf32>) -> (tensor<26xi32> {jax.result_info = "result[0]"}, tensor<26xui32> {jax.result_info = "result[1]"}, tensor<26xi8> {jax.result_info = "result[2]"}, tensor<26xui8> {jax.result_info = "result[3]"}, tensor<26xi16> {jax.result_info = "result[4]"}, tensor<26xui16> {jax.result_info = "result[5]"}, tensor<26xf16> {jax.result_info = "result[6]"}, tensor<26xbf16> {jax.result_info = "result[7]"}) {
    %0 = stablehlo.convert %arg0 : (tensor<26xf32>) -> tensor<26xi32>
    %1 = stablehlo.convert %arg0 : (tensor<26xf32>) -> tensor<26xui32>
    %2 = stablehlo.convert %arg0 : (tensor<26xf32>) -> tensor<26xi8>
    %3 = stablehlo.convert %arg0 : (tensor<26xf32>) -> tensor<26xui8>
    %4 = stablehlo.convert %arg0 : (tensor<26xf32>) -> tensor<26xi16>
    %5 = stablehlo.convert %arg0 : (tensor<26xf32>) -> tensor<26xui16>
    %6 = stablehlo.convert %arg0 : (tensor<26xf32>) -> tensor<26xf16>
    %7 = stablehlo.convert %arg0 : (tensor<26xf32>) -> tensor<26xbf16>
    return %0, %1, %2, %3, %4, %5, %6, %7 : tensor<26xi32>, tensor<26xui32>, tensor<26xi8>, tensor<26xui8>, tensor<26xi16>, tensor<26xui16>, tensor<26xf16>, tensor<26xbf16>
  }
}
