//===- CaptureDiff.cpp - Why keys differ between two captured runs --------===//
#include "cachekey/CaptureDiff.h"

#include "cachekey/Wording.h"

#include "cachekey/PyText.h"
#include "cachekey/TextDiff.h"

#include <algorithm>
#include <map>
#include <set>

namespace cachekey {

namespace {

std::vector<std::string> splitFeatures(const std::string &s) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= s.size()) {
    size_t comma = s.find(',', start);
    if (comma == std::string::npos)
      comma = s.size();
    if (comma > start)
      out.push_back(s.substr(start, comma - start));
    start = comma + 1;
  }
  return out;
}

std::string listSome(const std::vector<std::string> &xs, size_t most = 8) {
  std::string s;
  for (size_t i = 0; i < xs.size() && i < most; ++i)
    s += (i ? ", " : "") + xs[i];
  if (xs.size() > most)
    s += " and " + std::to_string(xs.size() - most) + " more";
  return s;
}

std::optional<CpuTopology> cpuTopologyOf(const CapturedProgram &p) {
  auto s = readScenario(p.scenario, FixtureResolver{});
  if (!s)
    return std::nullopt;
  if (const auto *t = std::get_if<CpuTopology>(&s->accelerator))
    return *t;
  return std::nullopt;
}

std::string shortDigest(const std::string &hex) { return hex.substr(0, 16) + "…"; }

/// The unified diff of the module texts, or why there is none.
std::string moduleTextDiff(const CapturedProgram &a, const CapturedProgram &b,
                           const CaptureFileReader &readA,
                           const CaptureFileReader &readB,
                           const std::string &nameA, const std::string &nameB) {
  if (a.textSha256 == b.textSha256)
    return "The module text without locations is the same on both sides (SHA-256 " +
           shortDigest(a.textSha256) +
           "): entry 1 moved through what that text does not show (source "
           "locations, when include_metadata is on; or another jaxlib's MLIR "
           "producer and bytecode version).\n";
  if (!a.textFile || !b.textFile)
    return std::string("The module text was not captured (--no-module-text) on ") +
           (!a.textFile && !b.textFile ? "either side"
            : !a.textFile             ? "side " + nameA
                                      : "side " + nameB) +
           "; its SHA-256 moved " + shortDigest(a.textSha256) + " → " +
           shortDigest(b.textSha256) + ".\n";
  auto ta = readA(*a.textFile);
  auto tb = readB(*b.textFile);
  if (!ta || !tb)
    return "The module text could not be read: " +
           (!ta ? ta.error().str() : tb.error().str()) + "\n";
  return unifiedDiff(*ta, *tb, nameA + "/" + *a.textFile,
                     nameB + "/" + *b.textFile);
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

} // namespace

std::vector<std::string> describeCpuTopologyChange(const CpuTopology &a,
                                                   const CpuTopology &b) {
  std::vector<std::string> out;
  if (a.devices.size() != b.devices.size())
    out.push_back("CPU device count " + std::to_string(a.devices.size()) +
                  " → " + std::to_string(b.devices.size()));
  else
    for (size_t i = 0; i < a.devices.size(); ++i)
      if (a.devices[i].processIndex != b.devices[i].processIndex ||
          a.devices[i].localHardwareId != b.devices[i].localHardwareId) {
        out.push_back("CPU device " + std::to_string(i) +
                      " (process_index, local_hardware_id) (" +
                      std::to_string(a.devices[i].processIndex) + ", " +
                      std::to_string(a.devices[i].localHardwareId) + ") → (" +
                      std::to_string(b.devices[i].processIndex) + ", " +
                      std::to_string(b.devices[i].localHardwareId) + ")");
        break;
      }
  if (a.cpu != b.cpu)
    out.push_back("CPU model " + pyRepr(a.cpu) + " → " + pyRepr(b.cpu));
  if (a.triple != b.triple)
    out.push_back("target triple " + pyRepr(a.triple) + " → " + pyRepr(b.triple));
  if (a.features != b.features) {
    auto fa = splitFeatures(a.features), fb = splitFeatures(b.features);
    std::set<std::string> sa(fa.begin(), fa.end()), sb(fb.begin(), fb.end());
    std::vector<std::string> added, removed;
    for (const auto &f : fb)
      if (!sa.count(f))
        added.push_back(f);
    for (const auto &f : fa)
      if (!sb.count(f))
        removed.push_back(f);
    if (added.empty() && removed.empty())
      out.push_back("CPU features: the same set in another order");
    else
      out.push_back("CPU features" +
                    (added.empty() ? "" : " added: " + listSome(added)) +
                    (added.empty() || removed.empty() ? "" : ";") +
                    (removed.empty() ? "" : " removed: " + listSome(removed)));
  }
  return out;
}

