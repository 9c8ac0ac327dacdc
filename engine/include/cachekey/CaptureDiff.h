//===- CaptureDiff.h - Why keys differ between two captured runs -*- C++ -*-===//
//
// `cachekey diff DIR_A DIR_B`: programs are paired by key first (a program
// of B whose key A also wrote is the same program, whatever its name or
// place: real JAX would hit on it), then the rest by name, then by order
// within a name (the second `jit_f` of A with the second `jit_f` of B). For
// every pair whose keys differ, the engine's comparison (Diff.h) names the
// cause at field level; entries that moved besides the cause get their own
// details (a moved entry 6 with CPU topologies says which of their fields
// changed, as a key diff does: acceleratorChanges); a moved entry 1 gets a
// unified diff of the module text. Captures that kept
// only digests are compared on JAX's digests.
//
//===----------------------------------------------------------------------===//
#ifndef CACHEKEY_CAPTUREDIFF_H
#define CACHEKEY_CAPTUREDIFF_H

#include "cachekey/Capture.h"
#include "cachekey/Diff.h"
#include "cachekey/TextDiff.h"

#include <string>
#include <vector>

namespace cachekey {

/// What a differing pair shows besides the comparison's own details, as a
/// fact; the words are alsoFindingText.
struct AlsoFinding {
  enum class Code : uint8_t {
    EntryChange,        // `change` inside `entry`, an entry that moved
                        // besides the cause
    Entry1DigestOnly,   // entry 1 moved in a capture that kept only its
                        // digest: `change.before` → `change.after` (short)
    ExcludedFlagChange, // `flag`: a flag on the exclusion list (entry 4)
    JaxSetting,         // a JAX option the captures recorded moved:
                        // `setting`, `before` → `after` (JSON values)
  };
  Code code = Code::EntryChange;
  int entry = 0;
  EntryChange change;
  FlagChange flag;
  std::string setting;
  Json before, after;
};

/// Why the module texts of a pair whose entry 1 moved do or do not diff.
struct ModuleTextDiff {
  enum class Code : uint8_t {
    None,        // entry 1 did not move
    SameText,    // the text without locations is the same (`sha256A`)
    NotCaptured, // a side kept no text (`capturedA`, `capturedB`)
    Unreadable,  // a text file could not be read: `error`
    Diff,        // `diff` holds the unified diff of the two texts
  };
  Code code = Code::None;
  std::string sha256A, sha256B; // of the texts, hex
  bool capturedA = true, capturedB = true;
  std::string nameA, nameB;     // the sides' labels ("A", "B")
  Error error;
  std::vector<DiffLine> diff;
};

/// One pair of programs whose keys differ.
struct ProgramDifference {
  std::string program;
  int occurrence = 1;  // A's occurrence of `program` (index.json)
  int occurrenceB = 1; // B's (differs when earlier ones paired by key)
  std::string fileA, fileB;
  std::string keyA, keyB;       // the keys real JAX computed
  std::string outcomeA, outcomeB;
  Comparison comparison;        // compareResults of the engine's results
  /// What moved besides the cause: each entry that moved besides it, the
  /// excluded flags, the recorded JAX options. (Entry 6's CPU topology
  /// fields are the comparison's own EntryChanges, acceleratorChanges.)
  std::vector<AlsoFinding> also;
  /// The module texts when entry 1 moved.
  ModuleTextDiff textDiff;
  /// Why the generic-form texts both sides kept gave no structural diff
  /// (a file that cannot be read or does not parse), when they did not.
  std::optional<Error> genericError;
  /// The recorded JAX options (`also`, JaxSetting) that the advice names,
  /// when the cause is entry 1 or 5: no entry hashes them, so the one that
  /// moved is what to set the same (jaxSettingsAdvice words it).
  std::vector<const AlsoFinding *> adviceSettings() const;
};

/// What to do when recorded JAX options moved and the cause is entry 1
/// (the program they lower) or entry 5 (jax_use_shardy_partitioner reaches
/// the compile options): set each the same in every run, with its values.
std::string jaxSettingsAdvice(const std::vector<const AlsoFinding *> &settings);

/// What to do about `d`: jaxSettingsAdvice when recorded JAX options moved
/// (`d.adviceSettings()`), else comparisonAdviceText(d.comparison)
/// (Wording.h).
std::string programAdviceText(const ProgramDifference &d);

/// A program present on one side only.
struct UnpairedProgram {
  std::string program;
  int occurrence = 1;
  std::string file;
};

/// A pair whose captured key the engine does not reproduce (its details may
/// be off): file `file` of side `side` ("A", "B").
struct CaptureNote {
  std::string side, file;
};

/// A program whose scenario file could not be read or its key computed (a
/// damaged or cut file, a sidecar that is missing or does not match): it
/// is left out, with `error` (the engine's code, path and message), and
/// every other program is compared. `side` is the folder's label (nameA
/// or nameB of compareCaptures).
struct UnreadableProgram {
  std::string side;
  std::string program;
  int occurrence = 1;
  std::string file;
  Error error;
};

struct CaptureComparison {
  size_t paired = 0;
  size_t sameKey = 0;
  /// Of `sameKey`, the pairs found by key at another place: another
  /// occurrence or another name (a run that compiled in another order).
  size_t sameKeyElsewhere = 0;
  std::vector<ProgramDifference> differing;
  std::vector<UnpairedProgram> onlyA, onlyB;
  std::vector<CaptureNote> notes;
  /// Programs left out because their files could not be read: a partial
  /// result, never a refusal of the whole comparison.
  std::vector<UnreadableProgram> unreadable;

