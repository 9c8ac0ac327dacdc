// Reading whole JAX logs: prefixes and stream tags, chunked input, every
// hit/miss/write message of jax 0.4.30 – 0.12.0.1, cut and oversized logs,
// and the short entries read back from their digests.
#include "TestUtil.h"
#include "logs/LogTestUtil.h"

#include "cachekey/KnownDigests.h"
#include "cachekey/LogCompare.h"
#include "cachekey/LogPrefix.h"
#include "cachekey/Trace.h"
#include "logs/LogLines.h"

#include <cmath>
#include <algorithm>
#include <cctype>
#include <cstring>
#include <dirent.h>
#include <regex>
#include <sstream>

using namespace cachekey;
using namespace cachekey::test;

namespace {

/// The 16 digest lines (and flag lines) of fixture `id`, as JAX logs them.
std::vector<std::string> traceOf(const std::string &id, Json patch = Json::object()) {
  KeyResult r = mustCompute(patched(id, std::move(patch)));
  std::vector<std::string> messages;
  for (const TraceLine &t : r.trace)
    messages.push_back(t.message);
  return messages;
}

std::string withPrefix(const std::vector<std::string> &lines,
                       const std::string &prefix) {
  std::string out;
  for (const auto &l : lines)
    out += prefix + l + "\n";
  return out;
}

std::string keyOf(const std::string &name, const std::string &id) {
  return name + "-" + mustCompute(patched(id, Json::object())).key.substr(
                          mustCompute(patched(id, Json::object())).key.size() - 64);
}

} // namespace

TEST(LogPrefix, HandlersOfOneProcessShareATag) {
  for (const char *prefix :
       {"DEBUG:jax._src.cache_key:", "DEBUG:jax._src.compiler:",
        "DEBUG:2026-11-30 20:20:12,448:jax._src.cache_key:157: ",
        "2026-11-30 20:30:01,234 - jax._src.cache_key - DEBUG - ",
        "WARNING:jax._src.compiler:", "2026-11-30T20:30:01.234Z INFO ", ""})
    EXPECT_EQ(streamTag(prefix), "") << prefix;
  EXPECT_EQ(streamTag("I1130 20:20:12.452898    2930 cache_key.py:157] "), "2930");
  EXPECT_EQ(streamTag("D1130 20:20:12.452898 2930 compiler.py:135] "), "2930");
  EXPECT_EQ(streamTag("[rank1]: DEBUG:jax._src.cache_key:"), "[rank1]");
  EXPECT_EQ(streamTag("host-b | DEBUG:jax._src.compiler:"), "host-b");
  EXPECT_EQ(streamTag("[1,0]<stderr>:DEBUG:jax._src.cache_key:"), "[1,0]<stderr>");
  EXPECT_EQ(streamTag("0: DEBUG:jax._src.cache_key:"), "0");
  EXPECT_LE(streamTag(std::string(500, 'x')).size(), 64u);
}

TEST(LogPrefix, TerminalCodesAndCarriageReturnsAreStripped) {
  std::string line = "\x1b[36mDEBUG\x1b[0m:jax._src.cache_key:text\r";
  stripTerminalCodes(line);
  EXPECT_EQ(line, "DEBUG:jax._src.cache_key:text");
  std::string cut = "abc\x1b[3";
  stripTerminalCodes(cut);
  EXPECT_EQ(cut, "abc");
}

TEST(LogReader, ChunksOfAnySizeReadTheSame) {
  std::string log = withPrefix(traceOf("add_1x1"), "\x1b[2mDEBUG\x1b[0m:jax._src.cache_key:");
  for (size_t step : {1u, 7u, 64u, 4096u}) {
    LogReader reader("x");
    for (size_t i = 0; i < log.size(); i += step)
      reader.feed(std::string_view(log).substr(i, step));
    LogSummary s = reader.finish();
    ASSERT_EQ(s.comparable().size(), 1u) << step;
    EXPECT_TRUE(s.programs[0].complete());
    EXPECT_EQ(toHex(*s.programs[0].digests().running[7]),
              mustCompute(patched("add_1x1", Json::object())).key.substr(
                  mustCompute(patched("add_1x1", Json::object())).key.size() - 64));
  }
}

TEST(LogReader, ALineWithTerminalCodesReadsTheSameWholeOrCut) {
  // Found by fuzz_log (2,662 bytes, minimised to these two lines): a line
  // held whole in one chunk was checked for being a handler's copy of the
  // line before with its escape codes still in, while the same line cut
  // across chunks was checked after stripping them. Stripped, the second
  // line repeats the first's record; so one reading dropped it and the
  // other did not (1 program against 0). Each reading must give the same.
  const std::string hex(64, 'a');
  const std::string log =
      "DEBUG:jax._src.cache_key:get_cache_key hash after serializing computation:" + hex + "\n"
      "DEBUG:jax.:get_cache_key h\x1b\x1b" "ash after serializing computation: " + hex + "\n";
  auto read = [&](size_t step) {
    LogReader reader("x");
    for (size_t i = 0; i < log.size(); i += step)
      reader.feed(std::string_view(log).substr(i, step));
    return reader.finish();
  };
  LogSummary whole = readLog(log, "x");
  for (size_t step : {1u, 5u, 17u, 4096u}) {
    LogSummary s = read(step);
    EXPECT_EQ(s.programs.size(), whole.programs.size()) << step;
    EXPECT_EQ(s.duplicateLines, whole.duplicateLines) << step;
    EXPECT_EQ(s.lines, whole.lines) << step;
  }
}

TEST(LogReader, TheFirstMessageOfALineIsReadWholeOrCut) {
  // Found by fuzz_log (minimised): a digest line followed, after a tab, by
  // the start of the other message. Read whole (the fast path after the
  // first line) the message after the prefix counted; read cut across
  // chunks, the one found first in a fixed order did (2 programs against
  // 1). Both read the first message of the line now.
  const std::string hex(64, 'b');
  const std::string line = "DEBUG:jax._src.cache_key:get_cache_key hash after serializing computation: " + hex;
  const std::string log = line + "\t\n" + line + "\tget_cache_key hash of serialized \n";
  LogSummary whole = readLog(log, "x");
  for (size_t step : {1u, 3u, 17u, 4096u}) {
    LogReader reader("x");
    for (size_t i = 0; i < log.size(); i += step)
      reader.feed(std::string_view(log).substr(i, step));
    LogSummary s = reader.finish();
    EXPECT_EQ(s.programs.size(), whole.programs.size()) << step;
    EXPECT_EQ(s.problemCount, whole.problemCount) << step;
  }
}

