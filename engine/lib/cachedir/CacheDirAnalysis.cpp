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
#include <optional>
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

const char *rankFromName(PlannedEviction::RankFrom r) {
  switch (r) {
  case PlannedEviction::RankFrom::Mtime: return "mtime";
  case PlannedEviction::RankFrom::AtimeFile: return "atime_file";
  case PlannedEviction::RankFrom::NoAtime: return "no_atime";
  case PlannedEviction::RankFrom::AtimeBeyond64: return "atime_beyond_64_bits";
  case PlannedEviction::RankFrom::AtimeLink: return "atime_link";
  }
  return "mtime";
}

const char *raiseReasonName(EvictionPlan::Raise r) {
  switch (r) {
  case EvictionPlan::Raise::NoAtime: return "no_atime";
  case EvictionPlan::Raise::DanglingLink: return "dangling_link";
  case EvictionPlan::Raise::AtimeDirectory: return "atime_directory";
  case EvictionPlan::Raise::AtimeUnreadable: return "atime_unreadable";
  case EvictionPlan::Raise::DirectoryEntry: return "directory_entry";
  }
  return "no_atime";
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

/// A `<stem>-cache` or `<stem>-atime` name's stem (the name less its
/// 6-byte suffix).
std::string_view stemOf(const std::string &name) {
  return std::string_view(name).substr(0, name.size() - 6);
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

/// Whether `f` is a `*-cache` record that holds its -atime file's facts
/// (mergeAtimeRecords): the -atime then has no record of its own.
bool mergedAtime(const CacheFile &f) {
  return f.hasAtime && f.kind != FileKind::Atime;
}

/// One name on JAX's heap: popped smallest first, by (rank, tie-breaker).
struct HeapItem {
  /// AtimeValue::rank() (tier, bits), or (0, the mtime with its sign bit
  /// flipped) under 0.4.30's rule: unsigned order is then the number's
  /// order. (Members ordered for size: 40 bytes, one per file.)
  uint64_t bits = 0;
  std::string_view tie; ///< 0.4.30: the file's name; later: the key (stem)
  uint64_t size = 0;
  uint32_t file = 0;    ///< index into the files
  uint16_t tier = 0;
  PlannedEviction::RankFrom from = PlannedEviction::RankFrom::Mtime;
  bool operator<(const HeapItem &o) const {
    return std::tie(tier, bits, tie, file) < std::tie(o.tier, o.bits, o.tie, o.file);
  }
};
static_assert(sizeof(HeapItem) <= 40, "one per file of a 100,000-entry directory");

constexpr uint64_t kSignBit = uint64_t(1) << 63;

HeapItem byMtime(int64_t mtimeNs, std::string_view name, uint32_t file, uint64_t size) {
  HeapItem h;
  h.bits = static_cast<uint64_t>(mtimeNs) ^ kSignBit;
  h.tie = name;
  h.file = file;
  h.size = size;
  return h;
}

EvictionPlan planEviction(const std::vector<CacheFile> &files,
                          const std::vector<LinkTarget> &links, EvictionRule rule,
                          uint64_t maxSize) {
  EvictionPlan p;
  p.rule = rule;
  p.maxSize = maxSize;
  // The records named `<stem>-atime` that no `<stem>-cache` took in (an
  // orphan's, a link's -atime, a link or a directory of that name), by stem;
  // made when first needed (a healthy capped directory never asks).
  std::optional<std::unordered_map<std::string_view, const CacheFile *>> atimeRecords;
  auto atimeRecordOf = [&](std::string_view stem) -> const CacheFile * {
    if (!atimeRecords) {
      atimeRecords.emplace();
      for (const CacheFile &f : files)
        if (f.name.size() > 6 && endsWith(f.name, "-atime"))
          atimeRecords->emplace(stemOf(f.name), &f);
    }
    auto it = atimeRecords->find(stem);
    return it == atimeRecords->end() ? nullptr : it->second;
  };
  std::set<std::string_view> entryNames;
  if (!links.empty())
    for (const CacheFile &f : files)
      if (f.kind == FileKind::Entry)
        entryNames.insert(f.name);
  std::vector<HeapItem> h;
  // Under 0.4.30's rule an entry's -atime is a file of its own (its name is
  // the tie-breaker, so it lives here).
  std::vector<std::string> atimeNames;
  if (rule == EvictionRule::MtimeAllFiles) {
    size_t n = 0;
    for (const CacheFile &f : files)
      n += mergedAtime(f);
    atimeNames.reserve(n);
  }
  auto raise = [&p](const std::string &file, EvictionPlan::Raise why) {
    if (!p.raises) {
      p.raises = true;
      p.raisingFile = file;
      p.raiseReason = why;
    }
  };
  // A `<stem>-cache` name's place on the later releases' heap: its
  // `<stem>-atime` read as lru_cache.py reads it (exists(), then
  // read_bytes(), both through links).
  auto byAtime = [&](const CacheFile &f, uint32_t i, uint64_t size) {
    using From = PlannedEviction::RankFrom;
    HeapItem it;
    it.tie = stemOf(f.name);
    it.file = i;
    it.size = size;
    // Its -atime merged into its record, else a record of its own.
    const CacheFile *a = f.hasAtime ? &f : atimeRecordOf(it.tie);
    // A link: exists() and read_bytes() go through it. Where it points
    // is known (stat, metadata only), what it holds is not read.
    const LinkTarget *l = a && a != &f && a->kind == FileKind::Symlink ? linkOf(links, a->name)
                                                                       : nullptr;
    if (l && l->state == LinkTarget::State::Dangling)
      a = nullptr; // exists() is false: as if there were none
    if (a && a != &f && a->kind == FileKind::Symlink) {
      it.from = From::AtimeLink;
      p.atimeLinks.push_back(f.name);
    } else if (a && a != &f && a->directory) {
      raise(f.name, EvictionPlan::Raise::AtimeDirectory);
    } else if (a && a != &f && !a->readError.empty()) {
      // exists() is true, read_bytes() fails (both rules raise).
      raise(f.name, EvictionPlan::Raise::AtimeUnreadable);
    } else if (a && a->hasAtime) {
      AtimeValue v{a->atimeSignificant, static_cast<uint64_t>(a->atimeNs)};
      std::tie(it.tier, it.bits) = v.rank();
      it.from = v.significant > 8 ? From::AtimeBeyond64 : From::AtimeFile;
    } else {
      // No -atime: 0.11.2 on ranks it as 0, earlier releases raise.
      it.from = From::NoAtime;
      if (rule == EvictionRule::AtimeStrict)
        raise(f.name, EvictionPlan::Raise::NoAtime);
    }
    h.push_back(it);
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
      if (rule == EvictionRule::MtimeAllFiles)
        h.push_back(byMtime(l->mtimeNs, f.name, i, l->size));
      else
        byAtime(f, i, l->size);
      continue;
    }
    if (rule == EvictionRule::MtimeAllFiles) {
      // 0.4.30: every regular file (Path.is_file), ranked by (st_mtime_ns,
      // path); an -atime merged into its `-cache`'s record is one too.
      if (f.regular)
        h.push_back(byMtime(f.mtimeNs, f.name, i, f.size));
      if (mergedAtime(f)) {
        atimeNames.push_back(std::string(stemOf(f.name)) + "-atime");
        h.push_back(byMtime(f.atimeMtimeNs, atimeNames.back(), i, f.atimeSize));
      }
      continue;
    }
    // glob("*-cache"): every name of that ending, whoever wrote it (an
    // entry, a foreign file, a directory), ranked by (atime, key).
    if (endsWithCache(f.name) && (f.kind != FileKind::Entry || f.suffixed))
      byAtime(f, i, f.size);
  }
  for (const auto &e : h)
    p.countedSize += e.size;
  if (p.raises)
    return p;
  std::sort(h.begin(), h.end());
  uint64_t size = p.countedSize;
  for (const auto &e : h) {
    if (size <= maxSize)
      break;
    const CacheFile &f = files[e.file];
    if (rule != EvictionRule::MtimeAllFiles && f.directory) {
      // cache_path.unlink() of a directory: IsADirectoryError, after the
      // files before it were deleted.
      raise(f.name, EvictionPlan::Raise::DirectoryEntry);
      break;
    }
    // Evicting a link unlinks the link only; JAX subtracts its target's size.
    PlannedEviction x;
    x.file = rule == EvictionRule::MtimeAllFiles ? std::string(e.tie) : f.name;
    x.size = e.size;
    x.rankFrom = e.from;
    x.rankNs = e.from == PlannedEviction::RankFrom::Mtime
                   ? static_cast<int64_t>(e.bits ^ kSignBit)
               : e.from == PlannedEviction::RankFrom::AtimeFile ? static_cast<int64_t>(e.bits)
                                                                : 0;
    p.evicted.push_back(std::move(x));
    size -= e.size;
  }
  return p;
}

} // namespace

