module @jit_f attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["x"=4]> {stablehlo.mesh = {axes = [{name = "x", size = 4 : i64}]}}
  func.func public @main(%arg0: tensor<16x3xf32>, %arg1: tensor<4x2xi32>) -> (tensor<4x3xf32> {jax.result_info = "result[0]"}, tensor<4x3xf32> {jax.result_info = "result[1]"}, tensor<16x3xf32> {jax.result_info = "result[2]"}, tensor<16x3xf32> {jax.result_info = "result[3]"}, tensor<4x3xf32> {jax.result_info = "result[4]"}, tensor<16x3xf32> {jax.result_info = "result[5]"}, tensor<4xi32> {jax.result_info = "result[6]"}, tensor<1x2xi32> {jax.result_info = "result[7]"}) {
    %0:8 = sdy.manual_computation(%arg0, %arg1) in_shardings=[<@mesh, [{"x"}, {}]>, <@mesh, [{"x"}, {}]>] out_shardings=[<@mesh, [{}, {}]>, <@mesh, [{}, {}]>, <@mesh, [{}, {}]>, <@mesh, [{"x"}, {}]>, <@mesh, [{"x"}, {}]>, <@mesh, [{"x"}, {}]>, <@mesh, [{"x"}]>, <@mesh, [{}, {}]>] manual_axes={"x"} (%arg2: tensor<4x3xf32>, %arg3: tensor<1x2xi32>) {
      %1 = "stablehlo.all_reduce"(%arg2) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>, use_global_device_ids}> ({
      ^bb0(%arg4: tensor<f32>, %arg5: tensor<f32>):
        %13 = stablehlo.add %arg4, %arg5 : tensor<f32>
        stablehlo.return %13 : tensor<f32>
      }) : (tensor<4x3xf32>) -> tensor<4x3xf32>
      %2 = "stablehlo.all_reduce"(%arg2) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>, use_global_device_ids}> ({
      ^bb0(%arg4: tensor<f32>, %arg5: tensor<f32>):
        %13 = stablehlo.maximum %arg4, %arg5 : tensor<f32>
        stablehlo.return %13 : tensor<f32>
      }) : (tensor<4x3xf32>) -> tensor<4x3xf32>
      %3 = "stablehlo.all_gather"(%arg2) <{all_gather_dim = 0 : i64, channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>, use_global_device_ids}> : (tensor<4x3xf32>) -> tensor<16x3xf32>
      %4 = "stablehlo.collective_permute"(%arg2) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, source_target_pairs = dense<[[0, 1], [1, 2], [2, 3], [3, 0]]> : tensor<4x2xi64>}> : (tensor<4x3xf32>) -> tensor<4x3xf32>
      %5 = "stablehlo.reduce_scatter"(%arg2) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>, scatter_dimension = 0 : i64, use_global_device_ids}> ({
      ^bb0(%arg4: tensor<f32>, %arg5: tensor<f32>):
        %13 = stablehlo.add %arg4, %arg5 : tensor<f32>
        stablehlo.return %13 : tensor<f32>
      }) : (tensor<4x3xf32>) -> tensor<1x3xf32>
      %6 = "stablehlo.all_to_all"(%arg2) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, concat_dimension = 0 : i64, replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>, split_count = 4 : i64, split_dimension = 0 : i64}> : (tensor<4x3xf32>) -> tensor<4x3xf32>
      %c = stablehlo.constant dense<1> : tensor<ui32>
      %c_0 = stablehlo.constant dense<4> : tensor<ui32>
      %7 = stablehlo.partition_id : tensor<ui32>
      %8 = stablehlo.divide %7, %c : tensor<ui32>
      %9 = stablehlo.remainder %8, %c_0 : tensor<ui32>
      %10 = stablehlo.convert %9 : (tensor<ui32>) -> tensor<i32>
      %11 = stablehlo.reshape %10 : (tensor<i32>) -> tensor<1xi32>
      %12 = "stablehlo.all_reduce"(%arg3) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>, use_global_device_ids}> ({
      ^bb0(%arg4: tensor<i32>, %arg5: tensor<i32>):
        %13 = stablehlo.add %arg4, %arg5 : tensor<i32>
        stablehlo.return %13 : tensor<i32>
      }) : (tensor<1x2xi32>) -> tensor<1x2xi32>
      sdy.return %1, %2, %3, %4, %5, %6, %11, %12 : tensor<4x3xf32>, tensor<4x3xf32>, tensor<16x3xf32>, tensor<4x3xf32>, tensor<1x3xf32>, tensor<4x3xf32>, tensor<1xi32>, tensor<1x2xi32>
    } : (tensor<16x3xf32>, tensor<4x2xi32>) -> (tensor<4x3xf32>, tensor<4x3xf32>, tensor<16x3xf32>, tensor<16x3xf32>, tensor<4x3xf32>, tensor<16x3xf32>, tensor<4xi32>, tensor<1x2xi32>)
    return %0#0, %0#1, %0#2, %0#3, %0#4, %0#5, %0#6, %0#7 : tensor<4x3xf32>, tensor<4x3xf32>, tensor<16x3xf32>, tensor<16x3xf32>, tensor<4x3xf32>, tensor<16x3xf32>, tensor<4xi32>, tensor<1x2xi32>
  }
}
