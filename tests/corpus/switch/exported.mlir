module @jit_f attributes {jax.uses_shape_polymorphism = false, mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4xi32>, %arg1: tensor<6xf32>) -> (tensor<6xf32> {jax.result_info = "result[0]"}, tensor<6xf32> {jax.result_info = "result[1]"}, tensor<6xf32> {jax.result_info = "result[2]"}, tensor<6xf32> {jax.result_info = "result[3]"}) {
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %c = stablehlo.constant dense<2> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.slice %arg0 [0:1] : (tensor<4xi32>) -> tensor<1xi32>
    %1 = stablehlo.reshape %0 : (tensor<1xi32>) -> tensor<i32>
    %2 = stablehlo.clamp %c_0, %1, %c : tensor<i32>
    %3 = "stablehlo.case"(%2) ({
      %16 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<6xf32>
      %17 = stablehlo.add %arg1, %16 : tensor<6xf32>
      stablehlo.return %17 : tensor<6xf32>
    }, {
      %16 = stablehlo.multiply %arg1, %arg1 : tensor<6xf32>
      stablehlo.return %16 : tensor<6xf32>
    }, {
      %16 = stablehlo.negate %arg1 : tensor<6xf32>
      stablehlo.return %16 : tensor<6xf32>
    }) : (tensor<i32>) -> tensor<6xf32>
    %4 = stablehlo.slice %arg0 [1:2] : (tensor<4xi32>) -> tensor<1xi32>
    %5 = stablehlo.reshape %4 : (tensor<1xi32>) -> tensor<i32>
    %6 = stablehlo.clamp %c_0, %5, %c : tensor<i32>
    %7 = "stablehlo.case"(%6) ({
      %16 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<6xf32>
      %17 = stablehlo.add %arg1, %16 : tensor<6xf32>
      stablehlo.return %17 : tensor<6xf32>
    }, {
      %16 = stablehlo.multiply %arg1, %arg1 : tensor<6xf32>
      stablehlo.return %16 : tensor<6xf32>
    }, {
      %16 = stablehlo.negate %arg1 : tensor<6xf32>
      stablehlo.return %16 : tensor<6xf32>
    }) : (tensor<i32>) -> tensor<6xf32>
    %8 = stablehlo.slice %arg0 [2:3] : (tensor<4xi32>) -> tensor<1xi32>
    %9 = stablehlo.reshape %8 : (tensor<1xi32>) -> tensor<i32>
    %10 = stablehlo.clamp %c_0, %9, %c : tensor<i32>
    %11 = "stablehlo.case"(%10) ({
      %16 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<6xf32>
      %17 = stablehlo.add %arg1, %16 : tensor<6xf32>
      stablehlo.return %17 : tensor<6xf32>
    }, {
      %16 = stablehlo.multiply %arg1, %arg1 : tensor<6xf32>
      stablehlo.return %16 : tensor<6xf32>
    }, {
      %16 = stablehlo.negate %arg1 : tensor<6xf32>
      stablehlo.return %16 : tensor<6xf32>
    }) : (tensor<i32>) -> tensor<6xf32>
    %12 = stablehlo.slice %arg0 [3:4] : (tensor<4xi32>) -> tensor<1xi32>
    %13 = stablehlo.reshape %12 : (tensor<1xi32>) -> tensor<i32>
    %14 = stablehlo.clamp %c_0, %13, %c : tensor<i32>
    %15 = "stablehlo.case"(%14) ({
      %16 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<6xf32>
      %17 = stablehlo.add %arg1, %16 : tensor<6xf32>
      stablehlo.return %17 : tensor<6xf32>
    }, {
      %16 = stablehlo.multiply %arg1, %arg1 : tensor<6xf32>
      stablehlo.return %16 : tensor<6xf32>
    }, {
      %16 = stablehlo.negate %arg1 : tensor<6xf32>
      stablehlo.return %16 : tensor<6xf32>
    }) : (tensor<i32>) -> tensor<6xf32>
    return %3, %7, %11, %15 : tensor<6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<6xf32>
  }
}
