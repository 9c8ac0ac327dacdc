//===- CacheDirWording.cpp - The English of the cache-directory findings --===//
//
// The only place the cache-directory family writes sentences; everything
// else carries codes and fields (CacheDir.h). The commands suggested are
// for the user to run: cachekey itself never changes the directory.
//
//===----------------------------------------------------------------------===//
#include "cachekey/CacheDir.h"
#include "cachekey/CacheDirLookup.h"
#include "cachekey/English.h"

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
                             "the first to go when the cap is reached (jax "
                             "0.4.31 – 0.11.1 with a cap set fails every write "
                             "on it)."
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
    if (!p.countedByCap)
      return p.file + (p.directory ? " is not a directory JAX writes. "
                                   : " is not a file JAX writes. ") +
             "JAX ignores it; the cap does not count it.";
    if (rule == EvictionRule::MtimeAllFiles)
      return p.file + " is not a file JAX writes. jax 0.4.30 counts it toward "
             "the cap and may delete it when evicting; move it out of the "
             "directory.";
    {
      const std::string what =
          p.directory ? p.file + " is a directory, not an entry, but its name ends in "
                                 "-cache: under a cap, JAX's eviction pass counts its " +
                            bytesText(p.size)
                      : p.file + " is not an entry JAX wrote, but its name ends in -cache: "
                                 "under a cap, JAX's eviction pass counts its " +
                            bytesText(p.size);
      if (!p.withAtime && rule == EvictionRule::AtimeStrict)
        return what + "; it has no -atime, so (jax 0.4.31 – 0.11.1) every capped "
                      "write's eviction pass raises on it and nothing new is "
                      "written. Move it out of the cache directory.";
      const std::string rank = p.withAtime ? "ranked by its -atime" : "first: it has no -atime";
      if (p.directory)
        return what + " and, when its turn comes (" + rank +
               "), fails to unlink it (IsADirectoryError): that write is lost, and "
               "so is every later one that needs room. Move it out of the cache "
               "directory.";
      return what + " and deletes it when its turn comes (" + rank +
             "). Move it out of the cache directory.";
    }
  case ProblemCode::Symlink: {
    const LinkTarget &l = p.link;
    std::string head = p.file + " is a symbolic link" +
                       (l.target.empty() ? "" : " to " + l.target) +
                       " (cachekey reads nothing through it). ";
    bool atimeRule = rule != EvictionRule::MtimeAllFiles;
    switch (l.state) {
    case LinkTarget::State::Unknown:
      return head + "Where it points is not known here; JAX's eviction stats "
             "links named *-cache (jax 0.4.31 and later) or to files (0.4.30).";
    case LinkTarget::State::Dangling:
      if (p.countedByCap)
        return head + "It points nowhere, and with a cap set JAX's eviction "
               "pass stats every *-cache name: it raises FileNotFoundError on "
               "this one, so every capped write fails (\"Error writing "
               "persistent compilation cache entry\"). rm -- " + quoted(p.file);
      return head + "It points nowhere; " +
             std::string(atimeRule ? "its name is not *-cache, so JAX's eviction skips it."
                                   : "jax 0.4.30's eviction skips it (is_file() is false).");
    case LinkTarget::State::File:
    case LinkTarget::State::Other:
      break;
    }
    if (!p.countedByCap)
      return head + "JAX's eviction does not count it (" +
             (atimeRule ? "its name is not *-cache" : "it is not a link to a file") + ").";
    std::string out = head + "With a cap set, JAX counts its target's " +
                      bytesText(l.size) + " toward the cap" +
                      (l.inside.empty() ? std::string()
                                        : " — a second time, since " + l.inside +
                                              " is already counted —") +
                      " and, when evicting it, removes the link only, so the "
                      "bytes it believed freed stay. ";
    if (p.strictRule)
      out += "It has no -atime either: under jax 0.4.31 – 0.11.1 the pass "
             "raises reading it, so every capped write fails. ";
    return out + "Replace it with the file itself or remove it: rm -- " + quoted(p.file);
  }
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
           "zlib. Keys that hash different compression names never meet; an "
           "entry read by a process of the other codec (a 3.14 entry read by "
           "a zlib-only process) fails to decompress, and that program misses "
           "on every run.";
  case ProblemCode::SubCache:
    return p.file + " is a cache XLA keeps inside the directory; "
           "jax_compilation_cache_max_size does not count it and JAX never "
           "evicts from it.";
  case ProblemCode::OtherLayoutEntry:
    if (rule == EvictionRule::MtimeAllFiles)
      return p.file + " (" + bytesText(p.size) + ") was written by jax 0.4.31 "
             "or later, which adds -cache to the key: jax 0.4.30 looks up the "
             "key alone, so no run of it hits this entry, yet with a cap set "
             "its eviction counts every file of the directory and may delete "
             "this one. If no later jax uses the directory: rm -- " +
             quoted(p.file) + " (and its -atime file, if any).";
    return p.file + " (" + bytesText(p.size) + ") was written by jax 0.4.30, "
           "which names an entry by its key alone: jax 0.4.31 and later look "
           "up <key>-cache, so no run of theirs hits it, and their eviction "
           "never counts or deletes it; it only takes space. If no jax 0.4.30 "
           "process uses the directory any more: rm -- " + quoted(p.file);
  }
  return p.file;
}

