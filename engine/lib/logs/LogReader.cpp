//===- LogReader.cpp - A whole JAX log, one program at a time -------------===//
//
// The reader's state: streams, the program each digest line belongs to,
// lookups and outcomes. One line is read by LogReaderLine.cpp, with the
// message texts of LogLines.h.
//
//===----------------------------------------------------------------------===//
#include "cachekey/LogReader.h"

#include "cachekey/KnownDigests.h"
#include "cachekey/LogPrefix.h"

#include "LogLines.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>

namespace cachekey {

using namespace logs::lines;

namespace {
int digestLinesOf(const KeyTrace &t) {
  int n = 0;
  for (int i = 0; i < kNumEntries; ++i)
    n += (t.own[i] ? 1 : 0) + (t.running[i] ? 1 : 0);
  return n;
}

bool completeTrace(const KeyTrace &t) {
  int n = digestLinesOf(t);
  return n == 16 || (n == 14 && !t.own[2] && !t.running[2] && t.running[7]);
}
} // namespace

size_t LogReader::TraceHash::operator()(const KeyTrace *t) const {
  // 64-bit arithmetic on every target (size_t is 32 bits in wasm32).
  uint64_t h = 0;
  for (int i = 0; i < kNumEntries; ++i)
    for (const auto *d : {&t->own[i], &t->running[i]}) {
      uint64_t x = 0x9e3779b97f4a7c15ull;
      if (*d)
        std::memcpy(&x, (*d)->data(), sizeof x);
      h = (h ^ x) * 0x100000001b3ull + static_cast<uint64_t>(i);
    }
  return static_cast<size_t>(h ^ (h >> 32));
}

namespace {
/// Whether two whole traces differ in entry 5 (compile options) alone: the
/// own digests of entries 1-4 and 6-8 and the running digests up to entry
/// 4 are equal, entry 5's own digest is not.
bool onlyEntry5Differs(const KeyTrace &a, const KeyTrace &b) {
  if (!a.whole || !b.whole || a.own[4] == b.own[4])
    return false;
  for (int i = 0; i < kNumEntries; ++i)
    if (i != 4 && a.own[i] != b.own[i])
      return false;
  for (int i = 0; i < 4; ++i)
    if (a.running[i] != b.running[i])
      return false;
  return true;
}
} // namespace

void LogReader::setPgleProbe(int index, bool probe) {
  LoggedProgram &p = summary.programs[index];
  if (p.pgleProbe == probe)
    return;
  p.pgleProbe = probe;
  const std::optional<Digest> &key = p.digests().running[kNumEntries - 1];
  if (!key)
    return;
  std::vector<int> &same = byDigest[*key].indices;
  if (probe) {
    ++summary.pgleProbes;
    same.erase(std::remove(same.begin(), same.end(), index), same.end());
    pgleProbeKeys[*key] = index;
  } else {
    --summary.pgleProbes;
    same.push_back(index);
    pgleProbeKeys.erase(*key);
  }
}

void LogReader::endTrace(Stream &s) {
  if (s.pending < 0)
    return;
  s.digests.lineCount = static_cast<int8_t>(digestLinesOf(s.digests));
  s.digests.whole = completeTrace(s.digests);
  auto it = traceSet.find(&s.digests);
  if (it == traceSet.end()) {
    summary.traces.push_back(s.digests);
    it = traceSet.insert(&summary.traces.back()).first;
  }
  summary.programs[s.pending].trace = *it;
}

const Digest *LogReader::internKeyDigest(const Digest &d) {
  auto [it, added] = keyDigestSet.emplace(d, nullptr);
  if (added) {
    summary.keyDigests.push_back(d);
    it->second = &summary.keyDigests.back();
  }
  return it->second;
}

LogReader::LogReader(std::string name) { summary.name = std::move(name); }

namespace {
/// A line stripTerminalCodes changes at most by its trailing '\r': no
/// escape in it.
bool isPlainLine(std::string_view line) {
  return line.find('\x1b') == std::string_view::npos;
}
} // namespace

void LogReader::feed(std::string_view chunk) {
  if (!encodingChecked && !chunk.empty()) {
    encodingChecked = true;
    summary.encoding = LogSummary::encodingOf(chunk);
  }
  if (lineEnds == LineEnds::Unknown && !chunk.empty())
    learnLineEnds(chunk);
  if (lineEnds == LineEnds::Cr) {
    crChunk.assign(chunk);
    std::replace(crChunk.begin(), crChunk.end(), '\r', '\n');
    chunk = crChunk;
  }
  size_t start = 0;
  // Most chunks hold no escape at all: then every line of it is plain, and
  // no line is searched for one.
  const bool plainChunk = isPlainLine(chunk);
  while (start < chunk.size()) {
    size_t nl = chunk.find('\n', start);
    size_t end = nl == std::string_view::npos ? chunk.size() : nl;
    lineChecked = false;
    if (partial.empty() && !skippingLongLine && nl != std::string_view::npos &&
        end - start <= kMaxLine &&
        (plainChunk || isPlainLine(chunk.substr(start, end - start)))) {
      // A whole line: a digest line like the one before, or one that is not
      // about the cache, is read where it lies (no copy). Only a plain one:
      // a line with terminal codes is read as readLine reads it, codes
      // stripped first, or a line cut across chunks would read otherwise.
      // The '\r' of a CRLF log is dropped here as readLine drops it.
      std::string_view whole = chunk.substr(start, end - start);
      if (!whole.empty() && whole.back() == '\r')
        whole.remove_suffix(1);
      if (mayBeCopy()) {
        if (duplicateOfPrevious(whole)) {
          ++summary.lines;
          ++summary.duplicateLines;
          start = nl + 1;
          continue;
        }
        lineChecked = true; // readLine must not compare it with itself
      }
      if (readDigestLine(whole)) {
        remember(whole);
        start = nl + 1;
        continue;
      }
      if (!mayMatter(whole)) {
        ++summary.lines;
        forgetPrevious();
        start = nl + 1;
        continue;
      }
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
    lineChecked = false;
    readLine(partial);
    partial.clear();
  }
  for (auto &s : streams)
    if (s.pending >= 0)
      closePending(s, LogReadNote::Why::LogEnds);
  summary.endsCompilingAt = endsCompilingLine(summary);
  return std::move(summary);
}

void LogReader::problem(LogReadNote note) {
  if (summary.problems.size() < kMaxProblems)
    summary.problems.push_back(std::move(note));
  ++summary.problemCount;
}

LogReadNote LogReader::noteHere(LogReadNote::Code code) const {
  LogReadNote n;
  n.code = code;
  n.line = summary.lines;
  return n;
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
    recentPrefixes[nextRecent].first.assign(prefix); // its buffer reused
    recentPrefixes[nextRecent].second = id;
    nextRecent = (nextRecent + 1) % recentPrefixes.size();
  }
  return id;
}

int LogReader::tagStream(std::string_view prefix) {
  const std::string &tag = tagScratch[0];
  streamTag(prefix, tagScratch[0]);
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
  auto accepts = [&](const Stream &st) {
    if (st.pending < 0)
      return false;
    const KeyTrace &t = st.digests; // the pending program's lines so far
    for (int s = 0; s < slot; ++s) {
      bool filled = (s % 2 == 0 ? t.own : t.running)[s / 2].has_value();
      if (!filled && s / 2 != 2) // entry 3 is absent before jax 0.6.0
        return false;
    }
    return !(slot % 2 == 0 ? t.own : t.running)[slot / 2];
  };
  if (accepts(streams[streamId]))
    return streamId;
  // The same process under another tag (a prefix part the tagger keeps
  // although it changes from line to line): the most recent match.
  int best = -1;
  for (size_t s = 0; s < streams.size(); ++s)
    if (accepts(streams[s]) &&
        (best < 0 || streams[s].pending > streams[best].pending))
      best = static_cast<int>(s);
  return best;
}

void LogReader::closePending(Stream &s, LogReadNote::Why why) {
  endTrace(s);
  const LoggedProgram &p = summary.programs[s.pending];
  LogReadNote n;
  n.code = LogReadNote::Code::KeyStops;
  n.why = why;
  n.line = p.firstLine;
  n.digests = p.digestLines();
  summary.incomplete.push_back(std::move(n));
  s.pending = -1;
  s.flags.clear();
}

void LogReader::onDigest(int streamId, bool fresh, int entry, const Digest &d) {
  int slot = slotOf(entry, fresh);
  Stream *s = &streams[streamId];
  bool start = slot == 0;
  if (start) {
    if (s->pending >= 0)
      closePending(*s, LogReadNote::Why::NewKeyStarts);
  } else if (int other = programAwaitingEntry(streamId, slot); other >= 0) {
    s = &streams[other];
  } else if (s->pending >= 0 &&
             !(fresh ? s->digests.own : s->digests.running)[entry]) {
    problem(noteHere(LogReadNote::Code::DigestsMissing));
  } else {
    if (s->pending >= 0)
      closePending(*s, LogReadNote::Why::LinesRepeat);
    start = true;
  }
  if (start) {
    LoggedProgram p;
    p.stream = static_cast<int>(s - streams.data());
    p.firstLine = summary.lines;
    p.startsMidKey = slot != 0;
    if (p.startsMidKey)
      summary.incomplete.push_back(noteHere(LogReadNote::Code::StartsMidKey));
    p.compileOptions = s->compileOptions;
    s->compileOptions = -1;
    const long long profileVersion = s->profileVersion;
    s->profileVersion = -1;
    const int argMapping = s->argMapping;
    s->argMapping = -1;
    p.shapes = s->shapes;
    s->shapes = -1;
    summary.programs.push_back(std::move(p));
    s->pending = static_cast<int>(summary.programs.size() - 1);
    s->digests = KeyTrace{};
    if (profileVersion != -1 || argMapping >= 0)
      summary.editExtras(summary.programs.back(), [&](ProgramExtras &e) {
        e.profileVersion = profileVersion;
        e.argMapping = argMapping;
      });
  }
  LoggedProgram &p = summary.programs[s->pending];
  (fresh ? s->digests.own : s->digests.running)[entry] = d;
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
    if (!completeTrace(s->digests)) {
      closePending(*s, LogReadNote::Why::MissingInMiddle);
    } else {
      endTrace(*s);
      s->pending = -1;
      byDigest[d].indices.push_back(index);
      // A key with no lookup yet, then this one, which differs from it in
      // entry 5 alone: compiler.py computed the PGLE-optimized entry's key
      // (fdo_profile overridden) and then this program's own.
      if (int prev = s->awaitingLookup;
          prev >= 0 && summary.programs[prev].lookup == Lookup::Unknown &&
          onlyEntry5Differs(summary.programs[prev].digests(), *summary.programs[index].trace)) {
        setPgleProbe(prev, true);
        // The lines logged before both keys are the program's.
        LoggedProgram &probe = summary.programs[prev], &own = summary.programs[index];
        own.pgle = true;
        if (own.compileOptions < 0)
          own.compileOptions = probe.compileOptions;
        if (own.shapes < 0)
          own.shapes = probe.shapes;
        if (own.extras->profileVersion == -1 && own.extras->argMapping < 0) {
          const long long v = probe.extras->profileVersion;
          const int mapping = probe.extras->argMapping;
          summary.editExtras(own, [&](ProgramExtras &e) {
            e.profileVersion = v;
            e.argMapping = mapping;
          });
        }
      }
      s->awaitingLookup = index;
    }
  }
}

