// Tests of engine/lib/cachedir on directories real JAX wrote
// (fixtures/cache_dirs, README.md there: releases and commands). Every
// expected value is read from what JAX itself wrote or logged beside each
// directory: describe.json (JAX's own decompress_executable +
// extract_executable_and_time on each entry, and each file's st_mtime_ns),
// jax.log ("Writing <module> to persistent compilation cache with key …",
// "… took at least … to compile (3.78s)") and evict.log (JAX's "Evicting
// cache …" lines, in its order). Git keeps no mtimes, so each directory is
// copied to a temporary one and its files get back the mtimes describe.json
// recorded. Changes the tests make themselves (a deleted -atime, a foreign
// file) are labelled.
#include "cachekey/CacheDir.h"
#include "cachekey/CacheDirLookup.h"
#include "PosixCacheDir.h"
#include "cachekey/LogCompare.h"
#include "cachekey/StringExtras.h"

#include "TestUtil.h"

#include <zlib.h>
#include <zstd.h>

#include <cstdio>
#include <filesystem>
#include <memory>
#include <algorithm>
#include <fcntl.h>
#include <map>
#include <regex>
#include <set>
#include <sys/stat.h>
#include <unistd.h>

using namespace cachekey;
using cachekey::test::sourcePath;

namespace {

const std::vector<std::string> kReleases = {"0.4.30", "0.4.35", "0.10.2", "0.12.0.1"};

std::string fixture(const std::string &rel) {
  return sourcePath("fixtures/cache_dirs/" + rel);
}

std::string slurp(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

Json describe(const std::string &rel) {
  return Json::parse(slurp(fixture(rel + "/describe.json")))["files"];
}

/// A fresh copy of fixtures/cache_dirs/<rel>/cache with the recorded mtimes.
class TempCopy {
public:
  explicit TempCopy(const std::string &rel) {
    char tmpl[] = "/tmp/cachedir-test-XXXXXX";
    dir = mkdtemp(tmpl);
    std::string src = fixture(rel + "/cache");
    EXPECT_EQ(std::system(("cp -R '" + src + "/.' '" + dir + "'").c_str()), 0);
    Json files = describe(rel);
    for (auto &[name, row] : files.items()) {
      timespec ts[2];
      int64_t ns = row["mtime_ns"].get<int64_t>();
      ts[0].tv_sec = ts[1].tv_sec = ns / 1000000000;
      ts[0].tv_nsec = ts[1].tv_nsec = ns % 1000000000;
      // A symbolic link gets its own mtime back (describe.json: lstat).
      int flags = row.contains("symlink") ? AT_SYMLINK_NOFOLLOW : 0;
      EXPECT_EQ(utimensat(AT_FDCWD, (dir + "/" + name).c_str(), ts, flags), 0) << name;
    }
  }
  ~TempCopy() { (void)std::system(("rm -rf '" + dir + "'").c_str()); }
  std::string dir;
};

CacheReport analyse(const std::string &dir, const std::string &release = "",
                    std::optional<int64_t> maxSize = {}, uint64_t nextEntry = 0) {
  auto scan = scanCacheDir(dir);
  EXPECT_TRUE(bool(scan)) << (scan ? "" : scan.error().str());
  auto r = analyseCacheDir(std::move(*scan), release, maxSize, nextEntry);
  EXPECT_TRUE(bool(r)) << (r ? "" : r.error().str());
  return *r;
}

/// module -> keys JAX logged writing.
std::map<std::string, std::set<std::string>> writtenKeys(const std::string &log) {
  std::map<std::string, std::set<std::string>> out;
  std::regex re("Writing (\\S+) to persistent compilation cache with key '?([A-Za-z0-9_.]+-[0-9a-f]{64})");
  std::string text = slurp(log);
  for (std::sregex_iterator it(text.begin(), text.end(), re), end; it != end; ++it)
    out[(*it)[1]].insert((*it)[2]);
  return out;
}

const ProgramSummary *program(const CacheReport &r, const std::string &m) {
  for (const auto &p : r.programs)
    if (p.module == m)
      return &p;
  return nullptr;
}

std::vector<std::string> codes(const CacheReport &r) {
  std::vector<std::string> out;
  for (const auto &p : r.problems)
    out.push_back(std::string(problemCodeName(p.code)) + ":" + p.file);
  return out;
}

} // namespace

class RealDirs : public ::testing::TestWithParam<std::tuple<std::string, std::string>> {};

// Entries, sizes, compile seconds and keys per program match what JAX wrote.
TEST_P(RealDirs, EntriesMatchWhatJaxWroteAndLogged) {
  auto [release, variant] = GetParam();
  std::string rel = release + "/" + variant;
  TempCopy copy(rel);
  CacheReport r = analyse(copy.dir);
  Json files = describe(rel);
  EXPECT_TRUE(r.problems.empty()) << ::testing::PrintToString(codes(r));
  // Layout: 0.4.30 names the file by the key, later releases add -cache.
  EXPECT_EQ(r.layout, release == "0.4.30" ? "key" : "key-cache");
  // The keys per module: JAX's own "Writing … with key" lines.
  auto written = writtenKeys(fixture(rel + "/jax.log"));
  ASSERT_EQ(written.size(), r.programs.size());
  // jit_f was called with three input shapes: three keys, ranked first.
  EXPECT_EQ(r.programs[0].module, "jit_f");
  EXPECT_EQ(r.programs[0].entries.size(), 3u);
  size_t entries = 0;
  for (const ProgramSummary &p : r.programs) {
    std::set<std::string> keys;
    uint64_t seconds = 0;
    for (const ProgramEntry &e : p.entries) {
      const CacheFile &f = r.files[e.file];
      keys.insert(std::string(f.key()));
      const Json &row = files.at(f.name);
      EXPECT_EQ(f.size, row["size"].get<uint64_t>()) << f.name;
      ASSERT_TRUE(f.facts.decompressed.has_value()) << f.name; // zstd frame header
      EXPECT_EQ(*f.facts.decompressed, row["decompressed"].get<uint64_t>()) << f.name;
      EXPECT_EQ(e.compileSeconds, row["compile_seconds"].get<uint32_t>()) << f.name;
      seconds += e.compileSeconds;
      std::string atime = std::string(f.key()) + "-atime";
      if (files.contains(atime)) {
        EXPECT_TRUE(e.fromAtime);
        EXPECT_EQ(e.lastAccessNs, files[atime]["atime_ns"].get<int64_t>());
      } else {
        EXPECT_FALSE(e.fromAtime);
        EXPECT_EQ(e.lastAccessNs, row["mtime_ns"].get<int64_t>());
      }
      ++entries;
    }
    EXPECT_EQ(keys, written[p.module]) << p.module;
    EXPECT_EQ(p.compileSeconds, seconds);
  }
  EXPECT_EQ(entries, r.entryCount);
  // jit_slow took more than a second: JAX logged "(N.NNs)" and stored int(N.NN).
  std::smatch m;
  std::string log = slurp(fixture(rel + "/jax.log"));
  ASSERT_TRUE(std::regex_search(log, m, std::regex("'jit_slow' took .* to compile \\(([0-9]+)\\.")));
  const ProgramSummary *slow = program(r, "jit_slow");
  ASSERT_NE(slow, nullptr);
  EXPECT_EQ(slow->entries[0].compileSeconds, std::stoul(m[1]));
  EXPECT_GE(slow->entries[0].compileSeconds, 1u);
  // -atime files: 0.4.31–0.5.0 always, later releases only with a cap.
  bool atimes = release == "0.4.35" || variant == "cap";
  EXPECT_EQ(r.hasAtimes, atimes && release != "0.4.30");
  EXPECT_EQ(r.hasLockfile, variant == "cap");
}

// The summary finding (the report's first line, `summary` in the JSON)
// states what is in the directory. Expected values: the copy's own listing
// (std::filesystem: the names JAX gave its entries, <key>-cache or, in
// 0.4.30, <key>; their sizes as stat gives them; .lockfile; -atime files),
// not the engine's scan.
TEST_P(RealDirs, SummaryFindingStatesTheDirectorysCounts) {
  auto [release, variant] = GetParam();
  TempCopy copy(release + "/" + variant);
  const std::regex key("[A-Za-z0-9_.]+-[0-9a-f]{64}");
  const auto endsWith = [](const std::string &s, const std::string &tail) {
    return s.size() > tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
  };
  size_t entries = 0;
  uint64_t bytes = 0;
  bool lockfile = false, atimes = false;
  for (const auto &e : std::filesystem::directory_iterator(copy.dir)) {
    std::string name = e.path().filename().string();
    if (std::regex_match(endsWith(name, "-cache") ? name.substr(0, name.size() - 6) : name, key)) {
      ++entries;
      bytes += std::filesystem::file_size(e.path());
    }
    lockfile = lockfile || name == ".lockfile";
    atimes = atimes || endsWith(name, "-atime");
  }
  ASSERT_GT(entries, 1u);
  CacheReport r = analyse(copy.dir);
  Json summary = cacheReportToJson(r)["summary"];
  EXPECT_EQ(summary["code"], "cache_summary");
  EXPECT_EQ(summary["dir"].get<std::string>(), copy.dir);
  EXPECT_EQ(summary["entries"].get<size_t>(), entries);
  EXPECT_EQ(summary["entries_size"].get<uint64_t>(), bytes);
  EXPECT_EQ(summary["layout"], release == "0.4.30" ? "key" : "key-cache");
  EXPECT_EQ(summary["lockfile"].get<bool>(), lockfile);
  EXPECT_EQ(summary["atime_files"].get<bool>(), atimes);
  // Its words state those counts, and are the text report's first line.
  std::string words = copy.dir + ": " + std::to_string(entries) + " entries, " +
                      std::to_string(bytes) + " bytes, layout " +
                      (release == "0.4.30" ? "key" : "key-cache") +
                      (lockfile ? ", .lockfile (a cap was set)" : "") +
                      (atimes ? ", -atime files" : "");
  EXPECT_EQ(summary["text"].get<std::string>(), words);
  std::ostringstream text;
  writeCacheReport(text, r);
  EXPECT_EQ(text.str().substr(0, text.str().find('\n')), words);
}

// The same reading with every entry decompressed entirely.
TEST_P(RealDirs, WholeDecodeAgrees) {
  auto [release, variant] = GetParam();
  std::string rel = release + "/" + variant;
  TempCopy copy(rel);
  EntryLimits whole;
  whole.whole = true;
  auto scan = scanCacheDir(copy.dir, whole);
  ASSERT_TRUE(bool(scan));
  Json files = describe(rel);
  for (const CacheFile &f : scan->files) {
    if (f.kind != FileKind::Entry)
      continue;
    EXPECT_TRUE(f.facts.wholeDecoded) << f.name;
    EXPECT_EQ(f.facts.decompressed.value_or(0), files.at(f.name)["decompressed"].get<uint64_t>());
  }
}

// --max-size: the files JAX's own eviction removed (evict.log), in its order,
// from the directory as it was before (cap/). JAX evicts to cap − the new
// entry's size (lru_cache.py, target_size).
TEST_P(RealDirs, EvictionIsJaxsOrder) {
  auto [release, variant] = GetParam();
  if (variant != "cap")
    GTEST_SKIP() << "the eviction ran on cap/";
  TempCopy copy(release + "/cap");
  // JAX evicts to cap − the new entry's size; the target it used is in its
  // log ("target cache size N bytes", lru_cache.py _evict_if_needed).
  std::vector<std::string> expected;
  std::string log = slurp(fixture(release + "/evict.log"));
  std::smatch tm;
  ASSERT_TRUE(std::regex_search(log, tm, std::regex("target cache size ([0-9]+) bytes")));
  uint64_t target = std::stoull(tm[1]);
  std::regex re("Evicting cache (?:entry '([^']+)'|file (\\S+):)");
  for (std::sregex_iterator it(log.begin(), log.end(), re), end; it != end; ++it)
    expected.push_back((*it)[1].matched ? std::string((*it)[1]) + "-cache" : std::string((*it)[2]));
  ASSERT_FALSE(expected.empty());
  CacheReport r = analyse(copy.dir, release, target);
  ASSERT_TRUE(r.eviction);
  EXPECT_FALSE(r.eviction->raises);
  std::vector<std::string> got;
  for (const PlannedEviction &e : r.eviction->evicted)
    got.push_back(e.file);
  EXPECT_EQ(got, expected);
  // The loop's edges: room for everything evicts nothing; one byte less
  // evicts JAX's first choice only (a file of size > 0 frees enough), or,
  // when that is the empty .lockfile (0.4.30), up to its next choice.
  uint64_t counted = r.eviction->countedSize;
  EXPECT_TRUE(analyse(copy.dir, release, counted).eviction->evicted.empty());
  auto less = analyse(copy.dir, release, counted - 1).eviction->evicted;
  ASSERT_FALSE(less.empty());
  EXPECT_EQ(less.back().file, expected[less.size() - 1]);
  EXPECT_EQ(less.size(), expected[0] == ".lockfile" ? 2u : 1u);
  // Without --release the rule comes from the layout and gives the same order.
  CacheReport inferred = analyse(copy.dir, "", target);
  std::vector<std::string> got2;
  for (const PlannedEviction &e : inferred.eviction->evicted)
    got2.push_back(e.file);
  EXPECT_EQ(got2, expected);
  // Asked as JAX's put is made: the cap it ran under (evict.json) and the
  // new entry's size (the cap less the target it logged).
  Json meta = Json::parse(slurp(fixture(release + "/evict.json")));
  int64_t cap = meta["cap"].get<int64_t>();
  ASSERT_GE(cap, static_cast<int64_t>(target));
  CacheReport put = analyse(copy.dir, release, cap, static_cast<uint64_t>(cap) - target);
  ASSERT_TRUE(put.eviction);
  EXPECT_EQ(put.eviction->maxSize, target);
  std::vector<std::string> got3;
  for (const PlannedEviction &e : put.eviction->evicted)
    got3.push_back(e.file);
  EXPECT_EQ(got3, expected);
  // An entry larger than the cap is refused (lru_cache.py put), and nothing
  // is evicted.
  CacheReport big = analyse(copy.dir, release, cap, static_cast<uint64_t>(cap) + 1);
  ASSERT_TRUE(big.eviction);
  EXPECT_TRUE(big.eviction->writesRefused);
  EXPECT_TRUE(big.eviction->evicted.empty());
}

INSTANTIATE_TEST_SUITE_P(
    Releases, RealDirs,
    ::testing::Combine(::testing::ValuesIn(kReleases), ::testing::Values(std::string("nocap"), std::string("cap"))),
    [](const auto &info) {
      std::string n = std::get<0>(info.param) + "_" + std::get<1>(info.param);
      for (char &c : n)
        if (c == '.')
          c = '_';
      return n;
    });

// A write cut short (the fixture truncated one real entry to half its
// length, truncated.txt): JAX's own reader raised on it (describe.json
// "error", and the warning in jax.log / stderr.txt); the reader calls it
// damaged and truncated, and only it.
// The page's path (a folder the browser lists, scanListedFiles) gives the
// same report as the CLI's (scanCacheDir) on every real directory: the
// independent computation is the CLI's own scan of the same files.
TEST_P(RealDirs, ListedFilesGiveTheSameReport) {
  auto [release, variant] = GetParam();
  TempCopy copy(release + "/" + variant);
  struct Memory : ByteSource {
    std::string bytes;
    uint64_t size() const override { return bytes.size(); }
    std::string read(uint64_t offset, size_t n) const override {
      return offset >= bytes.size() ? std::string() : bytes.substr(offset, n);
    }
  };
  std::vector<std::unique_ptr<Memory>> contents;
  std::vector<ListedFile> listed;
  for (const auto &e : std::filesystem::directory_iterator(copy.dir)) {
    ListedFile l;
    l.name = e.path().filename().string();
    struct stat st {};
    ASSERT_EQ(lstat(e.path().c_str(), &st), 0);
    l.mtimeNs = int64_t(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
    l.size = static_cast<uint64_t>(st.st_size);
    if (S_ISDIR(st.st_mode)) {
      l.type = ListedFile::Type::Directory;
    } else {
      contents.push_back(std::make_unique<Memory>());
      contents.back()->bytes = slurp(e.path().string());
      l.bytes = contents.back().get();
    }
    listed.push_back(std::move(l));
  }
  std::reverse(listed.begin(), listed.end()); // any order
  auto fromList = analyseCacheDir(scanListedFiles(copy.dir, listed), "", 4000);
  ASSERT_TRUE(bool(fromList)) << fromList.error().str();
  CacheReport fromDisk = analyse(copy.dir, "", 4000);
  EXPECT_EQ(cacheReportToJson(*fromList).dump(1), cacheReportToJson(fromDisk).dump(1));
}

TEST(CacheDirDamaged, TruncatedEntryIsDamaged) {
  for (std::string release : {"0.12.0.1", "0.4.30"}) {
    std::string rel = release + "/damaged";
    TempCopy copy(rel);
    std::string victim = slurp(fixture(rel + "/truncated.txt"));
    victim = victim.substr(0, victim.find(' '));
    Json files = describe(rel);
    ASSERT_TRUE(files.at(victim).contains("error")) << "JAX read it";
    CacheReport r = analyse(copy.dir);
    ASSERT_EQ(r.problems.size(), 1u) << ::testing::PrintToString(codes(r));
    EXPECT_EQ(r.problems[0].code, ProblemCode::DamagedEntry);
    EXPECT_EQ(r.problems[0].file, victim);
    EXPECT_EQ(r.problems[0].status, EntryStatus::Truncated);
    // Every other entry JAX could read, the reader reads the same.
    for (const auto &p : r.programs)
      for (const auto &e : p.entries) {
        const std::string &name = r.files[e.file].name;
        if (name != victim) {
          EXPECT_EQ(e.compileSeconds, files.at(name)["compile_seconds"].get<uint32_t>());
        }
      }
  }
}

// jax 0.12 headers: the three jit_f entries were written for inputs
// f32[64,8], f32[128,8], f32[192,8]; f sums a 64×64 (128², 192²) product over
// axis 0, so its outputs are f32[64], f32[128], f32[192] (the program in
// tools/cache_dir_fixtures.py). Earlier releases store no header.
TEST(CacheDirHints, IfrtOutputShapesIn012AndNoHeaderBefore) {
  TempCopy copy("0.12.0.1/nocap");
  CacheReport r = analyse(copy.dir);
  ASSERT_EQ(r.hints.size(), 1u);
  EXPECT_EQ(r.hints[0].code, HintCode::OutputShapesDiffer);
  std::set<std::string> shapes(r.hints[0].shapes.begin(), r.hints[0].shapes.end());
  EXPECT_EQ(shapes, (std::set<std::string>{"f32[64]", "f32[128]", "f32[192]"}));
  EXPECT_NE(hintText(r.hints[0]).find("output shapes"), std::string::npos);
  const ProgramSummary *g = program(r, "jit_g");
  ASSERT_NE(g, nullptr);
  const EntryFacts &gf = r.files[g->entries[0].file].facts;
  EXPECT_EQ(gf.outputs, "f32[16]"); // g(x) = 2x + 1 on f32[16]
  EXPECT_EQ(r.hints[0].entries, 3u);
  // Which releases store a header, seen independently in the bytes: the
  // test decompresses each jit_f entry whole (ZSTD_decompress) and looks for
  // the runtime name "pjrt_ifrt" (field 2 of the header) in its first bytes.
  // In these directories 0.4.30 and 0.4.35 have none; 0.10.2 and 0.12.0.1 do.
  for (std::string release : {"0.4.30", "0.4.35", "0.10.2"}) {
    TempCopy old(release + "/nocap");
    CacheReport o = analyse(old.dir);
    ASSERT_EQ(o.hints.size(), 1u) << release;
    const CacheFile &f = o.files[o.programs[0].entries[0].file];
    std::string z = slurp(old.dir + "/" + f.name);
    std::string plain(ZSTD_getFrameContentSize(z.data(), z.size()), '\0');
    plain.resize(ZSTD_decompress(plain.data(), plain.size(), z.data(), z.size()));
    bool header = plain.substr(0, 32).find("pjrt_ifrt") != std::string::npos;
    EXPECT_EQ(o.hints[0].code, header ? HintCode::OutputShapesDiffer : HintCode::NoHeader) << release;
    EXPECT_EQ(f.facts.hasIfrt, header) << release;
    EXPECT_EQ(header, release == "0.10.2") << release;
  }
}

// 0.12.0.1/mixed: nocap/ plus jit_h written by a process without the
// zstandard package (zlib, 78 9c; README). describe.json is JAX read by a
// process with zstandard (it fails on jit_h), describe-zlib.json by one
// without (it fails on every zstd entry): the harm the finding names.
TEST(CacheDirProblems, MixedCompressionFromARealZlibRun) {
  TempCopy copy("0.12.0.1/mixed");
  Json zstdReader = describe("0.12.0.1/mixed");
  Json zlibReader = Json::parse(slurp(fixture("0.12.0.1/mixed/describe-zlib.json")))["files"];
  CacheReport r = analyse(copy.dir);
  ASSERT_EQ(r.problems.size(), 1u) << ::testing::PrintToString(codes(r));
  EXPECT_EQ(r.problems[0].code, ProblemCode::MixedCompression);
  EXPECT_EQ(r.problems[0].countZlib, 1u);
  EXPECT_EQ(r.problems[0].countZstd, 5u);
  EXPECT_EQ(r.problems[0].file.rfind("jit_h-", 0), 0u);
  const ProgramSummary *h = program(r, "jit_h");
  ASSERT_NE(h, nullptr);
  const CacheFile &hf = r.files[h->entries[0].file];
  EXPECT_TRUE(zstdReader.at(hf.name).contains("error"));
  EXPECT_EQ(hf.facts.codec, Codec::Zlib);
  // A small zlib entry fits in the head: decoded whole, its size known.
  EXPECT_EQ(hf.facts.decompressed.value_or(0), zlibReader.at(hf.name)["decompressed"].get<uint64_t>());
  EXPECT_EQ(hf.facts.compileSeconds, zlibReader.at(hf.name)["compile_seconds"].get<uint32_t>());
  EXPECT_EQ(slurp(copy.dir + "/" + hf.name).substr(0, 2), "\x78\x9c");
  for (auto &[name, row] : zlibReader.items()) {
    if (name != hf.name && row.contains("size") && name.find("-cache") != std::string::npos) {
      EXPECT_TRUE(row.contains("error")) << name;
    }
  }
}

// A directory used by jax 0.4.30 and then, after an upgrade, by 0.12.0.1,
// both with a cap (fixtures/cache_dirs/upgrade/cap,
// tools/cache_dir_upgrade_fixture.sh). Under each release's rule the
// programs are the keys that release logged writing, and every file the
// other wrote is an other_layout_entry of its size: never counted by
// 0.12.0.1's cap (it globs *-cache), counted by 0.4.30's (every file).
TEST(CacheDirProblems, UpgradedDirectoryKeepsEachReleasesLayoutApart) {
  TempCopy copy("upgrade/cap");
  Json files = describe("upgrade/cap");
  const auto oldKeys = writtenKeys(fixture("upgrade/cap/jax-0.4.30.log"));
  const auto newKeys = writtenKeys(fixture("upgrade/cap/jax-0.12.0.1.log"));
  ASSERT_FALSE(oldKeys.empty());
  ASSERT_FALSE(newKeys.empty());
  for (const std::string release : {"", "0.4.30"}) {
    SCOPED_TRACE("release '" + release + "'");
    const bool old = release == "0.4.30";
    CacheReport r = analyse(copy.dir, release, int64_t(50000000));
    EXPECT_EQ(r.layout, "mixed");
    std::map<std::string, std::set<std::string>> read;
    size_t entries = 0;
    for (const auto &p : r.programs)
      for (const auto &e : p.entries) {
        read[p.module].insert(std::string(r.files[e.file].key()));
        ++entries;
      }
    EXPECT_EQ(read, old ? oldKeys : newKeys);
    EXPECT_EQ(r.entryCount, entries);
    std::set<std::string> expected, got;
    for (const auto &[module, keys] : old ? newKeys : oldKeys)
      for (const auto &k : keys)
        expected.insert(old ? k + "-cache" : k);
    for (const auto &p : r.problems) {
      ASSERT_EQ(p.code, ProblemCode::OtherLayoutEntry) << p.file;
      got.insert(p.file);
      EXPECT_EQ(p.size, files.at(p.file)["size"].get<uint64_t>()) << p.file;
      EXPECT_EQ(p.countedByCap, old) << p.file;
    }
    EXPECT_EQ(got, expected);
    // 0.12.0.1's cap counts its own -cache files only, not 0.4.30's.
    ASSERT_TRUE(r.eviction.has_value());
    if (!old) {
      uint64_t counted = 0;
      for (auto &[name, row] : files.items())
        if (name.size() > 6 && name.compare(name.size() - 6, 6, "-cache") == 0)
          counted += row["size"].get<uint64_t>();
      EXPECT_EQ(r.eviction->countedSize, counted);
    }
  }
  // Back under 0.4.30 (evict-0.4.30.log, a copy of this directory): its
  // pass ranked every file by mtime, an -atime file of 0.12.0.1's among
  // them, and evicted them in that order down to the target it logged.
  std::string log = slurp(fixture("upgrade/cap/evict-0.4.30.log"));
  std::smatch tm;
  ASSERT_TRUE(std::regex_search(log, tm, std::regex("target cache size ([0-9]+) bytes")));
  std::vector<std::string> expected, got;
  std::regex re("Evicting cache file (\\S+):");
  for (std::sregex_iterator it(log.begin(), log.end(), re), end; it != end; ++it)
    expected.push_back((*it)[1]);
  ASSERT_TRUE(std::any_of(expected.begin(), expected.end(), [](const std::string &f) {
    return f.size() > 6 && f.compare(f.size() - 6, 6, "-atime") == 0;
  }));
  CacheReport back = analyse(copy.dir, "0.4.30", std::stoll(tm[1]));
  ASSERT_TRUE(back.eviction.has_value());
  for (const PlannedEviction &e : back.eviction->evicted)
    got.push_back(e.file);
  EXPECT_EQ(got, expected);
}

// Changes the test makes to a real capped directory (labelled): a -cache
// without its -atime, an -atime without its -cache, a _temp_ leftover, a
// foreign file, a symlink out of the directory.
TEST(CacheDirProblems, OrphansLeftoversForeignAndSymlinks) {
  TempCopy copy("0.12.0.1/cap");
  Json files = describe("0.12.0.1/cap");
  std::string f128;
  for (auto &[name, row] : files.items())
    if (name.rfind("jit_f-aa98", 0) == 0 && name.size() > 6 && name.substr(name.size() - 6) == "-cache")
      f128 = name.substr(0, name.size() - 6);
  ASSERT_FALSE(f128.empty());
  ASSERT_EQ(unlink((copy.dir + "/" + f128 + "-atime").c_str()), 0);
  std::string ghost = "jit_q-" + std::string(64, 'a');
  { std::ofstream(copy.dir + "/" + ghost + "-atime") << "12345678"; }
  { std::ofstream(copy.dir + "/_temp_" + ghost) << "partial"; }
  { std::ofstream(copy.dir + "/notes.txt") << "mine"; }
  ASSERT_EQ(symlink("/etc/passwd", (copy.dir + "/jit_z-" + std::string(64, 'b') + "-cache").c_str()), 0);
  CacheReport r = analyse(copy.dir, "0.12.0.1");
  std::set<std::string> got;
  for (const auto &c : codes(r))
    got.insert(c);
  EXPECT_EQ(got, (std::set<std::string>{
                     "orphan_cache:" + f128 + "-cache",
                     "orphan_atime:" + ghost + "-atime",
                     "temp_leftover:_temp_" + ghost,
                     "foreign_file:notes.txt",
                     "symlink:jit_z-" + std::string(64, 'b') + "-cache",
                 }));
  // The symlink is not an entry: nothing of /etc/passwd was read.
  EXPECT_EQ(program(r, "jit_z"), nullptr);
  // 0.11.2 on: the orphan ranks as time 0, first to go (lru_cache.py 190–196).
  CacheReport z = analyse(copy.dir, "0.12.0.1", 1);
  ASSERT_TRUE(z.eviction && !z.eviction->evicted.empty());
  EXPECT_EQ(z.eviction->evicted[0].file, f128 + "-cache");
  EXPECT_EQ(z.eviction->evicted[0].rankNs, 0);
  // 0.10.2: the pass reads the missing -atime and raises (lru_cache.py 188).
  CacheReport s = analyse(copy.dir, "0.10.2", 1);
  ASSERT_TRUE(s.eviction);
  EXPECT_TRUE(s.eviction->raises);
  EXPECT_EQ(s.eviction->raisingFile, f128 + "-cache");
  for (const auto &p : s.problems) {
    if (p.code == ProblemCode::OrphanCache) {
      EXPECT_TRUE(p.strictRule);
    }
  }
}

TEST(CacheDirProblems, UnreadableFileIsNamedAndTheScanGoesOn) {
  if (geteuid() == 0)
    GTEST_SKIP() << "root reads files whatever their mode";
  TempCopy copy("0.12.0.1/nocap");
  Json files = describe("0.12.0.1/nocap");
  std::string victim = files.begin().key();
  ASSERT_EQ(chmod((copy.dir + "/" + victim).c_str(), 0), 0);
  CacheReport r = analyse(copy.dir);
  ASSERT_FALSE(r.problems.empty());
  EXPECT_EQ(r.problems[0].code, ProblemCode::Unreadable);
  EXPECT_EQ(r.problems[0].file, victim);
  EXPECT_EQ(r.entryCount, files.size());
}

TEST(CacheDirErrors, MissingDirectoryIsAnIoErrorNamingIt) {
  auto s = scanCacheDir("/nonexistent/cache-dir");
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().code, ErrorCode::Io);
  EXPECT_EQ(s.error().path, "/nonexistent/cache-dir");
  auto rule = evictionRuleFor("0.4.2x");
  ASSERT_FALSE(rule);
  EXPECT_EQ(rule.error().path, "--release");
}

// A hostile entry: 256 MiB of zeros in a few KiB of zstd and zlib. The head
// read produces at most headBytes; a whole read stops at its limit.
TEST(CacheEntry, DecompressionIsCapped) {
  std::string zeros(size_t(256) << 20, '\0');
  std::string z(ZSTD_compressBound(zeros.size()), '\0');
  z.resize(ZSTD_compress(z.data(), z.size(), zeros.data(), zeros.size(), 1));
  uLongf zl = compressBound(static_cast<uLong>(zeros.size()));
  std::string d(zl, '\0');
  ASSERT_EQ(compress(reinterpret_cast<Bytef *>(d.data()), &zl,
                     reinterpret_cast<const Bytef *>(zeros.data()), zeros.size()), Z_OK);
  d.resize(zl);
  zeros.clear();
  zeros.shrink_to_fit();
  for (const std::string *bytes : {&z, &d}) {
    EntryFacts head = readEntryBytes(*bytes);
    EXPECT_EQ(head.status, EntryStatus::Ok);
    EXPECT_FALSE(head.wholeDecoded);
    EntryLimits lim;
    lim.whole = true;
    lim.wholeLimit = 1 << 20;
    EntryFacts whole = readEntryBytes(*bytes, lim);
    EXPECT_EQ(whole.status, EntryStatus::Corrupt);
    EXPECT_NE(whole.detail.find("more than"), std::string::npos);
  }
  EXPECT_EQ(readEntryBytes(z).codec, Codec::Zstd);
  EXPECT_EQ(readEntryBytes(d).codec, Codec::Zlib);
  EXPECT_EQ(readEntryBytes("").status, EntryStatus::TooShort);
  EXPECT_EQ(readEntryBytes("hello, world").status, EntryStatus::NotCompressed);
}

// A zlib entry cut short (the test compresses 4 + 100 bytes and keeps half).
TEST(CacheEntry, TruncatedZlibIsTruncated) {
  std::string plain = std::string("\x00\x00\x00\x07", 4) + std::string(100, 'x');
  uLongf n = compressBound(static_cast<uLong>(plain.size()));
  std::string c(n, '\0');
  ASSERT_EQ(compress(reinterpret_cast<Bytef *>(c.data()), &n,
                     reinterpret_cast<const Bytef *>(plain.data()), plain.size()), Z_OK);
  c.resize(n);
  EntryFacts ok = readEntryBytes(c);
  EXPECT_EQ(ok.status, EntryStatus::Ok);
  EXPECT_EQ(ok.compileSeconds, 7u); // big-endian 00 00 00 07
  EXPECT_EQ(ok.decompressed.value_or(0), plain.size());
  EXPECT_EQ(readEntryBytes(c.substr(0, c.size() / 2)).status, EntryStatus::Truncated);
}

// The streamed JSON (what the CLI writes) is the tree cacheReportToJson
// builds, and every finding in it carries its code and its text.
TEST(CacheDirJson, StreamedEqualsTreeAndFindingsCarryCodeAndText) {
  TempCopy copy("0.4.30/damaged");
  CacheReport r = analyse(copy.dir, "", 30000);
  std::ostringstream out;
  writeCacheReportJson(out, r);
  Json streamed = Json::parse(out.str());
  EXPECT_EQ(streamed, cacheReportToJson(r));
  ASSERT_FALSE(streamed["problems"].empty());
  for (const char *list : {"problems", "hints", "programs"})
    for (const Json &f : streamed[list]) {
      EXPECT_TRUE(f.contains("code")) << list;
      EXPECT_FALSE(f["text"].get<std::string>().empty()) << list;
    }
  EXPECT_EQ(streamed["eviction"]["evicted"].size(), r.eviction->evicted.size());
  EXPECT_FALSE(streamed["eviction"]["evicted"].empty());
}

// The streamed --json writes each entry and eviction itself (not through a
// tree): its bytes must be the tree's, dumped on one line, for names that
// need escaping (a quote, a backslash, a newline, UTF-8, bytes that are not
// UTF-8) as for plain ones.
TEST(CacheDirJson, StreamedBytesAreTheTreesForAnyName) {
  TempCopy copy("0.12.0.1/cap");
  std::string entry;
  for (const auto &e : std::filesystem::directory_iterator(copy.dir))
    if (e.path().filename().string().rfind("jit_f-", 0) == 0 &&
        e.path().filename().string().size() > 6 &&
        e.path().string().substr(e.path().string().size() - 6) == "-cache")
      entry = slurp(e.path().string());
  ASSERT_FALSE(entry.empty());
  const std::string hex(64, 'a');
  int k = 0;
  for (std::string module : {"jit_\"q", "jit_\\b", "jit_\nn", "jit_\xc3\xa9", "jit_\xff\xfe", "jit_\x7f"}) {
    std::string name = module + "-" + hex.substr(0, 63) + char('0' + k++) + "-cache";
    std::ofstream(copy.dir + "/" + name, std::ios::binary) << entry;
  }
  for (int64_t cap : {int64_t(0), int64_t(4000), int64_t(1) << 40}) {
    CacheReport r = analyse(copy.dir, "", cap);
    std::ostringstream out;
    writeCacheReportJson(out, r);
    EXPECT_EQ(out.str(), dumpJson(cacheReportToJson(r), -1)) << cap;
  }
}

// compare-logs … --cache DIR: fixtures/cache_dirs/<release>/lookup, written
// by tools/cache_dir_lookup_fixture.sh with real JAX. run1.log: step
// "first" on an empty directory; then the change the script made: jit_g's
// entry cut to half its length (truncated.txt); run2.log: step "lookup" with
// jax_persistent_cache_min_compile_time_secs=1. Every expectation is read
// from run2.log (the MISS lines and what JAX logged about each write),
// truncated.txt and describe.json (JAX's own reading of each file after
// run 2).
class RealLookup : public ::testing::TestWithParam<std::string> {};

TEST_P(RealLookup, EachMissedKeyOfTheLastRunIsFoundAbsentOrDamaged) {
  std::string rel = GetParam() + "/lookup";
  std::string run1 = slurp(fixture(rel + "/run1.log")), run2 = slurp(fixture(rel + "/run2.log"));
  auto c = compareLogs(run1, run2, "run1.log", "run2.log");
  ASSERT_TRUE(bool(c)) << c.error().str();
  TempCopy copy(rel);
  CacheReport r = analyse(copy.dir);
  CacheLookup l = lookupMissedKeys(r, c->logs[1]);

  // What run2.log says: the misses in order, the writes and the not-writes.
  std::vector<std::pair<std::string, std::string>> misses; // module, key
  std::regex miss("PERSISTENT COMPILATION CACHE MISS for '([A-Za-z0-9_]+)' with key '([^']+)'");
  for (std::sregex_iterator it(run2.begin(), run2.end(), miss), end; it != end; ++it)
    misses.emplace_back((*it)[1], (*it)[2]);
  ASSERT_EQ(misses.size(), 3u); // jit_f on f32[192,8], jit_g, jit_slow on f32[96]
  std::map<std::string, std::set<std::string>> written = writtenKeys(fixture(rel + "/run2.log"));
  std::string damagedFile = slurp(fixture(rel + "/truncated.txt"));
  damagedFile = damagedFile.substr(0, damagedFile.find(' '));
  Json files = describe(rel);
  std::smatch dirLine;
  ASSERT_TRUE(std::regex_search(run2, dirLine, std::regex("Initialized persistent compilation cache at (\\S+)")));

  EXPECT_EQ(l.run, "run2.log");
  EXPECT_EQ(l.loggedDirs, std::vector<std::string>{dirLine[1]});
  EXPECT_EQ(l.dirMatch, DirMatch::Other); // the copy is not the directory JAX used
  EXPECT_EQ(l.missedWithoutKey, 0u);
  ASSERT_EQ(l.keys.size(), misses.size());
  for (size_t i = 0; i < misses.size(); ++i) {
    const auto &[module, key] = misses[i];
    const KeyLookup &k = l.keys[i];
    SCOPED_TRACE(key);
    EXPECT_EQ(k.key.key, key);
    EXPECT_EQ(k.key.digest, key.substr(key.size() - 64));
    EXPECT_EQ(k.key.label, module);
    std::string file = key + "-cache";
    bool wrote = written[module].count(key) > 0;
    EXPECT_EQ(k.key.write == LoggedWrite::Written, wrote);
    if (file == damagedFile) {
      // The entry the script cut: JAX's own reader raises on it.
      ASSERT_TRUE(files.contains(file));
      EXPECT_TRUE(files[file].contains("error")) << files[file].dump();
      EXPECT_EQ(k.code, LookupCode::Damaged);
      EXPECT_EQ(k.status, EntryStatus::Truncated);
      EXPECT_EQ(k.file, file);
      EXPECT_EQ(k.size, files[file]["size"].get<uint64_t>());
      EXPECT_EQ(k.key.write, LoggedWrite::NotWritten); // "Not writing … took < 1.00 seconds"
    } else if (wrote) {
      ASSERT_TRUE(files.contains(file));
      EXPECT_EQ(k.code, LookupCode::Present);
      EXPECT_EQ(k.file, file);
      EXPECT_EQ(k.size, files[file]["size"].get<uint64_t>());
      EXPECT_EQ(k.compileSeconds, files[file]["compile_seconds"].get<uint32_t>());
    } else {
      // Not written by run 2, and JAX's directory holds no such file.
      EXPECT_FALSE(files.contains(file));
      EXPECT_EQ(k.code, LookupCode::Absent);
      EXPECT_EQ(k.key.write, LoggedWrite::NotWritten);
      size_t sameModule = 0;
      for (auto &[name, row] : files.items())
        sameModule += name.rfind(module + "-", 0) == 0 && name.size() == module.size() + 71 &&
                      name.substr(name.size() - 6) == "-cache";
      EXPECT_EQ(k.otherEntries, sameModule);
      EXPECT_GT(k.otherEntries, 0u); // run 1 wrote jit_f twice
    }
  }
  // Each finding's JSON carries its code, its fields and its text.
  Json j = cacheLookupToJson(l);
  ASSERT_EQ(j["keys"].size(), misses.size());
  for (size_t i = 0; i < misses.size(); ++i) {
    EXPECT_EQ(j["keys"][i]["code"], lookupCodeName(l.keys[i].code));
    EXPECT_EQ(j["keys"][i]["key"], misses[i].second);
    EXPECT_EQ(j["keys"][i]["text"], keyLookupText(l.keys[i], l));
  }
  EXPECT_EQ(j["dir_match"]["code"], "other");
}

INSTANTIATE_TEST_SUITE_P(Releases, RealLookup, ::testing::Values("0.10.2", "0.12.0.1"));

// The directory the log names, reached by another spelling (a trailing
// slash, a symbolic link the test made) is the same directory; another is
// not; no "Initialized … at" line is not_logged.
TEST(CacheDirLookup, LoggedDirectoryMatchesByInode) {
  TempCopy copy("0.12.0.1/lookup");
  std::string link = copy.dir + "-link";
  ASSERT_EQ(symlink(copy.dir.c_str(), link.c_str()), 0);
  EXPECT_EQ(matchLoggedDir(copy.dir, {copy.dir + "/"}), DirMatch::Same);
  EXPECT_EQ(matchLoggedDir(link, {copy.dir}), DirMatch::Same);
  EXPECT_EQ(matchLoggedDir(copy.dir, {"/nonexistent/cache"}), DirMatch::Other);
  EXPECT_EQ(matchLoggedDir(copy.dir, {}), DirMatch::NotLogged);
  unlink(link.c_str());
}

// Keys given by digest only (a log with the key trace but no hit/miss line)
// match whatever module; an -atime alone, a _temp_ leftover and a symbolic
// link where the entry would be are told apart (files the test made, named
// by a real key of run2.log).
TEST(CacheDirLookup, AtimeTempAndSymlinkAreToldApart) {
  TempCopy copy("0.12.0.1/lookup");
  std::string run2 = slurp(fixture("0.12.0.1/lookup/run2.log"));
  std::smatch m;
  ASSERT_TRUE(std::regex_search(run2, m, std::regex("MISS for 'jit_f' with key '(jit_f-([0-9a-f]{64}))'")));
  std::string key = m[1], digest = m[2];
  std::string fake1 = "jit_q-" + std::string(64, 'a'), fake2 = "jit_q-" + std::string(64, 'b');
  std::ofstream(copy.dir + "/" + fake1 + "-atime") << "12345678";
  std::ofstream(copy.dir + "/_temp_" + fake2) << "half";
  ASSERT_EQ(symlink("/nonexistent", (copy.dir + "/" + key + "-cache").c_str()), 0);
  CacheReport r = analyse(copy.dir);
  std::vector<LookupKey> keys(4);
  keys[0].label = "jit_f", keys[0].key = key, keys[0].digest = digest;
  keys[1].label = "by digest", keys[1].digest = digest;
  keys[2].label = "jit_q", keys[2].key = fake1, keys[2].digest = std::string(64, 'a');
  keys[3].label = "jit_q", keys[3].key = fake2, keys[3].digest = std::string(64, 'b');
  CacheLookup l = lookupKeys(r, keys);
  ASSERT_EQ(l.keys.size(), 4u);
  EXPECT_EQ(l.keys[0].code, LookupCode::Symlink);
  EXPECT_EQ(l.keys[0].file, key + "-cache");
  EXPECT_EQ(l.keys[1].code, LookupCode::Symlink);
  EXPECT_EQ(l.keys[2].code, LookupCode::AtimeOnly);
  EXPECT_EQ(l.keys[2].file, fake1 + "-atime");
  EXPECT_EQ(l.keys[3].code, LookupCode::TempOnly);
  EXPECT_EQ(l.keys[3].size, 4u);
  for (const KeyLookup &k : l.keys)
    EXPECT_FALSE(keyLookupText(k, l).empty());
}

// A symbolic link named like an entry, and what real JAX's capped put did
// with it: fixtures/cache_dirs/<release>/symlink (tools/cache_dir_symlink_fixture.sh:
// step "first" with a cap, then the link the script added, then step "third"
// with a cap). Expectations: stderr.txt (JAX's "Error writing persistent
// compilation cache entry … FileNotFoundError" naming the file it failed
// on), run.log (its "Evicting cache entry" lines with the size and target
// it used), symlink.json (the cap and the entry the live link points to).
namespace {

std::string linkName(const Json &files) {
  for (auto &[name, row] : files.items())
    if (row.contains("symlink"))
      return name;
  return "";
}

const CacheProblem *problemOf(const CacheReport &r, ProblemCode code) {
  for (const CacheProblem &p : r.problems)
    if (p.code == code)
      return &p;
  return nullptr;
}

} // namespace

class RealSymlink : public ::testing::TestWithParam<std::string> {};

TEST_P(RealSymlink, DanglingCacheLinkMakesEveryCappedWriteRaise) {
  std::string rel = GetParam() + "/symlink/dangling";
  TempCopy copy(rel);
  std::string link = linkName(describe(rel));
  ASSERT_FALSE(link.empty());
  std::string stderrText = slurp(fixture(rel + "/stderr.txt"));
  // What JAX did: the write failed on the link, and jit_h was not written.
  ASSERT_NE(stderrText.find("Error writing persistent compilation cache entry for 'jit_h': "
                            "FileNotFoundError"), std::string::npos);
  ASSERT_NE(stderrText.find(link + "'"), std::string::npos);
  Json after = describe(rel);
  for (auto &[name, row] : after.items())
    EXPECT_NE(name.rfind("jit_h-", 0), 0u) << name;
  Json cap = Json::parse(slurp(fixture(GetParam() + "/symlink/symlink.json")));
  int64_t target = cap["cap"].get<int64_t>() - cap["new_entry_size"].get<int64_t>();
  CacheReport r = analyse(copy.dir, GetParam(), target);
  ASSERT_TRUE(r.eviction);
  EXPECT_TRUE(r.eviction->raises);
  EXPECT_EQ(r.eviction->raisingFile, link);
  EXPECT_EQ(r.eviction->raiseReason, EvictionPlan::Raise::DanglingLink);
  const CacheProblem *p = problemOf(r, ProblemCode::Symlink);
  ASSERT_TRUE(p);
  EXPECT_EQ(p->file, link);
  EXPECT_EQ(p->link.state, LinkTarget::State::Dangling);
  EXPECT_EQ(p->link.target, describe(rel)[link]["symlink"].get<std::string>());
  EXPECT_TRUE(p->countedByCap);
  EXPECT_NE(problemText(*p, r.rule).find("every capped write fails"), std::string::npos);
}

INSTANTIATE_TEST_SUITE_P(Releases, RealSymlink, ::testing::Values("0.10.2", "0.12.0.1"));

// jax 0.12.0.1 counted the live link by its target's size and evicted the
// link first (no -atime: rank 0), "file size" = the target's. The directory
// before that run is symlink/dangling's without its dangling link (both are
// copies of one step "first"; the dangling run wrote nothing), plus the live
// link the script made (the change this test repeats).
TEST(CacheDirSymlink, LiveLinkIsCountedByItsTargetAndEvictedFirst012) {
  TempCopy copy("0.12.0.1/symlink/dangling");
  std::string dangling = linkName(describe("0.12.0.1/symlink/dangling"));
  ASSERT_EQ(unlink((copy.dir + "/" + dangling).c_str()), 0);
  Json meta = Json::parse(slurp(fixture("0.12.0.1/symlink/symlink.json")));
  std::string largest = meta["largest_entry"];
  std::string link = "jit_zz-" + std::string(64, 'e') + "-cache";
  ASSERT_EQ(symlink(largest.c_str(), (copy.dir + "/" + link).c_str()), 0);
  std::string log = slurp(fixture("0.12.0.1/symlink/live/run.log"));
  std::regex re("Evicting cache entry '([^']+)': file size (\\d+) bytes, target cache size (\\d+) bytes");
  std::vector<std::pair<std::string, uint64_t>> jax;
  int64_t target = -1;
  for (std::sregex_iterator it(log.begin(), log.end(), re), end; it != end; ++it) {
    jax.emplace_back(std::string((*it)[1]) + "-cache", std::stoull((*it)[2]));
    target = std::stoll((*it)[3]);
  }
  ASSERT_EQ(jax.size(), 1u);
  CacheReport r = analyse(copy.dir, "0.12.0.1", target);
  ASSERT_TRUE(r.eviction);
  EXPECT_FALSE(r.eviction->raises);
  std::vector<std::pair<std::string, uint64_t>> ours;
  for (const PlannedEviction &e : r.eviction->evicted)
    ours.emplace_back(e.file, e.size);
  EXPECT_EQ(ours, jax);
  EXPECT_EQ(jax[0].second, meta["largest_entry_size"].get<uint64_t>());
  EXPECT_EQ(r.eviction->linkedSize, meta["largest_entry_size"].get<uint64_t>());
  EXPECT_EQ(r.eviction->doubleCounted, meta["largest_entry_size"].get<uint64_t>());
  const CacheProblem *p = problemOf(r, ProblemCode::Symlink);
  ASSERT_TRUE(p);
  EXPECT_EQ(p->link.state, LinkTarget::State::File);
  EXPECT_EQ(p->link.inside, largest);
  EXPECT_FALSE(p->strictRule);
}

// jax 0.10.2 raised on the live link's missing -atime (stderr.txt names it):
// the plan raises there, and the finding says so.
TEST(CacheDirSymlink, LiveLinkWithoutAtimeRaisesIn0102) {
  std::string rel = "0.10.2/symlink/live";
  TempCopy copy(rel);
  std::string link = linkName(describe(rel));
  ASSERT_FALSE(link.empty());
  std::string atime = link.substr(0, link.size() - 6) + "-atime";
  ASSERT_NE(slurp(fixture(rel + "/stderr.txt")).find("FileNotFoundError: [Errno 2] No such file or directory: '"),
            std::string::npos);
  ASSERT_NE(slurp(fixture(rel + "/stderr.txt")).find(atime + "'"), std::string::npos);
  Json meta = Json::parse(slurp(fixture("0.10.2/symlink/symlink.json")));
  CacheReport r = analyse(copy.dir, "0.10.2",
                          meta["cap"].get<int64_t>() - meta["new_entry_size"].get<int64_t>());
  ASSERT_TRUE(r.eviction);
  EXPECT_TRUE(r.eviction->raises);
  EXPECT_EQ(r.eviction->raisingFile, link);
  EXPECT_EQ(r.eviction->raiseReason, EvictionPlan::Raise::NoAtime);
  const CacheProblem *p = problemOf(r, ProblemCode::Symlink);
  ASSERT_TRUE(p);
  EXPECT_TRUE(p->strictRule);
  EXPECT_EQ(p->link.size, meta["largest_entry_size"].get<uint64_t>());
  EXPECT_EQ(p->link.inside, meta["largest_entry"].get<std::string>());
}

// JAX's max_size -1 (no cap) and 0 (every write refused), as
// jax_compilation_cache_max_size documents them (config.py, lru_cache.py
// __init__/put of 0.12.0.1): no eviction either way.
TEST(CacheDirEviction, MinusOneIsNoCapAndZeroRefusesWrites) {
  TempCopy copy("0.12.0.1/cap");
  CacheReport none = analyse(copy.dir, "", -1);
  ASSERT_TRUE(none.eviction);
  EXPECT_TRUE(none.eviction->noCap);
  EXPECT_TRUE(none.eviction->evicted.empty());
  CacheReport zero = analyse(copy.dir, "", 0);
  ASSERT_TRUE(zero.eviction);
  EXPECT_TRUE(zero.eviction->writesRefused);
  EXPECT_TRUE(zero.eviction->evicted.empty());
  EXPECT_EQ(cacheReportToJson(none)["eviction"]["code"], "no_cap");
  EXPECT_EQ(cacheReportToJson(zero)["eviction"]["code"], "writes_refused");
}

// An unknown --release names the value and the known releases.
TEST(CacheDirErrors, UnknownReleaseNamesTheValueAndTheKnownOnes) {
  TempCopy copy("0.12.0.1/nocap");
  auto scan = scanCacheDir(copy.dir);
  ASSERT_TRUE(bool(scan));
  auto r = analyseCacheDir(std::move(*scan), "latest");
  ASSERT_FALSE(bool(r));
  EXPECT_EQ(r.error().path, "--release");
  EXPECT_NE(r.error().message.find("\"latest\""), std::string::npos);
  for (const std::string &k : knownCacheReleases())
    EXPECT_NE(r.error().message.find(k), std::string::npos) << k;
}

// A damaged entry's IFRT header is not trusted: the test cuts one of
// jit_f's three real 0.12.0.1 entries to half its length (a write cut
// short); the hint shows "?" for it, counts it as unread, and names the
// other two entries' shapes as read from the intact directory.
TEST(CacheDirHints, DamagedEntryShowsQuestionMarkAndIsNotTrusted) {
  TempCopy intact("0.12.0.1/nocap"), cut("0.12.0.1/nocap");
  CacheReport before = analyse(intact.dir);
  const ProgramSummary *f = program(before, "jit_f");
  ASSERT_TRUE(f);
  ASSERT_EQ(f->entries.size(), 3u);
  const std::string victim = before.files[f->entries[0].file].name;
  std::set<std::string> others;
  for (size_t i = 1; i < 3; ++i)
    others.insert(before.files[f->entries[i].file].facts.outputs);
  ASSERT_EQ(truncate((cut.dir + "/" + victim).c_str(),
                     static_cast<off_t>(before.files[f->entries[0].file].size / 2)), 0);
  CacheReport after = analyse(cut.dir);
  const CacheHint *h = nullptr;
  for (const CacheHint &x : after.hints)
    if (x.module == "jit_f")
      h = &x;
  ASSERT_TRUE(h);
  EXPECT_EQ(h->unread, 1u);
  std::set<std::string> shown(h->shapes.begin(), h->shapes.end());
  EXPECT_EQ(shown.count("?"), 1u);
  shown.erase("?");
  EXPECT_EQ(shown, others);
  EXPECT_EQ(h->code, others.size() > 1 ? HintCode::OutputShapesDiffer : HintCode::SameOutputShapes);
  EXPECT_NE(hintText(*h).find("1 damaged entry not read"), std::string::npos);
}

// The page's release picker (cacheReleasesToJson): one choice per rule, each
// release read under the rule of the lru_cache.py lines CacheDir.h cites.
TEST(CacheDirReleases, OneChoicePerRuleEachItsOwn) {
  const std::pair<const char *, EvictionRule> want[] = {
      {"0.4.30", EvictionRule::MtimeAllFiles},  // file named by key, mtime LRU
      {"0.4.35", EvictionRule::AtimeStrict},    // -atime read unchecked
      {"0.11.2", EvictionRule::AtimeMissingZero}}; // a missing -atime counts 0
  ASSERT_EQ(cacheReleaseChoices().size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(cacheReleaseChoices()[i].release, want[i].first);
    EXPECT_EQ(cacheReleaseChoices()[i].rule, want[i].second);
    auto rule = evictionRuleFor(want[i].first);
    ASSERT_TRUE(bool(rule));
    EXPECT_EQ(*rule, want[i].second);
  }
  Json j = cacheReleasesToJson();
  ASSERT_EQ(j.size(), 3u);
  EXPECT_EQ(j[1]["rule"], "atime_strict");
  EXPECT_FALSE(j[1]["text"].get<std::string>().empty());
}

// A small zstd frame (declared size at most 128 KiB, all of it read) is
// decoded in one call; any other goes through the stream. Both must give the
// same facts: the stream is forced here by a whole-decode limit under the
// declared size (which only the one-call path looks at for a head).
TEST(CacheEntry, SmallFramesInOneCallGiveWhatTheStreamGives) {
  auto frame = [](const std::string &plain) {
    std::string z(ZSTD_compressBound(plain.size()), '\0');
    z.resize(ZSTD_compress(z.data(), z.size(), plain.data(), plain.size(), 3));
    return z;
  };
  const std::string small = std::string("\x00\x00\x00\x07", 4) + std::string(1000, 'x');
  std::string big = std::string("\x00\x00\x01\x00", 4);
  for (int i = 0; big.size() < 200000; ++i)
    big += std::to_string(i * 7919 % 10007) + ",";
  std::string corrupt = frame(small);
  corrupt[corrupt.size() / 2] ^= 0x5a;
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"small", frame(small)},
      {"two frames", frame(small) + frame(small)},
      {"frame then junk", frame(small) + "junk"},
      {"corrupt", corrupt},
      {"cut", frame(small).substr(0, frame(small).size() - 3)},
      {"over 128 KiB", frame(big)},
  };
  for (const auto &[what, bytes] : cases) {
    EntryFacts oneCall = readEntryBytes(bytes);
    EntryLimits streamed;
    streamed.wholeLimit = 999; // under every declared size: no one-call decode
    EntryFacts stream = readEntryBytes(bytes, streamed);
    EXPECT_EQ(static_cast<int>(oneCall.status), static_cast<int>(stream.status)) << what;
    EXPECT_EQ(oneCall.detail, stream.detail) << what;
    EXPECT_EQ(oneCall.decompressed, stream.decompressed) << what;
    EXPECT_EQ(oneCall.compileSeconds, stream.compileSeconds) << what;
    EXPECT_EQ(oneCall.wholeDecoded, stream.wholeDecoded) << what;
  }
  // What the test built: 7 s and 1,004 bytes; 256 s and the big plain size.
  EntryFacts s = readEntryBytes(frame(small));
  EXPECT_EQ(s.status, EntryStatus::Ok);
  EXPECT_EQ(s.compileSeconds, 7u);
  EXPECT_EQ(s.decompressed.value_or(0), small.size());
  EXPECT_TRUE(s.wholeDecoded);
  EntryFacts b = readEntryBytes(frame(big));
  EXPECT_EQ(b.status, EntryStatus::Ok);
  EXPECT_EQ(b.compileSeconds, 256u);
  EXPECT_EQ(b.decompressed.value_or(0), big.size()); // from the frame header
  EXPECT_FALSE(b.wholeDecoded);                      // only its head
}

