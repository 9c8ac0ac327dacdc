// Fuzzes the JAX-log reader and comparison behind `compare-logs` and the
// page's log reader. The input is two logs separated by a 0x01 byte; the
// first is also fed in chunks of varying size, which must read the same.
//
// Each input takes some of the checks, chosen by its size (which libFuzzer
// varies freely, independently of the bytes): every input is read and
// compared; one in three is also read in chunks and checked against its
// whole read; the text report and the JSON each go with one input in two,
// on different halves. Every path is still taken, by a share of the inputs,
// at about twice the inputs a second of running every check on each (issue
// 40: at least 5,000 a second under ASan).
#include "cachekey/LogCompare.h"

#include <sstream>

using namespace cachekey;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string text(reinterpret_cast<const char *>(data), size);
  size_t cut = text.find('\x01');
  bool two = cut != std::string::npos;
  std::string a = text.substr(0, cut);
  const bool chunks = size % 3 == 0, words = size % 2 == 0;
  LogSummary whole = readLog(a, "log A");
  std::optional<LogSummary> parts;
  if (chunks || !two) {
    // Without a separator the log is compared with itself: its chunked read
    // is the second log, so each byte is read twice, not three times.
    LogReader chunked(two ? "log A" : "log B");
    for (size_t i = 0, step = 1; i < a.size(); i += step, step = step * 3 % 17 + 1)
      chunked.feed(std::string_view(a).substr(i, step));
    parts = chunked.finish();
    if (whole.programs.size() != parts->programs.size() || whole.lines != parts->lines)
      __builtin_trap();
  }
  auto c = compareLogSummaries(
      std::move(whole),
      two ? readLog(std::string_view(text).substr(cut + 1), "log B") : std::move(*parts));
  if (!c)
    return 0;
  if (words) {
    // The CLI's text always says the verdict first and a summary.
    std::string report = formatLogComparison(*c);
    if (report.rfind("Verdict: ", 0) != 0 || report.find("\nSummary: ") == std::string::npos)
      __builtin_trap();
  } else {
    // As the page's worker writes it (one line, pair by pair).
    std::ostringstream json;
    writeLogComparisonJson(json, *c, Json::object(), -1);
  }
  return 0;
}