TEST(LogReader, OutcomesOfEveryReleaseAreRead) {
  std::string key = keyOf("jit_f", "add_1x1");
  std::string log = withPrefix(traceOf("add_1x1"), "DEBUG:jax._src.cache_key:") +
                    "DEBUG:jax._src.compiler:PERSISTENT COMPILATION CACHE MISS for "
                    "'jit_f' with key '" + key + "'\n"
                    "WARNING:jax._src.compiler:Not writing persistent cache entry for "
                    "'jit_f' because it took < 1.00 seconds to compile (0.25s)\n";
  LogSummary s = readLog(log);
  ASSERT_EQ(s.programs.size(), 1u);
  const LoggedProgram &p = s.programs[0];
  EXPECT_EQ(p.name, "jit_f");
  EXPECT_EQ(s.keyOf(p), key);
  EXPECT_EQ(p.lookup, Lookup::Miss);
  EXPECT_EQ(p.writeState, WriteState::NotWritten);
  EXPECT_EQ(p.writeReason, NotWrittenReason::CompileTime);
  EXPECT_DOUBLE_EQ(p.write().compileSeconds, 0.25);
  EXPECT_DOUBLE_EQ(p.write().minCompileSeconds, 1.0);

  // compilation_cache.py's size threshold, 0.4.31+ and 0.4.30 wording.
  for (const std::string &line :
       {"DEBUG:jax._src.compilation_cache:Not writing persistent cache entry "
        "with key '" + key + "' since its size (1234 bytes) is less than "
        "threshold (5000 bytes)",
        "INFO:jax._src.compilation_cache:Not writing cache entry with key " +
            key + " since its size (1234 bytes) is less than threshold (5000 bytes)"}) {
    LogSummary t = readLog(withPrefix(traceOf("add_1x1"), "DEBUG:jax._src.cache_key:") +
                           "DEBUG:jax._src.compiler:PERSISTENT COMPILATION CACHE MISS "
                           "for 'jit_f' with key '" + key + "'\n" + line + "\n");
    ASSERT_EQ(t.programs.size(), 1u);
    EXPECT_EQ(t.programs[0].writeReason, NotWrittenReason::EntrySize) << line;
    EXPECT_EQ(t.programs[0].write().entryBytes, 1234);
    EXPECT_EQ(t.programs[0].write().minEntryBytes, 5000);
  }
  // 0.4.30: the hit line has no key; a process other than 0 never writes.
  LogSummary old = readLog(withPrefix(traceOf("add_1x1"), "DEBUG:jax._src.cache_key:") +
                           "DEBUG:jax._src.compiler:Persistent compilation cache hit "
                           "for 'jit_f'\n");
  ASSERT_EQ(old.programs.size(), 1u);
  EXPECT_EQ(old.programs[0].lookup, Lookup::Hit);
  EXPECT_EQ(old.programs[0].name, "jit_f");
  LogSummary rank1 = readLog(
      "DEBUG:jax._src.compiler:PERSISTENT COMPILATION CACHE MISS for 'jit_f' with "
      "key '" + key + "'\nDEBUG:jax._src.compiler:Not writing persistent cache "
      "entry since process_id != 0\n");
  ASSERT_EQ(rank1.programs.size(), 1u);
  EXPECT_EQ(rank1.programs[0].writeReason, NotWrittenReason::NotProcessZero);
  // A key known from its hit/miss line alone is comparable.
  EXPECT_EQ(rank1.comparable().size(), 1u);
}

TEST(LogReader, RunWideFactsAreKept) {
  LogSummary s = readLog(
      "DEBUG:jax._src.compiler:Enabling XLA autotuning cache at '/c/xla_gpu_per_fusion_autotune_cache_dir'\n"
      "DEBUG:jax._src.compiler:Enabling XLA kernel cache at '/c/xla_gpu_kernel_cache_file'\n"
      "DEBUG:jax._src.compilation_cache:Initialized persistent compilation cache at /c\n"
      "DEBUG:jax._src.compiler:Enabling XLA autotuning cache at '/c/xla_gpu_per_fusion_autotune_cache_dir'\n"
      "DEBUG:jax._src.compilation_cache:_initialize_cache: cache is disabled!\n");
  EXPECT_EQ(s.autotuneCaches, (std::vector<std::string>{"/c/xla_gpu_per_fusion_autotune_cache_dir"}));
  EXPECT_EQ(s.kernelCaches, (std::vector<std::string>{"/c/xla_gpu_kernel_cache_file"}));
  EXPECT_EQ(s.cacheDirs, (std::vector<std::string>{"/c"}));
  EXPECT_TRUE(s.cacheDisabled);
}

TEST(LogReader, InterleavedProcessesAreToldApartByTheirTag) {
  auto a = traceOf("add_1x1"), b = traceOf("mul_2x2");
  std::string log;
  for (size_t i = 0; i < a.size(); ++i)
    log += "[rank0] DEBUG:jax._src.cache_key:" + a[i] + "\n" +
           "[rank1] DEBUG:jax._src.cache_key:" + b[i] + "\n";
  LogSummary s = readLog(log);
  ASSERT_EQ(s.comparable().size(), 2u);
  EXPECT_EQ(s.streams[s.programs[0].stream], "[rank0]");
  EXPECT_EQ(s.streams[s.programs[1].stream], "[rank1]");
  EXPECT_TRUE(s.incomplete.empty());
}

TEST(LogReader, LongLinesAreCutAndMemoryStaysBounded) {
  // A 3 MiB line of noise between two keys: the reader keeps 1 MiB of it.
  std::string trace = withPrefix(traceOf("add_1x1"), "DEBUG:jax._src.cache_key:");
  LogReader reader("big");
  reader.feed(trace);
  std::string noise(1 << 20, 'x');
  for (int i = 0; i < 3; ++i)
    reader.feed(noise);
  reader.feed("\n");
  reader.feed(trace);
  LogSummary s = reader.finish();
  EXPECT_EQ(s.longLines, 1u);
  EXPECT_EQ(s.comparable().size(), 2u);
}

TEST(LogReader, ManyProgramsKeepOneSummaryEach) {
  // 20,000 programs (~50 MB of log) read in 1 MiB chunks: the summary holds
  // 20,000 small records, not the text.
  std::string trace = withPrefix(traceOf("add_1x1"), "DEBUG:jax._src.cache_key:");
  LogReader reader("many");
  std::string chunk;
  for (int i = 0; i < 20000; ++i) {
    chunk += trace;
    if (chunk.size() > (1u << 20)) {
      reader.feed(chunk);
      chunk.clear();
    }
  }
  reader.feed(chunk);
  LogSummary s = reader.finish();
  EXPECT_EQ(s.comparable().size(), 20000u);
  EXPECT_EQ(s.flagSets.size(), 1u); // shared, not one per program
}

TEST(KnownDigests, DecodesWhatTheRealLogsHash) {
  // Digests as real jax 0.10.2 / 0.12.0.1 logged them (tests/cases/09).
  auto d = [](const char *hex) { return *digestFromHex(hex); };
  auto v = decodeEntryDigest(2, d("40d13e87ba3f9c11dbaec3506d8462538adb6fc29bd32279eb4bbef0b66abe95"));
  ASSERT_TRUE(v);
  EXPECT_EQ(v->value, "0.10.2");
  v = decodeEntryDigest(2, d("b5aa839f06ed6ed75234434b87235c3e8e33243762a831426a25130b7163246c"));
  ASSERT_TRUE(v);
  EXPECT_EQ(v->text, "jaxlib 0.12.0.1");
  v = decodeEntryDigest(3, d("3357b7ac532f27e464d9a89c8adf0b5cc6e64ffd781cbe65ac474c2494e1b57c"));
  ASSERT_TRUE(v);
  EXPECT_EQ(v->value, "cpu / cpu");
  EXPECT_EQ(decodeEntryDigest(4, d("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"))->text,
            "no flags");
  EXPECT_EQ(decodeEntryDigest(7, d("0ea55c28f8014d8886b6248fe3da5d588f55c0823847a6b4579f1131b051b5e2"))->value,
            "zlib");
  // The same digest means nothing in an entry that does not hash it.
  EXPECT_FALSE(decodeEntryDigest(2, d("0ea55c28f8014d8886b6248fe3da5d588f55c0823847a6b4579f1131b051b5e2")));
  EXPECT_FALSE(decodeEntryDigest(1, d("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")));
  EXPECT_FALSE(digestFromHex("E3B0"));
}

