//===- RootCause.cpp - One change, however many entries it moves ----------===//
#include "cachekey/RootCause.h"

#include "cachekey/CompileOptions.h"
#include "cachekey/PyText.h"

#include <algorithm>

namespace cachekey {

std::string bareFlagName(const std::string &flag) {
  std::string name = flagName(flag);
  size_t i = name.find_first_not_of('-');
  return i == std::string::npos ? "" : name.substr(i);
}

bool flagChangesCpuTarget(const std::string &name) {
  // XLA's CPU client builds its target machine (the model and features that
  // CpuTopologyProto carries) with the ISA ceiling this flag sets; measured
  // with jax 0.10.2: entries 4, 5 and 6 move (tests/cases/12-cpu-max-isa).
  return name == "xla_cpu_max_isa";
}

bool flagReachesCompileOptions(const std::string &name,
                               const std::optional<Profile> &profile) {
  const DebugOptionField *field = findDebugOption(name);
  if (!field)
    return false;
  // Without a known release, a field some release zeroes is not claimed.
  std::vector<Profile> profiles;
  if (profile)
    profiles.push_back(*profile);
  else
    for (const char *id : {"main", "0.10.2"})
      if (auto p = parseProfile(id))
        profiles.push_back(*p);
  for (Profile p : profiles)
    for (const auto &z : zeroedDebugFields(p))
      if (z.number == field->number)
        return false;
  return true;
}

namespace {

/// The changed flags (bare names) that reach entry 5: XLA parses them into a
/// DebugOptions field the profile does not zero and, when the fields are
/// known (scenarios), that field differs.
std::vector<std::string> flagsIntoDebugOptions(const ChangeEvidence &ev,
                                               const std::vector<std::string> &names) {
  std::vector<std::string> out;
  for (const auto &n : names) {
    if (!flagReachesCompileOptions(n, ev.profile))
      continue;
    if (ev.debugFields && std::find(ev.debugFields->begin(), ev.debugFields->end(),
                                    n) == ev.debugFields->end())
      continue;
    out.push_back(n);
  }
  return out;
}

} // namespace

std::vector<CauseGroup> groupMovedEntries(const std::array<bool, kNumEntries> &own,
                                          const ChangeEvidence &ev) {
  std::array<bool, kNumEntries> left = own;
  std::vector<CauseGroup> groups;
  auto take = [&](CauseGroup &g, int entry) {
    if (left[entry - 1] && entry != g.entry) {
      g.linked.push_back(entry);
      left[entry - 1] = false;
    }
  };
  if (left[1]) {
    CauseGroup g{2, {}, {}};
    left[1] = false;
    for (int e : {1, 5, 6})
      take(g, e);
    if (!g.linked.empty())
      g.link.code = CauseLink::Code::NewJaxlib;
    groups.push_back(g);
  }
  if (left[3]) {
    CauseGroup g{4, {}, {}};
    left[3] = false;
    if (left[4]) {
      // Every XLA flag in XLA_FLAGS is parsed into DebugOptions; the kept
      // ones and the excluded ones alike reach entry 5 unless zeroed.
      std::vector<std::string> all = ev.keptFlags;
      all.insert(all.end(), ev.excludedFlags.begin(), ev.excludedFlags.end());
      g.link.debugFlags = flagsIntoDebugOptions(ev, all);
      if (!g.link.debugFlags.empty())
        take(g, 5);
    }
    if (left[5]) {
      for (const auto &n : ev.keptFlags)
        if (flagChangesCpuTarget(n))
          g.link.cpuFlags.push_back(n);
      if (!g.link.cpuFlags.empty())
        take(g, 6);
    }
    if (!g.linked.empty())
      g.link.code = CauseLink::Code::XlaFlags;
    groups.push_back(g);
  }
  for (int e = 1; e <= kNumEntries; ++e)
    if (left[e - 1])
      groups.push_back({e, {}, {}});
  // The jaxlib group stays first; the rest follow entry order.
  auto firstOther = groups.begin() + (own[1] ? 1 : 0);
  std::stable_sort(firstOther, groups.end(),
                   [](const CauseGroup &a, const CauseGroup &b) {
                     return a.entry < b.entry;
                   });
  return groups;
}

} // namespace cachekey
