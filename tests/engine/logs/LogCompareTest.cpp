// engine/lib/logs/LogCompare.cpp: the orchestration; and LogCompareJson.cpp.
#include "LogTestUtil.h"
#include "cachekey/Wording.h"

#include <array>
#include <map>
#include <sstream>

using namespace cachekey;
using namespace cachekey::test;

TEST(LogCompare, TheFirstDifferingPairIsExplained) {
  auto c = compareCase("23-one-program-changed", "run1.log", "run2.log");
  ASSERT_GE(c.explained, 0);
  EXPECT_EQ(c.labelOf(c.pairs[c.explained]), "jit_step");
  EXPECT_EQ(c.comparison.cause, 1);
  EXPECT_TRUE(c.keysDiffer());
}

TEST(LogCompare, AMovedProgramSaysHowToSeeInsideIt) {
  // Case 23 (real runs): only jit_step's entry 1 moved. The logs hold its
  // digest, not the module, so the advice names the program and the two
  // ways to get its text: a capture with cachekey diff, or JAX_DUMP_IR_TO.
  auto c = compareCase("23-one-program-changed", "run1.log", "run2.log");
  const LogAdvice *moved = nullptr;
  for (const auto &a : c.advice)
    if (a.code == LogAdvice::Code::KeyMoved && a.entry == 1)
      moved = &a;
  ASSERT_NE(moved, nullptr);
  std::string text = c.adviceText(*moved);
  EXPECT_EQ(text.rfind("jit_step", 0), 0u) << text;
  EXPECT_NE(text.find("python -m cachekey.capture"), std::string::npos) << text;
  EXPECT_NE(text.find("cachekey diff"), std::string::npos) << text;
  EXPECT_NE(text.find("JAX_DUMP_IR_TO"), std::string::npos) << text;
}

TEST(LogVerdict, CountsWhatTheSecondRunRecompiledAndWhy) {
  // The cases' real runs, each with the one change its README names.
  {
    // 23: only jit_step's program changed; the run's other two hit.
    auto c = compareCase("23-one-program-changed", "run1.log", "run2.log");
    const LogVerdict &v = c.verdict;
    EXPECT_EQ(v.code, LogVerdict::Code::Missed);
    EXPECT_EQ(v.programs, 3u);
    EXPECT_EQ(v.hits, 2u);
    EXPECT_EQ(v.missed, 1u);
    EXPECT_EQ(v.moved, 1u);
    ASSERT_EQ(v.named.size(), 1u);
    EXPECT_EQ(c.labelOf(c.pairs[v.named[0]]), "jit_step");
    ASSERT_GE(v.oneMove, 0);
    EXPECT_EQ(c.moves[v.oneMove].code, KeyMove::Code::ProgramChanged);
    std::string text = logVerdictText(c);
    EXPECT_EQ(text.rfind("run2.log: 1 of 3 programs missed the cache", 0), 0u) << text;
    EXPECT_NE(text.find(": jit_step."), std::string::npos) << text;
  }
  {
    // 11: the resumed run compiles one program the fresh run never did.
    auto c = compareCase("11-extra-program-in-resumed-run", "fresh.log", "resumed.log");
    EXPECT_EQ(c.verdict.missed, 1u);
    EXPECT_EQ(c.verdict.fresh, 1u);
    EXPECT_EQ(c.verdict.hits, 3u);
    EXPECT_NE(logVerdictText(c).find("It is new in this run."), std::string::npos);
  }
  {
    // 01: the same keys, never written (under the minimum compile time).
    auto c = compareCase("01-equal-keys-never-written", "run1.log", "run2.log");
    EXPECT_EQ(c.verdict.missed, 3u);
    EXPECT_EQ(c.verdict.sameKey, 3u);
    ASSERT_TRUE(c.verdict.sameKeyReason);
    EXPECT_EQ(*c.verdict.sameKeyReason, MissReason::NotWritten);
    EXPECT_NE(logVerdictText(c).find("never wrote them"), std::string::npos);
    Json j = logComparisonToJson(c);
    EXPECT_EQ(j["verdict"]["code"], "missed");
    EXPECT_EQ(j["verdict"]["same_key"], 3);
    EXPECT_EQ(j["verdict"]["text"], logVerdictText(c));
  }
}

TEST(LogCompare, ASecondCompileWithTheFirstRunsShapesSaysSo) {
  // Case 09's real logs (JAX's own format, with the shapes lines): the
  // second log is the first followed by the upgraded run, so each of its
  // last three programs has a name and argument shapes the first log
  // compiled, under another key (the jaxlib upgrade). They are only in the
  // second run, and the first did compile them with these shapes.
  const std::string dir = "tests/cases/09-jax-upgrade/";
  std::string before = readText(sourcePath(dir + "before_upgrade_jaxfmt.log"));
  std::string after = readText(sourcePath(dir + "after_upgrade_jaxfmt.log"));
  auto c = compareLogs(before, before + after, "A", "B");
  ASSERT_TRUE(c) << c.error().str();
  Json j = logComparisonToJson(*c);
  size_t onlyInB = 0;
  for (size_t i = 0; i < c->pairs.size(); ++i) {
    const ProgramPair &p = c->pairs[i];
    const Json &verdict = j["pairs"][i]["findings"]["verdict"];
    if (p.a >= 0) {
      EXPECT_FALSE(p.shapesInFirst);
      EXPECT_FALSE(verdict.contains("shapes_in_a"));
      continue;
    }
    ++onlyInB;
    EXPECT_TRUE(p.shapesInFirst) << c->labelOf(p);
    EXPECT_EQ(verdict["code"], "only_in_b");
    EXPECT_EQ(verdict["shapes_in_a"], true);
    const std::string text = verdict["text"];
    EXPECT_NE(text.find("A compiled " + std::string(c->nameOf(p)) + " with these argument shapes too"),
              std::string::npos) << text;
    EXPECT_EQ(text.find("did not compile"), std::string::npos) << text;
  }
  EXPECT_EQ(onlyInB, 3u);
  // The same run twice: the second copies have keys the first log computed
  // (again_in_b), which says more than the shapes.
  auto twice = compareLogs(before, before + before, "A", "B");
  ASSERT_TRUE(twice) << twice.error().str();
  for (const ProgramPair &p : twice->pairs)
    if (p.a < 0) {
      EXPECT_TRUE(p.keyOfFirst);
      EXPECT_FALSE(p.shapesInFirst);
    }
}

