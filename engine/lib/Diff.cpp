//===- Diff.cpp - Which ingredient moved ----------------------------------===//
#include "cachekey/Diff.h"

#include "cachekey/PyText.h"
#include "cachekey/Wording.h"

#include <algorithm>
#include <cstdio>
#include <iterator>
#include <map>

namespace cachekey {

std::string entryLabel(int index) {
  return "entry " + std::to_string(index) + " (" + kEntryNames[index - 1] + ")";
}

namespace {

std::string rangeText(const std::vector<int> &xs) {
  if (xs.empty())
    return "";
  bool contiguous = true;
  for (size_t i = 1; i < xs.size(); ++i)
    contiguous = contiguous && xs[i] == xs[i - 1] + 1;
  if (xs.size() == 1)
    return "entry " + std::to_string(xs[0]);
  if (contiguous)
    return "entries " + std::to_string(xs.front()) + "\u2013" +
           std::to_string(xs.back());
  std::string s = "entries ";
  for (size_t i = 0; i < xs.size(); ++i)
    s += (i ? ", " : "") + std::to_string(xs[i]);
  return s;
}

std::string quotedPy(const std::string &s) { return pyRepr(s); }

} // namespace

const char *Comparison::role(int index) const {
  auto has = [index](const std::vector<int> &xs) {
    return std::find(xs.begin(), xs.end(), index) != xs.end();
  };
  if (cause != 0 && index == cause)
    return "cause";
  if (has(withCause))
    return "with cause";
  if (has(alsoChanged))
    return "also changed";
  if (has(consequences))
    return "consequence";
  return "same";
}

std::string shortenedChange(const std::string &change, size_t max) {
  const std::string arrow = " \u2192 ";
  size_t at = change.find(arrow);
  if (at == std::string::npos)
    return shortened(change, max);
  return shortened(change.substr(0, at), max) + arrow +
         shortened(change.substr(at + arrow.size()), max);
}

std::string shortened(const std::string &text, size_t max) {
  if (text.size() <= max)
    return text;
  // Cut at a character boundary (UTF-8 continuation bytes are 10xxxxxx).
  size_t cut = max > 20 ? max - 20 : max;
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xc0) == 0x80)
    --cut;
  return text.substr(0, cut) + "\u2026 (" + std::to_string(text.size()) +
         " chars)";
}

void writeSentence(Comparison &c) {
  if (c.cause == 0) {
    c.sentence = "Nothing moved: every entry's own digest is the same, so the "
                 "hashes are equal.";
  } else {
    std::string s = "The cause is " + entryLabel(c.cause);
    if (!c.details.empty()) {
      s += ": ";
      for (size_t i = 0; i < c.details.size() && i < 4; ++i)
        s += (i ? "; " : "") + c.details[i];
      if (c.details.size() > 4)
        s += "; and " + std::to_string(c.details.size() - 4) + " more";
    }
    s += ".";
    if (!c.linkReason.empty())
      s += " " + c.linkReason;
    if (!c.consequences.empty())
      s += " " + capitalised(rangeText(c.consequences)) +
           (c.consequences.size() == 1
                ? " differs only as a consequence: its own digest is "
                  "unchanged, but the running digest carries the change."
                : " differ only as a consequence: their own digests are "
                  "unchanged, but the running digest carries the change.");
    if (!c.alsoChanged.empty()) {
      // Each other detail names its entry ("entry 5 (compile_options): …").
      s += " Another ingredient moved too: ";
      if (c.otherDetails.empty())
        for (size_t i = 0; i < c.alsoChanged.size(); ++i)
          s += (i ? ", " : "") + entryLabel(c.alsoChanged[i]);
      for (size_t i = 0; i < c.otherDetails.size() && i < 4; ++i)
        s += (i ? "; " : "") + c.otherDetails[i];
      if (c.otherDetails.size() > 4)
        s += "; and " + std::to_string(c.otherDetails.size() - 4) + " more";
      s += ".";
    }
    c.sentence = s;
  }
  if (!c.unhashed.empty()) {
    c.sentence += " Not hashed, so not a cause: ";
    for (size_t i = 0; i < c.unhashed.size() && i < 4; ++i)
      c.sentence += (i ? "; " : "") + c.unhashed[i];
    if (c.unhashed.size() > 4)
      c.sentence += "; and " + std::to_string(c.unhashed.size() - 4) + " more";
    c.sentence += ".";
  }
}

