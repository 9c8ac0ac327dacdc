// Fuzzes the reader of one JAX cache entry's value (engine/lib/cachedir/
// CacheEntry.cpp) behind `cachekey cache-dir`: the head read, a whole read
// under a small output limit, and the IFRT header parser on the raw bytes.
// Seeds: real entries of fixtures/cache_dirs (zstd and zlib).
#include "cachekey/CacheDir.h"

using namespace cachekey;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string_view bytes(reinterpret_cast<const char *>(data), size);
  EntryLimits head;
  head.headBytes = 4096;
  EntryFacts h = readEntryBytes(bytes, head);
  EntryLimits whole;
  whole.whole = true;
  whole.wholeLimit = 1 << 20;
  EntryFacts w = readEntryBytes(bytes, whole);
  // A whole read that ends knows the size; the codec is the bytes' own.
  if (w.codec != h.codec || (w.wholeDecoded && !w.decompressed))
    __builtin_trap();
  if (h.status == EntryStatus::Ok && w.status == EntryStatus::Ok &&
      h.compileSeconds != w.compileSeconds)
    __builtin_trap();
  if (auto x = parseIfrtHeader(bytes)) {
    if (x->bytes > size)
      __builtin_trap();
    for (const auto &o : x->outputs)
      (void)o.str();
  }
  return 0;
}
