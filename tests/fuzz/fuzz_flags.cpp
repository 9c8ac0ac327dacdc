// Fuzzes the flag collector: the input is split into XLA_FLAGS,
// LIBTPU_INIT_ARGS, argv elements and prefixes at 0x00 bytes.
#include "cachekey/Flags.h"
#include "cachekey/PyText.h"

using namespace cachekey;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string s(reinterpret_cast<const char *>(data), size);
  std::vector<std::string> parts;
  size_t start = 0;
  for (size_t i = 0; i <= s.size(); ++i)
    if (i == s.size() || s[i] == '\0') {
      parts.push_back(s.substr(start, i - start));
      start = i + 1;
    }
  FlagInputs in;
  in.xlaFlags = parts[0];
  if (parts.size() > 1)
    in.libtpuInitArgs = parts[1];
  for (size_t i = 2; i < parts.size(); ++i)
    (i % 3 == 0 ? in.extraPrefixes : in.argv).push_back(parts[i]);
  for (const ProfileSpec &spec : allProfiles()) {
    auto steps = collectFlags(in, spec.profile);
    for (size_t i = 1; i < steps.size(); ++i)
      if (steps[i].flag < steps[i - 1].flag)
        __builtin_trap(); // must be sorted
    for (const auto &step : steps) {
      if (step.name != flagName(step.flag))
        __builtin_trap();
      (void)flagLogLine(step);
    }
  }
  return 0;
}
