# Runs the CLI on bad input and checks the exit status and message.
file(WRITE ${CMAKE_CURRENT_BINARY_DIR}/bad.json "{\"schema\": 1, \"base\": \"add_1x1\", \"jaxlib_version\": 5}")
execute_process(COMMAND ${CLI} explain ${CMAKE_CURRENT_BINARY_DIR}/bad.json
                RESULT_VARIABLE rc ERROR_VARIABLE err OUTPUT_QUIET)
if(NOT rc EQUAL 2)
  message(FATAL_ERROR "expected exit 2, got ${rc}")
endif()
if(NOT err MATCHES "\\$\\.jaxlib_version: expected a string")
  message(FATAL_ERROR "unexpected message: ${err}")
endif()
# With --json the same error is also written to stdout as JSON, with its code.
execute_process(COMMAND ${CLI} explain ${CMAKE_CURRENT_BINARY_DIR}/bad.json --json
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_QUIET)
string(JSON code ERROR_VARIABLE jerr GET "${out}" error code)
string(JSON path ERROR_VARIABLE jerr2 GET "${out}" error path)
string(JSON source ERROR_VARIABLE jerr3 GET "${out}" error source)
if(NOT rc EQUAL 2 OR NOT code STREQUAL "type" OR NOT path STREQUAL "$.jaxlib_version"
   OR NOT source STREQUAL "${CMAKE_CURRENT_BINARY_DIR}/bad.json")
  message(FATAL_ERROR "--json error output: rc=${rc} code=${code} path=${path} source=${source}: ${out}")
endif()
# A byte that is not UTF-8 is a syntax error, also with --json (no abort).
string(ASCII 255 ff)
file(WRITE ${CMAKE_CURRENT_BINARY_DIR}/not_utf8.json "{\"schema\":1,\"base\":\"add_1x1\",\"custom_hook\":\"${ff}\"}")
execute_process(COMMAND ${CLI} explain ${CMAKE_CURRENT_BINARY_DIR}/not_utf8.json --json
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_QUIET)
string(JSON code ERROR_VARIABLE jerr GET "${out}" error code)
if(NOT rc EQUAL 2 OR NOT code STREQUAL "syntax")
  message(FATAL_ERROR "non-UTF-8 input with --json: rc=${rc} code=${code}: ${out}")
endif()
execute_process(COMMAND ${CLI} explain ${SRC}/fixtures/add_1x1.json
                RESULT_VARIABLE rc OUTPUT_VARIABLE out)
file(READ ${SRC}/fixtures/add_1x1.json fx)
string(JSON key GET "${fx}" expected key)
if(NOT rc EQUAL 0 OR NOT out MATCHES "key: ${key}")
  message(FATAL_ERROR "explain did not print the fixture's real key ${key}")
endif()
