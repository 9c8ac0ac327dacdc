# The CLI opens MLIR (libcachekey-mlir.so) only for module text.
#  1. With CACHEKEY_MLIR_PLUGIN pointing nowhere, a scenario of captured
#     entry-1 bytes is still explained (its real key is printed), and
#     compare-logs still reads logs: neither needs MLIR.
#  2. Module text then fails with exit 2 and, under --json, the error code
#     no_mlir at $.module.text naming the path that was tried.
# With -DCLI, -DSRC, -DWORK.
file(MAKE_DIRECTORY ${WORK})
set(missing ${WORK}/no-such-dir/libcachekey-mlir.so)
set(ENV{CACHEKEY_MLIR_PLUGIN} ${missing})

execute_process(COMMAND ${CLI} explain ${SRC}/fixtures/add_1x1.json
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
file(READ ${SRC}/fixtures/add_1x1.json fx)
string(JSON key GET "${fx}" expected key)
if(NOT rc EQUAL 0 OR NOT out MATCHES "key: ${key}")
  message(FATAL_ERROR "captured bytes without the plugin: rc=${rc} ${err}")
endif()

file(GLOB logs ${SRC}/tests/cases/11-*/*.log)
list(LENGTH logs n)
if(NOT n EQUAL 2)
  message(FATAL_ERROR "expected two logs in tests/cases/11-*, found ${n}")
endif()
list(GET logs 0 log_a)
list(GET logs 1 log_b)
execute_process(COMMAND ${CLI} compare-logs ${log_a} ${log_b}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(rc GREATER 1 OR NOT out MATCHES "Summary:")
  message(FATAL_ERROR "compare-logs without the plugin: rc=${rc} ${err}")
endif()

file(WRITE ${WORK}/text.json
  "{\"schema\":1,\"base\":\"add_1x1\",\"module\":{\"text\":\"module @jit_f {\\n}\"}}")
execute_process(COMMAND ${CLI} explain ${WORK}/text.json --json
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_QUIET)
string(JSON code ERROR_VARIABLE e1 GET "${out}" error code)
string(JSON path ERROR_VARIABLE e2 GET "${out}" error path)
string(JSON message ERROR_VARIABLE e3 GET "${out}" error message)
string(FIND "${message}" "${missing}" at)
if(NOT rc EQUAL 2 OR NOT code STREQUAL "no_mlir" OR NOT path STREQUAL "$.module.text"
   OR at EQUAL -1)
  message(FATAL_ERROR "module text without the plugin: rc=${rc} code=${code} path=${path}: ${out}")
endif()

# And with the plugin where the build puts it, the same scenario is explained.
unset(ENV{CACHEKEY_MLIR_PLUGIN})
execute_process(COMMAND ${CLI} explain ${WORK}/text.json
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0 OR NOT out MATCHES "MLIR19")
  message(FATAL_ERROR "module text with the plugin: rc=${rc} ${err}")
endif()
