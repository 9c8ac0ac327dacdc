// engine/lib/explain/Wording.cpp and the facts Diff.cpp hands it: the
// analysis returns codes and fields; the words are written from them.
#include "../TestUtil.h"

#include "cachekey/Wording.h"

using namespace cachekey;
using namespace cachekey::test;
using C = EntryChange::Code;

namespace {
Comparison diff(const Json &a, const Json &b) {
  return compareResults(mustCompute(a), mustCompute(b));
}
} // namespace

TEST(Wording, EveryDetailHasItsFact) {
  Comparison c = diff(patched("add_1x1", {}),
                      patched("add_1x1", {{"jaxlib_version", "0.10.3"}}));
  EXPECT_EQ(c.cause, 2);
  const std::vector<std::string> details = comparisonDetailsText(c);
  ASSERT_EQ(c.changes.size(), details.size());
  ASSERT_FALSE(c.changes.empty());
  EXPECT_EQ(c.changes[0].code, C::JaxlibVersion);
  EXPECT_EQ(c.changes[0].entry, 2);
  EXPECT_EQ(c.changes[0].before, "0.10.2");
  EXPECT_EQ(c.changes[0].after, "0.10.3");
  EXPECT_EQ(entryChangeText(c.changes[0]), details[0]);
}

TEST(Wording, ACompileOptionIsAFieldChange) {
  Comparison c = diff(
      patched("add_1x1", {}),
      patched("add_1x1", {{"compile_options",
                           {{"edits", {{"debug_options", {{"xla_gpu_autotune_level", 1}}}}}}}}));
  EXPECT_EQ(c.cause, 5);
  ASSERT_FALSE(c.changes.empty());
  const EntryChange &e = c.changes[0];
  EXPECT_EQ(e.code, C::CompileOption);
  EXPECT_EQ(e.field.kind, FieldChange::Kind::Field);
  EXPECT_EQ(e.field.message, ProtoMessage::DebugOptions);
  EXPECT_EQ(e.field.name, "xla_gpu_autotune_level");
  EXPECT_EQ(e.field.after, "1");
  EXPECT_TRUE(e.field.hashed);
  EXPECT_EQ(fieldChangeLabel(e.field),
            "DebugOptions.xla_gpu_autotune_level (field " +
                std::to_string(e.field.number) + ")");
}

TEST(Wording, AZeroedFieldIsUnhashedNotACause) {
  Comparison c = diff(
      patched("add_1x1", {}),
      patched("add_1x1", {{"compile_options",
                           {{"edits", {{"debug_options", {{"xla_dump_to", "/tmp/d"}}}}}}}}));
  EXPECT_EQ(c.cause, 0);
  ASSERT_EQ(c.unhashedInputs.size(), 1u);
  const UnhashedInput &u = c.unhashedInputs[0];
  EXPECT_EQ(u.kind, UnhashedInput::Kind::CompileOption);
  EXPECT_EQ(u.field.name, "xla_dump_to");
  EXPECT_FALSE(u.field.hashed);
  EXPECT_NE(comparisonSentence(c).find(unhashedText(u)), std::string::npos);
}

TEST(Wording, FlagChanges) {
  auto changes = flagChanges({{true, "--a=0"}, {true, "--c"}}, {{true, "--a=1"}, {true, "--b"}});
  ASSERT_EQ(changes.size(), 3u);
  EXPECT_EQ(changes[0].kind, FlagChange::Kind::Replaced);
  EXPECT_EQ(changes[0].flag, "--a=1");
  EXPECT_EQ(changes[0].previous, "--a=0");
  EXPECT_EQ(changes[1].kind, FlagChange::Kind::Added);
  EXPECT_EQ(changes[2].kind, FlagChange::Kind::Removed);
  EXPECT_EQ(flagChangeText(changes[0]), "flag --a=1 replaced --a=0");
  EXPECT_EQ(flagChanges({}, {})[0].kind, FlagChange::Kind::Regrouped);
}

// A flag on both sides, given more or fewer times: one change that says so,
// not an "added" flag the first side also had (each copy goes into entry 4).
TEST(Wording, FlagGivenAgainIsRepeatedNotAdded) {
  auto more = flagChanges({{true, "--a=1"}}, {{true, "--a=1"}, {true, "--a=1"}});
  ASSERT_EQ(more.size(), 1u);
  EXPECT_EQ(more[0].kind, FlagChange::Kind::Repeated);
  EXPECT_EQ(more[0].flag, "--a=1");
  EXPECT_EQ(more[0].times, 2);
  EXPECT_EQ(more[0].previousTimes, 1);
  EXPECT_EQ(flagChangeText(more[0]), "flag --a=1 given twice instead of once (each copy is hashed)");
  auto fewer = flagChanges({{true, "--a=1"}, {true, "--a=1"}, {true, "--a=1"}}, {{true, "--a=1"}});
  ASSERT_EQ(fewer.size(), 1u);
  EXPECT_EQ(fewer[0].kind, FlagChange::Kind::Repeated);
  EXPECT_EQ(fewer[0].times, 1);
  EXPECT_EQ(fewer[0].previousTimes, 3);
  // The same flag repeated another number of times is another change.
  auto thrice = flagChanges({{true, "--a=1"}}, {{true, "--a=1"}, {true, "--a=1"}, {true, "--a=1"}});
  ASSERT_EQ(thrice.size(), 1u);
  EXPECT_FALSE(thrice[0] == more[0]);
  EXPECT_TRUE(more[0] < thrice[0] || thrice[0] < more[0]);
  EXPECT_TRUE(more[0] == flagChanges({{true, "--a=1"}}, {{true, "--a=1"}, {true, "--a=1"}})[0]);
  // Another value of the same name is still a replacement.
  auto replaced = flagChanges({{true, "--a=0"}, {true, "--a=1"}}, {{true, "--a=1"}, {true, "--a=1"}});
  ASSERT_EQ(replaced.size(), 1u);
  EXPECT_EQ(replaced[0].kind, FlagChange::Kind::Replaced);
  // An excluded copy never counts.
  auto excluded = flagChanges({{true, "--a=1"}}, {{true, "--a=1"}, {false, "--a=1"}});
  EXPECT_EQ(excluded[0].kind, FlagChange::Kind::Regrouped);
}

TEST(Wording, ListsAndPlurals) {
  EXPECT_EQ(plural(1, "program", "programs"), "1 program");
  EXPECT_EQ(plural(2, "program", "programs"), "2 programs");
  EXPECT_EQ(nameList({"a"}), "a");
  EXPECT_EQ(nameList({"a", "b", "c"}), "a, b and c");
  EXPECT_EQ(nameList({"a", "b", "c"}, 2), "a, b and 1 more");
}

TEST(Wording, RolesHaveCodes) {
  Comparison c;
  c.cause = 2;
  c.withCause = {5};
  c.consequences = {3};
  EXPECT_STREQ(entryRoleCode(c.role(2)), "cause");
  EXPECT_STREQ(entryRoleCode(c.role(5)), "with_cause");
  EXPECT_STREQ(entryRoleCode(c.role(3)), "consequence");
  EXPECT_STREQ(entryRoleCode(c.role(8)), "same");
}
