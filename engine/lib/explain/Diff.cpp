//===- Diff.cpp - Which ingredient moved ----------------------------------===//
#include "cachekey/Diff.h"
#include "cachekey/ModuleDiff.h"

#include "cachekey/PyText.h"
#include "cachekey/Sha256.h"
#include "cachekey/Wording.h"

#include <algorithm>
#include <cstdio>
#include <iterator>
#include <map>

namespace cachekey {

EntryRole Comparison::role(int index) const {
  auto has = [index](const std::vector<int> &xs) {
    return std::find(xs.begin(), xs.end(), index) != xs.end();
  };
  if (cause != 0 && index == cause)
    return EntryRole::Cause;
  if (has(withCause))
    return EntryRole::WithCause;
  if (has(alsoChanged))
    return EntryRole::AlsoChanged;
  if (has(consequences))
    return EntryRole::Consequence;
  return EntryRole::Same;
}

const char *entryRoleCode(EntryRole role) {
  switch (role) {
#define ENTRY_ROLE(Name, code, words) case EntryRole::Name: return code;
#include "cachekey/EntryRoles.def"
  }
  return "same";
}

std::vector<FlagChange> flagChanges(const std::vector<LoggedFlag> &a,
                                    const std::vector<LoggedFlag> &b,
                                    bool excluded) {
  // Multisets of kept flags (excluded flags never reach the hash), or of
  // the excluded ones when those are asked for.
  std::map<std::string, int> count, inA, inB;
  for (auto &f : a)
    if (f.kept != excluded) {
      count[f.flag]--;
      inA[f.flag]++;
    }
  for (auto &f : b)
    if (f.kept != excluded) {
      count[f.flag]++;
      inB[f.flag]++;
    }
  std::vector<std::string> removed, added;
  for (auto &kv : count) {
    for (int i = 0; i < -kv.second; ++i)
      removed.push_back(kv.first);
    for (int i = 0; i < kv.second; ++i)
      added.push_back(kv.first);
  }
  std::vector<FlagChange> out;
  // A flag that is on both sides, only given more (or fewer) times: one
  // change for it, whatever the number of copies added or removed.
  auto repeatedOr = [&](FlagChange::Kind kind, const std::string &flag) {
    if (inA[flag] == 0 || inB[flag] == 0) {
      out.push_back({kind, flag, ""});
      return;
    }
    for (const FlagChange &c : out)
      if (c.kind == FlagChange::Kind::Repeated && c.flag == flag)
        return;
    FlagChange c{FlagChange::Kind::Repeated, flag, ""};
    c.times = inB[flag];
    c.previousTimes = inA[flag];
    out.push_back(std::move(c));
  };
  std::vector<bool> usedRemoved(removed.size(), false);
  for (const auto &add : added) {
    bool paired = false;
    for (size_t i = 0; i < removed.size() && !paired; ++i) {
      if (!usedRemoved[i] && flagName(removed[i]) == flagName(add)) {
        usedRemoved[i] = paired = true;
        out.push_back({FlagChange::Kind::Replaced, add, removed[i]});
      }
    }
    if (!paired)
      repeatedOr(FlagChange::Kind::Added, add);
  }
  for (size_t i = 0; i < removed.size(); ++i)
    if (!usedRemoved[i])
      repeatedOr(FlagChange::Kind::Removed, removed[i]);
  if (out.empty())
    out.push_back({FlagChange::Kind::Regrouped, "", ""});
  return out;
}

void changedFlagNames(const std::vector<LoggedFlag> &a,
                      const std::vector<LoggedFlag> &b,
                      std::vector<std::string> &kept,
                      std::vector<std::string> &excluded) {
  std::map<LoggedFlag, int> count;
  for (const auto &f : a)
    count[f]--;
  for (const auto &f : b)
    count[f]++;
  for (const auto &kv : count) {
    if (kv.second == 0)
      continue;
    auto &list = kv.first.kept ? kept : excluded;
    std::string name = bareFlagName(kv.first.flag);
    if (std::find(list.begin(), list.end(), name) == list.end())
      list.push_back(name);
  }
}

namespace {

/// "+a,+b,-c" → the names enabled with '+'.
std::vector<std::string> enabledFeatures(const std::string &features) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= features.size()) {
    size_t end = features.find(',', start);
    if (end == std::string::npos)
      end = features.size();
    std::string f = features.substr(start, end - start);
    if (!f.empty() && f[0] == '+')
      out.push_back(f.substr(1));
    start = end + 1;
  }
  std::sort(out.begin(), out.end());
  return out;
}