TEST(LogCompare, EqualKeysExplainTheFirstPairInBothRuns) {
  auto c = compareCase("01-equal-keys-never-written", "run1.log", "run2.log");
  EXPECT_FALSE(c.keysDiffer());
  ASSERT_GE(c.explained, 0);
  EXPECT_EQ(c.comparison.cause, 0);
  EXPECT_TRUE(c.findings.empty());
}

TEST(LogCompare, ALogWithoutKeysIsAnErrorNamingIt) {
  auto c = compareLogs("nothing here\n", "nor here\n", "a.log", "b.log");
  ASSERT_FALSE(c);
  EXPECT_EQ(c.error().path, "a.log");
}

TEST(LogCompare, AnEmptyLogSaysWhatItsSilenceMostLikelyMeans) {
  auto c = compareLogs("", readText(sourcePath("tests/cases/23-one-program-changed/run2.log")),
                       "run1.log", "run2.log");
  ASSERT_FALSE(c);
  EXPECT_EQ(c.error().path, "run1.log");
  EXPECT_NE(c.error().message.find("the log is empty"), std::string::npos) << c.error().message;
  EXPECT_NE(c.error().message.find("stderr"), std::string::npos) << c.error().message;
}

TEST(LogCompare, ACutKeyNamesItsLineAndWhatIsWrong) {
  // The real log of case 23, cut 40 hex digits into its first running
  // digest (line 5): at the end of the input, then with the log going on.
  std::string log = readText(sourcePath("tests/cases/23-one-program-changed/run1.log"));
  const std::string marker = "hash after serializing computation: ";
  size_t at = log.find(marker) + marker.size();
  auto end = compareLogs(log.substr(0, at + 40), log, "cut.log", "whole.log");
  ASSERT_FALSE(end);
  EXPECT_NE(end.error().message.find("line 5: the running digest after computation is "
                                     "not a whole SHA-256 (40 hex digits instead of 64"),
            std::string::npos)
      << end.error().message;
  EXPECT_NE(end.error().message.find("the log is cut in the middle of it"),
            std::string::npos)
      << end.error().message;
  EXPECT_EQ(end.error().message.find("no complete key: ("), std::string::npos);
  std::string middle = log.substr(0, at + 40) + log.substr(at + 64);
  LogSummary s = readLog(middle, "cut.log");
  ASSERT_FALSE(s.problems.empty());
  // A fact (its code, line and entry), worded at the edge.
  EXPECT_EQ(s.problems[0].code, LogReadNote::Code::DigestNotSha256);
  EXPECT_EQ(s.problems[0].line, 5u);
  EXPECT_EQ(s.problems[0].entry, 1);
  EXPECT_FALSE(s.problems[0].fresh);
  EXPECT_NE(logReadNoteText(s.problems[0]).find("line 5: the running digest after computation"),
            std::string::npos)
      << logReadNoteText(s.problems[0]);
  auto both = compareLogSummaries(readLog(log, "whole.log"), readLog(middle, "cut.log"));
  ASSERT_TRUE(both) << both.error().str();
  Json j = logComparisonToJson(*both);
  EXPECT_EQ(j["logs"][1]["problems"][0]["code"], "digest_not_sha256");
  EXPECT_EQ(j["logs"][1]["problems"][0]["line"], 5);
  EXPECT_EQ(j["logs"][1]["problems"][0]["text"], logReadNoteText(s.problems[0]));
  // One problem for the cut key, not one per line after it.
  EXPECT_EQ(s.problemCount, 1u) << logReadNoteText(s.problems.back());
}

TEST(LogCompareJson, StreamedIsTheWholeDocument) {
  auto c = compareCase("26-two-processes-one-log", "run1.log", "run2.log");
  std::ostringstream os;
  writeLogComparisonJson(os, c);
  EXPECT_EQ(os.str(), cliJsonLayout(logComparisonToJson(c), "pairs", 2));
  Json j = logComparisonToJson(c);
  EXPECT_EQ(j["paired_by"]["code"], "process_and_name");
  EXPECT_EQ(j["paired_by"]["text"], "process and name");
}

TEST(LogCompareJson, EveryDetailNoteAndPairCarriesItsCode) {
  // Every compare of every case: "findings" holds one {code, …, text} for
  // each line the report gives of "details", "other_details", "unhashed"
  // and "notes", and no list of words stands beside them.
  size_t compared = 0;
  for (const auto &dir : {"01-equal-keys-never-written", "02-cache-dir-in-entry-5",
                          "07-truncated-log", "09-jax-upgrade", "21-device-count",
                          "22-excluded-flag-reaches-entry-5", "26-two-processes-one-log"}) {
    Json e = loadJson(std::string("tests/cases/") + dir + "/expect.json");
    for (const auto &c : e["compare"]) {
      LogComparison cmp = compareCase(dir, c["a"].get<std::string>(), c["b"].get<std::string>());
      Json j = logComparisonToJson(cmp);
      const std::vector<std::string> details = logs::findingsText(cmp.findings, false),
                                     otherDetails = logs::findingsText(cmp.otherFindings, true);
      std::vector<std::string> unhashed;
      for (const UnhashedInput &u : cmp.comparison.unhashedInputs)
        unhashed.push_back(unhashedText(u));
      std::vector<std::string> notes;
      for (const LogNote &n : cmp.notes)
        notes.push_back(logs::logNoteText(n, cmp.logs));
      const std::vector<std::string> *words[] = {&details, &otherDetails, &unhashed, &notes};
      int w = 0;
      for (const char *list : {"details", "other_details", "unhashed", "notes"}) {
        EXPECT_FALSE(j.contains(list)) << dir << ": words beside the findings: " << list;
        ASSERT_EQ(j["findings"][list].size(), words[w]->size()) << dir << " " << list;
        for (size_t i = 0; i < words[w]->size(); ++i) {
          EXPECT_TRUE(j["findings"][list][i]["code"].is_string());
          EXPECT_EQ(j["findings"][list][i]["text"], (*words[w])[i]);
        }
        ++w;
      }
      for (const auto &p : j["pairs"]) {
        EXPECT_FALSE(p.contains("verdict") || p.contains("outcome_a") || p.contains("outcome_b"));
        EXPECT_TRUE(p["findings"]["verdict"]["code"].is_string());
        EXPECT_TRUE(p["findings"]["verdict"]["text"].is_string());
      }
      ++compared;
    }
  }
  EXPECT_GE(compared, 7u);
}

