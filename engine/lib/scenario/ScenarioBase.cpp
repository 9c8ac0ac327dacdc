//===- ScenarioBase.cpp - "base": a scenario as a patch over a fixture ----===//
//
// A scenario may name a fixture in `"base"` and give only what differs. The
// document is applied over the fixture's (itself resolved first) as an
// RFC 7386 JSON merge patch, with one refinement: members that hold one of
// several forms (the accelerator, the compression, the module's bytes or
// text) are replaced rather than merged, so a patch that picks another form
// does not inherit the base's.
//
//===----------------------------------------------------------------------===//
#include "cachekey/Scenario.h"

#include "ScenarioSchema.h"

#include <utility>

namespace cachekey {

using namespace schema;

namespace {

/// The deepest chain of bases followed (a fixture whose base has a base…).
constexpr int kMaxBaseDepth = 8;

/// Applies `patch` (without "base") over the fully resolved `merged`.
Json applyPatch(Json merged, Json patch) {
  // Union-valued members are replaced, not merged: a patch that picks a form
  // (another accelerator form, compression as a name or a runtime, module
  // bytes or module text) must not inherit the base's other form.
  for (const char *k : {"accelerator", "compression"})
    if (patch.contains(k) && merged.contains(k))
      merged.erase(k);
  if (patch.contains("module") && patch["module"].is_object() &&
      merged.contains("module") && merged["module"].is_object()) {
    Json &m = merged["module"];
    if (patch["module"].contains("text")) {
      m.erase("entry1_b64");
      m.erase("sym_name"); // read from the text, unless the patch names it
    }
    if (patch["module"].contains("entry1_b64"))
      m.erase("text");
    if (patch["module"].contains("ignore_callbacks"))
      m.erase("ignore_custom_partitioning");
    if (patch["module"].contains("ignore_custom_partitioning"))
      m.erase("ignore_callbacks");
  }
  for (const char *k : kAnnotationKeys)
    merged.erase(k);
  // The base's CompileOptionsProto was built by a process whose XLA parsed
  // the base's XLA_FLAGS; say so, unless the patch brings its own proto or
  // says it itself, so that the patch's XLA_FLAGS replace their effect
  // (compile_options.xla_flags, XlaFlags.h).
  const Json *pco = patch.contains("compile_options") &&
                            patch["compile_options"].is_object()
                        ? &patch["compile_options"]
                        : nullptr;
  if (merged.contains("compile_options") && merged["compile_options"].is_object() &&
      merged["compile_options"].contains("proto_b64") &&
      !merged["compile_options"].contains("xla_flags") &&
      !(pco && (pco->contains("proto_b64") || pco->contains("xla_flags")))) {
    Json parsed = nullptr;
    if (merged.contains("flags") && merged["flags"].is_object() &&
        merged["flags"].contains("XLA_FLAGS"))
      parsed = merged["flags"]["XLA_FLAGS"];
    merged["compile_options"]["xla_flags"] = parsed;
  }
  merged.merge_patch(patch);
  return merged;
}

/// Resolves `doc`'s base chain bottom-up: the base is resolved completely
/// before this document's patch is applied, so a null in the patch deletes
/// the key wherever in the chain it was set.
Expected<Json> resolveChain(const Json &doc, const FixtureResolver &resolver,
                            int depth) {
  auto it = doc.find("base");
  if (it == doc.end())
    return doc;
  if (depth >= kMaxBaseDepth)
    return Error{"$.base", "base chain deeper than 8 fixtures",
                 ErrorCode::TooLarge};
  if (!it->is_string())
    return typeError("$.base", "a fixture id string", *it);
  std::string id = it->get<std::string>();
  if (!resolver)
    return Error{"$.base",
                 "no fixtures are available to resolve \"" + id + "\"",
                 ErrorCode::UnknownFixture, "", id};
  auto base = resolver(id);
  if (!base) {
    Error e = base.takeError();
    e.path = "$.base";
    if (e.code == ErrorCode::UnknownFixture && e.subject.empty())
      e.subject = id;
    return e;
  }
  if (!base->is_object())
    return Error{"$.base", "fixture \"" + id + "\" is not a JSON object"};
  auto resolved = resolveChain(*base, resolver, depth + 1);
  if (!resolved)
    return resolved;
  Json patch = doc;
  patch.erase("base");
  return applyPatch(std::move(*resolved), std::move(patch));
}

} // namespace

Expected<Json> resolveBase(const Json &document,
                           const FixtureResolver &resolver) {
  if (!document.is_object())
    return typeError("$", "a JSON object", document);
  CACHEKEY_TRY(checkSchemaVersion(document));
  return resolveChain(document, resolver, 0);
}

} // namespace cachekey
