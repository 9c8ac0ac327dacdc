// SHA-256 (engine/lib/Sha256OpenSsl.cpp natively, Sha256MbedTls.cpp in
// wasm): digests as Python's hashlib gives them.
#include "TestUtil.h"

#include "cachekey/Sha256.h"

using namespace cachekey;
using namespace cachekey::test;

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
