module @jit_f attributes {jax.uses_shape_polymorphism = false, mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<32xf32>, %arg1: tensor<32xi32>, %arg2: tensor<32xi32>) -> (tensor<32xf32> {jax.result_info = "result[0]"}, tensor<32xf32> {jax.result_info = "result[1]"}, tensor<32xf32> {jax.result_info = "result[2]"}, tensor<32xf32> {jax.result_info = "result[3]"}, tensor<32xi32> {jax.result_info = "result[4]"}, tensor<32xi32> {jax.result_info = "result[5]"}, tensor<32xi32> {jax.result_info = "result[6]"}, tensor<32xf32> {jax.result_info = "result[7]"}) {
    %c = stablehlo.constant dense<1> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<32xf32>
    %1 = stablehlo.multiply %arg0, %arg0 : tensor<32xf32>
    %2 = stablehlo.multiply %1, %arg0 : tensor<32xf32>
    %3 = stablehlo.multiply %arg0, %arg0 : tensor<32xf32>
    %4 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<32xf32>
    %5 = stablehlo.divide %4, %3 : tensor<32xf32>
    %6 = stablehlo.multiply %arg0, %arg0 : tensor<32xf32>
    %7 = stablehlo.multiply %arg0, %6 : tensor<32xf32>
    %8 = stablehlo.multiply %6, %6 : tensor<32xf32>
    %9 = stablehlo.multiply %7, %8 : tensor<32xf32>
    %10 = stablehlo.multiply %arg1, %arg1 : tensor<32xi32>
    %11 = stablehlo.multiply %arg1, %arg1 : tensor<32xi32>
    %12 = stablehlo.multiply %11, %11 : tensor<32xi32>
    %13 = stablehlo.multiply %arg1, %12 : tensor<32xi32>
    %14 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i32>) -> tensor<32xi32>
    %15 = stablehlo.compare EQ, %arg1, %14, SIGNED : (tensor<32xi32>, tensor<32xi32>) -> tensor<32xi1>
    %16 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i32>) -> tensor<32xi32>
    %17 = stablehlo.compare NE, %arg2, %16, SIGNED : (tensor<32xi32>, tensor<32xi32>) -> tensor<32xi1>
    %18 = stablehlo.and %15, %17 : tensor<32xi1>
    %19 = call @_where(%18, %c_0, %c) : (tensor<32xi1>, tensor<i32>, tensor<i32>) -> tensor<32xi32>
    %20 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<32xi32>
    %21 = stablehlo.and %arg2, %20 : tensor<32xi32>
    %22 = stablehlo.multiply %19, %arg1 : tensor<32xi32>
    %23 = call @_where_0(%21, %22, %19) : (tensor<32xi32>, tensor<32xi32>, tensor<32xi32>) -> tensor<32xi32>
    %24 = stablehlo.multiply %arg1, %arg1 : tensor<32xi32>
    %25 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<32xi32>
    %26 = stablehlo.shift_right_logical %arg2, %25 : tensor<32xi32>
    %27 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<32xi32>
    %28 = stablehlo.and %26, %27 : tensor<32xi32>
    %29 = stablehlo.multiply %23, %24 : tensor<32xi32>
    %30 = call @_where_0(%28, %29, %23) : (tensor<32xi32>, tensor<32xi32>, tensor<32xi32>) -> tensor<32xi32>
    %31 = stablehlo.multiply %24, %24 : tensor<32xi32>
    %32 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<32xi32>
    %33 = stablehlo.shift_right_logical %26, %32 : tensor<32xi32>
    %34 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<32xi32>
    %35 = stablehlo.and %33, %34 : tensor<32xi32>
    %36 = stablehlo.multiply %30, %31 : tensor<32xi32>
    %37 = call @_where_0(%35, %36, %30) : (tensor<32xi32>, tensor<32xi32>, tensor<32xi32>) -> tensor<32xi32>
    %38 = stablehlo.multiply %31, %31 : tensor<32xi32>
    %39 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<32xi32>
    %40 = stablehlo.shift_right_logical %33, %39 : tensor<32xi32>
    %41 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<32xi32>
    %42 = stablehlo.and %40, %41 : tensor<32xi32>
    %43 = stablehlo.multiply %37, %38 : tensor<32xi32>
    %44 = call @_where_0(%42, %43, %37) : (tensor<32xi32>, tensor<32xi32>, tensor<32xi32>) -> tensor<32xi32>
    %45 = stablehlo.multiply %38, %38 : tensor<32xi32>
    %46 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<32xi32>
    %47 = stablehlo.shift_right_logical %40, %46 : tensor<32xi32>
    %48 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<32xi32>
    %49 = stablehlo.and %47, %48 : tensor<32xi32>
    %50 = stablehlo.multiply %44, %45 : tensor<32xi32>
    %51 = call @_where_0(%49, %50, %44) : (tensor<32xi32>, tensor<32xi32>, tensor<32xi32>) -> tensor<32xi32>
    %52 = stablehlo.multiply %45, %45 : tensor<32xi32>
    %53 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<32xi32>
    %54 = stablehlo.shift_right_logical %47, %53 : tensor<32xi32>
    %55 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<32xi32>
    %56 = stablehlo.and %54, %55 : tensor<32xi32>
    %57 = stablehlo.multiply %51, %52 : tensor<32xi32>
    %58 = call @_where_0(%56, %57, %51) : (tensor<32xi32>, tensor<32xi32>, tensor<32xi32>) -> tensor<32xi32>
    %59 = stablehlo.convert %arg2 : (tensor<32xi32>) -> tensor<32xf32>
    %60 = stablehlo.power %arg0, %59 : tensor<32xf32>
    return %0, %2, %5, %9, %10, %13, %58, %60 : tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xi32>, tensor<32xi32>, tensor<32xi32>, tensor<32xf32>
  }
  func.func private @_where(%arg0: tensor<32xi1>, %arg1: tensor<i32>, %arg2: tensor<i32>) -> tensor<32xi32> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [] : (tensor<i32>) -> tensor<32xi32>
    %1 = stablehlo.broadcast_in_dim %arg2, dims = [] : (tensor<i32>) -> tensor<32xi32>
    %2 = stablehlo.select %arg0, %0, %1 : tensor<32xi1>, tensor<32xi32>
    return %2 : tensor<32xi32>
  }
  func.func private @_where_0(%arg0: tensor<32xi32>, %arg1: tensor<32xi32>, %arg2: tensor<32xi32>) -> tensor<32xi32> {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<32xi32>
    %1 = stablehlo.compare NE, %arg0, %0, SIGNED : (tensor<32xi32>, tensor<32xi32>) -> tensor<32xi1>
    %2 = stablehlo.select %1, %arg1, %arg2 : tensor<32xi1>, tensor<32xi32>
    return %2 : tensor<32xi32>
  }
}
