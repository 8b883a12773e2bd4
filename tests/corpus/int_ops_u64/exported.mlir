module @jit_f attributes {jax.uses_shape_polymorphism = false, mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<48xui64>, %arg1: tensor<48xui64>, %arg2: tensor<48xui64>) -> (tensor<48xui64> {jax.result_info = "result['add']"}, tensor<48xui64> {jax.result_info = "result['and']"}, tensor<48xui64> {jax.result_info = "result['clz']"}, tensor<48xui64> {jax.result_info = "result['div']"}, tensor<48xi1> {jax.result_info = "result['ge']"}, tensor<48xi1> {jax.result_info = "result['lt']"}, tensor<48xui64> {jax.result_info = "result['max']"}, tensor<48xui64> {jax.result_info = "result['min']"}, tensor<48xui64> {jax.result_info = "result['mul']"}, tensor<48xui64> {jax.result_info = "result['not']"}, tensor<48xui64> {jax.result_info = "result['or']"}, tensor<48xui64> {jax.result_info = "result['popcnt']"}, tensor<48xui64> {jax.result_info = "result['rem']"}, tensor<48xui64> {jax.result_info = "result['shl']"}, tensor<48xui64> {jax.result_info = "result['shr_arith']"}, tensor<48xui64> {jax.result_info = "result['shr_logical']"}, tensor<48xui64> {jax.result_info = "result['sub']"}, tensor<48xui64> {jax.result_info = "result['xor']"}) {
    %0 = stablehlo.add %arg0, %arg1 : tensor<48xui64>
    %1 = stablehlo.subtract %arg0, %arg1 : tensor<48xui64>
    %2 = stablehlo.multiply %arg0, %arg1 : tensor<48xui64>
    %3 = stablehlo.divide %arg0, %arg1 : tensor<48xui64>
    %4 = stablehlo.remainder %arg0, %arg1 : tensor<48xui64>
    %5 = stablehlo.maximum %arg0, %arg1 : tensor<48xui64>
    %6 = stablehlo.minimum %arg0, %arg1 : tensor<48xui64>
    %7 = stablehlo.and %arg0, %arg1 : tensor<48xui64>
    %8 = stablehlo.or %arg0, %arg1 : tensor<48xui64>
    %9 = stablehlo.xor %arg0, %arg1 : tensor<48xui64>
    %10 = stablehlo.not %arg0 : tensor<48xui64>
    %11 = stablehlo.shift_left %arg0, %arg2 : tensor<48xui64>
    %12 = stablehlo.shift_right_logical %arg0, %arg2 : tensor<48xui64>
    %13 = stablehlo.shift_right_arithmetic %arg0, %arg2 : tensor<48xui64>
    %14 = stablehlo.popcnt %arg0 : tensor<48xui64>
    %15 = stablehlo.count_leading_zeros %arg0 : tensor<48xui64>
    %16 = stablehlo.compare LT, %arg0, %arg1, UNSIGNED : (tensor<48xui64>, tensor<48xui64>) -> tensor<48xi1>
    %17 = stablehlo.compare GE, %arg0, %arg1, UNSIGNED : (tensor<48xui64>, tensor<48xui64>) -> tensor<48xi1>
    return %0, %7, %15, %3, %17, %16, %5, %6, %2, %10, %8, %14, %4, %11, %13, %12, %1, %9 : tensor<48xui64>, tensor<48xui64>, tensor<48xui64>, tensor<48xui64>, tensor<48xi1>, tensor<48xi1>, tensor<48xui64>, tensor<48xui64>, tensor<48xui64>, tensor<48xui64>, tensor<48xui64>, tensor<48xui64>, tensor<48xui64>, tensor<48xui64>, tensor<48xui64>, tensor<48xui64>, tensor<48xui64>, tensor<48xui64>
  }
}