TEST(LogCompareJson, AnOutcomeOmitsWhatDidNotHappen) {
  // As proto3's JSON leaves out a field at its default: an outcome holds
  // "lookup_without_cache" and "lookup_inferred" only when true, and
  // "read_error" (with "compile_only_read") only when JAX logged one. Each
  // is seen present in a case whose log has it: case 31 looks up before the
  // cache is configured, case 32's day 3 reads two damaged entries, and
  // jax 0.4.30 (case 37) logs no miss line: its lookups are inferred.
  std::map<std::string, size_t> present;
  for (const auto &[dir, a, b] :
       std::vector<std::array<std::string, 3>>{{"31-cache-configured-late", "first.log", "second.log"},
                                               {"32-damaged-entries", "day2.log", "day3.log"},
                                               {"37-old-lines-0.4.30", "run1.log", "run2.log"},
                                               {"09-jax-upgrade", "before_upgrade.log", "after_upgrade.log"}}) {
    Json j = logComparisonToJson(compareCase(dir, a, b));
    for (const auto &p : j["pairs"])
      for (const char *side : {"outcome_a", "outcome_b"}) {
        const Json &o = p["findings"][side];
        if (o.is_null())
          continue;
        for (const char *flag : {"lookup_without_cache", "lookup_inferred"})
          if (o.contains(flag)) {
            EXPECT_EQ(o[flag], true) << dir << " " << side << " " << flag;
            ++present[flag];
          }
        if (o.contains("read_error")) {
          EXPECT_TRUE(o["read_error"].is_string()) << dir;
          EXPECT_TRUE(o["compile_only_read"].is_boolean()) << dir;
          ++present["read_error"];
        } else {
          EXPECT_FALSE(o.contains("compile_only_read")) << dir;
        }
      }
  }
  EXPECT_GT(present["lookup_without_cache"], 0u);
  EXPECT_GT(present["read_error"], 0u);
  EXPECT_GT(present["lookup_inferred"], 0u);
}

namespace {
std::vector<LogSummary> caseLogs(const std::string &dir,
                                 const std::vector<std::string> &names) {
  std::vector<LogSummary> out;
  for (const auto &n : names)
    out.push_back(readLog(readText(sourcePath("tests/cases/" + dir + "/" + n)), n));
  return out;
}
} // namespace

TEST(LogCompareMany, ThreeDaysOfOneJobShareEveryKey) {
  // Case 32: the same job on three days, every key equal (its entries.txt).
  auto m = compareManyLogSummaries(
      caseLogs("32-damaged-entries", {"day1-volume-full.log", "day2.log", "day3.log"}));
  ASSERT_TRUE(m) << m.error().str();
  EXPECT_FALSE(m->keysDiffer());
  ASSERT_EQ(m->programs.size(), 7u);
  for (const auto &p : m->programs) {
    EXPECT_EQ(p.groups.size(), 1u) << p.label;
    EXPECT_EQ(p.groups[0], (std::vector<int>{0, 1, 2})) << p.label;
  }
  EXPECT_EQ(m->verdict.code, ManyLogVerdict::Code::OneKey);
  EXPECT_EQ(m->verdict.programs, 7u);
  EXPECT_EQ(m->verdict.sameKey, 7u);
  EXPECT_EQ(m->verdict.oddPrograms, (std::vector<size_t>{0, 0, 0}));
  EXPECT_EQ(logs::manyVerdictText(*m), "7 of 7 programs have one key in all 3 runs.");
  // The answer first: the CLI's text opens with the verdict.
  std::ostringstream text;
  writeManyLogComparison(text, *m);
  EXPECT_EQ(text.str().rfind("Verdict: 7 of 7 programs have one key in all 3 runs.\n", 0), 0u)
      << text.str();
  // Nothing is odd, so the runs can share one cache.
  ASSERT_EQ(m->advice.size(), 1u);
  EXPECT_EQ(m->advice[0].code, LogAdvice::Code::SharedKeys);
}

TEST(LogCompareMany, TheCliWritesAProgramPerLine) {
  // compare-logs --json of three logs: the document indented by 2, each
  // item of "programs" one line, then the trailing members (--cache's).
  auto m = compareManyLogSummaries(
      caseLogs("36-missing-atime-0.10.2", {"day1.log", "day2.log", "day3.log"}));
  ASSERT_TRUE(m) << m.error().str();
  Json whole = manyLogComparisonToJson(*m);
  ASSERT_GT(whole["programs"].size(), 1u);
  Json trailing = {{"cache_dir", {{"entries", 2}}}};
  std::ostringstream os;
  writeLogComparisonJson(os, *m, trailing);
  whole["cache_dir"] = trailing["cache_dir"];
  EXPECT_EQ(os.str(), cliJsonLayout(whole, "programs", 2));
  EXPECT_EQ(Json::parse(os.str()), whole);
}

