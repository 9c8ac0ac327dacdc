//===- ExplainJson.cpp - Comparisons and their findings as JSON -----------===//
//
// comparisonToJson (Diff.h): the facts of a comparison, and in "findings"
// every detail, unhashed input and note as {"code", …fields, "text"}, so
// that a reader branches on codes and fields and shows the text, never
// reading the words. Codes are snake_case.
//
//===----------------------------------------------------------------------===//
#include "cachekey/Diff.h"
#include "cachekey/ModuleDiff.h"
#include "cachekey/Wording.h"

namespace cachekey {

namespace {

const char *entryChangeCode(EntryChange::Code c) {
  switch (c) {
#define ENTRY_CHANGE(Name, code)                                               \
  case EntryChange::Code::Name:                                                \
    return code;
#include "cachekey/EntryChanges.def"
  }
  return "entry_change";
}

const char *fieldKindName(FieldChange::Kind k) {
  using K = FieldChange::Kind;
  switch (k) {
  case K::Field: return "field";
  case K::EnvOverride: return "env_override";
  case K::EnvOverrideOrder: return "env_override_order";
  case K::DeviceAssignment: return "device_assignment";
  case K::Unreadable: return "unreadable";
  case K::BytesDiffer: return "bytes_differ";
  }
  return "field";
}

const char *messageName(ProtoMessage m) {
  switch (m) {
  case ProtoMessage::CompileOptions: return "compile_options";
  case ProtoMessage::ExecutableBuildOptions: return "executable_build_options";
  case ProtoMessage::DebugOptions: return "debug_options";
  }
  return "compile_options";
}

const char *flagKindName(FlagChange::Kind k) {
  switch (k) {
  case FlagChange::Kind::Replaced: return "replaced";
  case FlagChange::Kind::Added: return "added";
  case FlagChange::Kind::Removed: return "removed";
  case FlagChange::Kind::Regrouped: return "regrouped";
  case FlagChange::Kind::Repeated: return "repeated";
  }
  return "regrouped";
}

Json unhashedToJson(const UnhashedInput &u, const std::string &text) {
  using K = UnhashedInput::Kind;
  Json j;
  switch (u.kind) {
  case K::ExcludedFlag:
  case K::ExcludedFlagLogged:
    j["code"] = u.kind == K::ExcludedFlag ? "excluded_flag"
                                          : "excluded_flag_not_in_entry_5";
    j["flag"] = u.flag;
    j["added"] = u.added;
    break;
  case K::CompileOption: {
    bool dropped = u.field.kind == FieldChange::Kind::EnvOverride ||
                   u.field.kind == FieldChange::Kind::EnvOverrideOrder;
    j["code"] = dropped ? "dropped_compile_option" : "zeroed_compile_option";
    j["field"] = fieldChangeToJson(u.field);
    break;
  }
  }
  j["text"] = text;
  return j;
}

/// Each fact beside its words (`words[i]` for `facts[i]`).
template <typename T, typename F>
Json zipped(const std::vector<T> &facts, const std::vector<std::string> &words,
            F toJson) {
  Json out = Json::array();
  for (size_t i = 0; i < facts.size() && i < words.size(); ++i)
    out.push_back(toJson(facts[i], words[i]));
  return out;
}

Json findingsJson(const Comparison &c) {
  Json f;
  f["details"] = zipped(c.changes, comparisonDetailsText(c), entryChangeToJson);
  f["other_details"] =
      zipped(c.otherChanges, comparisonOtherDetailsText(c), entryChangeToJson);
  f["unhashed"] = unhashedInputsToJson(c);
  Json notes = Json::array();
  for (const Note &n : c.notes)
    notes.push_back({{"code", noteCodeName(n.code)}, {"text", noteText(n)}});
  f["notes"] = std::move(notes);
  return f;
}

} // namespace

Json unhashedInputsToJson(const Comparison &c) {
  Json unhashed = Json::array();
  for (const UnhashedInput &u : c.unhashedInputs)
    unhashed.push_back(unhashedToJson(u, unhashedText(u)));
  return unhashed;
}

Json fieldChangeToJson(const FieldChange &c) {
  Json j;
  j["kind"] = fieldKindName(c.kind);
  j["message"] = messageName(c.message);
  j["number"] = c.number;
  j["name"] = c.name;
  j["before"] = c.before;
  j["after"] = c.after;
  j["occurrences_before"] = c.occurrencesBefore;
  j["occurrences_after"] = c.occurrencesAfter;
  j["hashed"] = c.hashed;
  return j;
}

Json flagChangeToJson(const FlagChange &c) {
  Json j;
  j["kind"] = flagKindName(c.kind);
  j["flag"] = c.flag;
  if (c.kind == FlagChange::Kind::Replaced)
    j["previous"] = c.previous;
  if (c.kind == FlagChange::Kind::Repeated) {
    j["times"] = c.times;
    j["previous_times"] = c.previousTimes;
  }
  // What XLA also set from the flag (entry 5 fields, entry 6 CPU client).
  if (!c.debugFields.empty())
    j["debug_options"] = c.debugFields;
  if (c.cpuClient)
    j["cpu_client"] = true;
  return j;
}

Json entryChangeToJson(const EntryChange &c, const std::string &text) {
  using C = EntryChange::Code;
  Json j;
  j["code"] = entryChangeCode(c.code);
  j["entry"] = c.entry;
  switch (c.code) {
  case C::ModuleFinding:
    if (c.module)
      j["finding"] = moduleFindingToJson(*c.module);
    break;
  case C::ModuleBytes:
    j["size_before"] = c.sizeBefore;
    j["size_after"] = c.sizeAfter;
    j["first_difference"] = c.firstDifference;
    break;
  case C::BackendHashedOneSide:
    j["hashed_side"] = c.firstSide ? "a" : "b";
    break;
  case C::Flag:
    j["flag"] = flagChangeToJson(c.flag);
    break;
  case C::CompileOption:
    j["field"] = fieldChangeToJson(c.field);
    break;
  case C::CpuFeaturesAdded:
  case C::CpuFeaturesRemoved:
    j["features"] = c.names;
    break;
  case C::DeviceCount:
  case C::DeviceIds:
    j["devices_before"] = c.sizeBefore;
    j["devices_after"] = c.sizeAfter;
    j["ids_before"] = c.namesBefore;
    j["ids_after"] = c.names;
    break;
  case C::DeviceKinds:
  case C::PlatformCollision:
    j["before"] = c.namesBefore;
    j["after"] = c.names;
    break;
  case C::BackendJoined:
  case C::CpuFeaturesRewritten:
  case C::AcceleratorBytes:
  case C::FlagsCollision:
  case C::ProgramChanged:
  case C::BackendOneSide:
  case C::FlagsNotLogged:
  case C::DevicesUnknown:
    break;
  // The log-only codes, with the members the logs' findings always had.
  case C::ArgTypes:
  case C::EnableX64:
    j["dtypes"] = c.subject;
    j["before"] = c.before;
    j["after"] = c.after;
    break;
  case C::JaxOwnProgram:
    j["program"] = c.subject;
    break;
  case C::EveryProgram:
    j["programs"] = c.sizeAfter;
    j["jax_own"] = c.jaxOwn;
    break;
  case C::ExcludedFlagHashed:
    j["flag"] = c.subject;
    break;
  case C::CompileOptionsUnknown:
    j["autotune_path_hashed"] = c.hashesAutotune;
    // Members at their default are left out (docs/json.md, issue 33).
    if (c.pathsLoggedSame)
      j["paths_logged_same"] = true;
    if (c.optionsLoggedSame)
      j["options_logged_same"] = true;
    if (!c.names.empty()) {
      j["settings"] = c.names;
      j["settings_release"] = c.subject;
    }
    break;
  case C::PgleOneSide:
    j["in"] = c.subject;
    break;
  case C::ArgShardings:
    j["arguments"] = c.subject; // 1-based positions, ", "-separated ("": all)
    j["before"] = c.before;
    j["after"] = c.after;
    break;
  case C::KernelCacheOneSide:
  case C::XlaCachesOneSide:
    j["in"] = c.subject;
    j["before"] = c.before;
    j["after"] = c.after;
    break;
  case C::DeviceKindFallback:
    j["in"] = c.subject;
    j["message"] = c.after;
    break;
  default:
    if (!c.subject.empty())
      j["name"] = c.subject;
    j["before"] = c.before;
    j["after"] = c.after;
    break;
  }
  if (c.code == C::Fingerprint || c.code == C::FingerprintToFallback ||
      c.code == C::FallbackToFingerprint) {
    j["stand_in_before"] = c.standInBefore;
    j["stand_in_after"] = c.standInAfter;
  }
  j["text"] = text;
  return j;
}

/// {"code", "entries", "debug_flags": [{"flag", "field", "number"}],
/// "cpu_flags", "text"}: why `withCause` moved with the cause.
Json causeLinkToJson(const Comparison &c) {
  using C = CauseLink::Code;
  const char *code = c.link.code == C::NewJaxlib  ? "new_jaxlib"
                     : c.link.code == C::XlaFlags ? "xla_flags"
                                                  : "none";
  Json debug = Json::array();
  for (const auto &n : c.link.debugFlags) {
    Json f{{"flag", n}};
    if (const DebugOptionField *field = findDebugOption(n)) {
      f["field"] = field->name;
      f["number"] = field->number;
    }
    debug.push_back(std::move(f));
  }
  return {{"code", code},
          {"entries", c.withCause},
          {"debug_flags", std::move(debug)},
          {"cpu_flags", c.link.cpuFlags},
          {"text", causeLinkText(c.cause, c.withCause, c.link)}};
}

Json comparisonToJson(const Comparison &c) {
  Json j;
  j["cause"] = c.cause;
  j["cause_name"] = c.cause ? kEntryNames[c.cause - 1] : "";
  j["with_cause"] = c.withCause;
  j["link"] = causeLinkToJson(c);
  j["also_changed"] = c.alsoChanged;
  j["consequences"] = c.consequences;
  // Each entry's role as {code (snake_case), text (its words)}.
  Json roles = Json::array();
  for (int i = 1; i <= kNumEntries; ++i)
    roles.push_back({{"code", entryRoleCode(c.role(i))}, {"text", entryRoleText(c.role(i))}});
  j["roles"] = std::move(roles);
  j["sentence"] = comparisonSentence(c);
  j["findings"] = findingsJson(c);
  if (c.advice != Advice::None)
    j["advice"] = {{"code", adviceName(c.advice)}, {"text", comparisonAdviceText(c)}};
  // The advice of the module finding that leads the cause's details.
  if (c.cause == 1 && !c.changes.empty() &&
      c.changes.front().code == EntryChange::Code::ModuleFinding &&
      c.changes.front().module)
    j["advice"]["module_finding"] =
        moduleFindingCodeName(c.changes.front().module->code);
  return j;
}

const char *adviceName(Advice advice) {
  switch (advice) {
  case Advice::None: return "none";
  case Advice::NothingToDo: return "nothing_to_do";
  case Advice::OnlyUnhashed: return "only_unhashed";
  case Advice::ModuleName: return "module_name";
  case Advice::Program: return "program";
  case Advice::JaxlibVersion: return "jaxlib_version";
  case Advice::Backend: return "backend";
  case Advice::Flags: return "flags";
  case Advice::CompileOptions: return "compile_options";
  case Advice::Accelerator: return "accelerator";
  case Advice::Compression: return "compression";
  case Advice::CustomHook: return "custom_hook";
  }
  return "none";
}

} // namespace cachekey
