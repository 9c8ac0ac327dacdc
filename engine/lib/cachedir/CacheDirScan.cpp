//===- CacheDirScan.cpp - Listing a cache directory, read-only ------------===//
//
// POSIX only: openat(O_RDONLY | O_NOFOLLOW) relative to the directory's own
// descriptor, so nothing outside it is opened and nothing is written (not
// even an access time: O_NOATIME is tried first). The names are the ones
// jax/_src/lru_cache.py writes (`-cache`, `-atime`, `.lockfile`),
// jax/_src/gfile_cache.py's `_temp_<key>`, and the sub-caches
// jax/_src/compiler.py points XLA at (`xla_gpu_per_fusion_autotune_cache_dir`).
// A file costs as few system calls as it can: an entry is opened, fstat-ed
// and its first 16 KiB read in one pread (then what its block walk and head
// need); a well-formed -atime file (8 bytes) is opened and read with no
// fstat, and stat-ed only if it turns out to be an orphan, whose mtime is
// shown.
//
//===----------------------------------------------------------------------===//
#include "cachekey/CacheDir.h"
#include "cachekey/StringExtras.h"
#include "cachekey/Parallel.h"

#include <algorithm>
#include <functional>
#include <atomic>
#include <mutex>
#include <thread>
#include <cerrno>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef O_NOATIME // not every libc has it (Emscripten's)
#define O_NOATIME 0
#endif

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

struct FdSource : ByteSource {
  int fd;
  uint64_t len;
  mutable bool failed = false;
  /// The file's first kFirst bytes (all of a small entry), read by the
  /// first read in one pread: the frame's block headers and the first
  /// block a head needs are then served from memory.
  static constexpr size_t kFirst = 64 * 1024;
  /// The thread's buffer, reused from file to file (no allocation per
  /// file; 64 KiB is runCacheDir's mmap threshold).
  std::string &first;
  mutable bool haveFirst = false;
  FdSource(int fd, uint64_t len) : fd(fd), len(len), first(buffer()) {}
  static std::string &buffer() {
    static thread_local std::string b;
    return b;
  }
  uint64_t size() const override { return len; }
  std::string read(uint64_t offset, size_t n) const override {
    // Up to the size fstat gave, so a whole small file is one pread (a
    // file that grew meanwhile is read as it was when listed).
    n = offset >= len ? 0 : static_cast<size_t>(std::min<uint64_t>(n, len - offset));
    if (!haveFirst) {
      haveFirst = true;
      readAt(0, static_cast<size_t>(std::min<uint64_t>(len, kFirst)), first);
    }
    if (offset + n <= first.size())
      return first.substr(static_cast<size_t>(offset), n);
    std::string out;
    readAt(offset, n, out);
    return out;
  }
  void readAt(uint64_t offset, size_t n, std::string &out) const {
    out.resize(n);
    size_t got = 0;
    while (got < n) {
      ssize_t r = pread(fd, out.data() + got, n - got, static_cast<off_t>(offset + got));
      if (r < 0 && errno == EINTR)
        continue;
      if (r < 0)
        failed = true;
      if (r <= 0)
        break;
      got += static_cast<size_t>(r);
    }
    out.resize(got);
  }
};

void classify(CacheFile &f) {
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
  } else if (endsWith(n, "-atime") && isKey(n.substr(0, n.size() - 6))) {
    f.kind = FileKind::Atime;
    setKey(n.substr(0, n.size() - 6));
  } else if (isKey(n)) {
    f.kind = FileKind::Entry;
    setKey(n);
  } else {
    f.kind = FileKind::Foreign;
  }
}

/// An -atime file waiting to meet its -cache.
struct AtimeFile {
  std::string name;
  int64_t ns = 0, mtimeNs = 0;
  uint64_t size = 0;
  bool malformed = false;
  /// Read without fstat (8 bytes then the end): mtimeNs is not known yet,
  /// and is looked up only if the file turns out to be an orphan.
  bool unstated = false;
};

/// int.from_bytes(…, "little") of an -atime file's first bytes, as
/// lru_cache.py reads it; `malformed` when it is not 8 bytes.
int64_t atimeValue(const std::string &b) {
  uint64_t v = 0;
  for (size_t i = std::min<size_t>(b.size(), 8); i-- > 0;)
    v = v << 8 | uint8_t(b[i]);
  return static_cast<int64_t>(v);
}

