// The limit of `cachekey cache-dir` (bench/cache_dir_bench.py, issue 40):
// a plain read of every file's first block. The directory is listed once
// (getdents), then every regular file is opened (relative to the
// directory's descriptor, O_NOATIME when allowed, as the CLI does), its
// first 4 KiB read in one read, and closed, on as many threads as the CLI
// uses (workerThreads()). Nothing is decoded, sorted or written.
//
// With --decode, each zstd file is also decoded up to the CLI's head (the
// first 16 KiB of output, EntryLimits::headBytes), straight with libzstd's
// streaming API: its prefix read in one read (16 KiB, as the CLI reads it),
// further input read as the decoder asks for it; a frame that declares at
// most 128 KiB and lies whole in the prefix is decoded in one call instead
// (both as the CLI does). zstd decodes whole blocks
// (up to 128 KiB of output), so this is what the compile time and the
// output shapes at the head of each entry cost at least. Nothing is
// checked, parsed or kept.
//
//   first_block_read [--decode] DIR   -> one line: files read, bytes read, seconds
#include "cachekey/Parallel.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <string>
#include <string_view>
#include <unistd.h>
#include <vector>

#include <zstd.h>

/// Decodes the zstd frame that starts with `prefix` (the file's first
/// bytes, read from `fd`) to the head's 16 KiB of output: one call for a
/// frame that declares at most 128 KiB and lies whole in `prefix`, else
/// streamed, reading more of `fd` as the decoder asks. Returns the bytes
/// read past `prefix`. Nothing is checked or kept.
static size_t decodeHead(ZSTD_DCtx *dctx, int fd, std::string_view prefix,
                         std::vector<char> &more, std::vector<char> &head) {
  ZSTD_DCtx_reset(dctx, ZSTD_reset_session_only);
  const unsigned long long declared = ZSTD_getFrameContentSize(prefix.data(), prefix.size());
  const size_t frame = ZSTD_findFrameCompressedSize(prefix.data(), prefix.size());
  if (declared <= more.size() && !ZSTD_isError(frame) && frame <= prefix.size() &&
      !ZSTD_isError(ZSTD_decompressDCtx(dctx, more.data(), more.size(), prefix.data(), frame)))
    return 0;
  ZSTD_DCtx_reset(dctx, ZSTD_reset_session_only);
  ZSTD_inBuffer in{prefix.data(), prefix.size(), 0};
  ZSTD_outBuffer out{head.data(), head.size(), 0};
  size_t readMore = 0;
  for (;;) {
    size_t z = ZSTD_decompressStream(dctx, &out, &in);
    if (ZSTD_isError(z) || z == 0 || out.pos == out.size)
      return readMore;
    if (in.pos == in.size) {
      ssize_t m = read(fd, more.data(), more.size());
      if (m <= 0)
        return readMore;
      readMore += size_t(m);
      in = ZSTD_inBuffer{more.data(), size_t(m), 0};
    }
  }
}

int main(int argc, char **argv) {
  const bool decode = argc == 3 && std::strcmp(argv[1], "--decode") == 0;
  if (argc != 2 + decode) {
    std::fprintf(stderr, "usage: first_block_read [--decode] DIR\n");
    return 2;
  }
  const char *dir = argv[1 + decode];
  auto t0 = std::chrono::steady_clock::now();
  int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  DIR *d = dfd < 0 ? nullptr : fdopendir(dfd);
  if (!d) {
    std::perror(dir);
    return 1;
  }
  std::vector<std::string> names;
  while (dirent *e = readdir(d))
    if (e->d_type == DT_REG)
      names.emplace_back(e->d_name);
  std::atomic<size_t> cursor{0}, files{0}, bytes{0};
  cachekey::runOnThreads(cachekey::workerThreads(), [&] {
    static thread_local std::vector<char> buf(decode ? 16384 : 4096), more(131072), head(16384);
    ZSTD_DCtx *dctx = decode ? ZSTD_createDCtx() : nullptr;
    size_t myFiles = 0, myBytes = 0;
    for (;;) {
      size_t begin = cursor.fetch_add(256);
      if (begin >= names.size())
        break;
      for (size_t i = begin; i < std::min(names.size(), begin + 256); ++i) {
        int fd = openat(dfd, names[i].c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOATIME);
        if (fd < 0 && errno == EPERM)
          fd = openat(dfd, names[i].c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0)
          continue;
        ssize_t r = read(fd, buf.data(), buf.size());
        if (dctx && r >= 4 && std::memcmp(buf.data(), "\x28\xb5\x2f\xfd", 4) == 0)
          myBytes += decodeHead(dctx, fd, std::string_view(buf.data(), size_t(r)), more, head);
        close(fd);
        ++myFiles;
        myBytes += r > 0 ? size_t(r) : 0;
      }
    }
    ZSTD_freeDCtx(dctx);
    files += myFiles;
    bytes += myBytes;
  });
  closedir(d);
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("%zu %zu %.6f\n", files.load(), bytes.load(), secs);
  return 0;
}