Expected<CacheReport> analyseCacheDir(CacheScan scan, const std::string &release,
                                      std::optional<int64_t> maxSize, uint64_t nextEntry) {
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

  // `<stem>-atime` names that are links or directories: JAX's exists()
  // finds them (no orphan -cache then), though no value was read.
  std::set<std::string_view> otherAtimes;
  for (const CacheFile &f : files) {
    if (!(f.kind == FileKind::Symlink || f.directory) || !endsWith(f.name, "-atime"))
      continue;
    const LinkTarget *l = f.kind == FileKind::Symlink ? linkOf(r.links, f.name) : nullptr;
    if (!l || l->state != LinkTarget::State::Dangling)
      otherAtimes.insert(stemOf(f.name));
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
      if (f.suffixed && !f.hasAtime && (r.hasAtimes || r.hasLockfile) &&
          !otherAtimes.count(f.key())) {
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
      // 0.4.30 counts every regular file; later releases every name their
      // glob("*-cache") meets, a directory too.
      p.code = ProblemCode::ForeignFile;
      p.size = f.size;
      p.directory = f.directory;
      p.countedByCap = r.rule == EvictionRule::MtimeAllFiles ? f.regular : endsWithCache(f.name);
      p.withAtime = p.countedByCap && r.rule != EvictionRule::MtimeAllFiles &&
                    (f.hasAtime || otherAtimes.count(stemOf(f.name)));
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
          std::string atime = std::string(stemOf(f.name)) + "-atime";
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

  if (maxSize && *maxSize > 0 && nextEntry <= static_cast<uint64_t>(*maxSize)) {
    // put: _evict_if_needed(additional_size=len(value)), down to
    // max_size - additional_size.
    r.eviction = planEviction(files, r.links, r.rule,
                              static_cast<uint64_t>(*maxSize) - nextEntry);
  } else if (maxSize) {
    // jax_compilation_cache_max_size -1: LRUCache.eviction_enabled is
    // false; 0 or below, or an entry above the cap: `len(value) >
    // self.max_size` refuses the put.
    EvictionPlan p;
    p.rule = r.rule;
    p.noCap = *maxSize == -1;
    p.writesRefused = *maxSize != -1;
    r.eviction = p;
  }
  if (r.eviction) {
    r.eviction->requested = *maxSize;
    r.eviction->nextEntry = nextEntry;
  }
  return r;
}

std::string shapesText(const std::vector<IfrtArraySpec> &specs) {
  std::string out;
  for (size_t i = 0; i < specs.size(); ++i)
    out += (i ? ", " : "") + specs[i].str();
  return out;
}

} // namespace cachekey