Expected<CaptureComparison> compareCaptures(const CaptureFileReader &readA,
                                            const CaptureFileReader &readB,
                                            const std::string &nameA,
                                            const std::string &nameB) {
  auto pa = readCaptureIndex(readA);
  auto pb = readCaptureIndex(readB);
  if (!pa || !pb)
    return !pa ? Error{nameA, pa.error().str()} : Error{nameB, pb.error().str()};
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
      ++c.paired;
      struct Side {
        CapturedProgram program;
        KeyResult result;
      };
      auto load = [](const CaptureIndexRow &row, const CaptureFileReader &read,
                     const std::string &dir) -> Expected<Side> {
        auto p = readIndexedProgram(row, read);
        if (!p)
          return Error{dir, p.error().str()};
        auto r = computeCapturedKey(*p);
        if (!r)
          return Error{dir, r.error().str()};
        return Side{std::move(*p), std::move(*r)};
      };
      auto sa = load(*la[i], readA, nameA);
      if (!sa)
        return sa.takeError();
      auto sb = load(*lb[i], readB, nameB);
      if (!sb)
        return sb.takeError();
      const CapturedProgram &a = sa->program, &b = sb->program;
      const KeyResult *ra = &sa->result, *rb = &sb->result;
      for (auto [p, r, dir] : {std::tuple{&a, ra, &nameA}, {&b, rb, &nameB}})
        if (!checkCapturedKey(*p, *r).matches)
          c.notes.push_back(*dir + "/" + p->file +
                            ": the engine does not reproduce this captured "
                            "key; the details below may be off");
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
        cmp.details = {entryChangeText(digestOnly)};
        cmp.changes = {digestOnly};
        writeSentence(cmp);
      }
      auto also = [&d](std::string text, Json finding) {
        finding["text"] = text;
        d.alsoDetails.push_back(std::move(text));
        d.alsoFindings.push_back(std::move(finding));
      };
      for (int i2 : cmp.alsoChanged) {
        if (i2 == 1 && (a.entry1Omitted || b.entry1Omitted)) {
          also(entryLabel(1) + ": entry-1 SHA-256 " + shortDigest(a.entry1Sha256) +
                   " → " + shortDigest(b.entry1Sha256),
               {{"code", "entry1_digest_only"},
                {"entry", 1},
                {"before", shortDigest(a.entry1Sha256)},
                {"after", shortDigest(b.entry1Sha256)}});
          continue;
        }
        for (const auto &ch : entryChanges(*ra, *rb, i2)) {
          std::string text = entryLabel(i2) + ": " + entryChangeText(ch);
          also(text, entryChangeToJson(ch, text));
        }
      }
      for (const auto &f : excludedFlagChange(*ra, *rb))
        also("a flag JAX leaves out of the key (entry 4 does not hash it): " +
                 flagChangeText(f),
             {{"code", "excluded_flag_change"}, {"entry", 4},
              {"flag", flagChangeToJson(f)}});
      bool moved6 = cmp.cause == 6 || std::count(cmp.alsoChanged.begin(),
                                                 cmp.alsoChanged.end(), 6);
      if (moved6) {
        auto ta = cpuTopologyOf(a), tb = cpuTopologyOf(b);
        if (ta && tb)
          for (const auto &s : describeCpuTopologyChange(*ta, *tb))
            also(entryLabel(6) + ": " + s, {{"code", "cpu_topology"}, {"entry", 6}});
      }
      bool moved1 = cmp.cause == 1 || std::count(cmp.alsoChanged.begin(),
                                                 cmp.alsoChanged.end(), 1);
      if (moved1)
        d.textDiff = moduleTextDiff(a, b, readA, readB, nameA, nameB);
      c.differing.push_back(std::move(d));
    }
    for (size_t i = n; i < la.size(); ++i)
      c.onlyA.push_back({name, la[i]->occurrence, la[i]->file});
    for (size_t i = n; i < lb.size(); ++i)
      c.onlyB.push_back({name, lb[i]->occurrence, lb[i]->file});
  }
  return c;
}

std::string captureSummaryText(const CaptureComparison &c) {
  return std::to_string(c.paired) + " programs paired: " +
         std::to_string(c.sameKey) + " with the same key" +
         (c.sameKeyElsewhere
              ? " (" + std::to_string(c.sameKeyElsewhere) +
                    " of them found by key in another order)"
              : std::string()) +
         ", " + std::to_string(c.differing.size()) + " with different keys; " +
         std::to_string(c.onlyA.size()) + " only in A, " +
         std::to_string(c.onlyB.size()) + " only in B.";
}

