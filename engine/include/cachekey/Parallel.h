//===- Parallel.h - Work shared among a few threads -------------*- C++ -*-===//
//
// One pool shape for the engine and the CLI: the calling thread and
// `threads - 1` more each run the same `work`, which takes its own items
// (an atomic counter or a queue), and all are joined before the call
// returns.
//
//===----------------------------------------------------------------------===//
#ifndef CACHEKEY_PARALLEL_H
#define CACHEKEY_PARALLEL_H

#include <thread>
#include <vector>

namespace cachekey {

/// Runs `work()` on `threads` threads, this one among them (1 or 0: only
/// here), and returns when every run has returned. `work` must be safe to
/// run concurrently with itself.
template <typename Work> void runOnThreads(unsigned threads, const Work &work) {
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < threads; ++t)
    pool.emplace_back(work);
  work();
  for (auto &t : pool)
    t.join();
}

} // namespace cachekey

#endif // CACHEKEY_PARALLEL_H
