module @jit_f attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["x"=4]> {stablehlo.mesh = {axes = [{name = "x", size = 4 : i64}]}}
  func.func public @main(%arg0: tensor<8x3xf32>) -> (tensor<2x3xf32> {jax.result_info = "result[0]"}, tensor<8x3xf32> {jax.result_info = "result[1]"}) {
    %0:2 = sdy.manual_computation(%arg0) in_shardings=[<@mesh, [{"x"}, {}]>] out_shardings=[<@mesh, [{}, {}]>, <@mesh, [{"x"}, {}]>] manual_axes={"x"} (%arg1: tensor<2x3xf32>) {
      %1 = stablehlo.custom_call @MdScale(%arg1) {backend_config = "", mhlo.backend_config = {scale = 2.000000e+00 : f32, shift = 5.000000e-01 : f32}, operand_layouts = [dense<[1, 0]> : tensor<2xindex>], result_layouts = [dense<[1, 0]> : tensor<2xindex>]} : (tensor<2x3xf32>) -> tensor<2x3xf32>
      %2 = stablehlo.custom_call @MdFailAbove(%1) {backend_config = "", mhlo.backend_config = {limit = 1.000000e+02 : f32}, operand_layouts = [dense<[1, 0]> : tensor<2xindex>], result_layouts = [dense<[1, 0]> : tensor<2xindex>]} : (tensor<2x3xf32>) -> tensor<2x3xf32>
      %3 = "stablehlo.all_reduce"(%2) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>, use_global_device_ids}> ({
      ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
        %11 = stablehlo.add %arg2, %arg3 : tensor<f32>
        stablehlo.return %11 : tensor<f32>
      }) : (tensor<2x3xf32>) -> tensor<2x3xf32>
      %c = stablehlo.constant dense<1> : tensor<ui32>
      %c_0 = stablehlo.constant dense<4> : tensor<ui32>
      %4 = stablehlo.partition_id : tensor<ui32>
      %5 = stablehlo.divide %4, %c : tensor<ui32>
      %6 = stablehlo.remainder %5, %c_0 : tensor<ui32>
      %7 = stablehlo.convert %6 : (tensor<ui32>) -> tensor<i32>
      %8 = stablehlo.convert %7 : (tensor<i32>) -> tensor<f32>
      %9 = stablehlo.broadcast_in_dim %8, dims = [] : (tensor<f32>) -> tensor<2x3xf32>
      %10 = stablehlo.multiply %2, %9 : tensor<2x3xf32>
      sdy.return %3, %10 : tensor<2x3xf32>, tensor<2x3xf32>
    } : (tensor<8x3xf32>) -> (tensor<2x3xf32>, tensor<8x3xf32>)
    return %0#0, %0#1 : tensor<2x3xf32>, tensor<8x3xf32>
  }
}
