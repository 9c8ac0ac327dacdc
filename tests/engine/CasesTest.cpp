// The cache-miss cases of tests/cases: real logs and scenarios made with the
// real JAX, each with the right answer in its expect.json (written from the
// change the case made, never from the engine). One test per case folder.
//
// expect.json: {"compare": [...], "diff": [...]}. A compare item names two
// logs ("a", "b") and what `compare-logs` must say: "keys_differ", "cause",
// "with_cause", "also_changed", "roles", "paired_by", "explained" (the label
// of the pair the explanation names), "explained_own_1" (its entry-1 own
// digests, null for "not checked"), "decoded" ({entry: [a, b]}), "pairs"
// ({label: {"keys", "in", "outcome_a"/"outcome_b" exact, or
// "…_contains"}}), "sentence_contains", "sentence_lacks", "summary_contains",
// "summary_lacks", "advice_codes" (the codes of "what_to_do", in order),
// "notes_contain", "stats_a"/"stats_b" ({field: value} of the run's stats);
// a pair's "miss_code"/"move_code" is the code of its miss or move finding,
// "outcome_a_code"/"outcome_b_code" that of its outcome. A diff item names two scenarios and "cause",
// "with_cause", "also_changed", "details_contain", "sentence_contains",
// "last_detail_starts".
#include "TestUtil.h"

#include "cachekey/Diff.h"
#include "cachekey/Wording.h"
#include "cachekey/LogCompare.h"
#include "logs/LogFacts.h"

#include <regex>
#include <filesystem>

using namespace cachekey;
using namespace cachekey::test;

