//===- LogEvidence.cpp - Why a pair's key moved, from what the logs hold --===//
//
// A log holds the 16 digests of each key, the flag lines, the compile
// options JAX logged and the run-wide cache paths. For a pair whose own
// digests moved, this file reads those into facts: the KeyMove that tells
// pairs apart and the findings behind the details (EntryChanges of the
// log-only codes, EntryChanges.def); and, for a program
// whose key did not move but still missed, the MissReason.
//
//===----------------------------------------------------------------------===//
#include "LogFacts.h"
#include "LogLines.h"
#include "cachekey/StringExtras.h"

#include "cachekey/KnownDigests.h"
#include "cachekey/ProfileInfo.h"
#include "cachekey/Wording.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <map>
#include <vector>

namespace cachekey::logs {

namespace {

/// The jaxlib version a program's entry 2 digest stands for.
std::optional<std::string> jaxlibOfProgram(const LoggedProgram &p) {
  if (!p.digests().own[1])
    return std::nullopt;
  auto d = decodeEntryDigest(2, *p.digests().own[1]);
  return d ? std::optional<std::string>(d->value) : std::nullopt;
}

/// The reproduced profile of the jax release that pins `version` (jax and
/// jaxlib are released together; a version no profile covers gives none).
std::optional<Profile> profileOfJaxlib(const std::optional<std::string> &version) {
  if (!version)
    return std::nullopt;
  auto p = parseProfile(*version);
  return p ? std::optional<Profile>(*p) : std::nullopt;
}

/// What the two logs say about one pair.
struct PairContext {
  const LogSummary &la, &lb;
  const LoggedProgram &pa, &pb;
  std::optional<Profile> profileA, profileB;
  ChangeEvidence evidence;

