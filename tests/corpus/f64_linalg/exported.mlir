module @jit_f attributes {jax.uses_shape_polymorphism = false, mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<6x8xf64>, %arg1: tensor<8x3xf64>, %arg2: tensor<12xi64>) -> (tensor<6x3xf64> {jax.result_info = "result[0]"}, tensor<6x8xf64> {jax.result_info = "result[1]"}, tensor<8xf64> {jax.result_info = "result[2]"}, tensor<12xi64> {jax.result_info = "result[3]"}, tensor<6xi64> {jax.result_info = "result[4]"}, tensor<5xi64> {jax.result_info = "result[5]"}) {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f64>
    %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0] : (tensor<6x8xf64>, tensor<8x3xf64>) -> tensor<6x3xf64>
    %1 = call @cumsum(%arg0) : (tensor<6x8xf64>) -> tensor<6x8xf64>
    %2 = stablehlo.reduce(%arg0 init: %cst) applies stablehlo.add across dimensions = [0] : (tensor<6x8xf64>, tensor<f64>) -> tensor<8xf64>
    %3 = call @sort(%arg2) : (tensor<12xi64>) -> tensor<12xi64>
    %4 = call @argmax(%arg0) : (tensor<6x8xf64>) -> tensor<6xi64>
    %5 = stablehlo.iota dim = 0 : tensor<5xi64>
    return %0, %1, %2, %3, %4, %5 : tensor<6x3xf64>, tensor<6x8xf64>, tensor<8xf64>, tensor<12xi64>, tensor<6xi64>, tensor<5xi64>
  }
  func.func private @cumsum(%arg0: tensor<6x8xf64>) -> tensor<6x8xf64> {
    %0 = call @cumsum_0(%arg0) : (tensor<6x8xf64>) -> tensor<6x8xf64>
    return %0 : tensor<6x8xf64>
  }
  func.func private @cumsum_0(%arg0: tensor<6x8xf64>) -> tensor<6x8xf64> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f64>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f64>) -> tensor<f64>
    %1 = "stablehlo.reduce_window"(%arg0, %0) <{padding = dense<[[0, 0], [7, 0]]> : tensor<2x2xi64>, window_dimensions = array<i64: 1, 8>}> ({
    ^bb0(%arg1: tensor<f64>, %arg2: tensor<f64>):
      %2 = stablehlo.add %arg1, %arg2 : tensor<f64>
      stablehlo.return %2 : tensor<f64>
    }) : (tensor<6x8xf64>, tensor<f64>) -> tensor<6x8xf64>
    return %1 : tensor<6x8xf64>
  }
  func.func private @sort(%arg0: tensor<12xi64>) -> tensor<12xi64> {
    %0 = "stablehlo.sort"(%arg0) <{dimension = 0 : i64, is_stable = true}> ({
    ^bb0(%arg1: tensor<i64>, %arg2: tensor<i64>):
      %1 = stablehlo.compare LT, %arg1, %arg2, SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>
      stablehlo.return %1 : tensor<i1>
    }) : (tensor<12xi64>) -> tensor<12xi64>
    return %0 : tensor<12xi64>
  }
  func.func private @argmax(%arg0: tensor<6x8xf64>) -> tensor<6xi64> {
    %c = stablehlo.constant dense<0> : tensor<i64>
    %cst = stablehlo.constant dense<0xFFF0000000000000> : tensor<f64>
    %0 = stablehlo.iota dim = 1 : tensor<6x8xi64>
    %1:2 = stablehlo.reduce(%arg0 init: %cst), (%0 init: %c) across dimensions = [1] : (tensor<6x8xf64>, tensor<6x8xi64>, tensor<f64>, tensor<i64>) -> (tensor<6xf64>, tensor<6xi64>)
     reducer(%arg1: tensor<f64>, %arg3: tensor<f64>) (%arg2: tensor<i64>, %arg4: tensor<i64>)  {
      %2 = stablehlo.compare GT, %arg1, %arg3, FLOAT : (tensor<f64>, tensor<f64>) -> tensor<i1>
      %3 = stablehlo.compare NE, %arg1, %arg1, FLOAT : (tensor<f64>, tensor<f64>) -> tensor<i1>
      %4 = stablehlo.or %2, %3 : tensor<i1>
      %5 = stablehlo.compare EQ, %arg1, %arg3, FLOAT : (tensor<f64>, tensor<f64>) -> tensor<i1>
      %6 = stablehlo.compare LT, %arg2, %arg4, SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>
      %7 = stablehlo.and %5, %6 : tensor<i1>
      %8 = stablehlo.or %4, %7 : tensor<i1>
      %9 = stablehlo.select %4, %arg1, %arg3 : tensor<i1>, tensor<f64>
      %10 = stablehlo.select %8, %arg2, %arg4 : tensor<i1>, tensor<i64>
      stablehlo.return %9, %10 : tensor<f64>, tensor<i64>
    }
    return %1#1 : tensor<6xi64>
  }
}
