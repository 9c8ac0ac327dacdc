//===- LogReader.cpp - A whole JAX log, one program at a time -------------===//
//
// The message texts below are JAX's format strings (jax/_src/cache_key.py,
// compiler.py, compilation_cache.py, jax 0.4.30 – 0.12.0.1), cut where a
// value is substituted.
//
//===----------------------------------------------------------------------===//
#include "cachekey/LogReader.h"

#include "cachekey/KnownDigests.h"
#include "cachekey/LogPrefix.h"

#include <algorithm>
#include <cstdlib>

namespace cachekey {

namespace {

// jax._src.cache_key
const char kOwn[] = "get_cache_key hash of serialized ";
const char kRunning[] = "get_cache_key hash after serializing ";
const char kIncluding[] = "Including XLA flag in cache key: ";
const char kNotIncluding[] = "Not including XLA flag in cache key: ";
const char kFallback[] = "get (_hash_accelerator_config): unable to hash "
                         "accelerator config, falling back to hashing devices";
// jax._src.compiler
const char kMiss[] = "PERSISTENT COMPILATION CACHE MISS for '";
const char kHit[] = "Persistent compilation cache hit for '";
const char kNotWritingFor[] = "Not writing persistent cache entry for '";
const char kBecauseTook[] = "' because it took < ";
const char kBecauseCallbacks[] = "' because it uses host callbacks";
const char kNotProcessZero[] =
    "Not writing persistent cache entry since process_id != 0";
const char kTookAtLeast[] = "' took at least ";
const char kEnablingAutotune[] = "Enabling XLA autotuning cache at '";
const char kEnablingKernel[] = "Enabling XLA kernel cache at '";
const char kCompileOptions[] = "get_compile_options: num_replicas=";
const char kKeyError[] =
    "compile_or_get_cached: unable to generate cache key, skipping the cache: ";
const char kWriteError[] = "Error writing persistent compilation cache entry for '";
// jax._src.compilation_cache
const char kInitialized[] = "Initialized persistent compilation cache at ";
const char kDisabled[] = "_initialize_cache: cache is disabled!";
const char kInitFailed[] = "_initialize_cache: cache initialization failed!";
const char kWriting[] = "Writing ";
const char kWritingKey[] = " to persistent compilation cache with key ";
const char kNotWritingKey[] = "Not writing persistent cache entry with key ";
const char kNotWritingKeyOld[] = "Not writing cache entry with key "; // 0.4.30
const char kSinceSize[] = " since its size (";
const char kSinceDisabled[] = " since cache is disabled/not initialized";
const char kLookupNoCache[] =
    "get_executable_and_time: cache is disabled/not initialized";
const char kPutNoCache[] = // 0.4.30
    "put_executable_and_time: cache is disabled/not initialized";
const char kUnsupported[] = "_get_cache: Unsupported runtime: ";
const char kInconsistency[] = "Persistent compilation cache inconsistency for key";
// jax._src.compiler, reads and PGLE
const char kReadError[] = "Error reading persistent compilation cache entry for '";
const char kPgleMiss[] = "PERSISTENT CACHE MISS for PGLE-optimized ";
const char kPgleLoaded[] = " loaded from compilation cache";
// jax._src.lru_cache
const char kLruMiss[] = "Cache miss for key: ";
const char kLruHit[] = "Cache hit for key: ";
const char kEvicting[] = "Evicting cache entry ";
const char kEvictingOld[] = "Evicting cache file "; // 0.4.30
const char kFileSize[] = ": file size ";
const char kTarget[] = "target cache size ";
const char kTooLargeStart[] = "Cache value for key ";
const char kTooLargeSize[] = " of size ";
const char kTooLargeMax[] = " exceeds the maximum cache size of ";
// jax._src.interpreters.pxla
const char kShapes[] = " with global shapes and types ";
const char kArgMapping[] = ". Argument mapping: ";

constexpr size_t kMaxLine = size_t(1) << 20;
constexpr size_t kMaxProblems = 20;
constexpr size_t kMaxPaths = 16;
constexpr size_t kMaxText = 4096;

template <size_t N> constexpr size_t len(const char (&)[N]) { return N - 1; }

/// Slot of a digest line in a key: own then running, entry by entry.
int slotOf(int entry, bool own) { return 2 * entry + (own ? 0 : 1); }

/// Strips a Python repr's quotes: 'x' or "x" → x.
std::string unquote(std::string s) {
  while (!s.empty() && (s.back() == ' ' || s.back() == '.'))
    s.pop_back();
  if (s.size() >= 2 && (s[0] == '\'' || s[0] == '"') && s.back() == s[0])
    return s.substr(1, s.size() - 2);
  return s;
}

/// The 64-hex digest at the end of a key "<name>-<hex>".
std::optional<Digest> keyDigest(const std::string &key) {
  if (key.size() < 65 || key[key.size() - 65] != '-')
    return std::nullopt;
  return digestFromHex(key.substr(key.size() - 64));
}

/// Parses a decimal number at the start of `s` (strtod: locale-free for
/// the digits and '.' JAX prints).
double number(const std::string &s) {
  return std::strtod(s.c_str(), nullptr);
}

void addDistinct(std::vector<std::string> &list, std::string value) {
  if (list.size() < kMaxPaths &&
      std::find(list.begin(), list.end(), value) == list.end())
    list.push_back(std::move(value));
}

/// Whether a line can be one of the messages read here: every one of them
/// has "ache"/"ACHE" (cache), "ompil" (compile, Compiling, compilation) or
/// "falling back". Most lines of a real log have none.
bool mayMatter(std::string_view line) {
  return line.find("ache") != std::string_view::npos ||
         line.find("ompil") != std::string_view::npos ||
         line.find("ACHE") != std::string_view::npos ||
         line.find("falling back") != std::string_view::npos;
}

} // namespace

bool LoggedProgram::complete() const { return digestLines() == 16 ||
  (digestLines() == 14 && !own[2] && !running[2] && running[7]); }

int LoggedProgram::digestLines() const {
  int n = 0;
  for (int i = 0; i < kNumEntries; ++i)
    n += (own[i] ? 1 : 0) + (running[i] ? 1 : 0);
  return n;
}

std::optional<Digest> LoggedProgram::finalDigest() const {
  return running[7] ? running[7] : keyDigest;
}

std::vector<int> LogSummary::comparable() const {
  std::vector<int> out;
  for (size_t i = 0; i < programs.size(); ++i)
    if (programs[i].complete() ||
        (programs[i].keyDigest && programs[i].digestLines() == 0))
      out.push_back(static_cast<int>(i));
  return out;
}

LogReader::LogReader(std::string name) { summary.name = std::move(name); }

void LogReader::feed(std::string_view chunk) {
  size_t start = 0;
  while (start < chunk.size()) {
    size_t nl = chunk.find('\n', start);
    size_t end = nl == std::string_view::npos ? chunk.size() : nl;
    if (partial.empty() && !skippingLongLine && nl != std::string_view::npos &&
        end - start <= kMaxLine && !mayMatter(chunk.substr(start, end - start))) {
      ++summary.lines; // a whole line that is not about the cache: no copy
      start = nl + 1;
      continue;
    }
    if (!skippingLongLine) {
      size_t room = kMaxLine - partial.size();
      partial.append(chunk.substr(start, std::min(end - start, room)));
      if (end - start > room) {
        skippingLongLine = true;
        ++summary.longLines;
      }
    }
    if (nl == std::string_view::npos)
      break;
    readLine(partial);
    partial.clear();
    skippingLongLine = false;
    start = nl + 1;
  }
}

LogSummary LogReader::finish() {
  if (!partial.empty()) {
    summary.endsMidLine = true;
    readLine(partial);
    partial.clear();
  }
  for (auto &s : streams)
    if (s.pending >= 0) {
      const LoggedProgram &p = summary.programs[s.pending];
      summary.incomplete.push_back(
          "the key starting at line " + std::to_string(p.firstLine) +
          " is incomplete: it stops after " + std::to_string(p.digestLines()) +
          " of its 16 digest lines: the log ends there");
      s.pending = -1;
    }
  return std::move(summary);
}

void LogReader::problem(std::string text) {
  if (summary.problems.size() < kMaxProblems)
    summary.problems.push_back(std::move(text));
  ++summary.problemCount;
}

int LogReader::intern(std::vector<std::string> &texts, std::string text) {
  if (text.size() > kMaxText)
    text = text.substr(0, kMaxText) + "\u2026";
  // Programs mostly share a handful of texts; look at the recent ones.
  for (size_t i = texts.size(); i > 0 && texts.size() - i < 64; --i)
    if (texts[i - 1] == text)
      return static_cast<int>(i - 1);
  texts.push_back(std::move(text));
  return static_cast<int>(texts.size() - 1);
}

int LogReader::streamOf(std::string_view prefix) {
  // Most lines repeat one of a few prefixes ("DEBUG:jax._src.cache_key:"):
  // the tag of a prefix seen lately is not made again.
  for (const auto &[seen, id] : recentPrefixes)
    if (seen == prefix)
      return id;
  int id = tagStream(prefix);
  if (prefix.size() <= 128) {
    recentPrefixes[nextRecent] = {std::string(prefix), id};
    nextRecent = (nextRecent + 1) % recentPrefixes.size();
  }
  return id;
}

int LogReader::tagStream(std::string_view prefix) {
  std::string tag = streamTag(prefix);
  auto &tags = summary.streams;
  for (size_t i = 0; i < tags.size(); ++i)
    if (tags[i] == tag)
      return static_cast<int>(i);
  // A log with a timestamp format the tagger does not know could give every
  // line its own tag; past 256 tags, lines share the untagged stream.
  if (tags.size() >= 256)
    return 0;
  tags.push_back(tag);
  streams.emplace_back();
  return static_cast<int>(tags.size() - 1);
}

int LogReader::programAwaitingEntry(int streamId, int slot) {
  auto accepts = [&](int p) {
    if (p < 0)
      return false;
    const LoggedProgram &prog = summary.programs[p];
    for (int s = 0; s < slot; ++s) {
      bool filled = (s % 2 == 0 ? prog.own : prog.running)[s / 2].has_value();
      if (!filled && s / 2 != 2) // entry 3 is absent before jax 0.6.0
        return false;
    }
    return !(slot % 2 == 0 ? prog.own : prog.running)[slot / 2];
  };
  if (accepts(streams[streamId].pending))
    return streamId;
  // The same process under another tag (a prefix part the tagger keeps
  // although it changes from line to line): the most recent match.
  int best = -1;
  for (size_t s = 0; s < streams.size(); ++s)
    if (accepts(streams[s].pending) &&
        (best < 0 || streams[s].pending > streams[best].pending))
      best = static_cast<int>(s);
  return best;
}

void LogReader::closePending(Stream &s, const char *why) {
  const LoggedProgram &p = summary.programs[s.pending];
  summary.incomplete.push_back("the key starting at line " +
                               std::to_string(p.firstLine) +
                               " is incomplete: it stops after " +
                               std::to_string(p.digestLines()) +
                               " of its 16 digest lines: " + why);
  s.pending = -1;
  s.flags.clear();
}

void LogReader::onDigest(int streamId, bool fresh, int entry, const Digest &d) {
  int slot = slotOf(entry, fresh);
  Stream *s = &streams[streamId];
  bool start = slot == 0;
  if (start) {
    if (s->pending >= 0)
      closePending(*s, "a new key starts before it ends");
  } else if (int other = programAwaitingEntry(streamId, slot); other >= 0) {
    s = &streams[other];
  } else if (s->pending >= 0 &&
             !(fresh ? summary.programs[s->pending].own
                     : summary.programs[s->pending].running)[entry]) {
    problem("line " + std::to_string(summary.lines) +
            ": digest lines are missing before this one");
  } else {
    if (s->pending >= 0)
      closePending(*s, "its lines repeat");
    start = true;
  }
  if (start) {
    LoggedProgram p;
    p.stream = static_cast<int>(s - streams.data());
    p.firstLine = summary.lines;
    p.startsMidKey = slot != 0;
    if (p.startsMidKey)
      summary.incomplete.push_back(
          "line " + std::to_string(summary.lines) +
          ": the log starts in the middle of a key (no \"computation\" line "
          "before it)");
    p.compileOptions = s->compileOptions;
    s->compileOptions = -1;
    p.shapes = s->shapes;
    s->shapes = -1;
    summary.programs.push_back(std::move(p));
    s->pending = static_cast<int>(summary.programs.size() - 1);
  }
  LoggedProgram &p = summary.programs[s->pending];
  (fresh ? p.own : p.running)[entry] = d;
  if (entry == 3 && fresh) {
    // Under DEBUG the flag step runs twice (the real pass, then the fresh
    // one that logs the own digest): keep one pass.
    auto &f = s->flags;
    size_t n = f.size();
    if (n % 2 == 0 && std::equal(f.begin(), f.begin() + n / 2, f.begin() + n / 2))
      f.resize(n / 2);
    auto it = std::find(summary.flagSets.begin(), summary.flagSets.end(), f);
    p.flags = static_cast<int>(it - summary.flagSets.begin());
    if (it == summary.flagSets.end())
      summary.flagSets.push_back(f);
    f.clear();
  }
  if (entry == 7 && !fresh) {
    int index = s->pending;
    if (!p.complete()) {
      closePending(*s, "lines are missing in the middle");
    } else {
      s->pending = -1;
      s->awaitingLookup = index;
      byDigest[*p.running[7]].indices.push_back(index);
    }
  }
}

void LogReader::onLookup(int streamId, bool hit, const std::string &name,
                         const std::string &key) {
  int index = -1;
  auto digest = keyDigest(key);
  if (digest) {
    // The complete program with this key that has no lookup yet.
    auto it = byDigest.find(*digest);
    if (it != byDigest.end()) {
      ProgramsWithDigest &same = it->second;
      while (same.firstUnlooked < same.indices.size() &&
             summary.programs[same.indices[same.firstUnlooked]].lookup !=
                 Lookup::Unknown)
        ++same.firstUnlooked;
      if (same.firstUnlooked < same.indices.size())
        index = same.indices[same.firstUnlooked];
    }
  } else if (int w = streams[streamId].awaitingLookup;
             w >= 0 && summary.programs[w].lookup == Lookup::Unknown) {
    index = w; // jax 0.4.30 logs the hit without the key
  }
  if (index < 0 && digest) {
    // lru_cache.py logged this lookup first ("Cache miss for key"): the
    // compiler's own line confirms it.
    auto it = byDigest.find(*digest);
    if (it != byDigest.end() && !it->second.indices.empty()) {
      LoggedProgram &last = summary.programs[it->second.indices.back()];
      if (last.lookupInferred && last.write.state == WriteState::Unknown) {
        index = it->second.indices.back();
        last.lookupInferred = false;
      }
    }
  }
  if (index < 0) {
    // The key's trace was not logged (its logger was off): the program is
    // known by its key alone.
    LoggedProgram p;
    p.stream = streamId;
    p.firstLine = summary.lines;
    p.keyDigest = digest;
    p.shapes = streams[streamId].shapes;
    streams[streamId].shapes = -1;
    summary.programs.push_back(std::move(p));
    index = static_cast<int>(summary.programs.size() - 1);
    if (digest)
      byDigest[*digest].indices.push_back(index);
  }
  LoggedProgram &p = summary.programs[index];
  p.name = name;
  p.key = key;
  p.lookup = hit ? Lookup::Hit : Lookup::Miss;
  p.lookupLine = summary.lines;
  if (streams[streamId].noCacheLookup) {
    p.lookupNoCache = !hit;
    streams[streamId].noCacheLookup = false;
  }
  for (const std::string *k : {&name, &key}) {
    auto e = readErrors.find(*k);
    if (!k->empty() && e != readErrors.end()) {
      p.readError = e->second;
      readErrors.erase(e);
    }
  }
  if (streams[p.stream].awaitingLookup == index)
    streams[p.stream].awaitingLookup = -1;
  lastByName[{p.stream, name}] = index;
  lastByName[{-1, name}] = index;
  if (!hit)
    lastMiss = index;
}

void LogReader::onWrite(int streamId, const std::string &name,
                        const std::string &key, WriteOutcome outcome) {
  outcome.line = summary.lines;
  int index = -1;
  if (!key.empty()) {
    if (auto d = keyDigest(key)) {
      auto it = byDigest.find(*d);
      if (it != byDigest.end())
        for (auto i = it->second.indices.rbegin();
             i != it->second.indices.rend() && index < 0; ++i)
          if (summary.programs[*i].lookup == Lookup::Miss)
            index = *i;
      // jax 0.4.30 logs no miss line: a write line names the missed key.
      if (index < 0)
        index = inferMiss(*d, key.substr(0, key.size() - 65));
    }
  } else if (!name.empty()) {
    auto it = lastByName.find({streamId, name});
    if (it == lastByName.end())
      it = lastByName.find({-1, name});
    if (it != lastByName.end())
      index = it->second;
    // jax 0.4.30: "took at least" comes before any line with the key.
    if (index < 0 && streamId >= 0) {
      int w = streams[streamId].awaitingLookup;
      if (w >= 0 && summary.programs[w].lookup == Lookup::Unknown) {
        index = w;
        summary.programs[w].lookup = Lookup::Miss;
        summary.programs[w].lookupInferred = true;
        summary.programs[w].name = name;
        lastByName[{summary.programs[w].stream, name}] = w;
        lastByName[{-1, name}] = w;
        lastMiss = w;
      }
    }
  } else {
    index = lastMiss; // "since process_id != 0" names nothing
  }
  if (index < 0)
    return;
  WriteOutcome &w = summary.programs[index].write;
  // "took at least" comes before the write lines; keep its numbers.
  if (w.state != WriteState::Unknown && outcome.compileSeconds < 0) {
    outcome.compileSeconds = w.compileSeconds;
    outcome.minCompileSeconds = w.minCompileSeconds;
  }
  w = std::move(outcome);
}

int LogReader::inferMiss(const Digest &d, const std::string &name) {
  auto it = byDigest.find(d);
  if (it == byDigest.end())
    return -1;
  // The first program with this key that has no lookup yet (those before
  // `firstUnlooked` all have one: a lookup is set once).
  ProgramsWithDigest &same = it->second;
  while (same.firstUnlooked < same.indices.size() &&
         summary.programs[same.indices[same.firstUnlooked]].lookup != Lookup::Unknown)
    ++same.firstUnlooked;
  if (same.firstUnlooked == same.indices.size())
    return -1;
  int i = same.indices[same.firstUnlooked];
  LoggedProgram &p = summary.programs[i];
  p.lookup = Lookup::Miss;
  p.lookupInferred = true;
  p.name = name;
  p.key = name + "-" + toHex(d);
  p.lookupLine = summary.lines;
  if (streams[p.stream].awaitingLookup == i)
    streams[p.stream].awaitingLookup = -1;
  lastByName[{p.stream, name}] = i;
  lastByName[{-1, name}] = i;
  lastMiss = i;
  return i;
}

void LogReader::readLine(std::string &line) {
  ++summary.lines;
  stripTerminalCodes(line);
  if (!mayMatter(line))
    return;
  const std::string where = "line " + std::to_string(summary.lines) + ": ";
  size_t pos;
  auto after = [&](size_t n) { return line.substr(pos + n); };

  // The key's trace.
  bool fresh = (pos = line.find(kOwn)) != std::string::npos;
  if (fresh || (pos = line.find(kRunning)) != std::string::npos) {
    std::string rest = after(fresh ? len(kOwn) : len(kRunning));
    for (int i = 0; i < kNumEntries; ++i) {
      std::string name = std::string(kEntryNames[i]) + ": ";
      if (rest.compare(0, name.size(), name) != 0)
        continue;
      std::string hex = rest.substr(name.size());
      while (!hex.empty() && (hex.back() == ' ' || hex.back() == '\t'))
        hex.pop_back();
      int sid = streamOf(std::string_view(line).substr(0, pos));
      if (auto d = digestFromHex(hex)) {
        if (streams[sid].broken && slotOf(i, fresh) != 0)
          return; // the rest of a key already reported as cut
        streams[sid].broken = false;
        onDigest(sid, fresh, i, *d);
      } else {
        // Say what is wrong with it: its length, or the first character
        // that is not a lowercase hex digit.
        size_t bad = hex.find_first_not_of("0123456789abcdef");
        std::string what =
            bad != std::string::npos
                ? "character " + std::to_string(bad + 1) + " ('" + hex.substr(bad, 1) +
                      "') is not a lowercase hex digit"
                : std::to_string(hex.size()) + " hex digits instead of 64";
        std::string shown = hex.size() > 16 ? hex.substr(0, 16) + "\u2026" : hex;
        problem(where + "the " + (fresh ? "own digest of " : "running digest after ") +
                kEntryNames[i] + " is not a whole SHA-256 (" + what + ": \"" +
                shown + "\"); " +
                (summary.endsMidLine ? "the log is cut in the middle of it"
                             : "the line looks cut or altered") +
                "; the rest of that key is skipped");
        if (streams[sid].pending >= 0)
          closePending(streams[sid], "one of its lines is cut");
        streams[sid].broken = true;
      }
      return;
    }
    problem(where + "unknown entry name after \"get_cache_key hash\"");
    return;
  }
  bool kept = false;
  if ((pos = line.find(kNotIncluding)) != std::string::npos ||
      (kept = (pos = line.find(kIncluding)) != std::string::npos)) {
    std::string flag = kept ? after(len(kIncluding))
                            : after(len(kNotIncluding));
    int s = streamOf(std::string_view(line).substr(0, pos));
    int target = programAwaitingEntry(s, slotOf(3, true));
    if (target >= 0 && streams[target].flags.size() < 100000)
      streams[target].flags.push_back({kept, flag});
    return;
  }
  if ((pos = line.find(kFallback)) != std::string::npos) {
    int s = streamOf(std::string_view(line).substr(0, pos));
    int target = programAwaitingEntry(s, slotOf(5, true));
    if (target >= 0)
      summary.programs[streams[target].pending].fallback =
          intern(summary.texts, line.substr(pos));
    return;
  }

  // The cache's own lines around the lookup.
  if ((pos = line.find(kShapes)) != std::string::npos) {
    size_t c = line.rfind("Compiling ", pos);
    if (c == std::string::npos)
      return;
    std::string shapes = after(len(kShapes));
    size_t m = shapes.rfind(kArgMapping);
    if (m != std::string::npos)
      shapes.resize(m);
    int s = streamOf(std::string_view(line).substr(0, c));
    streams[s].shapes = intern(summary.texts, shapes);
    return;
  }
  if ((pos = line.find(kLookupNoCache)) != std::string::npos) {
    streams[streamOf(std::string_view(line).substr(0, pos))].noCacheLookup = true;
    return;
  }
  if ((pos = line.find(kPutNoCache)) != std::string::npos) {
    WriteOutcome w;
    w.state = WriteState::NotWritten;
    w.reason = NotWrittenReason::CacheDisabled;
    onWrite(streamOf(std::string_view(line).substr(0, pos)), "", "", w);
    return;
  }
  if ((pos = line.find(kReadError)) != std::string::npos) {
    std::string rest = after(len(kReadError));
    size_t q = rest.find("': ");
    if (q == std::string::npos) {
      problem(where + "an \"Error reading persistent compilation cache "
                      "entry\" line without the module name and error");
      return;
    }
    readErrors[rest.substr(0, q)] = intern(summary.texts, rest.substr(q + 3));
    return;
  }
  bool lruHit = false;
  if ((pos = line.find(kLruMiss)) != std::string::npos ||
      (lruHit = (pos = line.find(kLruHit)) != std::string::npos)) {
    std::string key = unquote(after(lruHit ? len(kLruHit) : len(kLruMiss)));
    auto d = keyDigest(key);
    if (!d) {
      problem(where + "the key of an lru_cache line is not \"<name>-<64 hex "
                      "digits>\": " + key.substr(0, 100));
      return;
    }
    if (!lruHit)
      inferMiss(*d, key.substr(0, key.size() - 65));
    return;
  }
  bool oldEvict = false;
  if ((pos = line.find(kEvicting)) != std::string::npos ||
      (oldEvict = (pos = line.find(kEvictingOld)) != std::string::npos)) {
    std::string rest = after(oldEvict ? len(kEvictingOld) : len(kEvicting));
    size_t f = rest.find(kFileSize);
    std::string key = unquote(rest.substr(0, f));
    if (oldEvict && key.size() > 6 && key.compare(key.size() - 6, 6, "-cache") == 0)
      key.resize(key.size() - 6);
    auto d = keyDigest(key);
    if (f == std::string::npos || !d) {
      problem(where + "an \"Evicting cache entry\" line without a whole key "
                      "and file size");
      return;
    }
    Eviction e;
    e.bytes = std::atoll(rest.c_str() + f + len(kFileSize));
    size_t t = rest.find(kTarget);
    if (t != std::string::npos)
      e.targetBytes = std::atoll(rest.c_str() + t + len(kTarget));
    e.line = summary.lines;
    summary.evicted.emplace(*d, e);
    ++summary.evictionLines;
    return;
  }
  if ((pos = line.find(kTooLargeStart)) != std::string::npos &&
      line.find(kTooLargeMax) != std::string::npos) {
    std::string rest = after(len(kTooLargeStart));
    size_t sz = rest.find(kTooLargeSize);
    size_t mx = rest.find(kTooLargeMax);
    if (sz == std::string::npos)
      return;
    WriteOutcome w;
    w.state = WriteState::NotWritten;
    w.reason = NotWrittenReason::TooLarge;
    w.entryBytes = std::atoll(rest.c_str() + sz + len(kTooLargeSize));
    w.maxCacheBytes = std::atoll(rest.c_str() + mx + len(kTooLargeMax));
    onWrite(-1, "", unquote(rest.substr(0, sz)), w);
    return;
  }
  if ((pos = line.find(kUnsupported)) != std::string::npos) {
    if (summary.unsupportedRuntime.empty())
      summary.unsupportedRuntime = after(len(kUnsupported)).substr(0, 200);
    return;
  }
  if (line.find(kPgleMiss) != std::string::npos) {
    ++summary.pgleMisses;
    return;
  }
  if (line.find("PGLE-optimized ") != std::string::npos &&
      line.find(kPgleLoaded) != std::string::npos) {
    ++summary.pgleLoaded;
    return;
  }
  if (line.find(kInconsistency) != std::string::npos)
    ++summary.verificationErrors; // also a read or write warning: go on

  // The lookup.
  bool miss = (pos = line.find(kMiss)) != std::string::npos;
  if (miss || (pos = line.find(kHit)) != std::string::npos) {
    std::string rest = miss ? after(len(kMiss)) : after(len(kHit));
    size_t q = rest.find("' with key ");
    std::string name = rest.substr(0, q == std::string::npos ? rest.rfind('\'') : q);
    std::string key = q == std::string::npos ? "" : unquote(rest.substr(q + 11));
    onLookup(streamOf(std::string_view(line).substr(0, pos)), !miss, name, key);
    return;
  }

  // The write.
  if ((pos = line.find(kNotWritingFor)) != std::string::npos) {
    std::string rest = after(len(kNotWritingFor));
    int s = streamOf(std::string_view(line).substr(0, pos));
    WriteOutcome w;
    w.state = WriteState::NotWritten;
    size_t b;
    if ((b = rest.find(kBecauseTook)) != std::string::npos) {
      w.reason = NotWrittenReason::CompileTime;
      std::string nums = rest.substr(b + len(kBecauseTook));
      w.minCompileSeconds = number(nums);
      size_t paren = nums.find('(');
      if (paren != std::string::npos)
        w.compileSeconds = number(nums.substr(paren + 1));
    } else if ((b = rest.find(kBecauseCallbacks)) != std::string::npos) {
      w.reason = NotWrittenReason::HostCallbacks;
    } else {
      problem(where + "a \"Not writing persistent cache entry\" line with a "
                      "reason this reader does not know");
      return;
    }
    onWrite(s, rest.substr(0, b), "", w);
    return;
  }
  if ((pos = line.find(kNotProcessZero)) != std::string::npos) {
    WriteOutcome w;
    w.state = WriteState::NotWritten;
    w.reason = NotWrittenReason::NotProcessZero;
    onWrite(streamOf(std::string_view(line).substr(0, pos)), "", "", w);
    return;
  }
  if ((pos = line.find(kTookAtLeast)) != std::string::npos && pos > 0) {
    size_t open = line.rfind('\'', pos - 1);
    if (open == std::string::npos)
      return;
    std::string name = line.substr(open + 1, pos - open - 1);
    std::string nums = line.substr(pos + len(kTookAtLeast));
    WriteOutcome w;
    w.state = WriteState::Attempted;
    w.minCompileSeconds = number(nums);
    size_t paren = nums.find('(');
    if (paren != std::string::npos)
      w.compileSeconds = number(nums.substr(paren + 1));
    onWrite(streamOf(std::string_view(line).substr(0, open)), name, "", w);
    return;
  }
  bool old = false;
  if ((pos = line.find(kNotWritingKey)) != std::string::npos ||
      (old = (pos = line.find(kNotWritingKeyOld)) != std::string::npos)) {
    std::string rest = old ? after(len(kNotWritingKeyOld))
                           : after(len(kNotWritingKey));
    WriteOutcome w;
    w.state = WriteState::NotWritten;
    size_t b;
    if ((b = rest.find(kSinceSize)) != std::string::npos) {
      w.reason = NotWrittenReason::EntrySize;
      std::string nums = rest.substr(b + len(kSinceSize));
      w.entryBytes = std::atoll(nums.c_str());
      size_t t = nums.find("threshold (");
      if (t != std::string::npos)
        w.minEntryBytes = std::atoll(nums.c_str() + t + 11);
    } else if ((b = rest.find(kSinceDisabled)) != std::string::npos) {
      w.reason = NotWrittenReason::CacheDisabled;
    } else {
      return;
    }
    onWrite(streamOf(std::string_view(line).substr(0, pos)), "",
            unquote(rest.substr(0, b)), w);
    return;
  }
  if ((pos = line.find(kWritingKey)) != std::string::npos) {
    size_t w0 = line.rfind(kWriting, pos);
    if (w0 == std::string::npos)
      return;
    WriteOutcome w;
    w.state = WriteState::Written;
    onWrite(streamOf(std::string_view(line).substr(0, w0)), "",
            unquote(line.substr(pos + len(kWritingKey))), w);
    return;
  }
  if ((pos = line.find(kWriteError)) != std::string::npos) {
    std::string rest = after(len(kWriteError));
    size_t q = rest.find("': ");
    if (q == std::string::npos)
      return;
    WriteOutcome w;
    w.state = WriteState::Failed;
    w.error = rest.substr(q + 3, kMaxText); // quoted whole
    // A warning, printed with the source path before it: no stream.
    onWrite(-1, rest.substr(0, q), "", w);
    return;
  }

  // Run-wide facts.
  if ((pos = line.find(kEnablingAutotune)) != std::string::npos) {
    addDistinct(summary.autotuneCaches,
                unquote("'" + after(len(kEnablingAutotune))));
    return;
  }
  if ((pos = line.find(kEnablingKernel)) != std::string::npos) {
    addDistinct(summary.kernelCaches,
                unquote("'" + after(len(kEnablingKernel))));
    return;
  }
  if ((pos = line.find(kInitialized)) != std::string::npos) {
    if (!summary.cacheInitLine)
      summary.cacheInitLine = summary.lines;
    addDistinct(summary.cacheDirs, after(len(kInitialized)));
    return;
  }
  if (line.find(kDisabled) != std::string::npos) {
    summary.cacheDisabled = true;
    return;
  }
  if (line.find(kInitFailed) != std::string::npos) {
    summary.cacheInitFailed = true;
    return;
  }
  if ((pos = line.find(kCompileOptions)) != std::string::npos) {
    int s = streamOf(std::string_view(line).substr(0, pos));
    streams[s].compileOptions =
        intern(summary.texts, after(len("get_compile_options: ")));
    return;
  }
  if ((pos = line.find(kKeyError)) != std::string::npos) {
    if (summary.keyErrors++ == 0)
      summary.firstKeyError = after(len(kKeyError)).substr(0, 500);
    return;
  }
}

LogSummary readLog(std::string_view text, std::string name) {
  LogReader reader(std::move(name));
  reader.feed(text);
  return reader.finish();
}

} // namespace cachekey
