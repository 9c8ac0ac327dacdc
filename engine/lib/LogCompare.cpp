//===- LogCompare.cpp - Why the second run missed the cache ---------------===//
#include "cachekey/LogCompare.h"

#include <ostream>
#include <sstream>

#include "cachekey/KnownDigests.h"
#include "cachekey/PyText.h"
#include "cachekey/Wording.h"

#include <algorithm>
#include <cstdio>
#include <map>

namespace cachekey {

namespace {

const char kMinCompileTime[] = "jax_persistent_cache_min_compile_time_secs";
const char kMinEntrySize[] = "jax_persistent_cache_min_entry_size_bytes";
const char kAutotuneField[] = "xla_gpu_per_fusion_autotune_cache_dir";
const char kKernelField[] = "xla_gpu_kernel_cache_file";
const char kParallelismField[] =
    "xla_gpu_enable_llvm_module_compilation_parallelism";
const char kDeviceCountFlag[] = "xla_force_host_platform_device_count";

std::string seconds(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f s", s);
  return buf;
}

/// "key 4 …" at the start of a sentence: "Key 4 …".
std::string upperFirst(std::string s) {
  return s.rfind("key ", 0) == 0 ? capitalised(std::move(s)) : s;
}

std::string ordinalWord(int n) {
  std::string suffix = (n % 100 >= 11 && n % 100 <= 13) ? "th"
                       : n % 10 == 1                     ? "st"
                       : n % 10 == 2                     ? "nd"
                       : n % 10 == 3                     ? "rd"
                                                         : "th";
  return std::to_string(n) + suffix;
}

/// The jaxlib version a program's entry 2 digest stands for.
std::optional<std::string> jaxlibOf(const LoggedProgram &p) {
  if (!p.own[1])
    return std::nullopt;
  auto d = decodeEntryDigest(2, *p.own[1]);
  return d ? std::optional<std::string>(d->value) : std::nullopt;
}

std::optional<std::string> jaxlibOf(const LogSummary &log) {
  for (const auto &p : log.programs)
    if (auto v = jaxlibOf(p))
      return v;
  return std::nullopt;
}

/// The reproduced profile of the jax release that pins `version` (jax and
/// jaxlib are released together; a version no profile covers gives none).
std::optional<Profile> profileOfJaxlib(const std::optional<std::string> &version) {
  if (!version)
    return std::nullopt;
  auto p = parseProfile(*version);
  return p ? std::optional<Profile>(*p) : std::nullopt;
}

/// Why an entry was not written, as a clause.
std::string notWrittenClause(const WriteOutcome &w) {
  switch (w.reason) {
  case NotWrittenReason::CompileTime:
    return "compiled in " + seconds(w.compileSeconds) + ", under " +
           kMinCompileTime + " (" + seconds(w.minCompileSeconds) + ")";
  case NotWrittenReason::HostCallbacks:
    return "it uses host callbacks (jax.debug.print, breakpoint), which jax "
           "0.10.2 and older never cache";
  case NotWrittenReason::NotProcessZero:
    return "only process 0 writes to the cache";
  case NotWrittenReason::EntrySize:
    return "its entry (" + std::to_string(w.entryBytes) + " bytes) is under " +
           kMinEntrySize + " (" + std::to_string(w.minEntryBytes) + " bytes)";
  case NotWrittenReason::CacheDisabled:
    return "the cache is disabled or was not initialised";
  case NotWrittenReason::None:
    break;
  }
  return "no reason logged";
}

std::string outcomePhrase(const LoggedProgram &p) {
  if (p.lookup == Lookup::Hit)
    return "hit";
  if (p.lookup == Lookup::Unknown)
    return "no hit or miss logged";
  const WriteOutcome &w = p.write;
  switch (w.state) {
  case WriteState::Written:
    return "missed, then written to the cache";
  case WriteState::Attempted:
    return "missed; compiled in " + seconds(w.compileSeconds) + ", over the " +
           seconds(w.minCompileSeconds) +
           " minimum, so JAX went on to write it (the write itself is not "
           "logged here)";
  case WriteState::NotWritten:
    return "missed, never written: " + notWrittenClause(w);
  case WriteState::Failed:
    return "missed; writing it failed: " + shortened(w.error, 120);
  case WriteState::Unknown:
    break;
  }
  return "missed (whether it was written is not logged)";
}

/// What the two logs say about one pair.
struct PairContext {
  const LogSummary &la, &lb;
  const LoggedProgram &pa, &pb;
  std::optional<Profile> profileA, profileB;
  ChangeEvidence evidence;

