module @jit_f attributes {jax.uses_shape_polymorphism = false, mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<5x20xf32>) -> (tensor<5x4xf32> {jax.result_info = "result[0]"}, tensor<5x4xi32> {jax.result_info = "result[1]"}) {
    %0:2 = stablehlo.composite "chlo.top_k" %arg0 {composite_attributes = {k = 4 : i64}, decomposition = @chlo.top_k.impl, version = 1 : i32} : (tensor<5x20xf32>) -> (tensor<5x4xf32>, tensor<5x4xi32>)
    return %0#0, %0#1 : tensor<5x4xf32>, tensor<5x4xi32>
  }
  func.func private @chlo.top_k.impl(%arg0: tensor<5x20xf32>) -> (tensor<5x4xf32>, tensor<5x4xi32>) {
    %0 = stablehlo.iota dim = 1 : tensor<5x20xi32>
    %1:2 = "stablehlo.sort"(%arg0, %0) <{dimension = 1 : i64, is_stable = true}> ({
    ^bb0(%arg1: tensor<f32>, %arg2: tensor<f32>, %arg3: tensor<i32>, %arg4: tensor<i32>):
      %4 = stablehlo.compare GT, %arg1, %arg2, TOTALORDER : (tensor<f32>, tensor<f32>) -> tensor<i1>
      stablehlo.return %4 : tensor<i1>
    }) : (tensor<5x20xf32>, tensor<5x20xi32>) -> (tensor<5x20xf32>, tensor<5x20xi32>)
    %2 = stablehlo.slice %1#0 [0:5, 0:4] : (tensor<5x20xf32>) -> tensor<5x4xf32>
    %3 = stablehlo.slice %1#1 [0:5, 0:4] : (tensor<5x20xi32>) -> tensor<5x4xi32>
    return %2, %3 : tensor<5x4xf32>, tensor<5x4xi32>
  }
}
