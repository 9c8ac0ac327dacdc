//===- Trace.cpp - JAX's DEBUG trace --------------------------------------===//
#include "cachekey/Trace.h"

namespace cachekey {

namespace {
const char kFresh[] = "get_cache_key hash of serialized ";
const char kRunning[] = "get_cache_key hash after serializing ";
} // namespace

std::vector<std::string> traceLines(const KeyResult &r, const Scenario &s) {
  std::vector<std::string> lines;
  for (int i = 0; i < kNumEntries; ++i) {
    const EntryResult &e = r.entries[i];
    if (!e.hashed)
      continue;
    // The real pass, then the fresh pass: side effects (log lines) twice.
    for (int pass = 0; pass < 2; ++pass) {
      if (i == 3)
        for (const auto &f : r.flags)
          lines.push_back(flagLogLine(f));
      if (i == 5 && r.accelerator.fallback)
        lines.push_back(
            fallbackLogLine(std::get<DeviceKinds>(s.accelerator), r.profile));
    }
    lines.push_back(kFresh + e.name + ": " + toHex(e.digest));
    lines.push_back(kRunning + e.name + ": " + toHex(e.running));
  }
  return lines;
}

} // namespace cachekey