/// Device ids as the reader names them: "3", or "1:3" off process 0.
std::vector<std::string> deviceIds(const std::vector<CpuDevice> &devices) {
  std::vector<std::string> ids;
  for (const auto &d : devices)
    ids.push_back(d.processIndex == 0
                      ? std::to_string(d.localHardwareId)
                      : std::to_string(d.processIndex) + ":" +
                            std::to_string(d.localHardwareId));
  return ids;
}

EntryChange change(EntryChange::Code code, int entry, std::string before = "",
                   std::string after = "", std::string subject = "") {
  EntryChange c;
  c.code = code;
  c.entry = entry;
  c.before = std::move(before);
  c.after = std::move(after);
  c.subject = std::move(subject);
  return c;
}

void cpuChanges(const CpuTopology &a, const CpuTopology &b,
                std::vector<EntryChange> &out) {
  using C = EntryChange::Code;
  if (a.cpu != b.cpu)
    out.push_back(change(C::CpuModel, 6, a.cpu, b.cpu));
  if (a.triple != b.triple)
    out.push_back(change(C::TargetTriple, 6, a.triple, b.triple));
  if (a.features != b.features) {
    auto fa = enabledFeatures(a.features), fb = enabledFeatures(b.features);
    std::vector<std::string> added, removed;
    std::set_difference(fb.begin(), fb.end(), fa.begin(), fa.end(),
                        std::back_inserter(added));
    std::set_difference(fa.begin(), fa.end(), fb.begin(), fb.end(),
                        std::back_inserter(removed));
    if (!added.empty()) {
      out.push_back(change(C::CpuFeaturesAdded, 6));
      out.back().names = added;
    }
    if (!removed.empty()) {
      out.push_back(change(C::CpuFeaturesRemoved, 6));
      out.back().names = removed;
    }
    if (added.empty() && removed.empty())
      out.push_back(change(C::CpuFeaturesRewritten, 6));
  }
  // Ids are shown 8 at most: ids that differ only after those are not a
  // change a reader can see.
  auto ia = deviceIds(a.devices), ib = deviceIds(b.devices);
  auto shown = [](const std::vector<std::string> &ids) {
    return std::vector<std::string>(ids.begin(),
                                    ids.begin() + std::min<size_t>(ids.size(), 8));
  };
  if (a.devices.size() != b.devices.size() || shown(ia) != shown(ib)) {
    EntryChange c = change(a.devices.size() != b.devices.size() ? C::DeviceCount
                                                                : C::DeviceIds,
                           6);
    c.sizeBefore = a.devices.size();
    c.sizeAfter = b.devices.size();
    c.namesBefore = ia;
    c.names = ib;
    out.push_back(std::move(c));
  }
}

void gpuChanges(const GpuTopology &a, const GpuTopology &b,
                std::vector<EntryChange> &out) {
  using C = EntryChange::Code;
  if (a.platformVersion != b.platformVersion)
    out.push_back(change(C::GpuPlatformVersion, 6, a.platformVersion,
                         b.platformVersion));
  auto num = [&](const char *label, int64_t x, int64_t y) {
    if (x != y)
      out.push_back(change(C::GpuCount, 6, std::to_string(x), std::to_string(y),
                           label));
  };
  num("num_partitions", a.numPartitions, b.numPartitions);
  num("num_hosts_per_partition", a.numHostsPerPartition, b.numHostsPerPartition);
  num("num_devices_per_host", a.numDevicesPerHost, b.numDevicesPerHost);
  auto unsetOr = [](const std::optional<int64_t> &n) {
    return n ? std::to_string(*n) : std::string("unset");
  };
  if (a.numDevicesPerProcess != b.numDevicesPerProcess)
    out.push_back(change(C::GpuCount, 6, unsetOr(a.numDevicesPerProcess),
                         unsetOr(b.numDevicesPerProcess),
                         "num_devices_per_process"));
}

