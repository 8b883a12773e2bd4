module @jit_f attributes {jax.uses_shape_polymorphism = false, mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4x6xcomplex<f64>>, %arg1: tensor<6xcomplex<f64>>) -> (tensor<4x6xcomplex<f64>> {jax.result_info = "result['broadcast']"}, tensor<8x6xcomplex<f64>> {jax.result_info = "result['concat']"}, tensor<4xf64> {jax.result_info = "result['mean_abs']"}, tensor<5x8xcomplex<f64>> {jax.result_info = "result['pad']"}, tensor<6xcomplex<f64>> {jax.result_info = "result['prod_cols']"}, tensor<3x8xcomplex<f64>> {jax.result_info = "result['reshape']"}, tensor<4x6xcomplex<f64>> {jax.result_info = "result['reverse']"}, tensor<2x3xcomplex<f64>> {jax.result_info = "result['slice']"}, tensor<complex<f64>> {jax.result_info = "result['sum_all']"}, tensor<4xcomplex<f64>> {jax.result_info = "result['sum_rows']"}, tensor<6x4xcomplex<f64>> {jax.result_info = "result['transpose']"}) {
    %cst = stablehlo.constant dense<6.000000e+00> : tensor<f64>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f64>
    %c = stablehlo.constant dense<0> : tensor<i64>
    %cst_1 = stablehlo.constant dense<(0.000000e+00,1.000000e+00)> : tensor<complex<f64>>
    %cst_2 = stablehlo.constant dense<(1.000000e+00,0.000000e+00)> : tensor<complex<f64>>
    %cst_3 = stablehlo.constant dense<(5.000000e-01,0.000000e+00)> : tensor<complex<f64>>
    %cst_4 = stablehlo.constant dense<(0.000000e+00,0.000000e+00)> : tensor<complex<f64>>
    %0 = stablehlo.reduce(%arg0 init: %cst_4) applies stablehlo.add across dimensions = [0, 1] : (tensor<4x6xcomplex<f64>>, tensor<complex<f64>>) -> tensor<complex<f64>>
    %1 = stablehlo.reduce(%arg0 init: %cst_4) applies stablehlo.add across dimensions = [1] : (tensor<4x6xcomplex<f64>>, tensor<complex<f64>>) -> tensor<4xcomplex<f64>>
    %2 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<complex<f64>>) -> tensor<4x6xcomplex<f64>>
    %3 = stablehlo.multiply %arg0, %2 : tensor<4x6xcomplex<f64>>
    %4 = stablehlo.reduce(%3 init: %cst_2) applies stablehlo.multiply across dimensions = [0] : (tensor<4x6xcomplex<f64>>, tensor<complex<f64>>) -> tensor<6xcomplex<f64>>
    %5 = stablehlo.transpose %arg0, dims = [1, 0] : (tensor<4x6xcomplex<f64>>) -> tensor<6x4xcomplex<f64>>
    %6 = stablehlo.broadcast_in_dim %arg1, dims = [1] : (tensor<6xcomplex<f64>>) -> tensor<1x6xcomplex<f64>>
    %7 = stablehlo.broadcast_in_dim %6, dims = [0, 1] : (tensor<1x6xcomplex<f64>>) -> tensor<4x6xcomplex<f64>>
    %8 = stablehlo.add %arg0, %7 : tensor<4x6xcomplex<f64>>
    %9 = stablehlo.reshape %arg0 : (tensor<4x6xcomplex<f64>>) -> tensor<3x8xcomplex<f64>>
    %10 = stablehlo.slice %arg0 [1:3, 0:6:2] : (tensor<4x6xcomplex<f64>>) -> tensor<2x3xcomplex<f64>>
    %11 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<complex<f64>>) -> tensor<4x6xcomplex<f64>>
    %12 = stablehlo.multiply %arg0, %11 : tensor<4x6xcomplex<f64>>
    %13 = stablehlo.concatenate %arg0, %12, dim = 0 : (tensor<4x6xcomplex<f64>>, tensor<4x6xcomplex<f64>>) -> tensor<8x6xcomplex<f64>>
    %14 = stablehlo.reverse %arg0, dims = [0] : tensor<4x6xcomplex<f64>>
    %15 = call @_pad(%arg0, %c) : (tensor<4x6xcomplex<f64>>, tensor<i64>) -> tensor<5x8xcomplex<f64>>
    %16 = stablehlo.abs %arg0 : (tensor<4x6xcomplex<f64>>) -> tensor<4x6xf64>
    %17 = stablehlo.reduce(%16 init: %cst_0) applies stablehlo.add across dimensions = [1] : (tensor<4x6xf64>, tensor<f64>) -> tensor<4xf64>
    %18 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f64>) -> tensor<4xf64>
    %19 = stablehlo.divide %17, %18 : tensor<4xf64>
    return %8, %13, %19, %15, %4, %9, %14, %10, %0, %1, %5 : tensor<4x6xcomplex<f64>>, tensor<8x6xcomplex<f64>>, tensor<4xf64>, tensor<5x8xcomplex<f64>>, tensor<6xcomplex<f64>>, tensor<3x8xcomplex<f64>>, tensor<4x6xcomplex<f64>>, tensor<2x3xcomplex<f64>>, tensor<complex<f64>>, tensor<4xcomplex<f64>>, tensor<6x4xcomplex<f64>>
  }
  func.func private @_pad(%arg0: tensor<4x6xcomplex<f64>>, %arg1: tensor<i64>) -> tensor<5x8xcomplex<f64>> {
    %0 = stablehlo.convert %arg1 : (tensor<i64>) -> tensor<complex<f64>>
    %1 = stablehlo.pad %arg0, %0, low = [1, 0], high = [0, 2], interior = [0, 0] : (tensor<4x6xcomplex<f64>>, tensor<complex<f64>>) -> tensor<5x8xcomplex<f64>>
    return %1 : tensor<5x8xcomplex<f64>>
  }
}