std::string hintText(const CacheHint &h) {
  std::string n = std::to_string(h.entries);
  std::string unread = h.unread ? " (" + std::to_string(h.unread) +
                                      agree(h.unread, " damaged entry", " damaged entries") +
                                      " not read: \"?\")"
                                : std::string();
  switch (h.code) {
  case HintCode::OutputShapesDiffer: {
    std::string list;
    for (size_t i = 0; i < h.shapes.size(); ++i)
      list += (i ? " / " : "") + h.shapes[i];
    return "the " + n + " entries of " + h.module +
           " differ in output shapes " + list + unread +
           " (the IFRT header records the outputs): the input shapes or "
           "dtypes it was called with changed.";
  }
  case HintCode::SameOutputShapes:
    return "the " + n + " entries of " + h.module +
           " have the same output shapes" + unread + ": their keys differ elsewhere (the "
           "program itself, such as a constant or a static argument baked in, "
           "or the input shapes, flags, compile options, jax or jaxlib, "
           "devices); cachekey compare-logs on two runs' logs says which.";
  case HintCode::NoHeader:
    if (h.unread == h.entries)
      return "the entries of " + h.module + " are all damaged: their IFRT "
             "headers cannot be read.";
    return "the entries of " + h.module + unread +
           " carry no IFRT header (jaxlib 0.4.x stores none; 0.10.2 and 0.12 do), so the "
           "directory cannot say how they differ; cachekey compare-logs on "
           "two runs' logs can.";
  }
  return h.module;
}

std::string programText(const ProgramSummary &p) {
  return p.module + ": " + std::to_string(p.entries.size()) +
         agree(p.entries.size(), " key, ", " keys, ") + bytesText(p.size) +
         " on disk, " +
         (p.decompressedComplete ? bytesText(p.decompressed) + " decompressed"
          : p.decompressed ? "at least " + bytesText(p.decompressed) + " decompressed"
                           // no entry's size is known (damaged, or a frame
                           // that does not declare it)
                           : std::string("decompressed size not known")) +
         ", " + std::to_string(p.compileSeconds) +
         " s of compile time recorded, last used " + timeText(p.lastAccessNs);
}

std::string cacheSummaryText(const CacheReport &r) {
  return r.dir + ": " + std::to_string(r.entryCount) +
         agree(r.entryCount, " entry", " entries") + ", " + std::to_string(r.entrySize) +
         " bytes, layout " + r.layout + (r.hasLockfile ? ", .lockfile (a cap was set)" : "") +
         (r.hasAtimes ? ", -atime files" : "");
}

