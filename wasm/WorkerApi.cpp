//===- WorkerApi.cpp - The worker's calls ---------------------------------===//
//
// What the page's worker does besides keys: logs read in chunks and
// compared, links encoded and decoded, opened scenario and capture files,
// capture folders compared, cache folders read. Linked with the whole
// engine into cachekey_engine and cachekey_engine_mlir, never into the key
// module.
//
//===----------------------------------------------------------------------===//
#include "Binding.h"

#include "cachekey/CacheDir.h"
#include "cachekey/Capture.h"
#include "cachekey/CaptureDiff.h"
#include "cachekey/Document.h"
#include "cachekey/Key.h"
#include "cachekey/LogCompare.h"
#include "cachekey/Permalink.h"

#include <emscripten/bind.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <sstream>

using namespace cachekey;
using namespace cachekey::wasm;

namespace {

/// A log comparison as one line of JSON (logComparisonToJson's document,
/// written pair by pair: writeLogComparisonJson, no tree of every pair).
std::string comparisonText(const LogComparison &c) {
  std::ostringstream os;
  writeLogComparisonJson(os, c, Json::object(), -1);
  return os.str();
}

/// Compares two pasted JAX logs named `nameA` and `nameB`
/// (logComparisonToJson), or says what is missing.
std::string compareLogsJson(const std::string &a, const std::string &b,
                            const std::string &nameA, const std::string &nameB) {
  auto c = compareLogs(a, b, nameA, nameB);
  return c ? comparisonText(*c) : errorText(c.error());
}

/// Log readers for files read in chunks (a dropped file of any size): open
/// one per file, feed it text, then compare two; comparing closes both.
std::map<int, std::unique_ptr<LogReader>> &logReaders() {
  static std::map<int, std::unique_ptr<LogReader>> readers;
  return readers;
}

/// {"reader": id} for a new reader of a log called `name`.
std::string openLogReader(const std::string &name) {
  static int next = 1;
  // A page that never finishes its readers must not grow without bound.
  while (logReaders().size() >= 8)
    logReaders().erase(logReaders().begin());
  logReaders()[next] = std::make_unique<LogReader>(name);
  return dump(Json{{"reader", next++}});
}

/// Reads the complete lines of `chunk` ({"ok": true}, or an error for an
/// unknown reader).
std::string feedLogReader(int id, const std::string &chunk) {
  auto it = logReaders().find(id);
  if (it == logReaders().end())
    return errorText(Error{"log reader", "no open log reader " + std::to_string(id)});
  it->second->feed(chunk);
  return dump(Json{{"ok", true}});
}

/// Ends both readers and compares their logs (logComparisonToJson).
std::string compareLogReaders(int idA, int idB) {
  auto &readers = logReaders();
  auto a = readers.find(idA), b = readers.find(idB);
  if (a == readers.end() || b == readers.end() || idA == idB)
    return errorText(Error{"log reader", "compare two different open log readers"});
  LogSummary la = a->second->finish(), lb = b->second->finish();
  readers.erase(idA);
  readers.erase(idB);
  auto c = compareLogSummaries(std::move(la), std::move(lb));
  return c ? comparisonText(*c) : errorText(c.error());
}

/// Ends the readers whose ids `idsJson` lists (a JSON array, two or more,
/// in run order) and compares their logs (manyLogComparisonToJson); for two
/// ids the same as compareLogReaders.
std::string compareManyLogReaders(const std::string &idsJson) {
  auto ids = parseJsonText(idsJson);
  if (!ids || !ids->is_array() || ids->size() < 2)
    return errorText(Error{"log reader", "give a JSON array of two or more open log readers"});
  auto &readers = logReaders();
  std::vector<int> list;
  for (const auto &v : *ids) {
    if (!v.is_number_integer() || !readers.count(v.get<int>()) ||
        std::count(list.begin(), list.end(), v.get<int>()))
      return errorText(Error{"log reader", "no open log reader " + v.dump() +
                                               " (or given twice)"});
    list.push_back(v.get<int>());
  }
  if (list.size() == 2)
    return compareLogReaders(list[0], list[1]);
  std::vector<LogSummary> logs;
  for (int id : list) {
    logs.push_back(readers[id]->finish());
    readers.erase(id);
  }
  auto c = compareManyLogSummaries(std::move(logs));
  return c ? dump(manyLogComparisonToJson(*c)) : errorText(c.error());
}

/// {"fragment", "length", "too_long", "max_length", "json_bytes",
/// "max_json_bytes"}: the permalink fragment for compact scenario JSON
/// (UTF-8). too_long is set when the fragment is longer than
/// kPermalinkMaxChars, and at once, before anything is parsed or compressed,
/// when the scenario's JSON is longer than kPermalinkMaxJsonBytes: no link
/// could carry it, since decodePermalink refuses to decompress past that
/// (length is then 0 and json_bytes says how long it is; a scenario of tens
/// of megabytes is refused in microseconds rather than compressed for a
/// minute at zstd level 19).
std::string encodePermalinkJson(const std::string &scenario) {
  auto refuse = [](size_t jsonBytes) {
    Json j;
    j["fragment"] = "";
    j["length"] = 0;
    j["too_long"] = true;
    j["max_length"] = kPermalinkMaxChars;
    j["json_bytes"] = jsonBytes;
    j["max_json_bytes"] = kPermalinkMaxJsonBytes;
    return dump(j);
  };
  if (scenario.size() > kPermalinkMaxJsonBytes)
    return refuse(scenario.size());
  auto doc = parseJsonText(scenario);
  if (!doc)
    return errorText(doc.error());
  std::string json = dump(*doc);
  if (json.size() > kPermalinkMaxJsonBytes)
    return refuse(json.size());
  std::string fragment = encodePermalink(json);
  Json j;
  bool tooLong = fragment.size() > kPermalinkMaxChars;
  j["fragment"] = tooLong ? "" : fragment;
  j["length"] = fragment.size();
  j["too_long"] = tooLong;
  j["max_length"] = kPermalinkMaxChars;
  j["json_bytes"] = json.size();
  j["max_json_bytes"] = kPermalinkMaxJsonBytes;
  return dump(j);
}

/// {"scenario": <object>} for a fragment, or an error naming the layer that
/// is wrong (base64url, zstd, size cap, JSON, schema).
std::string decodePermalinkJson(const std::string &fragment) {
  auto text = decodePermalink(fragment);
  if (!text)
    return errorText(text.error());
  auto doc = parseJsonText(*text, "permalink scenario");
  if (!doc)
    return errorText(doc.takeError().from("permalink"));
  auto s = readScenario(*doc, resolver());
  if (!s)
    return errorText(s.takeError().from("permalink"));
  return dump(Json{{"scenario", *doc}});
}


/// The bytes of `files[name]` (a Uint8Array), copied once into the engine.
/// `files` is a plain JS object {name: Uint8Array}, as the page's worker
/// builds it from chosen or dropped files.
Expected<Bytes> fileBytes(const emscripten::val &files, const std::string &name) {
  if (name.empty() || name[0] == '.' || name.find('/') != std::string::npos)
    return Error{"", "not a file name inside the chosen folder", ErrorCode::Io, name};
  emscripten::val v = files[name];
  if (v.isUndefined() || v.isNull())
    return Error{"", "was not chosen with the others (the capture refers to it)",
                 ErrorCode::Io, name};
  return copyBytes(v, v["length"].as<size_t>());
}

/// A capture directory read from memory: the files chosen or dropped with it.
CaptureFileReader memoryReader(const emscripten::val &files) {
  return [files](const std::string &name) { return fileBytes(files, name); };
}

/// One opened scenario file (`name` in `files`), read exactly as
/// `cachekey explain FILE --json` reads it: a captured file (docs/capture.md)
/// through the engine's capture reader (schema, entry-1 and text sidecars,
/// raw or zstd, their SHA-256, the key checked against the one real JAX
/// computed); any other file as a scenario. Returns {"scenario": the
/// document to show (a sidecar entry 1 inlined as entry1_b64), "result":
/// resultToJson, and for a capture "capture_check" (captureCheckToJson) and
/// "captured": {"file", "program", "occurrence", "outcome", "reason",
/// "entry1_omitted", "text_file"}}; or an error whose source is `name`.
std::string openScenarioFile(const std::string &name, const emscripten::val &files) {
  auto bytes = fileBytes(files, name);
  if (!bytes)
    return errorText(bytes.takeError());
  auto doc = parseJsonText(*bytes);
  if (!doc)
    return errorText(doc.takeError().from(name));
  auto c = computeDocument(name, *doc, resolver(), memoryReader(files));
  if (!c)
    return errorText(c.takeError().from(name));
  if (c->captured) {
    auto &p = c->captured;
    const KeyResult *r = &c->result;
    // The outcome is in index.json, when it was chosen with the file.
    if (p->outcome.empty() && !files["index.json"].isUndefined())
      if (auto rows = readCaptureIndex(memoryReader(files)))
        for (const CaptureIndexRow &row : *rows)
          if (row.file == name) {
            p->outcome = row.outcome;
            p->reason = row.reason;
          }
    Json j;
    j["scenario"] = p->scenario;
    j["result"] = resultToJson(*r);
    j["capture_check"] = captureCheckToJson(checkCapturedKey(*p, *r), *p);
    j["captured"] = {{"file", p->file}, {"program", p->program},
                     {"occurrence", p->occurrence}, {"outcome", p->outcome},
                     {"reason", p->reason}, {"entry1_omitted", p->entry1Omitted},
                     {"text_file", p->textFile ? Json(*p->textFile) : Json()}};
    return dump(j);
  }
  return dump(Json{{"scenario", *doc}, {"result", resultToJson(c->result)}});
}

/// Two capture folders compared as `cachekey diff DIR_A DIR_B` compares them
/// (CaptureDiff.h: paired by name, then by order within a name; the cause
/// at field level; a unified diff of the module text when entry 1 moved).
/// `filesA`/`filesB` are {name: Uint8Array} of each folder (index.json
/// among them); `nameA`/`nameB` label the folders. Returns
/// captureComparisonToJson plus "text" (what the CLI prints), or an error
/// whose source is the folder's label.
std::string compareCaptureFolders(const emscripten::val &filesA,
                                  const emscripten::val &filesB,
                                  const std::string &nameA,
                                  const std::string &nameB) {
  auto c = compareCaptures(memoryReader(filesA), memoryReader(filesB), nameA, nameB);
  if (!c)
    return errorText(c.takeError());
  Json j = captureComparisonToJson(*c);
  j["text"] = captureComparisonText(*c);
  return dump(j);
}

/// The bytes of file `index` of a folder, read through the page's worker
/// (`reader.read(index, offset, n)` → Uint8Array; FileReaderSync over the
/// File's slice), so only what the entry reader asks for is read.
struct JsFileSource : ByteSource {
  emscripten::val reader;
  int index;
  uint64_t length;
  JsFileSource(emscripten::val r, int i, uint64_t n) : reader(std::move(r)), index(i), length(n) {}
  uint64_t size() const override { return length; }
  std::string read(uint64_t offset, size_t n) const override {
    if (offset >= length || n == 0)
      return {};
    emscripten::val arr = reader.call<emscripten::val>("read", index, double(offset), double(n));
    if (arr.isUndefined() || arr.isNull())
      return {};
    return copyBytes(arr, std::min<size_t>(arr["length"].as<size_t>(), n));
  }
};

/// A JAX cache folder read as `cachekey cache-dir DIR [--max-size B]
/// [--release X]` reads one (CacheDir.h): `listing` is [{name, type:
/// "file"|"dir"|"symlink"|"other", size (bytes), mtime_ms}] of the files
/// directly in the folder; `reader.read(i, offset, n)` gives the bytes of
/// listing[i]; `options` {max_size?, release?}. Returns cacheReportToJson
/// plus "text" (what the CLI prints), or an error.
std::string readCacheFolder(const emscripten::val &listing, const emscripten::val &reader,
                            const std::string &name, const emscripten::val &options) {
  const size_t n = listing["length"].as<size_t>();
  std::vector<std::unique_ptr<JsFileSource>> sources;
  std::vector<ListedFile> files;
  files.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    emscripten::val f = listing[i];
    ListedFile l;
    l.name = f["name"].as<std::string>();
    std::string type = f["type"].isString() ? f["type"].as<std::string>() : "file";
    l.type = type == "dir"       ? ListedFile::Type::Directory
             : type == "symlink" ? ListedFile::Type::Symlink
             : type == "other"   ? ListedFile::Type::Other
                                 : ListedFile::Type::Regular;
    l.size = static_cast<uint64_t>(f["size"].as<double>());
    l.mtimeNs = static_cast<int64_t>(f["mtime_ms"].as<double>()) * 1000000;
    if (f["error"].isString())
      l.readError = f["error"].as<std::string>();
    if (l.type == ListedFile::Type::Regular) {
      sources.push_back(std::make_unique<JsFileSource>(reader, static_cast<int>(i), l.size));
      l.bytes = sources.back().get();
    }
    files.push_back(std::move(l));
  }
  std::optional<int64_t> maxSize;
  std::string release;
  if (!options.isUndefined() && !options.isNull()) {
    emscripten::val m = options["max_size"];
    if (!m.isUndefined() && !m.isNull()) {
      // As jax_compilation_cache_max_size and the CLI's --max-size: an
      // integer; -1 no cap, 0 or below every write refused.
      double v = m.as<double>();
      if (!(v == std::floor(v)) || v < -9.0e15 || v > 9.0e15)
        return errorText(Error{"$.max_size", "a whole number of bytes (-1: no cap)",
                               ErrorCode::Invalid, name});
      maxSize = static_cast<int64_t>(v);
    }
    if (options["release"].isString())
      release = options["release"].as<std::string>();
  }
  auto report = analyseCacheDir(scanListedFiles(name, files), release, maxSize);
  if (!report)
    return errorText(report.takeError().from(name));
  Json j = cacheReportToJson(*report);
  std::ostringstream text;
  writeCacheReport(text, *report);
  j["text"] = text.str();
  return dump(j);
}

} // namespace

EMSCRIPTEN_BINDINGS(cachekey_worker) {
  emscripten::function("compareLogs", &compareLogsJson);
  emscripten::function("openLogReader", &openLogReader);
  emscripten::function("feedLogReader", &feedLogReader);
  emscripten::function("compareLogReaders", &compareLogReaders);
  emscripten::function("compareManyLogReaders", &compareManyLogReaders);
  emscripten::function("encodePermalink", &encodePermalinkJson);
  emscripten::function("decodePermalink", &decodePermalinkJson);
  emscripten::function("openScenarioFile", &openScenarioFile);
  emscripten::function("compareCaptureFolders", &compareCaptureFolders);
  emscripten::function("readCacheFolder", &readCacheFolder);
}
