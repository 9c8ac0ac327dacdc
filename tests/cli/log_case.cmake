# Runs `cachekey compare-logs` and `cachekey diff` on one folder of
# tests/cases (CASE) as a user would, and checks what a script can rely on:
# the exit status (1 when a key differs or run b logged a miss, else 0;
# the miss read here with a plain match of JAX's miss lines in b: compiler.py's
# "PERSISTENT COMPILATION CACHE MISS for", or jax 0.4.30's lru_cache "Cache
# miss for key: "), the program lines, the
# summary line, the "What to do:" line (or its list) last, and that --json is JSON with the same cause as expect.json.
file(READ ${CASE}/expect.json expect)
foreach(kind compare diff)
  string(JSON n ERROR_VARIABLE missing LENGTH "${expect}" ${kind})
  if(missing OR n EQUAL 0)
    continue()
  endif()
  math(EXPR last "${n} - 1")
  foreach(i RANGE ${last})
    string(JSON a GET "${expect}" ${kind} ${i} a)
    string(JSON b GET "${expect}" ${kind} ${i} b)
    string(JSON cause ERROR_VARIABLE nocause GET "${expect}" ${kind} ${i} cause)
    if(kind STREQUAL "compare")
      execute_process(COMMAND ${CLI} compare-logs ${a} ${b} WORKING_DIRECTORY ${CASE}
                      RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
      string(JSON differ GET "${expect}" ${kind} ${i} keys_differ)
      file(STRINGS ${CASE}/${b} missed REGEX "PERSISTENT COMPILATION CACHE MISS for|Cache miss for key: ")
      if(differ OR missed)
        set(want 1)
      else()
        set(want 0)
      endif()
      if(NOT rc EQUAL want)
        message(FATAL_ERROR "${a} vs ${b}: exit ${rc}, expected ${want}\n${out}${err}")
      endif()
      if(NOT out MATCHES "\nPrograms \\(paired by [a-z ]+\\):\n" OR
         NOT out MATCHES "\nSummary: ${b}: [^\n]+\nWhat to do:( [^\n]+)?\n(  - [^\n]+\n)*$")
        message(FATAL_ERROR "${a} vs ${b}: no program list, summary line or what to do:\n${out}")
      endif()
      execute_process(COMMAND ${CLI} compare-logs ${a} ${b} --json WORKING_DIRECTORY ${CASE}
                      OUTPUT_VARIABLE json)
    else()
      execute_process(COMMAND ${CLI} diff ${a} ${b} WORKING_DIRECTORY ${CASE}
                      RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
      if(rc GREATER 1)
        message(FATAL_ERROR "${a} vs ${b}: exit ${rc}\n${err}")
      endif()
      execute_process(COMMAND ${CLI} diff ${a} ${b} --json WORKING_DIRECTORY ${CASE}
                      OUTPUT_VARIABLE json)
    endif()
    string(JSON got ERROR_VARIABLE bad GET "${json}" cause)
    if(bad)
      message(FATAL_ERROR "${a} vs ${b}: --json is not JSON with a cause: ${bad}")
    endif()
    if(NOT nocause AND NOT got EQUAL cause)
      message(FATAL_ERROR "${a} vs ${b}: --json cause ${got}, expected ${cause}")
    endif()
  endforeach()
endforeach()