const char *specKind(const AcceleratorSpec &s) {
  static const char *kinds[] = {"fingerprint", "cpu_topology", "gpu_topology",
                                "device_kinds"};
  return kinds[s.index()];
}

std::string fingerprintHex(const AcceleratorEntry &e) {
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx",
                static_cast<unsigned long long>(*e.fingerprint));
  return hex;
}

} // namespace

std::vector<EntryChange> acceleratorChanges(const AcceleratorEntry &a,
                                            const AcceleratorEntry &b) {
  using C = EntryChange::Code;
  std::vector<EntryChange> out;
  if (a.spec.index() != b.spec.index()) {
    out.push_back(change(C::AcceleratorKind, 6, specKind(a.spec), specKind(b.spec)));
  } else if (auto *ca = std::get_if<CpuTopology>(&a.spec)) {
    cpuChanges(*ca, std::get<CpuTopology>(b.spec), out);
  } else if (auto *ga = std::get_if<GpuTopology>(&a.spec)) {
    gpuChanges(*ga, std::get<GpuTopology>(b.spec), out);
  } else if (auto *ka = std::get_if<DeviceKinds>(&a.spec)) {
    EntryChange c = change(C::DeviceKinds, 6);
    c.namesBefore = ka->kinds;
    c.names = std::get<DeviceKinds>(b.spec).kinds;
    out.push_back(std::move(c));
  }
  // The fingerprint is what the key hashes, but it says nothing to a
  // reader: it comes last, as detail.
  EntryChange f;
  if (a.fingerprint && b.fingerprint) {
    if (*a.fingerprint != *b.fingerprint || a.standIn != b.standIn)
      f = change(C::Fingerprint, 6, fingerprintHex(a), fingerprintHex(b));
  } else if (a.fingerprint) {
    f = change(C::FingerprintToFallback, 6, fingerprintHex(a));
  } else if (b.fingerprint) {
    f = change(C::FallbackToFingerprint, 6, "", fingerprintHex(b));
  }
  if (f.entry) {
    f.standInBefore = a.fingerprint && a.standIn;
    f.standInAfter = b.fingerprint && b.standIn;
    out.push_back(std::move(f));
  }
  return out;
}

