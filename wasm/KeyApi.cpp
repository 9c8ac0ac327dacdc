//===- KeyApi.cpp - The key module's calls --------------------------------===//
//
// What the page's main thread calls to show and perturb keys: the version,
// the profiles, scenarios computed, resolved and compared. The first view's
// module (cachekey_engine_key) is this file and Binding.cpp, linked with the
// run and explain libraries alone; the worker's modules add WorkerApi.cpp.
// The text → key pipeline and the version are the CLI's own (cachekey/Run.h).
//
//===----------------------------------------------------------------------===//
#include "Binding.h"

#include "cachekey/Computation.h"
#include "cachekey/DebugOptions.h"
#include "cachekey/Diff.h"
#include "cachekey/EvictionRule.h"
#include "cachekey/Key.h"
#include "cachekey/Permalink.h"
#include "cachekey/ProfileInfo.h"
#include "cachekey/Run.h"
#include "cachekey/ScenarioChoices.h"
#include "cachekey/Sha256.h"

#include <emscripten/bind.h>

using namespace cachekey;
using namespace cachekey::wasm;

namespace {

/// {"engine", "schema", "profiles", "mlir", "permalink_max_chars",
/// "permalink_max_json_bytes", "fresh_digest", "fixtures"}.
std::string version() {
  Json j;
  j["engine"] = engineVersion();
  j["schema"] = kScenarioSchema;
  // The running digest before any entry is fed (SHA-256 of no bytes): what
  // the page's walk shows at step 0.
  j["fresh_digest"] = toHex(Sha256().runningDigest());
  Json ids = Json::array();
  for (const ProfileSpec &p : allProfiles())
    ids.push_back(p.id);
  j["profiles"] = std::move(ids);
  j["mlir"] = hasCanonicalizer();
  // A link's limits (Permalink.h): its fragment's characters and the JSON
  // it may decompress to.
  j["permalink_max_chars"] = kPermalinkMaxChars;
  j["permalink_max_json_bytes"] = kPermalinkMaxJsonBytes;
  Json fixtureIds = Json::array();
  for (const auto &kv : fixtures())
    fixtureIds.push_back(kv.first);
  j["fixtures"] = std::move(fixtureIds);
  return dump(j);
}

/// The DebugOptions fields the engine knows: [{"name", "number", "kind"}]
/// by field number; kind is "bool", "int32", "int64", "enum", "string" or
/// "float".
std::string debugOptionFieldsJson() {
  Json list = Json::array();
  for (const DebugOptionField &f : knownDebugOptions())
    list.push_back({{"name", f.name}, {"number", f.number}, {"kind", fieldKindName(f.kind)}});
  return dump(list);
}

/// Every profile (profilesToJson): {"newest", "aliases", "profiles": [...]}.
std::string profiles() { return dump(profilesToJson()); }

/// The releases a cache folder can be read as (cacheReleasesToJson).
std::string cacheReleases() { return dump(cacheReleasesToJson()); }

/// The values the page's pickers offer for entry 7's compression and entry
/// 3's platform_version, with their labels (scenarioChoicesToJson).
std::string scenarioChoices() { return dump(scenarioChoicesToJson()); }

/// One profile by id, release or "main" (profileToJson), or an error.
std::string describeProfile(const std::string &name) {
  auto p = parseProfile(name);
  if (!p)
    return errorText(p.takeError("profile"));
  return dump(profileToJson(*p));
}

/// {"from", "to", "differences": [sentences]} between two profiles (ids,
/// releases or "main"), or an error naming "from" or "to".
std::string profileDifferencesJson(const std::string &from,
                                   const std::string &to) {
  auto a = parseProfile(from);
  if (!a)
    return errorText(a.takeError("from"));
  auto b = parseProfile(to);
  if (!b)
    return errorText(b.takeError("to"));
  return dump(Json{{"from", profileName(*a)},
                   {"to", profileName(*b)},
                   {"differences", profileDifferences(*a, *b)}});
}

/// Makes a fixture available to scenarios' "base". Returns {"ok": true} or
/// an error.
std::string registerFixture(const std::string &id, const std::string &text) {
  auto doc = parseJsonText(text, "fixture " + id);
  if (!doc)
    return errorText(doc.error());
  if (!doc->is_object())
    return errorText(Error{"$", "fixture " + id + " is not a JSON object"});
  fixtures()[id] = std::move(*doc);
  return dump(Json{{"ok", true}});
}

/// The key, entries, flags and trace for a scenario (resultToJson), or an
/// error.
std::string computeKeyJson(const std::string &scenario) {
  auto r = computeFromText(scenario, resolver());
  return r ? dump(resultToJson(*r)) : errorText(r.error());
}

/// Like computeKey, with entry 1's bytes given as a Uint8Array instead of
/// base64 in the JSON (for large modules: no base64, no JSON string of
/// hundreds of megabytes). `module.entry1_b64`/`module.text` in the scenario
/// are replaced by these bytes.
std::string computeKeyWithModuleBytes(const std::string &scenario,
                                      const emscripten::val &bytes) {
  // One copy from the JS array into the engine's buffer, moved into the
  // scenario by the one pipeline (Run.h).
  auto r = computeFromText(scenario, resolver(),
                           copyBytes(bytes, bytes["length"].as<size_t>()));
  return r ? dump(resultToJson(*r)) : errorText(r.error());
}

/// The scenario after resolving "base": the full document the controls edit.
std::string resolveScenario(const std::string &scenario) {
  auto doc = parseJsonText(scenario);
  if (!doc)
    return errorText(doc.error());
  auto resolved = resolveBase(*doc, resolver());
  return resolved ? dump(*resolved) : errorText(resolved.error());
}

/// {"comparison": …, "a": result, "b": result}; an error's source is "a" or
/// "b".
std::string compareScenarios(const std::string &a, const std::string &b) {
  auto ra = computeFromText(a, resolver());
  if (!ra)
    return errorText(ra.takeError().from("a"));
  auto rb = computeFromText(b, resolver());
  if (!rb)
    return errorText(rb.takeError().from("b"));
  Json j;
  j["comparison"] = comparisonToJson(compareResults(*ra, *rb));
  j["a"] = resultToJson(*ra);
  j["b"] = resultToJson(*rb);
  return dump(j);
}

} // namespace

EMSCRIPTEN_BINDINGS(cachekey_key) {
  emscripten::function("version", &version);
  emscripten::function("registerFixture", &registerFixture);
  emscripten::function("profiles", &profiles);
  emscripten::function("debugOptionFields", &debugOptionFieldsJson);
  emscripten::function("describeProfile", &describeProfile);
  emscripten::function("profileDifferences", &profileDifferencesJson);
  emscripten::function("computeKey", &computeKeyJson);
  emscripten::function("computeKeyWithModuleBytes", &computeKeyWithModuleBytes);
  emscripten::function("resolveScenario", &resolveScenario);
  emscripten::function("compareScenarios", &compareScenarios);
  emscripten::function("cacheReleases", &cacheReleases);
  emscripten::function("scenarioChoices", &scenarioChoices);
}
