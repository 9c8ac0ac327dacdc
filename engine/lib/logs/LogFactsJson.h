//===- LogFactsJson.h - The log facts as JSON objects -----------*- C++ -*-===//
//
// Internal to engine/lib/logs: the objects and code names the log
// comparison's JSON (LogCompareJson.cpp) is made of. Each finding object is
// {"code", …fields, "text"}, its text the wording module's.
//
//===----------------------------------------------------------------------===//
#ifndef CACHEKEY_LIB_LOGS_LOGFACTSJSON_H
#define CACHEKEY_LIB_LOGS_LOGFACTSJSON_H

#include "LogFacts.h"

#include "cachekey/Json.h"

#include <array>
#include <optional>
#include <string>
#include <vector>

namespace cachekey::logs {

/// The 8 digests as hex strings, null where not logged.
Json digestsJson(const std::array<std::optional<Digest>, kNumEntries> &digests);

/// What was read of one log: name, lines, programs, hits, misses, the jaxlib
/// version, cache directories, streams, what was cut or unreadable.
Json logJson(const LogSummary &log);

/// "equal", "differ", "unknown".
const char *keysName(ProgramPair::Keys keys);

/// The snake_case names of the closed code lists.
const char *keyMoveCode(KeyMove::Code code);
const char *logFindingCode(LogFinding::Code code);
const char *missReasonCode(MissReason reason);
const char *notWrittenCode(NotWrittenReason reason);
const char *matchCode(PairMatch match);
const char *notCachedCode(NotCached reason);

/// A pair's verdict code: "only_in_a", "only_in_b", "keys_unknown",
/// "key_moved", "same_key_missed", "same_key".
const char *verdictCode(const LogComparison &comparison, const ProgramPair &pair);

/// An empty object with room for `members` (ordered_json keeps members in
/// a vector whose keys are const: growing it copies every member).
Json objectFor(size_t members);

/// A run's outcome for a program: {"code", "reason"? (not written), …,
/// "text"}; `logTexts` the log's kept texts (read errors, write errors).
Json outcomeJson(const LoggedProgram &program, const std::string &text,
                 const std::vector<std::string> *logTexts);

/// A key move {"code", …its fields, "text"} (keyMoveText).
Json keyMoveJson(const KeyMove &move);

/// A finding {"code", "entry", …its fields, "text"}.
Json logFindingJson(const LogFinding &finding, const std::string &text);

/// The facts beside `words`, one each ([] when they do not match).
Json findingsBeside(const std::vector<LogFinding> &facts,
                    const std::vector<std::string> &words);

/// A run's stats {programs, hits, misses, no_outcome, hit_rate, …, text}.
Json statsJson(const RunStats &stats, const std::string &text);

} // namespace cachekey::logs

#endif // CACHEKEY_LIB_LOGS_LOGFACTSJSON_H
