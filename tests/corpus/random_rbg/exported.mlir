module @jit_f attributes {jax.uses_shape_polymorphism = false, mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4xui32>) -> (tensor<16xf32> {jax.result_info = "result[0]"}, tensor<8xf32> {jax.result_info = "result[1]"}, tensor<6xui32> {jax.result_info = "result[2]"}) {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %cst_0 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %0 = call @_uniform(%arg0, %cst, %cst_0) : (tensor<4xui32>, tensor<f32>, tensor<f32>) -> tensor<16xf32>
    %1 = call @_normal(%arg0) : (tensor<4xui32>) -> tensor<8xf32>
    %2 = stablehlo.reshape %arg0 : (tensor<4xui32>) -> tensor<2x2xui32>
    %3 = stablehlo.bitcast_convert %2 : (tensor<2x2xui32>) -> tensor<2xui64>
    %output_state, %output = stablehlo.rng_bit_generator %3, algorithm = DEFAULT : (tensor<2xui64>) -> (tensor<2xui64>, tensor<6xui32>)
    return %0, %1, %output : tensor<16xf32>, tensor<8xf32>, tensor<6xui32>
  }
  func.func private @_uniform(%arg0: tensor<4xui32>, %arg1: tensor<f32>, %arg2: tensor<f32>) -> tensor<16xf32> {
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %c = stablehlo.constant dense<1065353216> : tensor<ui32>
    %c_0 = stablehlo.constant dense<9> : tensor<ui32>
    %0 = stablehlo.convert %arg1 : tensor<f32>
    %1 = stablehlo.convert %arg2 : tensor<f32>
    %2 = stablehlo.broadcast_in_dim %0, dims = [] : (tensor<f32>) -> tensor<1xf32>
    %3 = stablehlo.broadcast_in_dim %1, dims = [] : (tensor<f32>) -> tensor<1xf32>
    %4 = stablehlo.reshape %arg0 : (tensor<4xui32>) -> tensor<2x2xui32>
    %5 = stablehlo.bitcast_convert %4 : (tensor<2x2xui32>) -> tensor<2xui64>
    %output_state, %output = stablehlo.rng_bit_generator %5, algorithm = DEFAULT : (tensor<2xui64>) -> (tensor<2xui64>, tensor<16xui32>)
    %6 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<ui32>) -> tensor<16xui32>
    %7 = stablehlo.shift_right_logical %output, %6 : tensor<16xui32>
    %8 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<ui32>) -> tensor<16xui32>
    %9 = stablehlo.or %7, %8 : tensor<16xui32>
    %10 = stablehlo.bitcast_convert %9 : (tensor<16xui32>) -> tensor<16xf32>
    %11 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<16xf32>
    %12 = stablehlo.subtract %10, %11 : tensor<16xf32>
    %13 = stablehlo.subtract %3, %2 : tensor<1xf32>
    %14 = stablehlo.broadcast_in_dim %13, dims = [0] : (tensor<1xf32>) -> tensor<16xf32>
    %15 = stablehlo.multiply %12, %14 : tensor<16xf32>
    %16 = stablehlo.broadcast_in_dim %2, dims = [0] : (tensor<1xf32>) -> tensor<16xf32>
    %17 = stablehlo.add %15, %16 : tensor<16xf32>
    %18 = stablehlo.broadcast_in_dim %2, dims = [0] : (tensor<1xf32>) -> tensor<16xf32>
    %19 = stablehlo.maximum %18, %17 : tensor<16xf32>
    return %19 : tensor<16xf32>
  }
  func.func private @_normal(%arg0: tensor<4xui32>) -> tensor<8xf32> {
    %0 = call @_normal_real(%arg0) : (tensor<4xui32>) -> tensor<8xf32>
    return %0 : tensor<8xf32>
  }
  func.func private @_normal_real(%arg0: tensor<4xui32>) -> tensor<8xf32> {
    %cst = stablehlo.constant dense<0x7F800000> : tensor<8xf32>
    %cst_0 = stablehlo.constant dense<1.000000e+00> : tensor<8xf32>
    %cst_1 = stablehlo.constant dense<2.83297682> : tensor<8xf32>
    %cst_2 = stablehlo.constant dense<1.50140941> : tensor<8xf32>
    %cst_3 = stablehlo.constant dense<1.00167406> : tensor<8xf32>
    %cst_4 = stablehlo.constant dense<0.246640727> : tensor<8xf32>
    %cst_5 = stablehlo.constant dense<0.00943887047> : tensor<8xf32>
    %cst_6 = stablehlo.constant dense<-0.00417768164> : tensor<8xf32>
    %cst_7 = stablehlo.constant dense<-0.0076224613> : tensor<8xf32>
    %cst_8 = stablehlo.constant dense<-0.00125372503> : tensor<8xf32>
    %cst_9 = stablehlo.constant dense<0.00573950773> : tensor<8xf32>
    %cst_10 = stablehlo.constant dense<2.1858087E-4> : tensor<8xf32>
    %cst_11 = stablehlo.constant dense<-0.00367342844> : tensor<8xf32>
    %cst_12 = stablehlo.constant dense<-4.39150654E-6> : tensor<8xf32>
    %cst_13 = stablehlo.constant dense<0.00134934322> : tensor<8xf32>
    %cst_14 = stablehlo.constant dense<-3.5233877E-6> : tensor<8xf32>
    %cst_15 = stablehlo.constant dense<1.00950558E-4> : tensor<8xf32>
    %cst_16 = stablehlo.constant dense<3.43273939E-7> : tensor<8xf32>
    %cst_17 = stablehlo.constant dense<-2.00214257E-4> : tensor<8xf32>
    %cst_18 = stablehlo.constant dense<2.81022636E-8> : tensor<8xf32>
    %cst_19 = stablehlo.constant dense<3.000000e+00> : tensor<8xf32>
    %cst_20 = stablehlo.constant dense<2.500000e+00> : tensor<8xf32>
    %cst_21 = stablehlo.constant dense<5.000000e+00> : tensor<8xf32>
    %cst_22 = stablehlo.constant dense<1.41421354> : tensor<f32>
    %cst_23 = stablehlo.constant dense<-0.99999994> : tensor<f32>
    %cst_24 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %0 = call @_uniform_0(%arg0, %cst_23, %cst_24) : (tensor<4xui32>, tensor<f32>, tensor<f32>) -> tensor<8xf32>
    %1 = stablehlo.negate %0 : tensor<8xf32>
    %2 = stablehlo.multiply %0, %1 : tensor<8xf32>
    %3 = stablehlo.log_plus_one %2 : tensor<8xf32>
    %4 = stablehlo.negate %3 : tensor<8xf32>
    %5 = stablehlo.compare LT, %4, %cst_21 : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xi1>
    %6 = stablehlo.subtract %4, %cst_20 : tensor<8xf32>
    %7 = stablehlo.sqrt %4 : tensor<8xf32>
    %8 = stablehlo.subtract %7, %cst_19 : tensor<8xf32>
    %9 = stablehlo.select %5, %6, %8 : tensor<8xi1>, tensor<8xf32>
    %10 = stablehlo.select %5, %cst_18, %cst_17 : tensor<8xi1>, tensor<8xf32>
    %11 = stablehlo.select %5, %cst_16, %cst_15 : tensor<8xi1>, tensor<8xf32>
    %12 = stablehlo.multiply %10, %9 : tensor<8xf32>
    %13 = stablehlo.add %11, %12 : tensor<8xf32>
    %14 = stablehlo.select %5, %cst_14, %cst_13 : tensor<8xi1>, tensor<8xf32>
    %15 = stablehlo.multiply %13, %9 : tensor<8xf32>
    %16 = stablehlo.add %14, %15 : tensor<8xf32>
    %17 = stablehlo.select %5, %cst_12, %cst_11 : tensor<8xi1>, tensor<8xf32>
    %18 = stablehlo.multiply %16, %9 : tensor<8xf32>
    %19 = stablehlo.add %17, %18 : tensor<8xf32>
    %20 = stablehlo.select %5, %cst_10, %cst_9 : tensor<8xi1>, tensor<8xf32>
    %21 = stablehlo.multiply %19, %9 : tensor<8xf32>
    %22 = stablehlo.add %20, %21 : tensor<8xf32>
    %23 = stablehlo.select %5, %cst_8, %cst_7 : tensor<8xi1>, tensor<8xf32>
    %24 = stablehlo.multiply %22, %9 : tensor<8xf32>
    %25 = stablehlo.add %23, %24 : tensor<8xf32>
    %26 = stablehlo.select %5, %cst_6, %cst_5 : tensor<8xi1>, tensor<8xf32>
    %27 = stablehlo.multiply %25, %9 : tensor<8xf32>
    %28 = stablehlo.add %26, %27 : tensor<8xf32>
    %29 = stablehlo.select %5, %cst_4, %cst_3 : tensor<8xi1>, tensor<8xf32>
    %30 = stablehlo.multiply %28, %9 : tensor<8xf32>
    %31 = stablehlo.add %29, %30 : tensor<8xf32>
    %32 = stablehlo.select %5, %cst_2, %cst_1 : tensor<8xi1>, tensor<8xf32>
    %33 = stablehlo.multiply %31, %9 : tensor<8xf32>
    %34 = stablehlo.add %32, %33 : tensor<8xf32>
    %35 = stablehlo.multiply %34, %0 : tensor<8xf32>
    %36 = stablehlo.abs %0 : tensor<8xf32>
    %37 = stablehlo.compare EQ, %36, %cst_0 : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xi1>
    %38 = stablehlo.multiply %0, %cst : tensor<8xf32>
    %39 = stablehlo.select %37, %38, %35 : tensor<8xi1>, tensor<8xf32>
    %40 = stablehlo.broadcast_in_dim %cst_22, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %41 = stablehlo.multiply %40, %39 : tensor<8xf32>
    return %41 : tensor<8xf32>
  }
  func.func private @_uniform_0(%arg0: tensor<4xui32>, %arg1: tensor<f32>, %arg2: tensor<f32>) -> tensor<8xf32> {
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %c = stablehlo.constant dense<1065353216> : tensor<ui32>
    %c_0 = stablehlo.constant dense<9> : tensor<ui32>
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [] : (tensor<f32>) -> tensor<1xf32>
    %1 = stablehlo.broadcast_in_dim %arg2, dims = [] : (tensor<f32>) -> tensor<1xf32>
    %2 = stablehlo.reshape %arg0 : (tensor<4xui32>) -> tensor<2x2xui32>
    %3 = stablehlo.bitcast_convert %2 : (tensor<2x2xui32>) -> tensor<2xui64>
    %output_state, %output = stablehlo.rng_bit_generator %3, algorithm = DEFAULT : (tensor<2xui64>) -> (tensor<2xui64>, tensor<8xui32>)
    %4 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<ui32>) -> tensor<8xui32>
    %5 = stablehlo.shift_right_logical %output, %4 : tensor<8xui32>
    %6 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<ui32>) -> tensor<8xui32>
    %7 = stablehlo.or %5, %6 : tensor<8xui32>
    %8 = stablehlo.bitcast_convert %7 : (tensor<8xui32>) -> tensor<8xf32>
    %9 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %10 = stablehlo.subtract %8, %9 : tensor<8xf32>
    %11 = stablehlo.subtract %1, %0 : tensor<1xf32>
    %12 = stablehlo.broadcast_in_dim %11, dims = [0] : (tensor<1xf32>) -> tensor<8xf32>
    %13 = stablehlo.multiply %10, %12 : tensor<8xf32>
    %14 = stablehlo.broadcast_in_dim %0, dims = [0] : (tensor<1xf32>) -> tensor<8xf32>
    %15 = stablehlo.add %13, %14 : tensor<8xf32>
    %16 = stablehlo.broadcast_in_dim %0, dims = [0] : (tensor<1xf32>) -> tensor<8xf32>
    %17 = stablehlo.maximum %16, %15 : tensor<8xf32>
    return %17 : tensor<8xf32>
  }
}