namespace {

using Changes = std::vector<EntryChange>;

/// Entry 1: what the structural module diff (ModuleDiff.h) names, in JAX's
/// terms; else the bytes' first difference, or the digests when a side kept
/// only those; then the sym_name.
Changes programChanges(const KeyResult &a, const KeyResult &b) {
  using C = EntryChange::Code;
  Changes out;
  const EntryResult &ea = a.entries[0], &eb = b.entries[0];
  size_t n = std::min(ea.bytes.size(), eb.bytes.size()), k = 0;
  while (k < n && ea.bytes[k] == eb.bytes[k])
    ++k;
  if (ModuleDiffer differ = moduleDiffer();
      differ && !ea.bytes.empty() && !eb.bytes.empty()) {
    if (auto d = differ(ea.bytes, eb.bytes))
      for (auto &f : d->findings) {
        EntryChange m = change(C::ModuleFinding, 1);
        m.module = std::make_shared<const ModuleFinding>(std::move(f));
        out.push_back(std::move(m));
      }
  }
  // The bytes' first difference only when nothing names the change: a
  // byte offset beside a finding says nothing more.
  if (out.empty() && (ea.bytes.empty() || eb.bytes.empty())) {
    // A side kept as a digest only (a capture with --no-entry1-bytes, a
    // record of cachekey.watch's index): no sizes and no first difference
    // to give, only the digests.
    out.push_back(change(C::Entry1DigestOnly, 1, shortDigest(toHex(ea.digest)),
                         shortDigest(toHex(eb.digest))));
  } else if (out.empty()) {
    EntryChange c = change(C::ModuleBytes, 1);
    c.sizeBefore = ea.bytes.size();
    c.sizeAfter = eb.bytes.size();
    c.firstDifference = k;
    out.push_back(std::move(c));
  }
  if (a.symName != b.symName)
    out.push_back(change(C::SymName, 1, a.symName, b.symName));
  return out;
}

/// Entry 2: the jaxlib version.
Changes jaxlibChanges(const KeyResult &a, const KeyResult &b) {
  return {change(EntryChange::Code::JaxlibVersion, 2, a.entries[1].bytes,
                 b.entries[1].bytes)};
}

/// Entry 3: hashed on one side only (jax 0.6.0 added it), else each part
/// (platform, platform_version, …) whose bytes moved, else the same bytes
/// joined differently.
Changes backendChanges(const KeyResult &a, const KeyResult &b) {
  using C = EntryChange::Code;
  Changes out;
  const EntryResult &ea = a.entries[2], &eb = b.entries[2];
  if (ea.hashed != eb.hashed) {
    out.push_back(change(C::BackendHashedOneSide, 3));
    out.back().firstSide = ea.hashed;
    return out;
  }
  for (size_t i = 0; i < std::min(ea.parts.size(), eb.parts.size()); ++i)
    if (ea.partBytes(i) != eb.partBytes(i))
      out.push_back(change(C::BackendPart, 3, ea.partBytes(i), eb.partBytes(i),
                           ea.parts[i].label));
  if (out.empty())
    out.push_back(change(C::BackendJoined, 3));
  return out;
}

/// Entry 4: each change among the kept flags (flagChanges), with what XLA
/// also made of the flag on the side that has it.
Changes flagsEntryChanges(const KeyResult &a, const KeyResult &b) {
  Changes out;
  for (auto &f : flagChanges(loggedFlags(a.flags), loggedFlags(b.flags))) {
    const KeyResult &side = f.kind == FlagChange::Kind::Removed ? a : b;
    // (a flag given more or fewer times sets nothing new: no entry 5 move)
    if (side.xlaFlags && !f.flag.empty() && f.kind != FlagChange::Kind::Repeated) {
      f.debugFields = xlaFlagDebugFields(*side.xlaFlags, f.flag);
      const std::string name = bareFlagName(f.flag);
      f.cpuClient = (name == "xla_force_host_platform_device_count" &&
                     side.xlaFlagsMovedDevices) ||
                    (name == "xla_cpu_max_isa" && side.xlaFlagsMovedTarget);
    }
    out.push_back(change(EntryChange::Code::Flag, 4));
    out.back().flag = std::move(f);
  }
  return out;
}

/// Entry 5: each field of the hashed compile options that moved.
Changes compileOptionsEntryChanges(const KeyResult &a, const KeyResult &b) {
  Changes out;
  for (auto &f : compileOptionsChanges(a.compileOptions.output,
                                       b.compileOptions.output)) {
    out.push_back(change(EntryChange::Code::CompileOption, 5));
    out.back().field = std::move(f);
  }
  return out;
}

/// Entry 6: acceleratorChanges, or "other bytes" when it names nothing.
Changes acceleratorEntryChanges(const KeyResult &a, const KeyResult &b) {
  Changes out = acceleratorChanges(a.accelerator, b.accelerator);
  if (out.empty())
    out.push_back(change(EntryChange::Code::AcceleratorBytes, 6));
  return out;
}

/// Entry 7: the compression algorithm's name.
Changes compressionChanges(const KeyResult &a, const KeyResult &b) {
  return {change(EntryChange::Code::Compression, 7, a.compression, b.compression)};
}

/// Entry 8: the custom hook's string.
Changes customHookChanges(const KeyResult &a, const KeyResult &b) {
  return {change(EntryChange::Code::CustomHook, 8, a.entries[7].bytes,
                 b.entries[7].bytes)};
}

/// One explainer per entry: kFromResults[i] says what moved inside entry
/// i + 1 between two computed keys. (A comparison of logs has its own, from
/// what a log holds: LogEvidence.cpp's kFromLogs; both give EntryChanges,
/// worded by entryChangeText.)
using ResultExplainer = Changes (*)(const KeyResult &, const KeyResult &);
constexpr ResultExplainer kFromResults[kNumEntries] = {
    programChanges,           jaxlibChanges,        backendChanges,
    flagsEntryChanges,        compileOptionsEntryChanges,
    acceleratorEntryChanges,  compressionChanges,   customHookChanges};

} // namespace