std::string captureComparisonText(const CaptureComparison &c) {
  std::string out;
  auto outcome = [](const std::string &o) {
    return o.empty() ? std::string() : ", " + o;
  };
  for (const ProgramDifference &d : c.differing) {
    out += d.program + " #" + std::to_string(d.occurrence) +
           (d.occurrenceB != d.occurrence
                ? " (#" + std::to_string(d.occurrenceB) + " in B)"
                : std::string()) +
           ": the keys differ\n";
    out += "  " + d.comparison.sentence + "\n";
    for (const auto &s : d.comparison.details)
      out += "  - " + s + "\n";
    for (const auto &s : d.alsoDetails)
      out += "  - " + s + "\n";
    out += "  A: " + d.keyA + "  (" + d.fileA + outcome(d.outcomeA) + ")\n";
    out += "  B: " + d.keyB + "  (" + d.fileB + outcome(d.outcomeB) + ")\n";
    for (const auto &n : d.comparison.notes)
      out += "  note: " + n + "\n";
    if (!d.comparison.adviceText.empty())
      out += "  What to do: " + d.comparison.adviceText + "\n";
    if (!d.textDiff.empty()) {
      size_t start = 0;
      while (start < d.textDiff.size()) {
        size_t nl = d.textDiff.find('\n', start);
        if (nl == std::string::npos)
          nl = d.textDiff.size();
        out += "    " + d.textDiff.substr(start, nl - start) + "\n";
        start = nl + 1;
      }
    }
    out += "\n";
  }
  for (const auto &u : c.onlyA)
    out += "Only in A: " + u.program + " #" + std::to_string(u.occurrence) +
           " (" + u.file + ")\n";
  for (const auto &u : c.onlyB)
    out += "Only in B: " + u.program + " #" + std::to_string(u.occurrence) +
           " (" + u.file + ")\n";
  for (const auto &n : c.notes)
    out += "note: " + n + "\n";
  std::map<int, size_t> causes;
  for (const ProgramDifference &d : c.differing)
    ++causes[d.comparison.cause];
  for (const auto &[cause, count] : causes)
    out += "Cause " + (cause ? entryLabel(cause) : std::string("none")) +
           ": " + std::to_string(count) + " program" + (count == 1 ? "" : "s") +
           ".\n";
  out += captureSummaryText(c) + "\n";
  return out;
}

Json captureComparisonToJson(const CaptureComparison &c) {
  Json j;
  j["paired"] = c.paired;
  j["same_key"] = c.sameKey;
  Json diffs = Json::array();
  for (const ProgramDifference &d : c.differing) {
    Json x;
    x["program"] = d.program;
    x["occurrence"] = d.occurrence;
    x["occurrence_b"] = d.occurrenceB;
    x["file_a"] = d.fileA;
    x["file_b"] = d.fileB;
    x["key_a"] = d.keyA;
    x["key_b"] = d.keyB;
    x["outcome_a"] = d.outcomeA;
    x["outcome_b"] = d.outcomeB;
    x["comparison"] = comparisonToJson(d.comparison);
    x["also_details"] = d.alsoDetails;
    x["also_findings"] = d.alsoFindings;
    x["text_diff"] = d.textDiff;
    diffs.push_back(std::move(x));
  }
  j["differing"] = std::move(diffs);
  for (auto [key, list] : {std::pair{"only_a", &c.onlyA}, {"only_b", &c.onlyB}}) {
    Json arr = Json::array();
    for (const auto &u : *list)
      arr.push_back({{"program", u.program}, {"occurrence", u.occurrence},
                     {"file", u.file}});
    j[key] = std::move(arr);
  }
  j["notes"] = c.notes;
  Json notes = Json::array();
  for (const auto &n : c.notes)
    notes.push_back({{"code", "capture_not_reproduced"}, {"text", n}});
  j["note_findings"] = std::move(notes);
  j["summary"] = {{"code", "capture_summary"},
                  {"paired", c.paired},
                  {"same_key", c.sameKey},
                  {"same_key_elsewhere", c.sameKeyElsewhere},
                  {"differing", c.differing.size()},
                  {"only_a", c.onlyA.size()},
                  {"only_b", c.onlyB.size()},
                  {"text", captureSummaryText(c)}};
  return j;
}

} // namespace cachekey
