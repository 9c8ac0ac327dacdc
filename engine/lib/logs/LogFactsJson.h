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
#include <string_view>
#include <type_traits>
#include <utility>
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

/// The members of an object, given one at a time as `member(name, value)`
/// (a string, integer, boolean, double, null or Json), `member.object(name,
/// fill)` (fill(members) gives the nested object's) or `member.array(name,
/// fill)` (fill(items) gives the array's items: `items(value)`,
/// `items.object(fill)`): put into a tree (TreeMembers, TreeItems) or written
/// as they come (WriterMembers, WriterItems), so that one function lists an
/// object's members for both.
struct TreeMembers {
  Json &json;
  template <class T> void operator()(std::string_view name, T &&value) const {
    json[std::string(name)] = Json(std::forward<T>(value));
  }
  template <class Fill> void object(std::string_view name, const Fill &fill) const;
  template <class Fill> void array(std::string_view name, const Fill &fill) const;
};

/// The items of a JSON array in a tree (TreeMembers::array).
struct TreeItems {
  Json &json;
  template <class T> void operator()(T &&value) const {
    json.push_back(Json(std::forward<T>(value)));
  }
  template <class Fill> void object(const Fill &fill) const {
    Json nested = Json::object();
    fill(TreeMembers{nested});
    json.push_back(std::move(nested));
  }
};

template <class Fill> void TreeMembers::object(std::string_view name, const Fill &fill) const {
  Json nested = Json::object();
  fill(TreeMembers{nested});
  json[std::string(name)] = std::move(nested);
}

template <class Fill> void TreeMembers::array(std::string_view name, const Fill &fill) const {
  Json items = Json::array();
  fill(TreeItems{items});
  json[std::string(name)] = std::move(items);
}

/// TreeItems' twin for a JsonWriter whose array is open (or after a key):
/// each value written as it comes, the same bytes as the tree's.
struct WriterItems {
  JsonWriter &writer;
  void operator()(std::string_view value) const { writer.string(value); }
  void operator()(const char *value) const { writer.string(value); }
  void operator()(const std::string &value) const { writer.string(value); }
  void operator()(bool value) const { writer.boolean(value); }
  template <class I, std::enable_if_t<std::is_integral_v<I> && !std::is_same_v<I, bool>, int> = 0>
  void operator()(I value) const {
    writer.integer(static_cast<long long>(value));
  }
  void operator()(std::nullptr_t) const { writer.null(); }
  /// A list of strings, as Json(list) is written.
  void operator()(const std::vector<std::string> &list) const {
    writer.arrayBegin();
    for (const std::string &item : list)
      writer.string(item);
    writer.arrayEnd();
  }
  /// Doubles and whole values go through nlohmann's serializer.
  void operator()(double value) const { writer.value(Json(value)); }
  void operator()(const Json &value) const { writer.value(value); }
  template <class Fill> void object(const Fill &fill) const;
};

/// TreeMembers' twin for a JsonWriter whose object is open: the same bytes
/// as writing the tree, without making it.
struct WriterMembers {
  JsonWriter &writer;
  template <class T> void operator()(std::string_view name, T &&value) const {
    writer.key(name);
    WriterItems{writer}(std::forward<T>(value));
  }
  template <class Fill> void object(std::string_view name, const Fill &fill) const {
    writer.key(name);
    WriterItems{writer}.object(fill);
  }
  template <class Fill> void array(std::string_view name, const Fill &fill) const {
    writer.key(name);
    writer.arrayBegin();
    fill(WriterItems{writer});
    writer.arrayEnd();
  }
};

template <class Fill> void WriterItems::object(const Fill &fill) const {
  writer.objectBegin();
  fill(WriterMembers{writer});
  writer.objectEnd();
}

/// logJson's members, one at a time (TreeMembers, WriterMembers; both are
/// instantiated in LogFactsJson.cpp).
template <class Members> void logMembers(const LogSummary &log, const Members &member);

/// statsJson's members, one at a time (TreeMembers, WriterMembers).
template <class Members>
void statsMembers(const RunStats &stats, const std::string &text, const Members &member);

/// digestsJson's items, one at a time (TreeItems, WriterItems).
template <class Items>
void digestsItems(const std::array<std::optional<Digest>, kNumEntries> &digests,
                  const Items &item) {
  for (const auto &x : digests)
    if (x)
      item(toHex(*x));
    else
      item(nullptr);
}

/// A run's outcome for a program, member by member (TreeMembers,
/// WriterMembers): "code", "lookup", "reason"? (not written), and on a miss
/// "lookup_without_cache" and "lookup_inferred" when true, "read_error" and
/// "compile_only_read" when JAX logged a read error, …; last "text". As in
/// proto3's JSON, a member at its default is left out (docs/json.md).
/// `logTexts` holds the log's kept texts (read errors, write errors);
/// `endsCompiling`: the log ends while this program compiled
/// (LogSummary::endsCompilingAt), code "missed_run_stopped".
template <class Members>
void outcomeMembers(const LoggedProgram &p, std::string_view text,
                    const std::vector<std::string> *logTexts, bool endsCompiling,
                    const Members &member) {
  const char *code = "missed_write_unknown";
  if (p.lookup == Lookup::Miss && endsCompiling)
    code = "missed_run_stopped";
  else if (p.lookup == Lookup::Hit)
    code = "hit";
  else if (p.lookup == Lookup::Unknown)
    code = "no_lookup_logged";
  else
    switch (p.writeState) {
    case WriteState::Written: code = "missed_written"; break;
    case WriteState::Attempted: code = "missed_write_attempted"; break;
    case WriteState::NotWritten: code = "missed_not_written"; break;
    case WriteState::Failed: code = "missed_write_failed"; break;
    case WriteState::Unknown: break;
    }
  member("code", code);
  // The lookup alone, so a reader need not take it from the code's words.
  member("lookup", p.lookup == Lookup::Hit ? "hit" : p.lookup == Lookup::Miss ? "miss" : "unknown");
  if (p.lookup == Lookup::Miss && p.writeState == WriteState::NotWritten)
    member("reason", notWrittenCode(p.writeReason));
  if (p.lookup == Lookup::Miss) {
    if (p.lookupNoCache)
      member("lookup_without_cache", true);
    if (p.readError() >= 0) {
      member("read_error", logTexts->at(p.readError()));
      member("compile_only_read", p.compileOnlyRead());
    }
    if (p.lookupInferred)
      member("lookup_inferred", true);
    if (p.write().compileSeconds >= 0)
      member("compile_seconds", p.write().compileSeconds);
    if (p.writeState == WriteState::Failed)
      member("error", logTexts->at(p.write().error));
    if (p.write().entryBytes >= 0)
      member("entry_bytes", p.write().entryBytes);
    if (p.write().maxCacheBytes >= 0)
      member("max_cache_bytes", p.write().maxCacheBytes);
  }
  member("text", text);
}

/// A key move {"code", …its fields, "text"} (keyMoveText).
Json keyMoveJson(const KeyMove &move);

/// The facts beside `words`, one each as entryChangeToJson ([] when they
/// do not match).
Json findingsBeside(const std::vector<EntryChange> &facts,
                    const std::vector<std::string> &words);

/// A run's stats {programs, hits, misses, no_outcome, hit_rate, …, text}.
Json statsJson(const RunStats &stats, const std::string &text);

} // namespace cachekey::logs

#endif // CACHEKEY_LIB_LOGS_LOGFACTSJSON_H
