//===- FileInput.cpp - What the CLI reads from files ----------------------===//
#include "FileInput.h"

#include "cachekey/Parallel.h"
#include "cachekey/Run.h"

#include <cerrno>
#include <cstring>
#include <algorithm>
#include <atomic>
#include <fstream>
#include <optional>
#include <thread>
#include <iostream>
#include <sys/stat.h>
#include <vector>

namespace cachekey::cli {

namespace {

/// Largest input file the CLI reads (a 200 MB module as base64 JSON fits).
constexpr size_t kMaxInputBytes = size_t(1) << 30;

/// The stream to read `path` from: standard input for "-", else `file`
/// opened on it. An Error names a directory or an unreadable file.
Expected<std::istream *> openInput(const std::string &path, std::ifstream &file) {
  if (path == "-")
    return &std::cin;
  struct stat st;
  if (stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode))
    return Error{"", "is a directory, not a file", ErrorCode::Io, path};
  file.open(path, std::ios::binary);
  if (!file)
    return Error{"", std::string("cannot read file: ") + std::strerror(errno),
                 ErrorCode::Io, path};
  return &file;
}

} // namespace

Expected<std::string> readFile(const std::string &path) {
  std::ifstream file;
  auto in = openInput(path, file);
  if (!in)
    return in.takeError();
  std::string out;
  char buf[1 << 16];
  while (**in) {
    (*in)->read(buf, sizeof buf);
    out.append(buf, static_cast<size_t>((*in)->gcount()));
    if (out.size() > kMaxInputBytes)
      return Error{"", "input is larger than 1 GiB; the CLI refuses it",
                   ErrorCode::TooLarge, path};
  }
  return out;
}

/// Reads a log file (or standard input for "-") in 1 MiB chunks: a log of
/// any size, keeping only the reader's per-program summaries.
Expected<LogSummary> readLogFile(const std::string &path) {
  std::ifstream file;
  auto in = openInput(path, file);
  if (!in)
    return in.takeError();
  LogReader reader(path);
  std::vector<char> buf(size_t(1) << 20);
  while (**in) {
    (*in)->read(buf.data(), static_cast<std::streamsize>(buf.size()));
    reader.feed(std::string_view(buf.data(), static_cast<size_t>((*in)->gcount())));
  }
  if ((*in)->bad())
    return Error{path, "read error"};
  LogSummary s = reader.finish();
  struct stat st;
  if (path != "-" && ::stat(path.c_str(), &st) == 0)
    s.source = std::to_string(static_cast<unsigned long long>(st.st_dev)) + ":" +
               std::to_string(static_cast<unsigned long long>(st.st_ino));
  return s;
}

Expected<std::vector<LogSummary>> readLogFiles(const std::vector<std::string> &paths) {
  std::vector<std::optional<Expected<LogSummary>>> read(paths.size());
  // One log per core: each log is read on its own, so two 1 GB logs take
  // the time of one. Every log is read even after an error, and the error
  // reported is that of the first failing log in argument order.
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t i; (i = next++) < paths.size();)
      read[i].emplace(readLogFile(paths[i]));
  };
  unsigned threads = std::max(1u, std::min<unsigned>(workerThreads(),
                                                     static_cast<unsigned>(paths.size())));
  runOnThreads(threads, work);
  std::vector<LogSummary> out;
  out.reserve(paths.size());
  for (auto &r : read) {
    if (!*r)
      return r->takeError();
    out.push_back(std::move(**r));
  }
  return out;
}

FixtureResolver resolverFor(const std::string &dir) {
  return [dir](const std::string &id) -> Expected<Json> {
    for (char c : id)
      if (!(isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' ||
            c == '.'))
        return Error{"", "fixture id \"" + id +
                             "\" may only use letters, digits, '_', '-', '.'"};
    // Captured fixtures (CPU, then TPU), then the derived presets (patches
    // over them).
    auto text = readFile(dir + "/" + id + ".json");
    if (!text)
      text = readFile(dir + "/tpu/" + id + ".json");
    if (!text)
      text = readFile(dir + "/derived/" + id + ".json");
    if (!text)
      return Error{"",
                   "unknown fixture \"" + id + "\" (no " + dir + "/" + id +
                       ".json, " + dir + "/tpu/" + id + ".json or " + dir +
                       "/derived/" + id + ".json)",
                   ErrorCode::UnknownFixture, "", id};
    return parseJsonText(*text, "fixture " + id);
  };
}

bool isDirectory(const std::string &path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

/// Reads files of a capture directory by the names its JSON gives.
CaptureFileReader captureReader(const std::string &dir) {
  return [dir](const std::string &name) -> Expected<Bytes> {
    if (name.empty() || name[0] == '.' || name.find('/') != std::string::npos)
      return Error{name, "not a file name inside the capture directory"};
    return readFile(dir + "/" + name);
  };
}

Expected<ComputedFile> computeFromFile(const std::string &path,
                                       const FixtureResolver &resolver) {
  auto text = readFile(path);
  if (!text)
    return text.takeError();
  auto doc = parseJsonText(*text);
  if (!doc)
    return doc.takeError().from(path);
  size_t slash = path.rfind('/');
  std::string dir = slash == std::string::npos ? "." : path.substr(0, slash);
  std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
  auto c = computeDocument(name, *doc, resolver, captureReader(dir));
  if (!c && isCapturedScenario(*doc)) {
    // A captured program's paths name its files, from its directory.
    Error e = c.takeError();
    e.path = dir + "/" + e.path;
    return e;
  }
  if (!c)
    return c.takeError().from(path);
  return c;
}


} // namespace cachekey::cli
