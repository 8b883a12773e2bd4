module @jit_f attributes {jax.uses_shape_polymorphism = false, mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4x2xf32>, %arg1: tensor<3xi32>) -> (tensor<4x2xf32> {jax.result_info = "result[0]"}, tensor<3xi32> {jax.result_info = "result[1]"}, tensor<3xi32> {jax.result_info = "result[2]"}, tensor<4x2xf32> {jax.result_info = "result[3]"}, tensor<4x2xf32> {jax.result_info = "result[4]"}, tensor<4x2xf32> {jax.result_info = "result[5]"}, tensor<4x2xf32> {jax.result_info = "result[6]"}, tensor<4x2xf32> {jax.result_info = "result[7]"}) {
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %cst_0 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %c = stablehlo.constant dense<1> : tensor<ui32>
    %0 = "stablehlo.all_reduce"(%arg0) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 0>, replica_groups = dense<0> : tensor<1x1xi64>, use_global_device_ids}> ({
    ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
      %27 = stablehlo.add %arg2, %arg3 : tensor<f32>
      stablehlo.return %27 : tensor<f32>
    }) : (tensor<4x2xf32>) -> tensor<4x2xf32>
    %1 = "stablehlo.all_reduce"(%arg1) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 0>, replica_groups = dense<0> : tensor<1x1xi64>, use_global_device_ids}> ({
    ^bb0(%arg2: tensor<i32>, %arg3: tensor<i32>):
      %27 = stablehlo.add %arg2, %arg3 : tensor<i32>
      stablehlo.return %27 : tensor<i32>
    }) : (tensor<3xi32>) -> tensor<3xi32>
    %2 = "stablehlo.all_gather"(%arg0) <{all_gather_dim = 0 : i64, channel_handle = #stablehlo.channel_handle<handle = 1, type = 0>, replica_groups = dense<0> : tensor<1x1xi64>, use_global_device_ids}> : (tensor<4x2xf32>) -> tensor<4x2xf32>
    %3 = stablehlo.broadcast_in_dim %arg0, dims = [1, 2] : (tensor<4x2xf32>) -> tensor<1x4x2xf32>
    %4 = "stablehlo.all_gather"(%3) <{all_gather_dim = 0 : i64, channel_handle = #stablehlo.channel_handle<handle = 1, type = 0>, replica_groups = dense<0> : tensor<1x1xi64>, use_global_device_ids}> : (tensor<1x4x2xf32>) -> tensor<1x4x2xf32>
    %5 = stablehlo.reshape %4 : (tensor<1x4x2xf32>) -> tensor<4x2xf32>
    %6 = stablehlo.add %2, %5 : tensor<4x2xf32>
    %7 = "stablehlo.reduce_scatter"(%arg0) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 0>, replica_groups = dense<0> : tensor<1x1xi64>, scatter_dimension = 0 : i64, use_global_device_ids}> ({
    ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
      %27 = stablehlo.add %arg2, %arg3 : tensor<f32>
      stablehlo.return %27 : tensor<f32>
    }) : (tensor<4x2xf32>) -> tensor<4x2xf32>
    %8 = "stablehlo.collective_permute"(%arg0) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 0>, source_target_pairs = dense<0> : tensor<1x2xi64>}> : (tensor<4x2xf32>) -> tensor<4x2xf32>
    %9 = "stablehlo.collective_permute"(%arg0) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 0>, source_target_pairs = dense<> : tensor<0x2xi64>}> : (tensor<4x2xf32>) -> tensor<4x2xf32>
    %10 = stablehlo.partition_id : tensor<ui32>
    %11 = stablehlo.divide %10, %c : tensor<ui32>
    %12 = stablehlo.remainder %11, %c : tensor<ui32>
    %13 = stablehlo.convert %12 : (tensor<ui32>) -> tensor<i32>
    %14 = "stablehlo.all_reduce"(%arg0) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 0>, replica_groups = dense<0> : tensor<1x1xi64>, use_global_device_ids}> ({
    ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
      %27 = stablehlo.maximum %arg2, %arg3 : tensor<f32>
      stablehlo.return %27 : tensor<f32>
    }) : (tensor<4x2xf32>) -> tensor<4x2xf32>
    %15 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<4x2xf32>
    %16 = stablehlo.multiply %14, %15 : tensor<4x2xf32>
    %17 = stablehlo.add %0, %16 : tensor<4x2xf32>
    %18 = stablehlo.convert %13 : (tensor<i32>) -> tensor<f32>
    %19 = stablehlo.broadcast_in_dim %18, dims = [] : (tensor<f32>) -> tensor<4x2xf32>
    %20 = stablehlo.add %17, %19 : tensor<4x2xf32>
    %21 = "stablehlo.all_reduce"(%arg1) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 0>, replica_groups = dense<0> : tensor<1x1xi64>, use_global_device_ids}> ({
    ^bb0(%arg2: tensor<i32>, %arg3: tensor<i32>):
      %27 = stablehlo.minimum %arg2, %arg3 : tensor<i32>
      stablehlo.return %27 : tensor<i32>
    }) : (tensor<3xi32>) -> tensor<3xi32>
    %22 = stablehlo.broadcast_in_dim %13, dims = [] : (tensor<i32>) -> tensor<3xi32>
    %23 = stablehlo.subtract %21, %22 : tensor<3xi32>
    %24 = "stablehlo.all_reduce"(%arg0) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 0>, replica_groups = dense<0> : tensor<1x1xi64>, use_global_device_ids}> ({
    ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
      %27 = stablehlo.add %arg2, %arg3 : tensor<f32>
      stablehlo.return %27 : tensor<f32>
    }) : (tensor<4x2xf32>) -> tensor<4x2xf32>
    %25 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<4x2xf32>
    %26 = stablehlo.divide %24, %25 : tensor<4x2xf32>
    return %20, %1, %23, %6, %7, %8, %9, %26 : tensor<4x2xf32>, tensor<3xi32>, tensor<3xi32>, tensor<4x2xf32>, tensor<4x2xf32>, tensor<4x2xf32>, tensor<4x2xf32>, tensor<4x2xf32>
  }
}
