//===- EvictionRule.cpp - Which eviction each JAX release runs ------------===//
//
// Facts and their JSON; the words of a rule are EvictionRuleWording.cpp's.
//
//===----------------------------------------------------------------------===//
#include "cachekey/EvictionRule.h"

#include <tuple>

namespace cachekey {

const char *evictionRuleName(EvictionRule r) {
  switch (r) {
  case EvictionRule::MtimeAllFiles: return "mtime_all_files";
  case EvictionRule::AtimeStrict: return "atime_strict";
  case EvictionRule::AtimeMissingZero: return "atime_missing_zero";
  }
  return "atime_missing_zero";
}

const std::vector<std::string> &knownCacheReleases() {
  static const std::vector<std::string> known = {"0.4.30", "0.4.31", "0.4.35",
                                                 "0.10.2", "0.11.2", "0.12.0.1"};
  return known;
}

const std::vector<CacheReleaseChoice> &cacheReleaseChoices() {
  static const std::vector<CacheReleaseChoice> choices = {
      {"0.4.30", EvictionRule::MtimeAllFiles},
      {"0.4.35", EvictionRule::AtimeStrict},
      {"0.11.2", EvictionRule::AtimeMissingZero},
  };
  return choices;
}

namespace {

std::string knownList() {
  std::string out;
  for (const std::string &k : knownCacheReleases())
    out += (out.empty() ? "" : ", ") + k;
  return out;
}

} // namespace

Expected<EvictionRule> evictionRuleFor(const std::string &release) {
  std::vector<int> v;
  size_t at = 0;
  while (at <= release.size()) {
    size_t dot = release.find('.', at);
    std::string part = release.substr(at, dot == std::string::npos ? std::string::npos : dot - at);
    if (part.empty() || part.size() > 6 || part.find_first_not_of("0123456789") != std::string::npos)
      return Error{"--release", "\"" + release + "\" is not a jax release; known: " +
                                    knownList() + " (any release from 0.4.30 on)",
                   ErrorCode::Invalid};
    v.push_back(std::stoi(part));
    if (dot == std::string::npos)
      break;
    at = dot + 1;
  }
  while (v.size() < 3)
    v.push_back(0);
  auto t = std::make_tuple(v[0], v[1], v[2]);
  if (t < std::make_tuple(0, 4, 30))
    return Error{"--release", "jax " + release + " is older than 0.4.30, the oldest layout read "
                 "here; known: " + knownList(),
                 ErrorCode::Unsupported};
  if (t == std::make_tuple(0, 4, 30))
    return EvictionRule::MtimeAllFiles;
  if (t < std::make_tuple(0, 11, 2))
    return EvictionRule::AtimeStrict;
  return EvictionRule::AtimeMissingZero;
}

Json cacheReleasesToJson() {
  Json out = Json::array();
  for (const CacheReleaseChoice &c : cacheReleaseChoices())
    out.push_back({{"release", c.release}, {"rule", evictionRuleName(c.rule)},
                   {"text", evictionRuleText(c.rule)}});
  return out;
}

} // namespace cachekey