  const std::vector<std::pair<bool, std::string>> *flags(bool second) const {
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

/// The decoded short entry, or a digest prefix when unknown.
std::string decodedOr(int entry, const std::optional<Digest> &d) {
  if (!d)
    return "(not logged)";
  if (auto v = decodeEntryDigest(entry, *d))
    return v->text;
  return "unknown (digest " + toHex(*d).substr(0, 12) + "\u2026)";
}

std::string pathChange(const std::vector<std::string> &a,
                       const std::vector<std::string> &b) {
  auto one = [](const std::vector<std::string> &v) {
    return v.empty() ? std::string("unset") : pyRepr(v.front());
  };
  return one(a) + " \u2192 " + one(b);
}

/// What the logs show about entry 5 moving.
std::vector<std::string> compileOptionsEvidence(const PairContext &c) {
  std::vector<std::string> out;
  const auto &ta = c.la.autotuneCaches, &tb = c.lb.autotuneCaches;
  if ((ta.empty() ? "" : ta.front()) != (tb.empty() ? "" : tb.front()) &&
      c.hashesField(kAutotuneField))
    out.push_back("the cache directory moved: JAX writes its XLA autotuning "
                  "cache path into " + debugFieldLabel(kAutotuneField) +
                  ", which entry 5 hashes, " + pathChange(ta, tb) +
                  " (jax 0.11.0 and later zero this field; before that, give "
                  "every run the same jax_compilation_cache_dir path)");
  const auto &ka = c.la.kernelCaches, &kb = c.lb.kernelCaches;
  if (ka != kb && c.hashesField(kKernelField)) {
    if (ka.empty() || kb.empty())
      out.push_back(std::string("the XLA kernel cache is enabled in ") +
                    (ka.empty() ? c.lb.name : c.la.name) +
                    " only (jax_persistent_cache_enable_xla_caches): it sets " +
                    debugFieldLabel(kKernelField) + " " + pathChange(ka, kb) +
                    " and " + debugFieldLabel(kParallelismField));
    else
      out.push_back("the XLA kernel cache path moved: " +
                    debugFieldLabel(kKernelField) + " " + pathChange(ka, kb));
  }
  std::string oa = c.text(false, c.pa.compileOptions),
              ob = c.text(true, c.pb.compileOptions);
  if (!oa.empty() && !ob.empty() && oa != ob)
    out.push_back("the compile options JAX logged differ: " + shortened(oa, 100) +
                  " \u2192 " + shortened(ob, 100));
  for (const auto &name : c.evidence.excludedFlags)
    if (c.hashesField(name) && name != kDeviceCountFlag)
      out.push_back("--" + name + " is excluded from entry 4, but XLA still "
                    "parses it into " + debugFieldLabel(name) +
                    ", which JAX does not zero");
  return out;
}

/// What the logs show about entry 6 moving.
std::vector<std::string> acceleratorEvidence(const PairContext &c) {
  std::vector<std::string> out;
  if (std::find(c.evidence.excludedFlags.begin(), c.evidence.excludedFlags.end(),
                kDeviceCountFlag) != c.evidence.excludedFlags.end()) {
    std::string a = "unset", b = "unset";
    for (int side = 0; side < 2; ++side)
      if (auto *f = c.flags(side == 1))
        for (const auto &flag : *f)
          if (bareFlagName(flag.second) == kDeviceCountFlag)
            (side ? b : a) = flag.second;
    out.push_back("the device count changed: " + a + " \u2192 " + b +
                  " (excluded from entry 4 itself, but it sets how many CPU "
                  "devices the client has, and the topology fingerprint covers "
                  "every device)");
  }
  std::string fa = c.text(false, c.pa.fallback), fb = c.text(true, c.pb.fallback);
  if (fa != fb)
    out.push_back("the devices were hashed by device_kind (the runtime has no "
                  "topology) in " +
                  (fa.empty() ? c.lb.name : fb.empty() ? c.la.name
                                                       : std::string("both")) +
                  ": " + shortened(fa.empty() ? fb : fa, 160));
  return out;
}

/// What changed inside entry `e`, as far as the logs can tell: a brief
/// phrase for summaries, then the details.
std::pair<std::string, std::vector<std::string>> explainEntry(const PairContext &c,
                                                              int e) {
  const LoggedProgram &a = c.pa, &b = c.pb;
  switch (e) {
  case 1:
    return {"the program changed",
            {"the program itself changed: its MLIR, with locations stripped, "
             "is different (a log holds only the digest: compare "
             "jax.jit(f).lower(\u2026).as_text() of both runs)"}};
  case 2: {
    auto va = a.own[1] ? decodeEntryDigest(2, *a.own[1]) : std::nullopt;
    auto vb = b.own[1] ? decodeEntryDigest(2, *b.own[1]) : std::nullopt;
    std::string d = va && vb ? "jaxlib " + va->value + " \u2192 " + vb->value
                             : decodedOr(2, a.own[1]) + " \u2192 " +
                                   decodedOr(2, b.own[1]) +
                                   " (a version that is not a release: a "
                                   "development build?)";
    return {va && vb ? "the jaxlib upgrade " + va->value + " \u2192 " + vb->value
                     : "the jaxlib version changed",
            {d}};
  }
  case 3: {
    auto da = a.own[2] ? decodeEntryDigest(3, *a.own[2]) : std::nullopt;
    auto db = b.own[2] ? decodeEntryDigest(3, *b.own[2]) : std::nullopt;
    std::string d = da && db ? da->text + " \u2192 " + db->text
                    : !a.own[2] || !b.own[2]
                        ? std::string("the backend version is hashed in one run "
                                      "only (jax before 0.6.0 has no entry 3)")
                        : "the platform or its version changed (another CUDA, "
                          "driver or libtpu): " + decodedOr(3, a.own[2]) +
                              " \u2192 " + decodedOr(3, b.own[2]);
    return {"the backend version changed", {d}};
  }
  case 4: {
    auto *fa = c.flags(false), *fb = c.flags(true);
    if (!fa || !fb)
      return {"the XLA flags changed",
              {"the kept XLA flags changed (their \"Including XLA flag\" lines "
               "were not logged)"}};
    auto d = describeFlagChange(*fa, *fb);
    return {d.front(), d};
  }
  case 5: {
    auto d = compileOptionsEvidence(c);
    if (!d.empty())
      return {d.front().rfind("the cache directory moved", 0) == 0
                  ? "the cache directory moved (entry 5)"
              : d.front().rfind("the XLA kernel cache", 0) == 0
                  ? "the XLA kernel cache setting changed (entry 5)"
                  : "the compile options changed (entry 5)",
              d};
    std::string hint =
        "the compile options moved, and the logs show nothing that moved "
        "them. ";
    if (c.hashesField(kAutotuneField))
      hint += "On jax 0.10.x and older entry 5 contains the cache directory "
              "path, in " + debugFieldLabel(kAutotuneField) +
              ": did the runs use different jax_compilation_cache_dir? ";
    hint += "Other candidates: per-jit compiler_options, a DebugOptions value "
            "from XLA_FLAGS that entry 4 excludes, the device assignment. "
            "Enable DEBUG on jax._src.compiler to log the cache paths and "
            "devices, or capture both runs as scenarios and run "
            "`cachekey diff`";
    return {"the compile options changed (entry 5)", {hint}};
  }
  case 6: {
    auto d = acceleratorEvidence(c);
    if (!d.empty())
      return {"the devices changed (entry 6)", d};
    return {"the devices changed (entry 6)",
            {"the devices changed: another CPU model or feature set (CI "
             "runners on different hardware), another device count, or "
             "another GPU or TPU; a log holds only the digest of the topology "
             "fingerprint (capture both runs as scenarios and run `cachekey "
             "diff` to see the fields)"}};
  }
  case 7: {
    std::string d = "compression " + decodedOr(7, a.own[6]) + " \u2192 " +
                    decodedOr(7, b.own[6]);
    return {d, {d + " (the zstandard package is installed for one run only, "
                    "or one run uses Python 3.14 or later)"}};
  }
  case 8: {
    std::string d = "custom_hook " + decodedOr(8, a.own[7]) + " \u2192 " +
                    decodedOr(8, b.own[7]);
    return {d, {d}};
  }
  }
  return {"", {}};
}

/// Entry `e` differs between the two programs (an entry neither hashes,
/// entry 3 before jax 0.6.0, counts as equal).
bool differs(const std::array<std::optional<Digest>, kNumEntries> &a,
             const std::array<std::optional<Digest>, kNumEntries> &b, int i) {
  return a[i] != b[i];
}

/// Classifies and explains a pair whose traces are both complete.
Comparison explainPair(const LogSummary &la, const LogSummary &lb,
                       const LoggedProgram &pa, const LoggedProgram &pb,
                       std::string *brief) {
  PairContext c{la, lb, pa, pb, profileOfJaxlib(jaxlibOf(pa)),
                profileOfJaxlib(jaxlibOf(pb)), {}};
  if (auto *fa = c.flags(false))
    if (auto *fb = c.flags(true))
      changedFlagNames(*fa, *fb, c.evidence.keptFlags, c.evidence.excludedFlags);
  if (c.profileA && c.profileB && *c.profileA == *c.profileB)
    c.evidence.profile = c.profileA;
  std::array<bool, kNumEntries> own{}, running{};
  for (int i = 0; i < kNumEntries; ++i) {
    own[i] = differs(pa.own, pb.own, i);
    running[i] = differs(pa.running, pb.running, i);
  }
  Comparison cmp;
  classifyEntries(cmp, own, running, c.evidence);
  if (cmp.cause == 0 && pa.finalDigest() != pb.finalDigest()) {
    // Every own digest equal, yet the keys differ: the running digests do
    // not follow from the own digests, so one log was edited or mixes
    // lines of different runs.
    if (brief)
      *brief = "every entry's own digest is the same in both logs, yet the "
               "keys differ: the logs are not consistent (edited, or lines of "
               "different runs mixed)";
  } else if (cmp.cause != 0) {
    auto [b, d] = explainEntry(c, cmp.cause);
    cmp.details = d;
    if (brief)
      *brief = b;
    // Entries moved with the cause are explained by the link reason.
    for (int e : cmp.alsoChanged)
      for (const auto &x : explainEntry(c, e).second)
        cmp.otherDetails.push_back(entryLabel(e) + ": " + x);
  }
  // Excluded flags that differ without reaching entry 5.
  if (auto *fa = c.flags(false))
    if (auto *fb = c.flags(true)) {
      std::map<std::string, int> excluded;
      for (const auto &f : *fa)
        if (!f.first)
          excluded[f.second]--;
      for (const auto &f : *fb)
        if (!f.first)
          excluded[f.second]++;
      for (const auto &kv : excluded)
        if (kv.second != 0 && !c.hashesField(bareFlagName(kv.first)) &&
            bareFlagName(kv.first) != kDeviceCountFlag) {
          UnhashedInput u;
          u.kind = UnhashedInput::Kind::ExcludedFlagLogged;
          u.flag = kv.first;
          u.added = kv.second > 0;
          addUnhashed(cmp, std::move(u));
        }
    }
  writeSentence(cmp);
  return cmp;
}

/// Which side's programs each pair refers to, in the second run's order.
std::vector<ProgramPair> pairPrograms(const LogSummary &la, const LogSummary &lb,
                                      std::string &pairedBy) {
  auto ia = la.comparable(), ib = lb.comparable();
  auto named = [](const LogSummary &l, const std::vector<int> &idx) {
    for (int i : idx)
      if (!l.programs[i].name.empty())
        return true;
    return false;
  };
  bool byName = named(la, ia) && named(lb, ib);
  auto tags = [](const LogSummary &l, const std::vector<int> &idx) {
    std::vector<std::string> t;
    for (int i : idx)
      t.push_back(l.streams[l.programs[i].stream]);
    std::sort(t.begin(), t.end());
    t.erase(std::unique(t.begin(), t.end()), t.end());
    return t;
  };
  auto tagsA = tags(la, ia);
  bool byStream = tagsA.size() > 1 && tagsA == tags(lb, ib);
  pairedBy = !byName ? "order" : byStream ? "process and name" : "name";
  auto group = [&](const LogSummary &l, const LoggedProgram &p) {
    return (byStream ? l.streams[p.stream] + "\n" : std::string()) +
           (byName ? p.name : std::string());
  };
  std::map<std::pair<std::string, int>, int> inA;
  std::map<std::string, int> countA, countB;
  std::vector<int> ordinalA(la.programs.size(), 1);
  for (int i : ia) {
    std::string g = group(la, la.programs[i]);
    ordinalA[i] = ++countA[g];
    inA[{g, ordinalA[i]}] = i;
  }
  std::vector<ProgramPair> pairs;
  std::vector<bool> usedA(la.programs.size(), false);
  auto label = [&](const ProgramPair &p, const std::string &stream) {
    std::string s = p.name.empty() ? "key " + std::to_string(p.ordinal)
                    : p.ordinal > 1 ? p.name + " (" + ordinalWord(p.ordinal) + ")"
                                    : p.name;
    if (!byStream || stream.empty())
      return s;
    return s + (stream[0] == '[' ? " " + stream : " [" + stream + "]");
  };
  for (int i : ib) {
    const LoggedProgram &p = lb.programs[i];
    ProgramPair pair;
    pair.name = byName ? p.name : "";
    pair.ordinal = ++countB[group(lb, p)];
    pair.b = i;
    auto it = inA.find({group(lb, p), pair.ordinal});
    if (it != inA.end()) {
      pair.a = it->second;
      usedA[it->second] = true;
    }
    pair.label = label(pair, lb.streams[p.stream]);
    pairs.push_back(pair);
  }
  std::map<std::string, int> countOnlyA;
  for (int i : ia)
    if (!usedA[i]) {
      const LoggedProgram &p = la.programs[i];
      ProgramPair pair;
      pair.name = byName ? p.name : "";
      pair.a = i;
      pair.ordinal = ordinalA[i];
      pair.label = label(pair, la.streams[p.stream]);
      pairs.push_back(pair);
    }
  return pairs;
}

/// Why the second run missed a program whose key is the first run's: a
/// kind that groups programs in the summary.
enum class EqualMiss {
  NotWritten,
  WriteFailed,
  OtherDir,
  Gone,
  /// Only "took at least … to compile" was logged, and nothing shows a cache
  /// directory: with jax_compilation_cache_dir unset nothing is written.
  MaybeNoCache,
  Unknown
};

EqualMiss equalKeyMiss(const LogSummary &la, const LogSummary &lb,
                       const LoggedProgram &pa) {
  if (pa.lookup == Lookup::Miss && pa.write.state == WriteState::NotWritten)
    return EqualMiss::NotWritten;
  if (pa.lookup == Lookup::Miss && pa.write.state == WriteState::Failed)
    return EqualMiss::WriteFailed;
  if (!la.cacheDirs.empty() && !lb.cacheDirs.empty() &&
      la.cacheDirs.front() != lb.cacheDirs.front())
    return EqualMiss::OtherDir;
  if (pa.lookup == Lookup::Miss && pa.write.state == WriteState::Attempted &&
      la.cacheDirs.empty())
    return EqualMiss::MaybeNoCache;
  if (pa.lookup == Lookup::Hit ||
      (pa.lookup == Lookup::Miss && (pa.write.state == WriteState::Written ||
                                      pa.write.state == WriteState::Attempted)))
    return EqualMiss::Gone;
  return EqualMiss::Unknown;
}

/// The clause for programs of one kind; `them` is "it" or "them".
std::string equalMissClause(EqualMiss kind, const LogSummary &la,
                            const LogSummary &lb,
                            const std::vector<const LoggedProgram *> &inA) {
  bool many = inA.size() > 1;
  std::string them = many ? "them" : "it";
  switch (kind) {
  case EqualMiss::NotWritten: {
    const WriteOutcome &w = inA.front()->write;
    bool sameReason = true;
    double slowest = 0;
    for (const auto *p : inA) {
      sameReason = sameReason && p->write.reason == w.reason;
      slowest = std::max(slowest, p->write.compileSeconds);
    }
    long long largest = 0;
    for (const auto *p : inA)
      largest = std::max(largest, p->write.entryBytes);
    std::string why =
        !sameReason ? "see each program's outcome"
        : !many ? (w.reason == NotWrittenReason::CompileTime ? "it " : "") +
                      notWrittenClause(w)
        : w.reason == NotWrittenReason::CompileTime
            ? "each compiled in at most " + seconds(slowest) + ", under " +
                  kMinCompileTime + " (" + seconds(w.minCompileSeconds) + ")"
        : w.reason == NotWrittenReason::EntrySize
            ? "each entry (at most " + std::to_string(largest) +
                  " bytes) is under " + kMinEntrySize + " (" +
                  std::to_string(w.minEntryBytes) + " bytes)"
        : w.reason == NotWrittenReason::HostCallbacks
            ? "they use host callbacks (jax.debug.print, breakpoint), which "
              "jax 0.10.2 and older never cache"
            : notWrittenClause(w);
    return "which never wrote " + them + ": " + why;
  }
  case EqualMiss::WriteFailed:
    return "which failed to write " + them;
  case EqualMiss::MaybeNoCache:
    return "whose log shows no write of " + them + " and no cache directory: "
           "if jax_compilation_cache_dir was not set, the persistent cache is "
           "off and nothing is written (set it; DEBUG logging of "
           "jax._src.compilation_cache shows each write)";
  case EqualMiss::OtherDir:
    return "but the runs use different cache directories (" +
           pyRepr(la.cacheDirs.front()) + " \u2192 " +
           pyRepr(lb.cacheDirs.front()) + ")";
  case EqualMiss::Gone:
    return "which had " + them + " in its cache, but " + lb.name +
           " did not find " + them + ": evicted (jax_compilation_cache_max_size), "
           "or the cache directory is not shared between the runs";
  case EqualMiss::Unknown:
    break;
  }
  return "which does not log whether it wrote " + them;
}

std::string pairVerdict(const LogComparison &r, const ProgramPair &p,
                        const std::string &brief) {
  const LogSummary &la = r.logs[0], &lb = r.logs[1];
  if (p.a < 0)
    return "only in " + lb.name + ": " + la.name + " did not compile it";
  if (p.b < 0)
    return "only in " + la.name + ": " + lb.name + " did not compile it";
  switch (p.keys) {
  case ProgramPair::Keys::Unknown:
    return "its keys cannot be compared (a trace is incomplete)";
  case ProgramPair::Keys::Differ:
    return "its key moved: " + (brief.empty() ? std::string("the keys differ")
                                              : brief);
  case ProgramPair::Keys::Equal:
    break;
  }
  if (lb.programs[p.b].lookup != Lookup::Miss)
    return "same key";
  const LoggedProgram &pa = la.programs[p.a];
  std::string clause = equalMissClause(equalKeyMiss(la, lb, pa), la, lb, {&pa});
  // As a main clause: "run1.log never wrote it", "the runs use …".
  if (clause.rfind("which ", 0) == 0)
    clause = la.name + " " + clause.substr(6);
  else if (clause.rfind("but ", 0) == 0)
    clause = clause.substr(4);
  return "same key, yet " + lb.name + " missed: " + clause;
}

std::string runSummary(const LogComparison &r,
                       const std::vector<std::string> &briefs) {
  const LogSummary &la = r.logs[0], &lb = r.logs[1];
  size_t n = 0, hits = 0, misses = 0, differing = 0, paired = 0, onlyB = 0;
  for (const auto &p : r.pairs) {
    if (p.b < 0)
      continue;
    ++n;
    const LoggedProgram &pb = lb.programs[p.b];
    hits += pb.lookup == Lookup::Hit;
    misses += pb.lookup == Lookup::Miss;
    paired += p.a >= 0;
    differing += p.keys == ProgramPair::Keys::Differ;
    onlyB += p.a < 0;
  }
  std::string s = lb.name + ": ";
  if (hits + misses == 0) {
    // No hit or miss lines: say what the keys say.
    if (paired == 0)
      s += "no program pairs with one in " + la.name;
    else if (differing == 0)
      s += (paired == 1 ? std::string("the paired program has")
                        : "all " + std::to_string(paired) + " paired programs have") +
           " the same key as in " + la.name;
    else
      s += std::to_string(differing) + " of " +
           plural(paired, "paired program", "paired programs") +
           (differing == 1 ? " has" : " have") + " another key";
    if (onlyB)
      s += "; " + plural(onlyB, "program is", "programs are") + " new";
    return s + " (no hit or miss lines: enable DEBUG on jax._src.compiler to "
               "see the outcomes).";
  }
  s += std::to_string(hits) + " of " + plural(n, "program", "programs") + " hit";
  if (misses == 0)
    return s + ".";
  s += ", " + std::to_string(misses) + " missed.";
  // The misses, grouped by reason in the order the reasons first appear.
  struct Group {
    std::string text; // the clause after the names
    std::vector<std::string> names;
    std::vector<const LoggedProgram *> inA;
    EqualMiss kind = EqualMiss::Unknown;
  };
  std::vector<std::string> order;
  std::map<std::string, Group> groups;
  for (size_t i = 0; i < r.pairs.size(); ++i) {
    const auto &p = r.pairs[i];
    if (p.b < 0 || lb.programs[p.b].lookup != Lookup::Miss)
      continue;
    std::string key;
    Group g;
    if (p.a < 0) {
      key = "new";
      g.text = "new in this run";
    } else if (p.keys == ProgramPair::Keys::Differ) {
      key = "moved " + briefs[i];
      g.text = "another key: " + briefs[i];
    } else if (p.keys == ProgramPair::Keys::Unknown) {
      key = "unknown";
      g.text = "keys that cannot be compared";
    } else {
      g.kind = equalKeyMiss(la, lb, la.programs[p.a]);
      key = "equal " + std::to_string(static_cast<int>(g.kind));
    }
    auto it = groups.find(key);
    if (it == groups.end()) {
      order.push_back(key);
      it = groups.emplace(key, g).first;
    }
    it->second.names.push_back(p.label);
    if (p.a >= 0)
      it->second.inA.push_back(&la.programs[p.a]);
  }
  bool compileTime = false;
  for (const auto &key : order) {
    Group &g = groups[key];
    size_t k = g.names.size();
    std::string who = k == misses && k > 1 ? "All " + std::to_string(k)
                                            : nameList(g.names);
    who = upperFirst(who);
    if (key == "new")
      s += " " + who + (k == 1 ? " is " : " are ") + g.text + ".";
    else if (key.rfind("equal ", 0) == 0) {
      s += " " + who + (k == 1 ? " has" : " have") + " the same key as in " +
           la.name + ", " + equalMissClause(g.kind, la, lb, g.inA) + ".";
      for (const auto *p : g.inA)
        compileTime = compileTime || (g.kind == EqualMiss::NotWritten &&
                                      p->write.reason == NotWrittenReason::CompileTime);
    } else
      s += " " + who + (k == 1 ? " has " : " have ") + g.text + ".";
  }
  if (compileTime)
    s += " To cache programs that compile fast, lower " +
         std::string(kMinCompileTime) + ", e.g. jax.config.update(\"" +
         kMinCompileTime + "\", 0) or JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS=0.";
  return s;
}

Json digestsJson(const std::array<std::optional<Digest>, kNumEntries> &d) {
  Json j = Json::array();
  for (const auto &x : d)
    j.push_back(x ? Json(toHex(*x)) : Json());
  return j;
}

Json logJson(const LogSummary &l) {
  Json j;
  j["name"] = l.name;
  j["lines"] = l.lines;
  size_t hits = 0, misses = 0;
  for (const auto &p : l.programs) {
    hits += p.lookup == Lookup::Hit;
    misses += p.lookup == Lookup::Miss;
  }
  j["programs"] = l.comparable().size();
  j["hits"] = hits;
  j["misses"] = misses;
  auto v = jaxlibOf(l);
  j["jaxlib"] = v ? Json(*v) : Json();
  j["cache_dirs"] = l.cacheDirs;
  j["autotune_caches"] = l.autotuneCaches;
  j["kernel_caches"] = l.kernelCaches;
  j["cache_disabled"] = l.cacheDisabled;
  j["streams"] = l.streams;
  j["incomplete"] = l.incomplete;
  j["problems"] = l.problems;
  j["problem_count"] = l.problemCount;
  j["long_lines"] = l.longLines;
  j["ends_mid_line"] = l.endsMidLine;
  return j;
}

const char *keysName(ProgramPair::Keys k) {
  return k == ProgramPair::Keys::Equal    ? "equal"
         : k == ProgramPair::Keys::Differ ? "differ"
                                          : "unknown";
}

} // namespace

bool LogComparison::keysDiffer() const {
  for (const auto &p : pairs)
    if (p.keys == ProgramPair::Keys::Differ)
      return true;
  return false;
}

Expected<LogComparison> compareLogSummaries(LogSummary first, LogSummary second) {
  LogComparison r;
  r.logs[0] = std::move(first);
  r.logs[1] = std::move(second);
  for (int l = 0; l < 2; ++l) {
    const LogSummary &log = r.logs[l];
    if (!log.comparable().empty())
      continue;
    std::string msg =
        log.programs.empty()
            ? "no cache-key lines found. Enable them with "
              "logging.getLogger(\"jax._src.cache_key\").setLevel(logging.DEBUG) "
              "(and jax._src.compiler for the hits and misses) and give the "
              "whole log"
            : "no complete key: " + (log.incomplete.empty() ? std::string("")
                                                            : log.incomplete.front());
    if (!log.problems.empty())
      msg += " (" + log.problems.front() + ")";
    return Error{log.name, msg};
  }
  const LogSummary &la = r.logs[0], &lb = r.logs[1];
  r.pairs = pairPrograms(la, lb, r.pairedBy);
  std::vector<std::string> briefs(r.pairs.size());
  // A pair's Comparison is kept with the pair when its keys differ; of the
  // pairs whose keys are equal only the first one in both runs is kept (the
  // one explained when no key differs), so memory does not grow with
  // thousands of equal pairs.
  int firstInBoth = -1;
  for (size_t i = 0; i < r.pairs.size() && firstInBoth < 0; ++i)
    if (r.pairs[i].a >= 0 && r.pairs[i].b >= 0)
      firstInBoth = static_cast<int>(i);
  std::optional<Comparison> firstInBothComparison;
  for (size_t i = 0; i < r.pairs.size(); ++i) {
    ProgramPair &p = r.pairs[i];
    if (p.a >= 0)
      p.outcome[0] = outcomePhrase(la.programs[p.a]);
    if (p.b >= 0)
      p.outcome[1] = outcomePhrase(lb.programs[p.b]);
    if (p.a < 0 || p.b < 0)
      continue;
    const LoggedProgram &pa = la.programs[p.a], &pb = lb.programs[p.b];
    auto fa = pa.finalDigest(), fb = pb.finalDigest();
    p.keys = !fa || !fb   ? ProgramPair::Keys::Unknown
             : *fa == *fb ? ProgramPair::Keys::Equal
                          : ProgramPair::Keys::Differ;
    if (pa.complete() && pb.complete()) {
      Comparison c = explainPair(la, lb, pa, pb, &briefs[i]);
      if (p.keys == ProgramPair::Keys::Differ)
        p.comparison = std::move(c);
      else if (static_cast<int>(i) == firstInBoth)
        firstInBothComparison = std::move(c);
    } else if (p.keys == ProgramPair::Keys::Differ) {
      briefs[i] = std::string("the keys differ (") +
                  (!pa.complete() && !pb.complete()
                       ? "neither run logged the trace"
                       : "the trace of one run was not logged") +
                  ")";
    }
  }
  for (size_t i = 0; i < r.pairs.size(); ++i)
    r.pairs[i].verdict = pairVerdict(r, r.pairs[i], briefs[i]);

  // The pair the explanation names.
  for (size_t i = 0; i < r.pairs.size() && r.explained < 0; ++i)
    if (r.pairs[i].keys == ProgramPair::Keys::Differ)
      r.explained = static_cast<int>(i);
  for (size_t i = 0; i < r.pairs.size() && r.explained < 0; ++i)
    if (r.pairs[i].a >= 0 && r.pairs[i].b >= 0)
      r.explained = static_cast<int>(i);

  size_t na = la.comparable().size(), nb = lb.comparable().size();
  std::string s = la.name + " holds " + plural(na, "program", "programs") +
                  " and " + lb.name + " " + std::to_string(nb) + "; ";
  s += r.pairedBy == "order"
           ? "the logs name no programs (no hit or miss lines), so they are "
             "paired in order. "
           : "paired by " + r.pairedBy + ", then by order within a name. ";
  std::vector<std::string> onlyA, onlyB, equal;
  for (const auto &p : r.pairs) {
    if (p.a < 0)
      onlyB.push_back(p.label);
    else if (p.b < 0)
      onlyA.push_back(p.label);
    else if (p.keys == ProgramPair::Keys::Equal)
      equal.push_back(p.label);
  }
  if (r.explained >= 0 && r.pairs[r.explained].keys == ProgramPair::Keys::Differ) {
    const ProgramPair &x = r.pairs[r.explained];
    if (x.comparison)
      r.comparison = *x.comparison;
    s += upperFirst(x.label) + " is the first pair whose keys differ. ";
    s += r.comparison.cause ? r.comparison.sentence
                            : capitalised(briefs[r.explained]) + ".";
    // The other differing pairs: the same cause, or which other.
    std::vector<std::string> same;
    std::map<std::string, std::vector<std::string>> other;
    std::vector<std::string> otherOrder;
    for (size_t i = 0; i < r.pairs.size(); ++i) {
      if (static_cast<int>(i) == r.explained ||
          r.pairs[i].keys != ProgramPair::Keys::Differ)
        continue;
      if (briefs[i] == briefs[r.explained])
        same.push_back(r.pairs[i].label);
      else {
        if (!other.count(briefs[i]))
          otherOrder.push_back(briefs[i]);
        other[briefs[i]].push_back(r.pairs[i].label);
      }
    }
    if (!same.empty())
      s += " " + upperFirst(nameList(same)) + (same.size() == 1 ? " differs" : " differ") +
           " for the same reason.";
    for (const auto &b : otherOrder)
      s += " " + upperFirst(nameList(other[b])) + (other[b].size() == 1 ? " differs" : " differ") +
           " for another reason: " + b + ".";
    if (!equal.empty())
      s += " " + upperFirst(nameList(equal)) + (equal.size() == 1 ? " has" : " have") +
           " the same key in both runs.";
  } else if (!equal.empty()) {
    if (r.explained >= 0 && r.explained == firstInBoth && firstInBothComparison)
      r.comparison = *firstInBothComparison;
    s += (equal.size() == 1 ? std::string("The paired program has")
                            : "All " + std::to_string(equal.size()) +
                                  " paired programs have") +
         " the same key in both runs: nothing moved.";
    if (!r.comparison.unhashed.empty()) {
      s += " Not hashed, so not a cause: ";
      for (size_t i = 0; i < r.comparison.unhashed.size() && i < 4; ++i)
        s += (i ? "; " : "") + r.comparison.unhashed[i];
      s += ".";
    }
  } else {
    s += "No program pairs with one in the other log.";
  }
  if (!onlyB.empty())
    s += " Only in " + lb.name + ": " + nameList(onlyB) + ".";
  if (!onlyA.empty())
    s += " Only in " + la.name + ": " + nameList(onlyA) + ".";
  for (const LogSummary *l : {&la, &lb}) {
    for (const auto &cut : l->incomplete)
      r.notes.push_back(l->name + ": " + cut + "; that program is left out.");
    for (const auto &pr : l->problems)
      r.notes.push_back(l->name + ": " + pr);
    if (l->problemCount > l->problems.size())
      r.notes.push_back(l->name + ": " +
                        std::to_string(l->problemCount - l->problems.size()) +
                        " more unreadable lines");
    if (l->longLines)
      r.notes.push_back(l->name + ": " + plural(l->longLines, "line", "lines") +
                        " longer than 1 MiB, read in part");
    if (l->keyErrors)
      r.notes.push_back(l->name + ": " + plural(l->keyErrors, "program", "programs") +
                        " skipped the cache because JAX could not make a key: " +
                        shortened(l->firstKeyError, 160));
    if (l->cacheDisabled || l->cacheInitFailed)
      r.notes.push_back(l->name + ": the persistent cache is " +
                        (l->cacheDisabled ? "disabled" : "not initialised") +
                        " in this run");
  }
  if (!r.notes.empty()) {
    size_t cuts = la.incomplete.size() + lb.incomplete.size();
    if (cuts)
      s += " " + plural(cuts, "key is", "keys are") +
           " incomplete and left out (see the notes).";
  }
  r.sentence = s;
  r.summary = runSummary(r, briefs);
  return r;
}

Expected<LogComparison> compareLogs(std::string_view logA, std::string_view logB,
                                    const std::string &nameA,
                                    const std::string &nameB) {
  return compareLogSummaries(readLog(logA, nameA), readLog(logB, nameB));
}

/// One pair as logComparisonToJson lists it.
static Json pairJson(const LogComparison &r, const ProgramPair &p) {
  Json q;
  q["label"] = p.label;
  q["name"] = p.name;
  q["ordinal"] = p.ordinal;
  q["in"] = p.a < 0 ? "b" : p.b < 0 ? "a" : "both";
  q["keys"] = keysName(p.keys);
  q["cause"] = p.comparison ? p.comparison->cause : 0;
  q["outcome_a"] = p.outcome[0];
  q["outcome_b"] = p.outcome[1];
  q["verdict"] = p.verdict;
  q["key_a"] = p.a >= 0 ? r.logs[0].programs[p.a].key : "";
  q["key_b"] = p.b >= 0 ? r.logs[1].programs[p.b].key : "";
  return q;
}

/// Everything logComparisonToJson gives except "pairs".
static Json comparisonHeadJson(const LogComparison &r) {
  Json j = comparisonToJson(r.comparison);
  j["sentence"] = r.sentence;
  j["summary"] = r.summary;
  j["notes"] = r.notes;
  j["paired_by"] = r.pairedBy;
  j["logs"] = Json::array({logJson(r.logs[0]), logJson(r.logs[1])});
  if (r.explained >= 0) {
    const ProgramPair &p = r.pairs[r.explained];
    const LoggedProgram &a = r.logs[0].programs[p.a], &b = r.logs[1].programs[p.b];
    Json x;
    x["index"] = r.explained;
    x["label"] = p.label;
    x["a"] = {{"own", digestsJson(a.own)}, {"running", digestsJson(a.running)}};
    x["b"] = {{"own", digestsJson(b.own)}, {"running", digestsJson(b.running)}};
    Json decoded = Json::array();
    for (int e : {2, 3, 4, 7, 8}) {
      auto da = a.own[e - 1] ? decodeEntryDigest(e, *a.own[e - 1]) : std::nullopt;
      auto db = b.own[e - 1] ? decodeEntryDigest(e, *b.own[e - 1]) : std::nullopt;
      decoded.push_back({{"entry", e},
                         {"a", da ? Json(da->text) : Json()},
                         {"b", db ? Json(db->text) : Json()}});
    }
    x["decoded"] = decoded;
    j["explained"] = x;
    j["entry_names"] = kEntryNames; // row labels, 1…8 by ingredient
  } else {
    j["explained"] = nullptr;
  }
  return j;
}

Json logComparisonToJson(const LogComparison &r) {
  Json j = comparisonHeadJson(r);
  Json pairs = Json::array();
  for (const auto &p : r.pairs)
    pairs.push_back(pairJson(r, p));
  j["pairs"] = std::move(pairs);
  return j;
}

static std::string dumpJsonText(const Json &j, int indent) {
  return j.dump(indent, ' ', false, Json::error_handler_t::replace);
}

void writeLogComparisonJson(std::ostream &os, const LogComparison &r) {
  // The head, whose last member is followed by "\n}", then "pairs" written
  // one pair at a time, each indented as dump(2) would nest it.
  std::string head = dumpJsonText(comparisonHeadJson(r), 2);
  head.resize(head.size() - 2); // drop "\n}"
  os << head << ",\n  \"pairs\": [";
  for (size_t i = 0; i < r.pairs.size(); ++i) {
    std::string q = dumpJsonText(pairJson(r, r.pairs[i]), 2);
    os << (i ? ",\n    " : "\n    ");
    // JSON strings hold no raw line breaks, so every "\n" is layout.
    for (char c : q) {
      os << c;
      if (c == '\n')
        os << "    ";
    }
  }
  os << (r.pairs.empty() ? "]\n}" : "\n  ]\n}");
}

void writeLogComparison(std::ostream &os, const LogComparison &r) {
  os << r.sentence << "\n";
  os << "Programs (paired by " << r.pairedBy << "):\n";
  for (const auto &p : r.pairs) {
    os << "  " << p.label << ": " << p.verdict << ".";
    for (int side = 0; side < 2; ++side)
      if ((side ? p.b : p.a) >= 0)
        os << " " << r.logs[side].name << ": " << p.outcome[side] << ".";
    os << "\n";
  }
  for (const auto &n : r.notes)
    os << "note: " << n << "\n";
  os << "Summary: " << r.summary << "\n";
}

std::string formatLogComparison(const LogComparison &r) {
  std::ostringstream os;
  writeLogComparison(os, r);
  return os.str();
}

} // namespace cachekey