TEST(LogCompareMany, TheOddRunAndItsEntryAreNamed) {
  // Case 36: day 1 ran --batch 8, days 2 and 3 --batch 16. jit_broadcast_in_dim
  // (JAX's own program, its output shape follows the batch) keeps its name:
  // day 1 is the odd one out and only entry 1 differs; the train and eval
  // steps have new argument shapes, so they are other programs.
  auto m = compareManyLogSummaries(
      caseLogs("36-missing-atime-0.10.2", {"day1.log", "day2.log", "day3.log"}));
  ASSERT_TRUE(m) << m.error().str();
  EXPECT_TRUE(m->keysDiffer());
  const ProgramAcrossRuns *b = nullptr;
  for (const auto &p : m->programs)
    if (p.label == "jit_broadcast_in_dim")
      b = &p;
  ASSERT_NE(b, nullptr);
  ASSERT_EQ(b->odd.size(), 1u);
  EXPECT_EQ(b->odd[0].run, 0);
  EXPECT_EQ(b->odd[0].entries, std::vector<int>{1});
  EXPECT_EQ(b->groups[b->common], (std::vector<int>{1, 2}));
  // What to do: entry 1 of JAX's own program, which follows the batch,
  // never "the program differs"; and the missing -atime file (jax#39880):
  // the case's README says every write of day 2 and day 3 failed with it
  // and day 3 missed the same three programs again (3 "Error writing"
  // warnings in each log), which no later run settles. (Until issue 34 the
  // N-log advice followed key moves only and said nothing of it.)
  ASSERT_EQ(m->advice.size(), 2u);
  EXPECT_EQ(m->advice[1].code, LogAdvice::Code::MissingAtime);
  EXPECT_EQ(m->advice[1].programs.size(), 3u);
  EXPECT_EQ(m->advice[0].code, LogAdvice::Code::JaxOwnProgram);
  ASSERT_EQ(m->advice[0].programs.size(), 1u);
  EXPECT_EQ(m->programs[m->advice[0].programs[0]].label, "jit_broadcast_in_dim");
  EXPECT_EQ(m->adviceText(m->advice[0]).rfind("jit_broadcast_in_dim: ", 0), 0u);
  Json j = manyLogComparisonToJson(*m);
  EXPECT_EQ(j["what_to_do"][0]["code"], "jax_own_program");
  EXPECT_EQ(j["logs"].size(), 3u);
  EXPECT_TRUE(j["keys_differ"].get<bool>());
  EXPECT_FALSE(compareManyLogSummaries(caseLogs("36-missing-atime-0.10.2", {"day1.log"})));
}

TEST(LogCompareMany, AGlobalSettingIsNamedAsForTwoLogs) {
  // Case 34: workstation B exports JAX_ENABLE_X64=1 (its README: one global
  // setting, float32 → float64 in every program). With three logs (A twice:
  // the runs A, A' and B) the odd run's programs are explained as two logs
  // are, and the setting is said once.
  auto logs = caseLogs("34-x64-from-environment",
                       {"workstation-a.log", "workstation-a.log", "workstation-b.log"});
  logs[1].name = "workstation-a-again.log";
  auto m = compareManyLogSummaries(std::move(logs));
  ASSERT_TRUE(m) << m.error().str();
  ASSERT_EQ(m->programs.size(), 4u);
  for (const auto &p : m->programs) {
    ASSERT_EQ(p.odd.size(), 1u) << p.label;
    EXPECT_EQ(p.odd[0].run, 2);
    EXPECT_EQ(p.odd[0].move.code, KeyMove::Code::EnableX64) << p.label;
    EXPECT_EQ(p.odd[0].cause, 1);
  }
  ASSERT_EQ(m->advice.size(), 1u);
  EXPECT_EQ(m->advice[0].code, LogAdvice::Code::SameX64);
  EXPECT_EQ(m->advice[0].programs.size(), 4u);
  EXPECT_NE(logs::manyVerdictText(*m).find("jax_enable_x64"), std::string::npos)
      << logs::manyVerdictText(*m);
  // Run 2 (workstation-b.log) holds all 4 programs under another key.
  EXPECT_EQ(m->verdict.code, ManyLogVerdict::Code::OddRuns);
  EXPECT_EQ(m->verdict.programs, 4u);
  EXPECT_EQ(m->verdict.sameKey, 0u);
  EXPECT_EQ(m->verdict.oddPrograms, (std::vector<size_t>{0, 0, 4}));
  Json j = manyLogComparisonToJson(*m);
  EXPECT_EQ(j["verdict"]["code"], "odd_runs");
  EXPECT_EQ(j["verdict"]["odd"], Json::parse(R"([{"run": 2, "programs": 4}])"));
  EXPECT_EQ(j["verdict"]["text"], logs::manyVerdictText(*m));
  EXPECT_FALSE(j.contains("summary"));
  EXPECT_EQ(j["programs"][0]["odd"][0]["move"]["code"], "enable_x64");
  EXPECT_TRUE(j["findings"]["notes"].empty());
}

TEST(LogCompareMany, OneFileGivenTwiceIsNoted) {
  // The CLI gives each log its file's identity (LogSummary::source); two
  // logs with one identity are one file given twice, and a note says so,
  // for two logs and for N.
  auto two = caseLogs("34-x64-from-environment", {"workstation-a.log", "workstation-a.log"});
  two[0].source = two[1].source = "2049:1234";
  auto c = compareLogSummaries(std::move(two[0]), std::move(two[1]));
  ASSERT_TRUE(c);
  ASSERT_FALSE(c->notes.empty());
  EXPECT_EQ(c->notes[0].code(), NoteCode::SameLog);
  EXPECT_EQ(c->notes[0].logs, (std::vector<int>{0, 1}));
  auto three = caseLogs("34-x64-from-environment",
                        {"workstation-a.log", "workstation-b.log", "workstation-a.log"});
  three[0].source = "1:1";
  three[1].source = "1:2";
  three[2].source = "1:1";
  auto m = compareManyLogSummaries(std::move(three));
  ASSERT_TRUE(m);
  ASSERT_EQ(m->notes.size(), 1u);
  EXPECT_EQ(m->notes[0].code(), NoteCode::SameLog);
  // Runs 1 and 3 are the one file (indices 0 and 2).
  EXPECT_EQ(m->notes[0].logs, (std::vector<int>{0, 2}));
  Json mj = manyLogComparisonToJson(*m);
  EXPECT_EQ(mj["findings"]["notes"][0]["code"], "same_log");
  EXPECT_EQ(mj["findings"]["notes"][0]["text"], logs::logNoteText(m->notes[0], m->logs.data()));
  EXPECT_NE(mj["findings"]["notes"][0]["text"].get<std::string>().find("given twice"), std::string::npos);
  EXPECT_FALSE(mj.contains("notes"));
  // Unknown identities (standard input, text in memory) are never one file.
  auto unknown = caseLogs("34-x64-from-environment", {"workstation-a.log", "workstation-a.log"});
  auto u = compareLogSummaries(std::move(unknown[0]), std::move(unknown[1]));
  ASSERT_TRUE(u);
  for (const LogNote &n : u->notes)
    EXPECT_NE(n.code(), NoteCode::SameLog);
}

