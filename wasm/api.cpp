//===- api.cpp - Embind binding of the key engine -------------------------===//
//
// Only a binding: every function takes and returns JSON text (UTF-8 strings,
// which Embind converts faithfully), and delegates to the engine: the text →
// key pipeline and the version are the CLI's own (cachekey/Run.h), the JSON
// text too (dumpJson, cachekey/Json.h). Errors are returned as errorToJson
// (cachekey/Json.h) gives them,
// {"error": {"code", "path", "message", "source"?, "subject"?}}; nothing
// throws, so the instance never aborts on bad input. The JS API over this is
// web/engine.mjs.
//
//===----------------------------------------------------------------------===//
#include "cachekey/CacheDir.h"
#include "cachekey/Capture.h"
#include "cachekey/CaptureDiff.h"
#include "cachekey/Computation.h"
#include "cachekey/Diff.h"
#include "cachekey/Key.h"
#include "cachekey/LogCompare.h"
#include "cachekey/Permalink.h"
#include "cachekey/ProfileInfo.h"
#include "cachekey/Run.h"
#include "cachekey/Trace.h"

#ifdef CACHEKEY_WITH_MLIR
#include "cachekey/mlir/Canonicalize.h"
#include "cachekey/mlir/ModuleDiff.h"
#endif

#include <emscripten/bind.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <sstream>

using namespace cachekey;