std::vector<FlagChange> flagChanges(
    const std::vector<std::pair<bool, std::string>> &a,
    const std::vector<std::pair<bool, std::string>> &b) {
  // Multisets of kept flags; excluded flags never reach the hash.
  std::map<std::string, int> count;
  for (auto &f : a)
    if (f.first)
      count[f.second]--;
  for (auto &f : b)
    if (f.first)
      count[f.second]++;
  std::vector<std::string> removed, added;
  for (auto &kv : count) {
    for (int i = 0; i < -kv.second; ++i)
      removed.push_back(kv.first);
    for (int i = 0; i < kv.second; ++i)
      added.push_back(kv.first);
  }
  std::vector<FlagChange> out;
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
      out.push_back({FlagChange::Kind::Added, add, ""});
  }
  for (size_t i = 0; i < removed.size(); ++i)
    if (!usedRemoved[i])
      out.push_back({FlagChange::Kind::Removed, removed[i], ""});
  if (out.empty())
    out.push_back({FlagChange::Kind::Regrouped, "", ""});
  return out;
}

void changedFlagNames(const std::vector<std::pair<bool, std::string>> &a,
                      const std::vector<std::pair<bool, std::string>> &b,
                      std::vector<std::string> &kept,
                      std::vector<std::string> &excluded) {
  std::map<std::pair<bool, std::string>, int> count;
  for (const auto &f : a)
    count[f]--;
  for (const auto &f : b)
    count[f]++;
  for (const auto &kv : count) {
    if (kv.second == 0)
      continue;
    auto &list = kv.first.first ? kept : excluded;
    std::string name = bareFlagName(kv.first.second);
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

/// At most `max` names, then "and N more".
std::string someNames(const std::vector<std::string> &names, size_t max = 16) {
  std::string s;
  for (size_t i = 0; i < names.size() && i < max; ++i)
    s += (i ? ", " : "") + names[i];
  if (names.size() > max)
    s += " and " + std::to_string(names.size() - max) + " more";
  return s;
}

std::string deviceIds(const std::vector<CpuDevice> &devices) {
  std::vector<std::string> ids;
  for (const auto &d : devices)
    ids.push_back(d.processIndex == 0
                      ? std::to_string(d.localHardwareId)
                      : std::to_string(d.processIndex) + ":" +
                            std::to_string(d.localHardwareId));
  return "[" + someNames(ids, 8) + "]";
}

void describeCpu(const CpuTopology &a, const CpuTopology &b,
                 std::vector<std::string> &out) {
  if (a.cpu != b.cpu)
    out.push_back("CPU model " + pyRepr(a.cpu) + " → " + pyRepr(b.cpu));
  if (a.triple != b.triple)
    out.push_back("target triple " + pyRepr(a.triple) + " → " +
                  pyRepr(b.triple));
  if (a.features != b.features) {
    auto fa = enabledFeatures(a.features), fb = enabledFeatures(b.features);
    std::vector<std::string> added, removed;
    std::set_difference(fb.begin(), fb.end(), fa.begin(), fa.end(),
                        std::back_inserter(added));
    std::set_difference(fa.begin(), fa.end(), fb.begin(), fb.end(),
                        std::back_inserter(removed));
    if (!added.empty())
      out.push_back("CPU features added: " + someNames(added));
    if (!removed.empty())
      out.push_back("CPU features removed: " + someNames(removed));
    if (added.empty() && removed.empty())
      out.push_back("CPU feature string written differently (same features "
                    "enabled)");
  }
  if (a.devices.size() != b.devices.size())
    out.push_back("devices " + std::to_string(a.devices.size()) + " → " +
                  std::to_string(b.devices.size()) + " (ids " +
                  deviceIds(a.devices) + " → " + deviceIds(b.devices) + ")");
  else if (deviceIds(a.devices) != deviceIds(b.devices))
    out.push_back("device ids " + deviceIds(a.devices) + " → " +
                  deviceIds(b.devices));
}

void describeGpu(const GpuTopology &a, const GpuTopology &b,
                 std::vector<std::string> &out) {
  if (a.platformVersion != b.platformVersion)
    out.push_back("GPU platform_version " + shortened(pyRepr(a.platformVersion)) +
                  " → " + shortened(pyRepr(b.platformVersion)));
  auto num = [&](const char *label, int64_t x, int64_t y) {
    if (x != y)
      out.push_back(std::string(label) + " " + std::to_string(x) + " → " +
                    std::to_string(y));
  };
  num("num_partitions", a.numPartitions, b.numPartitions);
  num("num_hosts_per_partition", a.numHostsPerPartition, b.numHostsPerPartition);
  num("num_devices_per_host", a.numDevicesPerHost, b.numDevicesPerHost);
  if (a.numDevicesPerProcess != b.numDevicesPerProcess)
    out.push_back(
        "num_devices_per_process " +
        (a.numDevicesPerProcess ? std::to_string(*a.numDevicesPerProcess)
                                : std::string("unset")) +
        " → " +
        (b.numDevicesPerProcess ? std::to_string(*b.numDevicesPerProcess)
                                : std::string("unset")));
}

const char *specKind(const AcceleratorSpec &s) {
  static const char *kinds[] = {"a supplied fingerprint", "a CPU topology",
                                "a GPU topology", "the device_kind fallback"};
  return kinds[s.index()];
}

std::string fingerprintHex(const AcceleratorEntry &e) {
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx",
                static_cast<unsigned long long>(*e.fingerprint));
  return std::string(hex) + (e.standIn ? " (stand-in)" : "");
}

} // namespace

