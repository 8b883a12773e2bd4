module @jit_f attributes {jax.uses_shape_polymorphism = false, mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<3x7xcomplex<f64>>, %arg1: tensor<2x6x5xcomplex<f64>>, %arg2: tensor<3x4x5xcomplex<f64>>, %arg3: tensor<4x11xf64>, %arg4: tensor<2x6x8xf64>, %arg5: tensor<3x5x4xf64>) -> (tensor<3x7xcomplex<f64>> {jax.result_info = "result['fft1']"}, tensor<2x6x5xcomplex<f64>> {jax.result_info = "result['fft2']"}, tensor<3x4x5xcomplex<f64>> {jax.result_info = "result['fft3']"}, tensor<2x6x5xcomplex<f64>> {jax.result_info = "result['fft_axis0']"}, tensor<3x7xcomplex<f64>> {jax.result_info = "result['ifft1']"}, tensor<2x6x5xcomplex<f64>> {jax.result_info = "result['ifft2']"}, tensor<3x4x5xcomplex<f64>> {jax.result_info = "result['ifft3']"}, tensor<4x11xf64> {jax.result_info = "result['irfft1']"}, tensor<3x12xf64> {jax.result_info = "result['irfft1_even']"}, tensor<2x6x8xf64> {jax.result_info = "result['irfft2']"}, tensor<3x4x7xf64> {jax.result_info = "result['irfft3']"}, tensor<4x6xcomplex<f64>> {jax.result_info = "result['rfft1']"}, tensor<2x6x5xcomplex<f64>> {jax.result_info = "result['rfft2']"}, tensor<3x5x3xcomplex<f64>> {jax.result_info = "result['rfft3']"}) {
    %c = stablehlo.constant dense<0> : tensor<i64>
    %0 = call @fft(%arg0) : (tensor<3x7xcomplex<f64>>) -> tensor<3x7xcomplex<f64>>
    %1 = call @fft_0(%arg0) : (tensor<3x7xcomplex<f64>>) -> tensor<3x7xcomplex<f64>>
    %2 = call @fft_1(%arg1) : (tensor<2x6x5xcomplex<f64>>) -> tensor<2x6x5xcomplex<f64>>
    %3 = call @fft_2(%arg1) : (tensor<2x6x5xcomplex<f64>>) -> tensor<2x6x5xcomplex<f64>>
    %4 = call @fft_3(%arg2) : (tensor<3x4x5xcomplex<f64>>) -> tensor<3x4x5xcomplex<f64>>
    %5 = call @fft_4(%arg2) : (tensor<3x4x5xcomplex<f64>>) -> tensor<3x4x5xcomplex<f64>>
    %6 = call @fft_5(%arg3) : (tensor<4x11xf64>) -> tensor<4x6xcomplex<f64>>
    %7 = call @fft_5(%arg3) : (tensor<4x11xf64>) -> tensor<4x6xcomplex<f64>>
    %8 = call @_pad(%7, %c) : (tensor<4x6xcomplex<f64>>, tensor<i64>) -> tensor<4x6xcomplex<f64>>
    %9 = call @fft_6(%8) : (tensor<4x6xcomplex<f64>>) -> tensor<4x11xf64>
    %10 = call @_pad_7(%arg0, %c) : (tensor<3x7xcomplex<f64>>, tensor<i64>) -> tensor<3x7xcomplex<f64>>
    %11 = call @fft_8(%10) : (tensor<3x7xcomplex<f64>>) -> tensor<3x12xf64>
    %12 = call @fft_9(%arg4) : (tensor<2x6x8xf64>) -> tensor<2x6x5xcomplex<f64>>
    %13 = call @fft_9(%arg4) : (tensor<2x6x8xf64>) -> tensor<2x6x5xcomplex<f64>>
    %14 = call @_pad_10(%13, %c) : (tensor<2x6x5xcomplex<f64>>, tensor<i64>) -> tensor<2x6x5xcomplex<f64>>
    %15 = call @fft_11(%14) : (tensor<2x6x5xcomplex<f64>>) -> tensor<2x6x8xf64>
    %16 = call @fft_12(%arg5) : (tensor<3x5x4xf64>) -> tensor<3x5x3xcomplex<f64>>
    %17 = stablehlo.slice %arg2 [0:3, 0:4, 0:4] : (tensor<3x4x5xcomplex<f64>>) -> tensor<3x4x4xcomplex<f64>>
    %18 = call @_pad_13(%17, %c) : (tensor<3x4x4xcomplex<f64>>, tensor<i64>) -> tensor<3x4x4xcomplex<f64>>
    %19 = call @fft_14(%18) : (tensor<3x4x4xcomplex<f64>>) -> tensor<3x4x7xf64>
    %20 = stablehlo.transpose %arg1, dims = [0, 2, 1] : (tensor<2x6x5xcomplex<f64>>) -> tensor<2x5x6xcomplex<f64>>
    %21 = call @fft_15(%20) : (tensor<2x5x6xcomplex<f64>>) -> tensor<2x5x6xcomplex<f64>>
    %22 = stablehlo.transpose %21, dims = [0, 2, 1] : (tensor<2x5x6xcomplex<f64>>) -> tensor<2x6x5xcomplex<f64>>
    return %0, %2, %4, %22, %1, %3, %5, %9, %11, %15, %19, %6, %12, %16 : tensor<3x7xcomplex<f64>>, tensor<2x6x5xcomplex<f64>>, tensor<3x4x5xcomplex<f64>>, tensor<2x6x5xcomplex<f64>>, tensor<3x7xcomplex<f64>>, tensor<2x6x5xcomplex<f64>>, tensor<3x4x5xcomplex<f64>>, tensor<4x11xf64>, tensor<3x12xf64>, tensor<2x6x8xf64>, tensor<3x4x7xf64>, tensor<4x6xcomplex<f64>>, tensor<2x6x5xcomplex<f64>>, tensor<3x5x3xcomplex<f64>>
  }
  func.func private @fft(%arg0: tensor<3x7xcomplex<f64>>) -> tensor<3x7xcomplex<f64>> {
    %0 = stablehlo.fft %arg0, type = FFT, length = [7] : (tensor<3x7xcomplex<f64>>) -> tensor<3x7xcomplex<f64>>
    return %0 : tensor<3x7xcomplex<f64>>
  }
  func.func private @fft_0(%arg0: tensor<3x7xcomplex<f64>>) -> tensor<3x7xcomplex<f64>> {
    %0 = stablehlo.fft %arg0, type = IFFT, length = [7] : (tensor<3x7xcomplex<f64>>) -> tensor<3x7xcomplex<f64>>
    return %0 : tensor<3x7xcomplex<f64>>
  }
  func.func private @fft_1(%arg0: tensor<2x6x5xcomplex<f64>>) -> tensor<2x6x5xcomplex<f64>> {
    %0 = stablehlo.fft %arg0, type = FFT, length = [6, 5] : (tensor<2x6x5xcomplex<f64>>) -> tensor<2x6x5xcomplex<f64>>
    return %0 : tensor<2x6x5xcomplex<f64>>
  }
  func.func private @fft_2(%arg0: tensor<2x6x5xcomplex<f64>>) -> tensor<2x6x5xcomplex<f64>> {
    %0 = stablehlo.fft %arg0, type = IFFT, length = [6, 5] : (tensor<2x6x5xcomplex<f64>>) -> tensor<2x6x5xcomplex<f64>>
    return %0 : tensor<2x6x5xcomplex<f64>>
  }
  func.func private @fft_3(%arg0: tensor<3x4x5xcomplex<f64>>) -> tensor<3x4x5xcomplex<f64>> {
    %0 = stablehlo.fft %arg0, type = FFT, length = [3, 4, 5] : (tensor<3x4x5xcomplex<f64>>) -> tensor<3x4x5xcomplex<f64>>
    return %0 : tensor<3x4x5xcomplex<f64>>
  }
  func.func private @fft_4(%arg0: tensor<3x4x5xcomplex<f64>>) -> tensor<3x4x5xcomplex<f64>> {
    %0 = stablehlo.fft %arg0, type = IFFT, length = [3, 4, 5] : (tensor<3x4x5xcomplex<f64>>) -> tensor<3x4x5xcomplex<f64>>
    return %0 : tensor<3x4x5xcomplex<f64>>
  }
  func.func private @fft_5(%arg0: tensor<4x11xf64>) -> tensor<4x6xcomplex<f64>> {
    %0 = stablehlo.fft %arg0, type = RFFT, length = [11] : (tensor<4x11xf64>) -> tensor<4x6xcomplex<f64>>
    return %0 : tensor<4x6xcomplex<f64>>
  }
  func.func private @_pad(%arg0: tensor<4x6xcomplex<f64>>, %arg1: tensor<i64>) -> tensor<4x6xcomplex<f64>> {
    %0 = stablehlo.convert %arg1 : (tensor<i64>) -> tensor<complex<f64>>
    %1 = stablehlo.pad %arg0, %0, low = [0, 0], high = [0, 0], interior = [0, 0] : (tensor<4x6xcomplex<f64>>, tensor<complex<f64>>) -> tensor<4x6xcomplex<f64>>
    return %1 : tensor<4x6xcomplex<f64>>
  }
  func.func private @fft_6(%arg0: tensor<4x6xcomplex<f64>>) -> tensor<4x11xf64> {
    %0 = stablehlo.fft %arg0, type = IRFFT, length = [11] : (tensor<4x6xcomplex<f64>>) -> tensor<4x11xf64>
    return %0 : tensor<4x11xf64>
  }
  func.func private @_pad_7(%arg0: tensor<3x7xcomplex<f64>>, %arg1: tensor<i64>) -> tensor<3x7xcomplex<f64>> {
    %0 = stablehlo.convert %arg1 : (tensor<i64>) -> tensor<complex<f64>>
    %1 = stablehlo.pad %arg0, %0, low = [0, 0], high = [0, 0], interior = [0, 0] : (tensor<3x7xcomplex<f64>>, tensor<complex<f64>>) -> tensor<3x7xcomplex<f64>>
    return %1 : tensor<3x7xcomplex<f64>>
  }
  func.func private @fft_8(%arg0: tensor<3x7xcomplex<f64>>) -> tensor<3x12xf64> {
    %0 = stablehlo.fft %arg0, type = IRFFT, length = [12] : (tensor<3x7xcomplex<f64>>) -> tensor<3x12xf64>
    return %0 : tensor<3x12xf64>
  }
  func.func private @fft_9(%arg0: tensor<2x6x8xf64>) -> tensor<2x6x5xcomplex<f64>> {
    %0 = stablehlo.fft %arg0, type = RFFT, length = [6, 8] : (tensor<2x6x8xf64>) -> tensor<2x6x5xcomplex<f64>>
    return %0 : tensor<2x6x5xcomplex<f64>>
  }
  func.func private @_pad_10(%arg0: tensor<2x6x5xcomplex<f64>>, %arg1: tensor<i64>) -> tensor<2x6x5xcomplex<f64>> {
    %0 = stablehlo.convert %arg1 : (tensor<i64>) -> tensor<complex<f64>>
    %1 = stablehlo.pad %arg0, %0, low = [0, 0, 0], high = [0, 0, 0], interior = [0, 0, 0] : (tensor<2x6x5xcomplex<f64>>, tensor<complex<f64>>) -> tensor<2x6x5xcomplex<f64>>
    return %1 : tensor<2x6x5xcomplex<f64>>
  }
  func.func private @fft_11(%arg0: tensor<2x6x5xcomplex<f64>>) -> tensor<2x6x8xf64> {
    %0 = stablehlo.fft %arg0, type = IRFFT, length = [6, 8] : (tensor<2x6x5xcomplex<f64>>) -> tensor<2x6x8xf64>
    return %0 : tensor<2x6x8xf64>
  }
  func.func private @fft_12(%arg0: tensor<3x5x4xf64>) -> tensor<3x5x3xcomplex<f64>> {
    %0 = stablehlo.fft %arg0, type = RFFT, length = [3, 5, 4] : (tensor<3x5x4xf64>) -> tensor<3x5x3xcomplex<f64>>
    return %0 : tensor<3x5x3xcomplex<f64>>
  }
  func.func private @_pad_13(%arg0: tensor<3x4x4xcomplex<f64>>, %arg1: tensor<i64>) -> tensor<3x4x4xcomplex<f64>> {
    %0 = stablehlo.convert %arg1 : (tensor<i64>) -> tensor<complex<f64>>
    %1 = stablehlo.pad %arg0, %0, low = [0, 0, 0], high = [0, 0, 0], interior = [0, 0, 0] : (tensor<3x4x4xcomplex<f64>>, tensor<complex<f64>>) -> tensor<3x4x4xcomplex<f64>>
    return %1 : tensor<3x4x4xcomplex<f64>>
  }
  func.func private @fft_14(%arg0: tensor<3x4x4xcomplex<f64>>) -> tensor<3x4x7xf64> {
    %0 = stablehlo.fft %arg0, type = IRFFT, length = [3, 4, 7] : (tensor<3x4x4xcomplex<f64>>) -> tensor<3x4x7xf64>
    return %0 : tensor<3x4x7xf64>
  }
  func.func private @fft_15(%arg0: tensor<2x5x6xcomplex<f64>>) -> tensor<2x5x6xcomplex<f64>> {
    %0 = stablehlo.fft %arg0, type = FFT, length = [6] : (tensor<2x5x6xcomplex<f64>>) -> tensor<2x5x6xcomplex<f64>>
    return %0 : tensor<2x5x6xcomplex<f64>>
  }
}
