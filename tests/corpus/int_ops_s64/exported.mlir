module @jit_f attributes {jax.uses_shape_polymorphism = false, mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<48xi64>, %arg1: tensor<48xi64>, %arg2: tensor<48xi64>) -> (tensor<48xi64> {jax.result_info = "result['abs']"}, tensor<48xi64> {jax.result_info = "result['add']"}, tensor<48xi64> {jax.result_info = "result['and']"}, tensor<48xi64> {jax.result_info = "result['clz']"}, tensor<48xi64> {jax.result_info = "result['div']"}, tensor<48xi1> {jax.result_info = "result['ge']"}, tensor<48xi1> {jax.result_info = "result['lt']"}, tensor<48xi64> {jax.result_info = "result['max']"}, tensor<48xi64> {jax.result_info = "result['min']"}, tensor<48xi64> {jax.result_info = "result['mul']"}, tensor<48xi64> {jax.result_info = "result['neg']"}, tensor<48xi64> {jax.result_info = "result['not']"}, tensor<48xi64> {jax.result_info = "result['or']"}, tensor<48xi64> {jax.result_info = "result['popcnt']"}, tensor<48xi64> {jax.result_info = "result['rem']"}, tensor<48xi64> {jax.result_info = "result['shl']"}, tensor<48xi64> {jax.result_info = "result['shr_arith']"}, tensor<48xi64> {jax.result_info = "result['shr_logical']"}, tensor<48xi64> {jax.result_info = "result['sign']"}, tensor<48xi64> {jax.result_info = "result['sub']"}, tensor<48xi64> {jax.result_info = "result['xor']"}) {
    %0 = stablehlo.add %arg0, %arg1 : tensor<48xi64>
    %1 = stablehlo.subtract %arg0, %arg1 : tensor<48xi64>
    %2 = stablehlo.multiply %arg0, %arg1 : tensor<48xi64>
    %3 = stablehlo.divide %arg0, %arg1 : tensor<48xi64>
    %4 = stablehlo.remainder %arg0, %arg1 : tensor<48xi64>
    %5 = stablehlo.maximum %arg0, %arg1 : tensor<48xi64>
    %6 = stablehlo.minimum %arg0, %arg1 : tensor<48xi64>
    %7 = stablehlo.and %arg0, %arg1 : tensor<48xi64>
    %8 = stablehlo.or %arg0, %arg1 : tensor<48xi64>
    %9 = stablehlo.xor %arg0, %arg1 : tensor<48xi64>
    %10 = stablehlo.not %arg0 : tensor<48xi64>
    %11 = stablehlo.shift_left %arg0, %arg2 : tensor<48xi64>
    %12 = stablehlo.shift_right_logical %arg0, %arg2 : tensor<48xi64>
    %13 = stablehlo.shift_right_arithmetic %arg0, %arg2 : tensor<48xi64>
    %14 = stablehlo.popcnt %arg0 : tensor<48xi64>
    %15 = stablehlo.count_leading_zeros %arg0 : tensor<48xi64>
    %16 = stablehlo.compare LT, %arg0, %arg1, SIGNED : (tensor<48xi64>, tensor<48xi64>) -> tensor<48xi1>
    %17 = stablehlo.compare GE, %arg0, %arg1, SIGNED : (tensor<48xi64>, tensor<48xi64>) -> tensor<48xi1>
    %18 = stablehlo.negate %arg0 : tensor<48xi64>
    %19 = stablehlo.abs %arg0 : tensor<48xi64>
    %20 = stablehlo.sign %arg0 : tensor<48xi64>
    return %19, %0, %7, %15, %3, %17, %16, %5, %6, %2, %18, %10, %8, %14, %4, %11, %13, %12, %20, %1, %9 : tensor<48xi64>, tensor<48xi64>, tensor<48xi64>, tensor<48xi64>, tensor<48xi64>, tensor<48xi1>, tensor<48xi1>, tensor<48xi64>, tensor<48xi64>, tensor<48xi64>, tensor<48xi64>, tensor<48xi64>, tensor<48xi64>, tensor<48xi64>, tensor<48xi64>, tensor<48xi64>, tensor<48xi64>, tensor<48xi64>, tensor<48xi64>, tensor<48xi64>, tensor<48xi64>
  }
}
