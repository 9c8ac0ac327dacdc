//===- Key.cpp - The cache key, entry by entry ----------------------------===//
#include "cachekey/Key.h"

#include "cachekey/CpuMaxIsa.h"
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

namespace {

/// A note of `code` naming `subject` and, where its words say one, the
/// release `release` (Note, Key.h).
Note note(NoteCode code, std::string subject, std::string release = "") {
  Note n;
  n.code = code;
  n.subject = std::move(subject);
  n.release = std::move(release);
  return n;
}

/// The target XLA builds under ceiling `to` on the host whose target under
/// ceiling `from` is `captured` (CpuMaxIsa.h), or nullopt when the capture
/// cannot say: its topology lists machine attributes instead of a target, or
/// `from` turned host features off (the capture's CPU is the ceiling's own
/// name) and `to` is not a lower ceiling that turns more off. A value XLA
/// does not know applies no ceiling, as in XLA.
std::optional<CpuTarget> targetUnderCeiling(const CpuTopology &captured,
                                            const std::optional<std::string> &from,
                                            const std::optional<std::string> &to,
                                            CpuIsaRule rule) {
  if (captured.machineAttributes)
    return std::nullopt;
  const std::optional<CpuIsa> was = cpuIsaFromFlag(from.value_or(""), rule);
  const std::optional<CpuIsa> is = cpuIsaFromFlag(to.value_or(""), rule);
  const CpuTarget seen{captured.cpu, captured.features};
  if (was == is)
    return seen;
  // Under `was`, a host that lost no feature keeps its own name: the
  // captured target is then the host's.
  if (!was || captured.cpu != cpuIsaTargetCpu(*was))
    return cpuTargetUnder(seen, is, rule);
  // Features `was` turned off are off in the capture, and a lower ceiling
  // turns them off too; when it turns off more of what is left, XLA names
  // its CPU whatever the host was.
  if (is && *is < *was) {
    CpuTarget lower = cpuTargetUnder(seen, is, rule);
    if (lower.turnedOff)
      return lower;
  }
  return std::nullopt;
}

/// The scenario as a process started under its own XLA_FLAGS would have
/// made it: XLA's parse of `compile_options.xla_flags` taken out of entry 5
/// and the CPU topology, that of `flags.XLA_FLAGS` put in (XlaFlags.h).
/// Does nothing unless the scenario says which flags its proto was built
/// under. Errors: an unknown flag or a value XLA refuses, at its JSON path.
Expected<Scenario> applyXlaFlags(const Scenario &s, KeyResult &r) {
  if (!s.compileOptions.parsedXlaFlags)
    return s;
  const std::string &before = *s.compileOptions.parsedXlaFlags;
  const std::string now = s.flags.xlaFlags.value_or("");
  const XlaFlagTable *table = xlaFlagTable(s.jaxlibVersion);
  if (!table) {
    if (before != now)
      r.notes.push_back(note(NoteCode::XlaFlagsUnparsed, "", s.jaxlibVersion));
    return s;
  }
  auto was = parseXlaFlags(*table, before, "$.compile_options.xla_flags");
  if (!was)
    return was.takeError();
  auto is = parseXlaFlags(*table, now, "$.flags.XLA_FLAGS");
  if (!is)
    return is.takeError();
  Scenario out = s;
  auto proto = replaceXlaFlagEffects(s.compileOptions.proto, *table, *was, *is);
  if (!proto)
    return proto.takeError("$.compile_options.proto_b64");
  out.compileOptions.proto = std::move(*proto);
  for (const auto &kv : was->debugFields)
    if (!is->debugFields.count(kv.first))
      r.xlaFlagsReset.push_back(kv.first);
  if (auto *cpu = std::get_if<CpuTopology>(&out.accelerator)) {
    if (was->deviceCount != is->deviceCount) {
      const int64_t n = is->deviceCount.value_or(1);
      const int32_t process = cpu->devices.empty() ? 0 : cpu->devices[0].processIndex;
      cpu->devices.clear();
      for (int64_t i = 0; i < n && i < (1 << 20); ++i)
        cpu->devices.push_back({process, static_cast<int32_t>(i)});
      r.xlaFlagsMovedDevices = true;
    }
    if (was->maxIsa != is->maxIsa) {
      // XLA's ceiling rule applied to the captured target (CpuMaxIsa.h).
      if (auto target = targetUnderCeiling(*cpu, was->maxIsa, is->maxIsa, table->cpuIsaRule)) {
        r.xlaFlagsMovedTarget = target->cpu != cpu->cpu || target->features != cpu->features;
        cpu->cpu = std::move(target->cpu);
        cpu->features = std::move(target->features);
      } else {
        Note n = note(NoteCode::CpuTargetUnknown, cpu->cpu, table->jaxlib);
        n.detail = is->maxIsa.value_or("");
        n.captured = cpu->machineAttributes ? std::string() : was->maxIsa.value_or("");
        r.notes.push_back(std::move(n));
      }
    }
  }
  for (const auto &flag : is->unknownEffect)
    r.notes.push_back(note(NoteCode::XlaFlagEffectUnknown, flag, table->jaxlib));
  r.xlaFlags = std::move(*is);
  r.xlaFlagTable = table;
  return out;
}

} // namespace

