//===- CacheDirAnalysis.cpp - Programs, problems and eviction -------------===//
//
// Facts only (codes and fields); CacheDirWording.cpp writes the English.
// The eviction mirrors LRUCache._evict_if_needed of jax/_src/lru_cache.py
// per release (CacheDir.h lists the lines).
//
//===----------------------------------------------------------------------===//
#include "cachekey/CacheDir.h"
#include "cachekey/StringExtras.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>
#include <unordered_map>

namespace cachekey {

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
  case ProblemCode::OtherLayoutEntry: return "other_layout_entry";
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

namespace {

const LinkTarget *linkOf(const std::vector<LinkTarget> &links, const std::string &name) {
  for (const LinkTarget &l : links)
    if (l.name == name)
      return &l;
  return nullptr;
}

/// Whether JAX under `rule` reads entry `f` by its name: 0.4.30 `<key>`
/// (lru_cache.py get: path / key), 0.4.31 and later `<key>-cache`.
bool ruleReads(EvictionRule rule, const CacheFile &f) {
  return f.suffixed != (rule == EvictionRule::MtimeAllFiles);
}

bool endsWithCache(const std::string &n) {
  return endsWith(n, "-cache");
}

/// Whether the eviction pass of `rule` stats the link `f`: 0.4.30 every
/// name whose is_file() is true (a link to a regular file); later releases
/// every name glob("*-cache") yields, dangling links included.
bool capCountsLink(const LinkTarget &l, EvictionRule rule) {
  if (rule == EvictionRule::MtimeAllFiles)
    return l.state == LinkTarget::State::File;
  return endsWithCache(l.name) && l.state != LinkTarget::State::Unknown;
}

EvictionPlan planEviction(const std::vector<CacheFile> &files,
                          const std::vector<LinkTarget> &links, EvictionRule rule,
                          uint64_t maxSize) {
  EvictionPlan p;
  p.rule = rule;
  p.maxSize = maxSize;
  // The -atime records left as orphans (a link's -atime is one), by key.
  // (Only links need them: a directory without links builds neither.)
  std::unordered_map<std::string_view, const CacheFile *> orphanAtimes;
  std::set<std::string_view> entryNames;
  if (!links.empty())
    for (const CacheFile &f : files) {
      if (f.kind == FileKind::Atime)
        orphanAtimes.emplace(f.key(), &f);
      if (f.kind == FileKind::Entry)
        entryNames.insert(f.name);
    }
  // (rank, tie-breaker, file index, size): heapq pops the smallest tuple.
  // Under 0.4.30's rule the tie-breaker is the file's name (a path), which
  // is what is evicted; under the later ones it is the key.
  std::vector<std::tuple<int64_t, std::string_view, uint32_t, uint64_t>> h;
  // Under 0.4.30's rule an entry's -atime is a file of its own (its name is
  // the tie-breaker, so it lives here).
  std::vector<std::string> atimeNames;
  if (rule == EvictionRule::MtimeAllFiles) {
    size_t n = 0;
    for (const CacheFile &f : files)
      n += f.kind == FileKind::Entry && f.hasAtime;
    atimeNames.reserve(n);
  }
  auto raise = [&p](const std::string &file, EvictionPlan::Raise why) {
    if (!p.raises) {
      p.raises = true;
      p.raisingFile = file;
      p.raiseReason = why;
    }
  };
  for (uint32_t i = 0; i < files.size(); ++i) {
    const CacheFile &f = files[i];
    if (f.kind == FileKind::Symlink) {
      const LinkTarget *l = linkOf(links, f.name);
      if (!l || !capCountsLink(*l, rule))
        continue;
      if (l->state == LinkTarget::State::Dangling) {
        // os.stat / Path.stat of a dangling link: FileNotFoundError.
        raise(f.name, EvictionPlan::Raise::DanglingLink);
        continue;
      }
      p.linkedSize += l->size;
      if (!l->inside.empty() && (rule == EvictionRule::MtimeAllFiles
                                     ? true
                                     : endsWithCache(l->inside) && entryNames.count(l->inside)))
        p.doubleCounted += l->size;
      if (rule == EvictionRule::MtimeAllFiles) {
        h.emplace_back(l->mtimeNs, std::string_view(f.name), i, l->size);
        continue;
      }
      std::string_view key = std::string_view(f.name).substr(0, f.name.size() - 6);
      auto a = orphanAtimes.find(key);
      if (a == orphanAtimes.end() && rule == EvictionRule::AtimeStrict)
        raise(f.name, EvictionPlan::Raise::NoAtime);
      h.emplace_back(a == orphanAtimes.end() ? 0 : a->second->atimeNs, key, i, l->size);
      continue;
    }
    if (rule == EvictionRule::MtimeAllFiles) {
      // 0.4.30: every regular file (Path.is_file), ranked by (st_mtime_ns,
      // path); an entry's -atime (merged into its record) is one too.
      if (f.regular)
        h.emplace_back(f.mtimeNs, std::string_view(f.name), i, f.size);
      if (f.kind == FileKind::Entry && f.hasAtime) {
        atimeNames.push_back(std::string(f.key()) + "-atime");
        h.emplace_back(f.atimeMtimeNs, std::string_view(atimeNames.back()), i, f.atimeSize);
      }
      continue;
    }
    // glob("*-cache"), ranked by (atime, key).
    if (!(f.kind == FileKind::Entry && f.suffixed))
      continue;
    int64_t rank = f.hasAtime ? f.atimeNs : 0;
    if (!f.hasAtime && rule == EvictionRule::AtimeStrict)
      raise(f.name, EvictionPlan::Raise::NoAtime);
    h.emplace_back(rank, f.key(), i, f.size);
  }
  for (const auto &e : h)
    p.countedSize += std::get<3>(e);
  if (p.raises)
    return p;
  std::sort(h.begin(), h.end());
  uint64_t size = p.countedSize;
  for (const auto &e : h) {
    if (size <= maxSize)
      break;
    const CacheFile &f = files[std::get<2>(e)];
    // Evicting a link unlinks the link only; JAX subtracts its target's size.
    p.evicted.push_back({rule == EvictionRule::MtimeAllFiles ? std::string(std::get<1>(e)) : f.name,
                         std::get<3>(e), std::get<0>(e)});
    size -= std::get<3>(e);
  }
  return p;
}

} // namespace

Expected<CacheReport> analyseCacheDir(CacheScan scan, const std::string &release,
                                      std::optional<int64_t> maxSize) {
  CacheReport r;
  r.dir = scan.dir;
  r.files = std::move(scan.files);
  r.links = std::move(scan.links);
  const std::vector<CacheFile> &files = r.files;
  bool anySuffixed = false, anyPlain = false;
  for (const CacheFile &f : files) {
    r.hasAtimes = r.hasAtimes || f.hasAtime;
    if (f.kind == FileKind::Entry)
      (f.suffixed ? anySuffixed : anyPlain) = true;
    r.hasLockfile = r.hasLockfile || f.kind == FileKind::Lockfile;
  }
  r.layout = anySuffixed && anyPlain ? "mixed"
             : anySuffixed          ? "key-cache"
             : anyPlain             ? "key"
                                    : "empty";
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
      // The other layout's file: 0.4.31 and later's eviction globs only
      // "*-cache"; 0.4.30's counts every file.
      if (!ruleReads(r.rule, f)) {
        p.code = ProblemCode::OtherLayoutEntry;
        p.size = f.size;
        p.countedByCap = r.rule == EvictionRule::MtimeAllFiles && f.regular;
        r.problems.push_back(p);
        break;
      }
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
      if (const LinkTarget *l = linkOf(r.links, f.name)) {
        p.link = *l;
        p.countedByCap = capCountsLink(*l, r.rule);
        // A live `<key>-cache` link without `<key>-atime`: 0.4.31 – 0.11.1
        // read that -atime and raise.
        if (p.countedByCap && r.rule == EvictionRule::AtimeStrict &&
            l->state != LinkTarget::State::Dangling) {
          std::string atime = f.name.substr(0, f.name.size() - 6) + "-atime";
          p.strictRule = std::none_of(files.begin(), files.end(), [&atime](const CacheFile &x) {
            return x.name == atime;
          });
        }
      }
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
      if (f.kind == FileKind::Entry && ruleReads(r.rule, f) && f.facts.codec == fewer) {
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
      // A damaged or unreadable entry's header is not trusted: "?", and it
      // neither makes the shapes differ nor agree.
      bool trusted = e.status == EntryStatus::Ok && facts.hasIfrt;
      any = any || trusted;
      h.unread += e.status != EntryStatus::Ok;
      std::string text = trusted ? facts.outputs : "?";
      if (trusted)
        seen.insert(text);
      if (std::find(h.shapes.begin(), h.shapes.end(), text) == h.shapes.end() &&
          h.shapes.size() < 64)
        h.shapes.push_back(std::move(text));
    }
    h.code = !any ? HintCode::NoHeader
             : seen.size() > 1 ? HintCode::OutputShapesDiffer
                               : HintCode::SameOutputShapes;
    if (h.code == HintCode::NoHeader)
      h.shapes.clear();
    r.hints.push_back(std::move(h));
  }

  if (maxSize && *maxSize > 0) {
    r.eviction = planEviction(files, r.links, r.rule, static_cast<uint64_t>(*maxSize));
  } else if (maxSize) {
    // jax_compilation_cache_max_size -1: LRUCache.eviction_enabled is
    // false; 0 or below: `len(value) > self.max_size` refuses every put.
    EvictionPlan p;
    p.rule = r.rule;
    p.noCap = *maxSize == -1;
    p.writesRefused = *maxSize != -1;
    r.eviction = p;
  }
  if (r.eviction)
    r.eviction->requested = *maxSize;
  return r;
}

std::string shapesText(const std::vector<IfrtArraySpec> &specs) {
  std::string out;
  for (size_t i = 0; i < specs.size(); ++i)
    out += (i ? ", " : "") + specs[i].str();
  return out;
}

} // namespace cachekey
