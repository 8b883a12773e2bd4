module @jit_f attributes {jax.uses_shape_polymorphism = false, mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<20xf32>, %arg1: tensor<8xi32>, %arg2: tensor<5xi32>, %arg3: tensor<8xf32>, %arg4: tensor<6x5xf32>, %arg5: tensor<3xi32>, %arg6: tensor<3x5xf32>) -> (tensor<20xf32> {jax.result_info = "result[0]"}, tensor<20xf32> {jax.result_info = "result[1]"}, tensor<20xf32> {jax.result_info = "result[2]"}, tensor<20xf32> {jax.result_info = "result[3]"}, tensor<20xf32> {jax.result_info = "result[4]"}, tensor<6x5xf32> {jax.result_info = "result[5]"}, tensor<6x5xf32> {jax.result_info = "result[6]"}) {
    %cst = stablehlo.constant dense<9.000000e+00> : tensor<f32>
    %c = stablehlo.constant dense<1> : tensor<i32>
    %c_0 = stablehlo.constant dense<2> : tensor<i32>
    %c_1 = stablehlo.constant dense<6> : tensor<i32>
    %c_2 = stablehlo.constant dense<20> : tensor<i32>
    %c_3 = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.broadcast_in_dim %c_3, dims = [] : (tensor<i32>) -> tensor<8xi32>
    %1 = stablehlo.compare LT, %arg1, %0, SIGNED : (tensor<8xi32>, tensor<8xi32>) -> tensor<8xi1>
    %2 = stablehlo.broadcast_in_dim %c_2, dims = [] : (tensor<i32>) -> tensor<8xi32>
    %3 = stablehlo.add %arg1, %2 : tensor<8xi32>
    %4 = stablehlo.select %1, %3, %arg1 : tensor<8xi1>, tensor<8xi32>
    %5 = stablehlo.broadcast_in_dim %4, dims = [0] : (tensor<8xi32>) -> tensor<8x1xi32>
    %6 = "stablehlo.scatter"(%arg0, %5, %arg3) <{scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>}> ({
    ^bb0(%arg7: tensor<f32>, %arg8: tensor<f32>):
      %48 = stablehlo.add %arg7, %arg8 : tensor<f32>
      stablehlo.return %48 : tensor<f32>
    }) : (tensor<20xf32>, tensor<8x1xi32>, tensor<8xf32>) -> tensor<20xf32>
    %7 = stablehlo.slice %arg3 [0:5] : (tensor<8xf32>) -> tensor<5xf32>
    %8 = stablehlo.broadcast_in_dim %c_3, dims = [] : (tensor<i32>) -> tensor<5xi32>
    %9 = stablehlo.compare LT, %arg2, %8, SIGNED : (tensor<5xi32>, tensor<5xi32>) -> tensor<5xi1>
    %10 = stablehlo.broadcast_in_dim %c_2, dims = [] : (tensor<i32>) -> tensor<5xi32>
    %11 = stablehlo.add %arg2, %10 : tensor<5xi32>
    %12 = stablehlo.select %9, %11, %arg2 : tensor<5xi1>, tensor<5xi32>
    %13 = stablehlo.broadcast_in_dim %12, dims = [0] : (tensor<5xi32>) -> tensor<5x1xi32>
    %14 = "stablehlo.scatter"(%arg0, %13, %7) <{scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>}> ({
    ^bb0(%arg7: tensor<f32>, %arg8: tensor<f32>):
      stablehlo.return %arg8 : tensor<f32>
    }) : (tensor<20xf32>, tensor<5x1xi32>, tensor<5xf32>) -> tensor<20xf32>
    %15 = stablehlo.broadcast_in_dim %c_3, dims = [] : (tensor<i32>) -> tensor<8xi32>
    %16 = stablehlo.compare LT, %arg1, %15, SIGNED : (tensor<8xi32>, tensor<8xi32>) -> tensor<8xi1>
    %17 = stablehlo.broadcast_in_dim %c_2, dims = [] : (tensor<i32>) -> tensor<8xi32>
    %18 = stablehlo.add %arg1, %17 : tensor<8xi32>
    %19 = stablehlo.select %16, %18, %arg1 : tensor<8xi1>, tensor<8xi32>
    %20 = stablehlo.broadcast_in_dim %19, dims = [0] : (tensor<8xi32>) -> tensor<8x1xi32>
    %21 = "stablehlo.scatter"(%arg0, %20, %arg3) <{scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>}> ({
    ^bb0(%arg7: tensor<f32>, %arg8: tensor<f32>):
      %48 = stablehlo.maximum %arg7, %arg8 : tensor<f32>
      stablehlo.return %48 : tensor<f32>
    }) : (tensor<20xf32>, tensor<8x1xi32>, tensor<8xf32>) -> tensor<20xf32>
    %22 = stablehlo.broadcast_in_dim %c_3, dims = [] : (tensor<i32>) -> tensor<8xi32>
    %23 = stablehlo.compare LT, %arg1, %22, SIGNED : (tensor<8xi32>, tensor<8xi32>) -> tensor<8xi1>
    %24 = stablehlo.broadcast_in_dim %c_2, dims = [] : (tensor<i32>) -> tensor<8xi32>
    %25 = stablehlo.add %arg1, %24 : tensor<8xi32>
    %26 = stablehlo.select %23, %25, %arg1 : tensor<8xi1>, tensor<8xi32>
    %27 = stablehlo.broadcast_in_dim %26, dims = [0] : (tensor<8xi32>) -> tensor<8x1xi32>
    %28 = "stablehlo.scatter"(%arg0, %27, %arg3) <{scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>}> ({
    ^bb0(%arg7: tensor<f32>, %arg8: tensor<f32>):
      %48 = stablehlo.minimum %arg7, %arg8 : tensor<f32>
      stablehlo.return %48 : tensor<f32>
    }) : (tensor<20xf32>, tensor<8x1xi32>, tensor<8xf32>) -> tensor<20xf32>
    %29 = stablehlo.broadcast_in_dim %c_3, dims = [] : (tensor<i32>) -> tensor<8xi32>
    %30 = stablehlo.compare LT, %arg1, %29, SIGNED : (tensor<8xi32>, tensor<8xi32>) -> tensor<8xi1>
    %31 = stablehlo.broadcast_in_dim %c_2, dims = [] : (tensor<i32>) -> tensor<8xi32>
    %32 = stablehlo.add %arg1, %31 : tensor<8xi32>
    %33 = stablehlo.select %30, %32, %arg1 : tensor<8xi1>, tensor<8xi32>
    %34 = stablehlo.broadcast_in_dim %33, dims = [0] : (tensor<8xi32>) -> tensor<8x1xi32>
    %35 = "stablehlo.scatter"(%arg0, %34, %arg3) <{scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>}> ({
    ^bb0(%arg7: tensor<f32>, %arg8: tensor<f32>):
      %48 = stablehlo.multiply %arg7, %arg8 : tensor<f32>
      stablehlo.return %48 : tensor<f32>
    }) : (tensor<20xf32>, tensor<8x1xi32>, tensor<8xf32>) -> tensor<20xf32>
    %36 = stablehlo.broadcast_in_dim %c_3, dims = [] : (tensor<i32>) -> tensor<3xi32>
    %37 = stablehlo.compare LT, %arg5, %36, SIGNED : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi1>
    %38 = stablehlo.broadcast_in_dim %c_1, dims = [] : (tensor<i32>) -> tensor<3xi32>
    %39 = stablehlo.add %arg5, %38 : tensor<3xi32>
    %40 = stablehlo.select %37, %39, %arg5 : tensor<3xi1>, tensor<3xi32>
    %41 = stablehlo.broadcast_in_dim %40, dims = [0] : (tensor<3xi32>) -> tensor<3x1xi32>
    %42 = "stablehlo.scatter"(%arg4, %41, %arg6) <{scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>}> ({
    ^bb0(%arg7: tensor<f32>, %arg8: tensor<f32>):
      %48 = stablehlo.add %arg7, %arg8 : tensor<f32>
      stablehlo.return %48 : tensor<f32>
    }) : (tensor<6x5xf32>, tensor<3x1xi32>, tensor<3x5xf32>) -> tensor<6x5xf32>
    %43 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i32>) -> tensor<1xi32>
    %44 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<1xi32>
    %45 = stablehlo.concatenate %43, %44, dim = 0 : (tensor<1xi32>, tensor<1xi32>) -> tensor<2xi32>
    %46 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<3xf32>
    %47 = "stablehlo.scatter"(%arg4, %45, %46) <{indices_are_sorted = true, scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [0], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0, 1]>, unique_indices = true}> ({
    ^bb0(%arg7: tensor<f32>, %arg8: tensor<f32>):
      stablehlo.return %arg8 : tensor<f32>
    }) : (tensor<6x5xf32>, tensor<2xi32>, tensor<3xf32>) -> tensor<6x5xf32>
    return %6, %14, %21, %28, %35, %42, %47 : tensor<20xf32>, tensor<20xf32>, tensor<20xf32>, tensor<20xf32>, tensor<20xf32>, tensor<6x5xf32>, tensor<6x5xf32>
  }
}