namespace {

std::map<std::string, Json> &fixtures() {
  static std::map<std::string, Json> store;
  return store;
}

FixtureResolver resolver() {
  return [](const std::string &id) -> Expected<Json> {
    auto it = fixtures().find(id);
    if (it == fixtures().end())
      return Error{"", "unknown fixture \"" + id + "\"",
                   ErrorCode::UnknownFixture, "", id};
    return it->second;
  };
}

std::string dump(const Json &j) { return dumpJson(j); }

std::string errorText(const Error &e) { return dump(errorToJson(e)); }

/// The first `n` bytes of the Uint8Array `arr`, copied in one call.
Bytes copyBytes(const emscripten::val &arr, size_t n) {
  Bytes out(n, '\0');
  emscripten::val(emscripten::typed_memory_view(n, reinterpret_cast<uint8_t *>(out.data())))
      .call<void>("set", n == arr["length"].as<size_t>() ? arr
                                                          : arr.call<emscripten::val>("subarray", 0, double(n)));
  return out;
}

/// {"engine", "schema", "profiles", "mlir", "permalink_max_chars",
/// "permalink_max_json_bytes", "fresh_digest", "fixtures"}.
std::string version() {
  Json j;
  j["engine"] = engineVersion();
  j["schema"] = kScenarioSchema;
  // The running digest before any entry is fed (SHA-256 of no bytes): what
  // the page's walk shows at step 0.
  j["fresh_digest"] = toHex(Sha256().runningDigest());
  Json ids = Json::array();
  for (const ProfileSpec &p : allProfiles())
    ids.push_back(p.id);
  j["profiles"] = std::move(ids);
  j["mlir"] = hasCanonicalizer();
  // A link's limits (Permalink.h): its fragment's characters and the JSON
  // it may decompress to.
  j["permalink_max_chars"] = kPermalinkMaxChars;
  j["permalink_max_json_bytes"] = kPermalinkMaxJsonBytes;
  Json fixtureIds = Json::array();
  for (const auto &kv : fixtures())
    fixtureIds.push_back(kv.first);
  j["fixtures"] = std::move(fixtureIds);
  return dump(j);
}

/// The DebugOptions fields the engine knows: [{"name", "number", "kind"}]
/// by field number; kind is "bool", "int32", "int64", "enum", "string" or
/// "float".
std::string debugOptionFieldsJson() {
  Json list = Json::array();
  for (const DebugOptionField &f : knownDebugOptions())
    list.push_back({{"name", f.name}, {"number", f.number}, {"kind", fieldKindName(f.kind)}});
  return dump(list);
}

/// Every profile (profilesToJson): {"newest", "aliases", "profiles": [...]}.
std::string profiles() { return dump(profilesToJson()); }

/// The releases a cache folder can be read as (cacheReleasesToJson).
std::string cacheReleases() { return dump(cacheReleasesToJson()); }

/// One profile by id, release or "main" (profileToJson), or an error.
std::string describeProfile(const std::string &name) {
  auto p = parseProfile(name);
  if (!p)
    return errorText(p.takeError("profile"));
  return dump(profileToJson(*p));
}

/// {"from", "to", "differences": [sentences]} between two profiles (ids,
/// releases or "main"), or an error naming "from" or "to".
std::string profileDifferencesJson(const std::string &from,
                                   const std::string &to) {
  auto a = parseProfile(from);
  if (!a)
    return errorText(a.takeError("from"));
  auto b = parseProfile(to);
  if (!b)
    return errorText(b.takeError("to"));
  return dump(Json{{"from", profileName(*a)},
                   {"to", profileName(*b)},
                   {"differences", profileDifferences(*a, *b)}});
}

/// Makes a fixture available to scenarios' "base". Returns {"ok": true} or
/// an error.
std::string registerFixture(const std::string &id, const std::string &text) {
  auto doc = parseJsonText(text, "fixture " + id);
  if (!doc)
    return errorText(doc.error());
  if (!doc->is_object())
    return errorText(Error{"$", "fixture " + id + " is not a JSON object"});
  fixtures()[id] = std::move(*doc);
  return dump(Json{{"ok", true}});
}

/// The key, entries, flags and trace for a scenario (resultToJson), or an
/// error.
std::string computeKeyJson(const std::string &scenario) {
  auto r = computeFromText(scenario, resolver());
  return r ? dump(resultToJson(*r)) : errorText(r.error());
}

/// Like computeKey, with entry 1's bytes given as a Uint8Array instead of
/// base64 in the JSON (for large modules: no base64, no JSON string of
/// hundreds of megabytes). `module.entry1_b64`/`module.text` in the scenario
/// are replaced by these bytes.
std::string computeKeyWithModuleBytes(const std::string &scenario,
                                      const emscripten::val &bytes) {
  // One copy from the JS array into the engine's buffer, moved into the
  // scenario by the one pipeline (Run.h).
  auto r = computeFromText(scenario, resolver(),
                           copyBytes(bytes, bytes["length"].as<size_t>()));
  return r ? dump(resultToJson(*r)) : errorText(r.error());
}

/// The scenario after resolving "base": the full document the controls edit.
std::string resolveScenario(const std::string &scenario) {
  auto doc = parseJsonText(scenario);
  if (!doc)
    return errorText(doc.error());
  auto resolved = resolveBase(*doc, resolver());
  return resolved ? dump(*resolved) : errorText(resolved.error());
}

/// {"comparison": …, "a": result, "b": result}; an error's source is "a" or
/// "b".
std::string compareScenarios(const std::string &a, const std::string &b) {
  auto ra = computeFromText(a, resolver());
  if (!ra)
    return errorText(ra.takeError().from("a"));
  auto rb = computeFromText(b, resolver());
  if (!rb)
    return errorText(rb.takeError().from("b"));
  Json j;
  j["comparison"] = comparisonToJson(compareResults(*ra, *rb));
  j["a"] = resultToJson(*ra);
  j["b"] = resultToJson(*rb);
  return dump(j);
}

#ifndef CACHEKEY_WASM_KEY_ONLY
// What the page's worker does (logs, links, files and folders): not in the
// first view's key module (CACHEKEY_WASM_KEY_ONLY), which the main thread
// loads to show and perturb keys.

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
#endif // CACHEKEY_WASM_KEY_ONLY

#ifdef CACHEKEY_WITH_MLIR
/// diffModules(before, after): two modules (MLIR text, or bytecode as a
/// binary string) → moduleDiffToJson (ModuleDiff.h): {"same", "ops_before",
/// "ops_after", "findings": [{code, changes, total, x64, advice, text}],
/// "changes": [...]}, or an error object naming the module that did not
/// parse. Only in the MLIR module: the key-only module links no MLIR.
std::string diffModulesJson(const std::string &before, const std::string &after) {
  auto d = diffModules(before, after);
  if (!d)
    return errorText(d.takeError());
  return dump(moduleDiffToJson(*d));
}
#endif

} // namespace

EMSCRIPTEN_BINDINGS(cachekey) {
#ifdef CACHEKEY_WITH_MLIR
  registerMlirCanonicalizer(); // module text is canonicalised live
  registerMlirModuleDiffer();  // a moved entry 1 is diffed structurally
  emscripten::function("diffModules", &diffModulesJson);
#endif
  emscripten::function("version", &version);
  emscripten::function("registerFixture", &registerFixture);
  emscripten::function("profiles", &profiles);
  emscripten::function("debugOptionFields", &debugOptionFieldsJson);
  emscripten::function("describeProfile", &describeProfile);
  emscripten::function("profileDifferences", &profileDifferencesJson);
  emscripten::function("computeKey", &computeKeyJson);
  emscripten::function("computeKeyWithModuleBytes", &computeKeyWithModuleBytes);
  emscripten::function("resolveScenario", &resolveScenario);
  emscripten::function("compareScenarios", &compareScenarios);
  emscripten::function("cacheReleases", &cacheReleases);
#ifndef CACHEKEY_WASM_KEY_ONLY
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
#endif
}
