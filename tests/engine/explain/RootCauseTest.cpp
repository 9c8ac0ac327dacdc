// groupMovedEntries returns facts (CauseLink), and causeLinkText alone words
// them. The moved entries are those measured with jax 0.10.2 on CPU
// (RootCause.h, tests/cases): a jaxlib upgrade moves 1, 2, 5, 6;
// --xla_cpu_max_isa moves 4, 5, 6.
#include "cachekey/RootCause.h"
#include "cachekey/Wording.h"

#include <gtest/gtest.h>

using namespace cachekey;

namespace {
std::array<bool, kNumEntries> moved(std::initializer_list<int> entries) {
  std::array<bool, kNumEntries> own{};
  for (int e : entries)
    own[e - 1] = true;
  return own;
}
} // namespace

TEST(RootCause, ANewJaxlibLinksTheProgramTheOptionsAndTheTopology) {
  auto groups = groupMovedEntries(moved({1, 2, 5, 6}), {});
  ASSERT_EQ(groups.size(), 1u);
  EXPECT_EQ(groups[0].entry, 2);
  EXPECT_EQ(groups[0].linked, (std::vector<int>{1, 5, 6}));
  EXPECT_EQ(groups[0].link.code, CauseLink::Code::NewJaxlib);
  EXPECT_EQ(causeLinkText(2, groups[0].linked, groups[0].link),
            "A new jaxlib lowers the program, fills the compile options and "
            "fingerprints the devices its own way, so entries 1, 5 and 6 are "
            "expected to move with it: there is nothing to look for in the "
            "program.");
}

TEST(RootCause, TheCpuIsaFlagReachesEntriesFiveAndSix) {
  ChangeEvidence ev;
  ev.keptFlags = {"xla_cpu_max_isa"};
  auto groups = groupMovedEntries(moved({4, 5, 6}), ev);
  ASSERT_EQ(groups.size(), 1u);
  const CauseGroup &g = groups[0];
  EXPECT_EQ(g.entry, 4);
  EXPECT_EQ(g.linked, (std::vector<int>{5, 6}));
  EXPECT_EQ(g.link.code, CauseLink::Code::XlaFlags);
  EXPECT_EQ(g.link.debugFlags, std::vector<std::string>{"xla_cpu_max_isa"});
  EXPECT_EQ(g.link.cpuFlags, std::vector<std::string>{"xla_cpu_max_isa"});
  std::string text = causeLinkText(4, g.linked, g.link);
  EXPECT_EQ(text.rfind("XLA also parses --xla_cpu_max_isa into " +
                           debugFieldLabel("xla_cpu_max_isa") +
                           ", which entry 5 hashes; --xla_cpu_max_isa also "
                           "changes the CPU target",
                       0),
            0u)
      << text;
  EXPECT_NE(text.find(": one change, seen in entries 4, 5 and 6."), std::string::npos)
      << text;
}

TEST(RootCause, AFlagOutsideDebugOptionsLeavesEntryFiveItsOwnChange) {
  ChangeEvidence ev;
  ev.keptFlags = {"not_an_xla_field"};
  auto groups = groupMovedEntries(moved({4, 5}), ev);
  ASSERT_EQ(groups.size(), 2u);
  EXPECT_EQ(groups[0].link.code, CauseLink::Code::None);
  EXPECT_TRUE(groups[0].linked.empty());
  EXPECT_EQ(groups[1].entry, 5);
  EXPECT_EQ(causeLinkText(4, {}, groups[0].link), "");
}
