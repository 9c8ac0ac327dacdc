//===- LogReaderCopies.cpp - One record printed twice, read once ----------===//
//
// A log where two handlers print each record (JAX_LOGGING_LEVEL with
// JAX_DEBUG_LOG_MODULES, two root handlers, launcher prefixes on top) holds
// every line twice, byte for byte or under two prefixes. The reader keeps
// the line before (and, with several processes, the last line of each) and
// drops the second copy, so each program is counted once. Part of
// LogReader (LogReader.h); the rest of its state is in LogReader.cpp.
//
//===----------------------------------------------------------------------===//
#include "cachekey/LogReader.h"

#include "cachekey/LogPrefix.h"

#include "LogLines.h"

#include <algorithm>
#include <cctype>

namespace cachekey {

using namespace logs::lines;

namespace {

/// Whether `line` is `before`'s record printed by another handler: the
/// longest common tail holds a whole message (at least 24 characters) and
/// starts where a prefix can end, after two different prefixes that tag the
/// same process (LogPrefix.h streamTag; `tags` are two buffers for them).
bool otherHandlersCopy(std::string_view line, std::string_view before,
                       std::string (&tags)[2]) {
  size_t n = 0;
  while (n < line.size() && n < before.size() &&
         line[line.size() - 1 - n] == before[before.size() - 1 - n])
    ++n;
  if (n < 24 || n >= line.size() || n >= before.size())
    return false;
  std::string_view pa = before.substr(0, before.size() - n), pb = line.substr(0, line.size() - n);
  auto boundary = [](std::string_view p) {
    char c = p.back();
    return c == ':' || c == ' ' || c == ']' || c == '\t';
  };
  // The tail starts at a word (a prefix ends in ':' or a blank, and the
  // tail does not continue a word of it).
  std::string_view tail = line.substr(line.size() - n);
  if (pa == pb || !boundary(pa) || !boundary(pb) || tail.front() == ':')
    return false;
  streamTag(pa, tags[0]);
  streamTag(pb, tags[1]);
  return tags[0] == tags[1];
}

std::string_view withoutCr(std::string_view s) {
  if (!s.empty() && s.back() == '\r')
    s.remove_suffix(1);
  return s;
}

} // namespace

bool LogReader::duplicateOfPrevious(std::string_view line) {
  line = withoutCr(line);
  std::string_view before = withoutCr(previousLine);
  // A byte-identical copy: one record printed by two handlers of the same
  // format (JAX_LOGGING_LEVEL's handler on the "jax" logger and the one
  // JAX_DEBUG_LOG_MODULES adds, or two root handlers). JAX itself repeats a
  // line identically only for entry 4's flags (logged once for the key and
  // once for its digest), never a digest line; so the first digest line
  // seen twice in a row says the log doubles every record, and from then on
  // each second copy is dropped (of four flag lines, two are kept).
  if (!before.empty() && line == before) {
    if (line.find(kOwn) != std::string_view::npos ||
        line.find(kRunning) != std::string_view::npos)
      doubledRecords = true;
    if (doubledRecords)
      consumePrevious(); // a third copy is a record of its own
    return doubledRecords;
  }
  if (!before.empty() && otherHandlersCopy(line, before, tagScratch)) {
    consumePrevious(); // a third copy is a record of its own
    return true;
  }
  // In a log of several processes (launcher prefixes), another process's
  // line may fall between a record's two copies: the copy is then compared
  // with the line before it of its own process, as the line before is
  // compared above in a log of one.
  if (streams.size() > 1) {
    auto it = lastOfStreamTagged(handlerFreeTag(line));
    if (it != lastOfStream.end() && it->second != previousLine &&
        otherHandlersCopy(line, withoutCr(it->second), tagScratch)) {
      lastOfStream.erase(it); // a third copy is a record of its own
      return true;
    }
  }
  return false;
}

std::vector<std::pair<std::string, std::string>>::iterator
LogReader::lastOfStreamTagged(const std::string &tag) {
  return std::find_if(lastOfStream.begin(), lastOfStream.end(),
                      [&](const auto &entry) { return entry.first == tag; });
}

const std::string &LogReader::handlerFreeTag(std::string_view line) {
  // The prefix before JAX's logger name, as both handlers print it
  // ("[rank1]: DEBUG:2026-12-04 18:40:07,562:jax._src…" and
  // "[rank1]: DEBUG:jax._src…"), its launcher tag without the
  // separators that the two formats place differently.
  size_t p = line.find("jax.");
  if (p == std::string_view::npos)
    p = 0;
  streamTag(line.substr(0, p), handlerTag);
  handlerTag.erase(std::remove_if(handlerTag.begin(), handlerTag.end(),
                                  [](char c) {
                                    return !std::isalnum(static_cast<unsigned char>(c)) &&
                                           c != '[' && c != ']' && c != '_';
                                  }),
                   handlerTag.end());
  return handlerTag;
}

void LogReader::seedStreams() {
  // The first line of a stream is read (and its stream made) after it was
  // remembered: the line before, or the one kept aside, is then the last of
  // its stream.
  streamsSeeded = true;
  if (!previousLine.empty())
    rememberOfStream(previousLine);
  else if (!beforeStreams.empty())
    rememberOfStream(beforeStreams);
  beforeStreams = std::string();
}

bool LogReader::mayBeCopy() {
  if (!streamsSeeded && streams.size() > 1)
    seedStreams();
  return !previousLine.empty() || !lastOfStream.empty();
}

void LogReader::forgetPrevious() {
  // Until the log is seen to have several streams, the line is kept aside
  // (a swap, no copy): it may be the last of its stream when the first
  // line of another makes a second stream.
  if (!streamsSeeded && !previousLine.empty())
    std::swap(previousLine, beforeStreams);
  previousLine.clear();
}

void LogReader::consumePrevious() {
  if (streams.size() > 1) {
    auto it = lastOfStreamTagged(handlerFreeTag(previousLine));
    if (it != lastOfStream.end() && it->second == previousLine)
      lastOfStream.erase(it);
  }
  previousLine.clear();
}

void LogReader::remember(std::string_view line) {
  if (streams.size() <= 1) {
    previousLine.assign(line);
    return;
  }
  if (!streamsSeeded)
    seedStreams();
  previousLine.assign(line);
  rememberOfStream(line);
}

void LogReader::rememberOfStream(std::string_view line) {
  const std::string &tag = handlerFreeTag(line);
  auto it = lastOfStreamTagged(tag);
  if (it != lastOfStream.end()) {
    it->second.assign(line);
    return;
  }
  if (lastOfStream.size() == kStreamsRemembered) {
    // The oldest goes; its strings' buffers serve the newest.
    std::rotate(lastOfStream.begin(), lastOfStream.begin() + 1, lastOfStream.end());
    lastOfStream.back().first.assign(tag);
    lastOfStream.back().second.assign(line);
    return;
  }
  lastOfStream.emplace_back(tag, std::string(line));
}

} // namespace cachekey
