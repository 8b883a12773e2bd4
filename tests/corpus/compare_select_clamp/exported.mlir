module @jit_f attributes {jax.uses_shape_polymorphism = false, mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<32xf32>, %arg1: tensor<32xf32>, %arg2: tensor<32xi32>, %arg3: tensor<32xi32>, %arg4: tensor<32xf32>) -> (tensor<32xi1> {jax.result_info = "result[0]"}, tensor<32xi1> {jax.result_info = "result[1]"}, tensor<32xi1> {jax.result_info = "result[2]"}, tensor<32xi1> {jax.result_info = "result[3]"}, tensor<32xi1> {jax.result_info = "result[4]"}, tensor<32xi1> {jax.result_info = "result[5]"}, tensor<32xi1> {jax.result_info = "result[6]"}, tensor<32xi1> {jax.result_info = "result[7]"}, tensor<32xi1> {jax.result_info = "result[8]"}, tensor<32xi1> {jax.result_info = "result[9]"}, tensor<32xi1> {jax.result_info = "result[10]"}, tensor<32xi1> {jax.result_info = "result[11]"}, tensor<32xf32> {jax.result_info = "result[12]"}, tensor<32xi32> {jax.result_info = "result[13]"}, tensor<32xf32> {jax.result_info = "result[14]"}, tensor<32xf32> {jax.result_info = "result[15]"}, tensor<32xi32> {jax.result_info = "result[16]"}) {
    %c = stablehlo.constant dense<10> : tensor<i32>
    %c_0 = stablehlo.constant dense<-10> : tensor<i32>
    %cst = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %cst_1 = stablehlo.constant dense<-5.000000e-01> : tensor<f32>
    %cst_2 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %c_3 = stablehlo.constant dense<2> : tensor<i32>
    %0 = stablehlo.compare EQ, %arg0, %arg1, FLOAT : (tensor<32xf32>, tensor<32xf32>) -> tensor<32xi1>
    %1 = stablehlo.compare NE, %arg0, %arg1, FLOAT : (tensor<32xf32>, tensor<32xf32>) -> tensor<32xi1>
    %2 = stablehlo.compare LT, %arg0, %arg1, FLOAT : (tensor<32xf32>, tensor<32xf32>) -> tensor<32xi1>
    %3 = stablehlo.compare LE, %arg0, %arg1, FLOAT : (tensor<32xf32>, tensor<32xf32>) -> tensor<32xi1>
    %4 = stablehlo.compare GT, %arg0, %arg1, FLOAT : (tensor<32xf32>, tensor<32xf32>) -> tensor<32xi1>
    %5 = stablehlo.compare GE, %arg0, %arg1, FLOAT : (tensor<32xf32>, tensor<32xf32>) -> tensor<32xi1>
    %6 = stablehlo.compare EQ, %arg2, %arg3, SIGNED : (tensor<32xi32>, tensor<32xi32>) -> tensor<32xi1>
    %7 = stablehlo.compare NE, %arg2, %arg3, SIGNED : (tensor<32xi32>, tensor<32xi32>) -> tensor<32xi1>
    %8 = stablehlo.compare LT, %arg2, %arg3, SIGNED : (tensor<32xi32>, tensor<32xi32>) -> tensor<32xi1>
    %9 = stablehlo.compare LE, %arg2, %arg3, SIGNED : (tensor<32xi32>, tensor<32xi32>) -> tensor<32xi1>
    %10 = stablehlo.compare GT, %arg2, %arg3, SIGNED : (tensor<32xi32>, tensor<32xi32>) -> tensor<32xi1>
    %11 = stablehlo.compare GE, %arg2, %arg3, SIGNED : (tensor<32xi32>, tensor<32xi32>) -> tensor<32xi1>
    %12 = stablehlo.compare LT, %arg0, %arg1, FLOAT : (tensor<32xf32>, tensor<32xf32>) -> tensor<32xi1>
    %13 = stablehlo.select %12, %arg0, %arg1 : tensor<32xi1>, tensor<32xf32>
    %14 = stablehlo.compare GT, %arg2, %arg3, SIGNED : (tensor<32xi32>, tensor<32xi32>) -> tensor<32xi1>
    %15 = stablehlo.broadcast_in_dim %c_3, dims = [] : (tensor<i32>) -> tensor<32xi32>
    %16 = stablehlo.multiply %arg3, %15 : tensor<32xi32>
    %17 = call @_where(%14, %arg2, %16) : (tensor<32xi1>, tensor<32xi32>, tensor<32xi32>) -> tensor<32xi32>
    %18 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<32xf32>
    %19 = stablehlo.add %18, %arg4 : tensor<32xf32>
    %20 = stablehlo.clamp %arg4, %arg0, %19 : tensor<32xf32>
    %21 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<32xf32>
    %22 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<32xf32>
    %23 = stablehlo.clamp %21, %arg0, %22 : tensor<32xf32>
    %24 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i32>) -> tensor<32xi32>
    %25 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<32xi32>
    %26 = stablehlo.clamp %24, %arg2, %25 : tensor<32xi32>
    return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %13, %17, %20, %23, %26 : tensor<32xi1>, tensor<32xi1>, tensor<32xi1>, tensor<32xi1>, tensor<32xi1>, tensor<32xi1>, tensor<32xi1>, tensor<32xi1>, tensor<32xi1>, tensor<32xi1>, tensor<32xi1>, tensor<32xi1>, tensor<32xf32>, tensor<32xi32>, tensor<32xf32>, tensor<32xf32>, tensor<32xi32>
  }
  func.func private @_where(%arg0: tensor<32xi1>, %arg1: tensor<32xi32>, %arg2: tensor<32xi32>) -> tensor<32xi32> {
    %0 = stablehlo.select %arg0, %arg1, %arg2 : tensor<32xi1>, tensor<32xi32>
    return %0 : tensor<32xi32>
  }
}
