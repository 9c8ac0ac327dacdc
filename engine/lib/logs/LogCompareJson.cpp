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
    // A program of one run only that is probably the other's under a new
    // name (LogComparison::renames): that program's label.
    if (const int from = r.renamedFrom(p); from >= 0)
      m("renamed_from", r.labelOf(r.pairs[from]));
    if (const int to = r.renamedTo(p); to >= 0)
      m("renamed_to", r.labelOf(r.pairs[to]));
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
      const LogSummary &log = r.logs[side];
      const LoggedProgram &q = log.programs[program[side]];
      outcomeMembers(q, pairOutcomeText(r, p, side), &log.texts,
                     log.endsCompiling(q), m);
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
    if (a.evictionsLogged)
      x["evictions_logged"] = true;
    if (!a.settingsRelease.empty()) {
      x["settings"] = a.settings;
      x["settings_release"] = a.settingsRelease;
    }
    x["text"] = r.adviceText(a);
    todo.push_back(std::move(x));
  }
  return todo;
}

/// The notes as {code, text} items (codes: noteCodeName), about `logs`
/// (TreeItems, WriterItems).
template <class Items>
void notesItems(const std::vector<LogNote> &notes, const LogSummary *logs, const Items &items) {
  for (const LogNote &n : notes)
    items.object([&](const auto &m) {
      m("code", noteCodeName(n.code()));
      m("text", logNoteText(n, logs));
    });
}

/// The notes as [{code, text}].
Json notesJson(const std::vector<LogNote> &notes, const LogSummary *logs) {
  Json out = Json::array();
  notesItems(notes, logs, TreeItems{out});
  return out;
}

