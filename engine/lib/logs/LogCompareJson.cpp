//===- LogCompareJson.cpp - The log comparison as JSON --------------------===//
//
// logComparisonToJson and its streamed twin writeLogComparisonJson
// (LogCompare.h): the explained pair's Comparison, the logs, the pairs and
// the explained pair's digests. Every finding carries its code and fields
// beside the words the page shows today.
//
//===----------------------------------------------------------------------===//
#include "LogFacts.h"
#include "LogFactsJson.h"

#include "cachekey/KnownDigests.h"
#include "cachekey/Parallel.h"
#include "cachekey/Wording.h"

#include <cmath>
#include <ostream>

namespace cachekey {

using namespace logs;

namespace {

/// The members of one pair as logComparisonToJson lists it, without its
/// last, "findings" (pairFindingsMembers), which holds the outcomes and the
/// verdict: `member(name, value)` once each, in order (TreeMembers,
/// WriterMembers).
template <class Members>
void pairHeadMembers(const LogComparison &r, const ProgramPair &p, const Members &member) {
  member("label", r.labelOf(p));
  member("name", r.nameOf(p));
  member("ordinal", p.ordinal);
  member("in", p.a < 0 ? "b" : p.b < 0 ? "a" : "both");
  member("keys", keysName(p.keys));
  member("matched_by", matchCode(p.match));
  if (p.b >= 0 && r.logs[1].programs[p.b].shapes >= 0)
    member("shapes_b", r.logs[1].texts[r.logs[1].programs[p.b].shapes]);
  if (p.a >= 0 && r.logs[0].programs[p.a].shapes >= 0)
    member("shapes_a", r.logs[0].texts[r.logs[0].programs[p.a].shapes]);
  member("cause", p.cause);
  member("key_a", p.a >= 0 ? r.logs[0].keyOf(r.logs[0].programs[p.a]) : std::string());
  member("key_b", p.b >= 0 ? r.logs[1].keyOf(r.logs[1].programs[p.b]) : std::string());
}

/// A pair's "findings", member by member: "verdict", "move", "miss",
/// "outcome_a", "outcome_b", each {code, …fields, text} or null. `move`
/// gives the move's member: move(member, name, keyMove).
template <class Members, class Move>
void pairFindingsMembers(const LogComparison &r, const ProgramPair &p, const Members &member,
                         const Move &move) {
  member.object("verdict", [&](const auto &m) {
    const std::string_view code = verdictCode(r, p);
    m("code", code);
    // only_in_b: whether the first run compiled this name with these very
    // argument shapes (to another key; ProgramPair::shapesInFirst).
    if (code == "only_in_b")
      m("shapes_in_a", p.shapesInFirst);
    m("text", pairVerdictText(r, p));
  });
  if (p.keys == ProgramPair::Keys::Differ)
    move(member, "move", r.moveOf(p));
  else
    member("move", nullptr);
  if (p.miss)
    member.object("miss", [&](const auto &m) { m("code", missReasonCode(*p.miss)); });
  else
    member("miss", nullptr);
  const int program[2] = {p.a, p.b};
  for (int side = 0; side < 2; ++side) {
    const char *name = side ? "outcome_b" : "outcome_a";
    if (program[side] < 0) {
      member(name, nullptr);
      continue;
    }
    member.object(name, [&](const auto &m) {
      outcomeMembers(r.logs[side].programs[program[side]], pairOutcomeText(r, p, side),
                     &r.logs[side].texts, m);
    });
  }
}

/// One pair as logComparisonToJson lists it.
Json pairJson(const LogComparison &r, const ProgramPair &p) {
  Json q = objectFor(13);
  pairHeadMembers(r, p, TreeMembers{q});
  TreeMembers{q}.object("findings", [&](const TreeMembers &m) {
    pairFindingsMembers(r, p, m, [](const TreeMembers &t, const char *name, const KeyMove &k) {
      t(name, keyMoveJson(k));
    });
  });
  return q;
}

/// Writes pair `p`, an item of the open "pairs" array, as pairJson gives
/// it, member by member. Its key move is mostly that of many other pairs:
/// its text is made once per piece of output and kept in `moveTexts` (by
/// move index, "" until made; every pair of a piece is at one depth).
void writePair(JsonWriter &w, const LogComparison &r, const ProgramPair &p,
               std::vector<std::string> &moveTexts, int indent) {
  w.objectBegin();
  const WriterMembers member{w};
  pairHeadMembers(r, p, member);
  member.object("findings", [&](const WriterMembers &m) {
    pairFindingsMembers(r, p, m, [&](const WriterMembers &, const char *name, const KeyMove &k) {
      if (moveTexts.size() <= p.move)
        moveTexts.resize(p.move + 1);
      std::string &text = moveTexts[p.move];
      if (text.empty())
        JsonAppender(text, indent).append(keyMoveJson(k), w.depth());
      w.key(name);
      w.raw(text);
    });
  });
  w.objectEnd();
}

/// [{"code", "programs", "entry"?, "value"?, "amount"?, "limit"?, "text"}]
/// of a LogComparison or a ManyLogComparison: "programs" are the labels of
/// what each item is about, or empty arrays for the caller to fill when
/// `withLabels` is false (writeLogComparisonJson streams them).
template <class Comparison>
Json adviceJson(const Comparison &r, const std::vector<LogAdvice> &advice,
                bool withLabels = true) {
  Json todo = Json::array();
  for (const LogAdvice &a : advice) {
    Json labels = Json::array();
    if (withLabels) {
      labels.get_ref<Json::array_t &>().reserve(a.programs.size());
      for (uint32_t i : a.programs)
        labels.push_back(r.adviceLabel(i));
    }
    Json x = {{"code", logAdviceName(a.code)}, {"programs", std::move(labels)}};
    if (a.entry)
      x["entry"] = a.entry;
    if (!a.value.empty())
      x["value"] = a.value;
    if (a.amount >= 0)
      x["amount"] = a.amount;
    if (a.limit >= 0)
      x["limit"] = a.limit;
    if (!a.settingsRelease.empty()) {
      x["settings"] = a.settings;
      x["settings_release"] = a.settingsRelease;
    }
    x["text"] = r.adviceText(a);
    todo.push_back(std::move(x));
  }
  return todo;
}

/// The notes as [{code, text}] (codes: noteCodeName), about `logs`.
Json notesJson(const std::vector<LogNote> &notes, const LogSummary *logs) {
  Json out = Json::array();
  for (const LogNote &n : notes)
    out.push_back({{"code", noteCodeName(n.code())}, {"text", logNoteText(n, logs)}});
  return out;
}

/// Everything logComparisonToJson gives except "pairs".
/// `adviceLabels` false leaves each "what_to_do" item's "programs" empty.
Json comparisonHeadJson(const LogComparison &r, bool adviceLabels = true) {
  Json j = comparisonToJson(r.comparison);
  j["sentence"] = comparisonSentence(r);
  j["summary"] = runSummary(r);
  // The facts are the logs' own: their findings (EntryChanges) behind the
  // details, and the reading notes.
  j["findings"]["details"] = findingsBeside(r.findings, findingsText(r.findings, false));
  j["findings"]["other_details"] =
      findingsBeside(r.otherFindings, findingsText(r.otherFindings, true));
  j["findings"]["notes"] = notesJson(r.notes, r.logs);
  j["paired_by"] = {{"code", pairedByCode(r.pairedBy)}, {"text", pairedByName(r.pairedBy)}};
  {
    // The answer first: what the second run recompiled, and why.
    const LogVerdict &v = r.verdict;
    Json named = Json::array();
    for (uint32_t i : v.named)
      named.push_back(r.labelOf(r.pairs[i]));
    j["verdict"] = {{"code", logVerdictCode(v.code)},
                    {"programs", v.programs},
                    {"hits", v.hits},
                    {"missed", v.missed},
                    {"moved", v.moved},
                    {"new", v.fresh},
                    {"same_key", v.sameKey},
                    {"unknown", v.unknown},
                    {"paired", v.paired},
                    {"paired_moved", v.pairedMoved},
                    {"named", std::move(named)},
                    {"move", v.oneMove >= 0 ? keyMoveJson(r.moves[v.oneMove]) : Json()},
                    // To the microsecond: a sum of logged times, not 0.12000000000000001.
                    {"compile_seconds", v.timedMisses ? Json(std::round(v.compileSeconds * 1e6) / 1e6) : Json()},
                    {"timed_misses", v.timedMisses},
                    {"text", logVerdictText(r)}};
  }
  j["logs"] = Json::array({logJson(r.logs[0]), logJson(r.logs[1])});
  for (int side = 0; side < 2; ++side) {
    j["logs"][side]["stats"] = statsJson(r.stats[side], runStatsText(r.logs[side], r.stats[side]));
    j["logs"][side]["evictions"] = r.logs[side].evictionLines;
    j["logs"][side]["unsupported_runtime"] = r.logs[side].unsupportedRuntime;
  }
  size_t byKey = 0;
  for (const auto &p : r.pairs)
    byKey += p.match == PairMatch::Key;
  j["matched_by_key"] = byKey;
  // What to do about the second run's misses (LogAdvice), one item each.
  j.erase("advice"); // the explained pair's own (Diff.h) is not the run's
  j["what_to_do"] = adviceJson(r, r.advice, adviceLabels);
  if (r.explained >= 0) {
    const ProgramPair &p = r.pairs[r.explained];
    const LoggedProgram &a = r.logs[0].programs[p.a], &b = r.logs[1].programs[p.b];
    Json x;
    x["index"] = r.explained;
    x["label"] = r.labelOf(p);
    x["a"] = {{"own", digestsJson(a.digests().own)}, {"running", digestsJson(a.digests().running)}};
    x["b"] = {{"own", digestsJson(b.digests().own)}, {"running", digestsJson(b.digests().running)}};
    Json decoded = Json::array();
    for (int e : {2, 3, 4, 7, 8}) {
      auto da = a.digests().own[e - 1] ? decodeEntryDigest(e, *a.digests().own[e - 1]) : std::nullopt;
      auto db = b.digests().own[e - 1] ? decodeEntryDigest(e, *b.digests().own[e - 1]) : std::nullopt;
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

} // namespace

Json logComparisonToJson(const LogComparison &r) {
  Json j = comparisonHeadJson(r);
  Json pairs = Json::array();
  for (const auto &p : r.pairs)
    pairs.push_back(pairJson(r, p));
  j["pairs"] = std::move(pairs);
  return j;
}

void writeLogComparisonJson(std::ostream &os, const LogComparison &r,
                            const Json &trailing, int indent) {
  // The head's members, then "pairs" one pair at a time, then the trailing
  // members, through one JsonWriter: the bytes of dumpJson(whole, indent),
  // except that each pair is one line (dumpJson(pair)) at the array's
  // indentation.
  // The advice's "programs" (a label per pair: 220,000 in a large log) and
  // the pairs are written a block at a time and flushed as they go.
  std::string out;
  const auto flush = [&](size_t above) {
    if (out.size() >= above) {
      os.write(out.data(), static_cast<std::streamsize>(out.size()));
      out.clear();
    }
  };
  JsonWriter w(out, indent);
  w.objectBegin();
  Json head = comparisonHeadJson(r, false);
  for (auto &[name, value] : head.items()) {
    if (name != "what_to_do") {
      w.attribute(name, value);
      continue;
    }
    w.key(name);
    w.arrayBegin();
    size_t k = 0;
    for (auto &item : value) {
      const LogAdvice &a = r.advice[k++];
      w.objectBegin();
      for (auto &[member, v] : item.items()) {
        if (member != "programs") {
          w.attribute(member, v);
          continue;
        }
        w.key(member);
        w.arrayBegin();
        for (uint32_t i : a.programs) {
          w.string(r.adviceLabel(i));
          flush(size_t(64) << 10);
        }
        w.arrayEnd();
      }
      w.objectEnd();
    }
    w.arrayEnd();
  }
  w.key("pairs");
  w.arrayBegin();
  flush(0);
  // The pairs are made on every core, a block at a time, and written in
  // order: the same bytes as one thread, at most a few blocks in memory.
  const int depth = w.depth();
  makeInOrder(
      workerThreads(), r.pairs.size(), 512,
      [&](size_t i, std::string &piece) {
        // The key moves already written in this piece; the piece's thread
        // keeps them until its next piece starts.
        thread_local std::vector<std::string> moveTexts;
        if (piece.empty())
          moveTexts.clear();
        // Each pair on a line of its own (dumpJson(pair), one line), at the
        // array's indentation.
        thread_local std::string line;
        line.clear();
        JsonWriter one(line, -1);
        writePair(one, r, r.pairs[i], moveTexts, -1);
        JsonWriter(piece, indent, depth, i).raw(line);
      },
      [&](const std::string &piece) {
        os.write(piece.data(), static_cast<std::streamsize>(piece.size()));
      });
  w.itemsWrittenElsewhere(r.pairs.size());
  w.arrayEnd();
  for (const auto &[name, value] : trailing.items())
    w.attribute(name, value);
  w.objectEnd();
  flush(0);
}

Json manyLogComparisonToJson(const ManyLogComparison &r) {
  Json j;
  j["logs"] = Json::array();
  for (size_t i = 0; i < r.logs.size(); ++i)
    j["logs"].push_back(
        {{"name", r.logs[i].name},
         {"stats", statsJson(r.stats[i], runStatsText(r.logs[i], r.stats[i]))},
         {"odd_cause", i < r.oddCause.size() && r.oddCause[i].code != KeyMove::Code::None
                           ? keyMoveJson(r.oddCause[i])
                           : Json()}});
  Json programs = Json::array();
  for (size_t k = 0; k < r.programs.size(); ++k) {
    const ProgramAcrossRuns &p = r.programs[k];
    Json q;
    q["label"] = p.label;
    q["name"] = p.name;
    Json keys = Json::array();
    for (size_t run = 0; run < r.logs.size(); ++run) {
      auto d = p.program[run] >= 0 ? r.logs[run].programs[p.program[run]].finalDigest()
                                   : std::nullopt;
      keys.push_back(d ? Json(toHex(*d)) : Json());
    }
    q["keys"] = std::move(keys);
    q["groups"] = p.groups;
    q["common"] = p.common;
    Json odd = Json::array();
    for (const auto &o : p.odd)
      odd.push_back({{"run", o.run},
                     {"entries", o.entries},
                     {"cause", o.cause},
                     {"move", o.move.code == KeyMove::Code::None ? Json() : keyMoveJson(o.move)}});
    q["odd"] = std::move(odd);
    q["absent"] = p.absent;
    q["text"] = programAcrossRunsText(r, p);
    programs.push_back(std::move(q));
  }
  j["programs"] = std::move(programs);
  // As for two logs: the notes as {code, text}.
  j["findings"]["notes"] = notesJson(r.notes, r.logs.data());
  j["summary"] = manySummary(r);
  j["what_to_do"] = adviceJson(r, r.advice);
  j["keys_differ"] = r.keysDiffer();
  return j;
}

void writeLogComparisonJson(std::ostream &os, const ManyLogComparison &r,
                            const Json &trailing) {
  std::string out;
  JsonWriter w(out, 2);
  w.objectBegin();
  const Json whole = manyLogComparisonToJson(r);
  for (const auto &[name, value] : whole.items()) {
    if (name != "programs") {
      w.attribute(name, value);
      continue;
    }
    // As the pairs of two logs: each program on a line of its own.
    w.key(name);
    w.arrayBegin();
    for (const auto &program : value)
      w.raw(dumpJson(program));
    w.arrayEnd();
  }
  for (const auto &[name, value] : trailing.items())
    w.attribute(name, value);
  w.objectEnd();
  os.write(out.data(), static_cast<std::streamsize>(out.size()));
}

} // namespace cachekey