/// Sorts the records by name and folds each -atime beside its -cache into
/// the entry; the others (orphans) become records of their own.
template <typename StatOrphan>
void mergeAtimes(CacheScan &scan, std::vector<AtimeFile> &atimes, const StatOrphan &statOrphan) {
  auto byName = [](const CacheFile &a, const CacheFile &b) { return a.name < b.name; };
  std::vector<CacheFile> &v = scan.files;
  // The POSIX scan hands both lists over in name order already.
  if (!std::is_sorted(v.begin(), v.end(), byName))
    std::sort(v.begin(), v.end(), byName);
  if (!std::is_sorted(atimes.begin(), atimes.end(),
                      [](const AtimeFile &a, const AtimeFile &b) { return a.name < b.name; }))
    std::sort(atimes.begin(), atimes.end(),
              [](const AtimeFile &a, const AtimeFile &b) { return a.name < b.name; });
  // One walk over both: `<stem>-atime` in name order meets `<stem>-cache`
  // in the same order (the names share the suffix length), so each -atime
  // is folded into its entry or becomes an orphan record of its own.
  const size_t entriesEnd = v.size();
  size_t at = 0;
  std::vector<CacheFile> orphans;
  for (AtimeFile &a : atimes) {
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
    if (at < entriesEnd && v[at].name.size() == stem.size() + 6 &&
        v[at].name.compare(0, stem.size(), stem) == 0 &&
        v[at].name.compare(stem.size(), 6, "-cache") == 0 && v[at].kind == FileKind::Entry &&
        v[at].suffixed) {
      CacheFile &e = v[at];
      e.hasAtime = true;
      e.atimeNs = a.ns;
      e.atimeSize = a.size;
      e.atimeMalformed = a.malformed;
      continue;
    }
    if (a.unstated)
      statOrphan(a); // its mtime is shown: an orphan is stat-ed after all
    CacheFile f;
    f.name = std::move(a.name);
    classify(f);
    f.regular = true;
    f.size = a.size;
    f.mtimeNs = a.mtimeNs;
    f.hasAtime = true;
    f.atimeNs = a.ns;
    f.atimeSize = a.size;
    f.atimeMalformed = a.malformed;
    orphans.push_back(std::move(f));
  }
  std::vector<AtimeFile>().swap(atimes);
  if (!orphans.empty()) {
    for (auto &f : orphans)
      v.push_back(std::move(f));
    std::sort(v.begin(), v.end(), byName);
  }
}

} // namespace

