module @jit_f attributes {jax.uses_shape_polymorphism = false, mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<40xi1>, %arg1: tensor<40xi1>, %arg2: tensor<40xf32>) -> (tensor<40xi1> {jax.result_info = "result[0]"}, tensor<40xi1> {jax.result_info = "result[1]"}, tensor<40xi1> {jax.result_info = "result[2]"}, tensor<40xi1> {jax.result_info = "result[3]"}, tensor<40xf32> {jax.result_info = "result[4]"}, tensor<i1> {jax.result_info = "result[5]"}, tensor<i1> {jax.result_info = "result[6]"}) {
    %c = stablehlo.constant dense<true> : tensor<i1>
    %c_0 = stablehlo.constant dense<false> : tensor<i1>
    %0 = stablehlo.and %arg0, %arg1 : tensor<40xi1>
    %1 = stablehlo.or %arg0, %arg1 : tensor<40xi1>
    %2 = stablehlo.xor %arg0, %arg1 : tensor<40xi1>
    %3 = stablehlo.not %arg0 : tensor<40xi1>
    %4 = stablehlo.xor %arg0, %arg1 : tensor<40xi1>
    %5 = stablehlo.negate %arg2 : tensor<40xf32>
    %6 = call @_where(%4, %arg2, %5) : (tensor<40xi1>, tensor<40xf32>, tensor<40xf32>) -> tensor<40xf32>
    %7 = stablehlo.and %arg0, %arg1 : tensor<40xi1>
    %8 = stablehlo.reduce(%7 init: %c_0) applies stablehlo.or across dimensions = [0] : (tensor<40xi1>, tensor<i1>) -> tensor<i1>
    %9 = stablehlo.or %arg0, %arg1 : tensor<40xi1>
    %10 = stablehlo.reduce(%9 init: %c) applies stablehlo.and across dimensions = [0] : (tensor<40xi1>, tensor<i1>) -> tensor<i1>
    return %0, %1, %2, %3, %6, %8, %10 : tensor<40xi1>, tensor<40xi1>, tensor<40xi1>, tensor<40xi1>, tensor<40xf32>, tensor<i1>, tensor<i1>
  }
  func.func private @_where(%arg0: tensor<40xi1>, %arg1: tensor<40xf32>, %arg2: tensor<40xf32>) -> tensor<40xf32> {
    %0 = stablehlo.select %arg0, %arg1, %arg2 : tensor<40xi1>, tensor<40xf32>
    return %0 : tensor<40xf32>
  }
}
