// tpu_standins: recomputes the stand-in TPU topology fingerprints listed in
// fixtures/tpu_topologies.json, independently of JAX and of the explainer.
//
// The stand-in rule (also stated in the fixture's "stand_in_rule"):
//
//   value = FarmHash Fingerprint64( UTF-8 bytes of
//             "stand-in:" + id + ":" + device_kind + ":" + topology )
//   printed as 16 lowercase hex digits (the big-endian order in which
//   jax/_src/cache_key.py feeds the 8 bytes).
//
// Fingerprint64 is util::Fingerprint64 from Debian's libfarmhash-dev, which is
// Google FarmHash's Fingerprint64 (farmhashna::Hash64). These values are NOT
// what libtpu returns on a real TPU; libtpu's formula is not public.
//
// Usage:
//   tpu_standins ID DEVICE_KIND TOPOLOGY   print the stand-in for one entry
//   tpu_standins --string TEXT             Fingerprint64 of TEXT, as hex
//   tpu_standins --json FILE               recompute every entry of FILE and
//                                          compare with the stored values;
//                                          exit 1 on any stand-in mismatch
//   tpu_standins --self-test               check Fingerprint64 against values
//                                          from FarmHash's own self-test table
//
// Build: g++ -std=c++17 -O2 tpu_standins.cc -o tpu_standins -lfarmhash
// (tools/tpu_standins does this in a temporary directory.)

#include <farmhash.h>

#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace {

std::string Hex16(uint64_t v) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016" PRIx64, v);
  return buf;
}

std::string StandInInput(const std::string& id, const std::string& kind,
                         const std::string& topology) {
  return "stand-in:" + id + ":" + kind + ":" + topology;
}

std::string StandIn(const std::string& id, const std::string& kind,
                    const std::string& topology) {
  return Hex16(util::Fingerprint64(StandInInput(id, kind, topology)));
}

// FarmHash's self-test hashes slices of a 1 MiB pseudo-random buffer. This is
// the generator described in its self-test harness (seeds 9 and 777, the
// constant k0, one byte per step taken from bits 37..44 of b).
std::vector<char> SelfTestData() {
  const uint64_t k0 = 0xc3a5c85c97cb3127ULL;
  const int kDataSize = 1 << 20;
  std::vector<char> data(kDataSize);
  uint64_t a = 9, b = 777;
  for (int i = 0; i < kDataSize; i++) {
    a += b;
    b += a;
    a = (a ^ (a >> 41)) * k0;
    b = (b ^ (b >> 41)) * k0 + i;
    uint8_t u = static_cast<uint8_t>(b >> 37);
    std::memcpy(&data[i], &u, 1);
  }
  return data;
}

int SelfTest() {
  // (offset, length, expected Fingerprint64). Each expected value is the
  // Hash64 pair (high word, low word) that FarmHash's farmhashnaTest table in
  // src/farmhash.cc (github.com/google/farmhash) lists for that slice; the
  // slices cover every length branch of farmhashna::Hash64 (0-16, 17-32,
  // 33-64, >64) and the whole buffer.
  struct Vec {
    size_t offset, len;
    uint64_t want;
  };
  const Vec vecs[] = {
      {0, 0, 0x9ae16a3b2f90404fULL},      {1, 1, 0x541150e87f415e96ULL},
      {16, 4, 0x11df592596f41d88ULL},     {49, 7, 0x1b5a063fb4c7f9f1ULL},
      {144, 12, 0xe3f6828b6017086dULL},   {256, 16, 0x03ead5f21d344056ULL},
      {289, 17, 0x6abbfde37ee03b5bULL},   {1024, 32, 0x0782fa1b08b475e7ULL},
      {1089, 33, 0x09deb3da5e16b5b8ULL},  {4096, 64, 0xdef74bf4c9f1bc1bULL},
      {4225, 65, 0x3cceab392bc39b3fULL},  {88804, 298, 0x2031c84bc57a1a9fULL},
      {0, 1 << 20, 0xf853fb08a3c22903ULL},
  };
  std::vector<char> data = SelfTestData();
  int bad = 0;
  for (const Vec& v : vecs) {
    uint64_t got = util::Fingerprint64(data.data() + v.offset, v.len);
    bool ok = got == v.want;
    bad += !ok;
    std::printf("%s offset=%zu len=%zu want=%s got=%s\n", ok ? "ok  " : "FAIL",
                v.offset, v.len, Hex16(v.want).c_str(), Hex16(got).c_str());
  }
  std::printf("%zu passed, %d failed\n", sizeof vecs / sizeof vecs[0] - bad, bad);
  return bad ? 1 : 0;
}

int CheckJson(const char* path) {
  std::ifstream in(path);
  if (!in) {
    std::fprintf(stderr, "tpu_standins: cannot open %s\n", path);
    return 2;
  }
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(in);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tpu_standins: %s: %s\n", path, e.what());
    return 2;
  }
  int bad = 0, standins = 0, measured = 0;
  for (const auto& t : doc.at("topologies")) {
    const std::string id = t.at("id").get<std::string>();
    const std::string kind = t.at("device_kind").get<std::string>();
    const std::string topo = t.at("topology").get<std::string>();
    const auto& fp = t.at("fingerprint");
    const std::string stored = fp.at("value").get<std::string>();
    const bool stand_in = fp.at("stand_in").get<bool>();
    const std::string computed = StandIn(id, kind, topo);
    const char* verdict;
    if (!stand_in) {
      ++measured;
      verdict = "measured (not recomputable)";
    } else if (computed == stored) {
      ++standins;
      verdict = "ok";
    } else {
      ++bad;
      verdict = "MISMATCH";
    }
    std::printf("%-14s %-12s %-8s stored=%s computed=%s %s\n", id.c_str(),
                kind.c_str(), topo.c_str(), stored.c_str(), computed.c_str(),
                verdict);
  }
  std::printf("%d passed, %d failed (%d measured values skipped)\n", standins,
              bad, measured);
  return bad ? 1 : 0;
}

void Usage() {
  std::fprintf(stderr,
               "usage: tpu_standins ID DEVICE_KIND TOPOLOGY\n"
               "       tpu_standins --string TEXT\n"
               "       tpu_standins --json FILE\n"
               "       tpu_standins --self-test\n");
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 2 && std::strcmp(argv[1], "--self-test") == 0) return SelfTest();
  if (argc == 3 && std::strcmp(argv[1], "--json") == 0) return CheckJson(argv[2]);
  if (argc == 3 && std::strcmp(argv[1], "--string") == 0) {
    std::printf("%s\n", Hex16(util::Fingerprint64(std::string(argv[2]))).c_str());
    return 0;
  }
  if (argc == 4 && argv[1][0] != '-') {
    std::printf("%s\n", StandIn(argv[1], argv[2], argv[3]).c_str());
    return 0;
  }
  Usage();
  return 2;
}
