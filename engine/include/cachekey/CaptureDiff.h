//===- CaptureDiff.h - Why keys differ between two captured runs -*- C++ -*-===//
//
// `cachekey diff DIR_A DIR_B`: programs are paired by key first (a program
// of B whose key A also wrote is the same program, whatever its name or
// place: real JAX would hit on it), then the rest by name, then by order
// within a name (the second `jit_f` of A with the second `jit_f` of B). For
// every pair whose keys differ, the engine's comparison (Diff.h) names the
// cause at field level; entries that moved besides the cause get their own
// details; a moved entry 6 with CPU topologies says what changed in them;
// a moved entry 1 gets a unified diff of the module text. Captures that kept
// only digests are compared on JAX's digests.
//
//===----------------------------------------------------------------------===//
#ifndef CACHEKEY_CAPTUREDIFF_H
#define CACHEKEY_CAPTUREDIFF_H

#include "cachekey/Capture.h"
#include "cachekey/Diff.h"

#include <string>
#include <vector>

namespace cachekey {

/// One pair of programs whose keys differ.
struct ProgramDifference {
  std::string program;
  int occurrence = 1;  // A's occurrence of `program` (index.json)
  int occurrenceB = 1; // B's (differs when earlier ones paired by key)
  std::string fileA, fileB;
  std::string keyA, keyB;       // the keys real JAX computed
  std::string outcomeA, outcomeB;
  Comparison comparison;        // compareResults of the engine's results
  /// "entry N (name): detail" for each entry that moved besides the cause.
  std::vector<std::string> alsoDetails;
  /// One {"code", "entry", …fields, "text"} beside each of `alsoDetails`:
  /// an EntryChange (entryChangeToJson), "entry1_digest_only",
  /// "excluded_flag_change" {"flag"} or "cpu_topology" (text only).
  std::vector<Json> alsoFindings;
  /// A unified diff of the module text when entry 1 moved, or why none.
  std::string textDiff;
};

/// A program present on one side only.
struct UnpairedProgram {
  std::string program;
  int occurrence = 1;
  std::string file;
};

struct CaptureComparison {
  size_t paired = 0;
  size_t sameKey = 0;
  /// Of `sameKey`, the pairs found by key at another place: another
  /// occurrence or another name (a run that compiled in another order).
  size_t sameKeyElsewhere = 0;
  std::vector<ProgramDifference> differing;
  std::vector<UnpairedProgram> onlyA, onlyB;
  /// Pairs whose captured key the engine does not reproduce (their details
  /// may be off): "0003-jit_f.json: …".
  std::vector<std::string> notes;

  bool identical() const {
    return differing.empty() && onlyA.empty() && onlyB.empty();
  }
};

/// Field-level changes of two CPU topologies: device count, CPU model,
/// features added and removed, target triple. Empty when they are equal.
std::vector<std::string> describeCpuTopologyChange(const CpuTopology &a,
                                                   const CpuTopology &b);

/// Compares two captures. `readA`/`readB` read the files of each directory;
/// `nameA`/`nameB` label them in the text diff ("A/0003-jit_f.mlir").
Expected<CaptureComparison> compareCaptures(const CaptureFileReader &readA,
                                            const CaptureFileReader &readB,
                                            const std::string &nameA = "A",
                                            const std::string &nameB = "B");

/// The summary sentence: "N programs paired: X with the same key (K of
/// them found by key in another order), Y with different keys; A only in
/// A, B only in B."
std::string captureSummaryText(const CaptureComparison &c);

/// The comparison as text for a terminal: one block per differing pair, the
/// one-sided programs, then a summary line.
std::string captureComparisonText(const CaptureComparison &c);

/// The comparison as JSON: {"paired", "same_key", "differing": [{"program",
/// "occurrence", "file_a", "file_b", "key_a", "key_b", "outcome_a",
/// "outcome_b", "occurrence_b", "comparison", "also_details",
/// "also_findings", "text_diff"}], "only_a", "only_b", "notes",
/// "note_findings": [{"code", "text"}], "summary": {"code":
/// "capture_summary", "paired", "same_key", "same_key_elsewhere",
/// "differing", "only_a", "only_b", "text"}}.
Json captureComparisonToJson(const CaptureComparison &c);

} // namespace cachekey

#endif // CACHEKEY_CAPTUREDIFF_H