  bool identical() const {
    return differing.empty() && onlyA.empty() && onlyB.empty() &&
           unreadable.empty();
  }
};

/// Compares two captures. `readA`/`readB` read the files of each directory;
/// `nameA`/`nameB` label them in the text diff ("A/0003-jit_f.mlir").
Expected<CaptureComparison> compareCaptures(const CaptureFileReader &readA,
                                            const CaptureFileReader &readB,
                                            const std::string &nameA = "A",
                                            const std::string &nameB = "B");

// The words (CaptureDiffWording.cpp) and the JSON (CaptureDiffJson.cpp).

/// "Not compared: jit_f #1 (B/0003-jit_f.json): $: malformed … JSON: …. The
/// other programs are compared."
std::string unreadableProgramText(const UnreadableProgram &program);

/// "the generic module texts could not be diffed (…), so what changed
/// inside the program is not named".
std::string genericErrorText(const Error &error);

/// An also-finding as a detail line, e.g. "entry 5 (compile_options):
/// DebugOptions.xla_a (field 12) 1 → 2", "a flag JAX leaves out of the key
/// (entry 4 does not hash it): added flag --xla_dump_to=/tmp".
std::string alsoFindingText(const AlsoFinding &finding);

/// "A/0003-jit_f.json: the engine does not reproduce this captured key; the
/// details below may be off".
std::string captureNoteText(const CaptureNote &note);

/// The unified diff, or a sentence saying why there is none ("" for
/// Code::None); ends with a newline.
std::string moduleTextDiffText(const ModuleTextDiff &diff);

/// The summary sentence: "N programs paired: X with the same key (K of
/// them found by key in another order), Y with different keys; A only in
/// A, B only in B."
std::string captureSummaryText(const CaptureComparison &c);

/// The comparison as text for a terminal: one block per differing pair, the
/// one-sided programs, then a summary line.
std::string captureComparisonText(const CaptureComparison &c);

/// The comparison as JSON: {"paired", "same_key", "differing": [{"program",
/// "occurrence", "file_a", "file_b", "key_a", "key_b", "outcome_a",
/// "outcome_b", "occurrence_b", "comparison", "also_findings": [{"code", "entry", …fields, "text"}],
/// "text_diff" (moduleTextDiffText), "module_text": {"code", "sha256_a",
/// "sha256_b", "captured_a", "captured_b", "text"}}], "only_a", "only_b",
/// "notes": [{"code", "side", "file", "text"}], "summary": {"code": "capture_summary",
/// "paired", "same_key", "same_key_elsewhere", "differing", "only_a",
/// "only_b", "text"}}.
Json captureComparisonToJson(const CaptureComparison &c);

} // namespace cachekey

#endif // CACHEKEY_CAPTUREDIFF_H