TEST(KnownDigests, DigestFromHexReadsEveryByteAtEveryPlace) {
  // Against an independent reading: each byte value at each of the 64
  // places of a valid digest, read with strtoul two digits at a time after
  // a check that all 64 are lowercase hex digits.
  auto reference = [](const std::string &hex) -> std::optional<Digest> {
    if (hex.size() != 64)
      return std::nullopt;
    for (char c : hex)
      if (!std::isxdigit(static_cast<unsigned char>(c)) ||
          std::isupper(static_cast<unsigned char>(c)))
        return std::nullopt;
    Digest d{};
    for (size_t i = 0; i < 32; ++i)
      d[i] = static_cast<uint8_t>(std::strtoul(hex.substr(2 * i, 2).c_str(), nullptr, 16));
    return d;
  };
  const std::string base = "0123456789abcdef0f1e2d3c4b5a69788796a5b4c3d2e1f0fedcba9876543210";
  ASSERT_TRUE(reference(base));
  size_t valid = 0;
  for (size_t at = 0; at < 64; ++at)
    for (int b = 0; b < 256; ++b) {
      std::string hex = base;
      hex[at] = static_cast<char>(b);
      auto got = digestFromHex(hex), want = reference(hex);
      ASSERT_EQ(got.has_value(), want.has_value()) << "byte " << b << " at " << at;
      if (want) {
        ++valid;
        EXPECT_EQ(*got, *want) << "byte " << b << " at " << at;
      }
    }
  EXPECT_EQ(valid, 64u * 16u); // the 16 digits, at every place
  EXPECT_FALSE(digestFromHex(base.substr(1)));
  EXPECT_FALSE(digestFromHex(base + "0"));
}

TEST(KnownDigests, EveryTableStringMatchesPythonHashlib) {
  // tests/cases/decode_vectors.json: SHA-256 of each string as Python's
  // hashlib computes it (tests/cases/make_decode_vectors.py).
  Json vectors = loadJson("tests/cases/decode_vectors.json");
  ASSERT_GT(vectors["vectors"].size(), 50u);
  for (const auto &v : vectors["vectors"]) {
    auto decoded = decodeEntryDigest(v["entry"], *digestFromHex(v["sha256"].get<std::string>()));
    ASSERT_TRUE(decoded) << v.dump();
    EXPECT_EQ(decoded->value, v["value"].get<std::string>()) << v.dump();
  }
}

namespace {

/// Python's `format % args` for the messages of tests/logs/cache_messages.json,
/// with sample values chosen by what precedes each placeholder.
std::string formatMessage(const std::string &format, const std::string &name,
                          const std::string &key) {
  std::string out;
  int ints = 0, floats = 0;
  for (size_t i = 0; i < format.size(); ++i) {
    if (format[i] != '%') {
      out += format[i];
      continue;
    }
    std::string conv = format.substr(i, format.compare(i, 4, "%.2f") == 0 ? 4 : 2);
    i += conv.size() - 1;
    auto after = [&](const char *s) {
      return out.size() >= std::strlen(s) &&
             out.compare(out.size() - std::strlen(s), std::strlen(s), s) == 0;
    };
    if (conv == "%r")
      out += "'" + key + "'";
    else if (conv == "%d")
      out += ints++ ? "5000" : "1234";
    else if (conv == "%.2f")
      out += floats++ ? "0.25" : "1.00";
    else if (after("key "))
      out += key;
    else if (after(" at ") || after(" at '"))
      out += "/c/x";
    else if (after(": "))
      out += "some error";
    else
      out += name;
  }
  return out;
}

} // namespace

TEST(LogReader, EveryCacheMessageOfEveryReleaseIsRead) {
  Json doc = loadJson("tests/logs/cache_messages.json");
  ASSERT_GE(doc["messages"].size(), 20u);
  std::string key = keyOf("jit_f", "add_1x1");
  std::string trace = withPrefix(traceOf("add_1x1"), "DEBUG:jax._src.cache_key:");
  std::string miss = "DEBUG:jax._src.compiler:PERSISTENT COMPILATION CACHE MISS for "
                     "'jit_f' with key '" + key + "'\n";
  for (const auto &m : doc["messages"]) {
    std::string kind = m["kind"], format = m["format"];
    SCOPED_TRACE(format);
    std::string line = m["level"].get<std::string>().substr(0, 7) + ":" +
                       m["logger"].get<std::string>() + ":" +
                       formatMessage(format, "jit_f", key) + "\n";
    bool needsMiss = kind.rfind("not-written", 0) == 0 || kind == "attempted" ||
                     kind == "written" || kind == "write-failed";
    LogSummary s = readLog(trace + (needsMiss ? miss : "") + line);
    EXPECT_TRUE(s.problems.empty()) << logReadNoteText(s.problems.front());
    ASSERT_EQ(s.programs.size(), 1u);
    const LoggedProgram &p = s.programs[0];
    const WriteOutcome w = p.write();
    if (kind == "miss" || kind == "hit") {
      EXPECT_EQ(p.lookup, kind == "hit" ? Lookup::Hit : Lookup::Miss);
      EXPECT_EQ(p.name, "jit_f");
    } else if (kind == "not-written-compile-time") {
      EXPECT_EQ(w.reason, NotWrittenReason::CompileTime);
      EXPECT_DOUBLE_EQ(w.minCompileSeconds, 1.0);
      EXPECT_DOUBLE_EQ(w.compileSeconds, 0.25);
    } else if (kind == "not-written-callbacks") {
      EXPECT_EQ(w.reason, NotWrittenReason::HostCallbacks);
    } else if (kind == "not-written-process") {
      EXPECT_EQ(w.reason, NotWrittenReason::NotProcessZero);
    } else if (kind == "not-written-size") {
      EXPECT_EQ(w.reason, NotWrittenReason::EntrySize);
      EXPECT_EQ(w.entryBytes, 1234);
      EXPECT_EQ(w.minEntryBytes, 5000);
    } else if (kind == "not-written-disabled") {
      EXPECT_EQ(w.reason, NotWrittenReason::CacheDisabled);
    } else if (kind == "attempted") {
      EXPECT_EQ(w.state, WriteState::Attempted);
    } else if (kind == "written") {
      EXPECT_EQ(w.state, WriteState::Written);
    } else if (kind == "write-failed") {
      EXPECT_EQ(w.state, WriteState::Failed);
      EXPECT_EQ(s.writeError(p), "some error");
    } else if (kind == "cache-dir") {
      EXPECT_EQ(s.cacheDirs, std::vector<std::string>{"/c/x"});
    } else if (kind == "cache-disabled") {
      EXPECT_TRUE(s.cacheDisabled);
    } else if (kind == "cache-init-failed") {
      EXPECT_TRUE(s.cacheInitFailed);
    } else if (kind == "kernel-cache") {
      EXPECT_EQ(s.kernelCaches, std::vector<std::string>{"/c/x"});
    } else if (kind == "autotune-cache") {
      EXPECT_EQ(s.autotuneCaches, std::vector<std::string>{"/c/x"});
    } else if (kind == "key-error") {
      EXPECT_EQ(s.keyErrors, 1u);
      EXPECT_EQ(s.firstKeyError, "some error");
    } else {
      ASSERT_EQ(kind, "skip");
      EXPECT_EQ(p.lookup, Lookup::Unknown);
      EXPECT_EQ(w.state, WriteState::Unknown);
    }
    if (needsMiss && kind != "attempted" && kind != "written" &&
        kind != "write-failed") {
      EXPECT_EQ(w.state, WriteState::NotWritten);
    }
  }
}

