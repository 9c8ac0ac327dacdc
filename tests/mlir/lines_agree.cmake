# Through the CLI: the lines_a / lines_b modules (same function at two source
# lines) give identical canonical bytes, and different include-metadata bytes.
# With -DCLI, -DA, -DB (fixture JSONs), -DWORK.
file(MAKE_DIRECTORY ${WORK})
foreach(side A B)
  file(READ ${${side}} doc)
  string(JSON text GET "${doc}" capture module_generic)
  file(WRITE ${WORK}/${side}.mlir "${text}")
  foreach(mode canonical meta)
    set(flag "")
    if(mode STREQUAL "meta")
      set(flag --include-metadata)
    endif()
    execute_process(COMMAND ${CLI} canonicalize ${WORK}/${side}.mlir ${flag}
                    OUTPUT_FILE ${WORK}/${side}_${mode}.bc RESULT_VARIABLE rc)
    if(NOT rc EQUAL 0)
      message(FATAL_ERROR "cachekey canonicalize ${side} ${mode} failed")
    endif()
  endforeach()
endforeach()
execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files
                ${WORK}/A_canonical.bc ${WORK}/B_canonical.bc RESULT_VARIABLE same)
execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files
                ${WORK}/A_meta.bc ${WORK}/B_meta.bc RESULT_VARIABLE differ)
if(NOT same EQUAL 0)
  message(FATAL_ERROR "canonical bytes of lines_a and lines_b differ")
endif()
if(differ EQUAL 0)
  message(FATAL_ERROR "include-metadata bytes of lines_a and lines_b are equal")
endif()
