//===- Wording.cpp - The words of the explanations ------------------------===//
#include "cachekey/Wording.h"

#include "../CompileOptionsDetail.h"

#include <algorithm>

namespace cachekey {

std::string plural(size_t n, const char *one, const char *many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

std::string nameList(const std::vector<std::string> &names, size_t max) {
  std::string s;
  size_t shown = std::min(names.size(), max);
  for (size_t i = 0; i < shown; ++i)
    s += (i == 0 ? "" : (i + 1 == shown && shown == names.size()) ? " and " : ", ") +
         names[i];
  if (names.size() > max)
    s += " and " + std::to_string(names.size() - max) + " more";
  return s;
}

std::string fieldChangeLabel(const FieldChange &c) {
  using K = FieldChange::Kind;
  switch (c.kind) {
  case K::Field: {
    const char *prefix = c.message == ProtoMessage::DebugOptions ? "DebugOptions."
                         : c.message == ProtoMessage::CompileOptions
                             ? "CompileOptionsProto."
                             : "ExecutableBuildOptionsProto.";
    return prefix + c.name + " (field " + std::to_string(c.number) + ")";
  }
  case K::EnvOverride:
    return "env_option_overrides[" + detail::jsonQuoted(c.name) + "]";
  case K::EnvOverrideOrder:
    return "env_option_overrides";
  case K::DeviceAssignment:
    return "device assignment";
  case K::Unreadable:
    return c.name;
  case K::BytesDiffer:
    return "CompileOptionsProto";
  }
  return "";
}

std::string fieldChangeText(const FieldChange &c) {
  using K = FieldChange::Kind;
  switch (c.kind) {
  case K::Field: {
    std::string line = fieldChangeLabel(c) + " " + c.before + " → " + c.after;
    if (c.occurrencesBefore > 1 || c.occurrencesAfter > 1)
      line += " (repeated: " + std::to_string(c.occurrencesBefore) + " → " +
              std::to_string(c.occurrencesAfter) + " occurrences)";
    return line;
  }
  case K::EnvOverride:
  case K::DeviceAssignment:
    return fieldChangeLabel(c) + " " + c.before + " → " + c.after;
  case K::EnvOverrideOrder:
    return "env_option_overrides entry order or duplicates differ";
  case K::Unreadable:
    return c.name + " differs (" + c.before + " → " + c.after + " bytes)";
  case K::BytesDiffer:
    return "CompileOptionsProto bytes differ";
  }
  return "";
}

std::string flagChangeText(const FlagChange &c) {
  switch (c.kind) {
  case FlagChange::Kind::Replaced:
    return "flag " + shortened(c.flag) + " replaced " + shortened(c.previous);
  case FlagChange::Kind::Added:
    return "added flag " + shortened(c.flag);
  case FlagChange::Kind::Removed:
    return "removed flag " + shortened(c.flag);
  case FlagChange::Kind::Regrouped:
    break;
  }
  return "the kept flags are the same but are fed in a different grouping";
}

std::vector<std::string> describeFlagChange(
    const std::vector<std::pair<bool, std::string>> &a,
    const std::vector<std::pair<bool, std::string>> &b) {
  std::vector<std::string> out;
  for (const auto &c : flagChanges(a, b))
    out.push_back(flagChangeText(c));
  return out;
}

std::string unhashedText(const UnhashedInput &u) {
  using K = UnhashedInput::Kind;
  switch (u.kind) {
  case K::ExcludedFlag:
  case K::ExcludedFlagLogged:
    return "flag " + shortened(u.flag) + (u.added ? " added" : " removed") +
           (u.kind == K::ExcludedFlag
                ? " (on the exclusion list, so entry 4 skips it)"
                : " (on the exclusion list, and not hashed in entry 5 either)");
  case K::CompileOption: {
    bool dropped = u.field.kind == FieldChange::Kind::EnvOverride ||
                   u.field.kind == FieldChange::Kind::EnvOverrideOrder;
    return shortened(fieldChangeText(u.field), 160) +
           (dropped ? " (dropped before entry 5 is hashed)"
                    : " (zeroed before entry 5 is hashed)");
  }
  }
  return "";
}

void addUnhashed(Comparison &c, UnhashedInput input) {
  c.unhashed.push_back(unhashedText(input));
  c.unhashedInputs.push_back(std::move(input));
}

std::vector<std::string> describeCompileOptionsDiff(const Bytes &before,
                                                    const Bytes &after) {
  std::vector<std::string> out;
  for (const auto &c : compileOptionsChanges(before, after))
    out.push_back(fieldChangeText(c));
  return out;
}

} // namespace cachekey
