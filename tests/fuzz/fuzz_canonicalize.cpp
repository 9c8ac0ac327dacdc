// Fuzzes the canonicaliser wrapper on module text (both profiles, with the
// custom-partitioning / callback rewrites on): parse errors must be Errors.
// Bytecode input is excluded: MLIR 19's own bytecode reader crashes on some
// corrupt input (an upstream bug), which is why scenarios refuse bytecode.
#include "cachekey/mlir/Canonicalize.h"

using namespace cachekey;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string text(reinterpret_cast<const char *>(data), size);
  if (text.compare(0, 4, "ML\xefR") == 0)
    return 0;
  ModuleSpec m;
  m.text = text;
  m.ignoreCustomPartitioning = size % 2;
  m.ignoreCallbacks = size % 3 == 0 ? IgnoreCallbacks::All : IgnoreCallbacks::No;
  m.includeMetadata = size % 5 == 0;
  // Every callback and Mosaic rule, one profile of each.
  for (Profile p : {Profile::V0_4_33, Profile::V0_4_35, Profile::V0_10_2,
                    Profile::V0_11_2, Profile::V0_12_0_1})
    (void)canonicalize(m, p);
  return 0;
}
