module @jit_f attributes {jax.uses_shape_polymorphism = false, mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4x6xf32>) -> (tensor<10xi32> {jax.result_info = "result[0]"}, tensor<6xf32> {jax.result_info = "result[1]"}, tensor<3x5xi32> {jax.result_info = "result[2]"}, tensor<3x5xui8> {jax.result_info = "result[3]"}, tensor<7xf32> {jax.result_info = "result[4]"}, tensor<4x4xf32> {jax.result_info = "result[5]"}, tensor<4x6xf32> {jax.result_info = "result[6]"}, tensor<4x6xf32> {jax.result_info = "result[7]"}) {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %cst_1 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %cst_2 = stablehlo.constant dense<3.000000e+00> : tensor<f32>
    %0 = stablehlo.iota dim = 0 : tensor<10xi32>
    %1 = stablehlo.iota dim = 0 : tensor<6xf32>
    %2 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<6xf32>
    %3 = stablehlo.multiply %2, %1 : tensor<6xf32>
    %4 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<6xf32>
    %5 = stablehlo.add %4, %3 : tensor<6xf32>
    %6 = stablehlo.iota dim = 1 : tensor<3x5xi32>
    %7 = stablehlo.iota dim = 0 : tensor<3x5xui8>
    %8 = call @_linspace(%cst_0, %cst) : (tensor<f32>, tensor<f32>) -> tensor<7xf32>
    %9 = stablehlo.iota dim = 0 : tensor<4x4xi32>
    %10 = stablehlo.iota dim = 1 : tensor<4x4xi32>
    %11 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<4x4xi32>
    %12 = stablehlo.add %9, %11 : tensor<4x4xi32>
    %13 = stablehlo.compare EQ, %12, %10, SIGNED : (tensor<4x4xi32>, tensor<4x4xi32>) -> tensor<4x4xi1>
    %14 = stablehlo.convert %13 : (tensor<4x4xi1>) -> tensor<4x4xf32>
    %15 = call @tril(%arg0) : (tensor<4x6xf32>) -> tensor<4x6xf32>
    %16 = stablehlo.iota dim = 0 : tensor<6xf32>
    %17 = stablehlo.broadcast_in_dim %16, dims = [1] : (tensor<6xf32>) -> tensor<1x6xf32>
    %18 = stablehlo.broadcast_in_dim %17, dims = [0, 1] : (tensor<1x6xf32>) -> tensor<4x6xf32>
    %19 = stablehlo.add %arg0, %18 : tensor<4x6xf32>
    return %0, %5, %6, %7, %8, %14, %15, %19 : tensor<10xi32>, tensor<6xf32>, tensor<3x5xi32>, tensor<3x5xui8>, tensor<7xf32>, tensor<4x4xf32>, tensor<4x6xf32>, tensor<4x6xf32>
  }
  func.func private @_linspace(%arg0: tensor<f32>, %arg1: tensor<f32>) -> tensor<7xf32> {
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %cst_0 = stablehlo.constant dense<6.000000e+00> : tensor<f32>
    %0 = stablehlo.convert %arg0 : tensor<f32>
    %1 = stablehlo.convert %arg1 : tensor<f32>
    %2 = stablehlo.iota dim = 0 : tensor<6xf32>
    %3 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<6xf32>
    %4 = stablehlo.divide %2, %3 : tensor<6xf32>
    %5 = stablehlo.reshape %0 : (tensor<f32>) -> tensor<1xf32>
    %6 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<6xf32>
    %7 = stablehlo.subtract %6, %4 : tensor<6xf32>
    %8 = stablehlo.broadcast_in_dim %5, dims = [0] : (tensor<1xf32>) -> tensor<6xf32>
    %9 = stablehlo.multiply %8, %7 : tensor<6xf32>
    %10 = stablehlo.reshape %1 : (tensor<f32>) -> tensor<1xf32>
    %11 = stablehlo.broadcast_in_dim %10, dims = [0] : (tensor<1xf32>) -> tensor<6xf32>
    %12 = stablehlo.multiply %11, %4 : tensor<6xf32>
    %13 = stablehlo.add %9, %12 : tensor<6xf32>
    %14 = stablehlo.broadcast_in_dim %1, dims = [] : (tensor<f32>) -> tensor<1xf32>
    %15 = stablehlo.concatenate %13, %14, dim = 0 : (tensor<6xf32>, tensor<1xf32>) -> tensor<7xf32>
    return %15 : tensor<7xf32>
  }
  func.func private @tril(%arg0: tensor<4x6xf32>) -> tensor<4x6xf32> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.iota dim = 0 : tensor<4x6xi32>
    %1 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<4x6xi32>
    %2 = stablehlo.add %0, %1 : tensor<4x6xi32>
    %3 = stablehlo.iota dim = 1 : tensor<4x6xi32>
    %4 = stablehlo.compare GE, %2, %3, SIGNED : (tensor<4x6xi32>, tensor<4x6xi32>) -> tensor<4x6xi1>
    %5 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<4x6xf32>
    %6 = stablehlo.select %4, %arg0, %5 : tensor<4x6xi1>, tensor<4x6xf32>
    return %6 : tensor<4x6xf32>
  }
}