namespace {

/// An -atime file JAX would read (d_type says regular) read with no fstat:
/// opened (never following a link), read for up to 16 bytes; a well-formed
/// one (exactly 8 bytes, then the end) needs nothing more. Returns false,
/// having kept nothing, for anything else (examine then reads it the long
/// way); on success the name is moved into `atime`.
bool readAtimeQuickly(int dfd, std::string &name, AtimeFile &atime) {
  int fd = openat(dfd, name.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOATIME);
  if (fd < 0 && errno == EPERM)
    fd = openat(dfd, name.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0)
    return false;
  char b[16];
  ssize_t r;
  do
    r = pread(fd, b, sizeof b, 0);
  while (r < 0 && errno == EINTR);
  close(fd);
  if (r != 8)
    return false;
  atime.name = std::move(name); // the listing's copy is not kept
  atime.ns = atimeValue(std::string(b, 8));
  atime.size = 8;
  atime.malformed = false;
  atime.unstated = true;
  return true;
}

/// Opens, stats and reads one name of the directory `dfd` (never writes,
/// O_NOFOLLOW, O_NOATIME when allowed) into `f`, or into `atime` when it is
/// an -atime file that could be read (kept compact until it meets its
/// -cache); returns whether it went into `atime`.
bool examine(int dfd, std::string name, unsigned char dtype, const EntryLimits &limits,
                 CacheFile &f, AtimeFile &atime) {
  f.name = std::move(name);
  const char *cname = f.name.c_str();
  struct stat st {};
  // A regular file JAX reads (d_type says so) is opened first and fstat-ed
  // through its descriptor: one path lookup instead of two.
  int fd = -1;
  if (dtype == DT_REG) {
    classify(f);
    if (f.kind == FileKind::Entry || f.kind == FileKind::Atime) {
      fd = openat(dfd, cname, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOATIME);
      if (fd < 0 && errno == EPERM) // O_NOATIME needs the file's owner
        fd = openat(dfd, cname, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
      if (fd >= 0 && fstat(fd, &st) != 0) {
        close(fd);
        fd = -1;
      }
    }
  }
  if (fd < 0 && fstatat(dfd, cname, &st, AT_SYMLINK_NOFOLLOW) != 0) {
    f.readError = std::strerror(errno);
    classify(f);
    return false;
  }
  f.size = static_cast<uint64_t>(st.st_size);
  f.mtimeNs = int64_t(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
  auto done = [&fd]() {
    if (fd >= 0)
      close(fd);
    return false;
  };
  if (S_ISLNK(st.st_mode)) {
    f.kind = FileKind::Symlink;
    return done();
  }
  if (S_ISDIR(st.st_mode)) {
    f.kind = startsWith(f.name, "xla_") ? FileKind::SubCache : FileKind::Foreign;
    return done();
  }
  classify(f);
  f.regular = S_ISREG(st.st_mode);
  if (!f.regular) {
    f.kind = FileKind::Foreign;
    return done();
  }
  if (f.kind != FileKind::Entry && f.kind != FileKind::Atime)
    return done();
  if (fd < 0)
    fd = openat(dfd, cname, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOATIME);
  if (fd < 0 && errno == EPERM)
    fd = openat(dfd, cname, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) {
    f.readError = std::strerror(errno);
    return false;
  }
  FdSource src(fd, f.size);
  if (f.kind == FileKind::Atime) {
    std::string b = src.read(0, 16);
    if (!src.failed) {
      close(fd);
      atime = {std::move(f.name), atimeValue(b), f.mtimeNs, f.size, b.size() != 8};
      return true;
    }
  } else {
    f.facts = readEntry(src, limits);
  }
  if (src.failed)
    f.readError = std::strerror(errno ? errno : EIO);
  close(fd);
  return false;
}

} // namespace

Expected<CacheScan> scanCacheDir(const std::string &dir, const EntryLimits &limits) {
  int dfd = open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd < 0)
    return Error{dir, std::string("cannot open the cache directory: ") + std::strerror(errno),
                 ErrorCode::Io};
  DIR *d = fdopendir(dfd);
  if (!d) {
    close(dfd);
    return Error{dir, std::string("cannot list the cache directory: ") + std::strerror(errno),
                 ErrorCode::Io};
  }
  CacheScan scan;
  scan.dir = dir;
  // 1. The listing (getdents only): names and d_type, -atime files apart,
  //    so that every record has its slot before any file is opened.
  std::vector<std::pair<std::string, unsigned char>> names;
  size_t atimeCount = 0;
  while (dirent *e = readdir(d)) {
    if (std::strcmp(e->d_name, ".") == 0 || std::strcmp(e->d_name, "..") == 0)
      continue;
    names.emplace_back(e->d_name, e->d_type);
    atimeCount += endsWith(e->d_name, "-atime");
  }
  // In name order: the records and the -atime slots then come out sorted.
  // On every core: the sort would otherwise hold the others idle.
  sortOnThreads(names.begin(), names.end(), std::less<>(), workerThreads());
  // 2. Each name examined on its own: open, stat, read the head. The files
  //    are independent, so the work is shared among threads (one per core,
  //    at most 8), each with its own zstd context, writing its own slots.
  // Slots: one record per name that is not an -atime file, one compact
  // AtimeFile per -atime name (the records of 100,000 entries, not 200,000).
  std::vector<int32_t> slot(names.size());
  size_t recordCount = 0;
  {
    int32_t nextAtime = 0, nextRecord = 0;
    for (size_t i = 0; i < names.size(); ++i)
      slot[i] = endsWith(names[i].first, "-atime") ? nextAtime++ : nextRecord++;
    recordCount = static_cast<size_t>(nextRecord);
  }
  scan.files.resize(recordCount);
  std::vector<AtimeFile> atimes(atimeCount);
  std::vector<uint8_t> atimeRead(atimeCount, 0);
  // An -atime name that could not be read as one becomes a record of its
  // own; the few there are wait here.
  std::mutex extraLock;
  std::vector<CacheFile> extra;
  std::atomic<size_t> cursor{0};
  auto work = [&]() {
    for (;;) {
      size_t begin = cursor.fetch_add(256);
      if (begin >= names.size())
        return;
      size_t end = std::min(names.size(), begin + 256);
      for (size_t i = begin; i < end; ++i) {
        if (!endsWith(names[i].first, "-atime")) {
          AtimeFile unused;
          examine(dfd, std::move(names[i].first), names[i].second, limits,
                  scan.files[slot[i]], unused);
          continue;
        }
        if (names[i].second == DT_REG && readAtimeQuickly(dfd, names[i].first, atimes[slot[i]])) {
          atimeRead[slot[i]] = 1;
          continue;
        }
        CacheFile f;
        if (examine(dfd, std::move(names[i].first), names[i].second, limits, f,
                    atimes[slot[i]])) {
          atimeRead[slot[i]] = 1;
        } else {
          std::lock_guard<std::mutex> hold(extraLock);
          extra.push_back(std::move(f));
        }
      }
    }
  };
  runOnThreads(names.size() < 512 ? 1u : workerThreads(), work);
  // The links (few): where each points, as JAX's eviction stats it.
  auto linkTarget = [dfd](const std::string &name) {
    LinkTarget l;
    l.name = name;
    char buf[4096];
    ssize_t n = readlinkat(dfd, name.c_str(), buf, sizeof buf);
    if (n >= 0)
      l.target.assign(buf, static_cast<size_t>(n));
    struct stat st {};
    if (fstatat(dfd, name.c_str(), &st, 0) != 0) {
      l.state = errno == ENOENT || errno == ENOTDIR || errno == ELOOP
                    ? LinkTarget::State::Dangling
                    : LinkTarget::State::Unknown;
      return l;
    }
    l.state = S_ISREG(st.st_mode) ? LinkTarget::State::File : LinkTarget::State::Other;
    l.size = static_cast<uint64_t>(st.st_size);
    l.mtimeNs = int64_t(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
    std::string t = startsWith(l.target, "./") ? l.target.substr(2) : l.target;
    if (!t.empty() && t.find('/') == std::string::npos)
      l.inside = t;
    return l;
  };
  for (const auto *group : {&scan.files, &extra})
    for (const CacheFile &f : *group)
      if (f.kind == FileKind::Symlink)
        scan.links.push_back(linkTarget(f.name));
  std::vector<std::pair<std::string, unsigned char>>().swap(names);
  std::vector<int32_t>().swap(slot);
  for (auto &f : extra)
    scan.files.push_back(std::move(f));
  // 3. The records in name order, each -atime folded into its entry.
  size_t kept = 0;
  for (size_t k = 0; k < atimes.size(); ++k)
    if (atimeRead[k]) {
      if (kept != k) // never a self-move: it would empty the name
        atimes[kept] = std::move(atimes[k]);
      ++kept;
    }
  atimes.resize(kept);
  mergeAtimes(scan, atimes, [dfd](AtimeFile &a) {
    struct stat st {};
    if (fstatat(dfd, a.name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0) {
      a.mtimeNs = int64_t(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
      a.size = static_cast<uint64_t>(st.st_size);
    }
  });
  closedir(d);
  return scan;
}

CacheScan scanListedFiles(const std::string &dir, const std::vector<ListedFile> &files,
                          const EntryLimits &limits) {
  CacheScan scan;
  scan.dir = dir;
  std::vector<AtimeFile> atimes;
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
      f.kind = startsWith(l.name, "xla_") ? FileKind::SubCache : FileKind::Foreign;
    } else {
      classify(f);
      f.regular = l.type == ListedFile::Type::Regular;
      if (!f.regular) {
        f.kind = FileKind::Foreign;
      } else if (!l.readError.empty() || !l.bytes) {
        f.readError = l.readError.empty() ? "not readable" : l.readError;
      } else if (f.kind == FileKind::Atime) {
        std::string b = l.bytes->read(0, 16);
        atimes.push_back({std::move(f.name), atimeValue(b), f.mtimeNs, f.size, b.size() != 8});
        continue;
      } else if (f.kind == FileKind::Entry) {
        f.facts = readEntry(*l.bytes, limits);
      }
    }
    scan.files.push_back(std::move(f));
  }
  mergeAtimes(scan, atimes, [](AtimeFile &) {});
  return scan;
}

} // namespace cachekey