// A program none of whose entries tells its decompressed size (the change
// made here: no size known) is not said to have "at least 0 B".
TEST(CacheDirWording, NoKnownDecompressedSizeIsSaidSo) {
  ProgramSummary p;
  p.module = "jit_f";
  p.entries.resize(2);
  p.size = 4096;
  p.decompressed = 0;
  p.decompressedComplete = false;
  std::string text = programText(p);
  EXPECT_NE(text.find("decompressed size not known"), std::string::npos) << text;
  EXPECT_EQ(text.find("at least"), std::string::npos) << text;
  p.decompressed = 2048; // one of them known
  EXPECT_NE(programText(p).find("at least 2.0 KiB decompressed"), std::string::npos) << programText(p);
  p.decompressedComplete = true;
  EXPECT_EQ(programText(p).find("at least"), std::string::npos);
}


// What real JAX's capped put did with the names its eviction pass meets
// that JAX did not write: fixtures/cache_dirs/<release>/glob
// (tools/cache_dir_glob_fixture.sh: step "first" with a cap, one change by
// hand per case, then step "third" with the cap in glob.json). cache/ is the
// directory before that run (read in place: the scan writes nothing).
// Expectations: run.log (JAX's "Evicting cache entry" lines, in its order,
// with the sizes and the target it used) and stderr.txt (the exception that
// lost the write, naming its file).
namespace {

struct JaxEviction {
  std::vector<std::pair<std::string, uint64_t>> evicted; ///< `<stem>-cache`, size
  int64_t target = -1;
};

JaxEviction jaxEviction(const std::string &rel) {
  std::string log = slurp(fixture(rel + "/run.log"));
  std::regex re("Evicting cache entry '([^']*)': file size (\\d+) bytes, target cache size (\\d+) bytes");
  JaxEviction j;
  for (std::sregex_iterator it(log.begin(), log.end(), re), end; it != end; ++it) {
    j.evicted.emplace_back(std::string((*it)[1]) + "-cache", std::stoull((*it)[2]));
    j.target = std::stoll((*it)[3]);
  }
  return j;
}

/// The target JAX used: the log's, where it evicted; else (it raised before
/// evicting, whatever the target) cap - jit_h's entry in a scratch run
/// (glob.json).
int64_t globTarget(const std::string &rel) {
  JaxEviction j = jaxEviction(rel);
  if (j.target >= 0)
    return j.target;
  Json g = Json::parse(slurp(fixture(rel + "/glob.json")));
  return g["cap"].get<int64_t>() - g["new_entry_size"].get<int64_t>();
}

std::vector<std::pair<std::string, uint64_t>> planned(const CacheReport &r) {
  std::vector<std::pair<std::string, uint64_t>> out;
  for (const PlannedEviction &e : r.eviction->evicted)
    out.emplace_back(e.file, e.size);
  return out;
}

const CacheProblem *problemFor(const CacheReport &r, const std::string &file) {
  for (const CacheProblem &p : r.problems)
    if (p.file == file)
      return &p;
  return nullptr;
}

} // namespace

