// Entry 4, the XLA flags (engine/lib/Flags.cpp), against the bytes real JAX
// fed (tests/vectors/entries.json, written by tests/vectors/generate.py).
#include "TestUtil.h"

#include "cachekey/Flags.h"
#include "cachekey/Sha256.h"

using namespace cachekey;
using namespace cachekey::test;

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
