// engine/include/cachekey/Parallel.h and Json.h's JsonAppender: long
// outputs made on every core and appended piece by piece must be the bytes
// one thread writing the whole document would give.
#include "TestUtil.h"

#include "cachekey/Json.h"
#include "cachekey/Parallel.h"

#include <thread>

using namespace cachekey;

namespace {

/// Item i's text: its number and a few letters, different lengths.
std::string itemText(size_t i) {
  return std::to_string(i) + std::string(i % 5, 'a' + static_cast<char>(i % 26)) + ";";
}

/// dumpJson(value, 2) nested `depth` levels deep, made independently: two
/// more spaces per level after every line break (JSON strings hold none).
std::string reindented(const Json &value, int depth) {
  std::string q = dumpJson(value, 2), out;
  for (char c : q) {
    out += c;
    if (c == '\n')
      out += std::string(static_cast<size_t>(2 * depth), ' ');
  }
  return out;
}

} // namespace

TEST(MakeInOrder, PiecesComeOutInItemOrderWhateverTheThreadsAndBlocks) {
  for (unsigned threads : {1u, 2u, 3u, 8u})
    for (size_t block : {size_t(1), size_t(3), size_t(64)})
      for (size_t n : {size_t(0), size_t(1), size_t(5), size_t(1000)}) {
        std::string serial;
        for (size_t i = 0; i < n; ++i)
          serial += itemText(i);
        std::string got;
        size_t pieces = 0;
        const auto caller = std::this_thread::get_id();
        bool emittedHere = true;
        makeInOrder(
            threads, n, block, [](size_t i, std::string &out) { out += itemText(i); },
            [&](const std::string &piece) {
              got += piece;
              ++pieces;
              emittedHere = emittedHere && std::this_thread::get_id() == caller;
            });
        EXPECT_EQ(got, serial) << threads << " threads, block " << block << ", n " << n;
        EXPECT_EQ(pieces, (n + block - 1) / block) << threads << " " << block << " " << n;
        EXPECT_TRUE(emittedHere);
      }
}

TEST(MakeInOrder, ZeroThreadsOrAZeroBlockStillMakesEverything) {
  std::string got;
  makeInOrder(
      0, 10, 0, [](size_t i, std::string &out) { out += itemText(i); },
      [&](const std::string &piece) { got += piece; });
  std::string serial;
  for (size_t i = 0; i < 10; ++i)
    serial += itemText(i);
  EXPECT_EQ(got, serial);
}

TEST(JsonAppender, NestedValuesAreWhatDumpWritesReindented) {
  Json v = Json::object();
  v["label"] = "jit_f (second)";
  v["list"] = Json::array({1, 2.5, nullptr, true, Json::array(), Json::object()});
  v["nested"] = {{"code", "key_moved"}, {"text", "a \"quoted\" word\tand a tab"}};
  v["bytes"] = std::string("ok \xff\xfe end"); // not UTF-8: U+FFFD, as dumpJson
  for (int depth : {0, 1, 2, 5}) {
    std::string out = "prefix:";
    JsonAppender(out, 2).append(v, depth);
    EXPECT_EQ(out, "prefix:" + reindented(v, depth)) << depth;
  }
  std::string oneLine;
  JsonAppender one(oneLine, -1);
  one.append(v);
  one.append(Json(7));
  EXPECT_EQ(oneLine, dumpJson(v) + "7");
  EXPECT_NE(oneLine.find("\xEF\xBF\xBD"), std::string::npos); // U+FFFD, not refused
}

TEST(WorkerThreads, OnePerCoreAtMostEight) {
  unsigned cores = std::thread::hardware_concurrency();
  unsigned n = workerThreads();
  EXPECT_GE(n, 1u);
  EXPECT_LE(n, 8u);
  if (cores >= 1 && cores <= 8) {
    EXPECT_EQ(n, cores);
  }
}

TEST(SortOnThreads, SameOrderAsStdSortWhateverTheThreads) {
  for (size_t n : {size_t(0), size_t(10), size_t(4095), size_t(4096), size_t(50001)})
    for (unsigned threads : {0u, 1u, 2u, 3u, 8u, 12u}) {
      std::vector<std::string> v;
      for (size_t i = 0; i < n; ++i)
        v.push_back(itemText((i * 7919) % (n + 1)) + std::to_string(i));
      std::vector<std::string> expected = v;
      std::sort(expected.begin(), expected.end());
      sortOnThreads(v.begin(), v.end(), std::less<>(), threads);
      EXPECT_EQ(v, expected) << n << " items, " << threads << " threads";
    }
}