TEST(LogCompare, StreamedJsonIsTheWholeDocumentDumped) {
  // writeLogComparisonJson writes "pairs" one pair at a time; its text must
  // be nlohmann's dump of the whole document (logComparisonToJson), with
  // each pair on a line of its own (cliJsonLayout), for real logs whose
  // keys differ (a jax upgrade), are equal, and whose programs are found in
  // one run only.
  for (auto [a, b] : std::vector<std::pair<std::string, std::string>>{
           {"09-jax-upgrade/before_upgrade.log", "09-jax-upgrade/after_upgrade.log"},
           {"11-extra-program-in-resumed-run/fresh.log",
            "11-extra-program-in-resumed-run/resumed.log"},
           {"26-two-processes-one-log/run1.log", "26-two-processes-one-log/run2.log"}}) {
    auto c = compareLogs(readText(sourcePath("tests/cases/" + a)),
                         readText(sourcePath("tests/cases/" + b)), "A", "B");
    ASSERT_TRUE(c) << a << ": " << c.error().str();
    ASSERT_FALSE(c->pairs.empty()) << a;
    for (int indent : {2, -1}) {
      std::ostringstream streamed;
      writeLogComparisonJson(streamed, *c, Json::object(), indent);
      EXPECT_EQ(streamed.str(), cliJsonLayout(logComparisonToJson(*c), "pairs", indent))
          << a << " indent " << indent;
    }
    std::ostringstream text;
    writeLogComparison(text, *c);
    EXPECT_EQ(text.str(), formatLogComparison(*c)) << a;
  }
  // The advice's labels are streamed into the head (each item's
  // "programs"): names JSON must escape, several items, one without
  // programs.
  auto rename = [](std::string log) {
    for (size_t at; (at = log.find("'jit_f")) != std::string::npos;)
      log.replace(at, 6, "'jit_\"q\\\u00e9");
    return log;
  };
  std::string a = rename(readText(sourcePath("tests/cases/09-jax-upgrade/before_upgrade.log")));
  std::string b = rename(readText(sourcePath("tests/cases/09-jax-upgrade/after_upgrade.log")));
  ASSERT_NE(b.find("jit_\"q\\"), std::string::npos);
  for (const auto &[x, y] : std::vector<std::pair<std::string, std::string>>{
           {a, b}, {a + b, b + a}, {b, b}}) {
    auto c = compareLogs(x, y, "A", "B");
    ASSERT_TRUE(c) << c.error().str();
    Json whole = logComparisonToJson(*c);
    for (int indent : {2, -1}) {
      std::ostringstream streamed;
      writeLogComparisonJson(streamed, *c, Json::object(), indent);
      EXPECT_EQ(streamed.str(), cliJsonLayout(whole, "pairs", indent));
    }
    EXPECT_FALSE(whole["what_to_do"].empty());
  }
}

TEST(LogReader, StructuredFormatsReadAsThePlainOne) {
  // Case 09's real logs (basicConfig's LEVEL:logger:message) rewritten by
  // this test into the formats log shippers ingest: a JSON object per line
  // (the message a JSON string, then another member) and logfmt (msg="…"
  // quoted, then nothing). Each digest and key is followed by a quote, not
  // a blank; every program must read with the key of the plain log.
  for (const char *name : {"before_upgrade.log", "after_upgrade.log"}) {
    std::string plain = readText(sourcePath(std::string("tests/cases/09-jax-upgrade/") + name));
    std::string json, logfmt;
    std::istringstream lines(plain);
    for (std::string line; std::getline(lines, line);) {
      size_t a = line.find(':'), b = a == std::string::npos ? a : line.find(':', a + 1);
      if (b == std::string::npos) {
        json += line + "\n";
        logfmt += line + "\n";
        continue;
      }
      std::string level = line.substr(0, a), logger = line.substr(a + 1, b - a - 1),
                  msg = line.substr(b + 1);
      json += Json({{"level", level}, {"logger", logger}, {"msg", msg}, {"pid", 4242}}).dump() + "\n";
      std::string quoted;
      for (char c : msg)
        quoted += c == '"' || c == '\\' ? std::string("\\") + c : std::string(1, c);
      logfmt += "level=" + level + " logger=" + logger + " msg=\"" + quoted + "\"\n";
    }
    LogSummary want = readLog(plain, "plain");
    ASSERT_GT(want.programs.size(), 0u) << name;
    for (const auto &[format, text] : {std::pair<std::string, std::string>{"json", json}, {"logfmt", logfmt}}) {
      LogSummary got = readLog(text, format);
      ASSERT_EQ(got.programs.size(), want.programs.size()) << name << " " << format;
      EXPECT_EQ(got.problemCount, 0u) << name << " " << format;
      for (size_t i = 0; i < want.programs.size(); ++i) {
        EXPECT_EQ(got.keyOf(got.programs[i]), want.keyOf(want.programs[i])) << name << " " << format;
        EXPECT_EQ(got.programs[i].lookup, want.programs[i].lookup) << name << " " << format;
      }
    }
  }
}

TEST(LogReader, ThousandsOfCompilesOfOneProgramAreEachLookedUp) {
  // The same program compiled 5,000 times (the same digest lines each
  // time), each followed by its miss line: every compile gets its own
  // lookup, in order.
  std::string trace = withPrefix(traceOf("add_1x1"), "DEBUG:jax._src.cache_key:");
  KeyResult r = mustCompute(loadJson("fixtures/add_1x1.json"));
  std::string name = r.key.substr(0, r.key.rfind('-'));
  std::string miss = "DEBUG:jax._src.compiler:PERSISTENT COMPILATION CACHE MISS for '" +
                     name + "' with key '" + r.key + "'\n";
  LogReader reader("same");
  for (int i = 0; i < 5000; ++i)
    reader.feed(trace + miss);
  LogSummary s = reader.finish();
  ASSERT_EQ(s.programs.size(), 5000u);
  for (const auto &p : s.programs)
    EXPECT_EQ(p.lookup, Lookup::Miss);
}

TEST(LogCompare, KeysThatDifferWithoutATraceOrWithEqualEntriesAreSaidSo) {
  // The real logs of a jax upgrade without their get_cache_key lines: the
  // keys differ and neither run logged the trace.
  auto strip = [](const std::string &text) {
    std::istringstream in(text);
    std::string out, line;
    while (std::getline(in, line))
      if (line.find("get_cache_key") == std::string::npos)
        out += line + "\n";
    return out;
  };
  std::string before = readText(sourcePath("tests/cases/09-jax-upgrade/before_upgrade.log"));
  std::string after = readText(sourcePath("tests/cases/09-jax-upgrade/after_upgrade.log"));
  auto c = compareLogs(strip(before), strip(after), "A", "B");
  ASSERT_TRUE(c) << c.error().str();
  EXPECT_NE(logs::comparisonSentence(*c).find(". The keys differ (neither run logged the trace)."),
            std::string::npos) << logs::comparisonSentence(*c);

  // One run's log with its final running digest (and the key it names)
  // replaced: every own digest is equal, yet the keys differ.
  auto first = readLog(before, "A");
  ASSERT_FALSE(first.programs.empty());
  std::string old = toHex(*first.programs[0].digests().running[kNumEntries - 1]);
  std::string edited = before;
  std::string fake(64, 'f');
  for (size_t at = edited.find(old); at != std::string::npos; at = edited.find(old, at))
    edited.replace(at, old.size(), fake);
  auto d = compareLogs(before, edited, "A", "B");
  ASSERT_TRUE(d) << d.error().str();
  EXPECT_NE(logs::comparisonSentence(*d).find("Every entry's own digest is the same in both logs, yet the keys differ"),
            std::string::npos) << logs::comparisonSentence(*d);
}

