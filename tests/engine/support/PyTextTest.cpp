// Python-exact string handling (engine/lib/PyText.cpp), checked against
// vectors Python itself wrote (tests/vectors/generate.py: str.split,
// bytes.strip, sorted, hashlib).
#include "TestUtil.h"

#include "cachekey/Flags.h"
#include "cachekey/PyText.h"
#include "cachekey/Sha256.h"

using namespace cachekey;
using namespace cachekey::test;

TEST(PyText, SplitMatchesPython) {
  Json v = loadJson("tests/vectors/pytext.json");
  for (const auto &c : v["split"])
    EXPECT_EQ(c["output"].get<std::vector<std::string>>(),
              pySplit(c["input"].get<std::string>()))
        << c["input"].dump();
}

TEST(PyText, HashStringMatchesPython) {
  Json v = loadJson("tests/vectors/pytext.json");
  for (const auto &c : v["hash_string"]) {
    Bytes fed = hashStringBytes(c["input"].get<std::string>());
    EXPECT_EQ(c["fed_hex"].get<std::string>(), toHex(fed));
    EXPECT_EQ(c["digest"].get<std::string>(), toHex(Sha256::of(fed)));
  }
}

TEST(PyText, SortAndFlagNameMatchPython) {
  Json v = loadJson("tests/vectors/pytext.json");
  for (const auto &c : v["sorted"]) {
    auto in = c["input"].get<std::vector<std::string>>();
    std::stable_sort(in.begin(), in.end());
    EXPECT_EQ(c["output"].get<std::vector<std::string>>(), in);
  }
  for (const auto &c : v["flag_name"])
    EXPECT_EQ(c["output"].get<std::string>(),
              flagName(c["input"].get<std::string>()));
}
