//===- Diff.h - Which ingredient moved --------------------------*- C++ -*-===//
//
// Two keys are compared the way a reader compares two DEBUG traces: the first
// entry whose own digest differs is the cause (a moved jaxlib version comes
// first, RootCause.h); entries that one change moves together are one cause;
// every running digest after it differs only as a consequence. The engine also
// says what changed inside each moved entry ("flag --xla_gpu_autotune_level=1
// replaced …=0", "DebugOptions.xla_dump_to (field 109) … → …", "CPU
// icelake-server → znver3").
//
//===----------------------------------------------------------------------===//
#ifndef CACHEKEY_DIFF_H
#define CACHEKEY_DIFF_H

#include "cachekey/Key.h"
#include "cachekey/RootCause.h"

#include <memory>
#include <string>
#include <utility>
#include <tuple>
#include <vector>

namespace cachekey {

struct ModuleFinding; // ModuleDiff.h

/// One change among the kept flags (entry 4), as a fact; the words are
/// `flagChangeText` (Wording.h).
struct FlagChange {
  enum class Kind : uint8_t {
    Replaced,  // `flag` took the place of `previous` (the same name)
    Added,     // `flag` is on the second side only
    Removed,   // `flag` is on the first side only
    Regrouped, // the same kept flags, fed in another grouping
    Repeated,  // `flag` on both sides, given `times` times on the second
               // and `previousTimes` on the first (each copy is hashed)
  };
  FlagChange() = default;
  FlagChange(Kind k, std::string f, std::string p)
      : kind(k), flag(std::move(f)), previous(std::move(p)) {}

  Kind kind = Kind::Regrouped;
  std::string flag, previous;
  /// The DebugOptions fields XLA also set from `flag` (entry 5), on the side
  /// that has it, when that side's XLA_FLAGS were parsed (XlaFlags.h).
  std::vector<std::string> debugFields;
  /// Whether XLA's CPU client also changed with `flag` (entry 6: the device
  /// count or the target features).
  bool cpuClient = false;
  /// Kind::Repeated: how many times each side gives `flag` (both >= 1).
  int times = 0, previousTimes = 0;

