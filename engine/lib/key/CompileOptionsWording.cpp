//===- CompileOptionsWording.cpp - The words of the cache-key edits -------===//
//
// The one place that says in English what JAX's cache-key edits of entry 5
// changed (CacheKeyEdit, CompileOptions.h), for `explain --trace` and the
// result's "compile_options" JSON. No code parses a sentence this writes.
//
//===----------------------------------------------------------------------===//
#include "cachekey/CompileOptions.h"

#include "CompileOptionsDetail.h"

namespace cachekey {

const char *cacheKeyEditCode(CacheKeyEdit::Code code) {
  switch (code) {
  case CacheKeyEdit::Code::Zeroed: return "zeroed";
  case CacheKeyEdit::Code::Renumbered: return "renumbered";
  case CacheKeyEdit::Code::Dropped: return "dropped";
  }
  return "";
}

std::string cacheKeyEditText(const CacheKeyEdit &e) {
  using C = CacheKeyEdit::Code;
  switch (e.code) {
  case C::Zeroed:
    return "DebugOptions." + e.name + " (field " + std::to_string(e.number) +
           ") " + e.before + " → " + e.after +
           (e.zero == CacheKeyEdit::Zero::NotWritten
                ? " (a zero is not written: proto3 implicit presence in this "
                  "jaxlib)"
            : e.zero == CacheKeyEdit::Zero::Added
                ? " (added: explicit presence keeps the zero)"
                : "");
  case C::Renumbered:
    return "device assignment " + e.before + " renumbered to " + e.after +
           " (platform is gpu)";
  case C::Dropped:
    return "env_option_overrides[" + detail::jsonQuoted(e.name) +
           "] dropped (on the exclusion list)";
  }
  return "";
}

} // namespace cachekey
