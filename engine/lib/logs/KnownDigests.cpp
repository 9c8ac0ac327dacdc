//===- KnownDigests.cpp - Reading short entries back from their digest ----===//
#include "cachekey/KnownDigests.h"

#include "cachekey/PyText.h"
#include "cachekey/Scenario.h"

#include <array>
#include <cstring>
#include <map>

namespace cachekey {

/// engine/data/known_strings.json, embedded at build time.
extern const char kKnownStringsJson[];

namespace {

using Table = std::map<std::pair<int, Digest>, DecodedDigest>;

void add(Table &table, int entry, const Bytes &fed, DecodedDigest decoded) {
  table.emplace(std::make_pair(entry, Sha256::of(fed)), std::move(decoded));
}

/// Hashes every candidate exactly as the entry feeds it.
Table buildTable() {
  Table table;
  Json doc = Json::parse(kKnownStringsJson, nullptr, /*allow_exceptions=*/false);
  if (!doc.is_object())
    return table;
  auto values = [&](const char *list) {
    const Json *v = doc.contains(list) ? &doc[list] : nullptr;
    return v && v->contains("values") ? (*v)["values"] : Json::array();
  };
  // Entry 2: the version string, encoded, not stripped.
  for (const auto &v : values("jaxlib_versions"))
    if (v.is_string())
      add(table, 2, v.get<std::string>(), {v, "jaxlib " + v.get<std::string>()});
  // Entry 3: platform, platform_version (and, before 0.8.2, runtime_type),
  // each through hash-string.
  for (const auto &v : values("backends")) {
    if (!v.is_object() || !v.value("platform", Json()).is_string() ||
        !v.value("platform_version", Json()).is_string())
      continue;
    std::string platform = v["platform"], version = v["platform_version"];
    Bytes fed = hashStringBytes(platform) + hashStringBytes(version);
    std::string text = "platform " + pyRepr(platform) + ", platform_version " +
                       pyRepr(version);
    if (v.contains("runtime_type") && v["runtime_type"].is_string()) {
      std::string runtime = v["runtime_type"];
      fed += hashStringBytes(runtime);
      text += ", runtime_type " + pyRepr(runtime);
    }
    add(table, 3, fed, {platform + " / " + version, text});
  }
  for (const auto &v : values("xla_flags"))
    if (v == "")
      add(table, 4, "", {"", "no flags"});
  for (const auto &v : values("compression"))
    if (v.is_string())
      add(table, 7, hashStringBytes(v), {v, v.get<std::string>()});
  for (const auto &v : values("custom_hook"))
    if (v.is_string())
      add(table, 8, hashStringBytes(v),
          {v, v == "" ? "the default hook (\"\")" : pyRepr(v)});
  return table;
}

/// The 8 bytes at `p` as a little-endian word (one load on the engine's
/// hosts, x86-64 and wasm32, which are little-endian).
uint64_t littleEndian64(const char *p) {
  uint64_t x;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  std::memcpy(&x, p, sizeof x);
#else
  x = 0;
  for (size_t b = 0; b < 8; ++b)
    x |= uint64_t(static_cast<unsigned char>(p[b])) << (8 * b);
#endif
  return x;
}

/// Stores `v` at `p` as 4 little-endian bytes.
void storeLittleEndian32(uint8_t *p, uint32_t v) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  std::memcpy(p, &v, sizeof v);
#else
  for (size_t b = 0; b < 4; ++b)
    p[b] = static_cast<uint8_t>(v >> (8 * b));
#endif
}

} // namespace

std::optional<Digest> digestFromHex(std::string_view hex) {
  // A large log has 16 digests per program: eight hex digits are read at a
  // time as one 64-bit word (SWAR), with no table and one check at the end.
  if (hex.size() != 64)
    return std::nullopt;
  constexpr uint64_t ones = 0x0101010101010101ull, high = ones * 0x80, low7 = ones * 0x7f;
  // The high bit of each byte of `x` that lies strictly between m and n
  // (both at most 128; bytes of 128 and over are never between).
  const auto between = [&](uint64_t x, uint64_t m, uint64_t n) {
    return (ones * (127 + n) - (x & low7)) & ~x & ((x & low7) + ones * (127 - m)) & high;
  };
  Digest d{};
  uint64_t valid = high;
  for (size_t w = 0; w < 8; ++w) {
    uint64_t x = littleEndian64(hex.data() + 8 * w);
    valid &= between(x, '0' - 1, '9' + 1) | between(x, 'a' - 1, 'f' + 1);
    // '0'…'9' are 0x30…0x39 and 'a'…'f' 0x61…0x66: the low nibble, plus 9
    // for a letter (bit 6).
    const uint64_t v = (x & ones * 0x0f) + ((x >> 6) & ones) * 9;
    // Digit pairs into bytes: byte i of the four is digit 2i << 4 | digit 2i+1.
    uint64_t t = ((v << 4) | (v >> 8)) & 0x00ff00ff00ff00ffull;
    t = (t | (t >> 8)) & 0x0000ffff0000ffffull;
    t = (t | (t >> 16)) & 0xffffffffull;
    storeLittleEndian32(d.data() + 4 * w, static_cast<uint32_t>(t));
  }
  if (valid != high)
    return std::nullopt;
  return d;
}

std::optional<DecodedDigest> decodeEntryDigest(int entry, const Digest &digest) {
  static const Table table = buildTable();
  auto it = table.find({entry, digest});
  if (it == table.end())
    return std::nullopt;
  return it->second;
}

} // namespace cachekey
