//===- Parallel.h - Work shared among a few threads -------------*- C++ -*-===//
//
// One pool shape for the engine and the CLI: the calling thread and
// `threads - 1` more each run the same `work`, which takes its own items
// (an atomic counter or a queue), and all are joined before the call
// returns. makeInOrder builds long outputs (the pairs of a log comparison,
// the entries of a cache directory) on every core, in pieces written in
// item order.
//
//===----------------------------------------------------------------------===//
#ifndef CACHEKEY_PARALLEL_H
#define CACHEKEY_PARALLEL_H

#include <algorithm>
#include <atomic>
#include <string>
#include <thread>
#include <vector>

namespace cachekey {

/// The threads a long job of the engine or the CLI uses: one per core, at
/// most 8 (what makeInOrder holds grows with the threads), and 1 where the
/// count is not known (hardware_concurrency() gives 0). Counted once per
/// process: glibc reads /sys for the count, a few system calls that a
/// comparison of two short logs would otherwise pay on every call.
inline unsigned workerThreads() {
  static const unsigned threads = [] {
    unsigned n = std::thread::hardware_concurrency();
    return n == 0 ? 1u : std::min(8u, n);
  }();
  return threads;
}

/// Runs `work()` on `threads` threads, this one among them (1 or 0: only
/// here), and returns when every run has returned. `work` must be safe to
/// run concurrently with itself. Under Emscripten (the wasm engine is built
/// without threads) it always runs here only.
template <typename Work> void runOnThreads(unsigned threads, const Work &work) {
#if defined(__EMSCRIPTEN__)
  threads = 1;
#endif
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < threads; ++t)
    pool.emplace_back(work);
  work();
  for (auto &t : pool)
    t.join();
}

/// Sorts [first, last) by `less` on up to `threads` threads (at most 8):
/// each sorts a contiguous part (std::sort), then the parts are merged on
/// this thread (std::inplace_merge, which may take a buffer of up to n
/// elements), so the result is std::sort's for a strict weak order whose
/// equal elements are interchangeable. Ranges under 4,096 elements, and
/// one thread, sort here only.
template <typename It, typename Less>
void sortOnThreads(It first, It last, const Less &less, unsigned threads) {
  const size_t n = static_cast<size_t>(last - first);
  threads = std::min(threads, 8u);
  if (threads <= 1 || n < 4096) {
    std::sort(first, last, less);
    return;
  }
  std::vector<size_t> bounds(threads + 1);
  for (unsigned k = 0; k <= threads; ++k)
    bounds[k] = n * k / threads;
  std::atomic<unsigned> next{0};
  runOnThreads(threads, [&] {
    for (unsigned k; (k = next.fetch_add(1)) < threads;)
      std::sort(first + bounds[k], first + bounds[k + 1], less);
  });
  for (unsigned k = 1; k < threads; ++k)
    std::inplace_merge(first, first + bounds[k], first + bounds[k + 1], less);
}

/// Makes the text of items [0, n) on `threads` threads, `block` items per
/// piece (`make(i, out)` appends item i's text to `out`), and hands the
/// pieces to `emit(text)` in item order, so the output is the one a single
/// thread would write. The pieces are made a wave (one per thread) at a
/// time, and a wave's pieces are emitted (on this thread, which then joins
/// the work) while the other threads make the next wave, so writing the
/// output overlaps making it. At most 2 × `threads` pieces
/// are held: the memory is 2 × `threads` × `block` items' text, whatever n
/// is. `make` must be safe to run concurrently with itself; `emit` runs on
/// this thread only. Under Emscripten (no threads) everything runs here, in
/// the same order.
template <typename Make, typename Emit>
void makeInOrder(unsigned threads, size_t n, size_t block, const Make &make,
                 const Emit &emit) {
#if defined(__EMSCRIPTEN__)
  threads = 1;
#endif
  threads = std::max(1u, threads);
  block = std::max<size_t>(1, block);
  // Two waves' pieces: the one being made and the one being emitted.
  std::vector<std::string> pieces[2] = {std::vector<std::string>(threads),
                                        std::vector<std::string>(threads)};
  size_t before = 0; // pieces of the previous wave, not emitted yet
  int now = 0;
  const std::thread::id caller = std::this_thread::get_id();
  for (size_t wave = 0; wave < n; wave += block * threads, now ^= 1) {
    std::atomic<unsigned> next{0};
    const size_t inWave = std::min<size_t>(threads, (n - wave + block - 1) / block);
    std::vector<std::string> &made = pieces[now], &previous = pieces[now ^ 1];
    runOnThreads(static_cast<unsigned>(inWave), [&] {
      if (std::this_thread::get_id() == caller)
        for (size_t t = 0; t < before; ++t)
          emit(previous[t]);
      for (unsigned t; (t = next++) < inWave;) {
        std::string &out = made[t];
        out.clear();
        size_t begin = wave + t * block, end = std::min(n, begin + block);
        for (size_t i = begin; i < end; ++i)
          make(i, out);
      }
    });
    before = inWave;
  }
  for (size_t t = 0; t < before; ++t)
    emit(pieces[now ^ 1][t]);
}

} // namespace cachekey

#endif // CACHEKEY_PARALLEL_H
