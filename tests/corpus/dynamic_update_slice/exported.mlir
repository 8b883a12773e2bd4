module @jit_f attributes {jax.uses_shape_polymorphism = false, mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<6x7xf32>, %arg1: tensor<2x3xf32>, %arg2: tensor<6xi32>) -> (tensor<6x7xf32> {jax.result_info = "result[0]"}, tensor<6x7xf32> {jax.result_info = "result[1]"}, tensor<6x7xf32> {jax.result_info = "result[2]"}) {
    %c = stablehlo.constant dense<7> : tensor<i32>
    %c_0 = stablehlo.constant dense<6> : tensor<i32>
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.slice %arg2 [0:1] : (tensor<6xi32>) -> tensor<1xi32>
    %1 = stablehlo.reshape %0 : (tensor<1xi32>) -> tensor<i32>
    %2 = stablehlo.slice %arg2 [1:2] : (tensor<6xi32>) -> tensor<1xi32>
    %3 = stablehlo.reshape %2 : (tensor<1xi32>) -> tensor<i32>
    %4 = stablehlo.compare LT, %1, %c_1, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %5 = stablehlo.add %1, %c_0 : tensor<i32>
    %6 = stablehlo.select %4, %5, %1 : tensor<i1>, tensor<i32>
    %7 = stablehlo.compare LT, %3, %c_1, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %8 = stablehlo.add %3, %c : tensor<i32>
    %9 = stablehlo.select %7, %8, %3 : tensor<i1>, tensor<i32>
    %10 = stablehlo.dynamic_update_slice %arg0, %arg1, %6, %9 : (tensor<6x7xf32>, tensor<2x3xf32>, tensor<i32>, tensor<i32>) -> tensor<6x7xf32>
    %11 = stablehlo.slice %arg2 [2:3] : (tensor<6xi32>) -> tensor<1xi32>
    %12 = stablehlo.reshape %11 : (tensor<1xi32>) -> tensor<i32>
    %13 = stablehlo.slice %arg2 [3:4] : (tensor<6xi32>) -> tensor<1xi32>
    %14 = stablehlo.reshape %13 : (tensor<1xi32>) -> tensor<i32>
    %15 = stablehlo.compare LT, %12, %c_1, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %16 = stablehlo.add %12, %c_0 : tensor<i32>
    %17 = stablehlo.select %15, %16, %12 : tensor<i1>, tensor<i32>
    %18 = stablehlo.compare LT, %14, %c_1, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %19 = stablehlo.add %14, %c : tensor<i32>
    %20 = stablehlo.select %18, %19, %14 : tensor<i1>, tensor<i32>
    %21 = stablehlo.dynamic_update_slice %arg0, %arg1, %17, %20 : (tensor<6x7xf32>, tensor<2x3xf32>, tensor<i32>, tensor<i32>) -> tensor<6x7xf32>
    %22 = stablehlo.slice %arg2 [4:5] : (tensor<6xi32>) -> tensor<1xi32>
    %23 = stablehlo.reshape %22 : (tensor<1xi32>) -> tensor<i32>
    %24 = stablehlo.slice %arg2 [5:6] : (tensor<6xi32>) -> tensor<1xi32>
    %25 = stablehlo.reshape %24 : (tensor<1xi32>) -> tensor<i32>
    %26 = stablehlo.compare LT, %23, %c_1, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %27 = stablehlo.add %23, %c_0 : tensor<i32>
    %28 = stablehlo.select %26, %27, %23 : tensor<i1>, tensor<i32>
    %29 = stablehlo.compare LT, %25, %c_1, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %30 = stablehlo.add %25, %c : tensor<i32>
    %31 = stablehlo.select %29, %30, %25 : tensor<i1>, tensor<i32>
    %32 = stablehlo.dynamic_update_slice %arg0, %arg1, %28, %31 : (tensor<6x7xf32>, tensor<2x3xf32>, tensor<i32>, tensor<i32>) -> tensor<6x7xf32>
    return %10, %21, %32 : tensor<6x7xf32>, tensor<6x7xf32>, tensor<6x7xf32>
  }
}