Expected<KeyResult> computeKey(const Scenario &input) {
  KeyResult r;
  auto adjusted = applyXlaFlags(input, r);
  if (!adjusted)
    return adjusted.takeError();
  const Scenario &s = *adjusted;
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
    r.notes.push_back(note(NoteCode::LiveEntry1, r.computation.producer));

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
    r.notes.push_back(note(NoteCode::StandInFingerprint, r.accelerator.provenance));

  // 7. compression
  r.compression = compressionName(s.compression, s.profile);
  E[6].appendStripped("compression", r.compression);
  E[6].summary = "the compression algorithm's name";
  if (writesStdlibZstd(s.compression, s.profile)) {
    r.stdlibZstdPython = *s.compression.python;
    r.notes.push_back(note(NoteCode::StdlibZstd, *r.stdlibZstdPython));
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
    r.notes.push_back(unreadableKernelsNote(r));
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
  Json edits = Json::array();
  for (const CacheKeyEdit &e : r.compileOptions.changes) {
    Json x{{"code", cacheKeyEditCode(e.code)}, {"text", cacheKeyEditText(e)}};
    if (e.code != CacheKeyEdit::Code::Renumbered)
      x["name"] = e.name;
    if (e.code == CacheKeyEdit::Code::Zeroed) {
      x["number"] = e.number;
      x["zero"] = e.zero == CacheKeyEdit::Zero::NotWritten ? "not_written"
                  : e.zero == CacheKeyEdit::Zero::Added    ? "added"
                                                           : "replaced";
    }
    if (e.code != CacheKeyEdit::Code::Dropped) {
      x["before"] = e.before;
      x["after"] = e.after;
    }
    edits.push_back(std::move(x));
  }
  out["compile_options"] = {{"edits", std::move(edits)}};
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
  // Flags whose effect the engine cannot know (XlaFlags.h) make the key
  // not JAX's, as live MLIR does.
  Json flagCaveats = Json::array();
  for (const Note &n : r.notes)
    if (n.code == NoteCode::XlaFlagsUnparsed ||
        n.code == NoteCode::XlaFlagEffectUnknown ||
        n.code == NoteCode::CpuTargetUnknown)
      flagCaveats.push_back({{"code", noteCodeName(n.code)}, {"text", noteText(n)}});
  out["fidelity"] = {{"jax_key", !r.computation.live &&
                                     r.computation.unreadableKernels == 0 &&
                                     flagCaveats.empty()},
                     {"unreadable_kernels", r.computation.unreadableKernels}};
  if (r.computation.unreadableKernels > 0 &&
      profileSpec(r.profile).mosaic != MosaicRule::None)
    out["fidelity"]["text"] = noteText(unreadableKernelsNote(r));
  if (!flagCaveats.empty())
    out["fidelity"]["xla_flags"] = std::move(flagCaveats);
  if (r.xlaFlags) {
    // What XLA itself parsed from XLA_FLAGS: per flag, the DebugOptions
    // fields it set (entry 5) and whether it moved the CPU client (entry 6).
    Json parsed = Json::array();
    for (const ParsedXlaFlag &p : r.xlaFlags->flags) {
      Json fields = Json::array();
      for (const auto &kv : r.xlaFlags->setBy)
        if (std::find(kv.second.begin(), kv.second.end(), p.flag) != kv.second.end()) {
          const DebugOptionField *f = findDebugOption(kv.first);
          std::string name = p.rule && p.rule->number == kv.first && !p.rule->field.empty()
                                 ? p.rule->field
                                 : f ? f->name : "";
          fields.push_back({{"number", kv.first}, {"name", name}});
        }
      Json j = {{"flag", p.flag}, {"name", p.name}, {"debug_options", std::move(fields)}};
      j["entry6"] = (p.name == "xla_force_host_platform_device_count" &&
                     r.xlaFlagsMovedDevices) ||
                    (p.name == "xla_cpu_max_isa" && r.xlaFlagsMovedTarget);
      parsed.push_back(std::move(j));
    }
    out["xla_flags"] = {{"jaxlib", r.xlaFlagTable ? r.xlaFlagTable->jaxlib : ""},
                        {"parsed", std::move(parsed)},
                        {"reset", r.xlaFlagsReset},
                        {"moved_devices", r.xlaFlagsMovedDevices},
                        {"moved_target", r.xlaFlagsMovedTarget}};
  }
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
  // Each note as {code, text}: readers branch on the code (noteCodeName)
  // and show the text.
  Json notes = Json::array();
  for (const Note &n : r.notes)
    notes.push_back({{"code", noteCodeName(n.code)}, {"text", noteText(n)}});
  out["notes"] = std::move(notes);
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
  case NoteCode::SameLog: return "same_log";
  case NoteCode::PgleProbeKeys: return "pgle_probe_keys";
  case NoteCode::XlaFlagsUnparsed: return "xla_flags_unparsed";
  case NoteCode::XlaFlagEffectUnknown: return "xla_flag_effect_unknown";
  case NoteCode::CpuTargetUnknown: return "cpu_target_unknown";
  }
  return "note";
}

} // namespace cachekey
