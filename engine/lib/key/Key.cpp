//===- Key.cpp - The cache key, entry by entry ----------------------------===//
#include "cachekey/Key.h"

#include "cachekey/PyText.h"
#include "cachekey/Trace.h"

#include <algorithm>

namespace cachekey {

void EntryResult::appendStripped(std::string label, const std::string &input) {
  Bytes fed = hashStringBytes(input);
  bool stripped = fed != input;
  append(std::move(label), fed);
  if (stripped) {
    parts.back().stripped = true;
    parts.back().raw = input;
  }
}

std::string stdlibZstdNote(const std::string &python) {
  return "On Python " + python +
         " JAX compresses with the standard library's zstd but the key says "
         "\"zlib\": a process that really writes zlib computes the same key.";
}

std::string unreadableKernelsNote(const KeyResult &r) {
  const int n = r.computation.unreadableKernels;
  return "Not JAX's key: " + std::to_string(n) + " Mosaic kernel bod" +
         (n == 1 ? "y" : "ies") + " could not be read by " +
         r.computation.producer + " (" + r.computation.unreadableDetail +
         "). jax " + profileSpec(r.profile).id +
         " strips the locations inside kernels its own MLIR can read, so "
         "entry 1 here (and every running digest after it) can differ from "
         "JAX's.";
}

Expected<KeyResult> computeKey(const Scenario &s) {
  KeyResult r;
  r.profile = s.profile;
  auto &E = r.entries;
  const ProfileSpec &profile = profileSpec(s.profile);
  for (int i = 0; i < kNumEntries; ++i) {
    E[i].index = i + 1;
    E[i].name = kEntryNames[i];
    E[i].hashed = hashesEntry(s.profile, static_cast<EntryKind>(i + 1));
  }

  // 1. computation
  auto comp = computationEntry(s.module, s.profile);
  if (!comp)
    return comp.takeError();
  r.computation = std::move(*comp);
  r.symName = r.computation.symName;
  {
    static const char *callbacks[] = {"NO", "ALL", "CUSTOM_PARTITIONING"};
    r.moduleOptions =
        std::string("include_metadata=") +
        (s.module.includeMetadata ? "true" : "false") + ", ignore_callbacks=" +
        callbacks[static_cast<int>(s.module.ignoreCallbacks)] +
        ", ignore_custom_partitioning=" +
        (s.module.ignoreCustomPartitioning ? "true" : "false");
  }
  // Moved, not copied: entry-1 bytes may be hundreds of megabytes.
  E[0].parts.push_back({"MLIR bytecode", 0, r.computation.bytes.size(), false, {}});
  E[0].bytes = std::move(r.computation.bytes);
  r.computation.bytes.clear();
  E[0].summary = s.module.includeMetadata
                     ? "MLIR bytecode of the module as written, locations "
                       "included (include_metadata is on)"
                     : "MLIR bytecode of the module after strip-debuginfo "
                       "(locations removed)";
  if (r.computation.live)
    addNote(r, NoteCode::LiveEntry1, "Entry 1 was computed here by " + r.computation.producer +
                      "; jaxlib's MLIR is a different version, so its bytecode "
                      "(and every digest from entry 1 on) differs from what "
                      "jaxlib would feed.");

  // 2. jax_lib version: encoded, not stripped.
  E[1].append("jaxlib version", s.jaxlibVersion);
  E[1].summary = "the jaxlib version string, UTF-8, not stripped";

  // 3. backend version (0.6.0 and later)
  if (profile.hasBackendVersion) {
    E[2].appendStripped("platform", s.platform);
    E[2].appendStripped("platform_version", s.platformVersion);
    if (profile.hashesRuntimeType)
      E[2].appendStripped("runtime_type", s.runtimeType);
    E[2].summary = std::string(profile.hashesRuntimeType
                                   ? "platform, platform_version, then "
                                     "runtime_type"
                                   : "platform, then platform_version") +
                   ", each with ASCII whitespace stripped from both ends; no "
                   "separator";
  } else {
    E[2].summary = std::string("not hashed: jax ") + profile.id +
                   " and older have no backend version entry";
  }

  // 4. XLA flags
  r.flags = collectFlags(s.flags, s.profile);
  for (const auto &f : r.flags)
    if (f.included)
      E[3].append(f.flag, f.hashed);
  E[3].summary = "every kept flag in sorted order, each stripped; no "
                 "separator, so [\"ab\",\"c\"] and [\"a\",\"bc\"] feed the same "
                 "bytes";

  // 5. compile_options
  auto edited = applyStructuredEdits(s.compileOptions.proto, s.compileOptions.edits,
                                     profile.explicitZeroes);
  if (!edited)
    return edited.takeError();
  auto co = applyCacheKeyEdits(*edited, s.profile, s.platform);
  if (!co)
    return co.takeError("$.compile_options.proto_b64");
  r.compileOptions = std::move(*co);
  E[4].append("CompileOptionsProto", r.compileOptions.output);
  E[4].summary = "the serialized CompileOptionsProto after the cache-key "
                 "edits (debug fields zeroed, excluded overrides dropped" +
                 std::string(s.platform == "gpu"
                                 ? ", device assignment renumbered on gpu)"
                                 : ")");

  // 6. accelerator_config
  auto accelerator = acceleratorEntry(s);
  if (!accelerator)
    return accelerator.takeError();
  r.accelerator = std::move(*accelerator);
  for (auto &p : r.accelerator.parts)
    E[5].append(p.first, p.second);
  E[5].summary =
      r.accelerator.fallback
          ? (profile.fallback == FallbackRule::DeviceKinds
                 ? "the device_kind of every device, each stripped "
                   "(fallback: the runtime has no topology)"
                 : "the device_kind of every device, then platform, "
                   "platform_version and runtime_type, each stripped "
                   "(fallback: the runtime has no topology)")
      : profile.accelerator == AcceleratorRule::Serialize
          ? "the serialized topology proto (topology.serialize())"
          : "the topology fingerprint as 8 bytes, big-endian";
  if (r.accelerator.standIn)
    addNote(r, NoteCode::StandInFingerprint, "Entry 6 uses a stand-in topology fingerprint (not "
                      "measured on a TPU): " + r.accelerator.provenance);

  // 7. compression
  r.compression = compressionName(s.compression, s.profile);
  E[6].appendStripped("compression", r.compression);
  E[6].summary = "the compression algorithm's name";
  if (writesStdlibZstd(s.compression, s.profile)) {
    r.stdlibZstdPython = *s.compression.python;
    addNote(r, NoteCode::StdlibZstd, stdlibZstdNote(*r.stdlibZstdPython));
  }

  // 8. custom_hook
  E[7].appendStripped("custom_hook()", s.customHook);
  E[7].summary = "the string custom_hook() returns (JAX ships \"\")";

  Sha256 running;
  for (EntryResult &e : r.entries) {
    if (!e.hashed)
      continue;
    running.update(e.bytes);
    e.running = running.runningDigest();
    // Entry 1 starts from an empty hash, so its own digest is the running
    // one; computing it again would hash a possibly huge module twice.
    e.digest = e.index == 1 ? e.running : Sha256::of(e.bytes);
  }
  r.key = r.symName + "-" + toHex(r.entries[kNumEntries - 1].running);
  if (profile.mosaic != MosaicRule::None && r.computation.unreadableKernels > 0)
    addNote(r, NoteCode::UnreadableKernels, unreadableKernelsNote(r));
  r.trace = traceLines(r, s);
  return r;
}

Json resultToJson(const KeyResult &r, size_t previewBytes) {
  Json out;
  out["key"] = r.key;
  out["sym_name"] = r.symName;
  out["profile"] = profileName(r.profile);
  Json entries = Json::array();
  std::string carried; // the running digest before an entry JAX does not hash
  for (const auto &e : r.entries) {
    Json j;
    j["index"] = e.index;
    j["name"] = e.name;
    j["hashed"] = e.hashed;
    j["summary"] = e.summary;
    j["bytes_len"] = e.bytes.size();
    j["preview_hex"] = hexPreview(e.bytes, previewBytes);
    // An entry the release does not hash has no digest of its own, and the
    // running digest is the one before it, carried over: JAX computes no
    // value for it, so none is invented.
    j["digest"] = e.hashed ? toHex(e.digest) : "";
    j["running"] = e.hashed ? toHex(e.running) : carried;
    if (e.hashed)
      carried = toHex(e.running);
    Json parts = Json::array();
    for (size_t i = 0; i < e.parts.size(); ++i)
      parts.push_back({{"label", e.parts[i].label},
                       {"bytes_len", e.parts[i].size},
                       {"preview_hex", hexPreview(e.bytes.substr(
                                           e.parts[i].offset,
                                           std::min(e.parts[i].size, previewBytes + 1)),
                                       previewBytes)}});
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
                     {"hashed_hex", toHex(f.hashed)},
                     {"collected", f.collected},
                     {"log_line", flagLogLine(f)}});
  out["flags"] = std::move(flags);
  // The same flags per source, in collection order (before sorting).
  std::vector<const FlagStep *> order;
  for (const auto &f : r.flags)
    order.push_back(&f);
  std::sort(order.begin(), order.end(), [](const FlagStep *a, const FlagStep *b) {
    return a->collected < b->collected;
  });
  Json collected = Json::object();
  for (FlagSource src : {FlagSource::XlaFlags, FlagSource::LibtpuInitArgs,
                         FlagSource::Argv}) {
    Json list = Json::array();
    for (const FlagStep *f : order)
      if (f->source == src)
        list.push_back(f->flag);
    collected[flagSourceName(src)] = std::move(list);
  }
  out["collected"] = std::move(collected);
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
  out["fidelity"] = {{"jax_key", !r.computation.live &&
                                     r.computation.unreadableKernels == 0},
                     {"unreadable_kernels", r.computation.unreadableKernels}};
  if (r.computation.unreadableKernels > 0 &&
      profileSpec(r.profile).mosaic != MosaicRule::None)
    out["fidelity"]["text"] = unreadableKernelsNote(r);
  out["compression"] = r.compression;
  // What the process writes when it is not what the key names (Python 3.14).
  if (r.stdlibZstdPython)
    out["compression_writes"] = {{"code", "stdlib_zstd"},
                                 {"algorithm", "zstd"},
                                 {"python", *r.stdlibZstdPython},
                                 {"text", stdlibZstdNote(*r.stdlibZstdPython)}};
  Json trace = Json::array(), levels = Json::array();
  for (const TraceLine &t : r.trace) {
    trace.push_back(t.message);
    levels.push_back(traceLevelName(t.level));
  }
  out["trace"] = std::move(trace);
  out["trace_levels"] = std::move(levels);
  out["notes"] = r.notes;
  // What each note is about (noteCodeName), one per note, so that readers
  // branch on the code and show the text.
  Json codes = Json::array();
  for (NoteCode c : r.noteCodes)
    codes.push_back(noteCodeName(c));
  out["note_codes"] = std::move(codes);
  return out;
}

const char *noteCodeName(NoteCode code) {
  switch (code) {
  case NoteCode::LiveEntry1: return "live_entry1";
  case NoteCode::StandInFingerprint: return "stand_in_fingerprint";
  case NoteCode::StdlibZstd: return "stdlib_zstd";
  case NoteCode::UnreadableKernels: return "unreadable_kernels";
  case NoteCode::Entry1DigestOnly: return "entry1_digest_only";
  case NoteCode::IncompleteKey: return "incomplete_key";
  case NoteCode::UnreadableLine: return "unreadable_line";
  case NoteCode::MoreUnreadableLines: return "more_unreadable_lines";
  case NoteCode::LongLines: return "long_lines";
  case NoteCode::KeyErrors: return "key_errors";
  case NoteCode::CacheOff: return "cache_off";
  }
  return "note";
}

Json errorToJson(const Error &error) {
  Json e = {{"code", errorCodeName(error.code)},
            {"path", error.path},
            {"message", error.message}};
  if (!error.source.empty())
    e["source"] = error.source;
  if (!error.subject.empty())
    e["subject"] = error.subject;
  return Json{{"error", std::move(e)}};
}

} // namespace cachekey
