module @jit_f attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<8xf32>, %arg1: tensor<8xcomplex<f32>>, %arg2: tensor<3x5xcomplex<f32>>) -> (tensor<8xcomplex<f32>> {jax.result_info = "result[0]"}, tensor<5xcomplex<f32>> {jax.result_info = "result[1]"}, tensor<8xf32> {jax.result_info = "result[2]"}, tensor<8xcomplex<f32>> {jax.result_info = "result[3]"}, tensor<8xf32> {jax.result_info = "result[4]"}, tensor<3x5xcomplex<f32>> {jax.result_info = "result[5]"}, tensor<8xf32> {jax.result_info = "result[6]"}, tensor<8xi1> {jax.result_info = "result[7]"}) {
    %0 = call @fft(%arg1) : (tensor<8xcomplex<f32>>) -> tensor<8xcomplex<f32>>
    %1 = call @fft_0(%arg0) : (tensor<8xf32>) -> tensor<5xcomplex<f32>>
    %2 = stablehlo.real %arg1 : (tensor<8xcomplex<f32>>) -> tensor<8xf32>
    %cst = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %3 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %4 = stablehlo.multiply %2, %3 : tensor<8xf32>
    %5 = stablehlo.imag %arg1 : (tensor<8xcomplex<f32>>) -> tensor<8xf32>
    %6 = stablehlo.add %4, %5 : tensor<8xf32>
    %7 = stablehlo.complex %arg0, %arg0 : tensor<8xcomplex<f32>>
    %8 = stablehlo.multiply %7, %arg1 : tensor<8xcomplex<f32>>
    %cst_0 = stablehlo.constant dense<(1.000000e+00,0.000000e+00)> : tensor<complex<f32>>
    %9 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<complex<f32>>) -> tensor<8xcomplex<f32>>
    %10 = stablehlo.add %arg1, %9 : tensor<8xcomplex<f32>>
    %11 = stablehlo.divide %8, %10 : tensor<8xcomplex<f32>>
    %12 = call @fft_0(%arg0) : (tensor<8xf32>) -> tensor<5xcomplex<f32>>
    %13 = call @fft_1(%12) : (tensor<5xcomplex<f32>>) -> tensor<8xf32>
    %14 = call @fft_2(%arg2) : (tensor<3x5xcomplex<f32>>) -> tensor<3x5xcomplex<f32>>
    %15 = stablehlo.exponential %arg1 : tensor<8xcomplex<f32>>
    %16 = stablehlo.abs %15 : (tensor<8xcomplex<f32>>) -> tensor<8xf32>
    %17 = stablehlo.real %arg1 : (tensor<8xcomplex<f32>>) -> tensor<8xf32>
    %18 = stablehlo.imag %arg1 : (tensor<8xcomplex<f32>>) -> tensor<8xf32>
    %19 = stablehlo.negate %18 : tensor<8xf32>
    %20 = stablehlo.complex %17, %19 : tensor<8xcomplex<f32>>
    %21 = stablehlo.compare EQ, %arg1, %20, FLOAT : (tensor<8xcomplex<f32>>, tensor<8xcomplex<f32>>) -> tensor<8xi1>
    return %0, %1, %6, %11, %13, %14, %16, %21 : tensor<8xcomplex<f32>>, tensor<5xcomplex<f32>>, tensor<8xf32>, tensor<8xcomplex<f32>>, tensor<8xf32>, tensor<3x5xcomplex<f32>>, tensor<8xf32>, tensor<8xi1>
  }
  func.func private @fft(%arg0: tensor<8xcomplex<f32>>) -> tensor<8xcomplex<f32>> {
    %0 = stablehlo.fft %arg0, type = FFT, length = [8] : (tensor<8xcomplex<f32>>) -> tensor<8xcomplex<f32>>
    return %0 : tensor<8xcomplex<f32>>
  }
  func.func private @fft_0(%arg0: tensor<8xf32>) -> tensor<5xcomplex<f32>> {
    %0 = stablehlo.fft %arg0, type = RFFT, length = [8] : (tensor<8xf32>) -> tensor<5xcomplex<f32>>
    return %0 : tensor<5xcomplex<f32>>
  }
  func.func private @fft_1(%arg0: tensor<5xcomplex<f32>>) -> tensor<8xf32> {
    %0 = stablehlo.fft %arg0, type = IRFFT, length = [8] : (tensor<5xcomplex<f32>>) -> tensor<8xf32>
    return %0 : tensor<8xf32>
  }
  func.func private @fft_2(%arg0: tensor<3x5xcomplex<f32>>) -> tensor<3x5xcomplex<f32>> {
    %0 = stablehlo.fft %arg0, type = IFFT, length = [3, 5] : (tensor<3x5xcomplex<f32>>) -> tensor<3x5xcomplex<f32>>
    return %0 : tensor<3x5xcomplex<f32>>
  }
}