namespace {

/// Everything a summary keeps that the reading of a line can change, as
/// one text (two summaries read the same exactly when their texts are).
std::string summaryText(const LogSummary &s) {
  std::ostringstream o;
  o << "lines " << s.lines << " long " << s.longLines << " endsMidLine " << s.endsMidLine
    << "\n";
  for (const auto &t : s.streams)
    o << "stream [" << t << "]\n";
  for (const LoggedProgram &p : s.programs) {
    o << "program " << p.name << " stream " << p.stream << " first " << p.firstLine
      << " lookup " << static_cast<int>(p.lookup) << "@" << p.lookupLine() << " write "
      << static_cast<int>(p.writeState) << " flags " << p.flags << " options "
      << p.compileOptions << " shapes " << p.shapes << " key " << s.keyOf(p) << "\n";
    for (int i = 0; i < kNumEntries; ++i)
      o << "  " << i << " " << (p.digests().own[i] ? toHex(*p.digests().own[i]) : "-") << " "
        << (p.digests().running[i] ? toHex(*p.digests().running[i]) : "-") << "\n";
  }
  for (const auto &x : s.problems)
    o << "problem " << logReadNoteText(x) << "\n";
  for (const auto &x : s.incomplete)
    o << "incomplete " << logReadNoteText(x) << "\n";
  for (const auto &f : s.flagSets)
    o << "flags " << f.size() << "\n";
  return o.str();
}

/// `log` read as one chunk (whole lines are read where they lie, digest
/// lines by readDigestLine) and one byte at a time (every line is first
/// gathered, then read by readLine): the same summary, line for line.
void expectReadTheSameWholeAndByteByByte(const std::string &log, const std::string &what) {
  LogSummary whole = readLog(log, "x");
  LogReader bytes("x");
  for (char c : log)
    bytes.feed(std::string_view(&c, 1));
  EXPECT_EQ(summaryText(whole), summaryText(bytes.finish())) << what;
}

} // namespace

TEST(LogReader, DigestLinesReadWhereTheyLieAreReadAsReadLineReadsThem) {
  // The shortcut for a digest line after the prefix of the one before must
  // read every line as the whole-line reader does, including the lines it
  // has to leave to it.
  const std::string p = "DEBUG:jax._src.cache_key:";
  std::vector<std::string> t = traceOf("add_1x1");
  std::vector<std::string> variants;
  variants.push_back(withPrefix(t, p));
  {
    std::string v; // a "\r" and blanks after the digest
    for (size_t i = 0; i < t.size(); ++i)
      v += p + t[i] + (i % 3 == 0 ? "\r" : i % 3 == 1 ? " \t" : "  \r") + "\n";
    variants.push_back(v);
  }
  {
    // The last line of one key and the first of the next on one line.
    std::string v = withPrefix(t, p);
    v.pop_back();
    variants.push_back(v + withPrefix(t, p) + withPrefix(t, p));
  }
  for (const char *bad : {"ABCDEF", "63", "zz"}) {
    std::string v;
    for (size_t i = 0; i < t.size(); ++i) {
      std::string line = t[i];
      if (i == 5) {
        std::string hex = line.substr(line.size() - 64);
        if (std::string(bad) == "ABCDEF")
          for (char &c : hex)
            c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
        else if (std::string(bad) == "63")
          hex.pop_back();
        else
          hex[10] = 'z';
        line = line.substr(0, line.size() - 64) + hex;
      }
      v += p + line + "\n";
    }
    variants.push_back(v + withPrefix(t, p));
  }
  // Two processes interleaved line by line, each with its own prefix.
  {
    std::string v;
    for (size_t i = 0; i < t.size(); ++i)
      v += "[rank0]: " + p + t[i] + "\n" + "[rank1]: " + p + t[i] + "\n";
    variants.push_back(v);
  }
  // A prefix that itself holds the other message's words: never a shortcut.
  variants.push_back(withPrefix(t, "x get_cache_key hash after serializing y: "));
  variants.push_back(withPrefix(t, "get_cache_key hash of serialized z: "));
  // The prefix changes in the middle of a key, and back.
  {
    std::string v;
    for (size_t i = 0; i < t.size(); ++i)
      v += (i == 7 ? "INFO:jax._src.cache_key:" : p) + t[i] + "\n";
    variants.push_back(v);
  }
  for (size_t k = 0; k < variants.size(); ++k)
    expectReadTheSameWholeAndByteByByte(variants[k], "variant " + std::to_string(k));
  // Every real log of tests/cases, and all of them one after the other.
  std::string all;
  for (const std::string dir : {"09-jax-upgrade", "26-two-processes-one-log", "08-log-formats",
                                 "27-log-formats", "37-old-lines-0.4.30", "07-truncated-log",
                                 "33-size-cap-eviction", "34-x64-from-environment"}) {
    DIR *d = opendir(sourcePath("tests/cases/" + dir).c_str());
    ASSERT_NE(d, nullptr) << dir;
    std::vector<std::string> logs;
    while (dirent *e = readdir(d)) {
      std::string n = e->d_name;
      if (n.size() > 4 && n.substr(n.size() - 4) == ".log")
        logs.push_back(n);
    }
    closedir(d);
    std::sort(logs.begin(), logs.end());
    ASSERT_FALSE(logs.empty()) << dir;
    for (const auto &n : logs) {
      std::string text = readText(sourcePath("tests/cases/" + dir + "/" + n));
      expectReadTheSameWholeAndByteByByte(text, dir + "/" + n);
      all += text;
    }
  }
  expectReadTheSameWholeAndByteByByte(all, "every log in a row");
}

TEST(LogLines, ContainsByIsFind) {
  // mayMatter's search by a rare byte gives find's answer, for needles met
  // at the start, the end, overlapping themselves, cut at the end, absent.
  using logs::lines::containsBy;
  const std::vector<std::string> lines = {
      "", "a", "ache", "xache", "cache", "acheX", "aache", "ach", "che", "cccc",
      "compil", "ompil", "ompi", "xompilx", "ACHE", "CACHE", "ACH",
      "falling back", "falling bac", "ing back", "falling backfalling back",
      "tracing + transforming update_1 for pjit in 0.0010 sec"};
  for (const auto &line : lines)
    for (auto [needle, at] : std::vector<std::pair<std::string, size_t>>{
             {"ache", 1}, {"ompil", 2}, {"ACHE", 2}, {"falling back", 11}, {"ache", 0},
             {"ache", 3}})
    {
      EXPECT_EQ(containsBy(line, needle, at), line.find(needle) != std::string::npos)
          << "'" << line << "' / '" << needle << "' by " << at;
      EXPECT_EQ(logs::lines::findBy(line, needle, at), line.find(needle))
          << "'" << line << "' / '" << needle << "' by " << at;
    }
  // Random lines over a small alphabet, where near misses are common.
  uint64_t x = 88172645463325252ull;
  for (int n = 0; n < 20000; ++n) {
    std::string line;
    size_t len = (x >> 7) % 40;
    for (size_t i = 0; i < len; ++i) {
      x ^= x << 13, x ^= x >> 7, x ^= x << 17;
      line += "aceh"[x % 4];
    }
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    EXPECT_EQ(containsBy(line, "ache", 1), line.find("ache") != std::string::npos) << line;
    EXPECT_EQ(containsBy(line, "ache", 3), line.find("ache") != std::string::npos) << line;
    EXPECT_EQ(logs::lines::findBy(line, "ache", 1), line.find("ache")) << line;
  }
}

