module @jit_f attributes {jax.uses_shape_polymorphism = false, mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<40xcomplex<f32>>, %arg1: tensor<40xcomplex<f32>>) -> (tensor<40xcomplex<f32>> {jax.result_info = "result['arctan2']"}, tensor<40xcomplex<f32>> {jax.result_info = "result['atan2']"}, tensor<40xcomplex<f32>> {jax.result_info = "result['chain']"}) {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<40xf32>
    %cst_0 = stablehlo.constant dense<5.000000e-01> : tensor<40xf32>
    %cst_1 = stablehlo.constant dense<0x7F800000> : tensor<40xf32>
    %0 = stablehlo.atan2 %arg0, %arg1 : tensor<40xcomplex<f32>>
    %1 = stablehlo.atan2 %arg1, %arg0 : tensor<40xcomplex<f32>>
    %2 = stablehlo.multiply %arg0, %arg1 : tensor<40xcomplex<f32>>
    %3 = stablehlo.add %arg0, %arg1 : tensor<40xcomplex<f32>>
    %4 = stablehlo.atan2 %2, %3 : tensor<40xcomplex<f32>>
    %5 = stablehlo.real %4 : (tensor<40xcomplex<f32>>) -> tensor<40xf32>
    %6 = stablehlo.exponential %5 : tensor<40xf32>
    %7 = stablehlo.compare EQ, %6, %cst_1 : (tensor<40xf32>, tensor<40xf32>) -> tensor<40xi1>
    %8 = stablehlo.multiply %5, %cst_0 : tensor<40xf32>
    %9 = stablehlo.exponential %8 : tensor<40xf32>
    %10 = stablehlo.imag %4 : (tensor<40xcomplex<f32>>) -> tensor<40xf32>
    %11 = stablehlo.cosine %10 : tensor<40xf32>
    %12 = stablehlo.multiply %9, %11 : tensor<40xf32>
    %13 = stablehlo.multiply %12, %9 : tensor<40xf32>
    %14 = stablehlo.multiply %6, %11 : tensor<40xf32>
    %15 = stablehlo.select %7, %13, %14 : tensor<40xi1>, tensor<40xf32>
    %16 = stablehlo.compare EQ, %10, %cst : (tensor<40xf32>, tensor<40xf32>) -> tensor<40xi1>
    %17 = stablehlo.sine %10 : tensor<40xf32>
    %18 = stablehlo.multiply %9, %17 : tensor<40xf32>
    %19 = stablehlo.multiply %18, %9 : tensor<40xf32>
    %20 = stablehlo.multiply %6, %17 : tensor<40xf32>
    %21 = stablehlo.select %7, %19, %20 : tensor<40xi1>, tensor<40xf32>
    %22 = stablehlo.select %16, %cst, %21 : tensor<40xi1>, tensor<40xf32>
    %23 = stablehlo.complex %15, %22 : tensor<40xcomplex<f32>>
    %24 = stablehlo.multiply %23, %arg0 : tensor<40xcomplex<f32>>
    return %1, %0, %24 : tensor<40xcomplex<f32>>, tensor<40xcomplex<f32>>, tensor<40xcomplex<f32>>
  }
}
