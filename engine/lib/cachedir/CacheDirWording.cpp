//===- CacheDirWording.cpp - The English of the cache-directory findings --===//
//
// The only place the cache-directory family writes sentences; everything
// else carries codes and fields (CacheDir.h). The commands suggested are
// for the user to run: cachekey itself never changes the directory.
//
//===----------------------------------------------------------------------===//
#include "cachekey/CacheDir.h"

#include <cstdio>
#include <ctime>

namespace cachekey {

namespace {

std::string bytesText(uint64_t n) {
  char buf[32];
  if (n < 1024)
    return std::to_string(n) + " B";
  if (n < 1024 * 1024)
    std::snprintf(buf, sizeof buf, "%.1f KiB", n / 1024.0);
  else if (n < uint64_t(1024) * 1024 * 1024)
    std::snprintf(buf, sizeof buf, "%.1f MiB", n / (1024.0 * 1024));
  else
    std::snprintf(buf, sizeof buf, "%.2f GiB", n / (1024.0 * 1024 * 1024));
  return buf;
}

std::string timeText(int64_t ns) {
  if (ns <= 0)
    return "never (0)";
  std::time_t t = static_cast<std::time_t>(ns / 1000000000);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[40];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S UTC", &tm);
  return buf;
}

std::string statusText(EntryStatus s) {
  switch (s) {
  case EntryStatus::TooShort: return "too short to hold the 4-byte compile time";
  case EntryStatus::NotCompressed: return "neither zstd (28 b5 2f fd) nor zlib (78 9c)";
  case EntryStatus::Truncated: return "cut short";
  case EntryStatus::Corrupt: return "does not decompress";
  case EntryStatus::Ok: break;
  }
  return "readable";
}

std::string quoted(const std::string &file) { return "'" + file + "'"; }

} // namespace

std::string problemText(const CacheProblem &p, EvictionRule rule) {
  switch (p.code) {
  case ProblemCode::DamagedEntry:
    return p.file + " is damaged: " + statusText(p.status) +
           (p.detail.empty() ? "" : " (" + p.detail + ")") +
           ". JAX warns \"Error reading persistent compilation cache entry\", "
           "compiles again, and never replaces it (a put skips a key that "
           "exists), so this program misses on every run. Delete it: rm -- " +
           quoted(p.file);
  case ProblemCode::OrphanCache:
    if (p.strictRule)
      return p.file + " has no -atime file. With a cap set (jax 0.4.31 – "
             "0.11.1), every write's eviction pass reads it and raises, so "
             "no new entry is written (jax#39880). Delete it (rm -- " +
             quoted(p.file) + ") or upgrade to jax 0.11.2 or later.";
    return p.file + " has no -atime file (a process stopped between the two "
           "writes). " +
           std::string(rule == EvictionRule::AtimeMissingZero
                           ? "jax 0.11.2 and later rank it as never used: "
                             "the first to go when the cap is reached."
                           : "Under jax 0.4.31 – 0.11.1 with a cap set, every "
                             "write fails on it.") +
           " To keep it, give it an -atime; otherwise rm -- " + quoted(p.file);
  case ProblemCode::OrphanAtime:
    return p.file + " has no -cache file beside it (an eviction or a write "
           "stopped half-way). JAX never reads it alone; it is harmless. To "
           "tidy: rm -- " + quoted(p.file);
  case ProblemCode::BadAtime:
    return p.file + " holds " + std::to_string(p.size) +
           " bytes, not 8: JAX reads whatever is there as a little-endian "
           "number, so its entry is ranked at a wrong time for eviction. "
           "Delete it with its entry, or let the next hit rewrite it.";
  case ProblemCode::TempLeftover:
    return p.file + " is a write that never finished (jax writes _temp_<key> "
           "then renames it). JAX never reads it; it only takes space. rm -- " +
           quoted(p.file);
  case ProblemCode::ForeignFile:
    return p.file + " is not a file JAX writes. " +
           std::string(rule == EvictionRule::MtimeAllFiles
                           ? "jax 0.4.30 counts it toward the cap and may "
                             "delete it when evicting; move it out of the "
                             "directory."
                           : "JAX ignores it; the cap does not count it.");
  case ProblemCode::Symlink:
    return p.file + " is a symbolic link: not followed (only what is inside "
           "the directory is read).";
  case ProblemCode::Unreadable:
    return p.file + " could not be read (" + p.detail +
           "). A JAX process running as the same user cannot read it either: "
           "it misses and compiles again. Check its owner and permissions "
           "(ls -l -- " + quoted(p.file) + ").";
  case ProblemCode::MixedCompression:
    return std::to_string(p.countZstd) + " entries are zstd and " +
           std::to_string(p.countZlib) + " zlib (" + p.file +
           " is one of the fewer): the processes that wrote them compressed "
           "differently — the zstandard package installed in one and not the "
           "other, or Python 3.14, which writes zstd under a key that says "
           "zlib. Keys that hash different compression names never meet; a "
           "3.14 entry read by a zlib-only process fails to decompress.";
  case ProblemCode::SubCache:
    return p.file + " is a cache XLA keeps inside the directory; "
           "jax_compilation_cache_max_size does not count it and JAX never "
           "evicts from it.";
  }
  return p.file;
}

std::string hintText(const CacheHint &h) {
  std::string n = std::to_string(h.entries);
  switch (h.code) {
  case HintCode::OutputShapesDiffer: {
    std::string list;
    for (size_t i = 0; i < h.shapes.size(); ++i)
      list += (i ? " / " : "") + h.shapes[i];
    return "the " + n + " entries of " + h.module +
           " differ in output shapes " + list +
           " (the IFRT header records the outputs): the input shapes or "
           "dtypes it was called with changed.";
  }
  case HintCode::SameOutputShapes:
    return "the " + n + " entries of " + h.module +
           " have the same output shapes: their keys differ elsewhere (flags, "
           "compile options, jax or jaxlib, devices); cachekey compare-logs "
           "on two runs' logs says which.";
  case HintCode::NoHeader:
    return "the entries of " + h.module +
           " carry no IFRT header (jaxlib 0.4.x stores none; 0.10.2 and 0.12 do), so the "
           "directory cannot say how they differ; cachekey compare-logs on "
           "two runs' logs can.";
  }
  return h.module;
}

std::string programText(const ProgramSummary &p) {
  return p.module + ": " + std::to_string(p.entries.size()) +
         (p.entries.size() == 1 ? " key, " : " keys, ") + bytesText(p.size) +
         " on disk, " +
         (p.decompressedComplete ? bytesText(p.decompressed)
                                 : "at least " + bytesText(p.decompressed)) +
         " decompressed, " + std::to_string(p.compileSeconds) +
         " s of compile time recorded, last used " + timeText(p.lastAccessNs);
}

std::string evictionText(const EvictionPlan &p) {
  const char *rule = p.rule == EvictionRule::MtimeAllFiles
                         ? "jax 0.4.30: every file by modification time"
                     : p.rule == EvictionRule::AtimeStrict
                         ? "jax 0.4.31 – 0.11.1: -cache files by -atime"
                         : "jax 0.11.2 and later: -cache files by -atime, a missing one as 0";
  std::string head = std::string("eviction to ") + std::to_string(p.maxSize) +
                     " bytes (" + rule + "), counting " +
                     std::to_string(p.countedSize) + " bytes: ";
  if (p.raises)
    return head + "the pass raises at " + p.raisingFile +
           " (no -atime), so JAX writes nothing while a cap is set.";
  if (p.evicted.empty())
    return head + "nothing to evict.";
  uint64_t freed = 0;
  for (const PlannedEviction &e : p.evicted)
    freed += e.size;
  return head + std::to_string(p.evicted.size()) +
         (p.evicted.size() == 1 ? " file goes, " : " files go, ") +
         bytesText(freed) + ", in this order:";
}

} // namespace cachekey
