module @jit_f attributes {jax.uses_shape_polymorphism = false, mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<16x32xf32>, %arg1: tensor<32xf32>, %arg2: tensor<32x4xf32>, %arg3: tensor<4xf32>, %arg4: tensor<8x16xf32>, %arg5: tensor<8x4xf32>) -> (tensor<f32> {jax.result_info = "result[0]"}, tensor<32xf32> {jax.result_info = "result[1]['b1']"}, tensor<4xf32> {jax.result_info = "result[1]['b2']"}, tensor<16x32xf32> {jax.result_info = "result[1]['w1']"}, tensor<32x4xf32> {jax.result_info = "result[1]['w2']"}) {
    %cst = stablehlo.constant dense<3.200000e+01> : tensor<f32>
    %cst_0 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %cst_1 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %cst_2 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.dot_general %arg4, %arg0, contracting_dims = [1] x [0] : (tensor<8x16xf32>, tensor<16x32xf32>) -> tensor<8x32xf32>
    %1 = stablehlo.broadcast_in_dim %arg1, dims = [1] : (tensor<32xf32>) -> tensor<1x32xf32>
    %2 = stablehlo.broadcast_in_dim %1, dims = [0, 1] : (tensor<1x32xf32>) -> tensor<8x32xf32>
    %3 = stablehlo.add %0, %2 : tensor<8x32xf32>
    %4 = call @relu(%3) : (tensor<8x32xf32>) -> tensor<8x32xf32>
    %5 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<8x32xf32>
    %6 = stablehlo.compare GT, %3, %5, FLOAT : (tensor<8x32xf32>, tensor<8x32xf32>) -> tensor<8x32xi1>
    %7 = stablehlo.tanh %4 : tensor<8x32xf32>
    %8 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<8x32xf32>
    %9 = stablehlo.subtract %8, %7 : tensor<8x32xf32>
    %10 = stablehlo.dot_general %7, %arg2, contracting_dims = [1] x [0] : (tensor<8x32xf32>, tensor<32x4xf32>) -> tensor<8x4xf32>
    %11 = stablehlo.broadcast_in_dim %arg3, dims = [1] : (tensor<4xf32>) -> tensor<1x4xf32>
    %12 = stablehlo.broadcast_in_dim %11, dims = [0, 1] : (tensor<1x4xf32>) -> tensor<8x4xf32>
    %13 = stablehlo.add %10, %12 : tensor<8x4xf32>
    %14 = stablehlo.subtract %13, %arg5 : tensor<8x4xf32>
    %15 = stablehlo.multiply %14, %14 : tensor<8x4xf32>
    %16 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<8x4xf32>
    %17 = stablehlo.multiply %16, %14 : tensor<8x4xf32>
    %18 = stablehlo.reduce(%15 init: %cst_2) applies stablehlo.add across dimensions = [0, 1] : (tensor<8x4xf32>, tensor<f32>) -> tensor<f32>
    %19 = stablehlo.divide %18, %cst : tensor<f32>
    %20 = stablehlo.divide %cst_1, %cst : tensor<f32>
    %21 = stablehlo.broadcast_in_dim %20, dims = [] : (tensor<f32>) -> tensor<8x4xf32>
    %22 = stablehlo.multiply %21, %17 : tensor<8x4xf32>
    %23 = stablehlo.reduce(%22 init: %cst_2) applies stablehlo.add across dimensions = [0] : (tensor<8x4xf32>, tensor<f32>) -> tensor<4xf32>
    %24 = stablehlo.reshape %23 : (tensor<4xf32>) -> tensor<1x4xf32>
    %25 = stablehlo.reduce(%24 init: %cst_2) applies stablehlo.add across dimensions = [0] : (tensor<1x4xf32>, tensor<f32>) -> tensor<4xf32>
    %26 = stablehlo.dot_general %22, %7, contracting_dims = [0] x [0] : (tensor<8x4xf32>, tensor<8x32xf32>) -> tensor<4x32xf32>
    %27 = stablehlo.transpose %26, dims = [1, 0] : (tensor<4x32xf32>) -> tensor<32x4xf32>
    %28 = stablehlo.dot_general %22, %arg2, contracting_dims = [1] x [1] : (tensor<8x4xf32>, tensor<32x4xf32>) -> tensor<8x32xf32>
    %29 = stablehlo.multiply %28, %9 : tensor<8x32xf32>
    %30 = stablehlo.multiply %29, %7 : tensor<8x32xf32>
    %31 = stablehlo.add %29, %30 : tensor<8x32xf32>
    %32 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<8x32xf32>
    %33 = stablehlo.select %6, %31, %32 : tensor<8x32xi1>, tensor<8x32xf32>
    %34 = stablehlo.reduce(%33 init: %cst_2) applies stablehlo.add across dimensions = [0] : (tensor<8x32xf32>, tensor<f32>) -> tensor<32xf32>
    %35 = stablehlo.reshape %34 : (tensor<32xf32>) -> tensor<1x32xf32>
    %36 = stablehlo.reduce(%35 init: %cst_2) applies stablehlo.add across dimensions = [0] : (tensor<1x32xf32>, tensor<f32>) -> tensor<32xf32>
    %37 = stablehlo.dot_general %33, %arg4, contracting_dims = [0] x [0] : (tensor<8x32xf32>, tensor<8x16xf32>) -> tensor<32x16xf32>
    %38 = stablehlo.transpose %37, dims = [1, 0] : (tensor<32x16xf32>) -> tensor<16x32xf32>
    return %19, %36, %25, %38, %27 : tensor<f32>, tensor<32xf32>, tensor<4xf32>, tensor<16x32xf32>, tensor<32x4xf32>
  }
  func.func private @relu(%arg0: tensor<8x32xf32>) -> tensor<8x32xf32> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<8x32xf32>
    %1 = stablehlo.maximum %arg0, %0 : tensor<8x32xf32>
    return %1 : tensor<8x32xf32>
  }
}