namespace {
/// findMessage<M> against std::string::find on lines made from M: M alone,
/// after a prefix and before a suffix, twice, cut short by one byte, and
/// with each one of its bytes changed (a near miss at every place, the
/// rarest byte among them), each also after a partial copy of M.
template <const auto &M> void expectFindMessageIsFind(const char *name) {
  const std::string m = M;
  ASSERT_LT(logs::lines::rarestByte(m), m.size()) << name;
  std::vector<std::string> lines = {m, "DEBUG:jax._src.compiler:" + m + "'jit_f'",
                                    m + m, m.substr(0, m.size() - 1), "", "x"};
  for (size_t i = 0; i < m.size(); ++i) {
    std::string near = m;
    near[i] = near[i] == '#' ? '%' : '#';
    lines.push_back(near);
    lines.push_back(near + m);
    lines.push_back(m.substr(0, i) + m);
  }
  for (const auto &line : lines)
    EXPECT_EQ(logs::lines::findMessage<M>(line), line.find(m)) << name << " in '" << line << "'";
}
} // namespace

TEST(LogLines, FindMessageIsFind) {
  // Every message LogReader::readLine looks for, found by its rarest byte,
  // is found where find finds it, and only there.
  using namespace logs::lines;
#define CACHEKEY_EXPECT_FIND(M) expectFindMessageIsFind<M>(#M)
  CACHEKEY_EXPECT_FIND(kAutoFdo); CACHEKEY_EXPECT_FIND(kCompileOptions);
  CACHEKEY_EXPECT_FIND(kDisabled); CACHEKEY_EXPECT_FIND(kEnablingAutotune);
  CACHEKEY_EXPECT_FIND(kEnablingKernel); CACHEKEY_EXPECT_FIND(kEvicting);
  CACHEKEY_EXPECT_FIND(kEvictingOld); CACHEKEY_EXPECT_FIND(kFallback);
  CACHEKEY_EXPECT_FIND(kHit); CACHEKEY_EXPECT_FIND(kIncluding);
  CACHEKEY_EXPECT_FIND(kInconsistency); CACHEKEY_EXPECT_FIND(kInitFailed);
  CACHEKEY_EXPECT_FIND(kInitialized); CACHEKEY_EXPECT_FIND(kKeyError);
  CACHEKEY_EXPECT_FIND(kLookupNoCache); CACHEKEY_EXPECT_FIND(kLruHit);
  CACHEKEY_EXPECT_FIND(kLruMiss); CACHEKEY_EXPECT_FIND(kMiss);
  CACHEKEY_EXPECT_FIND(kNotIncluding); CACHEKEY_EXPECT_FIND(kNotProcessZero);
  CACHEKEY_EXPECT_FIND(kNotWritingFor); CACHEKEY_EXPECT_FIND(kNotWritingKey);
  CACHEKEY_EXPECT_FIND(kNotWritingKeyOld); CACHEKEY_EXPECT_FIND(kOwn);
  CACHEKEY_EXPECT_FIND(kPgleLoaded); CACHEKEY_EXPECT_FIND(kPgleMiss);
  CACHEKEY_EXPECT_FIND(kPutNoCache); CACHEKEY_EXPECT_FIND(kReadError);
  CACHEKEY_EXPECT_FIND(kRunning); CACHEKEY_EXPECT_FIND(kShapes);
  CACHEKEY_EXPECT_FIND(kTooLargeMax); CACHEKEY_EXPECT_FIND(kTooLargeStart);
  CACHEKEY_EXPECT_FIND(kTookAtLeast); CACHEKEY_EXPECT_FIND(kUnsupported);
  CACHEKEY_EXPECT_FIND(kWriteError); CACHEKEY_EXPECT_FIND(kWritingKey);
#undef CACHEKEY_EXPECT_FIND
}

TEST(LogCompare, StreamedJsonWritesEachNumberAsTheWholeDumpDoes) {
  // The streamed writer reuses the text of findings it has written; values
  // that nlohmann holds equal but writes differently (0.0 and -0.0) must
  // still be written as they are. The second run's compile times here are
  // 0.00 s and -0.00 s in turn (a hand-made log: JAX's clock never runs
  // back), in blocks of three programs.
  std::string a = readText(sourcePath("tests/cases/09-jax-upgrade/before_upgrade.log"));
  std::string b = readText(sourcePath("tests/cases/09-jax-upgrade/after_upgrade.log"));
  const std::regex took("to compile \\([0-9.]+s\\)");
  ASSERT_TRUE(std::regex_search(b, took));
  std::string manyA, manyB;
  for (int i = 0; i < 40; ++i) {
    manyA += a;
    manyB += std::regex_replace(b, took, i % 2 ? "to compile (-0.00s)" : "to compile (0.00s)");
  }
  auto c = compareLogs(manyA, manyB, "A", "B");
  ASSERT_TRUE(c) << c.error().str();
  std::ostringstream streamed;
  writeLogComparisonJson(streamed, *c);
  std::string whole = cliJsonLayout(logComparisonToJson(*c), "pairs", 2);
  EXPECT_NE(whole.find("\"compile_seconds\":-0.0"), std::string::npos);
  EXPECT_EQ(streamed.str(), whole);
}

// A 1 GB log holds about 220,000 programs, and a comparison of two keeps
// every program and a pair for each (issue 21's budget: 64 MB): the records
// stay small. The sizes are those of the fields (LogReader.h, LogCompare.h)
// on a 64-bit host, with no padding between them: a program is four
// pointers, one word of first line and bit-fields, two 32-bit line
// distances and four 32-bit indices.
TEST(LogReader, ProgramsAndPairsStaySmall) {
  if constexpr (sizeof(void *) == 8) {
    EXPECT_EQ(sizeof(KeptName), 8u);
    EXPECT_LE(sizeof(LoggedProgram), 4 * 8 + 8 + 2 * 4 + 4 * 4u);
    EXPECT_LE(sizeof(ProgramPair), 24u);
  }
}

