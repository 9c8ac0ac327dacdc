//===- Capture.cpp - Scenarios captured from a real run -------------------===//
#include "cachekey/Capture.h"

#include "cachekey/Sha256.h"

#include <zstd.h>

#include <algorithm>
#include <initializer_list>

namespace cachekey {

namespace {

/// Prefixes an error's path with the file it came from.
Error inFile(const std::string &file, Error e) {
  e.path = e.path.empty() ? file : file + ": " + e.path;
  return e;
}

Expected<std::string> getString(const Json &obj, const char *key,
                                const std::string &path) {
  auto it = obj.find(key);
  if (it == obj.end())
    return Error{path + "." + key, "missing"};
  if (!it->is_string())
    return Error{path + "." + key,
                 std::string("expected a string, got ") + it->type_name()};
  return it->get<std::string>();
}

/// Reads the string members `fields` of `obj` (at JSON path `path`).
Status readStrings(
    const Json &obj, const std::string &path,
    std::initializer_list<std::pair<const char *, std::string *>> fields) {
  for (auto [field, dest] : fields) {
    auto v = getString(obj, field, path);
    if (!v)
      return v.takeError();
    *dest = std::move(*v);
  }
  return {};
}

/// Calls `each(element, path)` for every element of the array member `key`
/// of `obj`, which must hold objects; stops at the first error.
template <typename F>
Status forEachObject(const Json &obj, const char *key,
                             const std::string &path, bool required, F each) {
  auto it = obj.find(key);
  std::string arrayPath = path + "." + key;
  if (it == obj.end() && !required)
    return {};
  if (it == obj.end() || !it->is_array())
    return Error{arrayPath, "missing or not an array"};
  for (size_t i = 0; i < it->size(); ++i) {
    std::string elementPath = arrayPath + "[" + std::to_string(i) + "]";
    if (!(*it)[i].is_object())
      return Error{elementPath, "expected an object"};
    auto r = each((*it)[i], elementPath);
    if (!r)
      return r.takeError();
  }
  return {};
}

const Json *getObject(const Json &obj, const char *key) {
  auto it = obj.find(key);
  return it != obj.end() && it->is_object() ? &*it : nullptr;
}

bool isHexDigest(const std::string &s) {
  return s.size() == 64 && std::all_of(s.begin(), s.end(), [](char c) {
           return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
         });
}

Digest digestFromHex(const std::string &hex) {
  Digest d{};
  for (size_t i = 0; i < d.size(); ++i)
    d[i] = static_cast<uint8_t>(std::stoi(hex.substr(2 * i, 2), nullptr, 16));
  return d;
}

/// Entry index (1…8) of a name as JAX logs it, or 0.
int entryIndex(const std::string &name) {
  for (int i = 0; i < kNumEntries; ++i)
    if (name == kEntryNames[i])
      return i + 1;
  return 0;
}

Expected<Bytes> zstdDecompress(const Bytes &data, size_t size,
                               const std::string &path) {
  Bytes out(size, '\0');
  size_t n = ZSTD_decompress(out.data(), out.size(), data.data(), data.size());
  if (ZSTD_isError(n))
    return Error{path, std::string("not a zstd frame of the declared size: ") +
                           ZSTD_getErrorName(n)};
  if (n != size)
    return Error{path, "decompressed to " + std::to_string(n) +
                           " bytes, the capture says " + std::to_string(size)};
  return out;
}

/// Loads entry 1 as described by `capture.entry1` into `program`.
Status loadEntry1(CapturedProgram &program, const Json &info,
                          const CaptureFileReader &read) {
  const std::string path = "$.capture.entry1";
  auto sha = getString(info, "sha256", path);
  if (!sha)
    return sha.takeError();
  if (!isHexDigest(*sha))
    return Error{path + ".sha256", "expected 64 lowercase hex digits"};
  program.entry1Sha256 = *sha;
  auto storage = getString(info, "storage", path);
  if (!storage)
    return storage.takeError();
  auto bytesIt = info.find("bytes");
  if (bytesIt == info.end() || !bytesIt->is_number_unsigned())
    return Error{path + ".bytes", "expected a non-negative integer"};
  size_t size = bytesIt->get<size_t>();
  Json &module = program.scenario["module"];
  if (*storage == "inline") {
    if (!module.contains("entry1_b64"))
      return Error{"$.module.entry1_b64",
                   "missing, but $.capture.entry1.storage is \"inline\""};
    return {};
  }
  if (*storage == "omitted") {
    program.entry1Omitted = true;
    module["entry1_b64"] = ""; // a placeholder; see computeCapturedKey
    return {};
  }
  if (*storage != "sidecar")
    return Error{path + ".storage", "expected \"inline\", \"sidecar\" or "
                                    "\"omitted\", got \"" + *storage + "\""};
  auto file = getString(info, "file", path);
  if (!file)
    return file.takeError();
  auto encoding = getString(info, "encoding", path);
  if (!encoding)
    return encoding.takeError();
  if (size > (size_t(1) << 30))
    return Error{path + ".bytes", "larger than 1 GiB; refused"};
  auto raw = read(*file);
  if (!raw)
    return raw.takeError().within(path + ".file");
  Bytes bytes;
  if (*encoding == "zstd") {
    auto d = zstdDecompress(*raw, size, path + ".file (" + *file + ")");
    if (!d)
      return d.takeError();
    bytes = std::move(*d);
  } else if (*encoding == "raw") {
    bytes = std::move(*raw);
  } else {
    return Error{path + ".encoding",
                 "expected \"zstd\" or \"raw\", got \"" + *encoding + "\""};
  }
  if (bytes.size() != size)
    return Error{path + ".bytes", "the sidecar " + *file + " holds " +
                                      std::to_string(bytes.size()) +
                                      " bytes, the capture says " +
                                      std::to_string(size)};
  if (toHex(Sha256::of(bytes)) != *sha)
    return Error{path + ".sha256",
                 "the sidecar " + *file + "'s bytes do not have this SHA-256"};
  module["entry1_b64"] = base64Encode(bytes);
  return {};
}

} // namespace

bool isCapturedScenario(const Json &document) {
  const Json *c = document.is_object() ? getObject(document, "capture") : nullptr;
  return c && c->contains("format");
}

Expected<CapturedProgram> readCapturedProgram(const std::string &file,
                                              const Json &document,
                                              const CaptureFileReader &read) {
  CapturedProgram p;
  p.file = file;
  p.scenario = document;
  auto fail = [&](Error e) { return inFile(file, std::move(e)); };
  const Json *capture = isCapturedScenario(document)
                            ? getObject(document, "capture")
                            : nullptr;
  if (!capture)
    return fail({"$.capture", "not a captured scenario (no capture.format)"});
  const Json &format = (*capture)["format"];
  if (!format.is_number_integer() || format.get<int64_t>() != kCaptureFormat)
    return fail({"$.capture.format", "this engine reads capture format " +
                                         std::to_string(kCaptureFormat) +
                                         ", got " + format.dump()});
  const Json *module = getObject(document, "module");
  if (!module)
    return fail({"$.module", "missing or not an object"});
  auto sym = getString(*module, "sym_name", "$.module");
  if (!sym)
    return fail(sym.takeError());
  p.program = *sym;
  auto occ = capture->find("occurrence");
  if (occ != capture->end() && occ->is_number_integer())
    p.occurrence = occ->get<int>();

  const Json *expected = getObject(document, "expected");
  if (!expected)
    return fail({"$.expected", "missing: the key real JAX computed"});
  auto key = getString(*expected, "key", "$.expected");
  if (!key)
    return fail(key.takeError());
  p.expectedKey = *key;
  auto entries = forEachObject(
      *expected, "entries", "$.expected", false,
      [&](const Json &e, const std::string &path) -> Status {
        CapturedEntry ce;
        auto ok = readStrings(e, path, {{"name", &ce.name},
                                        {"digest", &ce.digest},
                                        {"running", &ce.running}});
        if (!ok)
          return ok;
        if (!entryIndex(ce.name))
          return Error{path + ".name", "unknown entry \"" + ce.name + "\""};
        if (!isHexDigest(ce.digest) || !isHexDigest(ce.running))
          return Error{path, "digests must be 64 lowercase hex digits"};
        p.entries.push_back(std::move(ce));
        return {};
      });
  if (!entries)
    return fail(entries.takeError());
  const Json *e1 = getObject(*capture, "entry1");
  if (!e1)
    return fail({"$.capture.entry1", "missing or not an object"});
  auto loaded = loadEntry1(p, *e1, read);
  if (!loaded)
    return fail(loaded.takeError());
  if (p.entry1Omitted && p.entries.empty())
    return fail({"$.expected.entries",
                 "needed when entry 1 is omitted, but missing"});

  if (auto st = capture->find("settings"); st != capture->end()) {
    if (!st->is_object())
      return fail({"$.capture.settings", "expected an object"});
    p.settings = *st;
  }
  const Json *text = getObject(*capture, "module_text");
  if (!text)
    return fail({"$.capture.module_text", "missing or not an object"});
  auto tsha = getString(*text, "sha256", "$.capture.module_text");
  if (!tsha)
    return fail(tsha.takeError());
  p.textSha256 = *tsha;
  auto storage = getString(*text, "storage", "$.capture.module_text");
  if (!storage)
    return fail(storage.takeError());
  if (*storage == "sidecar") {
    auto f = getString(*text, "file", "$.capture.module_text");
    if (!f)
      return fail(f.takeError());
    p.textFile = *f;
    if (auto g = text->find("generic_file"); g != text->end()) {
      if (!g->is_string())
        return fail({"$.capture.module_text.generic_file", "expected a string"});
      p.genericTextFile = g->get<std::string>();
    }
  } else if (*storage != "omitted") {
    return fail({"$.capture.module_text.storage",
                 "expected \"sidecar\" or \"omitted\", got \"" + *storage + "\""});
  }
  return p;
}

Expected<std::vector<CaptureIndexRow>> readCaptureIndex(
    const CaptureFileReader &read) {
  auto text = read("index.json");
  if (!text) {
    Error e = text.takeError().about("not a capture directory (python -m "
                                     "cachekey.capture writes index.json)");
    e.path = "index.json";
    return e;
  }
  auto index = parseJsonText(*text, "index.json");
  if (!index)
    return inFile("index.json", index.takeError());
  auto fail = [](Error e) { return inFile("index.json", std::move(e)); };
  if (!index->is_object())
    return fail({"$", "expected an object"});
  auto format = index->find("format");
  if (format == index->end() || !format->is_number_integer() ||
      format->get<int64_t>() != kCaptureFormat)
    return fail({"$.format", "this engine reads capture format " +
                                 std::to_string(kCaptureFormat)});
  std::vector<CaptureIndexRow> out;
  auto rows = forEachObject(
      *index, "programs", "$", true,
      [&](const Json &row, const std::string &path) -> Status {
        CaptureIndexRow r;
        auto ok = readStrings(row, path, {{"file", &r.file},
                                          {"program", &r.program},
                                          {"key", &r.key}});
        if (!ok)
          return ok;
        if (r.file.empty() || r.file[0] == '.' ||
            r.file.find('/') != std::string::npos)
          return Error{path + ".file", "must name a file of the directory"};
        auto occ = row.find("occurrence");
        if (occ != row.end()) {
          if (!occ->is_number_integer() || occ->get<int64_t>() < 1)
            return Error{path + ".occurrence", "expected a positive integer"};
          r.occurrence = occ->get<int>();
        }
        for (auto [field, dest] : {std::pair{"outcome", &r.outcome},
                                   {"reason", &r.reason}}) {
          auto it = row.find(field);
          if (it != row.end() && it->is_string())
            *dest = it->get<std::string>();
        }
        out.push_back(std::move(r));
        return {};
      });
  if (!rows)
    return fail(rows.takeError());
  return out;
}

Expected<CapturedProgram> readIndexedProgram(const CaptureIndexRow &row,
                                             const CaptureFileReader &read) {
  auto body = read(row.file);
  if (!body)
    return body.takeError();
  auto doc = parseJsonText(*body, row.file);
  if (!doc)
    return inFile(row.file, doc.takeError());
  auto p = readCapturedProgram(row.file, *doc, read);
  if (!p)
    return p.takeError();
  if (p->expectedKey != row.key)
    return Error{row.file + ": $.expected.key",
                 "is " + p->expectedKey + ", but index.json lists " + row.key};
  p->outcome = row.outcome;
  p->reason = row.reason;
  p->occurrence = row.occurrence;
  return p;
}

Expected<std::vector<CapturedProgram>> readCaptureDirectory(
    const CaptureFileReader &read) {
  auto rows = readCaptureIndex(read);
  if (!rows)
    return rows.takeError();
  std::vector<CapturedProgram> out;
  for (const CaptureIndexRow &row : *rows) {
    auto p = readIndexedProgram(row, read);
    if (!p)
      return p.takeError();
    out.push_back(std::move(*p));
  }
  return out;
}

Expected<KeyResult> computeCapturedKey(const CapturedProgram &program) {
  auto scenario = readScenario(program.scenario, FixtureResolver{});
  if (!scenario)
    return inFile(program.file, scenario.takeError());
  auto result = computeKey(*scenario);
  if (!result)
    return inFile(program.file, result.takeError());
  if (program.entry1Omitted) {
    for (const CapturedEntry &e : program.entries) {
      EntryResult &r = result->entries[entryIndex(e.name) - 1];
      r.running = digestFromHex(e.running);
      if (r.index == 1)
        r.digest = digestFromHex(e.digest);
    }
    result->key = program.expectedKey;
    Note n;
    n.code = NoteCode::Entry1DigestOnly;
    n.subject = program.file;
    result->notes.push_back(std::move(n));
  }
  return result;
}

CaptureCheck checkCapturedKey(const CapturedProgram &program,
                              const KeyResult &result) {
  CaptureCheck c;
  for (const CapturedEntry &e : program.entries) {
    int i = entryIndex(e.name);
    if (program.entry1Omitted && i == 1)
      continue;
    if (toHex(result.entries[i - 1].digest) != e.digest)
      c.differing.push_back(i);
  }
  std::sort(c.differing.begin(), c.differing.end());
  std::string list;
  for (size_t i = 0; i < c.differing.size(); ++i)
    list += (i ? ", " : "") + std::to_string(c.differing[i]);
  if (program.entry1Omitted) {
    c.matches = c.differing.empty() && !program.entries.empty();
    c.sentence = c.matches
                     ? "Entry 1 was captured as a digest only, so the key "
                       "cannot be recomputed; entries 2\u20138 equal JAX's."
                     : "Entry 1 was captured as a digest only; the engine's "
                       "own digests differ from JAX's for entries " + list + ".";
    return c;
  }
  c.matches = result.key == program.expectedKey;
  if (c.matches)
    c.sentence = "The engine's key equals the key real JAX computed.";
  else
    c.sentence = "MISMATCH: the engine's key " + result.key +
                 " is not the key real JAX computed, " + program.expectedKey +
                 (list.empty() ? std::string(".")
                               : "; entries whose own digest differs: " + list +
                                     ".");
  return c;
}

Json captureCheckToJson(const CaptureCheck &check,
                        const CapturedProgram &program) {
  Json j;
  j["matches"] = check.matches;
  j["differing"] = check.differing;
  j["sentence"] = check.sentence;
  j["jax_key"] = program.expectedKey;
  return j;
}

} // namespace cachekey