std::string evictionText(const EvictionPlan &p) {
  if (p.noCap)
    return "max_size -1 is JAX's \"no cap\": eviction is off, nothing is "
           "ever evicted and the directory grows without bound.";
  if (p.writesRefused && p.requested > 0)
    return "max_size " + std::to_string(p.requested) + ": a new entry of " +
           std::to_string(p.nextEntry) +
           " bytes is larger than the cap, so JAX refuses to write it (it "
           "\"exceeds the maximum cache size\"); nothing is evicted.";
  if (p.writesRefused)
    return "max_size " + std::to_string(p.requested) +
           ": JAX refuses every write (each entry \"exceeds the maximum cache "
           "size\"), so the cache only serves what is already here; nothing is "
           "evicted.";
  const char *rule = p.rule == EvictionRule::MtimeAllFiles
                         ? "jax 0.4.30: every file by modification time"
                     : p.rule == EvictionRule::AtimeStrict
                         ? "jax 0.4.31 – 0.11.1: -cache files by -atime"
                         : "jax 0.11.2 and later: -cache files by -atime, a missing one as 0";
  std::string head = std::string("eviction to ") + std::to_string(p.maxSize) + " bytes (" +
                     (p.nextEntry ? "max_size " + std::to_string(p.requested) +
                                        " less the new entry's " +
                                        std::to_string(p.nextEntry) + "; "
                                  : std::string()) +
                     rule + "), counting " +
                     std::to_string(p.countedSize) + " bytes: ";
  if (p.raises && p.raiseReason == EvictionPlan::Raise::DirectoryEntry) {
    uint64_t freed = 0;
    for (const PlannedEviction &e : p.evicted)
      freed += e.size;
    return head +
           (p.evicted.empty() ? std::string("the first")
                              : "JAX deletes " + std::to_string(p.evicted.size()) +
                                    agree(p.evicted.size(), " file", " files") + " (" +
                                    bytesText(freed) + ", in the order below), then the next") +
           " in its order is " + p.raisingFile +
           ", a directory: unlinking it raises IsADirectoryError, so the write is "
           "lost, and every capped write that needs room fails there again (it "
           "stays first in the order). Move the directory out of the cache "
           "directory.";
  }
  if (p.raises)
    return head + "the pass raises at " + p.raisingFile +
           (p.raiseReason == EvictionPlan::Raise::DanglingLink
                ? " (a dangling symbolic link: FileNotFoundError)"
            : p.raiseReason == EvictionPlan::Raise::AtimeDirectory
                ? " (its -atime is a directory: IsADirectoryError)"
            : p.raiseReason == EvictionPlan::Raise::AtimeUnreadable
                ? " (its -atime cannot be read)"
                : " (no -atime)") +
           ", so JAX writes nothing while a cap is set.";
  if (!p.atimeLinks.empty())
    head += std::to_string(p.atimeLinks.size()) +
            agree(p.atimeLinks.size(), " name's -atime is a symbolic link",
                  " names' -atime files are symbolic links") +
            " (" + p.atimeLinks.front() +
            (p.atimeLinks.size() > 1 ? ", …" : "") +
            "), which JAX reads through and cachekey does not follow: ranked here "
            "as 0, so JAX's order may differ; ";
  if (p.linkedSize)
    head += "of them " + std::to_string(p.linkedSize) + " bytes through symbolic links" +
            (p.doubleCounted ? " (" + std::to_string(p.doubleCounted) +
                                   " bytes of files counted twice)"
                             : std::string()) +
            ": ";
  if (p.evicted.empty())
    return head + "nothing to evict.";
  uint64_t freed = 0;
  for (const PlannedEviction &e : p.evicted)
    freed += e.size;
  return head + std::to_string(p.evicted.size()) +
         agree(p.evicted.size(), " file goes, ", " files go, ") +
         bytesText(freed) + ", in this order:";
}

namespace {

std::string joinPath(const std::string &dir, const std::string &file) {
  return dir.empty() || dir.back() == '/' ? dir + file : dir + "/" + file;
}

std::string loggedDirsText(const CacheLookup &l) {
  std::string out;
  for (size_t i = 0; i < l.loggedDirs.size(); ++i)
    out += (i ? ", " : "") + l.loggedDirs[i];
  return out;
}

} // namespace

