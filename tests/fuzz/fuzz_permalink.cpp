// Fuzzes the permalink decoder (base64url → zstd → JSON) with a small cap.
#include "cachekey/Permalink.h"
#include "cachekey/Scenario.h"

using namespace cachekey;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string fragment(reinterpret_cast<const char *>(data), size);
  auto text = decodePermalink(fragment, 64 * 1024);
  if (text) {
    auto doc = parseJsonText(*text);
    if (doc)
      (void)scenarioFromJson(*doc);
    // Whatever decoded must re-encode to a link that decodes to the same text.
    auto again = decodePermalink(encodePermalink(*text), 64 * 1024);
    if (!again || *again != *text)
      __builtin_trap();
  }
  return 0;
}
