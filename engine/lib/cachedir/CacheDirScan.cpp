//===- CacheDirScan.cpp - A listed cache directory's records -------------===//
//
// What every lister shares, whatever lists the directory: the names JAX
// writes, classified (jax/_src/lru_cache.py's `-cache`, `-atime` and
// `.lockfile`, jax/_src/gfile_cache.py's `_temp_<key>`, the sub-caches
// jax/_src/compiler.py points XLA at), -atime values read as lru_cache.py
// reads them, and each -atime folded into its entry. scanListedFiles is the
// lister of files someone else listed (the page's folder picker); the
// POSIX lister, which opens and reads a directory itself, is the CLI's
// (engine/tools/cachekey/PosixCacheDir.cpp), as zstd keeps its file I/O in
// programs/.
//
//===----------------------------------------------------------------------===//
#include "cachekey/CacheDir.h"
#include "cachekey/StringExtras.h"

#include <algorithm>

namespace cachekey {

const char *fileKindName(FileKind k) {
  switch (k) {
  case FileKind::Entry: return "entry";
  case FileKind::Atime: return "atime";
  case FileKind::Lockfile: return "lockfile";
  case FileKind::Temp: return "temp";
  case FileKind::SubCache: return "sub_cache";
  case FileKind::Symlink: return "symlink";
  case FileKind::Foreign: return "foreign";
  }
  return "foreign";
}

namespace {

/// `<module>-<64 lowercase hex>`: cache_key.get's hex digest after the
/// module name and '-'.
bool isKey(std::string_view s) {
  if (s.size() < 66 || s[s.size() - 65] != '-')
    return false;
  for (char c : s.substr(s.size() - 64))
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')))
      return false;
  return true;
}

} // namespace

void classifyCacheFile(CacheFile &f) {
  std::string_view n = f.name;
  auto setKey = [&f, n](std::string_view key) {
    f.keyOffset = static_cast<uint16_t>(key.data() - n.data());
    f.keyLength = static_cast<uint16_t>(key.size());
  };
  if (n.size() > 60000) {
    f.kind = FileKind::Foreign;
  } else if (n == ".lockfile") {
    f.kind = FileKind::Lockfile;
  } else if (startsWith(n, "_temp_") && isKey(n.substr(6))) {
    f.kind = FileKind::Temp;
    setKey(n.substr(6));
  } else if (endsWith(n, "-cache") && isKey(n.substr(0, n.size() - 6))) {
    f.kind = FileKind::Entry;
    f.suffixed = true;
    setKey(n.substr(0, n.size() - 6));
  } else if (endsWith(n, "-atime")) {
    // lru_cache.py reads `<stem>-atime` for every `<stem>-cache` its glob
    // meets, a key or not.
    f.kind = FileKind::Atime;
    setKey(n.substr(0, n.size() - 6));
  } else if (isKey(n)) {
    f.kind = FileKind::Entry;
    setKey(n);
  } else {
    f.kind = FileKind::Foreign;
  }
}

FileKind subCacheOrForeign(std::string_view name) {
  return startsWith(name, "xla_") && !endsWith(name, "-cache") ? FileKind::SubCache
                                                               : FileKind::Foreign;
}

AtimeValue atimeValue(std::string_view b, uint64_t fileSize) {
  AtimeValue v;
  if (fileSize > b.size()) {
    v.significant = AtimeValue::kUnread;
    return v;
  }
  size_t n = b.size();
  while (n > 0 && b[n - 1] == 0)
    --n;
  v.significant = static_cast<uint16_t>(n);
  // Little-endian: the most significant byte is the last.
  for (size_t i = n; i-- > (n > 8 ? n - 8 : 0);)
    v.bits = v.bits << 8 | uint8_t(b[i]);
  return v;
}

/// Sorts the records by name and folds each -atime beside its -cache into
/// the entry; the others (orphans) become records of their own.
void mergeAtimeRecords(CacheScan &scan, std::vector<AtimeRecord> &atimes) {
  auto byName = [](const CacheFile &a, const CacheFile &b) { return a.name < b.name; };
  std::vector<CacheFile> &v = scan.files;
  // The POSIX lister hands both lists over in name order already.
  if (!std::is_sorted(v.begin(), v.end(), byName))
    std::sort(v.begin(), v.end(), byName);
  if (!std::is_sorted(atimes.begin(), atimes.end(),
                      [](const AtimeRecord &a, const AtimeRecord &b) { return a.name < b.name; }))
    std::sort(atimes.begin(), atimes.end(),
              [](const AtimeRecord &a, const AtimeRecord &b) { return a.name < b.name; });
  // One walk over both: `<stem>-atime` in name order meets `<stem>-cache`
  // in the same order (the names share the suffix length), so each -atime
  // is folded into its entry or becomes an orphan record of its own.
  const size_t entriesEnd = v.size();
  size_t at = 0;
  std::vector<CacheFile> orphans;
  for (AtimeRecord &a : atimes) {
    std::string_view stem(a.name.data(), a.name.size() - 6);
    auto less = [&](const std::string &n) { // n < stem + "-cache"
      int c = std::string_view(n).substr(0, stem.size()).compare(stem);
      if (c != 0)
        return c < 0;
      return std::string_view(n).substr(std::min(n.size(), stem.size())) <
             std::string_view("-cache");
    };
    while (at < entriesEnd && less(v[at].name))
      ++at;
    // Its `<stem>-cache`: an entry, or any other record of that name the
    // glob meets (a foreign file, a directory); a link's -atime stays a
    // record of its own (the eviction plan finds it by name).
    if (at < entriesEnd && v[at].name.size() == stem.size() + 6 &&
        v[at].name.compare(0, stem.size(), stem) == 0 &&
        v[at].name.compare(stem.size(), 6, "-cache") == 0 && v[at].kind != FileKind::Symlink &&
        (v[at].kind != FileKind::Entry || v[at].suffixed)) {
      CacheFile &e = v[at];
      e.hasAtime = true;
      e.atimeNs = static_cast<int64_t>(a.bits);
      e.atimeSignificant = a.significant;
      e.atimeSize = a.size;
      e.atimeMalformed = a.malformed;
      e.atimeMtimeNs = a.mtimeNs;
      continue;
    }
    CacheFile f;
    f.name = std::move(a.name);
    classifyCacheFile(f);
    f.regular = true;
    f.size = a.size;
    f.mtimeNs = a.mtimeNs;
    f.hasAtime = true;
    f.atimeNs = static_cast<int64_t>(a.bits);
    f.atimeSignificant = a.significant;
    f.atimeSize = a.size;
    f.atimeMalformed = a.malformed;
    orphans.push_back(std::move(f));
  }
  std::vector<AtimeRecord>().swap(atimes);
  if (!orphans.empty()) {
    for (auto &f : orphans)
      v.push_back(std::move(f));
    std::sort(v.begin(), v.end(), byName);
  }
}

CacheScan scanListedFiles(const std::string &dir, const std::vector<ListedFile> &files,
                          const EntryLimits &limits) {
  CacheScan scan;
  scan.dir = dir;
  std::vector<AtimeRecord> atimes;
  for (const ListedFile &l : files) {
    CacheFile f;
    f.name = l.name;
    f.size = l.size;
    f.mtimeNs = l.mtimeNs;
    if (l.type == ListedFile::Type::Symlink) {
      f.kind = FileKind::Symlink;
      LinkTarget t;
      t.name = l.name; // a picker gives no target: Unknown
      scan.links.push_back(std::move(t));
    } else if (l.type == ListedFile::Type::Directory) {
      f.kind = subCacheOrForeign(l.name);
      f.directory = true;
    } else {
      classifyCacheFile(f);
      f.regular = l.type == ListedFile::Type::Regular;
      if (!f.regular) {
        f.kind = FileKind::Foreign;
      } else if (!l.readError.empty() || !l.bytes) {
        f.readError = l.readError.empty() ? "not readable" : l.readError;
      } else if (f.kind == FileKind::Atime) {
        std::string b = l.bytes->read(0, kMaxAtimeRead);
        atimes.emplace_back(std::move(f.name), atimeValue(b, f.size), f.mtimeNs, f.size);
        continue;
      } else if (f.kind == FileKind::Entry) {
        f.facts = readEntry(*l.bytes, limits);
      }
    }
    scan.files.push_back(std::move(f));
  }
  mergeAtimeRecords(scan, atimes);
  return scan;
}

} // namespace cachekey
