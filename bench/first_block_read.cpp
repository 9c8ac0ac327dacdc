// The limit of `cachekey cache-dir` (bench/cache_dir_bench.py, issue 40):
// a plain read of every file's first block. The directory is listed once
// (getdents), then every regular file is opened (relative to the
// directory's descriptor, O_NOATIME when allowed, as the CLI does), its
// first 4 KiB read in one read, and closed, on as many threads as the CLI
// uses (workerThreads()). Nothing is decoded, sorted or written.
//
//   first_block_read DIR   -> one line: files read, bytes read, seconds
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
#include <unistd.h>
#include <vector>

int main(int argc, char **argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: first_block_read DIR\n");
    return 2;
  }
  auto t0 = std::chrono::steady_clock::now();
  int dfd = open(argv[1], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  DIR *d = dfd < 0 ? nullptr : fdopendir(dfd);
  if (!d) {
    std::perror(argv[1]);
    return 1;
  }
  std::vector<std::string> names;
  while (dirent *e = readdir(d))
    if (e->d_type == DT_REG)
      names.emplace_back(e->d_name);
  std::atomic<size_t> cursor{0}, files{0}, bytes{0};
  cachekey::runOnThreads(cachekey::workerThreads(), [&] {
    char buf[4096];
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
        ssize_t r = read(fd, buf, sizeof buf);
        close(fd);
        ++myFiles;
        myBytes += r > 0 ? size_t(r) : 0;
      }
    }
    files += myFiles;
    bytes += myBytes;
  });
  closedir(d);
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("%zu %zu %.6f\n", files.load(), bytes.load(), secs);
  return 0;
}
