//===- PosixCacheDir.cpp - A JAX cache directory read from disk -----------===//
//
// POSIX only: openat(O_RDONLY | O_NOFOLLOW) relative to the directory's own
// descriptor, so nothing outside it is opened and nothing is written (not
// even an access time: O_NOATIME is tried first). A file costs as few
// system calls as it can: an entry is opened, fstat-ed and its first 64 KiB
// read in one pread (then what its block walk and head need); an -atime
// file is opened, fstat-ed through its descriptor (its mtime: jax 0.4.30
// ranks every file by it, and an orphan's is shown) and read. What the names
// mean, and the merge of -atime files into entries, are the engine's
// (lib/cachedir/CacheDirScan.cpp).
//
//===----------------------------------------------------------------------===//
#include "PosixCacheDir.h"

#include "cachekey/Parallel.h"
#include "cachekey/StringExtras.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <functional>
#include <mutex>
#include <sys/stat.h>
#include <unistd.h>

namespace cachekey {

namespace {

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

/// An -atime file JAX would read (d_type says regular): opened (never
/// following a link), fstat-ed through its descriptor (its mtime: jax
/// 0.4.30's eviction ranks every file by it, and an orphan's is shown) and
/// read for up to 16 bytes; a well-formed one (exactly 8 bytes, then the
/// end) needs nothing more. Returns false, having kept nothing, for anything
/// else (examine then reads it the long way); on success the name is moved
/// into `atime`.
bool readAtimeQuickly(int dfd, std::string &name, AtimeRecord &atime) {
  int fd = openat(dfd, name.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOATIME);
  if (fd < 0 && errno == EPERM)
    fd = openat(dfd, name.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0)
    return false;
  struct stat st {};
  char b[16];
  ssize_t r = -1;
  if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
    do
      r = pread(fd, b, sizeof b, 0);
    while (r < 0 && errno == EINTR);
  }
  close(fd);
  if (r != 8)
    return false;
  // (the listing's copy of the name is not kept)
  atime = AtimeRecord(std::move(name), atimeValue(std::string_view(b, 8), 8),
                      int64_t(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec, 8);
  return true;
}

/// Opens, stats and reads one name of the directory `dfd` (never writes,
/// O_NOFOLLOW, O_NOATIME when allowed) into `f`, or into `atime` when it is
/// an -atime file that could be read (kept compact until it meets its
/// -cache); returns whether it went into `atime`.
bool examine(int dfd, std::string name, unsigned char dtype, const EntryLimits &limits,
                 CacheFile &f, AtimeRecord &atime) {
  f.name = std::move(name);
  const char *cname = f.name.c_str();
  struct stat st {};
  // A regular file JAX reads (d_type says so) is opened first and fstat-ed
  // through its descriptor: one path lookup instead of two.
  int fd = -1;
  if (dtype == DT_REG) {
    classifyCacheFile(f);
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
    classifyCacheFile(f);
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
    f.kind = subCacheOrForeign(f.name);
    f.directory = true;
    return done();
  }
  classifyCacheFile(f);
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
    std::string b = src.read(0, kMaxAtimeRead);
    if (!src.failed) {
      close(fd);
      atime = AtimeRecord(std::move(f.name), atimeValue(b, f.size), f.mtimeNs, f.size);
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
  // O_NOATIME as for the files: listing a directory would otherwise set its
  // access time (it needs the directory's owner, or is left out).
  int dfd = open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOATIME);
  if (dfd < 0 && errno == EPERM)
    dfd = open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
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
  // AtimeRecord per -atime name (the records of 100,000 entries, not 200,000).
  std::vector<int32_t> slot(names.size());
  size_t recordCount = 0;
  {
    int32_t nextAtime = 0, nextRecord = 0;
    for (size_t i = 0; i < names.size(); ++i)
      slot[i] = endsWith(names[i].first, "-atime") ? nextAtime++ : nextRecord++;
    recordCount = static_cast<size_t>(nextRecord);
  }
  scan.files.resize(recordCount);
  std::vector<AtimeRecord> atimes(atimeCount);
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
          AtimeRecord unused;
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
  mergeAtimeRecords(scan, atimes);
  closedir(d);
  return scan;
}

} // namespace cachekey
