//===- Trace.cpp - JAX's DEBUG trace --------------------------------------===//
#include "cachekey/Trace.h"
#include "cachekey/Key.h"

namespace cachekey {

namespace {
const char kFresh[] = "get_cache_key hash of serialized ";
const char kRunning[] = "get_cache_key hash after serializing ";
} // namespace

const char *traceLevelName(TraceLevel level) {
  return level == TraceLevel::Info ? "info" : "debug";
}

std::vector<TraceLine> traceLines(const KeyResult &r, const Scenario &s) {
  std::vector<TraceLine> lines;
  for (int i = 0; i < kNumEntries; ++i) {
    const EntryResult &e = r.entries[i];
    if (!e.hashed)
      continue;
    // The real pass, then the fresh pass: side effects (log lines) twice.
    for (int pass = 0; pass < 2; ++pass) {
      if (i == 3)
        for (const auto &f : r.flags)
          lines.push_back({TraceLevel::Debug, flagLogLine(f)});
      if (i == 5 && r.accelerator.fallback)
        lines.push_back({TraceLevel::Info,
                         fallbackLogLine(std::get<DeviceKinds>(s.accelerator),
                                         r.profile)});
    }
    lines.push_back({TraceLevel::Debug, kFresh + e.name + ": " + toHex(e.digest)});
    lines.push_back(
        {TraceLevel::Debug, kRunning + e.name + ": " + toHex(e.running)});
  }
  return lines;
}

} // namespace cachekey
