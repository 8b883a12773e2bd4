module @jit_f attributes {jax.uses_shape_polymorphism = false, mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<5x7xcomplex<f64>>, %arg1: tensor<7x3xcomplex<f64>>, %arg2: tensor<2x4x5xcomplex<f64>>, %arg3: tensor<2x5x3xcomplex<f64>>, %arg4: tensor<7xcomplex<f64>>) -> (tensor<5x3xcomplex<f64>> {jax.result_info = "result[0]"}, tensor<2x4x3xcomplex<f64>> {jax.result_info = "result[1]"}, tensor<5xcomplex<f64>> {jax.result_info = "result[2]"}, tensor<complex<f64>> {jax.result_info = "result[3]"}, tensor<7x7xcomplex<f64>> {jax.result_info = "result[4]"}) {
    %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0] : (tensor<5x7xcomplex<f64>>, tensor<7x3xcomplex<f64>>) -> tensor<5x3xcomplex<f64>>
    %1 = stablehlo.dot_general %arg2, %arg3, batching_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<2x4x5xcomplex<f64>>, tensor<2x5x3xcomplex<f64>>) -> tensor<2x4x3xcomplex<f64>>
    %2 = stablehlo.dot_general %arg0, %arg4, contracting_dims = [1] x [0] : (tensor<5x7xcomplex<f64>>, tensor<7xcomplex<f64>>) -> tensor<5xcomplex<f64>>
    %3 = stablehlo.real %arg4 : (tensor<7xcomplex<f64>>) -> tensor<7xf64>
    %4 = stablehlo.imag %arg4 : (tensor<7xcomplex<f64>>) -> tensor<7xf64>
    %5 = stablehlo.negate %4 : tensor<7xf64>
    %6 = stablehlo.complex %3, %5 : tensor<7xcomplex<f64>>
    %7 = stablehlo.dot_general %6, %arg4, contracting_dims = [0] x [0] : (tensor<7xcomplex<f64>>, tensor<7xcomplex<f64>>) -> tensor<complex<f64>>
    %8 = stablehlo.transpose %arg0, dims = [1, 0] : (tensor<5x7xcomplex<f64>>) -> tensor<7x5xcomplex<f64>>
    %9 = stablehlo.real %8 : (tensor<7x5xcomplex<f64>>) -> tensor<7x5xf64>
    %10 = stablehlo.imag %8 : (tensor<7x5xcomplex<f64>>) -> tensor<7x5xf64>
    %11 = stablehlo.negate %10 : tensor<7x5xf64>
    %12 = stablehlo.complex %9, %11 : tensor<7x5xcomplex<f64>>
    %13 = stablehlo.dot_general %12, %arg0, contracting_dims = [1] x [0] : (tensor<7x5xcomplex<f64>>, tensor<5x7xcomplex<f64>>) -> tensor<7x7xcomplex<f64>>
    return %0, %1, %2, %7, %13 : tensor<5x3xcomplex<f64>>, tensor<2x4x3xcomplex<f64>>, tensor<5xcomplex<f64>>, tensor<complex<f64>>, tensor<7x7xcomplex<f64>>
  }
}