// A directory named zz-cache: jax 0.12.0.1 counted it, ranked it first (no
// -atime), logged evicting it and failed to unlink it (IsADirectoryError),
// losing the write; jax 0.10.2 raised before that, on its missing zz-atime.
TEST(CacheDirGlob, DirectoryNamedLikeAnEntryLosesTheWrite) {
  for (std::string rel : {"0.12.0.1/glob/directory", "0.10.2/glob/directory"}) {
    SCOPED_TRACE(rel);
    const bool v012 = rel.rfind("0.12", 0) == 0;
    std::string err = slurp(fixture(rel + "/stderr.txt"));
    ASSERT_NE(err.find(v012 ? "IsADirectoryError" : "FileNotFoundError"), std::string::npos);
    ASSERT_NE(err.find(v012 ? "/zz-cache'" : "/zz-atime'"), std::string::npos);
    JaxEviction j = jaxEviction(rel);
    CacheReport r = analyse(fixture(rel + "/cache"), v012 ? "0.12.0.1" : "0.10.2", globTarget(rel));
    ASSERT_TRUE(r.eviction);
    EXPECT_TRUE(r.eviction->raises);
    EXPECT_EQ(r.eviction->raisingFile, "zz-cache");
    EXPECT_TRUE(r.eviction->evicted.empty());
    if (v012) {
      // JAX logged the directory as the first (and only) one it evicted.
      ASSERT_EQ(j.evicted.size(), 1u);
      EXPECT_EQ(j.evicted[0].first, "zz-cache");
      EXPECT_EQ(r.eviction->raiseReason, EvictionPlan::Raise::DirectoryEntry);
    } else {
      EXPECT_TRUE(j.evicted.empty());
      EXPECT_EQ(r.eviction->raiseReason, EvictionPlan::Raise::NoAtime);
    }
    // The directory's size counts (what stat says here: the file system's).
    struct stat st {};
    ASSERT_EQ(stat(fixture(rel + "/cache/zz-cache").c_str(), &st), 0);
    const CacheProblem *p = problemFor(r, "zz-cache");
    ASSERT_TRUE(p);
    EXPECT_EQ(p->code, ProblemCode::ForeignFile);
    EXPECT_TRUE(p->countedByCap);
    EXPECT_TRUE(p->directory);
    EXPECT_FALSE(p->withAtime);
    EXPECT_EQ(p->size, static_cast<uint64_t>(st.st_size));
  }
}

