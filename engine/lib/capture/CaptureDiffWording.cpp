//===- CaptureDiffWording.cpp - The words of `cachekey diff DIR DIR` -------===//
//
// The one module that turns a CaptureComparison's facts (CaptureDiff.h) into
// English: the also-findings, the notes, why the module texts do not diff,
// the summary and the terminal text (what moved inside an entry is
// entryChangeText's, Wording.h). No code parses a sentence this writes.
//
//===----------------------------------------------------------------------===//
#include "cachekey/CaptureDiff.h"

#include "cachekey/PyText.h"
#include "cachekey/Wording.h"

#include <map>

namespace cachekey {

/// A recorded option's value as Python writes it: True, None, 'highest'.
std::string settingValueText(const Json &v) {
  if (v.is_boolean())
    return v.get<bool>() ? "True" : "False";
  if (v.is_null())
    return "None";
  if (v.is_string())
    return pyRepr(v.get<std::string>());
  return v.dump();
}

std::string alsoFindingText(const AlsoFinding &f) {
  using C = AlsoFinding::Code;
  switch (f.code) {
  case C::EntryChange:
    return entryLabel(f.entry) + ": " + entryChangeText(f.change);
  case C::Entry1DigestOnly:
    return entryLabel(1) + ": entry-1 SHA-256 " + f.change.before + " → " +
           f.change.after;
  case C::ExcludedFlagChange:
    return "a flag JAX leaves out of the key (entry 4 does not hash it): " +
           flagChangeText(f.flag);
  case C::JaxSetting:
    return "JAX option " + f.setting + " " + settingValueText(f.before) +
           " → " + settingValueText(f.after) +
           " (as the captures read it at this compile; no entry hashes it, "
           "but it changes the program it lowers)";
  }
  return "";
}

std::string programAdviceText(const ProgramDifference &d) {
  if (auto moved = d.adviceSettings(); !moved.empty())
    return jaxSettingsAdvice(moved);
  return comparisonAdviceText(d.comparison);
}

std::string jaxSettingsAdvice(const std::vector<const AlsoFinding *> &settings) {
  std::string s = "Set ";
  for (size_t i = 0; i < settings.size(); ++i) {
    const AlsoFinding &f = *settings[i];
    s += i == 0 ? "" : i + 1 == settings.size() ? " and " : ", ";
    s += f.setting + " (" + settingValueText(f.before) + " in A, " +
         settingValueText(f.after) + " in B)";
  }
  return s + " the same way in every run that shares the cache: no entry "
             "hashes " + agree(settings.size(), "it", "them") +
         ", but the program JAX lowers (and its compile options) " +
         "follow " + agree(settings.size(), "it", "them") + ".";
}

std::string captureNoteText(const CaptureNote &n) {
  return n.side + "/" + n.file +
         ": the engine does not reproduce this captured key; the details "
         "below may be off";
}

std::string moduleTextDiffText(const ModuleTextDiff &d) {
  using C = ModuleTextDiff::Code;
  switch (d.code) {
  case C::None:
    return "";
  case C::SameText:
    return "The module text without locations is the same on both sides (SHA-256 " +
           shortDigest(d.sha256A) +
           "): entry 1 moved through what that text does not show (source "
           "locations, when include_metadata is on; or another jaxlib's MLIR "
           "producer and bytecode version).\n";
  case C::NotCaptured:
    return std::string("The module text was not captured (--no-module-text) on ") +
           (!d.capturedA && !d.capturedB ? "either side"
            : !d.capturedA              ? "side " + d.nameA
                                        : "side " + d.nameB) +
           "; its SHA-256 moved " + shortDigest(d.sha256A) + " → " +
           shortDigest(d.sha256B) + ".\n";
  case C::Unreadable:
    return "The module text could not be read: " + d.error.str() + "\n";
  case C::Diff:
    return unifiedDiffText(d.diff);
  }
  return "";
}

std::string captureSummaryText(const CaptureComparison &c) {
  return std::to_string(c.paired) + " programs paired: " +
         std::to_string(c.sameKey) + " with the same key" +
         (c.sameKeyElsewhere
              ? " (" + std::to_string(c.sameKeyElsewhere) +
                    " of them found by key in another order)"
              : std::string()) +
         ", " + std::to_string(c.differing.size()) + " with different keys; " +
         std::to_string(c.onlyA.size()) + " only in A, " +
         std::to_string(c.onlyB.size()) + " only in B" +
         (c.unreadable.empty()
              ? std::string()
              : "; " + plural(c.unreadable.size(), "program file", "program files") +
                    " could not be read, so " +
                    agree(c.unreadable.size(), "its pair was", "their pairs were") +
                    " left out") +
         ".";
}

std::string genericErrorText(const Error &e) {
  return "the generic module texts could not be diffed (" + e.str() +
         "), so what changed inside the program is not named";
}

std::string unreadableProgramText(const UnreadableProgram &u) {
  return "Not compared: " + u.program + " #" + std::to_string(u.occurrence) +
         " (" + u.side + "/" + u.file + "): " +
         (u.error.cause ? u.error.cause->str() : u.error.str()) +
         ". The other programs are compared.";
}

std::string captureComparisonText(const CaptureComparison &c) {
  std::string out;
  auto outcome = [](const std::string &o) {
    return o.empty() ? std::string() : ", " + o;
  };
  for (const ProgramDifference &d : c.differing) {
    out += d.program + " #" + std::to_string(d.occurrence) +
           (d.occurrenceB != d.occurrence
                ? " (#" + std::to_string(d.occurrenceB) + " in B)"
                : std::string()) +
           ": the keys differ\n";
    out += "  " + comparisonSentence(d.comparison) + "\n";
    for (const auto &s : comparisonDetailsText(d.comparison))
      out += "  - " + s + "\n";
    for (const auto &f : d.also)
      out += "  - " + alsoFindingText(f) + "\n";
    out += "  A: " + d.keyA + "  (" + d.fileA + outcome(d.outcomeA) + ")\n";
    out += "  B: " + d.keyB + "  (" + d.fileB + outcome(d.outcomeB) + ")\n";
    for (const auto &n : d.comparison.notes)
      out += "  note: " + noteText(n) + "\n";
    if (d.genericError)
      out += "  note: " + genericErrorText(*d.genericError) + "\n";
    if (std::string advice = programAdviceText(d); !advice.empty())
      out += "  What to do: " + advice + "\n";
    std::string textDiff = moduleTextDiffText(d.textDiff);
    size_t start = 0;
    while (start < textDiff.size()) {
      size_t nl = textDiff.find('\n', start);
      if (nl == std::string::npos)
        nl = textDiff.size();
      out += "    " + textDiff.substr(start, nl - start) + "\n";
      start = nl + 1;
    }
    out += "\n";
  }
  for (const auto &u : c.onlyA)
    out += "Only in A: " + u.program + " #" + std::to_string(u.occurrence) +
           " (" + u.file + ")\n";
  for (const auto &u : c.onlyB)
    out += "Only in B: " + u.program + " #" + std::to_string(u.occurrence) +
           " (" + u.file + ")\n";
  for (const auto &u : c.unreadable)
    out += unreadableProgramText(u) + "\n";
  for (const auto &n : c.notes)
    out += "note: " + captureNoteText(n) + "\n";
  std::map<int, size_t> causes;
  for (const ProgramDifference &d : c.differing)
    ++causes[d.comparison.cause];
  for (const auto &[cause, count] : causes)
    out += "Cause " + (cause ? entryLabel(cause) : std::string("none")) +
           ": " + std::to_string(count) + " program" + agree(count, "", "s") +
           ".\n";
  out += captureSummaryText(c) + "\n";
  return out;
}

} // namespace cachekey