// What a program keeps compactly reads back as the reader was given it: its
// lookup and write lines (as distances from its first line), its write
// numbers (kept once per distinct value: programs alike share them, and 0.0
// and -0.0 are two values), its rare texts.
TEST(LogReader, CompactProgramsReadBackWhatTheLogSaid) {
  const std::string key = "jit_f-" + std::string(64, 'a');
  auto block = [&](int i, const std::string &secs) {
    std::string k = "jit_f" + std::to_string(i) + "-" + std::string(64, static_cast<char>('a' + i));
    return "DEBUG:jax._src.compiler:PERSISTENT COMPILATION CACHE MISS for 'jit_f" +
           std::to_string(i) + "' with key '" + k + "'\nDEBUG:jax._src.compiler:Not writing "
           "persistent cache entry for 'jit_f" + std::to_string(i) + "' because it took < 1.00 "
           "seconds to compile (" + secs + "s)\n";
  };
  std::string log = "INFO:x:unrelated\n" + block(0, "0.25") + block(1, "0.25") +
                    block(2, "-0.00") + block(3, "0.00") +
                    "WARNING:jax._src.compiler:Error reading persistent compilation cache "
                    "entry for 'jit_f4': truncated stream\n" + block(4, "0.30");
  LogSummary s = readLog(log);
  ASSERT_EQ(s.programs.size(), 5u);
  for (size_t i = 0; i < 4; ++i) {
    const LoggedProgram &p = s.programs[i];
    EXPECT_EQ(p.firstLine, 2 + 2 * i);
    EXPECT_EQ(p.lookupLine(), 2 + 2 * i);
    EXPECT_EQ(p.write().line, 3 + 2 * i);
    EXPECT_EQ(p.writeReason, NotWrittenReason::CompileTime);
    EXPECT_EQ(p.write().minCompileSeconds, 1.0);
    EXPECT_EQ(p.readError(), -1);
  }
  EXPECT_EQ(s.programs[0].write().compileSeconds, 0.25);
  EXPECT_EQ(s.programs[0].extras, s.programs[1].extras);
  EXPECT_TRUE(std::signbit(s.programs[2].write().compileSeconds));
  EXPECT_FALSE(std::signbit(s.programs[3].write().compileSeconds));
  EXPECT_NE(s.programs[2].extras, s.programs[3].extras);
  const LoggedProgram &damaged = s.programs[4];
  EXPECT_EQ(damaged.lookupLine(), 11u);
  ASSERT_GE(damaged.readError(), 0);
  EXPECT_EQ(s.texts[damaged.readError()], "truncated stream");
  EXPECT_EQ(damaged.write().compileSeconds, 0.30);
  // A program that hit keeps no numbers of its own.
  LogSummary hit = readLog("DEBUG:jax._src.compiler:Persistent compilation cache hit for "
                           "'jit_f' with key '" + key + "'\n");
  ASSERT_EQ(hit.programs.size(), 1u);
  EXPECT_EQ(hit.programs[0].extras, &ProgramExtras::none());
  EXPECT_EQ(hit.programs[0].write().line, 0u);
}

// Names are the summary's own: a program's name outlives the text it was
// read from, survives moving the summary, and names seen again share one
// copy.
TEST(LogReader, NamesAreTheSummarysOwn) {
  std::string log;
  for (int i = 0; i < 3; ++i)
    log += "DEBUG:jax._src.compiler:PERSISTENT COMPILATION CACHE MISS for 'jit_f" +
           std::to_string(i % 2) + "' with key 'jit_f" + std::to_string(i % 2) + "-" +
           std::string(64, static_cast<char>('a' + i)) + "'\n";
  LogSummary s = readLog(log);
  LogSummary moved = std::move(s);
  ASSERT_EQ(moved.programs.size(), 3u);
  log.assign(log.size(), 'x'); // the text read is gone
  EXPECT_EQ(moved.programs[0].name, "jit_f0");
  EXPECT_EQ(moved.programs[1].name, "jit_f1");
  EXPECT_EQ(moved.programs[2].name, "jit_f0");
  EXPECT_EQ(moved.programs[0].name.data(), moved.programs[2].name.data());
  // A long name, longer than one block of names, is kept whole too.
  std::string big(100000, 'n');
  EXPECT_EQ(moved.keepName(big), big);
  EXPECT_EQ(moved.keepName(""), "");
  // Names of every length about the one-byte length's limit (KeptName).
  for (size_t n : {1u, 254u, 255u, 256u, 70000u}) {
    std::string name(n, 'q');
    name.back() = 'z';
    EXPECT_EQ(moved.keepName(name), name) << n;
  }
}

// tests/cases/43 (real jax 0.12.0.1 runs through rich's RichHandler on a
// wide console): the record's file and line follow each message after
// blanks; digests and keys end before them.
TEST(LogReader, TextAfterTheMessageIsNotPartOfTheDigest) {
  auto c = compareCase("43-rich-handler-wide", "a.log", "b.log");
  for (const LogSummary &log : c.logs) {
    EXPECT_EQ(log.problemCount, 0u) << log.name;
    EXPECT_TRUE(log.incomplete.empty()) << log.name;
  }
  const ProgramPair *loss = pairLabelled(c, "jit_loss");
  const ProgramPair *mul = pairLabelled(c, "jit_mul");
  ASSERT_TRUE(loss && mul);
  EXPECT_EQ(loss->keys, ProgramPair::Keys::Differ);
  EXPECT_EQ(loss->cause, 1);
  EXPECT_EQ(mul->keys, ProgramPair::Keys::Equal);
  EXPECT_EQ(c.logs[1].programs[mul->b].lookup, Lookup::Hit);
  EXPECT_EQ(c.logs[1].programs[loss->b].lookup, Lookup::Miss);
  EXPECT_EQ(c.logs[1].programs[loss->b].writeState, WriteState::Written);
}

// A gzip file (RFC 1952: it starts with the bytes 1f 8b) and UTF-16 text
// (PowerShell's 2> writes UTF-16LE with the byte-order mark FF FE) are not
// logs to read: the error names the log and says which, instead of "no
// cache-key lines". The text is a real log (tests/cases/42) made so.
TEST(LogReader, GzipUtf16AndBinaryFilesAreNamedAsSuch) {
  const std::string text =
      readText(sourcePath("tests/cases/42-xla-caches-none-and-cache-off/plain.log"));
  std::string gzip = std::string("\x1f\x8b\x08\x00", 4) + text.substr(0, 200);
  std::string utf16 = "\xff\xfe";
  for (char ch : text) {
    utf16 += ch;
    utf16 += '\0';
  }
  // UTF-16 without a byte-order mark, both byte orders; and a binary file
  // that is not text at all: this test's own executable (an ELF file, NUL
  // bytes at its 8th to 16th: the ELF header's padding), which was taken
  // for UTF-16 before.
  std::string le, be;
  for (char ch : text.substr(0, 400)) {
    le += std::string{ch, '\0'};
    be += std::string{'\0', ch};
  }
  std::string elf = readText("/proc/self/exe").substr(0, 4096);
  ASSERT_EQ(elf.substr(0, 4), "\x7f" "ELF");
  for (const auto &[bytes, subject] : {std::pair<std::string, std::string>{gzip, "gzip_log"},
                                       {utf16, "utf16_log"}, {le, "utf16_log"},
                                       {be, "utf16_log"}, {elf, "binary_file"}}) {
    auto two = compareLogs(text, bytes, "plain.log", "other.log");
    ASSERT_FALSE(two) << subject;
    EXPECT_EQ(two.error().path, "other.log");
    EXPECT_EQ(two.error().subject, subject);
    std::vector<LogSummary> three;
    three.push_back(readLog(text, "a.log"));
    three.push_back(readLog(text, "b.log"));
    three.push_back(readLog(bytes, "c.log"));
    auto many = compareManyLogSummaries(std::move(three));
    ASSERT_FALSE(many) << subject;
    EXPECT_EQ(many.error().path, "c.log");
    EXPECT_EQ(many.error().subject, subject);
  }
}

