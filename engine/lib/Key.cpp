//===- Key.cpp - The cache key, entry by entry ----------------------------===//
#include "cachekey/Key.h"

#include "cachekey/PyText.h"
#include "cachekey/Trace.h"

namespace cachekey {

const std::array<const char *, kNumEntries> kEntryNames = {
    "computation",     "jax_lib version",    "backend version", "XLA flags",
    "compile_options", "accelerator_config", "compression",     "custom_hook"};

Expected<KeyResult> computeKey(const Scenario &s) {
  KeyResult r;
  r.profile = s.profile;
  std::array<std::vector<EntryPart>, kNumEntries> parts;
  std::array<std::string, kNumEntries> summaries;

  // 1. computation
  auto comp = computationEntry(s.module, s.profile);
  if (!comp)
    return comp.takeError();
  r.computation = std::move(*comp);
  r.symName = r.computation.symName;
  parts[0].push_back({"MLIR bytecode", r.computation.bytes});
  summaries[0] = s.module.includeMetadata
                     ? "MLIR bytecode of the module as written, locations "
                       "included (include_metadata is on)"
                     : "MLIR bytecode of the module after strip-debuginfo "
                       "(locations removed)";
  if (r.computation.live)
    r.notes.push_back("Entry 1 was computed here by " + r.computation.producer +
                      "; jaxlib's MLIR is a different version, so its bytecode "
                      "(and every digest from entry 1 on) differs from what "
                      "jaxlib would feed.");

  // 2. jax_lib version: encoded, not stripped.
  parts[1].push_back({"jaxlib version", s.jaxlibVersion});
  summaries[1] = "the jaxlib version string, UTF-8, not stripped";

  // 3. backend version
  parts[2].push_back({"platform", hashStringBytes(s.platform)});
  parts[2].push_back({"platform_version", hashStringBytes(s.platformVersion)});
  summaries[2] = "platform, then platform_version, each with ASCII whitespace "
                 "stripped from both ends; no separator";

  // 4. XLA flags
  r.flags = collectFlags(s.flags, s.profile);
  for (const auto &f : r.flags)
    if (f.included)
      parts[3].push_back({f.flag, f.hashed});
  summaries[3] = "every kept flag in sorted order, each stripped; no "
                 "separator, so [\"ab\",\"c\"] and [\"a\",\"bc\"] feed the same "
                 "bytes";

  // 5. compile_options
  auto edited = applyStructuredEdits(s.compileOptions.proto, s.compileOptions.edits);
  if (!edited)
    return edited.takeError();
  auto co = applyCacheKeyEdits(*edited, s.profile, s.platform);
  if (!co)
    return co.takeError("$.compile_options.proto_b64");
  r.compileOptions = std::move(*co);
  parts[4].push_back({"CompileOptionsProto", r.compileOptions.output});
  summaries[4] = "the serialized CompileOptionsProto after the cache-key "
                 "edits (debug fields zeroed, excluded overrides dropped" +
                 std::string(s.platform == "gpu"
                                 ? ", device assignment renumbered on gpu)"
                                 : ")");

  // 6. accelerator_config
  r.accelerator = acceleratorEntry(s.accelerator);
  for (auto &p : r.accelerator.parts)
    parts[5].push_back({p.first, p.second});
  summaries[5] = r.accelerator.fallback
                     ? "the device_kind of every device, each stripped "
                       "(fallback: the runtime has no topology)"
                     : "the topology fingerprint as 8 bytes, big-endian";
  if (r.accelerator.standIn)
    r.notes.push_back("The accelerator fingerprint is a stand-in, not "
                      "libtpu's value: " + r.accelerator.provenance);

  // 7. compression
  r.compression = compressionName(s.compression, s.profile);
  parts[6].push_back({"compression", hashStringBytes(r.compression)});
  summaries[6] = "the compression algorithm's name";
  if (s.compression.python && r.compression == "zlib" &&
      s.compression.zstandardInstalled)
    r.notes.push_back("On Python " + *s.compression.python +
                      " JAX compresses with the standard library's zstd but "
                      "the key says \"zlib\": a process that really writes "
                      "zlib computes the same key.");

  // 8. custom_hook
  parts[7].push_back({"custom_hook()", hashStringBytes(s.customHook)});
  summaries[7] = "the string custom_hook() returns (JAX ships \"\")";

  Sha256 running;
  for (int i = 0; i < kNumEntries; ++i) {
    EntryResult &e = r.entries[i];
    e.index = i + 1;
    e.name = kEntryNames[i];
    e.summary = summaries[i];
    e.parts = std::move(parts[i]);
    for (const auto &p : e.parts)
      e.bytes += p.bytes;
    running.update(e.bytes);
    e.digest = Sha256::of(e.bytes);
    e.running = running.runningDigest();
  }
  r.key = r.symName + "-" + toHex(r.entries[kNumEntries - 1].running);
  r.trace = traceLines(r, s);
  return r;
}

Json resultToJson(const KeyResult &r, size_t previewBytes) {
  Json out;
  out["key"] = r.key;
  out["sym_name"] = r.symName;
  out["profile"] = profileName(r.profile);
  Json entries = Json::array();
  for (const auto &e : r.entries) {
    Json j;
    j["index"] = e.index;
    j["name"] = e.name;
    j["summary"] = e.summary;
    j["bytes_len"] = e.bytes.size();
    j["preview_hex"] = hexPreview(e.bytes, previewBytes);
    j["digest"] = toHex(e.digest);
    j["running"] = toHex(e.running);
    Json parts = Json::array();
    for (const auto &p : e.parts)
      parts.push_back({{"label", p.label},
                       {"bytes_len", p.bytes.size()},
                       {"preview_hex", hexPreview(p.bytes, previewBytes)}});
    j["parts"] = std::move(parts);
    entries.push_back(std::move(j));
  }
  out["entries"] = std::move(entries);
  Json flags = Json::array();
  for (const auto &f : r.flags)
    flags.push_back({{"flag", f.flag},
                     {"source", flagSourceName(f.source)},
                     {"name", f.name},
                     {"included", f.included},
                     {"hashed_hex", toHex(f.hashed)}});
  out["flags"] = std::move(flags);
  out["computation"] = {{"producer", r.computation.producer},
                        {"live", r.computation.live}};
  out["compile_options"] = {{"changes", r.compileOptions.changes}};
  Json acc;
  acc["fallback"] = r.accelerator.fallback;
  if (r.accelerator.fingerprint) {
    char hex[17];
    std::snprintf(hex, sizeof hex, "%016llx",
                  static_cast<unsigned long long>(*r.accelerator.fingerprint));
    acc["fingerprint"] = hex;
  }
  acc["provenance"] = r.accelerator.provenance;
  acc["stand_in"] = r.accelerator.standIn;
  out["accelerator"] = std::move(acc);
  out["compression"] = r.compression;
  out["trace"] = r.trace;
  out["notes"] = r.notes;
  return out;
}

Json errorToJson(const Error &error) {
  Json out;
  out["error"] = {{"path", error.path}, {"message", error.message}};
  return out;
}

} // namespace cachekey
