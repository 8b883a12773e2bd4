module @jit_step attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["x"=4]> {stablehlo.mesh = {axes = [{name = "x", size = 4 : i64}]}}
  func.func public @main(%arg0: tensor<6x16xf32>, %arg1: tensor<16xf32>, %arg2: tensor<16x2xf32>, %arg3: tensor<32x6xf32>, %arg4: tensor<32x2xf32>) -> (tensor<6x16xf32> {jax.result_info = "result[0][0]"}, tensor<16xf32> {jax.result_info = "result[0][1]"}, tensor<16x2xf32> {jax.result_info = "result[0][2]"}, tensor<f32> {jax.result_info = "result[1]"}) {
    %0:4 = sdy.manual_computation(%arg0, %arg1, %arg2, %arg3, %arg4) in_shardings=[<@mesh, [{}, {}]>, <@mesh, [{}]>, <@mesh, [{}, {}]>, <@mesh, [{"x"}, {}]>, <@mesh, [{"x"}, {}]>] out_shardings=[<@mesh, [{}, {}]>, <@mesh, [{}]>, <@mesh, [{}, {}]>, <@mesh, []>] manual_axes={"x"} (%arg5: tensor<6x16xf32>, %arg6: tensor<16xf32>, %arg7: tensor<16x2xf32>, %arg8: tensor<8x6xf32>, %arg9: tensor<8x2xf32>) {
      %1 = stablehlo.dot_general %arg8, %arg5, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<8x6xf32>, tensor<6x16xf32>) -> tensor<8x16xf32>
      %2 = stablehlo.broadcast_in_dim %arg6, dims = [1] : (tensor<16xf32>) -> tensor<1x16xf32>
      %3 = stablehlo.broadcast_in_dim %2, dims = [0, 1] : (tensor<1x16xf32>) -> tensor<8x16xf32>
      %4 = stablehlo.add %1, %3 : tensor<8x16xf32>
      %5 = func.call @relu(%4) : (tensor<8x16xf32>) -> tensor<8x16xf32>
      %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %6 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<8x16xf32>
      %7 = stablehlo.compare GT, %4, %6, FLOAT : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xi1>
      %8 = stablehlo.dot_general %5, %arg7, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<8x16xf32>, tensor<16x2xf32>) -> tensor<8x2xf32>
      %9 = stablehlo.subtract %8, %arg9 : tensor<8x2xf32>
      %10 = stablehlo.multiply %9, %9 : tensor<8x2xf32>
      %cst_0 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
      %11 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<8x2xf32>
      %12 = stablehlo.multiply %11, %9 : tensor<8x2xf32>
      %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %13 = stablehlo.reduce(%10 init: %cst_1) applies stablehlo.add across dimensions = [0, 1] : (tensor<8x2xf32>, tensor<f32>) -> tensor<f32>
      %cst_2 = stablehlo.constant dense<1.600000e+01> : tensor<f32>
      %14 = stablehlo.divide %13, %cst_2 : tensor<f32>
      %cst_3 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
      %cst_4 = stablehlo.constant dense<1.600000e+01> : tensor<f32>
      %15 = stablehlo.divide %cst_3, %cst_4 : tensor<f32>
      %16 = stablehlo.broadcast_in_dim %15, dims = [] : (tensor<f32>) -> tensor<8x2xf32>
      %17 = stablehlo.multiply %16, %12 : tensor<8x2xf32>
      %18 = stablehlo.dot_general %17, %5, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<8x2xf32>, tensor<8x16xf32>) -> tensor<2x16xf32>
      %19 = stablehlo.transpose %18, dims = [1, 0] : (tensor<2x16xf32>) -> tensor<16x2xf32>
      %20 = stablehlo.dot_general %17, %arg7, contracting_dims = [1] x [1], precision = [DEFAULT, DEFAULT] : (tensor<8x2xf32>, tensor<16x2xf32>) -> tensor<8x16xf32>
      %cst_5 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %21 = stablehlo.broadcast_in_dim %cst_5, dims = [] : (tensor<f32>) -> tensor<8x16xf32>
      %22 = stablehlo.select %7, %20, %21 : tensor<8x16xi1>, tensor<8x16xf32>
      %cst_6 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %23 = stablehlo.reduce(%22 init: %cst_6) applies stablehlo.add across dimensions = [0] : (tensor<8x16xf32>, tensor<f32>) -> tensor<16xf32>
      %24 = stablehlo.reshape %23 : (tensor<16xf32>) -> tensor<1x16xf32>
      %cst_7 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %25 = stablehlo.reduce(%24 init: %cst_7) applies stablehlo.add across dimensions = [0] : (tensor<1x16xf32>, tensor<f32>) -> tensor<16xf32>
      %26 = stablehlo.dot_general %22, %arg8, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<8x16xf32>, tensor<8x6xf32>) -> tensor<16x6xf32>
      %27 = stablehlo.transpose %26, dims = [1, 0] : (tensor<16x6xf32>) -> tensor<6x16xf32>
      %28 = "stablehlo.all_reduce"(%27) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>, use_global_device_ids}> ({
      ^bb0(%arg10: tensor<f32>, %arg11: tensor<f32>):
        %48 = stablehlo.add %arg10, %arg11 : tensor<f32>
        stablehlo.return %48 : tensor<f32>
      }) : (tensor<6x16xf32>) -> tensor<6x16xf32>
      %29 = "stablehlo.all_reduce"(%25) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>, use_global_device_ids}> ({
      ^bb0(%arg10: tensor<f32>, %arg11: tensor<f32>):
        %48 = stablehlo.add %arg10, %arg11 : tensor<f32>
        stablehlo.return %48 : tensor<f32>
      }) : (tensor<16xf32>) -> tensor<16xf32>
      %30 = "stablehlo.all_reduce"(%19) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>, use_global_device_ids}> ({
      ^bb0(%arg10: tensor<f32>, %arg11: tensor<f32>):
        %48 = stablehlo.add %arg10, %arg11 : tensor<f32>
        stablehlo.return %48 : tensor<f32>
      }) : (tensor<16x2xf32>) -> tensor<16x2xf32>
      %cst_8 = stablehlo.constant dense<4.000000e+00> : tensor<f32>
      %31 = stablehlo.broadcast_in_dim %cst_8, dims = [] : (tensor<f32>) -> tensor<6x16xf32>
      %32 = stablehlo.divide %28, %31 : tensor<6x16xf32>
      %cst_9 = stablehlo.constant dense<4.000000e+00> : tensor<f32>
      %33 = stablehlo.broadcast_in_dim %cst_9, dims = [] : (tensor<f32>) -> tensor<16xf32>
      %34 = stablehlo.divide %29, %33 : tensor<16xf32>
      %cst_10 = stablehlo.constant dense<4.000000e+00> : tensor<f32>
      %35 = stablehlo.broadcast_in_dim %cst_10, dims = [] : (tensor<f32>) -> tensor<16x2xf32>
      %36 = stablehlo.divide %30, %35 : tensor<16x2xf32>
      %37 = "stablehlo.all_reduce"(%14) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>, use_global_device_ids}> ({
      ^bb0(%arg10: tensor<f32>, %arg11: tensor<f32>):
        %48 = stablehlo.add %arg10, %arg11 : tensor<f32>
        stablehlo.return %48 : tensor<f32>
      }) : (tensor<f32>) -> tensor<f32>
      %cst_11 = stablehlo.constant dense<4.000000e+00> : tensor<f32>
      %38 = stablehlo.divide %37, %cst_11 : tensor<f32>
      %cst_12 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
      %39 = stablehlo.broadcast_in_dim %cst_12, dims = [] : (tensor<f32>) -> tensor<6x16xf32>
      %40 = stablehlo.multiply %39, %32 : tensor<6x16xf32>
      %41 = stablehlo.subtract %arg5, %40 : tensor<6x16xf32>
      %cst_13 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
      %42 = stablehlo.broadcast_in_dim %cst_13, dims = [] : (tensor<f32>) -> tensor<16xf32>
      %43 = stablehlo.multiply %42, %34 : tensor<16xf32>
      %44 = stablehlo.subtract %arg6, %43 : tensor<16xf32>
      %cst_14 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
      %45 = stablehlo.broadcast_in_dim %cst_14, dims = [] : (tensor<f32>) -> tensor<16x2xf32>
      %46 = stablehlo.multiply %45, %36 : tensor<16x2xf32>
      %47 = stablehlo.subtract %arg7, %46 : tensor<16x2xf32>
      sdy.return %41, %44, %47, %38 : tensor<6x16xf32>, tensor<16xf32>, tensor<16x2xf32>, tensor<f32>
    } : (tensor<6x16xf32>, tensor<16xf32>, tensor<16x2xf32>, tensor<32x6xf32>, tensor<32x2xf32>) -> (tensor<6x16xf32>, tensor<16xf32>, tensor<16x2xf32>, tensor<f32>)
    return %0#0, %0#1, %0#2, %0#3 : tensor<6x16xf32>, tensor<16xf32>, tensor<16x2xf32>, tensor<f32>
  }
  func.func private @relu(%arg0: tensor<8x16xf32>) -> tensor<8x16xf32> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<8x16xf32>
    %1 = stablehlo.maximum %arg0, %0 : tensor<8x16xf32>
    return %1 : tensor<8x16xf32>
  }
}
