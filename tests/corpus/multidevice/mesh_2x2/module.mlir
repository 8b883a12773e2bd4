module @jit_f attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["x"=2, "y"=2]> {stablehlo.mesh = {axes = [{name = "x", size = 2 : i64}, {name = "y", size = 2 : i64}]}}
  func.func public @main(%arg0: tensor<4x8xf32>) -> (tensor<4x4xf32> {jax.result_info = "result[0]"}, tensor<8x2xf32> {jax.result_info = "result[1]"}, tensor<2x16xf32> {jax.result_info = "result[2]"}, tensor<2x4xf32> {jax.result_info = "result[3]"}, tensor<2x2xi32> {jax.result_info = "result[4]"}) {
    %0:5 = sdy.manual_computation(%arg0) in_shardings=[<@mesh, [{"x"}, {"y"}]>] out_shardings=[<@mesh, [{"x"}, {}]>, <@mesh, [{"x", "y"}, {}]>, <@mesh, [{"x"}, {"y"}]>, <@mesh, [{}, {}]>, <@mesh, [{"x"}, {"y"}]>] manual_axes={"x", "y"} (%arg1: tensor<2x4xf32>) {
      %1 = "stablehlo.all_reduce"(%arg1) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1], [2, 3]]> : tensor<2x2xi64>, use_global_device_ids}> ({
      ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
        %16 = stablehlo.add %arg2, %arg3 : tensor<f32>
        stablehlo.return %16 : tensor<f32>
      }) : (tensor<2x4xf32>) -> tensor<2x4xf32>
      %2 = "stablehlo.reduce_scatter"(%arg1) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 2], [1, 3]]> : tensor<2x2xi64>, scatter_dimension = 1 : i64, use_global_device_ids}> ({
      ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
        %16 = stablehlo.add %arg2, %arg3 : tensor<f32>
        stablehlo.return %16 : tensor<f32>
      }) : (tensor<2x4xf32>) -> tensor<2x2xf32>
      %3 = "stablehlo.all_to_all"(%arg1) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, concat_dimension = 1 : i64, replica_groups = dense<[[0, 1], [2, 3]]> : tensor<2x2xi64>, split_count = 2 : i64, split_dimension = 0 : i64}> : (tensor<2x4xf32>) -> tensor<1x8xf32>
      %4 = "stablehlo.all_reduce"(%arg1) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>, use_global_device_ids}> ({
      ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
        %16 = stablehlo.add %arg2, %arg3 : tensor<f32>
        stablehlo.return %16 : tensor<f32>
      }) : (tensor<2x4xf32>) -> tensor<2x4xf32>
      %c = stablehlo.constant dense<2> : tensor<ui32>
      %c_0 = stablehlo.constant dense<2> : tensor<ui32>
      %5 = stablehlo.partition_id : tensor<ui32>
      %6 = stablehlo.divide %5, %c : tensor<ui32>
      %7 = stablehlo.remainder %6, %c_0 : tensor<ui32>
      %8 = stablehlo.convert %7 : (tensor<ui32>) -> tensor<i32>
      %c_1 = stablehlo.constant dense<10> : tensor<i32>
      %9 = stablehlo.multiply %8, %c_1 : tensor<i32>
      %c_2 = stablehlo.constant dense<1> : tensor<ui32>
      %c_3 = stablehlo.constant dense<2> : tensor<ui32>
      %10 = stablehlo.partition_id : tensor<ui32>
      %11 = stablehlo.divide %10, %c_2 : tensor<ui32>
      %12 = stablehlo.remainder %11, %c_3 : tensor<ui32>
      %13 = stablehlo.convert %12 : (tensor<ui32>) -> tensor<i32>
      %14 = stablehlo.add %9, %13 : tensor<i32>
      %15 = stablehlo.reshape %14 : (tensor<i32>) -> tensor<1x1xi32>
      sdy.return %1, %2, %3, %4, %15 : tensor<2x4xf32>, tensor<2x2xf32>, tensor<1x8xf32>, tensor<2x4xf32>, tensor<1x1xi32>
    } : (tensor<4x8xf32>) -> (tensor<4x4xf32>, tensor<8x2xf32>, tensor<2x16xf32>, tensor<2x4xf32>, tensor<2x2xi32>)
    return %0#0, %0#1, %0#2, %0#3, %0#4 : tensor<4x4xf32>, tensor<8x2xf32>, tensor<2x16xf32>, tensor<2x4xf32>, tensor<2x2xi32>
  }
}