std::vector<std::string> describeAcceleratorChange(const AcceleratorEntry &a,
                                                   const AcceleratorEntry &b) {
  std::vector<std::string> out;
  if (a.spec.index() != b.spec.index()) {
    out.push_back(std::string(specKind(a.spec)) + " → " + specKind(b.spec));
  } else if (auto *ca = std::get_if<CpuTopology>(&a.spec)) {
    describeCpu(*ca, std::get<CpuTopology>(b.spec), out);
  } else if (auto *ga = std::get_if<GpuTopology>(&a.spec)) {
    describeGpu(*ga, std::get<GpuTopology>(b.spec), out);
  } else if (auto *ka = std::get_if<DeviceKinds>(&a.spec)) {
    const auto &kb = std::get<DeviceKinds>(b.spec);
    std::vector<std::string> ra, rb;
    for (const auto &k : ka->kinds)
      ra.push_back(pyRepr(k));
    for (const auto &k : kb.kinds)
      rb.push_back(pyRepr(k));
    out.push_back("device kinds (" + std::to_string(ra.size()) + " → " +
                  std::to_string(rb.size()) + " devices) [" +
                  shortened(someNames(ra, 4)) + "] → [" +
                  shortened(someNames(rb, 4)) + "]");
  }
  // The fingerprint is what the key hashes, but it says nothing to a
  // reader: it comes last, as detail.
  if (a.fingerprint && b.fingerprint) {
    if (*a.fingerprint != *b.fingerprint || a.standIn != b.standIn)
      out.push_back("topology fingerprint " + fingerprintHex(a) + " → " +
                    fingerprintHex(b));
  } else if (a.fingerprint) {
    out.push_back("topology fingerprint " + fingerprintHex(a) +
                  " → device_kind fallback");
  } else if (b.fingerprint) {
    out.push_back("device_kind fallback → topology fingerprint " +
                  fingerprintHex(b));
  }
  return out;
}

