"builtin.module"() <{sym_name = "jit_convert_element_type"}> ({
  "func.func"() <{arg_attrs = [{}], function_type = (tensor<f32>) -> tensor<f32>, res_attrs = [{jax.result_info = "result"}], sym_name = "main", sym_visibility = "public"}> ({
  ^bb0(%arg0: tensor<f32>):
    "func.return"(%arg0) : (tensor<f32>) -> ()
  }) : () -> ()
}) {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} : () -> ()