/// Everything logComparisonToJson gives before "pairs", member by member
/// (TreeMembers, WriterMembers): the explained pair's Comparison
/// (comparisonToJson's members, with the logs' own sentence, details and
/// notes, without its advice), then the logs' verdict, logs and advice.
/// `whatToDo(member)` gives the "what_to_do" member (LogAdvice, one item
/// each).
template <class Members, class WhatToDo>
void comparisonHeadMembers(const LogComparison &r, const Members &member,
                           const WhatToDo &whatToDo) {
  const Comparison &c = r.comparison;
  member("cause", c.cause);
  member("cause_name", c.cause ? kEntryNames[c.cause - 1] : "");
  member("with_cause", Json(c.withCause));
  member("link", causeLinkToJson(c));
  member("also_changed", Json(c.alsoChanged));
  member("consequences", Json(c.consequences));
  member.array("roles", [&](const auto &items) {
    for (int i = 1; i <= kNumEntries; ++i)
      items.object([&](const auto &m) {
        m("code", entryRoleCode(c.role(i)));
        m("text", entryRoleText(c.role(i)));
      });
  });
  member("sentence", comparisonSentence(r));
  // The facts are the logs' own: their findings (EntryChanges) behind the
  // details, and the reading notes; the unhashed inputs are the pair's.
  member.object("findings", [&](const auto &m) {
    m("details", findingsBeside(r.findings, findingsText(r.findings, false)));
    m("other_details", findingsBeside(r.otherFindings, findingsText(r.otherFindings, true)));
    m("unhashed", unhashedInputsToJson(c));
    m.array("notes", [&](const auto &items) { notesItems(r.notes, r.logs, items); });
  });
  member("summary", runSummary(r));
  member.object("paired_by", [&](const auto &m) {
    m("code", pairedByCode(r.pairedBy));
    m("text", pairedByName(r.pairedBy));
  });
  // The answer first: what the second run recompiled, and why.
  const LogVerdict &v = r.verdict;
  member.object("verdict", [&](const auto &m) {
    m("code", logVerdictCode(v.code));
    m("programs", v.programs);
    m("hits", v.hits);
    m("missed", v.missed);
    m("moved", v.moved);
    m("new", v.fresh);
    if (v.freshShapes)
      m("new_shapes", v.freshShapes);
    m("same_key", v.sameKey);
    m("unknown", v.unknown);
    m("paired", v.paired);
    m("paired_moved", v.pairedMoved);
    m.array("named", [&](const auto &items) {
      for (uint32_t i : v.named)
        items(r.labelOf(r.pairs[i]));
    });
    if (v.oneMove >= 0)
      m("move", keyMoveJson(r.moves[v.oneMove]));
    else
      m("move", nullptr);
    // To the microsecond: a sum of logged times, not 0.12000000000000001.
    if (v.timedMisses)
      m("compile_seconds", std::round(v.compileSeconds * 1e6) / 1e6);
    else
      m("compile_seconds", nullptr);
    m("timed_misses", v.timedMisses);
    if (v.cutAt)
      m("cut_at", v.cutAt);
    if (v.stopped >= 0)
      m("stopped_at", r.logs[1].endsCompilingAt);
    m("text", logVerdictText(r));
  });
  member.array("logs", [&](const auto &items) {
    for (int side = 0; side < 2; ++side)
      items.object([&](const auto &m) {
        logMembers(r.logs[side], m);
        const std::string stats = runStatsText(r.logs[side], r.stats[side]);
        m.object("stats", [&](const auto &x) { statsMembers(r.stats[side], stats, x); });
        m("evictions", r.logs[side].evictionLines);
        m("unsupported_runtime", r.logs[side].unsupportedRuntime);
      });
  });
  size_t byKey = 0;
  for (const auto &p : r.pairs)
    byKey += p.match == PairMatch::Key;
  member("matched_by_key", byKey);
  whatToDo(member);
  if (r.explained < 0) {
    member("explained", nullptr);
    return;
  }
  const ProgramPair &p = r.pairs[r.explained];
  const LoggedProgram &a = r.logs[0].programs[p.a], &b = r.logs[1].programs[p.b];
  member.object("explained", [&](const auto &m) {
    m("index", r.explained);
    m("label", r.labelOf(p));
    for (const LoggedProgram *side : {&a, &b})
      m.object(side == &a ? "a" : "b", [&](const auto &d) {
        d.array("own", [&](const auto &items) { digestsItems(side->digests().own, items); });
        d.array("running", [&](const auto &items) { digestsItems(side->digests().running, items); });
      });
    m.array("decoded", [&](const auto &items) {
      for (int e : {2, 3, 4, 7, 8})
        items.object([&](const auto &x) {
          x("entry", e);
          for (const LoggedProgram *side : {&a, &b}) {
            const auto &own = side->digests().own[e - 1];
            auto decoded = own ? decodeEntryDigest(e, *own) : std::nullopt;
            if (decoded)
              x(side == &a ? "a" : "b", decoded->text);
            else
              x(side == &a ? "a" : "b", nullptr);
          }
        });
    });
  });
  member.array("entry_names", [&](const auto &items) { // row labels, 1…8 by ingredient
    for (const char *name : kEntryNames)
      items(name);
  });
}

} // namespace

Json logComparisonToJson(const LogComparison &r) {
  Json j = objectFor(24);
  comparisonHeadMembers(r, TreeMembers{j}, [&](const TreeMembers &m) {
    m("what_to_do", adviceJson(r, r.advice));
  });
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
  comparisonHeadMembers(r, WriterMembers{w}, [&](const WriterMembers &) {
    const Json todo = adviceJson(r, r.advice, false);
    w.key("what_to_do");
    w.arrayBegin();
    size_t k = 0;
    for (auto &item : todo) {
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
  });
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
  // The answer first: the verdict's counts and its words (no "summary"
  // beside it: it was the same sentence).
  const ManyLogVerdict &v = r.verdict;
  Json odd = Json::array();
  for (size_t run = 0; run < v.oddPrograms.size(); ++run)
    if (v.oddPrograms[run])
      odd.push_back({{"run", run}, {"programs", v.oddPrograms[run]}});
  Json verdict = objectFor(5);
  verdict["code"] = manyVerdictCode(v.code);
  verdict["programs"] = v.programs;
  verdict["same_key"] = v.sameKey;
  verdict["odd"] = std::move(odd);
  verdict["text"] = manyVerdictText(r);
  j["verdict"] = std::move(verdict);
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
