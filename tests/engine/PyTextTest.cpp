// Python-exact string handling, checked against vectors Python itself wrote
// (tests/vectors/generate.py: str.split, bytes.strip, sorted, hashlib).
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

TEST(Sha256, RunningDigestDoesNotFinalise) {
  // hashlib: sha256(b"abc").digest() then update(b"def") equals sha256(b"abcdef").
  Sha256 h;
  h.update("abc");
  EXPECT_EQ(toHex(h.runningDigest()),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  h.update("def");
  EXPECT_EQ(toHex(h.runningDigest()),
            "bef57ec7f53a6d40beb640a780a639c83bc29ac8a9816f1fc6c5c6dcd93c4721");
  Json v = loadJson("tests/vectors/pytext.json");
  EXPECT_EQ(v["sha256_empty"].get<std::string>(), toHex(Sha256::of("")));
}

TEST(Flags, EntryFourMatchesRealJax) {
  Json v = loadJson("tests/vectors/entries.json");
  for (const auto &c : v["flags"]) {
    FlagInputs in;
    const Json &f = c["flags"];
    if (f["XLA_FLAGS"].is_string())
      in.xlaFlags = f["XLA_FLAGS"].get<std::string>();
    if (f["LIBTPU_INIT_ARGS"].is_string())
      in.libtpuInitArgs = f["LIBTPU_INIT_ARGS"].get<std::string>();
    in.argv = f["argv"].get<std::vector<std::string>>();
    in.extraPrefixes = f["extra_prefixes"].get<std::vector<std::string>>();
    Bytes fed;
    for (const auto &step : collectFlags(in, Profile::V0_10_2))
      fed += step.hashed;
    EXPECT_EQ(c["fed_hex"].get<std::string>(), toHex(fed)) << f.dump();
    EXPECT_EQ(c["digest"].get<std::string>(), toHex(Sha256::of(fed)));
  }
}
