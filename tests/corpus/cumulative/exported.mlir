module @jit_f attributes {jax.uses_shape_polymorphism = false, mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4x12xf32>, %arg1: tensor<16xi32>) -> (tensor<4x12xf32> {jax.result_info = "result[0]"}, tensor<4x12xf32> {jax.result_info = "result[1]"}, tensor<4x12xf32> {jax.result_info = "result[2]"}, tensor<4x12xf32> {jax.result_info = "result[3]"}, tensor<4x12xf32> {jax.result_info = "result[4]"}, tensor<16xi32> {jax.result_info = "result[5]"}, tensor<4x12xf32> {jax.result_info = "result[6]"}) {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<f32>
    %1 = "stablehlo.reduce_window"(%arg0, %0) <{padding = dense<[[0, 0], [11, 0]]> : tensor<2x2xi64>, window_dimensions = array<i64: 1, 12>}> ({
    ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
      %8 = stablehlo.add %arg2, %arg3 : tensor<f32>
      stablehlo.return %8 : tensor<f32>
    }) : (tensor<4x12xf32>, tensor<f32>) -> tensor<4x12xf32>
    %2 = call @cumsum(%arg0) : (tensor<4x12xf32>) -> tensor<4x12xf32>
    %3 = call @cumprod(%arg0) : (tensor<4x12xf32>) -> tensor<4x12xf32>
    %4 = call @cummax(%arg0) : (tensor<4x12xf32>) -> tensor<4x12xf32>
    %5 = call @cummin(%arg0) : (tensor<4x12xf32>) -> tensor<4x12xf32>
    %6 = call @cumsum_2(%arg0) : (tensor<4x12xf32>) -> tensor<4x12xf32>
    %7 = call @cumsum_3(%arg1) : (tensor<16xi32>) -> tensor<16xi32>
    return %2, %3, %4, %5, %6, %7, %1 : tensor<4x12xf32>, tensor<4x12xf32>, tensor<4x12xf32>, tensor<4x12xf32>, tensor<4x12xf32>, tensor<16xi32>, tensor<4x12xf32>
  }
  func.func private @cumsum(%arg0: tensor<4x12xf32>) -> tensor<4x12xf32> {
    %0 = call @cumsum_0(%arg0) : (tensor<4x12xf32>) -> tensor<4x12xf32>
    return %0 : tensor<4x12xf32>
  }
  func.func private @cumsum_0(%arg0: tensor<4x12xf32>) -> tensor<4x12xf32> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<f32>
    %1 = "stablehlo.reduce_window"(%arg0, %0) <{padding = dense<[[0, 0], [11, 0]]> : tensor<2x2xi64>, window_dimensions = array<i64: 1, 12>}> ({
    ^bb0(%arg1: tensor<f32>, %arg2: tensor<f32>):
      %2 = stablehlo.add %arg1, %arg2 : tensor<f32>
      stablehlo.return %2 : tensor<f32>
    }) : (tensor<4x12xf32>, tensor<f32>) -> tensor<4x12xf32>
    return %1 : tensor<4x12xf32>
  }
  func.func private @cumprod(%arg0: tensor<4x12xf32>) -> tensor<4x12xf32> {
    %0 = call @cumprod_1(%arg0) : (tensor<4x12xf32>) -> tensor<4x12xf32>
    return %0 : tensor<4x12xf32>
  }
  func.func private @cumprod_1(%arg0: tensor<4x12xf32>) -> tensor<4x12xf32> {
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %0 = "stablehlo.reduce_window"(%arg0, %cst) <{padding = dense<[[3, 0], [0, 0]]> : tensor<2x2xi64>, window_dimensions = array<i64: 4, 1>}> ({
    ^bb0(%arg1: tensor<f32>, %arg2: tensor<f32>):
      %1 = stablehlo.multiply %arg1, %arg2 : tensor<f32>
      stablehlo.return %1 : tensor<f32>
    }) : (tensor<4x12xf32>, tensor<f32>) -> tensor<4x12xf32>
    return %0 : tensor<4x12xf32>
  }
  func.func private @cummax(%arg0: tensor<4x12xf32>) -> tensor<4x12xf32> {
    %cst = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<f32>
    %1 = "stablehlo.reduce_window"(%arg0, %0) <{padding = dense<[[0, 0], [11, 0]]> : tensor<2x2xi64>, window_dimensions = array<i64: 1, 12>}> ({
    ^bb0(%arg1: tensor<f32>, %arg2: tensor<f32>):
      %2 = stablehlo.maximum %arg1, %arg2 : tensor<f32>
      stablehlo.return %2 : tensor<f32>
    }) : (tensor<4x12xf32>, tensor<f32>) -> tensor<4x12xf32>
    return %1 : tensor<4x12xf32>
  }
  func.func private @cummin(%arg0: tensor<4x12xf32>) -> tensor<4x12xf32> {
    %cst = stablehlo.constant dense<0x7F800000> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<f32>
    %1 = "stablehlo.reduce_window"(%arg0, %0) <{padding = dense<[[0, 0], [0, 11]]> : tensor<2x2xi64>, window_dimensions = array<i64: 1, 12>}> ({
    ^bb0(%arg1: tensor<f32>, %arg2: tensor<f32>):
      %2 = stablehlo.minimum %arg1, %arg2 : tensor<f32>
      stablehlo.return %2 : tensor<f32>
    }) : (tensor<4x12xf32>, tensor<f32>) -> tensor<4x12xf32>
    return %1 : tensor<4x12xf32>
  }
  func.func private @cumsum_2(%arg0: tensor<4x12xf32>) -> tensor<4x12xf32> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<f32>
    %1 = "stablehlo.reduce_window"(%arg0, %0) <{padding = dense<[[0, 0], [0, 11]]> : tensor<2x2xi64>, window_dimensions = array<i64: 1, 12>}> ({
    ^bb0(%arg1: tensor<f32>, %arg2: tensor<f32>):
      %2 = stablehlo.add %arg1, %arg2 : tensor<f32>
      stablehlo.return %2 : tensor<f32>
    }) : (tensor<4x12xf32>, tensor<f32>) -> tensor<4x12xf32>
    return %1 : tensor<4x12xf32>
  }
  func.func private @cumsum_3(%arg0: tensor<16xi32>) -> tensor<16xi32> {
    %0 = call @cumsum_4(%arg0) : (tensor<16xi32>) -> tensor<16xi32>
    return %0 : tensor<16xi32>
  }
  func.func private @cumsum_4(%arg0: tensor<16xi32>) -> tensor<16xi32> {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<i32>
    %1 = "stablehlo.reduce_window"(%arg0, %0) <{padding = dense<[[15, 0]]> : tensor<1x2xi64>, window_dimensions = array<i64: 16>}> ({
    ^bb0(%arg1: tensor<i32>, %arg2: tensor<i32>):
      %2 = stablehlo.add %arg1, %arg2 : tensor<i32>
      stablehlo.return %2 : tensor<i32>
    }) : (tensor<16xi32>, tensor<i32>) -> tensor<16xi32>
    return %1 : tensor<16xi32>
  }
}
