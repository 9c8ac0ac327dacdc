//===- KnownDigests.cpp - Reading short entries back from their digest ----===//
#include "cachekey/KnownDigests.h"

#include <array>

#include "cachekey/PyText.h"
#include "cachekey/Scenario.h"

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

int hexValue(char c) {
  if (c >= '0' && c <= '9')
    return c - '0';
  if (c >= 'a' && c <= 'f')
    return c - 'a' + 10;
  return -1;
}

} // namespace

std::optional<Digest> digestFromHex(std::string_view hex) {
  // A table of the 16 lowercase hex digits (255: not one): a large log has
  // 16 digests per program.
  static const std::array<uint8_t, 256> value = [] {
    std::array<uint8_t, 256> v{};
    v.fill(255);
    for (int c = 0; c < 256; ++c)
      if (int h = hexValue(static_cast<char>(c)); h >= 0)
        v[c] = static_cast<uint8_t>(h);
    return v;
  }();
  if (hex.size() != 64)
    return std::nullopt;
  Digest d{};
  for (size_t i = 0; i < d.size(); ++i) {
    uint8_t hi = value[static_cast<unsigned char>(hex[2 * i])];
    uint8_t lo = value[static_cast<unsigned char>(hex[2 * i + 1])];
    if ((hi | lo) & 0xf0)
      return std::nullopt;
    d[i] = static_cast<uint8_t>(hi << 4 | lo);
  }
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