void LogReader::onLookup(int streamId, bool hit, const std::string &name,
                         const std::string &key) {
  int index = -1;
  auto digest = keyDigest(key);
  if (digest) {
    // The PGLE-optimized entry was found: the probe's key is the program's,
    // and the key computed after it went unused.
    if (auto pr = pgleProbeKeys.find(*digest); pr != pgleProbeKeys.end()) {
      const int probe = pr->second;
      Stream &st = streams[summary.programs[probe].stream];
      const int after = st.awaitingLookup;
      setPgleProbe(probe, false);
      summary.programs[probe].pgle = true;
      if (after >= 0 && after != probe && summary.programs[after].lookup == Lookup::Unknown) {
        setPgleProbe(after, true);
        st.awaitingLookup = -1;
      }
    }
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
      if (last.lookupInferred && last.writeState == WriteState::Unknown) {
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
    p.keyDigest = digest ? internKeyDigest(*digest) : nullptr;
    p.shapes = streams[streamId].shapes;
    streams[streamId].shapes = -1;
    summary.programs.push_back(std::move(p));
    index = static_cast<int>(summary.programs.size() - 1);
    if (const int mapping = streams[streamId].argMapping; mapping >= 0) {
      streams[streamId].argMapping = -1;
      summary.editExtras(summary.programs.back(),
                         [&](ProgramExtras &e) { e.argMapping = mapping; });
    }
    if (digest)
      byDigest[*digest].indices.push_back(index);
  }
  LoggedProgram &p = summary.programs[index];
  p.name = summary.keepName(name);
  // The key is kept as its digest when it is "<name>-<digest>", as JAX
  // makes it; any other text is kept whole.
  if (digest && key.size() == name.size() + 65 && key.compare(0, name.size(), name) == 0)
    p.keyDigest = internKeyDigest(*digest);
  else if (!key.empty())
    summary.editExtras(p, [&](ProgramExtras &e) { e.keyText = intern(summary.texts, key); });
  p.lookup = hit ? Lookup::Hit : Lookup::Miss;
  p.setLookupLine(summary.lines);
  // lru_cache.py found the file for this very key just before.
  p.foundThenMissed = !hit && digest && lastLruHit == *digest;
  lastLruHit.reset();
  if (streams[streamId].noCacheLookup) {
    p.lookupNoCache = !hit;
    streams[streamId].noCacheLookup = false;
  }
  for (const std::string *k : {&name, &key}) {
    auto e = readErrors.find(*k);
    if (!k->empty() && e != readErrors.end()) {
      summary.editExtras(p, [&](ProgramExtras &x) {
        x.readError = e->second.first;
        x.compileOnlyRead = e->second.second;
      });
      readErrors.erase(e);
    }
  }
  if (streams[p.stream].awaitingLookup == index)
    streams[p.stream].awaitingLookup = -1;
  named(index);
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
    index = lastNamed(streamId, name);
    // jax 0.4.30: "took at least" comes before any line with the key.
    if (index < 0 && streamId >= 0) {
      int w = streams[streamId].awaitingLookup;
      if (w >= 0 && summary.programs[w].lookup == Lookup::Unknown) {
        index = w;
        summary.programs[w].lookup = Lookup::Miss;
        summary.programs[w].lookupInferred = true;
        // jax 0.4.30 logs "cache is disabled/not initialized" and no miss
        // line: the inferred lookup is the one made without a cache.
        if (streams[streamId].noCacheLookup) {
          summary.programs[w].lookupNoCache = true;
          streams[streamId].noCacheLookup = false;
        }
        summary.programs[w].name = summary.keepName(name);
        named(w);
        lastMiss = w;
      }
    }
  } else {
    // "since process_id != 0" names nothing: it is about the last miss of
    // its own process (its prefix's stream) when several write one log.
    index = lastMiss;
    if (streamId >= 0 && lastMiss >= 0 && summary.programs[lastMiss].stream != streamId)
      for (auto i = recentNamed.rbegin(); i != recentNamed.rend(); ++i)
        if (summary.programs[*i].stream == streamId &&
            summary.programs[*i].lookup == Lookup::Miss) {
          index = *i;
          break;
        }
  }
  if (index < 0)
    return;
  LoggedProgram &p = summary.programs[index];
  // "took at least" comes before the write lines; keep its numbers.
  if (p.writeState != WriteState::Unknown && outcome.compileSeconds < 0) {
    outcome.compileSeconds = p.extras->compileSeconds;
    outcome.minCompileSeconds = p.extras->minCompileSeconds;
  }
  summary.setWrite(p, outcome);
}

void LogReader::named(int index) {
  recentNamed.push_back(index);
  if (recentNamed.size() > kRecentNamed)
    recentNamed.pop_front();
}

int LogReader::lastNamed(int streamId, const std::string &name) const {
  int any = -1;
  for (auto i = recentNamed.rbegin(); i != recentNamed.rend(); ++i) {
    const LoggedProgram &p = summary.programs[*i];
    if (p.name != name)
      continue;
    if (p.stream == streamId)
      return *i;
    if (any < 0)
      any = *i;
  }
  return any;
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
  if (streams[p.stream].noCacheLookup) {
    p.lookupNoCache = true;
    streams[p.stream].noCacheLookup = false;
  }
  p.name = summary.keepName(name);
  p.keyDigest = internKeyDigest(d);
  p.setLookupLine(summary.lines);
  if (streams[p.stream].awaitingLookup == i)
    streams[p.stream].awaitingLookup = -1;
  named(i);
  lastMiss = i;
  return i;
}

LogSummary readLog(std::string_view text, std::string name) {
  LogReader reader(std::move(name));
  reader.feed(text);
  return reader.finish();
}

} // namespace cachekey
