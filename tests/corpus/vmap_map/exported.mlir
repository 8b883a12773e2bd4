module @jit_f attributes {jax.uses_shape_polymorphism = false, mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<5x6xf32>, %arg1: tensor<6x3xf32>) -> (tensor<5x3xf32> {jax.result_info = "result[0]"}, tensor<5x6xf32> {jax.result_info = "result[1]"}) {
    %c = stablehlo.constant dense<1> : tensor<i32>
    %c_0 = stablehlo.constant dense<5> : tensor<i32>
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %cst_2 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0] : (tensor<5x6xf32>, tensor<6x3xf32>) -> tensor<5x3xf32>
    %1 = stablehlo.tanh %0 : tensor<5x3xf32>
    %2 = stablehlo.reduce(%arg0 init: %cst_2) applies stablehlo.maximum across dimensions = [1] : (tensor<5x6xf32>, tensor<f32>) -> tensor<5xf32>
    %3 = stablehlo.broadcast_in_dim %2, dims = [0] : (tensor<5xf32>) -> tensor<5x1xf32>
    %4 = stablehlo.broadcast_in_dim %3, dims = [0, 1] : (tensor<5x1xf32>) -> tensor<5x3xf32>
    %5 = stablehlo.add %1, %4 : tensor<5x3xf32>
    %6 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<5x6xf32>
    %7:3 = stablehlo.while(%iterArg = %arg0, %iterArg_3 = %c_1, %iterArg_4 = %6) : tensor<5x6xf32>, tensor<i32>, tensor<5x6xf32>
    cond {
      %8 = stablehlo.compare LT, %iterArg_3, %c_0, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %8 : tensor<i1>
    } do {
      %8 = func.call @dynamic_index_in_dim(%iterArg, %iterArg_3) : (tensor<5x6xf32>, tensor<i32>) -> tensor<6xf32>
      %9 = func.call @closed_call(%8) : (tensor<6xf32>) -> tensor<6xf32>
      %10 = func.call @dynamic_update_index_in_dim(%iterArg_4, %9, %iterArg_3) : (tensor<5x6xf32>, tensor<6xf32>, tensor<i32>) -> tensor<5x6xf32>
      %11 = stablehlo.add %iterArg_3, %c : tensor<i32>
      stablehlo.return %iterArg, %11, %10 : tensor<5x6xf32>, tensor<i32>, tensor<5x6xf32>
    }
    return %5, %7#2 : tensor<5x3xf32>, tensor<5x6xf32>
  }
  func.func private @dynamic_index_in_dim(%arg0: tensor<5x6xf32>, %arg1: tensor<i32>) -> tensor<6xf32> {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.dynamic_slice %arg0, %arg1, %c, sizes = [1, 6] : (tensor<5x6xf32>, tensor<i32>, tensor<i32>) -> tensor<1x6xf32>
    %1 = stablehlo.reshape %0 : (tensor<1x6xf32>) -> tensor<6xf32>
    return %1 : tensor<6xf32>
  }
  func.func private @closed_call(%arg0: tensor<6xf32>) -> tensor<6xf32> {
    %0 = call @sort(%arg0) : (tensor<6xf32>) -> tensor<6xf32>
    %1 = stablehlo.reverse %0, dims = [0] : tensor<6xf32>
    return %1 : tensor<6xf32>
  }
  func.func private @sort(%arg0: tensor<6xf32>) -> tensor<6xf32> {
    %cst = stablehlo.constant dense<0x7FC00000> : tensor<f32>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = "stablehlo.sort"(%arg0) <{dimension = 0 : i64, is_stable = true}> ({
    ^bb0(%arg1: tensor<f32>, %arg2: tensor<f32>):
      %1 = stablehlo.compare EQ, %arg1, %cst_0, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %2 = stablehlo.select %1, %cst_0, %arg1 : tensor<i1>, tensor<f32>
      %3 = stablehlo.compare NE, %arg1, %arg1, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %4 = stablehlo.select %3, %cst, %2 : tensor<i1>, tensor<f32>
      %5 = stablehlo.compare EQ, %arg2, %cst_0, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %6 = stablehlo.select %5, %cst_0, %arg2 : tensor<i1>, tensor<f32>
      %7 = stablehlo.compare NE, %arg2, %arg2, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %8 = stablehlo.select %7, %cst, %6 : tensor<i1>, tensor<f32>
      %9 = stablehlo.compare LT, %4, %8, TOTALORDER : (tensor<f32>, tensor<f32>) -> tensor<i1>
      stablehlo.return %9 : tensor<i1>
    }) : (tensor<6xf32>) -> tensor<6xf32>
    return %0 : tensor<6xf32>
  }
  func.func private @dynamic_update_index_in_dim(%arg0: tensor<5x6xf32>, %arg1: tensor<6xf32>, %arg2: tensor<i32>) -> tensor<5x6xf32> {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [1] : (tensor<6xf32>) -> tensor<1x6xf32>
    %1 = stablehlo.dynamic_update_slice %arg0, %0, %arg2, %c : (tensor<5x6xf32>, tensor<1x6xf32>, tensor<i32>, tensor<i32>) -> tensor<5x6xf32>
    return %1 : tensor<5x6xf32>
  }
}
