// Unified diffs of module text (engine/lib/TextDiff.cpp); the minimal edit
// count is checked against GNU diff --minimal where it is installed.
#include "TestUtil.h"

#include "cachekey/TextDiff.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <random>

using namespace cachekey;
using namespace cachekey::test;

TEST(TextDiff, OneReplacedLine) {
  EXPECT_EQ(unifiedDiff("a\nb\nc\nd\n", "a\nb\nX\nd\n", "A", "B"),
            "--- A\n+++ B\n@@ -1,4 +1,4 @@\n a\n b\n-c\n+X\n d\n");
  EXPECT_EQ(unifiedDiff("same\n", "same\n", "A", "B"), "");
}

TEST(TextDiff, HunksAreSeparatedBeyondTwiceTheContext) {
  std::string a, b;
  for (int i = 0; i < 20; ++i) {
    a += "l" + std::to_string(i) + "\n";
    b += (i == 2 || i == 15 ? "changed" : "l" + std::to_string(i)) + "\n";
  }
  EXPECT_EQ(unifiedDiff(a, b, "A", "B"),
            "--- A\n+++ B\n@@ -1,6 +1,6 @@\n l0\n l1\n-l2\n+changed\n l3\n l4\n l5\n"
            "@@ -13,7 +13,7 @@\n l12\n l13\n l14\n-l15\n+changed\n l16\n l17\n l18\n");
}

TEST(TextDiff, EmptySidesAndLimits) {
  EXPECT_EQ(unifiedDiff("", "x\n", "A", "B"), "--- A\n+++ B\n@@ -0,0 +1 @@\n+x\n");
  EXPECT_EQ(unifiedDiff("x\n", "", "A", "B"), "--- A\n+++ B\n@@ -1 +0,0 @@\n-x\n");
  UnifiedDiffOptions few;
  few.maxEdits = 2;
  EXPECT_NE(unifiedDiff("a\nb\nc\n", "x\ny\nz\n", "A", "B", few)
                .find("more than 2 lines inserted or deleted"),
            std::string::npos);
}

// The lines as facts: what each is, and the hunk's ranges as numbers; the
// expected ops are read off the two texts by hand.
TEST(TextDiff, LinesCarryTheirOpAndTheHunkRanges) {
  using Op = DiffLine::Op;
  std::vector<DiffLine> d = diffLines("a\nb\nc\n", "a\nX\nc\nd\n", "A/m", "B/m");
  std::vector<Op> ops;
  std::vector<std::string> texts;
  for (const DiffLine &l : d)
    ops.push_back(l.op), texts.push_back(l.text);
  EXPECT_EQ(ops, (std::vector<Op>{Op::FileA, Op::FileB, Op::Hunk, Op::Context,
                                  Op::Del, Op::Add, Op::Context, Op::Add}));
  EXPECT_EQ(texts, (std::vector<std::string>{"A/m", "B/m", "", "a", "b", "X",
                                             "c", "d"}));
  EXPECT_EQ(d[2].firstA, 1u);
  EXPECT_EQ(d[2].countA, 3u);
  EXPECT_EQ(d[2].firstB, 1u);
  EXPECT_EQ(d[2].countB, 4u);
  EXPECT_EQ(diffLineText(d[2]), "@@ -1,3 +1,4 @@");
  EXPECT_EQ(unifiedDiffText(d), "--- A/m\n+++ B/m\n@@ -1,3 +1,4 @@\n a\n-b\n+X\n c\n+d\n");
  EXPECT_TRUE(diffLines("same\n", "same\n", "A", "B").empty());

  // An empty side is numbered by the line before it, as diff -u does.
  std::vector<DiffLine> added = diffLines("", "x\n", "A", "B");
  ASSERT_EQ(added.size(), 4u);
  EXPECT_EQ(added[2].op, Op::Hunk);
  EXPECT_EQ(added[2].firstA, 0u);
  EXPECT_EQ(added[2].countA, 0u);
  EXPECT_EQ(added[2].firstB, 1u);
  EXPECT_EQ(added[2].countB, 1u);
}

TEST(TextDiff, CutAndTooLargeAreLinesWithTheirCounts) {
  using Op = DiffLine::Op;
  UnifiedDiffOptions two;
  two.maxLines = 2; // the hunk header and one line
  std::vector<DiffLine> cut = diffLines("a\nb\n", "x\ny\n", "A", "B", two);
  ASSERT_EQ(cut.size(), 5u);
  EXPECT_EQ(cut[3].op, Op::Del);
  EXPECT_EQ(cut[3].text, "a");
  EXPECT_EQ(cut[4].op, Op::Cut);
  EXPECT_EQ(cut[4].more, 3u); // -b, +x, +y
  EXPECT_EQ(diffLineText(cut[4]), "\u2026 3 more lines");

  UnifiedDiffOptions few;
  few.maxEdits = 2;
  std::vector<DiffLine> big = diffLines("a\nb\nc\n", "x\ny\nz\nw\n", "A", "B", few);
  ASSERT_EQ(big.size(), 3u);
  EXPECT_EQ(big[2].op, Op::TooLarge);
  EXPECT_EQ(big[2].more, 2u);
  EXPECT_EQ(big[2].countA, 3u);
  EXPECT_EQ(big[2].countB, 4u);
}

// With unlimited context the single hunk holds both texts whole; the number
// of changed lines is the minimum, as GNU `diff --minimal` finds it.
TEST(TextDiff, RandomTextsRoundTripWithMinimalEdits) {
  std::mt19937 rng(20261130);
  UnifiedDiffOptions all;
  all.context = 1u << 30;
  all.maxLines = 1u << 30;
  bool haveDiff = std::system("diff --version > /dev/null 2>&1") == 0;
  for (int round = 0; round < 200; ++round) {
    auto randomText = [&](int n) {
      std::string s;
      for (int i = 0; i < n; ++i)
        s += std::string(1, static_cast<char>('a' + rng() % 4)) + "\n";
      return s;
    };
    std::string a = randomText(static_cast<int>(rng() % 30)),
                b = randomText(static_cast<int>(rng() % 30));
    std::string d = unifiedDiff(a, b, "A", "B", all);
    if (a == b) {
      EXPECT_EQ(d, "");
      continue;
    }
    std::string ra, rb;
    int edits = 0;
    size_t pos = d.find("@@", 0);
    pos = d.find('\n', pos) + 1;
    while (pos < d.size()) {
      size_t nl = d.find('\n', pos);
      std::string line = d.substr(pos, nl - pos);
      pos = nl + 1;
      if (line[0] != '+')
        ra += line.substr(1) + "\n";
      if (line[0] != '-')
        rb += line.substr(1) + "\n";
      edits += line[0] != ' ';
    }
    ASSERT_EQ(ra, a) << d;
    ASSERT_EQ(rb, b) << d;
    if (haveDiff) {
      // Named by process: other test runs on the machine use TempDir() too.
      std::string tag = std::to_string(static_cast<long>(::getpid()));
      std::string fa = ::testing::TempDir() + "/td_a_" + tag,
                  fb = ::testing::TempDir() + "/td_b_" + tag;
      std::ofstream(fa) << a;
      std::ofstream(fb) << b;
      std::string cmd = "diff --minimal " + fa + " " + fb + " | grep -c '^[<>]'";
      FILE *p = popen(cmd.c_str(), "r");
      int gnu = -1;
      ASSERT_EQ(std::fscanf(p, "%d", &gnu), 1);
      pclose(p);
      EXPECT_EQ(edits, gnu) << a << "---\n" << b;
    }
  }
}
