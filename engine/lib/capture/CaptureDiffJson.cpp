//===- CaptureDiffJson.cpp - `cachekey diff DIR DIR --json` ----------------===//
//
// A CaptureComparison as JSON: each finding as {code, …fields, text}, the
// text from CaptureDiffWording.cpp.
//
//===----------------------------------------------------------------------===//
#include "cachekey/CaptureDiff.h"

namespace cachekey {

namespace {

Json alsoFindingToJson(const AlsoFinding &f) {
  using C = AlsoFinding::Code;
  std::string text = alsoFindingText(f);
  switch (f.code) {
  case C::EntryChange:
  case C::Entry1DigestOnly:
    return entryChangeToJson(f.change, text);
  case C::ExcludedFlagChange:
    return {{"code", "excluded_flag_change"}, {"entry", f.entry},
            {"flag", flagChangeToJson(f.flag)}, {"text", text}};
  case C::JaxSetting:
    return {{"code", "jax_setting"}, {"setting", f.setting},
            {"before", f.before}, {"after", f.after}, {"text", text}};
  }
  return {};
}

/// One line of the module text diff as a fact: {"op"} with the line's own
/// text in "line" (context, del, add: the line without its sign), or the
/// fields of the others (file_a, file_b, hunk, cut, too_large) with their
/// printed "text".
Json diffLineToJson(const DiffLine &l) {
  using Op = DiffLine::Op;
  switch (l.op) {
  case Op::Context:
    return {{"op", "context"}, {"line", l.text}};
  case Op::Del:
    return {{"op", "del"}, {"line", l.text}};
  case Op::Add:
    return {{"op", "add"}, {"line", l.text}};
  case Op::FileA:
  case Op::FileB:
    return {{"op", l.op == Op::FileA ? "file_a" : "file_b"},
            {"file", l.text},
            {"text", diffLineText(l)}};
  case Op::Hunk:
    return {{"op", "hunk"},
            {"first_a", l.firstA},
            {"count_a", l.countA},
            {"first_b", l.firstB},
            {"count_b", l.countB},
            {"text", diffLineText(l)}};
  case Op::Cut:
    return {{"op", "cut"}, {"more_lines", l.more}, {"text", diffLineText(l)}};
  case Op::TooLarge:
    return {{"op", "too_large"},
            {"max_edits", l.more},
            {"lines_a", l.countA},
            {"lines_b", l.countB},
            {"text", diffLineText(l)}};
  }
  return {};
}

Json moduleTextToJson(const ModuleTextDiff &d) {
  using C = ModuleTextDiff::Code;
  const char *code = d.code == C::SameText      ? "same_text"
                     : d.code == C::NotCaptured ? "not_captured"
                     : d.code == C::Unreadable  ? "unreadable"
                     : d.code == C::Diff        ? "diff"
                                                : "none";
  Json j{{"code", code}, {"text", moduleTextDiffText(d)}};
  if (d.code == C::None)
    return j;
  j["sha256_a"] = d.sha256A;
  j["sha256_b"] = d.sha256B;
  j["captured_a"] = d.capturedA;
  j["captured_b"] = d.capturedB;
  if (d.code == C::Diff) {
    Json lines = Json::array();
    for (const DiffLine &l : d.diff)
      lines.push_back(diffLineToJson(l));
    j["lines"] = std::move(lines);
  }
  return j;
}

} // namespace

Json captureComparisonToJson(const CaptureComparison &c) {
  Json j;
  j["paired"] = c.paired;
  j["same_key"] = c.sameKey;
  Json diffs = Json::array();
  for (const ProgramDifference &d : c.differing) {
    Json x;
    x["program"] = d.program;
    x["occurrence"] = d.occurrence;
    x["occurrence_b"] = d.occurrenceB;
    x["file_a"] = d.fileA;
    x["file_b"] = d.fileB;
    x["key_a"] = d.keyA;
    x["key_b"] = d.keyB;
    x["outcome_a"] = d.outcomeA;
    x["outcome_b"] = d.outcomeB;
    x["comparison"] = comparisonToJson(d.comparison);
    // The advice names the recorded JAX options that moved (their codes).
    if (auto moved = d.adviceSettings(); !moved.empty()) {
      Json names = Json::array();
      for (const AlsoFinding *f : moved)
        names.push_back(f->setting);
      x["comparison"]["advice"]["text"] = programAdviceText(d);
      x["comparison"]["advice"]["jax_settings"] = std::move(names);
    }
    Json findings = Json::array();
    for (const auto &f : d.also)
      findings.push_back(alsoFindingToJson(f));
    x["also_findings"] = std::move(findings);
    x["text_diff"] = moduleTextDiffText(d.textDiff);
    x["module_text"] = moduleTextToJson(d.textDiff);
    if (d.genericError)
      x["generic_text_error"] = {
          {"code", "generic_text_not_diffed"},
          {"error", errorToJson(*d.genericError)["error"]},
          {"text", genericErrorText(*d.genericError)}};
    diffs.push_back(std::move(x));
  }
  j["differing"] = std::move(diffs);
  for (auto [key, list] : {std::pair{"only_a", &c.onlyA}, {"only_b", &c.onlyB}}) {
    Json arr = Json::array();
    for (const auto &u : *list)
      arr.push_back({{"program", u.program}, {"occurrence", u.occurrence},
                     {"file", u.file}});
    j[key] = std::move(arr);
  }
  Json unreadable = Json::array();
  for (const auto &u : c.unreadable)
    unreadable.push_back({{"code", "program_unreadable"},
                          {"side", u.side},
                          {"program", u.program},
                          {"occurrence", u.occurrence},
                          {"file", u.file},
                          {"error", errorToJson(u.error.cause ? *u.error.cause : u.error)["error"]},
                          {"text", unreadableProgramText(u)}});
  j["unreadable"] = std::move(unreadable);
  Json notes = Json::array();
  for (const auto &n : c.notes)
    notes.push_back({{"code", "capture_not_reproduced"}, {"side", n.side},
                     {"file", n.file}, {"text", captureNoteText(n)}});
  j["notes"] = std::move(notes);
  j["summary"] = {{"code", "capture_summary"},
                  {"paired", c.paired},
                  {"same_key", c.sameKey},
                  {"same_key_elsewhere", c.sameKeyElsewhere},
                  {"differing", c.differing.size()},
                  {"only_a", c.onlyA.size()},
                  {"only_b", c.onlyB.size()},
                  {"unreadable", c.unreadable.size()},
                  {"text", captureSummaryText(c)}};
  return j;
}

} // namespace cachekey
