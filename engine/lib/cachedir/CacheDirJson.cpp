//===- CacheDirJson.cpp - The report as JSON and as text ------------------===//
//
// Each finding is {code, …its fields, text}; the text comes from
// CacheDirWording.cpp and nothing reads it back.
//
//===----------------------------------------------------------------------===//
#include "cachekey/CacheDir.h"
#include "cachekey/CacheDirLookup.h"
#include "cachekey/Parallel.h"

#include <charconv>

namespace cachekey {

namespace {

Json problemJson(const CacheProblem &p, EvictionRule rule) {
  Json j;
  j["code"] = problemCodeName(p.code);
  j["file"] = p.file;
  if (p.code == ProblemCode::DamagedEntry) {
    j["status"] = entryStatusName(p.status);
    j["detail"] = p.detail;
  }
  if (p.code == ProblemCode::Unreadable)
    j["detail"] = p.detail;
  if (p.code == ProblemCode::BadAtime)
    j["size"] = p.size;
  if (p.code == ProblemCode::ForeignFile) {
    j["size"] = p.size;
    j["directory"] = p.directory;
    j["counted_by_cap"] = p.countedByCap;
    j["with_atime"] = p.withAtime;
  }
  if (p.code == ProblemCode::OrphanCache)
    j["capped_writes_fail"] = p.strictRule;
  if (p.code == ProblemCode::Symlink) {
    static const char *states[] = {"unknown", "dangling", "file", "other"};
    j["link"] = {{"state", states[static_cast<int>(p.link.state)]},
                 {"target", p.link.target},
                 {"target_size", p.link.size},
                 {"inside", p.link.inside.empty() ? Json() : Json(p.link.inside)}};
    j["counted_by_cap"] = p.countedByCap;
  }
  if (p.code == ProblemCode::MixedCompression) {
    j["count_zstd"] = p.countZstd;
    j["count_zlib"] = p.countZlib;
  }
  if (p.code == ProblemCode::OtherLayoutEntry) {
    j["size"] = p.size;
    // The file's own layout: the one the report's rule does not read.
    j["layout"] = rule == EvictionRule::MtimeAllFiles ? "key-cache" : "key";
    j["counted_by_cap"] = p.countedByCap;
  }
  j["text"] = problemText(p, rule);
  return j;
}

Json entryJson(const CacheReport &r, const ProgramEntry &e) {
  const CacheFile &f = r.files[e.file];
  Json ej;
  ej["key"] = std::string(f.key());
  ej["file"] = f.name;
  ej["size"] = f.size;
  ej["decompressed"] = f.facts.decompressed ? Json(*f.facts.decompressed) : Json();
  ej["codec"] = codecName(f.facts.codec);
  ej["compile_seconds"] = e.compileSeconds;
  ej["last_access_ns"] = e.lastAccessNs;
  ej["last_access_from"] = e.fromAtime ? "atime_file" : "mtime";
  ej["status"] = entryStatusName(e.status);
  ej["ifrt_outputs"] = f.facts.hasIfrt ? Json(f.facts.outputs) : Json();
  return ej;
}

/// Appends `text` as a JSON string, as nlohmann's serializer writes it
/// (ensure_ascii off, invalid UTF-8 replaced): printable ASCII without
/// '"' or '\\' is copied as it is, anything else goes to the serializer.
void appendJsonString(std::string &out, std::string_view text) {
  for (char c : text)
    if (c < 0x20 || c > 0x7e || c == '"' || c == '\\') {
      out += dumpJson(Json(std::string(text)), -1);
      return;
    }
  out += '"';
  out += text;
  out += '"';
}

template <typename Int> void appendJsonInt(std::string &out, Int v) {
  char buf[24];
  auto end = std::to_chars(buf, buf + sizeof buf, v).ptr;
  out.append(buf, end);
}

/// entryJson's text, one line (dumpJson(entryJson(r, e), -1)), written
/// without building the tree: the --json of 100,000 entries.
void appendEntryJson(std::string &out, const CacheReport &r, const ProgramEntry &e) {
  const CacheFile &f = r.files[e.file];
  out += "{\"key\":";
  appendJsonString(out, f.key());
  out += ",\"file\":";
  appendJsonString(out, f.name);
  out += ",\"size\":";
  appendJsonInt(out, f.size);
  out += ",\"decompressed\":";
  if (f.facts.decompressed)
    appendJsonInt(out, *f.facts.decompressed);
  else
    out += "null";
  out += ",\"codec\":";
  appendJsonString(out, codecName(f.facts.codec));
  out += ",\"compile_seconds\":";
  appendJsonInt(out, e.compileSeconds);
  out += ",\"last_access_ns\":";
  appendJsonInt(out, e.lastAccessNs);
  out += e.fromAtime ? ",\"last_access_from\":\"atime_file\"" : ",\"last_access_from\":\"mtime\"";
  out += ",\"status\":";
  appendJsonString(out, entryStatusName(e.status));
  out += ",\"ifrt_outputs\":";
  if (f.facts.hasIfrt)
    appendJsonString(out, f.facts.outputs);
  else
    out += "null";
  out += '}';
}

/// Everything of the report but the programs' entries, which go at
/// "programs"[i]["entries"].
Json reportJsonWithoutEntries(const CacheReport &r) {
  Json j;
  j["dir"] = r.dir;
  j["layout"] = r.layout;
  j["rule"] = evictionRuleName(r.rule);
  j["rule_inferred"] = r.ruleInferred;
  j["whole_decoded"] = r.wholeDecoded;
  j["entries"] = r.entryCount;
  j["entries_size"] = r.entrySize;
  j["lockfile"] = r.hasLockfile;
  j["atime_files"] = r.hasAtimes;
  // The first line of the text report, as a finding: the counts above and
  // their words.
  j["summary"] = {{"code", "cache_summary"}, {"dir", r.dir},
                  {"entries", r.entryCount},  {"entries_size", r.entrySize},
                  {"layout", r.layout},       {"lockfile", r.hasLockfile},
                  {"atime_files", r.hasAtimes}, {"text", cacheSummaryText(r)}};
  Json programs = Json::array();
  for (const ProgramSummary &p : r.programs) {
    Json pj;
    pj["code"] = "program";
    pj["module"] = p.module;
    pj["keys"] = p.entries.size();
    pj["size"] = p.size;
    pj["decompressed"] = p.decompressed;
    pj["decompressed_complete"] = p.decompressedComplete;
    pj["compile_seconds"] = p.compileSeconds;
    pj["last_access_ns"] = p.lastAccessNs;
    pj["text"] = programText(p);
    pj["entries"] = Json::array();
    programs.push_back(std::move(pj));
  }
  j["programs"] = std::move(programs);
  Json problems = Json::array();
  for (const CacheProblem &p : r.problems)
    problems.push_back(problemJson(p, r.rule));
  j["problems"] = std::move(problems);
  Json hints = Json::array();
  for (const CacheHint &h : r.hints) {
    Json hj;
    hj["code"] = hintCodeName(h.code);
    hj["module"] = h.module;
    hj["entries"] = h.entries;
    hj["shapes"] = h.shapes;
    hj["unread"] = h.unread;
    hj["text"] = hintText(h);
    hints.push_back(std::move(hj));
  }
  j["hints"] = std::move(hints);
  if (r.eviction) {
    const EvictionPlan &e = *r.eviction;
    Json ej;
    ej["code"] = e.noCap ? "no_cap" : e.writesRefused ? "writes_refused"
                 : e.raises ? "eviction_raises" : "eviction";
    ej["rule"] = evictionRuleName(e.rule);
    ej["max_size"] = e.requested;
    ej["next_entry"] = e.nextEntry;
    ej["raise_reason"] = !e.raises ? Json() : Json(raiseReasonName(e.raiseReason));
    ej["linked_size"] = e.linkedSize;
    ej["double_counted"] = e.doubleCounted;
    ej["counted_size"] = e.countedSize;
    ej["raises_at"] = e.raises ? Json(e.raisingFile) : Json();
    ej["atime_links"] = e.atimeLinks;
    ej["evicted"] = Json::array(); // filled by evictedJson
    ej["evicted_count"] = e.evicted.size();
    ej["text"] = evictionText(e);
    j["eviction"] = std::move(ej);
  }
  return j;
}

/// rank_ns: a signed mtime, an unsigned -atime value (Python's int), 0
/// without an -atime, or null for a value cachekey does not hold.
Json rankJson(const PlannedEviction &x) {
  using From = PlannedEviction::RankFrom;
  switch (x.rankFrom) {
  case From::Mtime: return Json(x.rankNs);
  case From::AtimeFile: return Json(static_cast<uint64_t>(x.rankNs));
  case From::NoAtime: return Json(0);
  case From::AtimeBeyond64:
  case From::AtimeLink: break;
  }
  return Json();
}

Json evictedJson(const PlannedEviction &x) {
  return {{"file", x.file},
          {"size", x.size},
          {"rank_ns", rankJson(x)},
          {"rank_from", rankFromName(x.rankFrom)}};
}

/// evictedJson's text, one line, written without building the tree.
void appendEvictedJson(std::string &out, const PlannedEviction &x) {
  out += "{\"file\":";
  appendJsonString(out, x.file);
  out += ",\"size\":";
  appendJsonInt(out, x.size);
  out += ",\"rank_ns\":";
  using From = PlannedEviction::RankFrom;
  if (x.rankFrom == From::Mtime)
    appendJsonInt(out, x.rankNs);
  else if (x.rankFrom == From::AtimeFile)
    appendJsonInt(out, static_cast<uint64_t>(x.rankNs));
  else if (x.rankFrom == From::NoAtime)
    out += '0';
  else
    out += "null";
  out += ",\"rank_from\":\"";
  out += rankFromName(x.rankFrom);
  out += "\"}";
}

} // namespace

Json cacheReportToJson(const CacheReport &r) {
  Json j = reportJsonWithoutEntries(r);
  for (size_t i = 0; i < r.programs.size(); ++i)
    for (const ProgramEntry &e : r.programs[i].entries)
      j["programs"][i]["entries"].push_back(entryJson(r, e));
  if (r.eviction)
    for (const PlannedEviction &x : r.eviction->evicted)
      j["eviction"]["evicted"].push_back(evictedJson(x));
  return j;
}

void writeCacheReportJson(std::ostream &out, const CacheReport &r) {
  // The tree without the entries, written member by member through one
  // JsonWriter (one line, as dumpJson(tree) writes it); each program's
  // "entries" and the eviction's "evicted" are written there one by one:
  // made on every core, a block at a time, in order (the bytes one thread
  // would write).
  std::string text;
  JsonWriter w(text, -1);
  const auto flush = [&] {
    out.write(text.data(), static_cast<std::streamsize>(text.size()));
    text.clear();
  };
  const auto stream = [&](size_t n, size_t block, const auto &item) {
    w.arrayBegin();
    flush();
    const int depth = w.depth();
    makeInOrder(
        workerThreads(), n, block,
        [&](size_t i, std::string &piece) {
          static thread_local std::string text;
          text.clear();
          item(i, text);
          JsonWriter(piece, -1, depth, i).raw(text);
        },
        [&](const std::string &piece) {
          out.write(piece.data(), static_cast<std::streamsize>(piece.size()));
        });
    w.itemsWrittenElsewhere(n);
    w.arrayEnd();
  };
  const Json tree = reportJsonWithoutEntries(r);
  w.objectBegin();
  for (const auto &[name, value] : tree.items()) {
    if (name == "programs") {
      w.key(name);
      w.arrayBegin();
      for (size_t k = 0; k < value.size(); ++k) {
        const ProgramSummary &p = r.programs[k];
        w.objectBegin();
        for (const auto &[member, v] : value[k].items()) {
          if (member != "entries") {
            w.attribute(member, v);
            continue;
          }
          w.key(member);
          stream(p.entries.size(), 2048,
                 [&](size_t i, std::string &t) { appendEntryJson(t, r, p.entries[i]); });
        }
        w.objectEnd();
      }
      w.arrayEnd();
    } else if (name == "eviction" && r.eviction) {
      w.key(name);
      w.objectBegin();
      for (const auto &[member, v] : value.items()) {
        if (member != "evicted") {
          w.attribute(member, v);
          continue;
        }
        w.key(member);
        stream(r.eviction->evicted.size(), 4096,
               [&](size_t i, std::string &t) { appendEvictedJson(t, r.eviction->evicted[i]); });
      }
      w.objectEnd();
    } else {
      w.attribute(name, value);
    }
  }
  w.objectEnd();
  flush();
}

void writeCacheReport(std::ostream &out, const CacheReport &r) {
  out << cacheSummaryText(r) << "\n";
  if (!r.programs.empty())
    out << "\nprograms (most keys first):\n";
  for (const ProgramSummary &p : r.programs) {
    out << "  " << programText(p) << "\n";
    for (const ProgramEntry &e : p.entries) {
      const CacheFile &f = r.files[e.file];
      out << "    " << f.key() << "  " << f.size << " B";
      if (f.facts.decompressed)
        out << " -> " << *f.facts.decompressed << " B";
      out << ", " << e.compileSeconds << " s";
      if (f.facts.hasIfrt)
        out << ", outputs " << f.facts.outputs;
      if (e.status != EntryStatus::Ok)
        out << "  [" << entryStatusName(e.status) << "]";
      out << "\n";
    }
  }
  if (!r.hints.empty())
    out << "\nhints:\n";
  for (const CacheHint &h : r.hints)
    out << "  " << hintText(h) << "\n";
  out << "\nproblems: " << (r.problems.empty() ? "none" : "") << "\n";
  for (const CacheProblem &p : r.problems)
    out << "  [" << problemCodeName(p.code) << "] " << problemText(p, r.rule) << "\n";
  if (r.eviction) {
    out << "\n" << evictionText(*r.eviction) << "\n";
    for (size_t i = 0; i < r.eviction->evicted.size(); ++i)
      out << "  " << i + 1 << ". " << r.eviction->evicted[i].file << "  "
          << r.eviction->evicted[i].size << " B\n";
  }
}

namespace {

const char *loggedWriteName(LoggedWrite w) {
  switch (w) {
  case LoggedWrite::Written: return "written";
  case LoggedWrite::NotWritten: return "not_written";
  case LoggedWrite::Failed: return "failed";
  case LoggedWrite::Unknown: break;
  }
  return "unknown";
}

} // namespace

Json cacheLookupToJson(const CacheLookup &l) {
  Json j;
  j["dir"] = l.dir;
  j["run"] = l.run;
  j["logged_dirs"] = l.loggedDirs;
  j["dir_match"] = {{"code", dirMatchName(l.dirMatch)}, {"text", cacheLookupDirText(l)}};
  j["missed_without_key"] = l.missedWithoutKey;
  Json keys = Json::array();
  for (const KeyLookup &k : l.keys) {
    Json kj;
    kj["code"] = lookupCodeName(k.code);
    kj["label"] = k.key.label;
    kj["key"] = k.key.key.empty() ? Json() : Json(k.key.key);
    kj["digest"] = k.key.digest;
    kj["logged_write"] = loggedWriteName(k.key.write);
    kj["read_error_logged"] = k.key.readErrorLogged;
    if (k.key.readErrorLogged)
      kj["compile_only_read"] = k.key.compileOnlyRead;
    if (!k.file.empty()) {
      kj["file"] = k.file;
      kj["size"] = k.size;
    }
    if (k.code == LookupCode::Damaged)
      kj["status"] = entryStatusName(k.status);
    if (k.code == LookupCode::Damaged || k.code == LookupCode::Unreadable)
      kj["detail"] = k.detail;
    if (k.code == LookupCode::Present) {
      kj["compile_seconds"] = k.compileSeconds;
      kj["last_access_ns"] = k.lastAccessNs;
    }
    if (k.code == LookupCode::Absent || k.code == LookupCode::AtimeOnly ||
        k.code == LookupCode::TempOnly || k.code == LookupCode::Symlink)
      kj["other_entries"] = k.otherEntries;
    kj["text"] = keyLookupText(k, l);
    keys.push_back(std::move(kj));
  }
  j["keys"] = std::move(keys);
  return j;
}

void writeCacheLookup(std::ostream &out, const CacheLookup &l) {
  out << "Cache directory: " << cacheLookupDirText(l) << "\n";
  for (const KeyLookup &k : l.keys)
    out << "  [" << lookupCodeName(k.code) << "] " << keyLookupText(k, l) << "\n";
}

} // namespace cachekey
