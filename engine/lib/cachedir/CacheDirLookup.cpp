//===- CacheDirLookup.cpp - A run's missed keys, looked up in a cache dir -===//
//
// Facts only; CacheDirWording.cpp writes the English. Reads the log through
// LogReader.h's public summary and the directory through a CacheReport.
//
//===----------------------------------------------------------------------===//
#include "cachekey/CacheDirLookup.h"
#include "cachekey/StringExtras.h"

#include "cachekey/LogReader.h"
#include "cachekey/Sha256.h"

#include <sys/stat.h>

#include <unordered_map>

namespace cachekey {

const char *lookupCodeName(LookupCode c) {
  switch (c) {
  case LookupCode::Present: return "present";
  case LookupCode::Damaged: return "damaged";
  case LookupCode::Unreadable: return "unreadable";
  case LookupCode::Symlink: return "symlink";
  case LookupCode::AtimeOnly: return "atime_only";
  case LookupCode::TempOnly: return "temp_only";
  case LookupCode::Absent: return "absent";
  }
  return "absent";
}

const char *dirMatchName(DirMatch m) {
  switch (m) {
  case DirMatch::Same: return "same";
  case DirMatch::Other: return "other";
  case DirMatch::NotLogged: return "not_logged";
  }
  return "not_logged";
}

namespace {

bool isHex64(std::string_view s) {
  if (s.size() != 64)
    return false;
  for (char c : s)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')))
      return false;
  return true;
}

/// The key a file name holds ("<key>", "<key>-cache", "<key>-atime",
/// "_temp_<key>"), or empty: the scan's key for the files it classified,
/// the same rule applied to a symbolic link's own name.
std::string_view keyOfName(const CacheFile &f) {
  if (f.keyLength)
    return f.key();
  if (f.kind != FileKind::Symlink)
    return {};
  std::string_view n = f.name;
  if (n.size() > 6 && (endsWith(n, "-cache") || endsWith(n, "-atime")))
    n.remove_suffix(6);
  if (startsWith(n, "_temp_"))
    n.remove_prefix(6);
  if (n.size() < 66 || n[n.size() - 65] != '-' || !isHex64(n.substr(n.size() - 64)))
    return {};
  return n;
}

LoggedWrite loggedWrite(WriteState s) {
  switch (s) {
  case WriteState::Written: return LoggedWrite::Written;
  case WriteState::NotWritten: return LoggedWrite::NotWritten;
  case WriteState::Failed: return LoggedWrite::Failed;
  case WriteState::Attempted:
  case WriteState::Unknown: break;
  }
  return LoggedWrite::Unknown;
}

} // namespace

std::vector<LookupKey> missedKeys(const LogSummary &log, size_t &withoutKey) {
  std::vector<LookupKey> out;
  withoutKey = 0;
  for (const LoggedProgram &p : log.programs) {
    if (p.lookup != Lookup::Miss)
      continue;
    LookupKey k;
    const std::string key = log.keyOf(p);
    std::string_view logged = key;
    if (logged.size() >= 66 && logged[logged.size() - 65] == '-' &&
        isHex64(logged.substr(logged.size() - 64))) {
      k.key = key;
      k.digest = std::string(logged.substr(logged.size() - 64));
    } else if (auto d = p.finalDigest()) {
      k.digest = toHex(*d);
    } else {
      ++withoutKey;
      continue;
    }
    k.label = !p.name.empty() ? std::string(p.name.view()) : "key " + k.digest.substr(0, 12);
    k.write = loggedWrite(p.writeState);
    k.readErrorLogged = p.readError() >= 0;
    k.compileOnlyRead = p.readError() >= 0 && p.compileOnlyRead();
    out.push_back(std::move(k));
  }
  return out;
}

DirMatch matchLoggedDir(const std::string &dir, const std::vector<std::string> &loggedDirs) {
  if (loggedDirs.empty())
    return DirMatch::NotLogged;
  struct stat want {};
  bool haveWant = stat(dir.c_str(), &want) == 0;
  auto trimmed = [](std::string s) {
    while (s.size() > 1 && s.back() == '/')
      s.pop_back();
    return s;
  };
  for (const std::string &l : loggedDirs) {
    struct stat got {};
    if (haveWant && stat(l.c_str(), &got) == 0) {
      if (got.st_dev == want.st_dev && got.st_ino == want.st_ino)
        return DirMatch::Same;
    } else if (trimmed(l) == trimmed(dir)) {
      return DirMatch::Same;
    }
  }
  return DirMatch::Other;
}

CacheLookup lookupKeys(const CacheReport &report, const std::vector<LookupKey> &keys) {
  CacheLookup l;
  l.dir = report.dir;
  // The files under each digest (most digests have one or two: -cache and -atime).
  std::unordered_map<std::string_view, std::vector<uint32_t>> byDigest;
  std::unordered_map<std::string_view, size_t> perModule;
  for (uint32_t i = 0; i < report.files.size(); ++i) {
    const CacheFile &f = report.files[i];
    std::string_view key = keyOfName(f);
    if (key.empty())
      continue;
    byDigest[key.substr(key.size() - 64)].push_back(i);
    if (f.kind == FileKind::Entry)
      ++perModule[f.module()];
  }
  for (const LookupKey &want : keys) {
    KeyLookup k;
    k.key = want;
    const CacheFile *entry = nullptr, *link = nullptr, *atime = nullptr, *temp = nullptr;
    if (auto it = byDigest.find(want.digest); it != byDigest.end()) {
      for (uint32_t i : it->second) {
        const CacheFile &f = report.files[i];
        std::string_view key = keyOfName(f);
        if (!want.key.empty() && key != want.key)
          continue;
        switch (f.kind) {
        case FileKind::Entry: entry = entry ? entry : &f; break;
        case FileKind::Atime: atime = atime ? atime : &f; break;
        case FileKind::Temp: temp = temp ? temp : &f; break;
        case FileKind::Symlink:
          // `<key>-cache` or `<key>`: where the entry would be.
          if (f.name.size() == key.size() || f.name.compare(key.size(), 6, "-cache") == 0)
            link = link ? link : &f;
          break;
        default: break;
        }
      }
    }
    if (entry) {
      k.file = entry->name;
      k.size = entry->size;
      if (!entry->readError.empty()) {
        k.code = LookupCode::Unreadable;
        k.detail = entry->readError;
      } else if (entry->facts.status != EntryStatus::Ok) {
        k.code = LookupCode::Damaged;
        k.status = entry->facts.status;
        k.detail = entry->facts.detail;
      } else {
        k.code = LookupCode::Present;
        k.compileSeconds = entry->facts.compileSeconds;
        k.lastAccessNs = entry->hasAtime ? entry->atimeNs : entry->mtimeNs;
      }
    } else if (link) {
      k.code = LookupCode::Symlink;
      k.file = link->name;
    } else if (temp) {
      k.code = LookupCode::TempOnly;
      k.file = temp->name;
      k.size = temp->size;
    } else if (atime) {
      k.code = LookupCode::AtimeOnly;
      k.file = atime->name;
    } else {
      k.code = LookupCode::Absent;
    }
    if (k.code != LookupCode::Present && k.code != LookupCode::Damaged &&
        k.code != LookupCode::Unreadable && !want.key.empty()) {
      std::string_view module = std::string_view(want.key).substr(0, want.key.size() - 65);
      if (auto it = perModule.find(module); it != perModule.end())
        k.otherEntries = it->second;
    }
    l.keys.push_back(std::move(k));
  }
  return l;
}

CacheLookup lookupMissedKeys(const CacheReport &report, const LogSummary &log) {
  size_t withoutKey = 0;
  std::vector<LookupKey> keys = missedKeys(log, withoutKey);
  CacheLookup l = lookupKeys(report, keys);
  l.run = log.name;
  l.loggedDirs = log.cacheDirs;
  l.dirMatch = matchLoggedDir(report.dir, log.cacheDirs);
  l.missedWithoutKey = withoutKey;
  return l;
}

} // namespace cachekey
