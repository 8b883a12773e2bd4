module @jit_f attributes {jax.uses_shape_polymorphism = false, mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<10x4xf32>, %arg1: tensor<8xf32>, %arg2: tensor<8x8xf32>, %arg3: tensor<4x8xf32>) -> (tensor<8xf32> {jax.result_info = "result[0]"}, tensor<10xf32> {jax.result_info = "result[1]"}) {
    %c = stablehlo.constant dense<1> : tensor<i32>
    %c_0 = stablehlo.constant dense<10> : tensor<i32>
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<10xf32>
    %1:6 = stablehlo.while(%iterArg = %arg0, %iterArg_2 = %arg2, %iterArg_3 = %arg3, %iterArg_4 = %c_1, %iterArg_5 = %arg1, %iterArg_6 = %0) : tensor<10x4xf32>, tensor<8x8xf32>, tensor<4x8xf32>, tensor<i32>, tensor<8xf32>, tensor<10xf32>
    cond {
      %2 = stablehlo.compare LT, %iterArg_4, %c_0, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %2 : tensor<i1>
    } do {
      %2 = func.call @dynamic_index_in_dim(%iterArg, %iterArg_4) : (tensor<10x4xf32>, tensor<i32>) -> tensor<4xf32>
      %3:2 = func.call @closed_call(%iterArg_2, %iterArg_3, %iterArg_5, %2) : (tensor<8x8xf32>, tensor<4x8xf32>, tensor<8xf32>, tensor<4xf32>) -> (tensor<8xf32>, tensor<f32>)
      %4 = func.call @dynamic_update_index_in_dim(%iterArg_6, %3#1, %iterArg_4) : (tensor<10xf32>, tensor<f32>, tensor<i32>) -> tensor<10xf32>
      %5 = stablehlo.add %iterArg_4, %c : tensor<i32>
      stablehlo.return %iterArg, %iterArg_2, %iterArg_3, %5, %3#0, %4 : tensor<10x4xf32>, tensor<8x8xf32>, tensor<4x8xf32>, tensor<i32>, tensor<8xf32>, tensor<10xf32>
    }
    return %1#4, %1#5 : tensor<8xf32>, tensor<10xf32>
  }
  func.func private @dynamic_index_in_dim(%arg0: tensor<10x4xf32>, %arg1: tensor<i32>) -> tensor<4xf32> {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.dynamic_slice %arg0, %arg1, %c, sizes = [1, 4] : (tensor<10x4xf32>, tensor<i32>, tensor<i32>) -> tensor<1x4xf32>
    %1 = stablehlo.reshape %0 : (tensor<1x4xf32>) -> tensor<4xf32>
    return %1 : tensor<4xf32>
  }
  func.func private @closed_call(%arg0: tensor<8x8xf32>, %arg1: tensor<4x8xf32>, %arg2: tensor<8xf32>, %arg3: tensor<4xf32>) -> (tensor<8xf32>, tensor<f32>) {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.dot_general %arg2, %arg0, contracting_dims = [0] x [0] : (tensor<8xf32>, tensor<8x8xf32>) -> tensor<8xf32>
    %1 = stablehlo.dot_general %arg3, %arg1, contracting_dims = [0] x [0] : (tensor<4xf32>, tensor<4x8xf32>) -> tensor<8xf32>
    %2 = stablehlo.add %0, %1 : tensor<8xf32>
    %3 = stablehlo.tanh %2 : tensor<8xf32>
    %4 = stablehlo.reduce(%3 init: %cst) applies stablehlo.add across dimensions = [0] : (tensor<8xf32>, tensor<f32>) -> tensor<f32>
    return %3, %4 : tensor<8xf32>, tensor<f32>
  }
  func.func private @dynamic_update_index_in_dim(%arg0: tensor<10xf32>, %arg1: tensor<f32>, %arg2: tensor<i32>) -> tensor<10xf32> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [] : (tensor<f32>) -> tensor<1xf32>
    %1 = stablehlo.dynamic_update_slice %arg0, %0, %arg2 : (tensor<10xf32>, tensor<1xf32>, tensor<i32>) -> tensor<10xf32>
    return %1 : tensor<10xf32>
  }
}