std::vector<std::string> describeEntryChange(const KeyResult &a,
                                             const KeyResult &b, int index) {
  std::vector<std::string> out;
  const EntryResult &ea = a.entries[index - 1], &eb = b.entries[index - 1];
  auto repr = [](const std::string &s) { return shortened(quotedPy(s)); };
  switch (index) {
  case 1: {
    size_t n = std::min(ea.bytes.size(), eb.bytes.size()), k = 0;
    while (k < n && ea.bytes[k] == eb.bytes[k])
      ++k;
    out.push_back("the module bytecode differs (" +
                  std::to_string(ea.bytes.size()) + " → " +
                  std::to_string(eb.bytes.size()) +
                  " bytes, first difference at byte " + std::to_string(k) + ")");
    if (a.symName != b.symName)
      out.push_back("sym_name " + repr(a.symName) + " → " + repr(b.symName));
    break;
  }
  case 2:
    out.push_back("jaxlib version " + repr(ea.bytes) + " → " + repr(eb.bytes));
    break;
  case 3:
    if (ea.hashed != eb.hashed) {
      out.push_back(std::string("entry 3 is ") +
                    (ea.hashed ? "hashed on the first side only"
                               : "hashed on the second side only") +
                    " (jax 0.6.0 added it)");
      break;
    }
    for (size_t i = 0; i < std::min(ea.parts.size(), eb.parts.size()); ++i)
      if (ea.partBytes(i) != eb.partBytes(i))
        out.push_back(ea.parts[i].label + " " + repr(ea.partBytes(i)) + " → " +
                      repr(eb.partBytes(i)));
    if (out.empty())
      out.push_back("platform and platform_version feed the same bytes "
                    "joined differently");
    break;
  case 4: {
    std::vector<std::pair<bool, std::string>> fa, fb;
    for (auto &f : a.flags)
      fa.emplace_back(f.included, f.flag);
    for (auto &f : b.flags)
      fb.emplace_back(f.included, f.flag);
    out = describeFlagChange(fa, fb);
    break;
  }
  case 5:
    for (const auto &d : describeCompileOptionsDiff(a.compileOptions.output,
                                                    b.compileOptions.output))
      out.push_back(shortenedChange(d));
    break;
  case 6:
    out = describeAcceleratorChange(a.accelerator, b.accelerator);
    if (out.empty())
      out.push_back("the accelerator config feeds other bytes");
    break;
  case 7:
    out.push_back("compression " + repr(a.compression) + " → " +
                  repr(b.compression));
    break;
  case 8:
    out.push_back("custom_hook " + repr(ea.bytes) + " → " + repr(eb.bytes));
    break;
  }
  return out;
}