std::vector<EntryChange> entryChanges(const KeyResult &a, const KeyResult &b,
                                      int index) {
  if (index < 1 || index > kNumEntries)
    return {};
  return kFromResults[index - 1](a, b);
}

std::vector<std::string> describeEntryChange(const KeyResult &a,
                                             const KeyResult &b, int index) {
  std::vector<std::string> out;
  for (const auto &c : entryChanges(a, b, index))
    out.push_back(entryChangeText(c));
  return out;
}

std::vector<std::string> describeAcceleratorChange(const AcceleratorEntry &a,
                                                   const AcceleratorEntry &b) {
  std::vector<std::string> out;
  for (const auto &c : acceleratorChanges(a, b))
    out.push_back(entryChangeText(c));
  return out;
}

namespace {
/// Inputs that differ but feed identical bytes: hash-string has no
/// separator, so ["ab", "c"] and ["a", "bc"] collide.
void collisions(const KeyResult &a, const KeyResult &b,
                std::vector<EntryChange> &out) {
  const EntryResult &pa = a.entries[2], &pb = b.entries[2];
  if (pa.parts.size() >= 2 && pb.parts.size() >= 2 && pa.bytes == pb.bytes &&
      (pa.partBytes(0) != pb.partBytes(0) || pa.partBytes(1) != pb.partBytes(1))) {
    out.push_back(change(EntryChange::Code::PlatformCollision, 3));
    out.back().namesBefore = {pa.partBytes(0), pa.partBytes(1)};
    out.back().names = {pb.partBytes(0), pb.partBytes(1)};
  }
  std::vector<std::string> fa, fb;
  for (const auto &f : a.flags)
    if (f.included)
      fa.push_back(f.flag);
  for (const auto &f : b.flags)
    if (f.included)
      fb.push_back(f.flag);
  if (a.entries[3].bytes == b.entries[3].bytes && fa != fb)
    out.push_back(change(EntryChange::Code::FlagsCollision, 4));
  // Inputs that differ only in the whitespace hash-string strips.
  for (int i = 0; i < kNumEntries; ++i) {
    const EntryResult &ea = a.entries[i], &eb = b.entries[i];
    if (ea.parts.size() != eb.parts.size())
      continue;
    for (size_t j = 0; j < ea.parts.size(); ++j) {
      if (ea.parts[j].label != eb.parts[j].label || ea.partBytes(j) != eb.partBytes(j))
        continue;
      std::string ia = ea.partInput(j), ib = eb.partInput(j);
      if (ia != ib)
        out.push_back(change(EntryChange::Code::StrippedEqual, i + 1, ia, ib,
                             ea.parts[j].label));
    }
  }
}

/// Differing inputs that never reach the hash: excluded flags, and
/// compile options that the cache-key edits zero or drop.
void addUnhashedChanges(Comparison &c, const KeyResult &a, const KeyResult &b,
                        const ChangeEvidence &evidence) {
  // An excluded flag whose DebugOptions field moved in entry 5 is hashed
  // after all (RootCause.h).
  auto reachesEntry5 = [&](const std::string &flag) {
    const auto &fields = *evidence.debugFields;
    return std::find(fields.begin(), fields.end(), bareFlagName(flag)) !=
           fields.end();
  };
  std::map<std::string, int> excluded;
  for (const auto &f : a.flags)
    if (!f.included)
      excluded[f.flag]--;
  for (const auto &f : b.flags)
    if (!f.included)
      excluded[f.flag]++;
  for (const auto &kv : excluded)
    if (kv.second != 0 && !reachesEntry5(kv.first)) {
      UnhashedInput u;
      u.kind = UnhashedInput::Kind::ExcludedFlag;
      u.flag = kv.first;
      u.added = kv.second > 0;
      c.unhashedInputs.push_back(std::move(u));
    }
  auto outputs = compileOptionsChanges(a.compileOptions.output,
                                       b.compileOptions.output);
  for (auto &change : compileOptionsChanges(a.compileOptions.input,
                                            b.compileOptions.input)) {
    bool hashed = std::any_of(outputs.begin(), outputs.end(),
                              [&](const FieldChange &o) { return o.sameField(change); });
    if (hashed)
      continue;
    UnhashedInput u;
    u.kind = UnhashedInput::Kind::CompileOption;
    u.field = std::move(change);
    u.field.hashed = false;
    c.unhashedInputs.push_back(std::move(u));
  }
}

/// The names of the DebugOptions fields among compile-options changes.
std::vector<std::string> debugFieldNames(const std::vector<FieldChange> &changes) {
  std::vector<std::string> names;
  for (const auto &c : changes)
    if (c.kind == FieldChange::Kind::Field &&
        c.message == ProtoMessage::DebugOptions)
      names.push_back(c.name);
  return names;
}
} // namespace