  /// The change itself (what and how many times), not what XLA set from it.
  bool operator==(const FlagChange &o) const {
    return kind == o.kind && flag == o.flag && previous == o.previous && times == o.times &&
           previousTimes == o.previousTimes;
  }
  bool operator<(const FlagChange &o) const {
    return std::tie(kind, flag, previous, times, previousTimes) <
           std::tie(o.kind, o.flag, o.previous, o.times, o.previousTimes);
  }
};

/// An input that differs between the two sides but never reaches the hash,
/// so it explains nothing. The words are `unhashedText` (Wording.h).
struct UnhashedInput {
  enum class Kind : uint8_t {
    /// `flag` (whole, "--a=1") is on entry 4's exclusion list and does not
    /// reach entry 5 either; `added` on the second side, else removed.
    ExcludedFlag,
    /// The same, read from logs: the flag's DebugOptions field (if any) is
    /// not hashed by either side's release.
    ExcludedFlagLogged,
    /// A compile option the cache-key edits zero (a DebugOptions field) or
    /// drop (an env_option_overrides entry) before entry 5 is hashed.
    CompileOption,
  };
  Kind kind = Kind::ExcludedFlag;
  std::string flag;
  bool added = false;
  FieldChange field;
};

/// One thing that changed inside an entry between two computed keys, or
/// that two runs' logs show about a moved entry (the log-only codes of
/// EntryChanges.def), as a fact; the words are `entryChangeText`
/// (Wording.h). Values are raw (a jaxlib version, a flag, a CPU name),
/// except where the code's comment says.
struct EntryChange {
  enum class Code : uint8_t {
#define ENTRY_CHANGE(Name, code) Name,
#include "cachekey/EntryChanges.def"
  };
  Code code = Code::ModuleBytes;
  int entry = 0;
  std::string subject, before, after;
  std::vector<std::string> namesBefore, names;
  size_t sizeBefore = 0, sizeAfter = 0, firstDifference = 0;
  bool firstSide = false, standInBefore = false, standInAfter = false;
  FlagChange flag;
  FieldChange field;
  /// For Code::ModuleFinding: the finding (shared: comparisons are copied).
  std::shared_ptr<const ModuleFinding> module;
  /// For Code::CompileOptionsUnknown: a release of the two runs hashes the
  /// XLA autotuning cache path (jax 0.10.x and older do); both logs show
  /// the same autotuning cache path (so the directory did not move), and
  /// the same get_compile_options line (replicas, partitions, device
  /// assignment). `names` then holds the jax options that move entry 5 (and
  /// at most entry 1) in the table measured on jax `subject`
  /// (settingsMovingEntry; both empty without a table).
  bool hashesAutotune = false, pathsLoggedSame = false, optionsLoggedSame = false;
  /// For Code::EveryProgram: JAX's own programs (jit_broadcast_in_dim, …)
  /// moved too.
  bool jaxOwn = false;
};

/// What to do about a comparison of two keys: a code, worded by adviceText
/// (Wording.h). Chosen by compareResults from the root cause.
enum class Advice : uint8_t {
  None,           // not chosen (a comparison of logs, LogCompare.h)
  NothingToDo,    // equal keys: the cached executable is reused
  OnlyUnhashed,   // equal keys; what differs is not hashed
  ModuleName,     // only the sym_name prefix differs
  Program,        // entry 1 moved
  JaxlibVersion,  // entry 2 moved
  Backend,        // entry 3
  Flags,          // entry 4
  CompileOptions, // entry 5
  Accelerator,    // entry 6
  Compression,    // entry 7
  CustomHook,     // entry 8
};

/// snake_case name of `advice`, for JSON ("nothing_to_do", …).
const char *adviceName(Advice advice);

/// The role of an entry in a comparison (EntryRoles.def).
enum class EntryRole : uint8_t {
#define ENTRY_ROLE(Name, code, words) Name,
#include "cachekey/EntryRoles.def"
};

/// The role's snake_case code, for JSON: "cause", "with_cause", … .
const char *entryRoleCode(EntryRole role);

/// The role's words: "cause", "with cause", "also changed", … .
const char *entryRoleText(EntryRole role);

/// The outcome of comparing two keys or two traces.
struct Comparison {
  /// 1…8: the entry of the root cause (the first moved entry, except that a
  /// moved jaxlib version comes first); 0 when no own digest differs.
  int cause = 0;
  /// Entries whose own digest moved because of the same change (RootCause.h):
  /// entries 1, 5, 6 with a new jaxlib; entry 5 with a flag XLA also parses.
  std::vector<int> withCause;
  /// Why `withCause` moved (Code::None when it is empty); worded by
  /// causeLinkText (Wording.h).
  CauseLink link;
  /// Entries whose own digest moved for another, independent reason.
  std::vector<int> alsoChanged;
  /// Entries whose own digest is equal but whose running digest differs,
  /// because of an earlier moved entry.
  std::vector<int> consequences;
  /// What changed inside the cause entry, then inside each `withCause`
  /// entry, one item per change; when no entry moved (`cause` 0), why
  /// inputs that differ still give equal keys (a collision, captured module
  /// options, the sym_name alone). Worded by comparisonDetailsText.
  /// `otherChanges`: what changed inside the `alsoChanged` entries, worded
  /// by comparisonOtherDetailsText. Both are filled when the comparison is
  /// of two computed keys (compareResults); empty for logs, whose facts
  /// (the log-only codes) are LogComparison::findings (LogCompare.h).
  std::vector<EntryChange> changes, otherChanges;
  /// Inputs that differ but are not hashed (excluded flags, zeroed
  /// DebugOptions fields), so they explain nothing (unhashedText).
  std::vector<UnhashedInput> unhashedInputs;
  /// Caveats of either side, once each (live MLIR bytes, stand-in
  /// fingerprints), worded by noteText (Key.h).
  std::vector<Note> notes;
  /// The profiles the two keys follow; when they differ the sentence says
  /// so first (comparisonSentence).
  Profile profileBefore = kNewestProfile, profileAfter = kNewestProfile;
  /// What to do, as a code (worded by comparisonAdviceText).
  Advice advice = Advice::None;

