//===- Computation.cpp - Entry 1: computation -----------------------------===//
#include "cachekey/Computation.h"

namespace cachekey {

static Canonicalizer gCanonicalizer = nullptr;

void setCanonicalizer(Canonicalizer canonicalizer) {
  gCanonicalizer = canonicalizer;
}

bool hasCanonicalizer() { return gCanonicalizer != nullptr; }

Expected<ComputationEntry> computationEntry(const ModuleSpec &module,
                                            Profile profile) {
  if (module.entry1) {
    ComputationEntry e;
    e.bytes = *module.entry1;
    e.symName = module.symName;
    e.producer = "captured from jaxlib";
    return e;
  }
  if (!gCanonicalizer)
    return Error{"$.module.text",
                 "this build has no MLIR: module text cannot be canonicalised "
                 "here; give module.entry1_b64 (entry-1 bytes captured from "
                 "jaxlib) instead",
                 ErrorCode::NoMlir};
  auto e = gCanonicalizer(module, profile);
  if (!e)
    return e.takeError("$.module.text");
  if (!module.symName.empty() && module.symName != e->symName)
    return Error{"$.module.sym_name",
                 "\"" + module.symName + "\" does not match the module's "
                 "sym_name \"" + e->symName + "\""};
  return e;
}

} // namespace cachekey