namespace {
/// Inputs that differ but feed identical bytes: hash-string has no
/// separator, so ["ab", "c"] and ["a", "bc"] collide.
void noteCollisions(const KeyResult &a, const KeyResult &b,
                    std::vector<std::string> &notes) {
  const EntryResult &pa = a.entries[2], &pb = b.entries[2];
  if (pa.parts.size() >= 2 && pb.parts.size() >= 2 && pa.bytes == pb.bytes &&
      (pa.partBytes(0) != pb.partBytes(0) || pa.partBytes(1) != pb.partBytes(1)))
    notes.push_back("platform " + pyRepr(pa.partBytes(0)) + " + " +
                    pyRepr(pa.partBytes(1)) + " and " +
                    pyRepr(pb.partBytes(0)) + " + " + pyRepr(pb.partBytes(1)) +
                    " differ but feed the same bytes: hash-string puts no "
                    "separator between strings");
  std::vector<std::string> fa, fb;
  for (const auto &f : a.flags)
    if (f.included)
      fa.push_back(f.flag);
  for (const auto &f : b.flags)
    if (f.included)
      fb.push_back(f.flag);
  if (a.entries[3].bytes == b.entries[3].bytes && fa != fb)
    notes.push_back("the kept flags differ but feed the same bytes: flags are "
                    "hashed one after another with no separator");
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
      addUnhashed(c, std::move(u));
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
    addUnhashed(c, std::move(u));
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
    c.linkReason = groups[0].reason;
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
    std::vector<std::pair<bool, std::string>> fa, fb;
    for (const auto &f : a.flags)
      fa.emplace_back(f.included, f.flag);
    for (const auto &f : b.flags)
      fb.emplace_back(f.included, f.flag);
    changedFlagNames(fa, fb, evidence.keptFlags, evidence.excludedFlags);
    evidence.debugFields = debugFieldNames(compileOptionsChanges(
        a.compileOptions.output, b.compileOptions.output));
    if (a.profile == b.profile)
      evidence.profile = a.profile;
  }
  classifyEntries(c, own, running, evidence);
  if (c.cause != 0) {
    c.details = describeEntryChange(a, b, c.cause);
    for (int e : c.withCause)
      for (const auto &d : describeEntryChange(a, b, e))
        c.details.push_back("entry " + std::to_string(e) + ": " + d);
    for (int e : c.alsoChanged)
      for (const auto &d : describeEntryChange(a, b, e))
        c.otherDetails.push_back(entryLabel(e) + ": " + d);
  }
  addUnhashedChanges(c, a, b, evidence);
  c.notes = a.notes;
  for (const auto &n : b.notes)
    if (std::find(c.notes.begin(), c.notes.end(), n) == c.notes.end())
      c.notes.push_back(n);
  std::vector<std::string> extra;
  if (a.profile != b.profile)
    extra.push_back(std::string("The profile changed (") +
                    profileName(a.profile) + " \u2192 " + profileName(b.profile) +
                    "): the two keys follow different versions of cache_key.py.");
  std::vector<std::string> but;
  if (c.cause == 0) {
    noteCollisions(a, b, but);
    if (a.moduleOptions != b.moduleOptions && !a.computation.live &&
        !b.computation.live)
      but.push_back("the module options differ (" + a.moduleOptions +
                    " \u2192 " + b.moduleOptions +
                    ") but entry 1 holds bytes captured from jaxlib, "
                    "which options cannot change; capture the module "
                    "again with them, or give its text");
    if (a.symName != b.symName)
      but.push_back("only the module name differs (" +
                    shortened(pyRepr(a.symName)) + " \u2192 " +
                    shortened(pyRepr(b.symName)) +
                    "): it is the key's readable prefix, not hashed");
  }
  writeSentence(c);
  if (!but.empty()) {
    c.sentence += " But:";
    for (const auto &d : but)
      c.sentence += " " + d + ".";
    c.details.insert(c.details.end(), but.begin(), but.end());
  }
  for (const auto &e : extra)
    c.sentence = e + " " + c.sentence;
  return c;
}

Json comparisonToJson(const Comparison &c) {
  Json j;
  j["cause"] = c.cause;
  j["cause_name"] = c.cause ? kEntryNames[c.cause - 1] : "";
  j["with_cause"] = c.withCause;
  j["link_reason"] = c.linkReason;
  j["also_changed"] = c.alsoChanged;
  j["consequences"] = c.consequences;
  Json roles = Json::array();
  for (int i = 1; i <= kNumEntries; ++i)
    roles.push_back(c.role(i));
  j["roles"] = roles;
  j["details"] = c.details;
  j["other_details"] = c.otherDetails;
  j["unhashed"] = c.unhashed;
  j["sentence"] = c.sentence;
  j["notes"] = c.notes;
  return j;
}

} // namespace cachekey
