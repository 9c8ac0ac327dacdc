//===- CacheDirAnalysis.cpp - Programs, problems and eviction -------------===//
//
// Facts only (codes and fields); CacheDirWording.cpp writes the English.
// The eviction mirrors LRUCache._evict_if_needed of jax/_src/lru_cache.py
// per release (CacheDir.h lists the lines).
//
//===----------------------------------------------------------------------===//
#include "cachekey/CacheDir.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>
#include <unordered_map>

namespace cachekey {

const char *evictionRuleName(EvictionRule r) {
  switch (r) {
  case EvictionRule::MtimeAllFiles: return "mtime_all_files";
  case EvictionRule::AtimeStrict: return "atime_strict";
  case EvictionRule::AtimeMissingZero: return "atime_missing_zero";
  }
  return "atime_missing_zero";
}

const char *problemCodeName(ProblemCode c) {
  switch (c) {
  case ProblemCode::DamagedEntry: return "damaged_entry";
  case ProblemCode::OrphanCache: return "orphan_cache";
  case ProblemCode::OrphanAtime: return "orphan_atime";
  case ProblemCode::BadAtime: return "bad_atime";
  case ProblemCode::TempLeftover: return "temp_leftover";
  case ProblemCode::ForeignFile: return "foreign_file";
  case ProblemCode::Symlink: return "symlink";
  case ProblemCode::Unreadable: return "unreadable";
  case ProblemCode::MixedCompression: return "mixed_compression";
  case ProblemCode::SubCache: return "sub_cache";
  }
  return "foreign_file";
}

const char *hintCodeName(HintCode c) {
  switch (c) {
  case HintCode::OutputShapesDiffer: return "output_shapes_differ";
  case HintCode::SameOutputShapes: return "same_output_shapes";
  case HintCode::NoHeader: return "no_header";
  }
  return "no_header";
}

Expected<EvictionRule> evictionRuleFor(const std::string &release) {
  std::vector<int> v;
  size_t at = 0;
  while (at <= release.size()) {
    size_t dot = release.find('.', at);
    std::string part = release.substr(at, dot == std::string::npos ? std::string::npos : dot - at);
    if (part.empty() || part.size() > 6 || part.find_first_not_of("0123456789") != std::string::npos)
      return Error{"--release", "\"" + release + "\" is not a jax release such as 0.4.30",
                   ErrorCode::Invalid};
    v.push_back(std::stoi(part));
    if (dot == std::string::npos)
      break;
    at = dot + 1;
  }
  while (v.size() < 3)
    v.push_back(0);
  auto t = std::make_tuple(v[0], v[1], v[2]);
  if (t < std::make_tuple(0, 4, 30))
    return Error{"--release", "jax " + release + " is older than 0.4.30, the oldest layout read here",
                 ErrorCode::Unsupported};
  if (t == std::make_tuple(0, 4, 30))
    return EvictionRule::MtimeAllFiles;
  if (t < std::make_tuple(0, 11, 2))
    return EvictionRule::AtimeStrict;
  return EvictionRule::AtimeMissingZero;
}

namespace {

EvictionPlan planEviction(const std::vector<CacheFile> &files, EvictionRule rule,
                          uint64_t maxSize) {
  EvictionPlan p;
  p.rule = rule;
  p.maxSize = maxSize;
  // (rank, tie-breaker, file index): heapq pops the smallest tuple.
  std::vector<std::tuple<int64_t, std::string_view, uint32_t>> h;
  for (uint32_t i = 0; i < files.size(); ++i) {
    const CacheFile &f = files[i];
    if (rule == EvictionRule::MtimeAllFiles) {
      // 0.4.30: every regular file (Path.is_file), ranked by (st_mtime_ns, path).
      if (f.regular)
        h.emplace_back(f.mtimeNs, std::string_view(f.name), i);
      continue;
    }
    // glob("*-cache"), ranked by (atime, key).
    if (!(f.kind == FileKind::Entry && f.suffixed))
      continue;
    int64_t rank = f.hasAtime ? f.atimeNs : 0;
    if (!f.hasAtime && rule == EvictionRule::AtimeStrict && !p.raises) {
      p.raises = true;
      p.raisingFile = f.name;
    }
    h.emplace_back(rank, f.key(), i);
  }
  for (const auto &e : h)
    p.countedSize += files[std::get<2>(e)].size;
  if (p.raises)
    return p;
  std::sort(h.begin(), h.end());
  uint64_t size = p.countedSize;
  for (const auto &e : h) {
    if (size <= maxSize)
      break;
    const CacheFile &f = files[std::get<2>(e)];
    p.evicted.push_back({f.name, f.size, std::get<0>(e)});
    size -= f.size;
  }
  return p;
}

} // namespace

Expected<CacheReport> analyseCacheDir(CacheScan scan, const std::string &release,
                                      std::optional<uint64_t> maxSize) {
  CacheReport r;
  r.dir = scan.dir;
  r.files = std::move(scan.files);
  const std::vector<CacheFile> &files = r.files;
  bool anySuffixed = false, anyPlain = false;
  for (const CacheFile &f : files) {
    r.hasAtimes = r.hasAtimes || f.hasAtime;
    if (f.kind == FileKind::Entry)
      (f.suffixed ? anySuffixed : anyPlain) = true;
    r.hasLockfile = r.hasLockfile || f.kind == FileKind::Lockfile;
  }
  r.layout = anySuffixed ? "key-cache" : anyPlain ? "key" : "empty";
  if (!release.empty()) {
    auto rule = evictionRuleFor(release);
    if (!rule)
      return rule.error();
    r.rule = *rule;
    r.ruleInferred = false;
  } else {
    r.rule = anyPlain && !anySuffixed ? EvictionRule::MtimeAllFiles
                                      : EvictionRule::AtimeMissingZero;
  }

  size_t zstd = 0, zlib = 0;
  std::unordered_map<std::string_view, uint32_t> programIndex;
  for (uint32_t i = 0; i < files.size(); ++i) {
    const CacheFile &f = files[i];
    CacheProblem p;
    p.file = f.name;
    if (!f.readError.empty() && f.kind != FileKind::Symlink) {
      p.code = ProblemCode::Unreadable;
      p.detail = f.readError;
      r.problems.push_back(p);
      if (f.kind != FileKind::Entry)
        continue;
    }
    switch (f.kind) {
    case FileKind::Entry: {
      ++r.entryCount;
      r.entrySize += f.size;
      if (f.facts.codec == Codec::Zstd)
        ++zstd;
      if (f.facts.codec == Codec::Zlib)
        ++zlib;
      if (f.readError.empty() && f.facts.status != EntryStatus::Ok) {
        p.code = ProblemCode::DamagedEntry;
        p.status = f.facts.status;
        p.detail = f.facts.detail;
        r.problems.push_back(p);
      }
      if (f.hasAtime && f.atimeMalformed) {
        CacheProblem b;
        b.code = ProblemCode::BadAtime;
        b.file = std::string(f.key()) + "-atime";
        b.size = f.atimeSize;
        r.problems.push_back(b);
      }
      if (f.suffixed && !f.hasAtime && (r.hasAtimes || r.hasLockfile)) {
        CacheProblem o;
        o.code = ProblemCode::OrphanCache;
        o.file = f.name;
        o.strictRule = r.rule == EvictionRule::AtimeStrict;
        r.problems.push_back(o);
      }
      auto [it, fresh] = programIndex.emplace(f.module(), uint32_t(r.programs.size()));
      if (fresh) {
        r.programs.emplace_back();
        r.programs.back().module = std::string(f.module());
      }
      ProgramSummary &s = r.programs[it->second];
      ProgramEntry e;
      e.file = i;
      e.compileSeconds = f.facts.compileSeconds;
      e.status = f.readError.empty() ? f.facts.status : EntryStatus::Corrupt;
      if (f.hasAtime) {
        e.lastAccessNs = f.atimeNs;
        e.fromAtime = true;
      } else {
        e.lastAccessNs = f.mtimeNs;
      }
      s.size += f.size;
      if (f.facts.decompressed)
        s.decompressed += *f.facts.decompressed;
      else
        s.decompressedComplete = false;
      s.compileSeconds += e.compileSeconds;
      s.lastAccessNs = std::max(s.lastAccessNs, e.lastAccessNs);
      s.entries.push_back(e);
      break;
    }
    case FileKind::Atime: // the scan merged every -atime that has its -cache
      p.code = ProblemCode::OrphanAtime;
      r.problems.push_back(p);
      break;
    case FileKind::Temp:
      p.code = ProblemCode::TempLeftover;
      r.problems.push_back(p);
      break;
    case FileKind::Foreign:
      p.code = ProblemCode::ForeignFile;
      r.problems.push_back(p);
      break;
    case FileKind::Symlink:
      p.code = ProblemCode::Symlink;
      r.problems.push_back(p);
      break;
    case FileKind::SubCache:
      p.code = ProblemCode::SubCache;
      r.problems.push_back(p);
      break;
    case FileKind::Lockfile:
      break;
    }
  }
  if (zstd && zlib) {
    CacheProblem p;
    p.code = ProblemCode::MixedCompression;
    p.countZstd = zstd;
    p.countZlib = zlib;
    Codec fewer = zstd < zlib ? Codec::Zstd : Codec::Zlib;
    for (const CacheFile &f : files)
      if (f.kind == FileKind::Entry && f.facts.codec == fewer) {
        p.file = f.name;
        break;
      }
    r.problems.push_back(p);
  }

  for (ProgramSummary &s : r.programs)
    std::sort(s.entries.begin(), s.entries.end(), [&files](const ProgramEntry &a, const ProgramEntry &b) {
      if (a.lastAccessNs != b.lastAccessNs)
        return a.lastAccessNs > b.lastAccessNs;
      return files[a.file].name < files[b.file].name;
    });
  std::sort(r.programs.begin(), r.programs.end(), [](const ProgramSummary &a, const ProgramSummary &b) {
    if (a.entries.size() != b.entries.size())
      return a.entries.size() > b.entries.size();
    if (a.size != b.size)
      return a.size > b.size;
    return a.module < b.module;
  });

  for (const ProgramSummary &s : r.programs) {
    if (s.entries.size() < 2)
      continue;
    CacheHint h;
    h.module = s.module;
    h.entries = s.entries.size();
    bool any = false;
    std::set<std::string> seen;
    for (const ProgramEntry &e : s.entries) {
      const EntryFacts &facts = files[e.file].facts;
      any = any || facts.hasIfrt;
      std::string text = facts.hasIfrt ? facts.outputs : "?";
      if (seen.insert(text).second && h.shapes.size() < 64)
        h.shapes.push_back(std::move(text));
    }
    h.code = !any ? HintCode::NoHeader
             : seen.size() > 1 ? HintCode::OutputShapesDiffer
                               : HintCode::SameOutputShapes;
    if (h.code == HintCode::NoHeader)
      h.shapes.clear();
    r.hints.push_back(std::move(h));
  }

  if (maxSize)
    r.eviction = planEviction(files, r.rule, *maxSize);
  return r;
}

std::string shapesText(const std::vector<IfrtArraySpec> &specs) {
  std::string out;
  for (size_t i = 0; i < specs.size(); ++i)
    out += (i ? ", " : "") + specs[i].str();
  return out;
}

} // namespace cachekey
