// Fuzzes the JAX-log reader behind "paste two logs".
#include "cachekey/Trace.h"

using namespace cachekey;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string text(reinterpret_cast<const char *>(data), size);
  size_t cut = text.find('\x01');
  std::string a = text.substr(0, cut);
  std::string b = cut == std::string::npos ? text : text.substr(cut + 1);
  ParsedLog log = parseLog(a);
  for (const auto &k : log.keys)
    (void)singlePassFlags(k);
  auto c = compareLogs(a, b);
  if (c && c->sentence.empty())
    __builtin_trap();
  return 0;
}
