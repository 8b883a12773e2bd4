module @jit_f attributes {jax.uses_shape_polymorphism = false, mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<40xf64>, %arg1: tensor<40xf64>) -> (tensor<40xf64> {jax.result_info = "result[0]"}, tensor<40xf64> {jax.result_info = "result[1]"}, tensor<40xf64> {jax.result_info = "result[2]"}, tensor<40xf64> {jax.result_info = "result[3]"}, tensor<40xf64> {jax.result_info = "result[4]"}, tensor<40xf64> {jax.result_info = "result[5]"}, tensor<40xf64> {jax.result_info = "result[6]"}, tensor<40xf64> {jax.result_info = "result[7]"}, tensor<40xf64> {jax.result_info = "result[8]"}, tensor<40xf64> {jax.result_info = "result[9]"}, tensor<40xf64> {jax.result_info = "result[10]"}, tensor<40xf64> {jax.result_info = "result[11]"}, tensor<40xf64> {jax.result_info = "result[12]"}) {
    %cst = stablehlo.constant dense<3.000000e+00> : tensor<f64>
    %0 = stablehlo.exponential %arg0 : tensor<40xf64>
    %1 = stablehlo.log %arg1 : tensor<40xf64>
    %2 = stablehlo.sqrt %arg1 : tensor<40xf64>
    %3 = stablehlo.tanh %arg0 : tensor<40xf64>
    %4 = stablehlo.sine %arg0 : tensor<40xf64>
    %5 = stablehlo.cosine %arg0 : tensor<40xf64>
    %6 = stablehlo.atan2 %arg0, %arg1 : tensor<40xf64>
    %7 = stablehlo.power %arg1, %arg0 : tensor<40xf64>
    %8 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f64>) -> tensor<40xf64>
    %9 = stablehlo.multiply %arg0, %8 : tensor<40xf64>
    %10 = stablehlo.floor %9 : tensor<40xf64>
    %11 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f64>) -> tensor<40xf64>
    %12 = stablehlo.multiply %arg0, %11 : tensor<40xf64>
    %13 = stablehlo.round_nearest_even %12 : tensor<40xf64>
    %14 = stablehlo.multiply %arg0, %arg1 : tensor<40xf64>
    %15 = stablehlo.divide %arg0, %arg1 : tensor<40xf64>
    %16 = stablehlo.subtract %14, %15 : tensor<40xf64>
    %17 = stablehlo.exponential_minus_one %arg0 : tensor<40xf64>
    %18 = stablehlo.log_plus_one %arg1 : tensor<40xf64>
    return %0, %1, %2, %3, %4, %5, %6, %7, %10, %13, %16, %17, %18 : tensor<40xf64>, tensor<40xf64>, tensor<40xf64>, tensor<40xf64>, tensor<40xf64>, tensor<40xf64>, tensor<40xf64>, tensor<40xf64>, tensor<40xf64>, tensor<40xf64>, tensor<40xf64>, tensor<40xf64>, tensor<40xf64>
  }
}