TEST(LogReader, AControlByteInADigestIsShownEscaped) {
  // Case 42's plain.log with a carriage return and a 0x01 byte written into
  // its first own digest (the change made here): the note names the byte
  // as \r, and shows the digest's start with \x01, never the raw bytes.
  std::string text = readText(sourcePath("tests/cases/42-xla-caches-none-and-cache-off/plain.log"));
  const std::string own = "get_cache_key hash of serialized computation: ";
  size_t at = text.find(own);
  ASSERT_NE(at, std::string::npos);
  at += own.size();
  text[at + 1] = '\x01';
  text[at + 3] = '\r';
  LogSummary s = readLog(text, "plain.log");
  std::string said;
  for (const LogReadNote &n : s.problems)
    if (n.code == LogReadNote::Code::DigestNotSha256)
      said = logReadNoteText(n);
  EXPECT_NE(said.find("character 2 ('\\x01')"), std::string::npos) << said;
  EXPECT_NE(said.find("\\x01"), std::string::npos) << said;
  EXPECT_EQ(said.find('\r'), std::string::npos) << said;
  EXPECT_EQ(said.find('\x01'), std::string::npos) << said;
  text[at + 1] = '0';
  said.clear();
  for (const LogReadNote &n : readLog(text, "plain.log").problems)
    if (n.code == LogReadNote::Code::DigestNotSha256)
      said = logReadNoteText(n);
  EXPECT_NE(said.find("character 4 ('\\r')"), std::string::npos) << said;
}

TEST(LogReader, ALogWhoseLinesEndInCrAloneReadsAsItsLfTwin) {
  // Case 42's plain.log with each line feed made a carriage return (the
  // change made here: classic Mac OS line ends): the same programs, keys
  // and lines as the log itself, read whole, one byte at a time (a chunk
  // ends right after each '\r') and in chunks of 7 bytes. Before, it was one
  // long line and no key.
  const std::string lf = readText(sourcePath("tests/cases/42-xla-caches-none-and-cache-off/plain.log"));
  std::string cr = lf;
  std::replace(cr.begin(), cr.end(), '\n', '\r');
  ASSERT_EQ(cr.find('\n'), std::string::npos);
  const LogSummary want = readLog(lf, "plain.log");
  ASSERT_FALSE(want.programs.empty());
  EXPECT_EQ(summaryText(readLog(cr, "plain.log")), summaryText(want));
  LogReader bytes("plain.log");
  for (char c : cr)
    bytes.feed(std::string_view(&c, 1));
  EXPECT_EQ(summaryText(bytes.finish()), summaryText(want));
  LogReader sevens("plain.log");
  for (size_t i = 0; i < cr.size(); i += 7)
    sevens.feed(std::string_view(cr).substr(i, 7));
  EXPECT_EQ(summaryText(sevens.finish()), summaryText(want));
  // A CRLF log stays a CRLF log: its '\r' bytes are not line breaks too.
  std::string crlf;
  for (char c : lf)
    crlf += c == '\n' ? std::string("\r\n") : std::string(1, c);
  EXPECT_EQ(summaryText(readLog(crlf, "plain.log")), summaryText(want));
}

TEST(LogLines, AListOfShapesReadsAsTheTuplePythonPrints) {
  // Python's repr of tuple(the list): "(a, b)", "(a,)" for one item, "()"
  // for none; a tuple and other text are kept as they are.
  using namespace cachekey::logs::lines;
  EXPECT_EQ(listAsTuple("[ShapedArray(float32[4]), ShapedArray(float32[3,4])]"),
            "(ShapedArray(float32[4]), ShapedArray(float32[3,4]))");
  EXPECT_EQ(listAsTuple("[ShapedArray(float32[16,32])]"), "(ShapedArray(float32[16,32]),)");
  EXPECT_EQ(listAsTuple("[]"), "()");
  EXPECT_EQ(listAsTuple("(ShapedArray(int32[]),)"), "(ShapedArray(int32[]),)");
  EXPECT_EQ(listAsTuple("[a, 'x, y']"), "(a, 'x, y')");
  EXPECT_EQ(listAsTuple("["), "[");
}

TEST(LogCompare, ShapesLoggedAsAListPairWithTheSameShapesAsATuple) {
  // jax 0.4.30's pxla logs "Compiling f with global shapes and types [a,
  // b]", later releases "(a, b)". Case 09's after_upgrade_jaxfmt.log (jax
  // 0.12.0.1) with its shapes lines rewritten in the list form (the change
  // made here) against before_upgrade_jaxfmt.log (0.10.2): every key
  // differs (the upgrade), so the programs pair by name and shapes, and
  // each still pairs with its own, moved by the upgrade. Before, the list
  // and the tuple did not match: each program was new in one log and only
  // in the other.
  const std::string dir = "tests/cases/09-jax-upgrade/";
  const std::string text = readText(sourcePath(dir + "after_upgrade_jaxfmt.log"));
  const std::string shapes = " with global shapes and types (", mapping = ". Argument mapping: ";
  std::string listed;
  size_t rewritten = 0;
  for (size_t at = 0, nl; at < text.size(); at = nl + 1) {
    nl = text.find('\n', at);
    if (nl == std::string::npos)
      nl = text.size();
    std::string line = text.substr(at, nl - at);
    size_t s = line.find(shapes), m = line.find(mapping);
    if (s != std::string::npos && m != std::string::npos && line[m - 1] == ')') {
      size_t open = s + shapes.size() - 1;
      std::string inner = line.substr(open + 1, m - 1 - open - 1);
      if (!inner.empty() && inner.back() == ',')
        inner.pop_back(); // "(a,)" is "[a]"
      line = line.substr(0, open) + "[" + inner + "]" + line.substr(m);
      ++rewritten;
    }
    listed += line + (nl < text.size() ? "\n" : "");
  }
  ASSERT_EQ(rewritten, 3u);
  auto c = compareLogs(readText(sourcePath(dir + "before_upgrade_jaxfmt.log")), listed,
                       "before_upgrade_jaxfmt.log", "after-listed.log");
  ASSERT_TRUE(c);
  EXPECT_EQ(c->verdict.fresh, 0u);
  ASSERT_EQ(c->pairs.size(), 3u);
  for (const ProgramPair &p : c->pairs) {
    EXPECT_TRUE(p.a >= 0 && p.b >= 0) << c->labelOf(p);
    EXPECT_EQ(p.keys, ProgramPair::Keys::Differ) << c->labelOf(p);
    EXPECT_EQ(c->moveOf(p).code, KeyMove::Code::JaxlibUpgrade) << c->labelOf(p);
  }
}

TEST(LogLines, ATupleOfReprsIsReadToItsMatchingParenthesis) {
  // Texts as pxla.py logs an argument mapping (case 48's run B), alone and
  // as a JSON formatter ends its message after it.
  using namespace cachekey::logs::lines;
  const std::string mapping =
      "(UnspecifiedValue, NamedSharding(mesh=Mesh('d': 2, axis_types=(Auto,)), "
      "spec=P(None, 'd'), memory_kind=device))";
  EXPECT_EQ(balancedTuple(mapping + "."), mapping);
  EXPECT_EQ(balancedTuple(mapping + ".\", \"pid\": 17840}"), mapping);
  EXPECT_EQ(balancedTuple("('a)', [1, (2)])x"), "('a)', [1, (2)])");
  EXPECT_EQ(balancedTuple("(unclosed, (x)"), "");
  EXPECT_EQ(balancedTuple("no tuple"), "");
  const std::vector<std::string> items = tupleItems(mapping);
  ASSERT_EQ(items.size(), 2u);
  EXPECT_EQ(items[0], "UnspecifiedValue");
  EXPECT_EQ(items[1], "NamedSharding(mesh=Mesh('d': 2, axis_types=(Auto,)), "
                      "spec=P(None, 'd'), memory_kind=device)");
  EXPECT_EQ(tupleItems("(x,)"), std::vector<std::string>{"x"});
  EXPECT_EQ(tupleItems("('a, b', c)"), (std::vector<std::string>{"'a, b'", "c"}));
  EXPECT_TRUE(tupleItems("x, y").empty());
}
