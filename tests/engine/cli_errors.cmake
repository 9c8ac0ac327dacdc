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
execute_process(COMMAND ${CLI} explain ${SRC}/fixtures/add_1x1.json
                RESULT_VARIABLE rc OUTPUT_VARIABLE out)
file(READ ${SRC}/fixtures/add_1x1.json fx)
string(JSON key GET "${fx}" expected key)
if(NOT rc EQUAL 0 OR NOT out MATCHES "key: ${key}")
  message(FATAL_ERROR "explain did not print the fixture's real key ${key}")
endif()