  /// The role of entry `index` (1…8).
  EntryRole role(int index) const;
};

/// Fills `cause`, `withCause`, `link`, `alsoChanged` and
/// `consequences` from which entries' own (`own[i]`) and running
/// (`running[i]`) digests differ, entry i + 1, grouping moved entries by
/// `evidence` (RootCause.h).
void classifyEntries(Comparison &c, const std::array<bool, kNumEntries> &own,
                     const std::array<bool, kNumEntries> &running,
                     const ChangeEvidence &evidence = {});

/// "entry 5 (compile_options)" for index 5.
std::string entryLabel(int index);

/// Compares two computed keys entry by entry, with details for every entry
/// that changed (the cause's first, then the entries moved with it, then the
/// others), and the differing inputs that are not hashed.
Comparison compareResults(const KeyResult &before, const KeyResult &after);

/// What changed inside entry `index` (1…8) between two results, as facts;
/// never empty for an entry whose bytes differ.
std::vector<EntryChange> entryChanges(const KeyResult &before,
                                      const KeyResult &after, int index);

/// entryChanges as lines (entryChangeText).
std::vector<std::string> describeEntryChange(const KeyResult &before,
                                             const KeyResult &after, int index);

/// The changes among the kept flags of two flag lists (among the excluded
/// ones with `excluded`): replacements (same name) first in the order of
/// the added flags, then additions, then removals; one Regrouped when there
/// is none. Never empty.
std::vector<FlagChange> flagChanges(const std::vector<LoggedFlag> &before,
                                    const std::vector<LoggedFlag> &after,
                                    bool excluded = false);

/// The flag-level change between two sets of collected flags, e.g.
/// "flag --a=1 replaced --a=0", "added flag --b", "removed flag --c"
/// (flagChangeText over flagChanges).
std::vector<std::string> describeFlagChange(const std::vector<LoggedFlag> &before,
                                            const std::vector<LoggedFlag> &after,
                                            bool excluded = false);

/// The names (no dashes, no value) of the kept and of the excluded flags
/// that differ between two flag lists, for ChangeEvidence.
void changedFlagNames(const std::vector<LoggedFlag> &before,
                      const std::vector<LoggedFlag> &after,
                      std::vector<std::string> &kept,
                      std::vector<std::string> &excluded);

/// What changed in entry 6's input, field by field: CPU model, triple,
/// features enabled on one side only, device count and ids, GPU topology
/// fields, device kinds; the fingerprints last, as detail.
std::vector<EntryChange> acceleratorChanges(const AcceleratorEntry &before,
                                            const AcceleratorEntry &after);

/// acceleratorChanges as lines (entryChangeText).
std::vector<std::string> describeAcceleratorChange(const AcceleratorEntry &before,
                                                   const AcceleratorEntry &after);

/// {"cause", "cause_name", "with_cause", "link": {"code", "entries",
/// "debug_flags", "cpu_flags", "text"}, "also_changed", "consequences",
/// "roles": [8 × {"code" ("cause", "with_cause", "also_changed",
/// "consequence", "same"), "text"}], "sentence" (comparisonSentence),
/// "findings", "advice"?: {"code", "text" (comparisonAdviceText)}}. "findings" holds what changed: {"details":
/// [EntryChange], "other_details": [EntryChange], "unhashed":
/// [UnhashedInput], "notes": [{"code", "text"}]}, every object {"code", …its
/// fields, "text"}, in the order the CLI prints the texts
/// (explain/ExplainJson.cpp). No list of words stands beside the facts.
Json comparisonToJson(const Comparison &c);

/// comparisonToJson's "link": {"code", "entries", "debug_flags", "cpu_flags",
/// "text"}, why the entries "with_cause" moved with the cause.
Json causeLinkToJson(const Comparison &c);

/// comparisonToJson's "findings"."unhashed": [{"code", …fields, "text"}],
/// one per UnhashedInput. A log comparison's JSON (LogCompare.h) keeps it
/// beside findings of its own.
Json unhashedInputsToJson(const Comparison &c);

/// An EntryChange as {"code", "entry", …fields, "text"}; `text` is the
/// detail line it stands behind.
Json entryChangeToJson(const EntryChange &change, const std::string &text);

/// A FieldChange as {"kind", "message", "number", "name", "before",
/// "after", "occurrences_before", "occurrences_after", "hashed"}.
Json fieldChangeToJson(const FieldChange &change);

/// A FlagChange as {"kind", "flag", "previous"?}.
Json flagChangeToJson(const FlagChange &change);

} // namespace cachekey

#endif // CACHEKEY_DIFF_H
