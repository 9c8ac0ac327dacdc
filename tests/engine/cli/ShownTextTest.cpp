// The CLI's text output filter (engine/tools/cachekey/ShownText.h). Expected
// texts are written from the rule itself: RFC 3629's table of well-formed
// UTF-8 and the escapes the header names.
#include "ShownText.h"

#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

using cachekey::cli::ShownTextBuf;
using cachekey::cli::ShownTextScope;

namespace {

/// `pieces` written one after another through a ShownTextBuf, as a stream
/// writes a report in many calls; then finished.
std::string shownPieces(const std::vector<std::string> &pieces) {
  std::stringbuf sink;
  {
    ShownTextBuf filter(&sink);
    for (const auto &p : pieces)
      filter.sputn(p.data(), static_cast<std::streamsize>(p.size()));
  }
  return sink.str();
}

std::string shown(const std::string &text) { return shownPieces({text}); }

TEST(ShownText, PrintableAsciiLineFeedTabAndUtf8PassAsTheyAre) {
  const std::string text = "Verdict: jit_step \xe2\x86\x92 0.12.0.1\n\tdone \xf0\x9f\x98\x80 \xc3\xa9\n";
  EXPECT_EQ(shown(text), text);
}

TEST(ShownText, ControlBytesAreEscaped) {
  EXPECT_EQ(shown(std::string("a\rb\x1b[31mc\x7f\x01", 11)), "a\\rb\\x1b[31mc\\x7f\\x01");
  EXPECT_EQ(shown(std::string("x\0y", 3)), "x\\x00y");
}

TEST(ShownText, BytesThatAreNotUtf8AreEscapedOneByOne) {
  // A lone continuation byte, a lead byte without its continuation, an
  // overlong form (C0 80), a surrogate (ED A0 80) and a code point past
  // U+10FFFF (F4 90 80 80): RFC 3629 allows none of them.
  EXPECT_EQ(shown("a\x80z"), "a\\x80z");
  EXPECT_EQ(shown("a\xc3z"), "a\\xc3z");
  EXPECT_EQ(shown("\xc0\x80"), "\\xc0\\x80");
  EXPECT_EQ(shown("\xed\xa0\x80"), "\\xed\\xa0\\x80");
  EXPECT_EQ(shown("\xf4\x90\x80\x80"), "\\xf4\\x90\\x80\\x80");
  // The edges that are allowed: U+D7FF (ED 9F BF) and U+10FFFF (F4 8F BF BF).
  EXPECT_EQ(shown("\xed\x9f\xbf\xf4\x8f\xbf\xbf"), "\xed\x9f\xbf\xf4\x8f\xbf\xbf");
}

TEST(ShownText, ASequenceSplitBetweenWritesIsKeptWhole) {
  // U+1F600 in four writes of one byte; U+2192 split 1 + 2 beside ASCII.
  EXPECT_EQ(shownPieces({"<", "\xf0", "\x9f", "\x98", "\x80", ">"}), "<\xf0\x9f\x98\x80>");
  EXPECT_EQ(shownPieces({"a\xe2", "\x86\x92" "b"}), "a\xe2\x86\x92" "b");
  // Misaligned four-byte sequences across many writes.
  std::vector<std::string> pieces;
  std::string whole;
  for (int i = 0; i < 50; ++i)
    whole += "\xf0\x9f\x98\x80";
  for (size_t i = 0; i < whole.size(); i += 3)
    pieces.push_back(whole.substr(i, 3));
  EXPECT_EQ(shownPieces(pieces), whole);
}

TEST(ShownText, AnUnfinishedSequenceIsShownAsBytes) {
  // Cut by the next write's ASCII, and left at the end.
  EXPECT_EQ(shownPieces({"a\xe2\x86", "b"}), "a\\xe2\\x86b");
  EXPECT_EQ(shownPieces({"a\xe2\x86"}), "a\\xe2\\x86");
  // A control byte right after a held lead byte is escaped on its own.
  EXPECT_EQ(shownPieces({"\xc3", "\r"}), "\\xc3\\r");
}

TEST(ShownText, ScopeFiltersAStreamAndRestoresIt) {
  std::ostringstream out;
  std::streambuf *before = out.rdbuf();
  {
    ShownTextScope scope(out);
    out << "name \x1b" << 'x' << '\xe2' << "\x86\x92" << 7 << "\n";
  }
  EXPECT_EQ(out.rdbuf(), before);
  out << "\r";
  EXPECT_EQ(out.str(), "name \\x1bx\xe2\x86\x92" "7\n\r");
}

} // namespace
