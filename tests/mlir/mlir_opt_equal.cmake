# Our entry-1 bytes for a captured module must equal mlir-opt's
#   mlir-opt --allow-unregistered-dialect --strip-debuginfo --emit-bytecode
# from the same MLIR release: an independent computation of the same thing.
#
# mlir-opt 19 cannot read the range locations jaxlib's MLIR 23 prints
# (`"f.py":3:4 to :9`), so its input has them cut to the start point with a
# regular expression here, independently of the library's own rewrite. Our
# CLI reads the captured text as it is.
#
# With -DCLI, -DMLIR_OPT, -DFIXTURE (a fixture JSON), -DWORK (scratch dir).
file(MAKE_DIRECTORY ${WORK})
file(READ ${FIXTURE} doc)
string(JSON text GET "${doc}" capture module_generic)
file(WRITE ${WORK}/module.mlir "${text}")
string(REGEX REPLACE "(\":[0-9]+:[0-9]+) to [0-9]*:[0-9]+" "\\1" cut "${text}")
file(WRITE ${WORK}/module19.mlir "${cut}")

function(run out)
  execute_process(COMMAND ${ARGN} OUTPUT_FILE ${out} ERROR_VARIABLE err
                  RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${ARGN} failed (${rc}): ${err}")
  endif()
endfunction()

function(expect_same a b what)
  execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files ${a} ${b}
                  RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${what}: ${a} and ${b} differ")
  endif()
  file(SIZE ${a} size)
  message(STATUS "${what}: identical (${size} bytes)")
endfunction()

run(${WORK}/mlir_opt.bc ${MLIR_OPT} --allow-unregistered-dialect
    --strip-debuginfo --emit-bytecode ${WORK}/module19.mlir)
foreach(profile main 0.10.2)
  run(${WORK}/ours_${profile}.bc ${CLI} canonicalize ${WORK}/module.mlir
      --profile ${profile})
  expect_same(${WORK}/ours_${profile}.bc ${WORK}/mlir_opt.bc
              "canonical, profile ${profile}")
endforeach()

# With include_metadata nothing is stripped: mlir-opt without the pass.
run(${WORK}/mlir_opt_meta.bc ${MLIR_OPT} --allow-unregistered-dialect
    --emit-bytecode ${WORK}/module19.mlir)
run(${WORK}/ours_meta.bc ${CLI} canonicalize ${WORK}/module.mlir
    --include-metadata)
expect_same(${WORK}/ours_meta.bc ${WORK}/mlir_opt_meta.bc "include-metadata")