TEST(LogCompareMany, JaxsOwnProgramsMoveWithTheGlobalSetting) {
  // Case 39 (real runs, its README): the third run has JAX_ENABLE_X64=1; the
  // script's eager operations make JAX compile programs of its own, whose
  // moves are JAX's own, not the user's. The run's one cause is x64.
  auto m = compareManyLogSummaries(caseLogs("39-three-runs-x64-eager", {"a.log", "b.log", "c.log"}));
  ASSERT_TRUE(m) << m.error().str();
  ASSERT_EQ(m->oddCause.size(), 3u);
  EXPECT_EQ(m->oddCause[2].code, KeyMove::Code::EnableX64);
  EXPECT_EQ(m->oddCause[0].code, KeyMove::Code::None);
  size_t odd = 0;
  for (const auto &p : m->programs)
    for (const auto &o : p.odd) {
      ++odd;
      EXPECT_EQ(o.run, 2) << p.label;
      EXPECT_NE(o.move.code, KeyMove::Code::ProgramChanged) << p.label;
    }
  EXPECT_EQ(odd, m->programs.size());
  bool x64 = false;
  for (const auto &a : m->advice) {
    x64 = x64 || a.code == LogAdvice::Code::SameX64;
    EXPECT_NE(a.code, LogAdvice::Code::KeyMoved);
  }
  EXPECT_TRUE(x64);
  EXPECT_EQ(manyLogComparisonToJson(*m)["logs"][2]["odd_cause"]["code"], "enable_x64");
}

TEST(LogCompareMany, OneSettingThatMovesEveryProgramIsSaidOnce) {
  // Case 40 (real runs, its README): the third run includes metadata in the
  // key; every program, JAX's own too, moves in entry 1 and nothing else
  // tells why: one global setting, as for two logs.
  auto m = compareManyLogSummaries(caseLogs("40-three-runs-metadata-in-key", {"a.log", "b.log", "c.log"}));
  ASSERT_TRUE(m) << m.error().str();
  EXPECT_EQ(m->oddCause[2].code, KeyMove::Code::EveryProgram);
  for (const auto &p : m->programs)
    for (const auto &o : p.odd)
      EXPECT_EQ(o.move.code, KeyMove::Code::EveryProgram) << p.label;
  ASSERT_EQ(m->advice.size(), 1u);
  EXPECT_EQ(m->advice[0].code, LogAdvice::Code::SameGlobalSettings);
  auto two = compareLogSummaries(readLog(readText(sourcePath("tests/cases/40-three-runs-metadata-in-key/b.log")), "b.log"),
                                 readLog(readText(sourcePath("tests/cases/40-three-runs-metadata-in-key/c.log")), "c.log"));
  ASSERT_TRUE(two);
  ASSERT_FALSE(two->advice.empty());
  EXPECT_EQ(two->advice[0].code, m->advice[0].code); // the words of two logs
}

TEST(LogCompareMany, OneFileCountsOnceAndIsNotedOnce) {
  // Case 34's logs, A given twice more (the change made here): one note for
  // the file, naming it each time, and the repeats do not outvote B.
  auto logs = caseLogs("34-x64-from-environment",
                       {"workstation-b.log", "workstation-a.log", "workstation-b.log", "workstation-b.log"});
  logs[0].source = logs[2].source = logs[3].source = "1:7";
  logs[1].source = "1:8";
  auto m = compareManyLogSummaries(std::move(logs));
  ASSERT_TRUE(m);
  ASSERT_EQ(m->notes.size(), 1u);
  EXPECT_NE(logs::logNoteText(m->notes[0], m->logs.data()).find("given 3 times"), std::string::npos);
  // One B against one A: a tie, which the first run's group wins.
  for (const auto &p : m->programs) {
    ASSERT_EQ(p.odd.size(), 1u);
    EXPECT_EQ(p.odd[0].run, 1);
  }
}
// tests/cases/44 (real jax 0.12.0.1 runs): the second log holds two runs.
// Its second jit_mul has a key the first log computed (not "new"), and its
// second jit_loss hit the entry its own first run wrote.
TEST(LogCompare, ASecondRunInTheSameLogIsNotNew) {
  auto c = compareCase("44-second-log-holds-two-runs", "a.log", "b-two-runs.log");
  ASSERT_EQ(c.logs[1].programs.size(), 4u);
  const ProgramPair *mul2 = pairLabelled(c, "jit_mul (2nd)");
  const ProgramPair *loss2 = pairLabelled(c, "jit_loss (2nd)");
  ASSERT_TRUE(mul2 && loss2);
  EXPECT_LT(mul2->a, 0);
  EXPECT_TRUE(mul2->keyOfFirst);
  const size_t at = static_cast<size_t>(mul2 - c.pairs.data());
  EXPECT_EQ(logComparisonToJson(c)["pairs"][at]["findings"]["verdict"]["code"], "again_in_b");
  EXPECT_LT(loss2->a, 0);
  EXPECT_FALSE(loss2->keyOfFirst);
  EXPECT_TRUE(loss2->keyWrittenBefore);
  EXPECT_EQ(c.logs[1].programs[loss2->b].lookup, Lookup::Hit);
  // No advice for programs that hit; the one miss is the moved jit_loss.
  for (const LogAdvice &a : c.advice)
    EXPECT_NE(a.code, LogAdvice::Code::NewPrograms);
}

TEST(LogCompare, LogsGivenInTheOtherOrderAreSaidToBe) {
  // Cases 11 and 30, whose READMEs give the order the runs were made in
  // (fresh before resumed; train-first before eval-first), given here the
  // other way round (the change made): every program the second log missed
  // the first hit and the second wrote, so the advice adds that the logs
  // may be in the other order. In the order of the runs it does not.
  auto hasOrderAdvice = [](const std::string &dir, const char *first, const char *second) {
    auto c = compareLogSummaries(readLog(readText(sourcePath("tests/cases/" + dir + "/" + first)), first),
                                 readLog(readText(sourcePath("tests/cases/" + dir + "/" + second)), second));
    EXPECT_TRUE(c) << dir;
    return c && std::any_of(c->advice.begin(), c->advice.end(), [](const LogAdvice &a) {
             return a.code == LogAdvice::Code::OrderOfLogs;
           });
  };
  EXPECT_TRUE(hasOrderAdvice("11-extra-program-in-resumed-run", "resumed.log", "fresh.log"));
  EXPECT_FALSE(hasOrderAdvice("11-extra-program-in-resumed-run", "fresh.log", "resumed.log"));
  EXPECT_TRUE(hasOrderAdvice("30-shapes-other-order", "eval-first.log", "train-first.log"));
  EXPECT_FALSE(hasOrderAdvice("30-shapes-other-order", "train-first.log", "eval-first.log"));
}

