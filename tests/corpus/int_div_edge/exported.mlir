module @jit_f attributes {jax.uses_shape_polymorphism = false, mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<11xi32>, %arg1: tensor<11xi32>, %arg2: tensor<5xui32>, %arg3: tensor<5xui32>, %arg4: tensor<5xi8>, %arg5: tensor<5xi8>) -> (tensor<11xi32> {jax.result_info = "result[0]"}, tensor<11xi32> {jax.result_info = "result[1]"}, tensor<5xui32> {jax.result_info = "result[2]"}, tensor<5xui32> {jax.result_info = "result[3]"}, tensor<5xi8> {jax.result_info = "result[4]"}, tensor<5xi8> {jax.result_info = "result[5]"}, tensor<11xi32> {jax.result_info = "result[6]"}, tensor<11xi32> {jax.result_info = "result[7]"}) {
    %c = stablehlo.constant dense<1> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.divide %arg0, %arg1 : tensor<11xi32>
    %1 = stablehlo.remainder %arg0, %arg1 : tensor<11xi32>
    %2 = stablehlo.divide %arg2, %arg3 : tensor<5xui32>
    %3 = stablehlo.remainder %arg2, %arg3 : tensor<5xui32>
    %4 = stablehlo.divide %arg4, %arg5 : tensor<5xi8>
    %5 = stablehlo.remainder %arg4, %arg5 : tensor<5xi8>
    %6 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i32>) -> tensor<11xi32>
    %7 = stablehlo.compare EQ, %arg1, %6, SIGNED : (tensor<11xi32>, tensor<11xi32>) -> tensor<11xi1>
    %8 = call @_where(%7, %c, %arg1) : (tensor<11xi1>, tensor<i32>, tensor<11xi32>) -> tensor<11xi32>
    %9 = call @floor_divide(%arg0, %8) : (tensor<11xi32>, tensor<11xi32>) -> tensor<11xi32>
    %10 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i32>) -> tensor<11xi32>
    %11 = stablehlo.compare EQ, %arg1, %10, SIGNED : (tensor<11xi32>, tensor<11xi32>) -> tensor<11xi1>
    %12 = call @_where(%11, %c, %arg1) : (tensor<11xi1>, tensor<i32>, tensor<11xi32>) -> tensor<11xi32>
    %13 = call @remainder(%arg0, %12) : (tensor<11xi32>, tensor<11xi32>) -> tensor<11xi32>
    return %0, %1, %2, %3, %4, %5, %9, %13 : tensor<11xi32>, tensor<11xi32>, tensor<5xui32>, tensor<5xui32>, tensor<5xi8>, tensor<5xi8>, tensor<11xi32>, tensor<11xi32>
  }
  func.func private @_where(%arg0: tensor<11xi1>, %arg1: tensor<i32>, %arg2: tensor<11xi32>) -> tensor<11xi32> {
    %0 = stablehlo.convert %arg1 : tensor<i32>
    %1 = stablehlo.broadcast_in_dim %0, dims = [] : (tensor<i32>) -> tensor<11xi32>
    %2 = stablehlo.select %arg0, %1, %arg2 : tensor<11xi1>, tensor<11xi32>
    return %2 : tensor<11xi32>
  }
  func.func private @floor_divide(%arg0: tensor<11xi32>, %arg1: tensor<11xi32>) -> tensor<11xi32> {
    %c = stablehlo.constant dense<1> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.divide %arg0, %arg1 : tensor<11xi32>
    %1 = stablehlo.sign %arg0 : tensor<11xi32>
    %2 = stablehlo.sign %arg1 : tensor<11xi32>
    %3 = stablehlo.compare NE, %1, %2, SIGNED : (tensor<11xi32>, tensor<11xi32>) -> tensor<11xi1>
    %4 = stablehlo.remainder %arg0, %arg1 : tensor<11xi32>
    %5 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i32>) -> tensor<11xi32>
    %6 = stablehlo.compare NE, %4, %5, SIGNED : (tensor<11xi32>, tensor<11xi32>) -> tensor<11xi1>
    %7 = stablehlo.and %3, %6 : tensor<11xi1>
    %8 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<11xi32>
    %9 = stablehlo.subtract %0, %8 : tensor<11xi32>
    %10 = call @_where_0(%7, %9, %0) : (tensor<11xi1>, tensor<11xi32>, tensor<11xi32>) -> tensor<11xi32>
    return %10 : tensor<11xi32>
  }
  func.func private @_where_0(%arg0: tensor<11xi1>, %arg1: tensor<11xi32>, %arg2: tensor<11xi32>) -> tensor<11xi32> {
    %0 = stablehlo.select %arg0, %arg1, %arg2 : tensor<11xi1>, tensor<11xi32>
    return %0 : tensor<11xi32>
  }
  func.func private @remainder(%arg0: tensor<11xi32>, %arg1: tensor<11xi32>) -> tensor<11xi32> {
    %c = stablehlo.constant dense<1> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i32>) -> tensor<11xi32>
    %1 = stablehlo.compare EQ, %arg1, %0, SIGNED : (tensor<11xi32>, tensor<11xi32>) -> tensor<11xi1>
    %2 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<11xi32>
    %3 = call @_where_0(%1, %2, %arg1) : (tensor<11xi1>, tensor<11xi32>, tensor<11xi32>) -> tensor<11xi32>
    %4 = stablehlo.remainder %arg0, %3 : tensor<11xi32>
    %5 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i32>) -> tensor<11xi32>
    %6 = stablehlo.compare NE, %4, %5, SIGNED : (tensor<11xi32>, tensor<11xi32>) -> tensor<11xi1>
    %7 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i32>) -> tensor<11xi32>
    %8 = stablehlo.compare LT, %4, %7, SIGNED : (tensor<11xi32>, tensor<11xi32>) -> tensor<11xi1>
    %9 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i32>) -> tensor<11xi32>
    %10 = stablehlo.compare LT, %3, %9, SIGNED : (tensor<11xi32>, tensor<11xi32>) -> tensor<11xi1>
    %11 = stablehlo.compare NE, %8, %10, UNSIGNED : (tensor<11xi1>, tensor<11xi1>) -> tensor<11xi1>
    %12 = stablehlo.and %11, %6 : tensor<11xi1>
    %13 = stablehlo.add %4, %3 : tensor<11xi32>
    %14 = stablehlo.select %12, %13, %4 : tensor<11xi1>, tensor<11xi32>
    return %14 : tensor<11xi32>
  }
}
