// Fuzzes the JAX-log reader and the comparison behind `compare-logs` and
// the page's log reader, up to their facts (LogSummary, LogComparison). The
// input is two logs separated by a 0x01 byte; the first is also fed in
// chunks of varying size, which must read the same. The words written from
// the facts (the text report, the JSON) are fuzz_log_report's.
//
// One in three inputs (by its size, which libFuzzer varies freely,
// independently of the bytes) is also read in chunks and checked against
// its whole read: every path is taken, by a share of the inputs, at more
// inputs a second than reading each one three times (issue 40: at least
// 5,000 a second under ASan).
#include "cachekey/LogCompare.h"

using namespace cachekey;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string_view text(reinterpret_cast<const char *>(data), size);
  size_t cut = text.find('\x01');
  bool two = cut != std::string_view::npos;
  std::string_view a = text.substr(0, cut);
  LogSummary whole = readLog(a, "log A");
  std::optional<LogSummary> parts;
  if (size % 3 == 0 || !two) {
    // Without a separator the log is compared with itself: its chunked read
    // is the second log, so each byte is read twice, not three times.
    LogReader chunked(two ? "log A" : "log B");
    for (size_t i = 0, step = 1; i < a.size(); i += step, step = step * 3 % 17 + 1)
      chunked.feed(a.substr(i, step));
    parts = chunked.finish();
    if (whole.programs.size() != parts->programs.size() || whole.lines != parts->lines)
      __builtin_trap();
  }
  // An error (a log without a key) is an answer too; a crash is not.
  (void)compareLogSummaries(std::move(whole),
                            two ? readLog(text.substr(cut + 1), "log B") : std::move(*parts));
  return 0;
}