TEST(LogCompare, ASecondLogCutInsideAKeyIsSaidToBeCut) {
  // Case 02's run2.log cut (the change made here) 5 lines after the start
  // of its last key, jit_f's: that program is then only in run1.log, and
  // the verdict says run2.log ends inside a key instead of "did not compile
  // it". The whole run2.log has jit_f, so the verdict is not given there.
  std::string b = readText(sourcePath("tests/cases/02-cache-dir-in-entry-5/run2.log"));
  size_t last = b.rfind("get_cache_key hash of serialized computation");
  ASSERT_NE(last, std::string::npos);
  size_t start = b.rfind('\n', last) + 1, at = start;
  for (int i = 0; i < 6; ++i)
    at = b.find('\n', at) + 1;
  std::string cut = b.substr(0, at);
  size_t keyLine = std::count(b.begin(), b.begin() + start, '\n') + 1;
  auto verdictOfF = [](const std::string &second) {
    auto c = compareLogs(readText(sourcePath("tests/cases/02-cache-dir-in-entry-5/run1.log")), second,
                         "run1.log", "run2.log");
    EXPECT_TRUE(c);
    Json j = logComparisonToJson(*c);
    for (const auto &p : j["pairs"])
      if (p["label"] == "jit_f")
        return p["findings"]["verdict"];
    return Json();
  };
  Json v = verdictOfF(cut);
  EXPECT_EQ(v["code"], "only_in_a_b_cut");
  EXPECT_NE(v["text"].get<std::string>().find("line " + std::to_string(keyLine)), std::string::npos) << v;
  EXPECT_NE(verdictOfF(b)["code"], "only_in_a_b_cut");
}

TEST(LogCompare, NewProgramsOfNamesCompiledBeforeAreSaidToHaveNewShapes) {
  // Case 37: run3 ran the same program with --batch 16 after run1's 8
  // (its README): jit_train_step and jit_eval_step are new in run3 under
  // names run1 compiled with other argument shapes, which the verdict
  // counts and says.
  const std::string dir = "tests/cases/37-old-lines-0.4.30/";
  auto c = compareLogs(readText(sourcePath(dir + "run1.log")), readText(sourcePath(dir + "run3.log")),
                       "run1.log", "run3.log");
  ASSERT_TRUE(c);
  EXPECT_EQ(c->verdict.fresh, 2u);
  EXPECT_EQ(c->verdict.freshShapes, 2u);
  EXPECT_NE(logVerdictText(*c).find("2 new in this run (their names compiled before, with other "
                                    "argument shapes)"),
            std::string::npos)
      << logVerdictText(*c);
  EXPECT_EQ(logComparisonToJson(*c)["verdict"]["new_shapes"], 2);
  // run1 against run2: nothing new, no new_shapes member.
  auto same = compareLogs(readText(sourcePath(dir + "run1.log")), readText(sourcePath(dir + "run2.log")),
                          "run1.log", "run2.log");
  ASSERT_TRUE(same);
  EXPECT_EQ(same->verdict.freshShapes, 0u);
  EXPECT_FALSE(logComparisonToJson(*same)["verdict"].contains("new_shapes"));
}

TEST(LogCompare, ASecondLogCutInsideAKeyIsNotNothingToDo) {
  // Case 04's run2_311.log hits all 3 programs (its README). Cut here in
  // the middle of its last key, inside an entry's name and without a line
  // break (the change made here): the 2 programs it logs whole still hit,
  // but the verdict says where it ends, "nothing to do" gives way to
  // log_cut, and the cut name is not an unknown entry.
  const std::string dir = "tests/cases/04-per-jit-dump-override/";
  std::string b = readText(sourcePath(dir + "run2_311.log"));
  size_t last = b.rfind("get_cache_key hash of serialized computation");
  size_t jaxlib = b.find("get_cache_key hash of serialized jax_lib version", last);
  ASSERT_NE(last, std::string::npos);
  ASSERT_NE(jaxlib, std::string::npos);
  size_t keyLine = std::count(b.begin(), b.begin() + static_cast<std::ptrdiff_t>(last), '\n') + 1;
  std::string cut = b.substr(0, jaxlib + std::string("get_cache_key hash of serialized jax_li").size());
  auto compare = [&](const std::string &second) {
    return compareLogs(readText(sourcePath(dir + "run1_311.log")), second, "run1.log", "run2.log");
  };
  auto has = [](const LogComparison &c, LogAdvice::Code code) {
    return std::any_of(c.advice.begin(), c.advice.end(), [&](const LogAdvice &a) { return a.code == code; });
  };
  auto c = compare(cut);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->verdict.code, LogVerdict::Code::AllHit);
  EXPECT_EQ(c->verdict.hits, 2u);
  EXPECT_EQ(c->verdict.cutAt, keyLine);
  EXPECT_FALSE(has(*c, LogAdvice::Code::NothingToDo));
  ASSERT_TRUE(has(*c, LogAdvice::Code::LogCut));
  for (const LogAdvice &a : c->advice)
    if (a.code == LogAdvice::Code::LogCut) {
      EXPECT_EQ(a.value, "run2.log");
      EXPECT_EQ(a.amount, static_cast<double>(keyLine));
    }
  for (const LogReadNote &n : c->logs[1].problems)
    EXPECT_NE(n.code, LogReadNote::Code::UnknownEntry) << n.line;
  const std::string text = logVerdictText(*c);
  EXPECT_NE(text.find("line " + std::to_string(keyLine)), std::string::npos) << text;
  EXPECT_EQ(text.find("nothing compiled again"), std::string::npos) << text;
  EXPECT_EQ(logComparisonToJson(*c)["verdict"]["cut_at"], keyLine);
  // The whole log: every program hit, nothing to do.
  auto whole = compare(b);
  ASSERT_TRUE(whole);
  EXPECT_EQ(whole->verdict.cutAt, 0u);
  EXPECT_TRUE(has(*whole, LogAdvice::Code::NothingToDo));
  EXPECT_FALSE(logComparisonToJson(*whole)["verdict"].contains("cut_at"));
}

