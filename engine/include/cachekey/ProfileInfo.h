//===- ProfileInfo.h - Profiles described for readers -----------*- C++ -*-===//
//
// The facts of a profile (Profile.h) as JSON and as sentences, for
// `cachekey profiles`, the wasm `describeProfile` and the page's "what
// changed between two releases". The page renders these; it keeps no copy of
// JAX's rules.
//
//===----------------------------------------------------------------------===//
#ifndef CACHEKEY_PROFILEINFO_H
#define CACHEKEY_PROFILEINFO_H

#include "cachekey/Json.h"
#include "cachekey/Profile.h"

#include <string>
#include <string_view>
#include <vector>

namespace cachekey {

/// The jaxlib `pip install jax==release` installs beside `release`: the
/// release's own version, except for the jax-only patch releases, which
/// no jaxlib of their version was made for. Every installed pair was
/// measured by the oracle sweep (docs/oracle-sweep.md); the ranges each
/// release accepts are in docs/cache-key.md, entry 2.
const char *releaseJaxlib(const char *release);

/// Whether release (or jaxlib version) `a` is older than `b`: both dotted
/// decimal numbers ("0.10.2", "0.12.0.1"), compared part by part as
/// numbers, a missing part being 0 ("0.5" = "0.5.0"). False when either
/// has a part that is not all digits ("0.4.36.dev20241122", "0.5.0rc1") or
/// over nine digits: their order is not known here.
bool olderRelease(std::string_view a, std::string_view b);

/// The profile as JSON: {"id", "releases", "jaxlibs": {release: the jaxlib
/// pip installs with it (releaseJaxlib)}, "entries": [{"index", "name",
/// "hashed"}], "entry3", "entry6", "fallback", "callbacks", "mosaic",
/// "compression", "filters_env_overrides", "excluded_flags",
/// "zeroed_fields": [{"name", "number", "kind"}], "log_formats", "changes",
/// "verified"}. Strings describe the behaviour in plain words.
Json profileToJson(Profile profile);

/// Every profile, oldest first, as `profileToJson`, under {"newest",
/// "default" (the alias a scenario without "profile" is computed with:
/// "main"), "aliases": {"main": id}, "profiles": [...]}.
Json profilesToJson();

/// What differs between two profiles, one sentence per difference (entries,
/// entry 3, entry 6, fallback, callbacks, Mosaic step, compression,
/// override filtering, flags added to or removed from the exclusion list,
/// fields added to or removed from the zeroed list); empty when equal.
std::vector<std::string> profileDifferences(Profile from, Profile to);

} // namespace cachekey

#endif // CACHEKEY_PROFILEINFO_H