// .hidden-cache (no -atime) and readme-cache with a fresh readme-atime:
// jax 0.12.0.1 counted both, evicted .hidden first, then the oldest entry,
// and kept readme; jax 0.10.2 raised on .hidden-atime.
TEST(CacheDirGlob, ForeignNamesEndingInCacheAreCountedRankedAndEvicted) {
  std::string rel = "0.12.0.1/glob/names";
  JaxEviction j = jaxEviction(rel);
  ASSERT_GE(j.evicted.size(), 2u);
  EXPECT_EQ(j.evicted[0].first, ".hidden-cache");
  CacheReport r = analyse(fixture(rel + "/cache"), "0.12.0.1", globTarget(rel));
  ASSERT_TRUE(r.eviction);
  EXPECT_FALSE(r.eviction->raises);
  ASSERT_EQ(planned(r), j.evicted);
  EXPECT_EQ(r.eviction->evicted[0].rankFrom, PlannedEviction::RankFrom::NoAtime);
  const CacheProblem *hidden = problemFor(r, ".hidden-cache");
  const CacheProblem *readme = problemFor(r, "readme-cache");
  ASSERT_TRUE(hidden && readme);
  EXPECT_TRUE(hidden->countedByCap && readme->countedByCap);
  EXPECT_FALSE(hidden->withAtime);
  EXPECT_TRUE(readme->withAtime);
  EXPECT_EQ(hidden->size, 3000u);
  // readme-atime is read as readme-cache's, not reported on its own.
  EXPECT_FALSE(problemFor(r, "readme-atime"));
  // The foreign names are no program's entries: the entries are the
  // `<module>-<64 hex>-cache` names.
  size_t keys = 0;
  const std::regex key("[A-Za-z0-9_]+-[0-9a-f]{64}-cache");
  for (const auto &e : std::filesystem::directory_iterator(fixture(rel + "/cache")))
    keys += std::regex_match(e.path().filename().string(), key);
  EXPECT_EQ(r.entryCount, keys);

  // Under 0.4.30's rule every regular file counts (Path.is_file), the
  // -atime of a foreign name too: the sizes the file system gives.
  uint64_t regular = 0;
  for (const auto &e : std::filesystem::directory_iterator(fixture(rel + "/cache")))
    if (e.is_regular_file() && !e.is_symlink())
      regular += e.file_size();
  CacheReport r430 = analyse(fixture(rel + "/cache"), "0.4.30", 1);
  ASSERT_TRUE(r430.eviction);
  EXPECT_EQ(r430.eviction->countedSize, regular);

  std::string rel10 = "0.10.2/glob/names";
  std::string err = slurp(fixture(rel10 + "/stderr.txt"));
  ASSERT_NE(err.find("FileNotFoundError"), std::string::npos);
  ASSERT_NE(err.find("/.hidden-atime'"), std::string::npos);
  CacheReport r10 = analyse(fixture(rel10 + "/cache"), "0.10.2", globTarget(rel10));
  ASSERT_TRUE(r10.eviction);
  EXPECT_TRUE(r10.eviction->raises);
  EXPECT_EQ(r10.eviction->raisingFile, ".hidden-cache");
  EXPECT_EQ(r10.eviction->raiseReason, EvictionPlan::Raise::NoAtime);
}

