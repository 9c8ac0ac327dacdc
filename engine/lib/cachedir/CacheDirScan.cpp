//===- CacheDirScan.cpp - Listing a cache directory, read-only ------------===//
//
// POSIX only: openat(O_RDONLY | O_NOFOLLOW) relative to the directory's own
// descriptor, so nothing outside it is opened and nothing is written (not
// even an access time: O_NOATIME is tried first). The names are the ones
// jax/_src/lru_cache.py writes (`-cache`, `-atime`, `.lockfile`),
// jax/_src/gfile_cache.py's `_temp_<key>`, and the sub-caches
// jax/_src/compiler.py points XLA at (`xla_gpu_per_fusion_autotune_cache_dir`).
//
//===----------------------------------------------------------------------===//
#include "cachekey/CacheDir.h"

#include <algorithm>
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

bool endsWith(std::string_view s, std::string_view tail) {
  return s.size() >= tail.size() && s.substr(s.size() - tail.size()) == tail;
}

struct FdSource : ByteSource {
  int fd;
  uint64_t len;
  mutable bool failed = false;
  FdSource(int fd, uint64_t len) : fd(fd), len(len) {}
  uint64_t size() const override { return len; }
  std::string read(uint64_t offset, size_t n) const override {
    std::string out(n, '\0');
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
    return out;
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
  } else if (n.rfind("_temp_", 0) == 0 && isKey(n.substr(6))) {
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
void mergeAtimes(CacheScan &scan, std::vector<AtimeFile> &atimes) {
  std::sort(scan.files.begin(), scan.files.end(),
            [](const CacheFile &a, const CacheFile &b) { return a.name < b.name; });
  // Each -atime beside its -cache is folded into the entry; the others
  // (orphans) become records of their own.
  auto byName = [](const CacheFile &a, const CacheFile &b) { return a.name < b.name; };
  std::vector<CacheFile> &v = scan.files;
  size_t entriesEnd = v.size();
  for (AtimeFile &a : atimes) {
    CacheFile probe;
    probe.name = a.name.substr(0, a.name.size() - 6) + "-cache";
    auto it = std::lower_bound(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(entriesEnd),
                               probe, byName);
    if (it != v.begin() + static_cast<std::ptrdiff_t>(entriesEnd) && it->name == probe.name &&
        it->kind == FileKind::Entry && it->suffixed) {
      it->hasAtime = true;
      it->atimeNs = a.ns;
      it->atimeSize = a.size;
      it->atimeMalformed = a.malformed;
      continue;
    }
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
    v.push_back(std::move(f));
  }
  std::vector<AtimeFile>().swap(atimes);
  if (v.size() != entriesEnd)
    std::sort(v.begin(), v.end(), byName);
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
  // Count first (getdents only), so the records are allocated once: a
  // growing vector would hold 1.5 times them while it moves.
  size_t count = 0, atimeCount = 0;
  while (dirent *e = readdir(d)) {
    ++count;
    atimeCount += endsWith(e->d_name, "-atime");
  }
  rewinddir(d);
  scan.files.reserve(count - atimeCount);
  // -atime files wait in a compact list until they meet their -cache.
  std::vector<AtimeFile> atimes;
  atimes.reserve(atimeCount);
  while (dirent *e = readdir(d)) {
    std::string name = e->d_name;
    if (name == "." || name == "..")
      continue;
    CacheFile f;
    f.name = name;
    struct stat st {};
    // A regular file JAX reads (d_type says so) is opened first and
    // fstat-ed through its descriptor: one path lookup instead of two.
    int fd = -1;
    if (e->d_type == DT_REG) {
      classify(f);
      if (f.kind == FileKind::Entry || f.kind == FileKind::Atime) {
        fd = openat(dfd, name.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOATIME);
        if (fd < 0 && errno == EPERM) // O_NOATIME needs the file's owner
          fd = openat(dfd, name.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
        if (fd >= 0 && fstat(fd, &st) != 0) {
          close(fd);
          fd = -1;
        }
      }
    }
    if (fd < 0 && fstatat(dfd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
      f.readError = std::strerror(errno);
      classify(f);
      scan.files.push_back(std::move(f));
      continue;
    }
    f.size = static_cast<uint64_t>(st.st_size);
    f.mtimeNs = int64_t(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
    if (S_ISLNK(st.st_mode)) {
      f.kind = FileKind::Symlink;
      scan.files.push_back(std::move(f));
      continue;
    }
    if (S_ISDIR(st.st_mode)) {
      f.kind = name.rfind("xla_", 0) == 0 ? FileKind::SubCache : FileKind::Foreign;
      scan.files.push_back(std::move(f));
      continue;
    }
    classify(f);
    f.regular = S_ISREG(st.st_mode);
    if (!f.regular) {
      f.kind = FileKind::Foreign;
      scan.files.push_back(std::move(f));
      continue;
    }
    if (f.kind == FileKind::Entry || f.kind == FileKind::Atime) {
      if (fd < 0)
        fd = openat(dfd, name.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOATIME);
      if (fd < 0 && errno == EPERM)
        fd = openat(dfd, name.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
      if (fd < 0) {
        f.readError = std::strerror(errno);
      } else {
        FdSource src(fd, f.size);
        if (f.kind == FileKind::Atime) {
          std::string b = src.read(0, 16);
          if (!src.failed) {
            close(fd);
            atimes.push_back({std::move(f.name), atimeValue(b), f.mtimeNs,
                              f.size, b.size() != 8});
            continue;
          }
        } else {
          f.facts = readEntry(src, limits);
        }
        if (src.failed)
          f.readError = std::strerror(errno ? errno : EIO);
        close(fd);
      }
    }
    scan.files.push_back(std::move(f));
  }
  closedir(d);
  mergeAtimes(scan, atimes);
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
    } else if (l.type == ListedFile::Type::Directory) {
      f.kind = l.name.rfind("xla_", 0) == 0 ? FileKind::SubCache : FileKind::Foreign;
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
  mergeAtimes(scan, atimes);
  return scan;
}

} // namespace cachekey
