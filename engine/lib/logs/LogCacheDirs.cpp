//===- LogCacheDirs.cpp - The cache directories a log names ---------------===//
//
// Which "Initialized persistent compilation cache at" directory was in
// effect for a program, and whether two logged spellings may be one folder:
// the facts equalKeyMiss weighs before it says "another directory" or "a
// relative path".
//
//===----------------------------------------------------------------------===//
#include "LogFacts.h"

#include <string>
#include <string_view>

namespace cachekey::logs {

bool isRelativeCachePath(const std::string &path) {
  // Absolute paths and URLs (gs://, s3://: etils.epath) do not depend on
  // the working directory.
  return !path.empty() && path[0] != '/' && path.find("://") == std::string::npos;
}

namespace {

/// A cache path in the lexical form sameCachePath compares.
std::string lexicalPath(const std::string &path) {
  const bool absolute = !path.empty() && path[0] == '/';
  std::string out = absolute ? "/" : "";
  size_t i = 0;
  while (i < path.size()) {
    size_t j = path.find('/', i);
    if (j == std::string::npos)
      j = path.size();
    std::string_view part(path.data() + i, j - i);
    if (!part.empty() && part != ".") {
      if (!out.empty() && out.back() != '/')
        out += '/';
      out += part;
    }
    i = j + 1;
  }
  return out.empty() ? "." : out;
}

} // namespace

bool mayResolveTo(const std::string &rel, const std::string &abs) {
  const std::string r = lexicalPath(rel), a = lexicalPath(abs);
  return r != "." && a.size() > r.size() &&
         a.compare(a.size() - r.size(), r.size(), r) == 0 && a[a.size() - r.size() - 1] == '/';
}

bool sameCachePath(const std::string &a, const std::string &b) {
  return a == b || lexicalPath(a) == lexicalPath(b);
}

int cacheDirIndexOf(const LogSummary &log, const LoggedProgram &program) {
  if (log.cacheDirs.empty())
    return -1;
  // JAX opens the cache (and logs "Initialized …") at the first lookup,
  // after that program's key lines: the line that counts is the lookup's.
  const size_t at = program.lookupLine() ? program.lookupLine() : program.firstLine;
  int dir = 0;
  for (const auto &[line, index] : log.cacheDirLines) {
    if (line > at)
      break;
    dir = static_cast<int>(index);
  }
  return dir;
}

const std::string *cacheDirOf(const LogSummary &log, const LoggedProgram &program) {
  const int i = cacheDirIndexOf(log, program);
  return i < 0 ? nullptr : &log.cacheDirs[i];
}

std::vector<char> dirsReadingFirst(const LogSummary &la, const LogSummary &lb,
                                   const std::vector<ProgramPair> &pairs) {
  std::vector<char> reads(lb.cacheDirs.size());
  if (lb.cacheDirs.empty())
    return reads;
  for (const ProgramPair &p : pairs) {
    if (p.a < 0 || p.b < 0 || lb.programs[p.b].lookup != Lookup::Hit)
      continue;
    auto fa = la.programs[p.a].finalDigest(), fb = lb.programs[p.b].finalDigest();
    if (fa && fb && *fa == *fb)
      reads[cacheDirIndexOf(lb, lb.programs[p.b])] = 1;
  }
  return reads;
}

} // namespace cachekey::logs
