// Fuzzes what `compare-logs` and the page write from a comparison of two
// JAX logs: the text report (the CLI's) and the JSON (the page's worker
// writes it a pair to a line). The input is two logs separated by a 0x01
// byte (one alone is compared with itself), read whole; the reading itself
// is fuzz_log's. Even sizes write the text, odd ones the JSON (libFuzzer
// varies the size freely, independently of the bytes).
#include "cachekey/LogCompare.h"

#include <sstream>

using namespace cachekey;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string_view text(reinterpret_cast<const char *>(data), size);
  size_t cut = text.find('\x01');
  std::string_view a = text.substr(0, cut);
  std::string_view b = cut == std::string_view::npos ? a : text.substr(cut + 1);
  auto c = compareLogSummaries(readLog(a, "log A"), readLog(b, "log B"));
  if (!c)
    return 0; // a log without a key: an error, with nothing to write
  if (size % 2 == 0) {
    // The CLI's text always says the verdict first and a summary.
    std::string report = formatLogComparison(*c);
    if (report.rfind("Verdict: ", 0) != 0 || report.find("\nSummary: ") == std::string::npos)
      __builtin_trap();
  } else {
    std::ostringstream json;
    writeLogComparisonJson(json, *c, Json::object(), -1);
  }
  return 0;
}
