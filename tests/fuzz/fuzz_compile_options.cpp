// Fuzzes the CompileOptionsProto editor on arbitrary bytes: parse, the
// cache-key edits on every platform, structured edits, and the diff.
#include "cachekey/CompileOptions.h"

using namespace cachekey;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  Bytes proto(reinterpret_cast<const char *>(data), size);
  for (const char *platform : {"cpu", "gpu", "tpu"}) {
    auto r = applyCacheKeyEdits(proto, Profile::V0_11_2, platform);
    if (!r)
      continue;
    // The edits are idempotent: editing the output again changes nothing.
    auto again = applyCacheKeyEdits(r->output, Profile::V0_11_2, platform);
    if (!again || again->output != r->output)
      __builtin_trap();
    (void)describeCompileOptionsDiff(proto, r->output);
  }
  CompileOptionsEdits e;
  e.numReplicas = size % 5;
  e.deviceAssignment = std::vector<std::vector<int64_t>>{{1, 0}};
  e.envOptionOverrides =
      std::vector<std::pair<std::string, OverrideValue>>{{"xla_dump_to", true}};
  e.debugOptions = {{"xla_dump_to", "x"}};
  (void)applyStructuredEdits(proto, e);
  return 0;
}