// The oldest entry's -atime written twice over (16 bytes, above 2^64) and
// the next one's as 2^64 - 1: both releases read them as Python ints and
// kept both entries, evicting the others in their order.
TEST(CacheDirGlob, AtimeValuesAreUnsignedAndOfAnyLength) {
  for (std::string release : {"0.12.0.1", "0.10.2"}) {
    std::string rel = release + "/glob/atime";
    SCOPED_TRACE(rel);
    JaxEviction j = jaxEviction(rel);
    ASSERT_FALSE(j.evicted.empty());
    CacheReport r = analyse(fixture(rel + "/cache"), release, globTarget(rel));
    ASSERT_TRUE(r.eviction);
    EXPECT_EQ(planned(r), j.evicted);
    // The two changed -atime files: one of 16 bytes, one of 8 0xff bytes.
    std::string wide, top;
    for (const CacheFile &f : r.files)
      if (f.kind == FileKind::Entry && f.hasAtime) {
        if (f.atimeSize == 16)
          wide = f.name;
        else if (static_cast<uint64_t>(f.atimeNs) == ~uint64_t(0))
          top = f.name;
      }
    ASSERT_FALSE(wide.empty());
    ASSERT_FALSE(top.empty());
    for (const auto &e : j.evicted) {
      EXPECT_NE(e.first, wide);
      EXPECT_NE(e.first, top);
    }
    const CacheProblem *p = problemFor(r, wide.substr(0, wide.size() - 6) + "-atime");
    ASSERT_TRUE(p);
    EXPECT_EQ(p->code, ProblemCode::BadAtime);
    // With everything evicted, they go last: 2^64 - 1, then the wider one.
    CacheReport all = analyse(fixture(rel + "/cache"), release, 1);
    ASSERT_TRUE(all.eviction);
    ASSERT_GE(all.eviction->evicted.size(), 2u);
    const auto &ev = all.eviction->evicted;
    EXPECT_EQ(ev[ev.size() - 2].file, top);
    EXPECT_EQ(ev[ev.size() - 2].rankFrom, PlannedEviction::RankFrom::AtimeFile);
    EXPECT_EQ(static_cast<uint64_t>(ev[ev.size() - 2].rankNs), ~uint64_t(0));
    EXPECT_EQ(ev.back().file, wide);
    EXPECT_EQ(ev.back().rankFrom, PlannedEviction::RankFrom::AtimeBeyond64);
  }
}