  const std::vector<LoggedFlag> *flags(bool second) const {
    const LoggedProgram &p = second ? pb : pa;
    const LogSummary &l = second ? lb : la;
    return p.flags >= 0 ? &l.flagSets[p.flags] : nullptr;
  }
  std::string text(bool second, int index) const {
    return index < 0 ? "" : (second ? lb : la).texts[index];
  }
  /// Whether either side's release hashes DebugOptions field `name`.
  bool hashesField(const std::string &name) const {
    if (!profileA && !profileB)
      return flagReachesCompileOptions(name, std::nullopt);
    return (profileA && flagReachesCompileOptions(name, profileA)) ||
           (profileB && flagReachesCompileOptions(name, profileB));
  }
};

EntryChange finding(EntryChange::Code code, int entry, std::string before = "",
                   std::string after = "", std::string subject = "") {
  EntryChange f;
  f.code = code;
  f.entry = entry;
  f.before = std::move(before);
  f.after = std::move(after);
  f.subject = std::move(subject);
  return f;
}

/// What the logs show about entry 5 moving.
std::vector<EntryChange> compileOptionsEvidence(const PairContext &c) {
  using C = EntryChange::Code;
  std::vector<EntryChange> out;
  // compiler.py's _resolve_compilation_strategy: under PGLE a program is
  // compiled with other options (XLA's command buffers off for the
  // profiling pass, then the profile), and its log shows the probe key.
  if (c.pa.pgle != c.pb.pgle)
    out.push_back(finding(C::PgleOneSide, 5, "", "", c.pa.pgle ? c.la.name : c.lb.name));
  // compile_options.profile_version (jax_xla_profile_version, or the latest
  // XLA-AutoFDO profile's), logged before the key. Where a log has no such
  // line at all, its version is not known.
  const long long va = c.pa.extras->profileVersion, vb = c.pb.extras->profileVersion;
  if (c.la.autoFdoLines && c.lb.autoFdoLines && va != vb)
    out.push_back(finding(C::ProfileVersion, 5, std::to_string(va), std::to_string(vb)));
  const auto &ta = c.la.autotuneCaches, &tb = c.lb.autotuneCaches;
  if ((ta.empty() ? "" : ta.front()) != (tb.empty() ? "" : tb.front()) &&
      c.hashesField(kAutotuneField)) {
    // compiler.py's get_compile_options logs "Enabling XLA autotuning cache
    // at …" right after "get_compile_options: num_replicas=…" whenever the
    // persistent cache is on and jax_persistent_cache_enable_xla_caches
    // names the autotune cache ("all" or its field). A run that logged the
    // latter, looked its program up in an open cache, and never the former
    // had the setting off: not another directory.
    auto cacheOnWithoutAutotune = [&](bool second) {
      const LoggedProgram &p = second ? c.pb : c.pa;
      const auto &mine = second ? tb : ta;
      return mine.empty() && p.compileOptions >= 0 && !p.lookupNoCache &&
             p.lookup != Lookup::Unknown;
    };
    if (cacheOnWithoutAutotune(false) || cacheOnWithoutAutotune(true))
      out.push_back(finding(C::XlaCachesOneSide, 5, firstPathText(ta),
                            firstPathText(tb), ta.empty() ? c.la.name : c.lb.name));
    else
      out.push_back(finding(C::CacheDirMoved, 5, firstPathText(ta), firstPathText(tb)));
  }
  const auto &ka = c.la.kernelCaches, &kb = c.lb.kernelCaches;
  if (ka != kb && c.hashesField(kKernelField)) {
    if (ka.empty() || kb.empty())
      out.push_back(finding(C::KernelCacheOneSide, 5, firstPathText(ka),
                            firstPathText(kb), ka.empty() ? c.lb.name : c.la.name));
    else
      out.push_back(finding(C::KernelCacheMoved, 5, firstPathText(ka), firstPathText(kb)));
  }
  std::string oa = c.text(false, c.pa.compileOptions),
              ob = c.text(true, c.pb.compileOptions);
  if (!oa.empty() && !ob.empty() && oa != ob)
    out.push_back(finding(C::CompileOptionsLogged, 5, oa, ob));
  for (const auto &name : c.evidence.excludedFlags)
    if (c.hashesField(name) && name != kDeviceCountFlag)
      out.push_back(finding(C::ExcludedFlagHashed, 5, "", "", name));
  return out;
}

/// What the logs show about entry 6 moving.
std::vector<EntryChange> acceleratorEvidence(const PairContext &c) {
  std::vector<EntryChange> out;
  if (std::find(c.evidence.excludedFlags.begin(), c.evidence.excludedFlags.end(),
                kDeviceCountFlag) != c.evidence.excludedFlags.end()) {
    std::string a = "unset", b = "unset";
    for (int side = 0; side < 2; ++side)
      if (auto *f = c.flags(side == 1))
        for (const auto &flag : *f)
          if (bareFlagName(flag.flag) == kDeviceCountFlag)
            (side ? b : a) = flag.flag;
    out.push_back(finding(EntryChange::Code::LoggedDeviceCount, 6, a, b));
  }
  std::string fa = c.text(false, c.pa.fallback()), fb = c.text(true, c.pb.fallback());
  if (fa != fb)
    out.push_back(finding(EntryChange::Code::DeviceKindFallback, 6, "",
                          fa.empty() ? fb : fa,
                          fa.empty()   ? c.lb.name
                          : fb.empty() ? c.la.name
                                       : std::string("both")));
  return out;
}

/// The element types of a shapes text, in order: the identifier before each
/// '[' ("ShapedArray(float32[8,16])" → float32).
std::vector<std::string> dtypesOf(const std::string &shapes) {
  std::vector<std::string> out;
  for (size_t i = 0; i < shapes.size(); ++i) {
    if (shapes[i] != '[')
      continue;
    size_t j = i;
    while (j > 0 && (std::isalnum(static_cast<unsigned char>(shapes[j - 1])) ||
                     shapes[j - 1] == '_'))
      --j;
    if (j < i)
      out.push_back(shapes.substr(j, i - j));
  }
  return out;
}

/// Whether `after` is `before` widened from 32 to 64 bits, as
/// jax_enable_x64 widens JAX's default types (float32 → float64, int32 →
/// int64, uint32 → uint64, complex64 → complex128).
bool widened(const std::string &before, const std::string &after) {
  static const std::pair<const char *, const char *> k[] = {
      {"float32", "float64"}, {"int32", "int64"}, {"uint32", "uint64"},
      {"complex64", "complex128"}};
  for (auto [a, b] : k)
    if (before == a && after == b)
      return true;
  return false;
}

/// "a, b, c": the items joined by ", " (values as logged, not English).
std::string commaJoined(const std::vector<std::string> &items) {
  std::string s;
  for (const auto &x : items)
    s += (s.empty() ? "" : ", ") + x;
  return s;
}

/// What entry 1 moving shows when both logs have the pxla shapes lines:
/// the argument types (or nothing when the shapes are equal or not logged).
std::optional<std::pair<KeyMove, EntryChange>> argTypesMove(const PairContext &c) {
  if (c.pa.shapes < 0 || c.pb.shapes < 0)
    return std::nullopt;
  const std::string &sa = c.la.texts[c.pa.shapes], &sb = c.lb.texts[c.pb.shapes];
  if (sa == sb || shapeSkeleton(sa) != shapeSkeleton(sb))
    return std::nullopt;
  auto da = dtypesOf(sa), db = dtypesOf(sb);
  if (da.size() != db.size())
    return std::nullopt;
  std::vector<std::string> from, to;
  // Every changed dtype widened (jax_enable_x64 on in the second run) or
  // every one narrowed (off in the second run): jax_enable_x64 either way.
  bool allWidened = true, allNarrowed = true;
  for (size_t i = 0; i < da.size(); ++i) {
    if (da[i] == db[i])
      continue;
    allWidened = allWidened && widened(da[i], db[i]);
    allNarrowed = allNarrowed && widened(db[i], da[i]);
    if (std::find(from.begin(), from.end(), da[i]) == from.end() ||
        std::find(to.begin(), to.end(), db[i]) == to.end()) {
      from.push_back(da[i]);
      to.push_back(db[i]);
    }
  }
  if (from.empty())
    return std::nullopt;
  allWidened = allWidened || allNarrowed;
  KeyMove m;
  m.code = allWidened ? KeyMove::Code::EnableX64 : KeyMove::Code::ArgTypes;
  m.before = commaJoined(from);
  m.after = commaJoined(to);
  EntryChange f;
  f.code = allWidened ? EntryChange::Code::EnableX64 : EntryChange::Code::ArgTypes;
  f.entry = 1;
  f.subject = m.before + " \u2192 " + m.after;
  f.before = sa;
  f.after = sb;
  return std::make_pair(m, f);
}

} // namespace

bool keysInterleave(const LogSummary &log) {
  size_t cut = 0;
  for (const LogReadNote &n : log.incomplete)
    cut += n.why == LogReadNote::Why::NewKeyStarts;
  return cut >= 2;
}

NoKeyReason noKeyReason(const LogSummary &log) {
  if (log.encoding == LogSummary::Encoding::Gzip)
    return NoKeyReason::Gzip;
  if (log.encoding == LogSummary::Encoding::Utf16)
    return NoKeyReason::Utf16;
  if (log.encoding == LogSummary::Encoding::Binary)
    return NoKeyReason::Binary;
  if (log.programs.empty() && log.problems.empty() && log.compileOptionsLines > 0 &&
      log.cacheDirs.empty() && log.autotuneCaches.empty())
    return NoKeyReason::CompiledWithoutCache;
  return keysInterleave(log) ? NoKeyReason::KeysInterleaved : NoKeyReason::Unknown;
}

namespace {

/// What changed inside one entry, as far as the logs can tell: the KeyMove
/// for summaries, then the findings.
using Explained = std::pair<KeyMove, std::vector<EntryChange>>;
using C = EntryChange::Code;
using M = KeyMove::Code;

/// Entry 1: the argument types, JAX's own program, or the program itself.
Explained programFromLogs(const PairContext &c) {
  const LoggedProgram &a = c.pa, &b = c.pb;
  if (auto t = argTypesMove(c))
    return {t->first, {t->second}};
  // The same shapes and types, each argument placed otherwise: pxla.py's
  // argument mapping (the shardings, which the module holds).
  const int ma = a.extras->argMapping, mb = b.extras->argMapping;
  if (a.shapes >= 0 && b.shapes >= 0 && c.text(false, a.shapes) == c.text(true, b.shapes) &&
      ma >= 0 && mb >= 0 && c.text(false, ma) != c.text(true, mb)) {
    // The arguments placed otherwise, by position (1-based), where both
    // mappings list as many; else the whole mappings.
    std::string before = c.text(false, ma), after = c.text(true, mb);
    std::vector<std::string> which, from, to;
    const auto xa = lines::tupleItems(before), xb = lines::tupleItems(after);
    if (xa.size() == xb.size()) {
      for (size_t i = 0; i < xa.size(); ++i)
        if (xa[i] != xb[i]) {
          which.push_back(std::to_string(i + 1));
          from.push_back(xa[i]);
          to.push_back(xb[i]);
        }
      before = commaJoined(from);
      after = commaJoined(to);
    }
    return {{M::ArgShardings, false, before, after, {}},
            {finding(C::ArgShardings, 1, before, after, commaJoined(which))}};
  }
  // JAX's own eager program follows the arrays it is applied to. An
  // elementwise one (jit_add, jit_mul, …) has nothing else in it: with the
  // same argument shapes and types in both runs it cannot have moved as
  // JAX's own, so a program of that name is the user's (a function called
  // add) or moved with a global setting.
  if (isJaxOwnProgram(b.name) &&
      !(isElementwisePrimitive(b.name) && a.shapes >= 0 && b.shapes >= 0 &&
        c.text(false, a.shapes) == c.text(true, b.shapes)))
    return {{M::JaxOwnProgram, false, "", "", {}},
            {finding(C::JaxOwnProgram, 1, "", "", std::string(b.name.view()))}};
  return {{M::ProgramChanged, false, "", "", {}}, {finding(C::ProgramChanged, 1)}};
}

/// Entry 2: both releases when the digests decode (an upgrade, or a
/// downgrade when the second run's is the older), else what they are.
Explained jaxlibFromLogs(const PairContext &c) {
  const auto &da = c.pa.digests().own[1], &db = c.pb.digests().own[1];
  auto va = da ? decodeEntryDigest(2, *da) : std::nullopt;
  auto vb = db ? decodeEntryDigest(2, *db) : std::nullopt;
  if (va && vb)
    return {{olderRelease(vb->value, va->value) ? M::JaxlibDowngrade : M::JaxlibUpgrade,
             false, va->value, vb->value, {}},
            {finding(C::JaxlibVersions, 2, va->value, vb->value)}};
  return {{M::JaxlibChanged, false, "", "", {}},
          {finding(C::JaxlibNotRelease, 2, digestText(2, da), digestText(2, db))}};
}

/// Entry 3: the decoded backends, one run hashing none, or the digests.
Explained backendFromLogs(const PairContext &c) {
  const auto &da = c.pa.digests().own[2], &db = c.pb.digests().own[2];
  auto va = da ? decodeEntryDigest(3, *da) : std::nullopt;
  auto vb = db ? decodeEntryDigest(3, *db) : std::nullopt;
  KeyMove move{M::BackendChanged, false, "", "", {}};
  if (va && vb)
    return {move, {finding(C::BackendDecoded, 3, va->text, vb->text)}};
  if (!da || !db)
    return {move, {finding(C::BackendOneSide, 3)}};
  return {move, {finding(C::BackendPlatform, 3, digestText(3, da), digestText(3, db))}};
}

/// Entry 4: each change among the logged kept flags.
Explained flagsFromLogs(const PairContext &c) {
  auto *fa = c.flags(false), *fb = c.flags(true);
  if (!fa || !fb)
    return {{M::FlagsNotLogged, false, "", "", {}}, {finding(C::FlagsNotLogged, 4)}};
  auto changes = flagChanges(*fa, *fb);
  Explained x{{M::Flags, false, "", "", changes.front()}, {}};
  for (auto &f : changes) {
    x.second.push_back(finding(C::Flag, 4));
    x.second.back().flag = std::move(f);
  }
  return x;
}

/// Entry 5: the cache paths and logged compile options (the first names
/// the move), else nothing the logs show.
Explained compileOptionsFromLogs(const PairContext &c) {
  Explained x{{M::CompileOptionsChanged, false, "", "", {}}, compileOptionsEvidence(c)};
  std::vector<EntryChange> &d = x.second;
  if (d.empty()) {
    d.push_back(finding(C::CompileOptionsUnknown, 5));
    EntryChange &u = d.back();
    u.hashesAutotune = c.hashesField(kAutotuneField);
    u.pathsLoggedSame = !c.la.autotuneCaches.empty() &&
                        c.la.autotuneCaches.front() == (c.lb.autotuneCaches.empty()
                                                            ? std::string()
                                                            : c.lb.autotuneCaches.front());
    const std::string oa = c.text(false, c.pa.compileOptions),
                      ob = c.text(true, c.pb.compileOptions);
    u.optionsLoggedSame = !oa.empty() && oa == ob;
    u.subject = releaseOf(c.lb);
    u.names = settingsMovingEntry(u.subject, 5);
    if (u.names.empty())
      u.subject.clear();
  } else if (d.front().code == C::ProfileVersion) {
    x.first.code = M::ProfileVersion;
    x.first.before = d.front().before;
    x.first.after = d.front().after;
  } else if (d.front().code == C::PgleOneSide) {
    x.first.code = M::PgleSetting;
    x.first.after = d.front().subject;
  } else if (d.front().code == C::XlaCachesOneSide) {
    x.first.code = M::XlaCachesSetting;
    x.first.after = d.front().subject;
  } else if (d.front().code == C::CacheDirMoved) {
    x.first.code = M::CacheDirMoved;
  } else if (d.front().code == C::KernelCacheOneSide ||
             d.front().code == C::KernelCacheMoved) {
    x.first.code = M::KernelCacheChanged;
  }
  return x;
}

/// Entry 6: the device-count flags and the device_kind fallback.
Explained acceleratorFromLogs(const PairContext &c) {
  Explained x{{M::DevicesChanged, false, "", "", {}}, acceleratorEvidence(c)};
  if (x.second.empty())
    x.second.push_back(finding(C::DevicesUnknown, 6));
  return x;
}

/// Entries 7 and 8: the decoded values (or their digests).
template <int Entry, M Move, C Code> Explained decodedFromLogs(const PairContext &c) {
  KeyMove move{Move, false, digestText(Entry, c.pa.digests().own[Entry - 1]),
               digestText(Entry, c.pb.digests().own[Entry - 1]), {}};
  return {move, {finding(Code, Entry, move.before, move.after)}};
}

/// One explainer per entry: kFromLogs[i] says what the logs show inside
/// entry i + 1. (Two computed keys have their own, from the whole inputs:
/// Diff.cpp's kFromResults; both give EntryChanges, worded by
/// entryChangeText.)
using LogExplainer = Explained (*)(const PairContext &);
constexpr LogExplainer kFromLogs[kNumEntries] = {
    programFromLogs,
    jaxlibFromLogs,
    backendFromLogs,
    flagsFromLogs,
    compileOptionsFromLogs,
    acceleratorFromLogs,
    decodedFromLogs<7, M::Compression, C::LoggedCompression>,
    decodedFromLogs<8, M::CustomHook, C::LoggedCustomHook>};

/// What the logs show inside entry `e` (1…8); nothing for another number.
Explained explainEntry(const PairContext &c, int e) {
  return e >= 1 && e <= kNumEntries ? kFromLogs[e - 1](c) : Explained{};
}

} // namespace

std::optional<std::string> jaxlibOf(const LogSummary &log) {
  for (const auto &p : log.programs)
    if (auto v = jaxlibOfProgram(p))
      return v;
  return std::nullopt;
}

PairExplanation explainPair(const LogSummary &la, const LogSummary &lb,
                            const LoggedProgram &pa, const LoggedProgram &pb) {
  PairContext c{la, lb, pa, pb, profileOfJaxlib(jaxlibOfProgram(pa)),
                profileOfJaxlib(jaxlibOfProgram(pb)), {}};
  if (auto *fa = c.flags(false))
    if (auto *fb = c.flags(true))
      changedFlagNames(*fa, *fb, c.evidence.keptFlags, c.evidence.excludedFlags);
  if (c.profileA && c.profileB && *c.profileA == *c.profileB)
    c.evidence.profile = c.profileA;
  std::array<bool, kNumEntries> own{}, running{};
  for (int i = 0; i < kNumEntries; ++i) {
    // An entry neither hashes (entry 3 before jax 0.6.0) counts as equal.
    own[i] = pa.digests().own[i] != pb.digests().own[i];
    running[i] = pa.digests().running[i] != pb.digests().running[i];
  }
  PairExplanation x;
  Comparison &cmp = x.comparison;
  classifyEntries(cmp, own, running, c.evidence);
  if (cmp.cause == 0 && pa.finalDigest() != pb.finalDigest()) {
    // Every own digest equal, yet the keys differ: the running digests do
    // not follow from the own digests, so one log was edited or mixes
    // lines of different runs.
    x.move.code = KeyMove::Code::Inconsistent;
  } else if (cmp.cause != 0) {
    auto [move, findings] = explainEntry(c, cmp.cause);
    x.move = std::move(move);
    x.findings = std::move(findings);
    // Entries moved with the cause are explained by the link reason.
    for (int e : cmp.alsoChanged)
      for (auto &f : explainEntry(c, e).second)
        x.otherFindings.push_back(std::move(f));
  }
  // Excluded flags that differ without reaching entry 5.
  if (auto *fa = c.flags(false))
    if (auto *fb = c.flags(true)) {
      std::map<std::string, int> excluded;
      for (const auto &f : *fa)
        if (!f.kept)
          excluded[f.flag]--;
      for (const auto &f : *fb)
        if (!f.kept)
          excluded[f.flag]++;
      for (const auto &kv : excluded)
        if (kv.second != 0 && !c.hashesField(bareFlagName(kv.first)) &&
            bareFlagName(kv.first) != kDeviceCountFlag) {
          UnhashedInput u;
          u.kind = UnhashedInput::Kind::ExcludedFlagLogged;
          u.flag = kv.first;
          u.added = kv.second > 0;
          cmp.unhashedInputs.push_back(std::move(u));
        }
    }
  return x;
}

bool PairInputs::operator==(const PairInputs &o) const {
  return std::memcmp(trace, o.trace, sizeof trace) == 0 &&
         std::memcmp(flags, o.flags, sizeof flags) == 0 &&
         std::memcmp(options, o.options, sizeof options) == 0 &&
         std::memcmp(fallback, o.fallback, sizeof fallback) == 0 &&
         std::memcmp(shapes, o.shapes, sizeof shapes) == 0 && ownName == o.ownName;
}

size_t PairInputsHash::operator()(const PairInputs &k) const {
  uint64_t h = std::hash<std::string_view>()(k.ownName);
  auto mix = [&h](uint64_t x) { h = (h ^ x) * 0x100000001b3ull; };
  for (int s = 0; s < 2; ++s) {
    mix(reinterpret_cast<uintptr_t>(k.trace[s]));
    mix(static_cast<uint64_t>(static_cast<uint32_t>(k.flags[s])) << 32 |
        static_cast<uint32_t>(k.options[s]));
    mix(static_cast<uint64_t>(static_cast<uint32_t>(k.fallback[s])) << 32 |
        static_cast<uint32_t>(k.shapes[s]));
  }
  return static_cast<size_t>(h ^ (h >> 29));
}

PairInputs pairInputs(const LoggedProgram &a, const LoggedProgram &b) {
  return PairInputs{{a.trace, b.trace},
                    {a.flags, b.flags},
                    {a.compileOptions, b.compileOptions},
                    {a.fallback(), b.fallback()},
                    {a.shapes, b.shapes},
                    isJaxOwnProgram(b.name) ? std::string_view(b.name) : std::string_view()};
}

bool sameLog(const LogSummary &a, const LogSummary &b) {
  return !a.source.empty() && a.source == b.source;
}

MissReason equalKeyMiss(const LogSummary &la, const LogSummary &lb,
                        const LoggedProgram &pa, const LoggedProgram &pb, bool readsFirst) {
  // What the second run's own log says about its lookup comes first. A
  // read error that asks for filelock is no damage: the cap cannot work,
  // and the cache stays closed for every later lookup of the run.
  if (lb.needsFilelock && (pb.lookupNoCache || pb.readError() >= 0))
    return MissReason::NoFilelock;
  if (pb.lookupNoCache)
    return MissReason::NoCacheYet;
  if (pb.readError() >= 0)
    return pb.compileOnlyRead() ? MissReason::CompileOnlyClient : MissReason::Damaged;
  // Found and read without an error, yet compiled: the contents check.
  if (pb.foundThenMissed)
    return MissReason::CheckContents;
  if (!lb.unsupportedRuntime.empty())
    return MissReason::UnsupportedRuntime;
  if (pa.lookup == Lookup::Miss && pa.writeState == WriteState::NotWritten)
    return pa.writeReason == NotWrittenReason::TooLarge ? MissReason::TooLarge
           : pa.writeReason == NotWrittenReason::CacheDisabled || pa.lookupNoCache
               ? MissReason::NoCacheYet
               : MissReason::NotWritten;
  if (pa.lookup == Lookup::Miss && pa.writeState == WriteState::Failed)
    return MissReason::WriteFailed;
  if (la.endsCompiling(pa))
    return MissReason::FirstRunStopped;
  // Another directory comes before an eviction: the second run looked
  // where the first run never wrote, whatever its LRU removed. The
  // directories are those in effect for the two programs (a run may switch),
  // compared as spelled but for "//", "." and a trailing '/'; a relative
  // spelling that the second run read the first run's entries through is
  // one folder with the absolute one it may resolve to.
  const std::string *da = cacheDirOf(la, pa), *db = cacheDirOf(lb, pb);
  const bool oneFolder =
      da && db &&
      (sameCachePath(*da, *db) ||
       (readsFirst && (isRelativeCachePath(*da) != isRelativeCachePath(*db)) &&
        (isRelativeCachePath(*db) ? mayResolveTo(*db, *da) : mayResolveTo(*da, *db))));
  if (da && db && !oneFolder)
    return MissReason::OtherDir;
  if (auto d = pb.finalDigest())
    if (la.evicted.count(*d) || lb.evicted.count(*d))
      return MissReason::Evicted;
  if (da && db && isRelativeCachePath(*db) && !readsFirst)
    return MissReason::RelativeDir;
  if (pa.lookup == Lookup::Miss && pa.writeState == WriteState::Attempted &&
      la.cacheDirs.empty())
    return MissReason::MaybeNoCache;
  if (pa.lookup == Lookup::Hit ||
      (pa.lookup == Lookup::Miss && (pa.writeState == WriteState::Written ||
                                      pa.writeState == WriteState::Attempted)))
    return readsFirst ? MissReason::Removed : MissReason::Gone;
  return MissReason::Unknown;
}

} // namespace cachekey::logs
