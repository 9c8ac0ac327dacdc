//===- LogFactsJson.cpp - The log facts as JSON objects -------------------===//
//
// The codes and objects of the facts a log comparison holds (LogCompare.h,
// LogFacts.h): key moves, findings, outcomes, run stats, and the stable
// snake_case names of their codes. logComparisonToJson and
// manyLogComparisonToJson (LogCompareJson.cpp) assemble them.
//
//===----------------------------------------------------------------------===//
#include "LogFactsJson.h"

#include "cachekey/KnownDigests.h"
#include "cachekey/Wording.h"

namespace cachekey::logs {

Json digestsJson(const std::array<std::optional<Digest>, kNumEntries> &d) {
  Json j = Json::array();
  digestsItems(d, TreeItems{j});
  return j;
}

template <class Members> void logMembers(const LogSummary &l, const Members &member) {
  member("name", l.name);
  member("lines", l.lines);
  size_t hits = 0, misses = 0;
  for (const auto &p : l.programs) {
    hits += p.lookup == Lookup::Hit;
    misses += p.lookup == Lookup::Miss;
  }
  member("programs", l.comparable().size());
  member("hits", hits);
  member("misses", misses);
  if (auto v = jaxlibOf(l))
    member("jaxlib", *v);
  else
    member("jaxlib", nullptr);
  member("cache_dirs", l.cacheDirs);
  member("autotune_caches", l.autotuneCaches);
  member("kernel_caches", l.kernelCaches);
  member("cache_disabled", l.cacheDisabled);
  member("streams", l.streams);
  // What could not be read, each {code, line, …its fields, text}.
  auto notes = [&](const char *name, const std::vector<LogReadNote> &list) {
    member.array(name, [&](const auto &items) {
      for (const LogReadNote &n : list)
        items.object([&](const auto &x) {
          x("code", logReadNoteCode(n.code));
          x("line", n.line);
          if (n.code == LogReadNote::Code::DigestNotSha256) {
            x("entry", n.entry);
            x("own", n.fresh);
            x("cut", n.cut);
          }
          if (n.code == LogReadNote::Code::KeyStops)
            x("digest_lines", n.digests);
          x("text", logReadNoteText(n));
        });
    });
  };
  notes("incomplete", l.incomplete);
  notes("problems", l.problems);
  member("problem_count", l.problemCount);
  member("long_lines", l.longLines);
  member("duplicate_lines", l.duplicateLines);
  member("ends_mid_line", l.endsMidLine);
}

template void logMembers(const LogSummary &, const TreeMembers &);
template void logMembers(const LogSummary &, const WriterMembers &);

Json logJson(const LogSummary &l) {
  Json j = objectFor(17);
  logMembers(l, TreeMembers{j});
  return j;
}

const char *keysName(ProgramPair::Keys k) {
  return k == ProgramPair::Keys::Equal    ? "equal"
         : k == ProgramPair::Keys::Differ ? "differ"
                                          : "unknown";
}

const char *keyMoveCode(KeyMove::Code c) {
  using M = KeyMove::Code;
  switch (c) {
  case M::None: return "none";
  case M::Inconsistent: return "inconsistent";
  case M::TraceMissing: return "trace_missing";
  case M::ProgramChanged: return "program_changed";
  case M::ArgTypes: return "arg_types";
  case M::EnableX64: return "enable_x64";
  case M::JaxOwnProgram: return "jax_own_program";
  case M::EveryProgram: return "every_program";
  case M::JaxlibUpgrade: return "jaxlib_upgrade";
  case M::JaxlibDowngrade: return "jaxlib_downgrade";
  case M::JaxlibChanged: return "jaxlib_changed";
  case M::BackendChanged: return "backend_changed";
  case M::FlagsNotLogged: return "flags_not_logged";
  case M::Flags: return "flags";
  case M::CacheDirMoved: return "cache_dir_moved";
  case M::KernelCacheChanged: return "kernel_cache_changed";
  case M::CompileOptionsChanged: return "compile_options_changed";
  case M::DevicesChanged: return "devices_changed";
  case M::Compression: return "compression";
  case M::CustomHook: return "custom_hook";
  case M::GlobalSetting: return "global_setting";
  case M::StaticOrConstant: return "static_or_constant";
  case M::XlaCachesSetting: return "xla_caches_setting";
  case M::PgleSetting: return "pgle_setting";
  case M::ProfileVersion: return "profile_version";
  case M::ArgShardings: return "arg_shardings";
  }
  return "none";
}

const char *missReasonCode(MissReason m) {
  switch (m) {
  case MissReason::NotWritten: return "not_written";
  case MissReason::WriteFailed: return "write_failed";
  case MissReason::OtherDir: return "other_cache_dir";
  case MissReason::Gone: return "gone";
  case MissReason::Removed: return "removed";
  case MissReason::FirstRunStopped: return "first_run_stopped";
  case MissReason::MaybeNoCache: return "maybe_no_cache";
  case MissReason::NoCacheYet: return "no_cache_yet";
  case MissReason::Damaged: return "damaged";
  case MissReason::CompileOnlyClient: return "compile_only_client";
  case MissReason::CheckContents: return "check_contents";
  case MissReason::NoFilelock: return "no_filelock";
  case MissReason::Evicted: return "evicted";
  case MissReason::TooLarge: return "too_large";
  case MissReason::RelativeDir: return "relative_cache_dir";
  case MissReason::UnsupportedRuntime: return "unsupported_runtime";
  case MissReason::Unknown: return "unknown";
  }
  return "unknown";
}

const char *notWrittenCode(NotWrittenReason r) {
  switch (r) {
  case NotWrittenReason::None: return "none";
  case NotWrittenReason::CompileTime: return "compile_time";
  case NotWrittenReason::HostCallbacks: return "host_callbacks";
  case NotWrittenReason::NotProcessZero: return "not_process_zero";
  case NotWrittenReason::EntrySize: return "entry_size";
  case NotWrittenReason::CacheDisabled: return "cache_disabled";
  case NotWrittenReason::TooLarge: return "too_large";
  }
  return "none";
}

/// An empty object with room for `members` (ordered_json keeps members in
/// a vector whose keys are const: growing it copies every member).
Json objectFor(size_t members) {
  Json j = Json::object();
  j.get_ref<Json::object_t &>().reserve(members);
  return j;
}

Json keyMoveJson(const KeyMove &m) {
  Json j = objectFor(4);
  j["code"] = keyMoveCode(m.code);
  switch (m.code) {
  case KeyMove::Code::TraceMissing:
    j["both"] = m.both;
    break;
  case KeyMove::Code::JaxlibUpgrade:
  case KeyMove::Code::JaxlibDowngrade:
  case KeyMove::Code::ArgTypes:
  case KeyMove::Code::EnableX64:
  case KeyMove::Code::Compression:
  case KeyMove::Code::CustomHook:
  case KeyMove::Code::ProfileVersion:
  case KeyMove::Code::ArgShardings:
    j["before"] = m.before;
    j["after"] = m.after;
    break;
  case KeyMove::Code::Flags:
    j["flag"] = flagChangeToJson(m.flag);
    break;
  case KeyMove::Code::EveryProgram:
    j["programs"] = std::atoi(m.before.c_str());
    j["jax_own"] = m.both;
    break;
  case KeyMove::Code::GlobalSetting:
    j["programs"] = std::atoi(m.before.c_str());
    j["entry"] = std::atoi(m.after.c_str());
    break;
  case KeyMove::Code::StaticOrConstant:
    j["compiles"] = std::atoi(m.before.c_str());
    break;
  case KeyMove::Code::XlaCachesSetting:
    j["without"] = m.after;
    break;
  case KeyMove::Code::PgleSetting:
    j["with"] = m.after;
    break;
  default:
    break;
  }
  j["text"] = keyMoveText(m);
  return j;
}

/// The facts beside `words`, one each ([] when they do not match).
Json findingsBeside(const std::vector<EntryChange> &facts,
                    const std::vector<std::string> &words) {
  Json out = Json::array();
  if (facts.size() != words.size())
    return out;
  for (size_t i = 0; i < facts.size(); ++i)
    out.push_back(entryChangeToJson(facts[i], words[i]));
  return out;
}

const char *verdictCode(const LogComparison &r, const ProgramPair &p) {
  if (p.a < 0)
    return p.keyOfFirst ? "again_in_b" : "only_in_b";
  if (p.b < 0)
    return r.logs[1].endsInsideKeyAt() ? "only_in_a_b_cut" : "only_in_a";
  switch (p.keys) {
  case ProgramPair::Keys::Unknown: return "keys_unknown";
  case ProgramPair::Keys::Differ: return "key_moved";
  case ProgramPair::Keys::Equal: break;
  }
  return p.miss ? "same_key_missed" : "same_key";
}

const char *matchCode(PairMatch m) {
  switch (m) {
  case PairMatch::None: return "none";
  case PairMatch::Key: return "key";
  case PairMatch::Shapes: return "shapes";
  case PairMatch::Name: return "name";
  case PairMatch::Order: return "order";
  }
  return "none";
}

const char *notCachedCode(NotCached n) {
  switch (n) {
  case NotCached::CompileTime: return "compile_time";
  case NotCached::EntrySize: return "entry_size";
  case NotCached::HostCallbacks: return "host_callbacks";
  case NotCached::NotProcessZero: return "not_process_zero";
  case NotCached::NoCache: return "no_cache";
  case NotCached::TooLarge: return "too_large";
  case NotCached::WriteFailed: return "write_failed";
  case NotCached::ReadFailed: return "read_failed";
  case NotCached::CompileOnly: return "compile_only_client";
  case NotCached::Unknown: return "unknown";
  }
  return "unknown";
}

template <class Members>
void statsMembers(const RunStats &s, const std::string &text, const Members &member) {
  member("programs", s.programs);
  member("hits", s.hits);
  member("misses", s.misses);
  member("no_outcome", s.noOutcome);
  if (s.hits + s.misses)
    member("hit_rate", double(s.hits) / double(s.hits + s.misses));
  else
    member("hit_rate", nullptr);
  member("miss_compile_seconds", s.missCompileSeconds);
  member("timed_misses", s.timedMisses);
  member("written", s.written);
  member("evictions", s.evictions);
  member.array("not_cached", [&](const auto &items) {
    for (const auto &count : s.notCached)
      items.object([&](const auto &x) {
        x("code", notCachedCode(count.first));
        x("count", count.second);
      });
  });
  member("text", text);
}

template void statsMembers(const RunStats &, const std::string &, const TreeMembers &);
template void statsMembers(const RunStats &, const std::string &, const WriterMembers &);

Json statsJson(const RunStats &s, const std::string &text) {
  Json j = objectFor(11);
  statsMembers(s, text, TreeMembers{j});
  return j;
}

} // namespace cachekey::logs