void classifyEntries(Comparison &c, const std::array<bool, kNumEntries> &own,
                     const std::array<bool, kNumEntries> &running,
                     const ChangeEvidence &evidence) {
  auto groups = groupMovedEntries(own, evidence);
  if (!groups.empty()) {
    c.cause = groups[0].entry;
    c.withCause = groups[0].linked;
    std::sort(c.withCause.begin(), c.withCause.end());
    c.link = groups[0].link;
    for (size_t g = 1; g < groups.size(); ++g) {
      c.alsoChanged.push_back(groups[g].entry);
      c.alsoChanged.insert(c.alsoChanged.end(), groups[g].linked.begin(),
                           groups[g].linked.end());
    }
    std::sort(c.alsoChanged.begin(), c.alsoChanged.end());
  }
  for (int i = 1; i <= kNumEntries; ++i)
    if (!own[i - 1] && running[i - 1])
      c.consequences.push_back(i);
}

Comparison compareResults(const KeyResult &a, const KeyResult &b) {
  Comparison c;
  std::array<bool, kNumEntries> own{}, running{};
  for (int i = 0; i < kNumEntries; ++i) {
    own[i] = a.entries[i].digest != b.entries[i].digest ||
             a.entries[i].hashed != b.entries[i].hashed;
    running[i] = a.entries[i].running != b.entries[i].running;
  }
  ChangeEvidence evidence;
  {
    changedFlagNames(loggedFlags(a.flags), loggedFlags(b.flags),
                     evidence.keptFlags, evidence.excludedFlags);
    evidence.debugFields = debugFieldNames(compileOptionsChanges(
        a.compileOptions.output, b.compileOptions.output));
    if (a.profile == b.profile)
      evidence.profile = a.profile;
  }
  classifyEntries(c, own, running, evidence);
  if (c.cause != 0) {
    // Each change's `entry` is the entry it is in: the words tell the
    // cause's from those of an entry moved with it by it.
    c.changes = entryChanges(a, b, c.cause);
    for (int e : c.withCause)
      for (auto &ch : entryChanges(a, b, e))
        c.changes.push_back(std::move(ch));
    for (int e : c.alsoChanged)
      for (auto &ch : entryChanges(a, b, e))
        c.otherChanges.push_back(std::move(ch));
  }
  addUnhashedChanges(c, a, b, evidence);
  c.notes = a.notes;
  for (const Note &n : b.notes)
    if (std::find(c.notes.begin(), c.notes.end(), n) == c.notes.end())
      c.notes.push_back(n);
  // Why inputs that differ still give equal keys.
  if (c.cause == 0) {
    collisions(a, b, c.changes);
    if (a.moduleOptions != b.moduleOptions && !a.computation.live &&
        !b.computation.live)
      c.changes.push_back(change(EntryChange::Code::ModuleOptionsCaptured, 1,
                                 a.moduleOptions, b.moduleOptions));
    if (a.symName != b.symName)
      c.changes.push_back(change(EntryChange::Code::OnlySymName, 1, a.symName, b.symName));
  }
  c.profileBefore = a.profile;
  c.profileAfter = b.profile;
  static const Advice byEntry[kNumEntries] = {
      Advice::Program,        Advice::JaxlibVersion, Advice::Backend,
      Advice::Flags,          Advice::CompileOptions, Advice::Accelerator,
      Advice::Compression,    Advice::CustomHook};
  c.advice = c.cause ? byEntry[c.cause - 1]
             : a.symName != b.symName ? Advice::ModuleName
             : c.unhashedInputs.empty() ? Advice::NothingToDo
                                        : Advice::OnlyUnhashed;
  return c;
}


} // namespace cachekey
