//===- LogCompareJson.cpp - The log comparison as JSON --------------------===//
//
// logComparisonToJson and its streamed twin writeLogComparisonJson
// (LogCompare.h): the explained pair's Comparison, the logs, the pairs and
// the explained pair's digests. Every finding carries its code and fields
// beside the words the page shows today.
//
//===----------------------------------------------------------------------===//
#include "LogFacts.h"

#include "cachekey/KnownDigests.h"
#include "cachekey/Wording.h"

#include <ostream>

namespace cachekey {

using namespace logs;

namespace {

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

/// One pair as logComparisonToJson lists it.
Json pairJson(const LogComparison &r, const ProgramPair &p) {
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
Json comparisonHeadJson(const LogComparison &r) {
  Json j = comparisonToJson(r.comparison);
  j["sentence"] = r.sentence;
  j["summary"] = r.summary;
  j["notes"] = r.notes;
  j["paired_by"] = pairedByName(r.pairedBy);
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

std::string dumpJsonText(const Json &j, int indent) {
  return j.dump(indent, ' ', false, Json::error_handler_t::replace);
}

} // namespace

Json logComparisonToJson(const LogComparison &r) {
  Json j = comparisonHeadJson(r);
  Json pairs = Json::array();
  for (const auto &p : r.pairs)
    pairs.push_back(pairJson(r, p));
  j["pairs"] = std::move(pairs);
  return j;
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

} // namespace cachekey
