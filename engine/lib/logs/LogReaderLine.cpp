//===- LogReaderLine.cpp - One line of a JAX log --------------------------===//
//
// LogReader::readLine: which of JAX's messages (LogLines.h) a line is, and
// what it says about a key, a lookup, a write, the cache or the shapes.
//
//===----------------------------------------------------------------------===//
#include "cachekey/LogReader.h"
#include "cachekey/StringExtras.h"

#include "cachekey/KnownDigests.h"
#include "cachekey/LogPrefix.h"

#include "LogLines.h"

#include <algorithm>
#include <cstdlib>

namespace cachekey {

using namespace logs::lines;

void LogReader::onDigestLine(int sid, bool fresh, int entry, const Digest &d) {
  if (streams[sid].broken && slotOf(entry, fresh) != 0)
    return; // the rest of a key already reported as cut
  streams[sid].broken = false;
  onDigest(sid, fresh, entry, d);
}

namespace {

/// The digest of a digest line: what follows "<entry>: ", without trailing
/// blanks and, where a handler prints more after the message, without what
/// follows the 64 hex digits from a byte that ends a value (endsValue) on:
/// rich's RichHandler puts " cache_key.py:149" at the right edge, a format
/// may end in " [%(filename)s:%(lineno)d]" or "|…", a JSON formatter closes
/// the message's string ('"', then the other members), and logfmt its
/// quoted msg. Any other byte right after the 64 (a 65th digit,
/// a letter, a control byte) keeps the whole field, which the caller
/// reports as not a SHA-256.
std::string_view digestField(std::string_view hex) {
  if (hex.size() > 64 && endsValue(hex[64]) &&
      hex.substr(0, 64).find_first_not_of("0123456789abcdef") == std::string_view::npos)
    return hex.substr(0, 64);
  if (!hex.empty() && hex.back() == '\r')
    hex.remove_suffix(1);
  while (!hex.empty() && (hex.back() == ' ' || hex.back() == '\t'))
    hex.remove_suffix(1);
  return hex;
}

} // namespace

bool LogReader::readDigestLine(std::string_view line) {
  // Most of a log's cache lines are digest lines with the prefix of the one
  // before. One that is read here would be read by readLine the same way:
  // the prefix holds neither message (digestPrefix), neither message can
  // overlap itself or the other, and what follows the digest is blank.
  const size_t p = digestPrefix.size();
  if (p == 0 || line.size() < p + len(kOwn) + 66 || line[0] != digestPrefix[0] ||
      line[p - 1] != digestPrefix[p - 1] || line[p] != kOwn[0] || line[p + 14] != kOwn[14] ||
      line.compare(0, p, digestPrefix) != 0)
    return false;
  std::string_view rest = line.substr(p);
  bool fresh = rest.compare(0, len(kOwn), kOwn) == 0;
  if (fresh)
    rest.remove_prefix(len(kOwn));
  else if (rest.compare(0, len(kRunning), kRunning) == 0)
    rest.remove_prefix(len(kRunning));
  else
    return false;
  for (int i = 0; i < kNumEntries; ++i) {
    std::string_view name = kEntryNames[i];
    // The ':' after the name first: most names are ruled out without a
    // compare.
    if (rest.size() < name.size() + 2 || rest[name.size()] != ':' ||
        rest[name.size() + 1] != ' ' || rest.compare(0, name.size(), name) != 0)
      continue;
    std::string_view hex = digestField(rest.substr(name.size() + 2));
    auto d = digestFromHex(hex);
    if (!d)
      return false; // readLine says what is wrong with it
    ++summary.lines;
    onDigestLine(streamOf(line.substr(0, p)), fresh, i, *d);
    return true;
  }
  return false;
}

void LogReader::readLine(std::string &line) {
  ++summary.lines;
  stripTerminalCodes(line);
  if (!mayMatter(line)) {
    forgetPrevious();
    return;
  }
  if (!lineChecked && mayBeCopy() &&
      duplicateOfPrevious(line)) {
    ++summary.duplicateLines;
    return;
  }
  remember(line);
  size_t pos;
  auto after = [&](size_t n) { return line.substr(pos + n); };

  // The key's trace: most of a log's cache lines, read without a copy. The
  // first of the two messages in the line is the one read (as
  // readDigestLine reads it), whatever text follows it.
  const size_t own = findMessage<kOwn>(line), running = findMessage<kRunning>(line);
  bool fresh = own != std::string::npos && (running == std::string::npos || own < running);
  pos = fresh ? own : running;
  if (pos != std::string::npos) {
    std::string_view rest = std::string_view(line).substr(
        pos + (fresh ? len(kOwn) : len(kRunning)));
    for (int i = 0; i < kNumEntries; ++i) {
      std::string_view name = kEntryNames[i];
      if (rest.size() < name.size() + 2 || rest.substr(0, name.size()) != name ||
          rest[name.size()] != ':' || rest[name.size() + 1] != ' ')
        continue;
      std::string_view hex = digestField(rest.substr(name.size() + 2));
      std::string_view prefix = std::string_view(line).substr(0, pos);
      int sid = streamOf(prefix);
      if (auto d = digestFromHex(hex)) {
        if (prefix.size() <= 256 && prefix != digestPrefix) {
          bool plain = prefix.find(kOwn) == std::string_view::npos &&
                       prefix.find(kRunning) == std::string_view::npos;
          if (plain)
            digestPrefix.assign(prefix); // its buffer reused
          else
            digestPrefix.clear();
        }
        onDigestLine(sid, fresh, i, *d);
      } else {
        // Say what is wrong with it: its length, or the first character
        // that is not a lowercase hex digit.
        size_t bad = hex.find_first_not_of("0123456789abcdef");
        LogReadNote n = noteHere(LogReadNote::Code::DigestNotSha256);
        n.entry = i + 1;
        n.fresh = fresh;
        n.cut = summary.endsMidLine;
        n.badChar = bad != std::string::npos ? bad + 1 : 0;
        n.badByte = bad != std::string::npos ? hex[bad] : 0;
        n.hexDigits = hex.size();
        n.shown = hex.size() > 16 ? std::string(hex.substr(0, 16)) + "\u2026"
                                  : std::string(hex);
        problem(std::move(n));
        if (streams[sid].pending >= 0)
          closePending(streams[sid], LogReadNote::Why::LineCut);
        streams[sid].broken = true;
      }
      return;
    }
    // The last line of a log cut in the middle of an entry's name is not an
    // unknown entry: the key it belongs to is left out as the log ends
    // (LogSummary::incomplete says so).
    if (!summary.endsMidLine)
      problem(noteHere(LogReadNote::Code::UnknownEntry));
    return;
  }
  bool kept = false;
  if ((pos = findMessage<kNotIncluding>(line)) != std::string::npos ||
      (kept = (pos = findMessage<kIncluding>(line)) != std::string::npos)) {
    std::string flag = kept ? after(len(kIncluding))
                            : after(len(kNotIncluding));
    int s = streamOf(std::string_view(line).substr(0, pos));
    int target = programAwaitingEntry(s, slotOf(3, true));
    if (target >= 0 && streams[target].flags.size() < 100000)
      streams[target].flags.push_back({kept, flag});
    return;
  }
  if ((pos = findMessage<kFallback>(line)) != std::string::npos) {
    int s = streamOf(std::string_view(line).substr(0, pos));
    int target = programAwaitingEntry(s, slotOf(5, true));
    if (target >= 0) {
      int text = intern(summary.texts, line.substr(pos));
      summary.editExtras(summary.programs[streams[target].pending],
                         [&](ProgramExtras &e) { e.fallback = text; });
    }
    return;
  }

  // The lines every program logs before its key, read first: each of the
  // checks below scans the whole line.
  if ((pos = findMessage<kCompileOptions>(line)) != std::string::npos) {
    int s = streamOf(std::string_view(line).substr(0, pos));
    ++summary.compileOptionsLines;
    streams[s].compileOptions =
        intern(summary.texts, after(len("get_compile_options: ")));
    return;
  }
  if ((pos = findMessage<kAutoFdo>(line)) != std::string::npos) {
    // compiler.py's profile line: compile_options.profile_version, which
    // entry 5 hashes ("using JAX XLA profile version N from flag", "using
    // XLA-AutoFDO profile version N"; an error line names none).
    ++summary.autoFdoLines;
    std::string_view rest = std::string_view(line).substr(pos + len(kAutoFdo));
    size_t v = rest.find(kProfileVersion);
    if (v != std::string_view::npos) {
      std::string digits(rest.substr(v + len(kProfileVersion)));
      char *end = nullptr;
      long long n = std::strtoll(digits.c_str(), &end, 10);
      if (end != digits.c_str())
        streams[streamOf(std::string_view(line).substr(0, pos))].profileVersion = n;
    }
    return;
  }
  if ((pos = findMessage<kEnablingAutotune>(line)) != std::string::npos) {
    addDistinct(summary.autotuneCaches,
                unquote("'" + after(len(kEnablingAutotune))));
    return;
  }
  if ((pos = findMessage<kEnablingKernel>(line)) != std::string::npos) {
    addDistinct(summary.kernelCaches,
                unquote("'" + after(len(kEnablingKernel))));
    return;
  }
  if ((pos = findMessage<kInitialized>(line)) != std::string::npos) {
    if (!summary.cacheInitLine)
      summary.cacheInitLine = summary.lines;
    std::string dir = after(len(kInitialized));
    const auto at = std::find(summary.cacheDirs.begin(), summary.cacheDirs.end(), dir);
    summary.cacheDirLines.emplace_back(
        summary.lines, static_cast<uint32_t>(at - summary.cacheDirs.begin()));
    if (at == summary.cacheDirs.end())
      summary.cacheDirs.push_back(std::move(dir));
    return;
  }
  // The lookup, and the write lines of a miss that is written: most of
  // the other lines of a large log.
  bool miss = (pos = findMessage<kMiss>(line)) != std::string::npos;
  if (miss || (pos = findMessage<kHit>(line)) != std::string::npos) {
    std::string rest = miss ? after(len(kMiss)) : after(len(kHit));
    size_t q = rest.find("' with key ");
    std::string name = rest.substr(0, q == std::string::npos ? rest.rfind('\'') : q);
    std::string key = q == std::string::npos ? "" : unquote(rest.substr(q + 11));
    onLookup(streamOf(std::string_view(line).substr(0, pos)), !miss, name, key);
    return;
  }

  if ((pos = findMessage<kTookAtLeast>(line)) != std::string::npos && pos > 0) {
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
  if ((pos = findMessage<kWritingKey>(line)) != std::string::npos) {
    size_t w0 = line.rfind(kWriting, pos);
    if (w0 == std::string::npos)
      return;
    WriteOutcome w;
    w.state = WriteState::Written;
    onWrite(streamOf(std::string_view(line).substr(0, w0)), "",
            unquote(line.substr(pos + len(kWritingKey))), w);
    return;
  }
  // The cache's own lines around the lookup.
  if ((pos = findMessage<kShapes>(line)) != std::string::npos) {
    size_t c = line.rfind("Compiling ", pos);
    if (c == std::string::npos)
      return;
    std::string shapes = after(len(kShapes));
    size_t m = shapes.rfind(kArgMapping);
    std::string mapping;
    if (m != std::string::npos) {
      mapping = balancedTuple(std::string_view(shapes).substr(m + len(kArgMapping)));
      shapes.resize(m);
    }
    int s = streamOf(std::string_view(line).substr(0, c));
    streams[s].shapes = intern(summary.texts, listAsTuple(std::move(shapes)));
    streams[s].argMapping = mapping.empty() ? -1 : intern(summary.texts, mapping);
    return;
  }
  if ((pos = findMessage<kLookupNoCache>(line)) != std::string::npos) {
    streams[streamOf(std::string_view(line).substr(0, pos))].noCacheLookup = true;
    return;
  }
  if ((pos = findMessage<kPutNoCache>(line)) != std::string::npos) {
    WriteOutcome w;
    w.state = WriteState::NotWritten;
    w.reason = NotWrittenReason::CacheDisabled;
    onWrite(streamOf(std::string_view(line).substr(0, pos)), "", "", w);
    return;
  }
  if ((pos = findMessage<kReadError>(line)) != std::string::npos) {
    std::string rest = after(len(kReadError));
    size_t q = rest.find("': ");
    if (q == std::string::npos) {
      problem(noteHere(LogReadNote::Code::ReadErrorLine));
      return;
    }
    summary.needsFilelock = summary.needsFilelock ||
                            rest.find(kNeedsFilelock, q) != std::string::npos;
    readErrors[rest.substr(0, q)] = {intern(summary.texts, rest.substr(q + 3)),
                                     rest.find(kCompileOnlyRead, q) != std::string::npos};
    return;
  }
  bool lruHit = false;
  if ((pos = findMessage<kLruMiss>(line)) != std::string::npos ||
      (lruHit = (pos = findMessage<kLruHit>(line)) != std::string::npos)) {
    std::string key = unquote(after(lruHit ? len(kLruHit) : len(kLruMiss)));
    auto d = keyDigest(key);
    if (!d) {
      LogReadNote n = noteHere(LogReadNote::Code::LruKey);
      n.shown = key.substr(0, 100);
      problem(std::move(n));
      return;
    }
    ++summary.lruLookupLines;
    if (!lruHit)
      inferMiss(*d, key.substr(0, key.size() - 65));
    lastLruHit = lruHit ? std::optional<Digest>(*d) : std::nullopt;
    return;
  }
  bool oldEvict = false;
  if ((pos = findMessage<kEvicting>(line)) != std::string::npos ||
      (oldEvict = (pos = findMessage<kEvictingOld>(line)) != std::string::npos)) {
    std::string rest = after(oldEvict ? len(kEvictingOld) : len(kEvicting));
    size_t f = rest.find(kFileSize);
    std::string key = unquote(rest.substr(0, f));
    if (oldEvict && key.size() > 6 && endsWith(key, "-cache"))
      key.resize(key.size() - 6);
    auto d = keyDigest(key);
    if (f == std::string::npos || !d) {
      problem(noteHere(LogReadNote::Code::EvictingLine));
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
  if ((pos = findMessage<kTooLargeStart>(line)) != std::string::npos &&
      findMessage<kTooLargeMax>(line) != std::string::npos) {
    std::string rest = after(len(kTooLargeStart));
    size_t sz = rest.find(kTooLargeSize);
    size_t mx = rest.find(kTooLargeMax);
    // Both after the message's start (the line may hold kTooLargeMax only
    // before it).
    if (sz == std::string::npos || mx == std::string::npos)
      return;
    WriteOutcome w;
    w.state = WriteState::NotWritten;
    w.reason = NotWrittenReason::TooLarge;
    w.entryBytes = std::atoll(rest.c_str() + sz + len(kTooLargeSize));
    w.maxCacheBytes = std::atoll(rest.c_str() + mx + len(kTooLargeMax));
    onWrite(-1, "", unquote(rest.substr(0, sz)), w);
    return;
  }
  if ((pos = findMessage<kUnsupported>(line)) != std::string::npos) {
    if (summary.unsupportedRuntime.empty())
      summary.unsupportedRuntime = after(len(kUnsupported)).substr(0, 200);
    return;
  }
  if (findMessage<kPgleMiss>(line) != std::string::npos) {
    ++summary.pgleMisses;
    return;
  }
  if (line.find("PGLE-optimized ") != std::string::npos &&
      findMessage<kPgleLoaded>(line) != std::string::npos) {
    ++summary.pgleLoaded;
    return;
  }
  if (findMessage<kInconsistency>(line) != std::string::npos)
    ++summary.verificationErrors; // also a read or write warning: go on

  // The write.
  if ((pos = findMessage<kNotWritingFor>(line)) != std::string::npos) {
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
      problem(noteHere(LogReadNote::Code::NotWritingReason));
      return;
    }
    onWrite(s, rest.substr(0, b), "", w);
    return;
  }
  if ((pos = findMessage<kNotProcessZero>(line)) != std::string::npos) {
    WriteOutcome w;
    w.state = WriteState::NotWritten;
    w.reason = NotWrittenReason::NotProcessZero;
    onWrite(streamOf(std::string_view(line).substr(0, pos)), "", "", w);
    return;
  }
  bool old = false;
  if ((pos = findMessage<kNotWritingKey>(line)) != std::string::npos ||
      (old = (pos = findMessage<kNotWritingKeyOld>(line)) != std::string::npos)) {
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
  if ((pos = findMessage<kWriteError>(line)) != std::string::npos) {
    std::string rest = after(len(kWriteError));
    size_t q = rest.find("': ");
    if (q == std::string::npos)
      return;
    WriteOutcome w;
    w.state = WriteState::Failed;
    std::string error = rest.substr(q + 3, kMaxText); // quoted whole
    w.atimeError = error.find("-atime") != std::string::npos;
    w.noSpace = error.find("[Errno 28]") != std::string::npos ||
                error.find("No space left on device") != std::string::npos;
    w.error = intern(summary.texts, std::move(error));
    // A warning, printed with the source path before it: no stream.
    onWrite(-1, rest.substr(0, q), "", w);
    return;
  }

  // Run-wide facts.
  if (findMessage<kDisabled>(line) != std::string::npos) {
    summary.cacheDisabled = true;
    return;
  }
  if (findMessage<kInitFailed>(line) != std::string::npos) {
    summary.cacheInitFailed = true;
    return;
  }
  if ((pos = findMessage<kKeyError>(line)) != std::string::npos) {
    if (summary.keyErrors++ == 0)
      summary.firstKeyError = after(len(kKeyError)).substr(0, 500);
    return;
  }
}

} // namespace cachekey