// The oldest entry's -atime is a link to a file outside cache/ holding a
// later time: JAX read through it and kept the entry. cachekey follows no
// link out of the directory: it says which names it could not rank, and
// does not call the entry an orphan.
TEST(CacheDirGlob, AtimeLinkIsNamedAsUnranked) {
  for (std::string release : {"0.12.0.1", "0.10.2"}) {
    std::string rel = release + "/glob/atime_link";
    SCOPED_TRACE(rel);
    CacheReport r = analyse(fixture(rel + "/cache"), release, globTarget(rel));
    std::string link;
    for (const CacheFile &f : r.files)
      if (f.kind == FileKind::Symlink && endsWith(f.name, "-atime"))
        link = f.name;
    ASSERT_FALSE(link.empty());
    std::string entry = link.substr(0, link.size() - 6) + "-cache";
    JaxEviction j = jaxEviction(rel);
    ASSERT_FALSE(j.evicted.empty());
    for (const auto &e : j.evicted)
      EXPECT_NE(e.first, entry); // JAX kept it: its -atime is the newest
    ASSERT_TRUE(r.eviction);
    EXPECT_FALSE(r.eviction->raises);
    EXPECT_EQ(r.eviction->atimeLinks, std::vector<std::string>{entry});
    EXPECT_NE(evictionText(*r.eviction).find("JAX's order may differ"), std::string::npos);
    for (const CacheProblem &p : r.problems)
      EXPECT_FALSE(p.code == ProblemCode::OrphanCache && p.file == entry);
  }
}
