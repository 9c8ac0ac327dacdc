// Fuzzes the Mosaic path's Python-exact pieces: json.loads / json.dumps and
// base64.b64decode. Whatever loads must dump to text that loads back to the
// same dump (a fixed point), and nothing may crash.
#include "cachekey/mlir/PyBase64.h"
#include "cachekey/mlir/PyJson.h"

using namespace cachekey;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string text(reinterpret_cast<const char *>(data), size);
  (void)pyB64Decode(text);
  auto v = pyJsonLoads(text);
  if (!v)
    return 0;
  std::string once = pyJsonDumps(*v);
  auto again = pyJsonLoads(once);
  if (!again || pyJsonDumps(*again) != once)
    __builtin_trap();
  return 0;
}