namespace {
/// `log` without the lines that hold `needle` (a logger left at WARNING).
std::string withoutLinesHolding(const std::string &log, std::string_view needle) {
  std::string kept;
  for (size_t at = 0, nl; at < log.size(); at = nl + 1) {
    nl = log.find('\n', at);
    std::string_view line(log.data() + at, (nl == std::string::npos ? log.size() : nl) - at);
    if (line.find(needle) == std::string_view::npos)
      kept.append(line).append("\n");
    if (nl == std::string::npos)
      break;
  }
  return kept;
}
} // namespace

TEST(LogCompare, AnEntryFoundAndCompiledAnywayIsTheContentsCheck) {
  // Case 45 (real jax 0.12.0.1 runs; README): run B, with
  // jax_compilation_cache_check_contents, finds both entries (lru_cache.py's
  // "Cache hit for key") and compiles both all the same.
  auto c = compareCase("45-check-contents", "a.log", "b.log");
  ASSERT_EQ(c.pairs.size(), 2u);
  for (const ProgramPair &p : c.pairs) {
    EXPECT_EQ(p.keys, ProgramPair::Keys::Equal);
    ASSERT_TRUE(p.miss);
    EXPECT_EQ(*p.miss, MissReason::CheckContents);
    EXPECT_TRUE(c.logs[1].programs[p.b].foundThenMissed);
    EXPECT_FALSE(c.logs[0].programs[p.a].foundThenMissed); // run A found nothing
  }
  ASSERT_EQ(c.advice.size(), 1u);
  EXPECT_EQ(c.advice[0].code, LogAdvice::Code::TurnOffCheckContents);
  EXPECT_EQ(logComparisonToJson(c)["pairs"][0]["findings"]["miss"]["code"], "check_contents");

  // Without lru_cache.py's lines the log cannot tell: the entries read as
  // gone, as before.
  const std::string kept =
      withoutLinesHolding(readText(sourcePath("tests/cases/45-check-contents/b.log")),
                          "jax._src.lru_cache");
  auto quiet = compareLogSummaries(
      readLog(readText(sourcePath("tests/cases/45-check-contents/a.log")), "a.log"),
      readLog(kept, "b.log"));
  ASSERT_TRUE(quiet);
  for (const ProgramPair &p : quiet->pairs) {
    ASSERT_TRUE(p.miss);
    EXPECT_EQ(*p.miss, MissReason::Gone);
  }
}

TEST(LogCompare, PgleProbeKeysAreNotProgramsAndPgleIsTheCause) {
  // Case 46 (real jax 0.12.0.1 runs; README): run B, with jax_enable_pgle,
  // logs a probe key before each of its two programs' own keys.
  auto c = compareCase("46-pgle", "a.log", "b.log");
  EXPECT_EQ(c.logs[1].programs.size(), 4u); // every key the log holds
  EXPECT_EQ(c.logs[1].comparable().size(), 2u);
  EXPECT_EQ(c.logs[1].pgleProbes, 2u);
  EXPECT_EQ(c.logs[0].pgleProbes, 0u);
  ASSERT_EQ(c.pairs.size(), 2u);
  for (const ProgramPair &p : c.pairs) {
    ASSERT_GE(p.a, 0);
    ASSERT_GE(p.b, 0);
    EXPECT_EQ(p.keys, ProgramPair::Keys::Differ);
    EXPECT_EQ(p.cause, 5);
    EXPECT_EQ(c.moveOf(p).code, KeyMove::Code::PgleSetting);
    EXPECT_EQ(c.logs[1].programs[p.b].lookup, Lookup::Miss);
    EXPECT_TRUE(c.logs[1].programs[p.b].pgle);
  }
  ASSERT_EQ(c.advice.size(), 1u);
  EXPECT_EQ(c.advice[0].code, LogAdvice::Code::SamePgle);
  Json j = logComparisonToJson(c);
  bool noted = false;
  for (const auto &n : j["findings"]["notes"])
    noted = noted || n["code"] == "pgle_probe_keys";
  EXPECT_TRUE(noted);
  // Run B against itself: the same keys, nothing moved, no probe paired.
  auto same = compareCase("46-pgle", "b.log", "b.log");
  EXPECT_EQ(same.pairs.size(), 2u);
}

TEST(LogCompare, TheProfileVersionIsNamedAsEntry5sMove) {
  // Case 47 (real jax 0.12.0.1 runs; README): run B sets
  // jax_xla_profile_version=3, run A logs -1.
  auto c = compareCase("47-profile-version", "a.log", "b.log");
  ASSERT_EQ(c.pairs.size(), 2u);
  for (const ProgramPair &p : c.pairs) {
    EXPECT_EQ(p.cause, 5);
    const KeyMove &m = c.moveOf(p);
    EXPECT_EQ(m.code, KeyMove::Code::ProfileVersion);
    EXPECT_EQ(m.before, "-1");
    EXPECT_EQ(m.after, "3");
  }
  ASSERT_EQ(c.advice.size(), 1u);
  EXPECT_EQ(c.advice[0].code, LogAdvice::Code::SameProfileVersion);
  // A log without the profile lines says nothing of the version.
  const std::string quiet = withoutLinesHolding(
      readText(sourcePath("tests/cases/47-profile-version/a.log")), "XLA-AutoFDO");
  auto q = compareLogSummaries(readLog(quiet, "a.log"),
                               readLog(readText(sourcePath("tests/cases/47-profile-version/b.log")), "b.log"));
  ASSERT_TRUE(q);
  for (const ProgramPair &p : q->pairs)
    EXPECT_EQ(q->moveOf(p).code, KeyMove::Code::CompileOptionsChanged);
}

TEST(LogCompare, AnArgumentPlacedOtherwiseIsNamed) {
  // Case 48 (real jax 0.12.0.1 runs; README): argument 1 of jit_sharded_fn
  // is split by rows in run A and by columns in run B.
  auto c = compareCase("48-argument-sharding", "a.log", "b.log");
  const ProgramPair *p = pairLabelled(c, "jit_sharded_fn");
  ASSERT_TRUE(p);
  EXPECT_EQ(p->cause, 1);
  const KeyMove &m = c.moveOf(*p);
  EXPECT_EQ(m.code, KeyMove::Code::ArgShardings);
  EXPECT_NE(m.before.find("spec=P('d', None)"), std::string::npos);
  EXPECT_NE(m.after.find("spec=P(None, 'd')"), std::string::npos);
  EXPECT_EQ(m.before.find("UnspecifiedValue"), std::string::npos); // that argument alone
  ASSERT_EQ(c.advice.size(), 1u);
  EXPECT_EQ(c.advice[0].code, LogAdvice::Code::SameShardings);
  Json j = logComparisonToJson(c);
  bool named = false;
  for (const auto &f : j["findings"]["details"])
    named = named || (f["code"] == "arg_shardings" && f["arguments"] == "1");
  EXPECT_TRUE(named);
}

