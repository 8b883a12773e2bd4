module @jit__fun attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["i"=4]> {stablehlo.mesh = {axes = [{name = "i", size = 4 : i64}]}}
  func.func public @main(%arg0: tensor<4x3xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"i"}, {}]>}) -> (tensor<4x3xf32> {jax.result_info = "result[0]", sdy.sharding = #sdy.sharding<@mesh, [{"i"}, {}]>}, tensor<4x3xf32> {jax.result_info = "result[1]", sdy.sharding = #sdy.sharding<@mesh, [{"i"}, {}]>}) {
    %0:2 = sdy.manual_computation(%arg0) in_shardings=[<@mesh, [{"i"}, {}]>] out_shardings=[<@mesh, [{"i"}, {}]>, <@mesh, [{"i"}, {}]>] manual_axes={"i"} (%arg1: tensor<1x3xf32>) {
      %1 = stablehlo.reshape %arg1 : (tensor<1x3xf32>) -> tensor<3xf32>
      %2 = "stablehlo.all_reduce"(%1) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>, use_global_device_ids}> ({
      ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
        %12 = stablehlo.add %arg2, %arg3 : tensor<f32>
        stablehlo.return %12 : tensor<f32>
      }) : (tensor<3xf32>) -> tensor<3xf32>
      %c = stablehlo.constant dense<1> : tensor<ui32>
      %c_0 = stablehlo.constant dense<4> : tensor<ui32>
      %3 = stablehlo.partition_id : tensor<ui32>
      %4 = stablehlo.divide %3, %c : tensor<ui32>
      %5 = stablehlo.remainder %4, %c_0 : tensor<ui32>
      %6 = stablehlo.convert %5 : (tensor<ui32>) -> tensor<i32>
      %7 = stablehlo.convert %6 : (tensor<i32>) -> tensor<f32>
      %8 = stablehlo.broadcast_in_dim %7, dims = [] : (tensor<f32>) -> tensor<3xf32>
      %9 = stablehlo.multiply %1, %8 : tensor<3xf32>
      %10 = stablehlo.broadcast_in_dim %2, dims = [1] : (tensor<3xf32>) -> tensor<1x3xf32>
      %11 = stablehlo.broadcast_in_dim %9, dims = [1] : (tensor<3xf32>) -> tensor<1x3xf32>
      sdy.return %10, %11 : tensor<1x3xf32>, tensor<1x3xf32>
    } : (tensor<4x3xf32>) -> (tensor<4x3xf32>, tensor<4x3xf32>)
    return %0#0, %0#1 : tensor<4x3xf32>, tensor<4x3xf32>
  }
}
