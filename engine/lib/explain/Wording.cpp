//===- Wording.cpp - The words of the explanations ------------------------===//
#include "cachekey/Wording.h"
#include "cachekey/Json.h"
#include "cachekey/ModuleDiff.h"
#include "cachekey/PyText.h"

#include <algorithm>

namespace cachekey {

const char *entryRoleText(EntryRole role) {
  switch (role) {
#define ENTRY_ROLE(Name, code, words) case EntryRole::Name: return words;
#include "cachekey/EntryRoles.def"
  }
  return "same";
}

std::string entryLabel(int index) {
  return "entry " + std::to_string(index) + " (" + kEntryNames[index - 1] + ")";
}

namespace {

std::string rangeText(const std::vector<int> &xs) {
  if (xs.empty())
    return "";
  bool contiguous = true;
  for (size_t i = 1; i < xs.size(); ++i)
    contiguous = contiguous && xs[i] == xs[i - 1] + 1;
  if (xs.size() == 1)
    return "entry " + std::to_string(xs[0]);
  if (contiguous)
    return "entries " + std::to_string(xs.front()) + "\u2013" +
           std::to_string(xs.back());
  std::string s = "entries ";
  for (size_t i = 0; i < xs.size(); ++i)
    s += (i ? ", " : "") + std::to_string(xs[i]);
  return s;
}

} // namespace


namespace {
/// The sentence's clauses for `details` (one per change in `changes`, in the
/// same order): more than three compile-options fields of one entry become
/// one clause, "entry 5: 20 DebugOptions fields (xla_a, xla_b, xla_c and 17
/// more)"; the details themselves keep every field, one line each.
std::vector<std::string> groupedClauses(const std::vector<std::string> &details,
                                        const std::vector<EntryChange> &changes,
                                        int cause, bool other) {
  if (changes.size() != details.size())
    return details;
  std::vector<std::string> out;
  std::vector<bool> done(details.size(), false);
  for (size_t i = 0; i < details.size(); ++i) {
    if (done[i])
      continue;
    const EntryChange &ch = changes[i];
    if (ch.code != EntryChange::Code::CompileOption) {
      out.push_back(details[i]);
      continue;
    }
    std::vector<size_t> same;
    for (size_t j = i; j < details.size(); ++j)
      if (!done[j] && changes[j].code == EntryChange::Code::CompileOption &&
          changes[j].entry == ch.entry)
        same.push_back(j);
    if (same.size() <= 3) {
      out.push_back(details[i]);
      continue;
    }
    bool allDebug = true;
    std::vector<std::string> names;
    for (size_t j : same) {
      done[j] = true;
      const FieldChange &f = changes[j].field;
      allDebug = allDebug && f.kind == FieldChange::Kind::Field &&
                 f.message == ProtoMessage::DebugOptions;
      names.push_back(f.kind == FieldChange::Kind::Field ? f.name : fieldChangeLabel(f));
    }
    // As comparisonDetailsText words the details: another moved ingredient's start
    // with its label, an entry moved with the cause's with "entry N: ".
    std::string prefix = other ? entryLabel(ch.entry) + ": "
                         : ch.entry != cause ? "entry " + std::to_string(ch.entry) + ": "
                                             : "";
    out.push_back(prefix + plural(same.size(), allDebug ? "DebugOptions field" : "compile-options field",
                                  allDebug ? "DebugOptions fields" : "compile-options fields") +
                  " (" + nameList(names, 3) + ")");
  }
  return out;
}
} // namespace

std::string comparisonSentence(const Comparison &c,
                               const std::vector<std::string> &details,
                               const std::vector<std::string> &otherDetails) {
  std::string s;
  if (c.cause == 0) {
    s = "Nothing moved: every entry's own digest is the same, so the "
        "hashes are equal.";
  } else {
    s = "The cause is " + entryLabel(c.cause);
    if (!details.empty()) {
      s += ": ";
      auto clauses = groupedClauses(details, c.changes, c.cause, false);
      for (size_t i = 0; i < clauses.size() && i < 4; ++i)
        s += (i ? "; " : "") + clauses[i];
      if (clauses.size() > 4)
        s += "; and " + std::to_string(clauses.size() - 4) + " more";
    }
    s += ".";
    if (c.link.code != CauseLink::Code::None)
      s += " " + causeLinkText(c.cause, c.withCause, c.link);
    if (!c.consequences.empty())
      s += " " + capitalised(rangeText(c.consequences)) +
           (c.consequences.size() == 1
                ? " differs only as a consequence: its own digest is "
                  "unchanged, but the running digest carries the change."
                : " differ only as a consequence: their own digests are "
                  "unchanged, but the running digest carries the change.");
    if (!c.alsoChanged.empty()) {
      // Each other detail names its entry ("entry 5 (compile_options): …").
      s += " Another ingredient moved too: ";
      if (otherDetails.empty())
        for (size_t i = 0; i < c.alsoChanged.size(); ++i)
          s += (i ? ", " : "") + entryLabel(c.alsoChanged[i]);
      auto others = groupedClauses(otherDetails, c.otherChanges, c.cause, true);
      for (size_t i = 0; i < others.size() && i < 4; ++i)
        s += (i ? "; " : "") + others[i];
      if (others.size() > 4)
        s += "; and " + std::to_string(others.size() - 4) + " more";
      s += ".";
    }
  }
  const auto &unhashed = c.unhashedInputs;
  if (!unhashed.empty()) {
    s += " Not hashed, so not a cause: ";
    for (size_t i = 0; i < unhashed.size() && i < 4; ++i)
      s += (i ? "; " : "") + unhashedText(unhashed[i]);
    if (unhashed.size() > 4)
      s += "; and " + std::to_string(unhashed.size() - 4) + " more";
    s += ".";
  }
  // No entry moved: why inputs that differ still give equal keys.
  if (c.cause == 0 && !c.changes.empty()) {
    s += " But:";
    for (const auto &ch : c.changes)
      s += " " + entryChangeText(ch) + ".";
  }
  if (c.profileBefore != c.profileAfter)
    s = std::string("The profile changed (") + profileName(c.profileBefore) +
        " \u2192 " + profileName(c.profileAfter) +
        "): the two keys follow different versions of cache_key.py. " + s;
  return s;
}

std::string comparisonSentence(const Comparison &c) {
  return comparisonSentence(c, comparisonDetailsText(c),
                            comparisonOtherDetailsText(c));
}

std::vector<std::string> comparisonDetailsText(const Comparison &c) {
  std::vector<std::string> out;
  out.reserve(c.changes.size());
  for (const auto &ch : c.changes)
    out.push_back(c.cause != 0 && ch.entry != c.cause
                      ? "entry " + std::to_string(ch.entry) + ": " + entryChangeText(ch)
                      : entryChangeText(ch));
  return out;
}

std::vector<std::string> comparisonOtherDetailsText(const Comparison &c) {
  std::vector<std::string> out;
  out.reserve(c.otherChanges.size());
  for (const auto &ch : c.otherChanges)
    out.push_back(entryLabel(ch.entry) + ": " + entryChangeText(ch));
  return out;
}

std::string comparisonAdviceText(const Comparison &c) {
  // A moved module whose structural diff names the change: its advice.
  if (c.cause == 1 && !c.changes.empty() &&
      c.changes.front().code == EntryChange::Code::ModuleFinding &&
      c.changes.front().module)
    return moduleFindingAdvice(*c.changes.front().module);
  return adviceText(c.advice);
}

std::string debugFieldLabel(const std::string &name) {
  const DebugOptionField *field = findDebugOption(name);
  if (!field)
    return "";
  return "DebugOptions." + field->name + " (field " +
         std::to_string(field->number) + ")";
}

namespace {
/// "entry 5" / "entries 1, 5 and 6".
std::string entryList(const std::vector<int> &xs) {
  std::vector<std::string> names;
  for (int x : xs)
    names.push_back(std::to_string(x));
  return agree(xs.size(), "entry ", "entries ") + nameList(names, names.size());
}

/// "--a", "--b" for bare flag names, with `into` " into DebugOptions.a (field N)".
std::vector<std::string> dashed(const std::vector<std::string> &names, bool into) {
  std::vector<std::string> out;
  for (const auto &n : names)
    out.push_back("--" + n + (into ? " into " + debugFieldLabel(n) : ""));
  return out;
}
} // namespace

std::string causeLinkText(int cause, const std::vector<int> &withCause,
                          const CauseLink &link) {
  using C = CauseLink::Code;
  switch (link.code) {
  case C::None:
    return "";
  case C::NewJaxlib:
    return "A new jaxlib lowers the program, fills the compile options and "
           "fingerprints the devices its own way, so " +
           entryList(withCause) + agree(withCause.size(), " is", " are") +
           " expected to move with it: there is nothing to look for in the "
           "program.";
  case C::XlaFlags: {
    std::vector<std::string> why;
    if (!link.debugFlags.empty()) {
      auto into = dashed(link.debugFlags, true);
      why.push_back("XLA also parses " + nameList(into, into.size()) +
                    ", which entry 5 hashes");
    }
    if (!link.cpuFlags.empty()) {
      auto cpu = dashed(link.cpuFlags, false);
      why.push_back(nameList(cpu, cpu.size()) +
                    " also changes the CPU target (model and features), which "
                    "the topology fingerprint of entry 6 covers");
    }
    std::string s;
    for (size_t i = 0; i < why.size(); ++i)
      s += (i ? "; " : "") + why[i];
    std::vector<int> seen{cause};
    seen.insert(seen.end(), withCause.begin(), withCause.end());
    return capitalised(std::move(s)) + ": one change, seen in " + entryList(seen) + ".";
  }
  }
  return "";
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
    return "env_option_overrides[" + dumpJson(Json(c.name)) + "]";
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

std::string fieldChangeText(const FieldChange &c, size_t max) {
  using K = FieldChange::Kind;
  // Each value is shortened on its own, so that both stay visible.
  auto value = [&](const std::string &v) { return max ? shortened(v, max) : v; };
  switch (c.kind) {
  case K::Field: {
    std::string line = fieldChangeLabel(c) + " " + value(c.before) + " → " + value(c.after);
    if (c.occurrencesBefore > 1 || c.occurrencesAfter > 1)
      line += " (repeated: " + std::to_string(c.occurrencesBefore) + " → " +
              std::to_string(c.occurrencesAfter) + " occurrences)";
    return line;
  }
  case K::EnvOverride:
  case K::DeviceAssignment:
    return fieldChangeLabel(c) + " " + value(c.before) + " → " + value(c.after);
  case K::EnvOverrideOrder:
    return "env_option_overrides entry order or duplicates differ";
  case K::Unreadable:
    return c.name + " differs (" + c.before + " → " + c.after + " bytes)";
  case K::BytesDiffer:
    return "CompileOptionsProto bytes differ";
  }
  return "";
}

namespace {

std::string flagChangeCore(const FlagChange &c);

/// "; XLA also set DebugOptions.a and DebugOptions.b (entry 5)" and/or the
/// CPU client (entry 6), for a flag XLA parsed; "" otherwise.
std::string xlaAlsoText(const FlagChange &c) {
  std::string s;
  if (!c.debugFields.empty()) {
    std::vector<std::string> names;
    for (const auto &f : c.debugFields)
      names.push_back("DebugOptions." + f);
    s += std::string(c.kind == FlagChange::Kind::Removed ? "; XLA had also set "
                                                         : "; XLA also set ") +
         nameList(names) + " (entry 5)";
  }
  if (c.cpuClient)
    s += std::string(c.kind == FlagChange::Kind::Removed ? "; it had also set "
                                                         : "; it also sets ") +
         "the CPU client's devices or target features (entry 6)";
  return s;
}

} // namespace

std::string flagChangeText(const FlagChange &c) {
  return flagChangeCore(c) + xlaAlsoText(c);
}

namespace {

std::string flagChangeCore(const FlagChange &c) {
  switch (c.kind) {
  case FlagChange::Kind::Replaced:
    return "flag " + shortened(c.flag) + " replaced " + shortened(c.previous);
  case FlagChange::Kind::Added:
    return "added flag " + shortened(c.flag);
  case FlagChange::Kind::Removed:
    return "removed flag " + shortened(c.flag);
  case FlagChange::Kind::Repeated:
    return "flag " + shortened(c.flag) + " given " + timesText(c.times) +
           " instead of " + timesText(c.previousTimes) + " (each copy is hashed)";
  case FlagChange::Kind::Regrouped:
    break;
  }
  return "the kept flags are the same but are fed in a different grouping";
}

} // namespace

std::vector<std::string> describeFlagChange(const std::vector<LoggedFlag> &a,
                                            const std::vector<LoggedFlag> &b,
                                            bool excluded) {
  std::vector<std::string> out;
  for (const auto &c : flagChanges(a, b, excluded))
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

std::string adviceText(Advice advice) {
  switch (advice) {
  case Advice::None:
    return "";
  case Advice::NothingToDo:
    return "Nothing to do: with these inputs a run reuses the cached executable.";
  case Advice::OnlyUnhashed:
    return "Nothing to do: what differs is not hashed, so a run still reuses the "
           "cached executable.";
  case Advice::ModuleName:
    return "Nothing to do in JAX: it reads the name prefix from the module itself, "
           "so two real runs cannot differ in the name alone.";
  case Advice::Program:
    return "The program differs (code, input shapes or dtypes, or a setting that "
           "changes every program, such as jax_enable_x64): a compile is expected. "
           "Keep shapes and settings the same across runs to reuse entries.";
  case Advice::JaxlibVersion:
    return "Another jaxlib makes every entry new: expect one cold run after an "
           "upgrade, and install the same jax and jaxlib wherever the cache is "
           "shared.";
  case Advice::Backend:
    return "Entries belong to one platform and platform_version (driver, libtpu or "
           "runtime build): share a cache directory only between machines that "
           "report the same ones.";
  case Advice::Flags:
    return "Give every run that shares the cache the same XLA_FLAGS (flags on the "
           "exclusion list, such as dump flags, may differ).";
  case Advice::CompileOptions:
    return "Compile with the same options in every run: jit's compiler_options, "
           "the XLA_FLAGS that XLA parses into DebugOptions, and the device "
           "assignment.";
  case Advice::Accelerator:
    return "Entries belong to one device topology: a run with another device "
           "count, chip or CPU model cannot reuse them. Keep one cache directory "
           "per kind of machine.";
  case Advice::Compression:
    return "Use the same Python and compression modules (zstandard or zlib) "
           "wherever the cache is shared: the algorithm's name is hashed.";
  case Advice::CustomHook:
    return "Make the custom hook return the same string for runs that should share "
           "entries.";
  }
  return "";
}

std::vector<std::string> describeCompileOptionsDiff(const Bytes &before,
                                                    const Bytes &after) {
  std::vector<std::string> out;
  for (const auto &c : compileOptionsChanges(before, after))
    out.push_back(fieldChangeText(c));
  return out;
}

} // namespace cachekey
