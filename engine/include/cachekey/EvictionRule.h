//===- EvictionRule.h - Which eviction each JAX release runs ---*- C++ -*-===//
//
// A per-release rule, as the profiles are: which pass
// LRUCache._evict_if_needed (jax/_src/lru_cache.py) runs over a cache
// directory in each jax release. The cache-folder reader (CacheDir.h) judges
// a directory by it; the page's release picker lists the choices from the
// key module, which links no cache-folder code.
//
//===----------------------------------------------------------------------===//
#ifndef CACHEKEY_EVICTIONRULE_H
#define CACHEKEY_EVICTIONRULE_H

#include "cachekey/Json.h"
#include "cachekey/Support.h"

#include <cstdint>
#include <string>
#include <vector>

namespace cachekey {

/// Which eviction JAX runs, by release.
enum class EvictionRule : uint8_t {
  MtimeAllFiles,    ///< 0.4.30
  AtimeStrict,      ///< 0.4.31 – 0.11.1: a missing -atime makes the pass raise
  AtimeMissingZero, ///< 0.11.2 and later
};
/// The rule of jax `release` ("0.4.30", "0.10.2", …). Error at path
/// "--release": Invalid when the text is not a version, Unsupported when it
/// is older than 0.4.30.
Expected<EvictionRule> evictionRuleFor(const std::string &release);
/// The rule's snake_case code: "mtime_all_files", "atime_strict",
/// "atime_missing_zero".
const char *evictionRuleName(EvictionRule r);

/// The releases `--release` knows, oldest first: the first of each eviction
/// rule and the fixtures' ("0.4.30", "0.4.31", "0.4.35", "0.10.2", "0.11.2",
/// "0.12.0.1"); any release from 0.4.30 on is accepted.
const std::vector<std::string> &knownCacheReleases();

/// One choice of release per eviction rule, oldest first ("0.4.30",
/// "0.4.35", "0.11.2"), for a picker: {release, rule}.
struct CacheReleaseChoice {
  std::string release;
  EvictionRule rule;
};
const std::vector<CacheReleaseChoice> &cacheReleaseChoices();
/// The words of a rule for a picker: "0.4.30 (LRU by modification time)".
std::string evictionRuleText(EvictionRule r);
/// [{release, rule, text}] of cacheReleaseChoices(), for the page.
Json cacheReleasesToJson();

} // namespace cachekey

#endif // CACHEKEY_EVICTIONRULE_H