std::string cacheLookupDirText(const CacheLookup &l) {
  std::string misses = std::to_string(l.keys.size()) +
                       agree(l.keys.size(), " missed key", " missed keys") +
                       " of " + l.run + " looked up";
  if (l.missedWithoutKey)
    misses += " (" + std::to_string(l.missedWithoutKey) +
              " more missed without a logged key: log jax._src.compiler at DEBUG)";
  switch (l.dirMatch) {
  case DirMatch::Same:
    return l.dir + ": the directory " + l.run + " used; " + misses + ".";
  case DirMatch::Other:
    return l.dir + ": not the directory " + l.run + " used (" + loggedDirsText(l) +
           "); " + misses + ", but what is here is not what that run saw.";
  case DirMatch::NotLogged:
    break;
  }
  return l.dir + ": " + l.run + " does not say which directory it used (no "
         "\"Initialized persistent compilation cache at\" line: log "
         "jax._src.compilation_cache at DEBUG); " + misses + ".";
}

std::string keyLookupText(const KeyLookup &k, const CacheLookup &l) {
  const LookupKey &key = k.key;
  std::string who = key.label + (key.key.empty() ? " (digest " + key.digest.substr(0, 12) + "…)" : "");
  std::string path = joinPath(l.dir, k.file);
  switch (k.code) {
  case LookupCode::Present: {
    std::string head = who + ": its entry is here (" + k.file + ", " + bytesText(k.size) +
                       ", " + std::to_string(k.compileSeconds) +
                       " s of compile time recorded, last used " + timeText(k.lastAccessNs) + ")";
    if (key.compileOnlyRead)
      return head + " and reads, but the run's compile-only client could not "
             "load it (a deviceless compile cannot load any entry): nothing is "
             "damaged, and such runs never hit.";
    if (key.write == LoggedWrite::Written)
      return head + ". The run wrote it after its miss: the next run with this "
             "key should hit.";
    if (l.dirMatch == DirMatch::Other)
      return head + ", but the run used another directory (" + loggedDirsText(l) +
             "): set jax_compilation_cache_dir to the same absolute path in "
             "every run.";
    return head + ", yet the run missed: it was written after the run looked "
           "it up (by another process or a later run), or the run read another "
           "directory.";
  }
  case LookupCode::Damaged:
    return who + ": its entry " + k.file + " is damaged: " + statusText(k.status) +
           (k.detail.empty() ? "" : " (" + k.detail + ")") + ". JAX " +
           (key.readErrorLogged ? "warned" : "warns") +
           " \"Error reading persistent compilation cache entry\", compiles "
           "again and never replaces the file (a put skips a key that exists), "
           "so every run misses it. Delete it: rm -- '" + path + "'";
  case LookupCode::Unreadable:
    return who + ": its entry " + k.file + " is here but could not be read (" +
           k.detail + "): a JAX process of the same user cannot read it either "
           "and misses. Check its owner and permissions (ls -l -- '" + path + "').";
  case LookupCode::Symlink:
    return who + ": a symbolic link stands where its entry would be (" + k.file +
           "); JAX opens the entry through it, cachekey does not follow it. "
           "ls -l -- '" + path + "' shows where it points.";
  case LookupCode::AtimeOnly:
    return who + ": no entry, only its -atime (" + k.file + "): the entry was "
           "removed by something other than JAX's eviction, which deletes both "
           "files. Find what cleans the directory (a tmp cleaner, a script).";
  case LookupCode::TempOnly:
    return who + ": no entry, only a write that never finished (" + k.file +
           ", " + bytesText(k.size) + "): the writing process stopped or the "
           "volume filled up. rm -- '" + path + "'";
  case LookupCode::Absent:
    break;
  }
  std::string head = who + ": no entry under its key";
  if (k.otherEntries)
    head += " (the directory holds " + std::to_string(k.otherEntries) + " other " +
            agree(k.otherEntries, "entry", "entries") + " of " + key.label +
            ": its key moved; compare-logs above says why)";
  switch (key.write) {
  case LoggedWrite::NotWritten:
    return head + ". The run chose not to write it (the reason is in its outcome "
           "above).";
  case LoggedWrite::Failed:
    return head + ". The run's write failed (its error is in the outcome above).";
  case LoggedWrite::Written:
    return head + ". The run logged writing it, so it was removed since (an "
           "eviction under jax_compilation_cache_max_size, a cleaner) or the "
           "run wrote to another directory.";
  case LoggedWrite::Unknown:
    break;
  }
  return head + ". The run logged no write for it (log jax._src.compiler and "
         "jax._src.compilation_cache at DEBUG to see why).";
}

} // namespace cachekey
