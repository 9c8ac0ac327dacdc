// Written by .venv/bin/python tests/mlir/data/generate.py on 2026-11-29T15:18:40+00:00 with jax 0.10.2 (Python 3.11.7): a Pallas TPU kernel
// lowered through jax.export(platforms=['tpu']), generic form.
#loc1 = loc("x")
"builtin.module"() <{sym_name = "jit_f"}> ({
  "func.func"() <{function_type = (tensor<8x128xf32>) -> tensor<8x128xf32>, res_attrs = [{jax.result_info = "result"}], sym_name = "main", sym_visibility = "public"}> ({
  ^bb0(%arg0: tensor<8x128xf32> loc("x")):
    %0 = "stablehlo.custom_call"(%arg0) <{backend_config = "{\22custom_call_config\22: {\22body\22: \22TUzvUgFNTElSMjMuMC4wZ2l0AAEjCQEDBQcBAwkDDwsNDxETFRcDkW0RAWcHEw8PCwsPDwsPCw8TCw87CwsLC4ULCwsLCw8LDwsPHxMfCw8PHxMLCw8LDx8jDwtTCxMFBWFNBwNZAREHIwcbDw8XCwLOBB8DAxE1HVFTHTc5BRkFGx1FRxEJAQUdHQk/BR8dCVkDAxsdBSERCS0DDSEjJScrDy0PLzEzaQUjAQEFJQ0NYWZmaW5lX21hcDwoZDAsIGQxKSAtPiAoZDAsIGQxKT4ABScFKQUrBS0FLxEBAQUxHTs9BTMVExMtCwcaAis/AwMRQxMFEAAA4A8FNR0VSR0JSy0LBxoCK0sDA09rBTcFOR1VVwU7FRcXLQsHGgIRJQMHFV1fYWNlEQ8ABT0jCwkhAQAAAAEAAAACAAAAAAAAAAU/IwsBASN0cHUubWVtb3J5X3NwYWNlPHZtZW0+ACN0cHUuY29yZV90eXBlPHRjPgAjYXJpdGguZmFzdG1hdGg8bm9uZT4AAxdnBSECBAUpCycFIQIEBQECBAECAgUFAwMBAQkExQUBEQEZBwMBBQcRAR8HAxcvBQMBAwEDAwcDAwEDAwcDAwEFBgcDBwcBBQcDAw1BAwUJBg0DBwMLCwcNTQMHBQkNAwMFAwMBAwMFAwMBBQYFAwcHAxETDQUFWwkPAxETDwABBgMBBQEA1gZBESkVDRMLEQsdERMjIR0pLQkNTz8ZIxcjFRkfDw0JHRFidWlsdGluAHN0YWJsZV9tb3NhaWMAdHB1AGFyaXRoAG1vZHVsZQBhcml0aC5jb25zdGFudAB2ZWN0b3IubG9hZABmdW5jLmZ1bmMAdmVjdG9yLmJyb2FkY2FzdABhcml0aC5hZGRmAHRwdS52ZWN0b3Jfc3RvcmUAZnVuYy5yZXR1cm4AcGFsbGFzX21vZHVsZS48bG9jYWxzPi5hZGRfb25lAC93b3JrL21haW4vdGVzdHMvbWxpci9kYXRhL2dlbmVyYXRlLnB5AHZhbHVlAGFkZABzdGFibGVfbW9zYWljLnZlcnNpb24AZGltZW5zaW9uX3NlbWFudGljcwBmdW5jdGlvbl90eXBlAHNjYWxhcl9wcmVmZXRjaABzY3JhdGNoX29wZXJhbmRzAHN5bV9uYW1lAGFkZF9vbmUAdHB1LmNvcmVfdHlwZQBnZXQ6AGdldC9nZXQAYWRkOgBmYXN0bWF0aABzd2FwOgBzd2FwL3N3YXAAb3BlcmFuZFNlZ21lbnRTaXplcwBzdHJpZGVzAA==\22, \22serialization_format\22: 1, \22needs_layout_passes\22: true}}", call_target_name = "tpu_custom_call", operand_layouts = [dense<[1, 0]> : tensor<2xindex>], result_layouts = [dense<[1, 0]> : tensor<2xindex>]}> {kernel_name = "add_one", mhlo.frontend_attributes = {kernel_metadata = "{}"}} : (tensor<8x128xf32>) -> tensor<8x128xf32> loc(#loc14)
    "func.return"(%0) : (tensor<8x128xf32>) -> () loc(#loc13)
  }) : () -> () loc(#loc)
}) {jax.uses_shape_polymorphism = false, mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} : () -> () loc(#loc)
#loc = loc(unknown)
#loc2 = loc("/work/main/tests/mlir/data/generate.py":138:15 to 139:73)
#loc3 = loc("/work/main/tests/mlir/data/generate.py":141:15 to 142:52)
#loc4 = loc("/work/main/tests/mlir/data/generate.py":155:4 to :19)
#loc5 = loc("/work/main/tests/mlir/data/generate.py":169:4 to :10)
#loc6 = loc("pallas_module.<locals>.f"(#loc2))
#loc7 = loc("pallas_module"(#loc3))
#loc8 = loc("main"(#loc4))
#loc9 = loc("<module>"(#loc5))
#loc10 = loc(callsite(#loc8 at #loc9))
#loc11 = loc(callsite(#loc7 at #loc10))
#loc12 = loc(callsite(#loc6 at #loc11))
#loc13 = loc("jit(f)"(#loc11))
#loc14 = loc("jit(f)/pallas_call"(#loc12))
