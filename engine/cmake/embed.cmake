# Writes OUTPUT: a C++ source defining `const char SYMBOL[]` with the text of
# INPUT (or FALLBACK when INPUT does not exist), in namespace cachekey.
if(EXISTS "${INPUT}")
  file(READ "${INPUT}" content)
else()
  set(content "${FALLBACK}")
endif()
file(WRITE "${OUTPUT}.tmp"
  "// Generated from ${INPUT} by engine/cmake/embed.cmake. Do not edit.\n"
  "namespace cachekey {\nextern const char ${SYMBOL}[];\n"
  "const char ${SYMBOL}[] = R\"cachekey_embed(${content})cachekey_embed\";\n}\n")
file(COPY_FILE "${OUTPUT}.tmp" "${OUTPUT}" ONLY_IF_DIFFERENT)
