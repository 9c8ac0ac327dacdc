//===- Flags.cpp - Entry 4: XLA flags -------------------------------------===//
#include "cachekey/Flags.h"
#include "cachekey/StringExtras.h"

#include "cachekey/PyText.h"

#include <algorithm>
#include <unordered_set>

namespace cachekey {

const char *flagSourceName(FlagSource source) {
  switch (source) {
  case FlagSource::XlaFlags: return "XLA_FLAGS";
  case FlagSource::LibtpuInitArgs: return "LIBTPU_INIT_ARGS";
  case FlagSource::Argv: return "argv";
  }
  return "?";
}

std::vector<FlagStep> collectFlags(const FlagInputs &in, Profile profile) {
  std::vector<FlagStep> steps;
  auto add = [&](std::string flag, FlagSource source) {
    FlagStep step;
    step.flag = std::move(flag);
    step.source = source;
    step.collected = steps.size();
    steps.push_back(std::move(step));
  };
  // An unset or empty variable contributes nothing (Python `if value:`).
  if (in.xlaFlags && !in.xlaFlags->empty())
    for (auto &f : pySplit(*in.xlaFlags))
      add(std::move(f), FlagSource::XlaFlags);
  if (in.libtpuInitArgs && !in.libtpuInitArgs->empty())
    for (auto &f : pySplit(*in.libtpuInitArgs))
      add(std::move(f), FlagSource::LibtpuInitArgs);
  for (const auto &arg : in.argv) {
    bool take = startsWith(arg, "--xla");
    for (const auto &p : in.extraPrefixes)
      take = take || startsWith(arg, p);
    if (take)
      add(arg, FlagSource::Argv);
  }
  // Python sorts str by code point, which is the byte order of UTF-8.
  std::stable_sort(steps.begin(), steps.end(),
                   [](const FlagStep &a, const FlagStep &b) {
                     return a.flag < b.flag;
                   });
  const auto &excluded = excludedFlagNames(profile);
  std::unordered_set<std::string> excludedSet(excluded.begin(), excluded.end());
  for (auto &step : steps) {
    step.name = flagName(step.flag);
    step.included = excludedSet.count(step.name) == 0;
    if (step.included)
      step.hashed = hashStringBytes(step.flag);
  }
  return steps;
}

std::string flagLogLine(const FlagStep &step) {
  return (step.included ? "Including XLA flag in cache key: "
                        : "Not including XLA flag in cache key: ") +
         step.flag;
}

std::vector<LoggedFlag> loggedFlags(const std::vector<FlagStep> &steps) {
  std::vector<LoggedFlag> out;
  out.reserve(steps.size());
  for (const auto &f : steps)
    out.push_back({f.included, f.flag});
  return out;
}

} // namespace cachekey
