//===- LogSummary.cpp - What a read log holds -----------------------------===//
//
// The members of the read log's data (LogReader.h): a program's trace,
// final digest and write outcome, the names, extras and texts a summary
// keeps once each, and which programs can be compared. LogReader.cpp fills
// them.
//
//===----------------------------------------------------------------------===//
#include "cachekey/LogReader.h"

#include <algorithm>

namespace cachekey {

const KeyTrace &KeyTrace::none() {
  static const KeyTrace empty;
  return empty;
}

bool LoggedProgram::complete() const { return trace->whole; }

int LoggedProgram::digestLines() const { return trace->lineCount; }

std::optional<Digest> LoggedProgram::finalDigest() const {
  if (trace->running[7])
    return trace->running[7];
  if (keyDigest)
    return *keyDigest;
  return std::nullopt;
}

std::string LogSummary::keyOf(const LoggedProgram &p) const {
  if (p.keyText() >= 0)
    return texts[p.keyText()];
  return p.keyDigest ? std::string(p.name) + "-" + toHex(*p.keyDigest) : std::string();
}

KeptName LogSummary::keepName(std::string_view name) {
  if (name.empty())
    return {};
  // A run compiles the same functions again and again: a name kept lately
  // is shared (FNV-1a of its bytes picks its slot).
  uint32_t h = 2166136261u;
  for (char c : name)
    h = (h ^ static_cast<unsigned char>(c)) * 16777619u;
  KeptName &recent = recentNames[h % recentNames.size()];
  if (recent == name)
    return recent;
  // Blocks grow from 4 KiB to 64 KiB: a short log (most logs, and every
  // fuzz input) never allocates, or clears, more than it can use.
  constexpr size_t kFirstBlock = size_t(4) << 10, kBlock = size_t(64) << 10;
  // The length (KeptName): one byte, or 255 and 4 bytes (lines are cut at
  // 1 MiB, so it fits).
  uint32_t n = static_cast<uint32_t>(name.size());
  size_t head = n < 255 ? 1 : 1 + sizeof n, need = head + name.size();
  if (need > nameRoom) {
    size_t size = std::max(std::min(kBlock, kFirstBlock << std::min<size_t>(nameBlocks.size(), 4)), need);
    // Not value-initialised: every byte handed out is written first.
    nameBlocks.push_back(std::unique_ptr<char[]>(new char[size]));
    nameFree = nameBlocks.back().get();
    nameRoom = size;
  }
  if (n < 255) {
    nameFree[0] = static_cast<char>(n);
  } else {
    nameFree[0] = static_cast<char>(255);
    std::memcpy(nameFree + 1, &n, sizeof n);
  }
  std::memcpy(nameFree + head, name.data(), name.size());
  recent = KeptName(nameFree);
  nameFree += need;
  nameRoom -= need;
  return recent;
}

bool ProgramExtras::operator==(const ProgramExtras &o) const {
  auto bits = [](double d) {
    uint64_t u;
    std::memcpy(&u, &d, sizeof u);
    return u;
  };
  return keyText == o.keyText && fallback == o.fallback && readError == o.readError &&
         compileOnlyRead == o.compileOnlyRead &&
         writeError == o.writeError && bits(compileSeconds) == bits(o.compileSeconds) &&
         bits(minCompileSeconds) == bits(o.minCompileSeconds) && entryBytes == o.entryBytes &&
         minEntryBytes == o.minEntryBytes && maxCacheBytes == o.maxCacheBytes &&
         profileVersion == o.profileVersion && argMapping == o.argMapping &&
         noSpace == o.noSpace;
}

const ProgramExtras &ProgramExtras::none() {
  static const ProgramExtras n;
  return n;
}

size_t LogSummary::ExtrasHash::operator()(const ProgramExtras *e) const {
  // 64-bit arithmetic on every target (size_t is 32 bits in wasm32).
  uint64_t h = 0xcbf29ce484222325ull;
  auto mix = [&h](uint64_t x) { h = (h ^ x) * 0x100000001b3ull; };
  for (double d : {e->compileSeconds, e->minCompileSeconds}) {
    uint64_t u;
    std::memcpy(&u, &d, sizeof u);
    mix(u);
  }
  for (long long v : {e->entryBytes, e->minEntryBytes, e->maxCacheBytes, e->profileVersion})
    mix(static_cast<uint64_t>(v));
  for (int v : {e->keyText, e->fallback, e->readError, e->writeError, e->argMapping})
    mix(static_cast<uint32_t>(v));
  mix(e->compileOnlyRead);
  mix(e->noSpace);
  return static_cast<size_t>(h ^ (h >> 32));
}

const ProgramExtras *LogSummary::keepExtras(const ProgramExtras &e) {
  if (e == ProgramExtras::none())
    return &ProgramExtras::none();
  auto it = extrasSet.find(&e);
  if (it != extrasSet.end())
    return *it;
  extras.push_back(e);
  extrasSet.insert(&extras.back());
  return &extras.back();
}

void LogSummary::setWrite(LoggedProgram &p, const WriteOutcome &w) {
  p.writeState = w.state;
  p.writeReason = w.reason;
  p.atimeError = w.atimeError;
  p.writeAfter = LoggedProgram::after(p.firstLine, w.line);
  editExtras(p, [&](ProgramExtras &e) {
    e.writeError = w.error;
    e.compileSeconds = w.compileSeconds;
    e.minCompileSeconds = w.minCompileSeconds;
    e.entryBytes = w.entryBytes;
    e.minEntryBytes = w.minEntryBytes;
    e.maxCacheBytes = w.maxCacheBytes;
    e.noSpace = w.noSpace;
  });
}

WriteOutcome LoggedProgram::write() const {
  WriteOutcome w;
  w.state = writeState;
  w.reason = writeReason;
  w.atimeError = atimeError;
  w.error = extras->writeError;
  w.compileSeconds = extras->compileSeconds;
  w.minCompileSeconds = extras->minCompileSeconds;
  w.entryBytes = extras->entryBytes;
  w.minEntryBytes = extras->minEntryBytes;
  w.maxCacheBytes = extras->maxCacheBytes;
  w.noSpace = extras->noSpace;
  w.line = writeAfter ? static_cast<size_t>(firstLine + writeAfter - 1) : 0;
  return w;
}

const std::string &LogSummary::writeError(const LoggedProgram &p) const {
  static const std::string none;
  int e = p.extras->writeError;
  return e >= 0 ? texts[e] : none;
}

size_t endsCompilingLine(const LogSummary &log) {
  // The last program by lookup missed, and nothing of its write is logged
  // where writes are: another program's write, or the cache's "Initialized"
  // line (compilation_cache.py's logger logs the writes) with compiler.py's
  // get_compile_options lines (its logger logs a compile that ends
  // unwritten: "took at least", "Not writing … because").
  const LoggedProgram *last = nullptr;
  bool writesLogged = !log.cacheDirs.empty() && log.compileOptionsLines > 0;
  for (const LoggedProgram &p : log.programs) {
    writesLogged = writesLogged || p.writeState != WriteState::Unknown;
    if (p.lookupLine() && (!last || p.lookupLine() > last->lookupLine()))
      last = &p;
  }
  if (last && writesLogged && last->lookup == Lookup::Miss &&
      last->writeState == WriteState::Unknown && last->firstLine >= log.programs.back().firstLine)
    return last->lookupLine();
  return 0;
}

size_t LogSummary::endsInsideKeyAt() const {
  // The keys the log ends in are noted last (LogReader::finish, one per
  // stream): only that suffix is read, so a caller may ask once per program
  // of a log with many cut keys. The first of them, as read.
  size_t line = 0;
  for (auto it = incomplete.rbegin(); it != incomplete.rend() &&
                                      it->code == LogReadNote::Code::KeyStops &&
                                      it->why == LogReadNote::Why::LogEnds;
       ++it)
    line = it->line;
  return line;
}

std::vector<int> LogSummary::comparable() const {
  std::vector<int> out;
  for (size_t i = 0; i < programs.size(); ++i)
    if (!programs[i].pgleProbe &&
        (programs[i].complete() || (programs[i].keyDigest && programs[i].digestLines() == 0)))
      out.push_back(static_cast<int>(i));
  return out;
}

} // namespace cachekey
