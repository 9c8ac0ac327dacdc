// Reading MLIR 23's range locations with MLIR 19.
#include "MlirTestUtil.h"

#include "cachekey/mlir/RangeLocations.h"

using namespace cachekey;
using namespace cachekey::test;

TEST(RangeLocations, RewritesBothRangeFormsInPlace) {
  std::string in = "#loc3 = loc(\"/a/b.py\":155:19 to :30)\n"
                   "#loc4 = loc(\"/a/b.py\":7:1 to 9:4)\n"
                   "#loc5 = loc(\"x\":1:2)\n";
  size_t n = 0;
  std::string out = downgradeRangeLocations(in, &n);
  EXPECT_EQ(n, 2u);
  EXPECT_EQ(out, "#loc3 = loc(\"/a/b.py\":155:19       )\n"
                 "#loc4 = loc(\"/a/b.py\":7:1       )\n"
                 "#loc5 = loc(\"x\":1:2)\n");
  EXPECT_EQ(out.size(), in.size());
}

TEST(RangeLocations, LeavesStringsCommentsAndOtherTextAlone) {
  std::string in = "%0 = \"op\"() {a = \"\\\"q\\\":1:2 to :3\", "
                   "b = \"s\" : i32} : () -> ()\n"
                   "// \"c.py\":1:2 to :3\n"
                   "\"t\":1 to :2\n";
  size_t n = 7;
  EXPECT_EQ(downgradeRangeLocations(in, &n), in);
  EXPECT_EQ(n, 0u);
}

TEST(RangeLocations, RealFixturesNeedItAndParseWithIt) {
  // Every captured module has range locations (jaxlib 0.10.2 is MLIR 23).
  for (const char *id : {"lines_a_nometa", "custom_partitioning_off", "add_1x1"}) {
    std::string text = fixtureModule(id);
    size_t n = 0;
    std::string out = downgradeRangeLocations(text, &n);
    EXPECT_GT(n, 0u) << id;
    ReadBack plain(text);
    EXPECT_FALSE(plain.module) << id << " parses without the rewrite";
    ReadBack rewritten(out);
    EXPECT_TRUE(rewritten.module) << id;
  }
}
