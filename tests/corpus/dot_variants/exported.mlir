module @jit_f attributes {jax.uses_shape_polymorphism = false, mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<8x12xf32>, %arg1: tensor<12x5xf32>, %arg2: tensor<12xf32>, %arg3: tensor<6x10xi8>, %arg4: tensor<10x4xi8>, %arg5: tensor<3x4xi32>, %arg6: tensor<4x2xi32>) -> (tensor<8x5xf32> {jax.result_info = "result[0]"}, tensor<8xf32> {jax.result_info = "result[1]"}, tensor<f32> {jax.result_info = "result[2]"}, tensor<8x5xf32> {jax.result_info = "result[3]"}, tensor<6x4xi32> {jax.result_info = "result[4]"}, tensor<3x2xi32> {jax.result_info = "result[5]"}) {
    %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0] : (tensor<8x12xf32>, tensor<12x5xf32>) -> tensor<8x5xf32>
    %1 = stablehlo.dot_general %arg0, %arg2, contracting_dims = [1] x [0] : (tensor<8x12xf32>, tensor<12xf32>) -> tensor<8xf32>
    %2 = stablehlo.dot_general %arg2, %arg2, contracting_dims = [0] x [0] : (tensor<12xf32>, tensor<12xf32>) -> tensor<f32>
    %3 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0], precision = [HIGHEST, HIGHEST] : (tensor<8x12xf32>, tensor<12x5xf32>) -> tensor<8x5xf32>
    %4 = stablehlo.dot_general %arg3, %arg4, contracting_dims = [1] x [0] : (tensor<6x10xi8>, tensor<10x4xi8>) -> tensor<6x4xi32>
    %5 = stablehlo.dot_general %arg5, %arg6, contracting_dims = [1] x [0] : (tensor<3x4xi32>, tensor<4x2xi32>) -> tensor<3x2xi32>
    return %0, %1, %2, %3, %4, %5 : tensor<8x5xf32>, tensor<8xf32>, tensor<f32>, tensor<8x5xf32>, tensor<6x4xi32>, tensor<3x2xi32>
  }
}
