//===- CaptureDiff.cpp - Why keys differ between two captured runs --------===//
#include "cachekey/CaptureDiff.h"

#include "cachekey/ModuleDiff.h"
#include "cachekey/Wording.h"

#include "cachekey/TextDiff.h"

#include <algorithm>
#include <map>

namespace cachekey {

namespace {

/// The unified diff of the module texts, or why there is none.
ModuleTextDiff moduleTextDiff(const CapturedProgram &a, const CapturedProgram &b,
                              const CaptureFileReader &readA,
                              const CaptureFileReader &readB,
                              const std::string &nameA, const std::string &nameB) {
  using C = ModuleTextDiff::Code;
  ModuleTextDiff d;
  d.sha256A = a.textSha256, d.sha256B = b.textSha256;
  d.nameA = nameA, d.nameB = nameB;
  d.capturedA = a.textFile.has_value(), d.capturedB = b.textFile.has_value();
  if (a.textSha256 == b.textSha256) {
    d.code = C::SameText;
    return d;
  }
  if (!a.textFile || !b.textFile) {
    d.code = C::NotCaptured;
    return d;
  }
  auto ta = readA(*a.textFile);
  auto tb = readB(*b.textFile);
  if (!ta || !tb) {
    d.code = C::Unreadable;
    d.error = !ta ? ta.error() : tb.error();
    return d;
  }
  d.code = C::Diff;
  d.diff = diffLines(*ta, *tb, nameA + "/" + *a.textFile,
                     nameB + "/" + *b.textFile);
  return d;
}

/// How the flags JAX leaves out of the key moved (they change no entry, but
/// often explain one: --xla_force_host_platform_device_count moves entry 6).
std::vector<FlagChange> excludedFlagChange(const KeyResult &a,
                                           const KeyResult &b) {
  auto excludedOf = [](const KeyResult &r) {
    std::vector<std::string> out;
    for (const auto &f : r.flags)
      if (!f.included)
        out.push_back(f.flag);
    std::sort(out.begin(), out.end());
    return out;
  };
  if (excludedOf(a) == excludedOf(b))
    return {};
  return flagChanges(loggedFlags(a.flags), loggedFlags(b.flags),
                     /*excluded=*/true);
}

/// True when `changes` already name what changed inside entry 1.
bool hasModuleFinding(const std::vector<EntryChange> &changes) {
  return std::any_of(changes.begin(), changes.end(), [](const EntryChange &c) {
    return c.entry == 1 && c.code == EntryChange::Code::ModuleFinding;
  });
}

/// The structural diff (ModuleDiff.h) of the generic-form texts both sides
/// kept, as ModuleFinding changes of entry 1; empty when a side kept none,
/// a file cannot be read, no differ is installed (a build without MLIR) or
/// the differ finds nothing. The entry-1 bytes are tried first, in
/// entryChanges; these texts are for the bytecode of a newer MLIR, which
/// the engine's MLIR cannot read.
std::vector<EntryChange> genericTextFindings(const CapturedProgram &a,
                                             const CapturedProgram &b,
                                             const CaptureFileReader &readA,
                                             const CaptureFileReader &readB,
                                             const std::string &nameA,
                                             const std::string &nameB,
                                             std::optional<Error> &why) {
  std::vector<EntryChange> out;
  if (!a.genericTextFile || !b.genericTextFile)
    return out;
  // A build without MLIR (the pip wheel, a wasm module without it) says so,
  // in the same words wherever it runs.
  auto noMlir = [] {
    return Error{"", "this build has no MLIR module diff", ErrorCode::NoMlir};
  };
  ModuleDiffer differ = moduleDiffer();
  if (!differ) {
    why = noMlir();
    return out;
  }
  auto ta = readA(*a.genericTextFile);
  auto tb = readB(*b.genericTextFile);
  if (!ta || !tb) {
    why = !ta ? ta.takeError().within(nameA) : tb.takeError().within(nameB);
    return out;
  }
  auto d = differ(std::string(ta->begin(), ta->end()),
                  std::string(tb->begin(), tb->end()));
  if (!d) {
    why = d.error().code == ErrorCode::NoMlir ? noMlir() : d.error();
    return out;
  }
  for (auto &f : d->findings) {
    EntryChange m;
    m.code = EntryChange::Code::ModuleFinding;
    m.entry = 1;
    m.module = std::make_shared<const ModuleFinding>(std::move(f));
    out.push_back(std::move(m));
  }
  return out;
}

/// What the recorded JAX options say about a differing pair: each option
/// both captures recorded with another value is an also-finding; and when
/// both recorded jax_enable_x64 with one value, a widening of every float
/// argument is not put down to it (ModuleFinding::x64 cleared, so its words
/// and advice are about the arguments).
void correctWithSettings(const CapturedProgram &a, const CapturedProgram &b,
                         ProgramDifference &d) {
  for (const auto &[name, va] : a.settings.items()) {
    auto vb = b.settings.find(name);
    if (vb == b.settings.end() || *vb == va)
      continue;
    AlsoFinding f;
    f.code = AlsoFinding::Code::JaxSetting;
    f.setting = name;
    f.before = va;
    f.after = *vb;
    d.also.push_back(std::move(f));
  }
  auto x64a = a.settings.find("jax_enable_x64"), x64b = b.settings.find("jax_enable_x64");
  if (x64a == a.settings.end() || x64b == b.settings.end() || *x64a != *x64b)
    return;
  auto clear = [](EntryChange &ch) {
    if (ch.code != EntryChange::Code::ModuleFinding || !ch.module || !ch.module->x64)
      return false;
    ModuleFinding f = *ch.module;
    f.x64 = false;
    ch.module = std::make_shared<const ModuleFinding>(std::move(f));
    return true;
  };
  for (auto &ch : d.comparison.changes)
    clear(ch);
  for (auto &f : d.also)
    if (f.code == AlsoFinding::Code::EntryChange)
      clear(f.change);
}

} // namespace

std::vector<const AlsoFinding *> ProgramDifference::adviceSettings() const {
  std::vector<const AlsoFinding *> out;
  if (comparison.cause != 1 && comparison.cause != 5)
    return out;
  for (const auto &f : also)
    if (f.code == AlsoFinding::Code::JaxSetting &&
        f.setting != "jax_compilation_cache_include_metadata_in_key")
      out.push_back(&f);
  return out;
}

Expected<CaptureComparison> compareCaptures(const CaptureFileReader &readA,
                                            const CaptureFileReader &readB,
                                            const std::string &nameA,
                                            const std::string &nameB) {
  auto pa = readCaptureIndex(readA);
  auto pb = readCaptureIndex(readB);
  if (!pa || !pb)
    return !pa ? pa.takeError().within(nameA) : pb.takeError().within(nameB);
  // 1. By key: a program of B whose key A also holds is the same program,
  //    whatever its name or place (real JAX would have hit on it).
  // 2. The rest by name, then by order within a name.
  // Only pairs whose keys differ are read beyond index.json.
  std::vector<bool> usedA(pa->size()), usedB(pb->size());
  CaptureComparison c;
  {
    std::map<std::string, std::vector<size_t>> keysA; // key → A rows, in order
    for (size_t i = 0; i < pa->size(); ++i)
      keysA[(*pa)[i].key].push_back(i);
    std::map<std::string, size_t> nextA;
    for (size_t j = 0; j < pb->size(); ++j) {
      auto it = keysA.find((*pb)[j].key);
      if (it == keysA.end())
        continue;
      size_t &next = nextA[it->first];
      if (next == it->second.size())
        continue;
      size_t i = it->second[next++];
      usedA[i] = usedB[j] = true;
      ++c.paired, ++c.sameKey;
      const CaptureIndexRow &ra = (*pa)[i], &rb = (*pb)[j];
      if (ra.program != rb.program || ra.occurrence != rb.occurrence)
        ++c.sameKeyElsewhere;
    }
  }
  std::map<std::string, std::vector<const CaptureIndexRow *>> byA, byB;
  std::vector<std::string> names; // first-seen order over A then B
  for (size_t i = 0; i < pa->size(); ++i) {
    const auto &p = (*pa)[i];
    if (usedA[i])
      continue;
    if (!byA.count(p.program) && !byB.count(p.program))
      names.push_back(p.program);
    byA[p.program].push_back(&p);
  }
  for (size_t j = 0; j < pb->size(); ++j) {
    const auto &p = (*pb)[j];
    if (usedB[j])
      continue;
    if (!byA.count(p.program) && !byB.count(p.program))
      names.push_back(p.program);
    byB[p.program].push_back(&p);
  }
  for (const std::string &name : names) {
    const auto &la = byA[name], &lb = byB[name];
    size_t n = std::min(la.size(), lb.size());
    for (size_t i = 0; i < n; ++i) {
      struct Side {
        CapturedProgram program;
        KeyResult result;
      };
      auto load = [](const CaptureIndexRow &row, const CaptureFileReader &read,
                     const std::string &dir) -> Expected<Side> {
        auto p = readIndexedProgram(row, read);
        if (!p)
          return p.takeError().within(dir);
        auto r = computeCapturedKey(*p);
        if (!r)
          return r.takeError().within(dir);
        return Side{std::move(*p), std::move(*r)};
      };
      // A damaged file leaves its pair out, with its error; the others
      // are still compared (a partial result, not a refusal).
      auto sa = load(*la[i], readA, nameA);
      auto sb = load(*lb[i], readB, nameB);
      if (!sa || !sb) {
        for (auto [side, row, label] :
             {std::tuple{&sa, la[i], &nameA}, {&sb, lb[i], &nameB}})
          if (!*side)
            c.unreadable.push_back(
                {*label, name, row->occurrence, row->file, side->error()});
        continue;
      }
      ++c.paired;
      const CapturedProgram &a = sa->program, &b = sb->program;
      const KeyResult *ra = &sa->result, *rb = &sb->result;
      for (auto [p, r, dir] : {std::tuple{&a, ra, &nameA}, {&b, rb, &nameB}})
        if (!checkCapturedKey(*p, *r).matches)
          c.notes.push_back({*dir, p->file});
      ProgramDifference d;
      d.program = name;
      d.occurrence = la[i]->occurrence;
      d.occurrenceB = lb[i]->occurrence;
      d.fileA = a.file, d.fileB = b.file;
      d.keyA = a.expectedKey, d.keyB = b.expectedKey;
      d.outcomeA = a.outcome, d.outcomeB = b.outcome;
      d.comparison = compareResults(*ra, *rb);
      Comparison &cmp = d.comparison;
      if (cmp.cause == 1 && (a.entry1Omitted || b.entry1Omitted)) {
        EntryChange digestOnly;
        digestOnly.code = EntryChange::Code::Entry1DigestOnly;
        digestOnly.entry = 1;
        digestOnly.before = shortDigest(a.entry1Sha256);
        digestOnly.after = shortDigest(b.entry1Sha256);
        cmp.changes = {digestOnly};
      }
      using AC = AlsoFinding::Code;
      auto also = [&d](AC code, int entry) -> AlsoFinding & {
        d.also.emplace_back();
        d.also.back().code = code;
        d.also.back().entry = entry;
        return d.also.back();
      };
      for (int i2 : cmp.alsoChanged) {
        if (i2 == 1 && (a.entry1Omitted || b.entry1Omitted)) {
          auto &f = also(AC::Entry1DigestOnly, 1);
          f.change.code = EntryChange::Code::Entry1DigestOnly;
          f.change.entry = 1;
          f.change.before = shortDigest(a.entry1Sha256);
          f.change.after = shortDigest(b.entry1Sha256);
          continue;
        }
        // compareResults already worked these out (with entry 1's module
        // diff, which is not cheap): take them, in order.
        for (const auto &ch : cmp.otherChanges)
          if (ch.entry == i2)
            also(AC::EntryChange, i2).change = ch;
      }
      // A moved entry 6's CPU topology fields are already among the
      // comparison's changes (acceleratorChanges): not said twice.
      for (auto &f : excludedFlagChange(*ra, *rb))
        also(AC::ExcludedFlagChange, 4).flag = std::move(f);
      bool moved1 = cmp.cause == 1 || std::count(cmp.alsoChanged.begin(),
                                                 cmp.alsoChanged.end(), 1);
      if (moved1)
        d.textDiff = moduleTextDiff(a, b, readA, readB, nameA, nameB);
      // Entry 1 moved and its bytes named nothing (jaxlib's bytecode is of a
      // newer MLIR): the generic texts the capture kept, diffed the same way.
      if (cmp.cause == 1 && !hasModuleFinding(cmp.changes)) {
        auto found = genericTextFindings(a, b, readA, readB, nameA, nameB, d.genericError);
        // They lead the details, and their advice leads (comparisonAdviceText).
        cmp.changes.insert(cmp.changes.begin(), found.begin(), found.end());
      } else if (cmp.cause != 1 && moved1) {
        bool named = std::any_of(d.also.begin(), d.also.end(), [](const AlsoFinding &f) {
          return f.code == AC::EntryChange && f.change.entry == 1 &&
                 f.change.code == EntryChange::Code::ModuleFinding;
        });
        if (!named) {
          auto found = genericTextFindings(a, b, readA, readB, nameA, nameB, d.genericError);
          auto at = std::find_if(d.also.begin(), d.also.end(), [](const AlsoFinding &f) {
            return f.entry == 1;
          });
          std::vector<AlsoFinding> add;
          for (auto &f : found) {
            AlsoFinding af;
            af.code = AC::EntryChange;
            af.entry = 1;
            af.change = std::move(f);
            add.push_back(std::move(af));
          }
          d.also.insert(at, add.begin(), add.end());
        }
      }
      correctWithSettings(a, b, d);
      c.differing.push_back(std::move(d));
    }
    for (size_t i = n; i < la.size(); ++i)
      c.onlyA.push_back({name, la[i]->occurrence, la[i]->file});
    for (size_t i = n; i < lb.size(); ++i)
      c.onlyB.push_back({name, lb[i]->occurrence, lb[i]->file});
  }
  return c;
}

} // namespace cachekey
