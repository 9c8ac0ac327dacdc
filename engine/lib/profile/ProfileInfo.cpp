//===- ProfileInfo.cpp - Profiles described for readers -------------------===//
#include "cachekey/ProfileInfo.h"

#include <algorithm>
#include <string>
#include <vector>
#include <string_view>
#include <utility>

namespace cachekey {

namespace {

std::string entry3Text(const ProfileSpec &p) {
  if (!p.hasBackendVersion)
    return "not hashed (this release has seven entries)";
  return p.hashesRuntimeType
             ? "platform, platform_version, then runtime_type, each through "
               "hash-string"
             : "platform, then platform_version, each through hash-string";
}

std::string entry6Text(const ProfileSpec &p) {
  return p.accelerator == AcceleratorRule::Serialize
             ? "topology.serialize(): the serialized topology proto"
             : "topology.fingerprint() as 8 bytes, big-endian";
}

std::string fallbackText(const ProfileSpec &p) {
  return p.fallback == FallbackRule::DeviceKinds
             ? "each device's device_kind through hash-string"
             : "each device's device_kind, then platform, platform_version "
               "and runtime_type, each through hash-string";
}

std::string callbacksText(const ProfileSpec &p) {
  switch (p.callbacks) {
  case CallbackRule::None:
    return "none: callback pointers are hashed as lowered";
  case CallbackRule::CustomPartitioningConfig:
    return "jax_remove_custom_partitioning_ptr_from_cache_key: "
           "CustomSPMDPartitioning calls get backend_config \"REMOVED\"";
  case CallbackRule::IgnoreCallbacksEnum:
    return "ignore_callbacks NO / ALL / CUSTOM_PARTITIONING: "
           "CustomSPMDPartitioning calls (and with ALL every target ending "
           "in \"callback\") get backend_config \"REMOVED\"";
  case CallbackRule::IgnoreCustomPartitioningBool:
    return "ignore_custom_partitioning (bool): CustomSPMDPartitioning calls "
           "get backend_config \"REMOVED\"";
  }
  return "";
}

std::string mosaicText(const ProfileSpec &p) {
  switch (p.mosaic) {
  case MosaicRule::None:
    return "none: Pallas kernel bodies are hashed as lowered";
  case MosaicRule::SkipMissingBody:
    return "strip-debuginfo inside each tpu_custom_call kernel body; a "
           "missing or empty body is left alone";
  case MosaicRule::DeleteDebugLocations:
    return "a custom_call_config.debug_locations member is deleted (the body "
           "is left alone); otherwise the body is stripped, an empty one "
           "too; a missing custom_call_config or body raises KeyError";
  }
  return "";
}

std::string compressionText(const ProfileSpec &p) {
  return p.compression == CompressionRule::ZstandardImport
             ? "\"zstandard\" when the zstandard package imports, else "
               "\"zlib\""
             : "\"zstandard\" when the zstandard package imports, else "
               "\"zlib\"; on Python 3.14 and later \"zlib\" (the standard "
               "library's zstd is used, but the key says zlib)";
}

const char *zeroKindName(ZeroKind k) {
  return k == ZeroKind::String ? "string" : "varint";
}

template <typename T, typename Name>
void listChange(std::vector<std::string> &out, const std::vector<T> &a,
                const std::vector<T> &b, Name name, const std::string &what) {
  std::vector<std::string> added, removed;
  for (const T &x : b)
    if (std::none_of(a.begin(), a.end(),
                     [&](const T &y) { return name(x) == name(y); }))
      added.push_back(name(x));
  for (const T &x : a)
    if (std::none_of(b.begin(), b.end(),
                     [&](const T &y) { return name(x) == name(y); }))
      removed.push_back(name(x));
  auto join = [](const std::vector<std::string> &v) {
    std::string s;
    for (const auto &x : v)
      s += (s.empty() ? "" : ", ") + x;
    return s;
  };
  if (!added.empty())
    out.push_back(what + " gains " + join(added) + " (" +
                  std::to_string(a.size()) + " \u2192 " +
                  std::to_string(b.size()) + ")");
  if (!removed.empty())
    out.push_back(what + " loses " + join(removed) + " (" +
                  std::to_string(a.size()) + " \u2192 " +
                  std::to_string(b.size()) + ")");
}

} // namespace

const char *releaseJaxlib(const char *release) {
  // jax 0.4.37 accepts jaxlib 0.4.36–0.4.37 and 0.5.2 accepts 0.5.1–0.5.2
  // (their METADATA); neither jaxlib 0.4.37 nor 0.5.2 exists.
  static const std::pair<std::string_view, const char *> jaxOnly[] = {
      {"0.4.37", "0.4.36"}, {"0.5.2", "0.5.1"}};
  for (const auto &[jax, jaxlib] : jaxOnly)
    if (jax == release)
      return jaxlib;
  return release;
}

Json profileToJson(Profile profile) {
  const ProfileSpec &p = profileSpec(profile);
  Json j;
  j["id"] = p.id;
  j["releases"] = p.releases;
  Json jaxlibs = Json::object();
  for (const char *release : p.releases)
    jaxlibs[release] = releaseJaxlib(release);
  j["jaxlibs"] = std::move(jaxlibs);
  Json entries = Json::array();
  int hashed = 0;
  for (int i = 0; i < kNumEntries; ++i) {
    bool on = hashesEntry(profile, static_cast<EntryKind>(i + 1));
    hashed += on;
    entries.push_back({{"index", i + 1}, {"name", kEntryNames[i]}, {"hashed", on}});
  }
  j["entry_count"] = hashed;
  j["entries"] = std::move(entries);
  j["entry3"] = entry3Text(p);
  j["entry6"] = entry6Text(p);
  j["fallback"] = fallbackText(p);
  j["callbacks"] = callbacksText(p);
  j["mosaic"] = mosaicText(p);
  j["compression"] = compressionText(p);
  j["filters_env_overrides"] = p.filtersEnvOverrides;
  j["explicit_zeroes"] = p.explicitZeroes;
  j["fallback_error_type"] = p.fallbackErrorType;
  j["excluded_flags"] = p.excludedFlags;
  Json zeroed = Json::array();
  for (const ZeroedField &z : p.zeroedFields)
    zeroed.push_back({{"name", z.name}, {"number", z.number},
                      {"kind", zeroKindName(z.kind)}});
  j["zeroed_fields"] = std::move(zeroed);
  j["log_formats"] = {
      {"own_digest", "get_cache_key hash of serialized %s: %s"},
      {"running_digest", "get_cache_key hash after serializing %s: %s"},
      {"flag_included", "Including XLA flag in cache key: %s"},
      {"flag_excluded", "Not including XLA flag in cache key: %s"},
      {"fallback",
       p.fallback == FallbackRule::DeviceKinds
           ? "get (_hash_accelerator_config): unable to hash accelerator "
             "config, falling back to hashing devices %s (type %s)"
           : "get (_hash_accelerator_config): unable to hash accelerator "
             "config, falling back to hashing devices + platform: %s (type "
             "%s)"}};
  j["changes"] = p.changes;
  j["verified"] = p.verified;
  return j;
}

Json profilesToJson() {
  Json list = Json::array();
  for (const ProfileSpec &p : allProfiles())
    list.push_back(profileToJson(p.profile));
  // "default": what a scenario without "profile" is computed with
  // (ScenarioReader.cpp reads a missing profile as kMainAlias).
  return {{"newest", profileName(kNewestProfile)},
          {"default", kMainAlias},
          {"aliases", {{kMainAlias, profileName(kNewestProfile)}}},
          {"profiles", std::move(list)}};
}

std::vector<std::string> profileDifferences(Profile from, Profile to) {
  const ProfileSpec &a = profileSpec(from), &b = profileSpec(to);
  std::vector<std::string> out;
  auto field = [&](const std::string &what, const std::string &x,
                   const std::string &y) {
    if (x != y)
      out.push_back(what + ": " + x + " \u2192 " + y);
  };
  field("entry 3 (backend version)", entry3Text(a), entry3Text(b));
  field("entry 6 (accelerator_config)", entry6Text(a), entry6Text(b));
  field("entry 6 fallback", fallbackText(a), fallbackText(b));
  field("entry 1 callback removal", callbacksText(a), callbacksText(b));
  field("entry 1 Mosaic kernel step", mosaicText(a), mosaicText(b));
  field("entry 7 compression name", compressionText(a), compressionText(b));
  if (a.explicitZeroes != b.explicitZeroes)
    out.push_back(std::string("entry 5: a DebugOptions field set to zero is ") +
                  (b.explicitZeroes ? "now written (explicit presence, jaxlib "
                                      "0.7.0 and later)"
                                    : "no longer written (proto3 implicit "
                                      "presence, jaxlib before 0.7.0)"));
  if (std::string(a.fallbackErrorType) != b.fallbackErrorType)
    out.push_back(std::string("the entry-6 fallback line names ") +
                  b.fallbackErrorType + " instead of " + a.fallbackErrorType +
                  " (the trace only; the key is the same)");
  if (a.filtersEnvOverrides != b.filtersEnvOverrides)
    out.push_back(std::string("entry 5: env_option_overrides named like an "
                              "excluded flag are ") +
                  (b.filtersEnvOverrides ? "now dropped" : "no longer dropped"));
  listChange(out, a.excludedFlags, b.excludedFlags,
             [](const std::string &s) { return s; },
             "entry 4: the exclusion list");
  listChange(out, a.zeroedFields, b.zeroedFields,
             [](const ZeroedField &z) { return std::string(z.name); },
             "entry 5: the zeroed DebugOptions fields");
  return out;
}

bool olderRelease(std::string_view a, std::string_view b) {
  auto parts = [](std::string_view v, std::vector<unsigned long> &out) {
    size_t start = 0;
    while (start <= v.size()) {
      size_t dot = std::min(v.find('.', start), v.size());
      std::string_view p = v.substr(start, dot - start);
      if (p.empty() || p.size() > 9 ||
          !std::all_of(p.begin(), p.end(), [](char c) { return c >= '0' && c <= '9'; }))
        return false;
      out.push_back(std::stoul(std::string(p)));
      start = dot + 1;
    }
    return true;
  };
  std::vector<unsigned long> pa, pb;
  if (!parts(a, pa) || !parts(b, pb))
    return false;
  pa.resize(std::max(pa.size(), pb.size()), 0);
  pb.resize(pa.size(), 0);
  return pa < pb;
}

} // namespace cachekey