TEST(LogCompare, ARenamedFunctionIsLinkedToItsOldName) {
  // Case 49 (real jax 0.12.0.1 runs; README): run B calls step under the
  // name step_renamed; the name alone moves entry 1.
  auto c = compareCase("49-renamed-function", "a.log", "b.log");
  const ProgramPair *now = pairLabelled(c, "jit_step_renamed");
  const ProgramPair *before = pairLabelled(c, "jit_step");
  ASSERT_TRUE(now && before);
  EXPECT_LT(now->a, 0);
  EXPECT_LT(before->b, 0);
  ASSERT_GE(c.renamedFrom(*now), 0);
  EXPECT_EQ(&c.pairs[c.renamedFrom(*now)], before);
  ASSERT_GE(c.renamedTo(*before), 0);
  EXPECT_EQ(&c.pairs[c.renamedTo(*before)], now);
  EXPECT_EQ(c.renames.size(), 1u);
  const ProgramPair *mlp = pairLabelled(c, "jit_mlp");
  ASSERT_TRUE(mlp);
  EXPECT_EQ(c.renamedFrom(*mlp), -1);
  EXPECT_EQ(c.renamedTo(*mlp), -1);
  ASSERT_EQ(c.advice.size(), 1u);
  EXPECT_EQ(c.advice[0].code, LogAdvice::Code::RenamedFunction);
  EXPECT_EQ(c.advice[0].value, "jit_step");
  Json j = logComparisonToJson(c);
  size_t linked = 0;
  for (const auto &p : j["pairs"]) {
    if (p["label"] != "jit_step_renamed")
      continue;
    ++linked;
    EXPECT_EQ(p["findings"]["verdict"]["renamed_from"], "jit_step");
  }
  EXPECT_EQ(linked, 1u);
  // The same logs with the second run's step under its old name: nothing to
  // link (the names pair them).
  auto same = compareCase("49-renamed-function", "a.log", "a.log");
  EXPECT_TRUE(same.renames.empty());
}

TEST(LogCompare, TwoCandidatesForOneRenameLinkNeither) {
  // Case 49's run B with its jit_step_renamed program given twice, under
  // two new names: run A's jit_step could be either, so neither is linked.
  std::string b = readText(sourcePath("tests/cases/49-renamed-function/b.log"));
  std::string twice;
  for (const char *name : {"step_renamed", "step_other"}) {
    std::string copy = b;
    for (size_t at = 0; (at = copy.find("step_renamed", at)) != std::string::npos;
         at += std::string_view(name).size())
      copy.replace(at, 12, name);
    twice += copy;
  }
  auto c = compareLogSummaries(
      readLog(readText(sourcePath("tests/cases/49-renamed-function/a.log")), "a.log"),
      readLog(twice, "b.log"));
  ASSERT_TRUE(c) << c.error().str();
  EXPECT_TRUE(c->renames.empty());
  size_t seen = 0;
  for (const ProgramPair &p : c->pairs)
    seen += p.a < 0;
  EXPECT_GE(seen, 2u); // both new names are programs of run B only
}

TEST(LogCompare, AFullDiskIsSaidToBeOne) {
  // Case 32 (README): day 1 ran with its cache volume full; its log holds
  // two writes that failed with "[Errno 28] No space left on device".
  auto c = compareCase("32-damaged-entries", "day1-volume-full.log", "day1-volume-full.log");
  size_t full = 0;
  for (const LogAdvice &a : c.advice) {
    EXPECT_NE(a.code, LogAdvice::Code::FixWriteError);
    if (a.code == LogAdvice::Code::FreeDiskSpace) {
      ++full;
      EXPECT_NE(a.value.find("No space left on device"), std::string::npos);
    }
  }
  EXPECT_EQ(full, 1u);
}

// tests/cases/50 (real jax 0.10.2 runs): c.log's run was killed while XLA
// compiled jit_big (its log ends with jit_big's miss line). The verdict
// counts that miss, marks it as the one the run stopped in (at the miss
// line, found here by its text), and does not say it compiled again.
TEST(LogVerdict, SecondRunStoppedInACompileDidNotCompileAgain) {
  const std::string dir = "tests/cases/50-first-run-killed-mid-compile/";
  const std::string c = readText(sourcePath(dir + "c.log"));
  size_t missLine = 0, line = 0;
  for (size_t at = 0; at < c.size();) {
    size_t end = c.find('\n', at);
    ++line;
    if (c.substr(at, end - at).find("PERSISTENT COMPILATION CACHE MISS for 'jit_big'") != std::string::npos)
      missLine = line;
    at = end == std::string::npos ? c.size() : end + 1;
  }
  ASSERT_GT(missLine, 0u);
  auto r = compareLogSummaries(readLog(readText(sourcePath(dir + "b.log")), "b.log"), readLog(c, "c.log"));
  ASSERT_TRUE(r);
  ASSERT_GE(r->verdict.stopped, 0);
  EXPECT_EQ(r->labelOf(r->pairs[r->verdict.stopped]), "jit_big");
  EXPECT_EQ(r->logs[1].endsCompilingAt, missLine);
  const std::string text = logVerdictText(*r);
  EXPECT_EQ(text.find("compiled again"), std::string::npos) << text;
  EXPECT_NE(text.find("stopped while compiling jit_big (its miss at line " + std::to_string(missLine)),
            std::string::npos) << text;
  // The first run ran to its end: nothing stopped there.
  auto ab = compareLogSummaries(readLog(readText(sourcePath(dir + "a.log")), "a.log"),
                                readLog(readText(sourcePath(dir + "b.log")), "b.log"));
  ASSERT_TRUE(ab);
  EXPECT_EQ(ab->verdict.stopped, -1);
}