namespace {

namespace fs = std::filesystem;

std::string allText(const Json &j) {
  std::string s;
  for (const auto &x : j)
    s += (x.is_object() ? x["text"] : x).get<std::string>() + "\n";
  return s;
}

void expectContains(const std::string &haystack, const Json &needles,
                    const std::string &what) {
  for (const auto &n : needles) {
    EXPECT_NE(haystack.find(n.get<std::string>()), std::string::npos)
        << what << " lacks: " << n.get<std::string>() << "\n" << what << ": "
        << haystack;
  }
}

/// Reads a log file the way the CLI does: fed in chunks.
LogSummary readCaseLog(const fs::path &path) {
  std::string text = readText(path.string());
  LogReader reader(path.filename().string());
  for (size_t i = 0; i < text.size(); i += 4093)
    reader.feed(std::string_view(text).substr(i, 4093));
  return reader.finish();
}

std::vector<int> ints(const Json &j) { return j.get<std::vector<int>>(); }

void checkCompare(const fs::path &dir, const Json &e) {
  std::string a = e["a"], b = e["b"];
  SCOPED_TRACE(a + " vs " + b);
  auto c = compareLogSummaries(readCaseLog(dir / a), readCaseLog(dir / b));
  ASSERT_TRUE(c) << c.error().str();
  Json j = logComparisonToJson(*c);
  if (e.contains("keys_differ")) {
    EXPECT_EQ(c->keysDiffer(), e["keys_differ"].get<bool>()) << logs::comparisonSentence(*c);
  }
  if (e.contains("cause")) {
    EXPECT_EQ(c->comparison.cause, e["cause"].get<int>()) << logs::comparisonSentence(*c);
  }
  if (e.contains("with_cause")) {
    EXPECT_EQ(c->comparison.withCause, ints(e["with_cause"])) << logs::comparisonSentence(*c);
  }
  if (e.contains("also_changed")) {
    EXPECT_EQ(c->comparison.alsoChanged, ints(e["also_changed"])) << logs::comparisonSentence(*c);
  }
  if (e.contains("roles")) {
    // Each role as {code, text}: the words the case expects, and their code.
    Json texts = Json::array(), codes = Json::array(), want = Json::array();
    for (const auto &r : j["roles"]) {
      texts.push_back(r["text"]);
      codes.push_back(r["code"]);
    }
    for (const auto &r : e["roles"]) {
      std::string code = r.get<std::string>();
      std::replace(code.begin(), code.end(), ' ', '_');
      want.push_back(code);
    }
    EXPECT_EQ(texts, e["roles"]);
    EXPECT_EQ(codes, want);
  }
  if (e.contains("paired_by")) {
    EXPECT_EQ(pairedByName(c->pairedBy), e["paired_by"].get<std::string>());
  }
  if (e.contains("explained")) {
    ASSERT_FALSE(j["explained"].is_null());
    EXPECT_EQ(j["explained"]["label"], e["explained"]);
  }
  if (e.contains("explained_own_1"))
    for (int side = 0; side < 2; ++side)
      if (!e["explained_own_1"][side].is_null()) {
        EXPECT_EQ(j["explained"][side ? "b" : "a"]["own"][0],
                  e["explained_own_1"][side]);
      }
  if (e.contains("decoded"))
    for (const auto &[entry, pair] : e["decoded"].items()) {
      bool found = false;
      for (const auto &d : j["explained"]["decoded"])
        if (std::to_string(d["entry"].get<int>()) == entry) {
          found = true;
          EXPECT_EQ(d["a"], pair[0]) << "entry " << entry;
          EXPECT_EQ(d["b"], pair[1]) << "entry " << entry;
        }
      EXPECT_TRUE(found) << "no decoded entry " << entry;
    }
  if (e.contains("pairs"))
    for (const auto &[label, want] : e["pairs"].items()) {
      const Json *got = nullptr;
      for (const auto &p : j["pairs"])
        if (p["label"] == label)
          got = &p;
      ASSERT_NE(got, nullptr) << "no pair " << label << " in " << j["pairs"].dump();
      // A pair's outcomes are findings: {code, …, text}; the case gives
      // their text.
      auto member = [&](const std::string &k) -> const Json & {
        if (k == "outcome_a" || k == "outcome_b")
          return (*got)["findings"][k]["text"];
        return (*got)[k];
      };
      for (const auto &[k, v] : want.items()) {
        if (k == "outcome_a_code" || k == "outcome_b_code") {
          // The outcome's code, where the case gives the fact, not the words.
          EXPECT_EQ((*got)["findings"][k.substr(0, 9)]["code"], v) << label << " " << k;
        } else if (k == "miss_code" || k == "move_code") {
          const Json &fact = (*got)["findings"][k == "miss_code" ? "miss" : "move"];
          ASSERT_FALSE(fact.is_null()) << label << " has no " << k << ": " << got->dump();
          EXPECT_EQ(fact["code"], v) << label << " " << k << ": " << got->dump();
        } else if (k.size() > 9 && k.substr(k.size() - 9) == "_contains") {
          EXPECT_NE(member(k.substr(0, k.size() - 9)).get<std::string>().find(
                        v.get<std::string>()),
                    std::string::npos)
              << label << " " << k << ": " << (*got).dump();
        }
        else
          EXPECT_EQ(member(k), v) << label << " " << k;
      }
    }
  if (e.contains("sentence_contains"))
    expectContains(logs::comparisonSentence(*c), e["sentence_contains"], "sentence");
  if (e.contains("sentence_lacks"))
    for (const auto &n : e["sentence_lacks"]) {
      EXPECT_EQ(logs::comparisonSentence(*c).find(n.get<std::string>()), std::string::npos)
          << "sentence has: " << n.get<std::string>() << "\n" << logs::comparisonSentence(*c);
    }
  if (e.contains("summary_contains"))
    expectContains(logs::runSummary(*c), e["summary_contains"], "summary");
  if (e.contains("advice_codes")) {
    // What to do, in order: the codes the case's right answer names.
    std::vector<std::string> got;
    for (const auto &a : j["what_to_do"])
      got.push_back(a["code"]);
    EXPECT_EQ(got, e["advice_codes"].get<std::vector<std::string>>())
        << j["what_to_do"].dump(1);
    for (const auto &a : j["what_to_do"])
      EXPECT_FALSE(a["text"].get<std::string>().empty()) << a.dump();
  }
  if (e.contains("summary_lacks"))
    for (const auto &n : e["summary_lacks"]) {
      EXPECT_EQ(logs::runSummary(*c).find(n.get<std::string>()), std::string::npos)
          << "summary has: " << n.get<std::string>() << "\n" << logs::runSummary(*c);
    }
  for (const char *side : {"stats_a", "stats_b"})
    if (e.contains(side))
      for (const auto &[k, v] : e[side].items()) {
        const Json &st = j["logs"][side[6] == 'a' ? 0 : 1]["stats"];
        EXPECT_EQ(st[k], v) << side << " " << k << ": " << st.dump();
      }
  if (e.contains("notes_contain"))
    expectContains(allText(j["findings"]["notes"]), e["notes_contain"], "notes");
  // Whatever the case: a program whose keys are equal is never blamed (no
  // word "moved" in its verdict; "removed", of its entry, is no blame).
  static const std::regex movedWord("\\bmoved\\b");
  for (const auto &p : c->pairs)
    if (p.keys == ProgramPair::Keys::Equal) {
      EXPECT_FALSE(std::regex_search(pairVerdictText(*c, p), movedWord)) << pairVerdictText(*c, p);
    }
}

void checkDiff(const fs::path &dir, const Json &e) {
  std::string a = e["a"], b = e["b"];
  SCOPED_TRACE(a + " vs " + b);
  auto load = [&](const std::string &f) {
    return parseJsonText(readText((dir / f).string()));
  };
  auto ja = load(a), jb = load(b);
  ASSERT_TRUE(ja && jb);
  KeyResult ra = mustCompute(*ja), rb = mustCompute(*jb);
  Comparison c = compareResults(ra, rb);
  const std::string sentence = comparisonSentence(c);
  const std::vector<std::string> lines = comparisonDetailsText(c);
  if (e.contains("cause")) {
    EXPECT_EQ(c.cause, e["cause"].get<int>()) << sentence;
  }
  if (e.contains("with_cause")) {
    EXPECT_EQ(c.withCause, ints(e["with_cause"])) << sentence;
  }
  if (e.contains("also_changed")) {
    EXPECT_EQ(c.alsoChanged, ints(e["also_changed"])) << sentence;
  }
  std::string details;
  for (const auto &d : lines)
    details += d + "\n";
  if (e.contains("details_contain"))
    expectContains(details, e["details_contain"], "details");
  if (e.contains("sentence_contains"))
    expectContains(sentence, e["sentence_contains"], "sentence");
  if (e.contains("last_detail_starts")) {
    ASSERT_FALSE(lines.empty());
    EXPECT_EQ(lines.back().rfind(e["last_detail_starts"].get<std::string>(), 0),
              0u)
        << details;
  }
}

std::vector<std::string> caseFolders() {
  std::vector<std::string> out;
  for (const auto &d : fs::directory_iterator(sourcePath("tests/cases")))
    if (d.is_directory() && fs::exists(d.path() / "expect.json"))
      out.push_back(d.path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}

class Case : public testing::TestWithParam<std::string> {};

TEST_P(Case, GivesTheRightAnswer) {
  fs::path dir = sourcePath("tests/cases/" + GetParam());
  Json expect = loadJson("tests/cases/" + GetParam() + "/expect.json");
  ASSERT_TRUE(expect.contains("compare") || expect.contains("diff"));
  if (expect.contains("compare"))
    for (const auto &e : expect["compare"])
      checkCompare(dir, e);
  if (expect.contains("diff"))
    for (const auto &e : expect["diff"])
      checkDiff(dir, e);
}

INSTANTIATE_TEST_SUITE_P(Cases, Case, testing::ValuesIn(caseFolders()),
                         [](const testing::TestParamInfo<std::string> &info) {
                           std::string name;
                           for (char ch : info.param)
                             name += std::isalnum(static_cast<unsigned char>(ch)) ? ch : '_';
                           return name;
                         });

} // namespace
