//===- Wording.h - The words of the explanations ----------------*- C++ -*-===//
//
// The analysis (Diff.h, CompileOptions.h, RootCause.h) returns facts: a
// code and its fields. This is the one module of the explain family that
// turns them into English, as clang's diagnostic tables and zstd's
// error_private.c are the only places with words. The grammar every
// sentence uses is in English.h, once. No code parses a sentence this
// writes.
//
//===----------------------------------------------------------------------===//
#ifndef CACHEKEY_WORDING_H
#define CACHEKEY_WORDING_H

#include "cachekey/CompileOptions.h"
#include "cachekey/Diff.h"
#include "cachekey/English.h"

#include <string>
#include <vector>

namespace cachekey {

/// "DebugOptions.<name> (field N)" for a flag (bare name) XLA parses into
/// DebugOptions, or "" when no such field is known (findDebugOption).
std::string debugFieldLabel(const std::string &name);

/// Why `withCause` moved with entry `cause`, one sentence ("" for
/// CauseLink::Code::None), e.g. "XLA also parses --xla_a into
/// DebugOptions.xla_a (field 12), which entry 5 hashes: one change, seen in
/// entries 4 and 5."
std::string causeLinkText(int cause, const std::vector<int> &withCause,
                          const CauseLink &link);

/// One compile-options change as a line, e.g.
/// "DebugOptions.xla_gpu_autotune_level (field 123) 4 → 1",
/// "env_option_overrides[\"x\"] unset → \"1\"",
/// "device assignment [[0]] → [[1]]".
/// `max` > 0 shortens each value on its own to about `max` characters
/// (`shortened`), so both stay visible; 0 keeps them whole.
std::string fieldChangeText(const FieldChange &change, size_t max = 0);

/// "DebugOptions.<name> (field N)" / "ExecutableBuildOptionsProto.<name>
/// (field N)": how a change names its field (`fieldChangeText` without the
/// values).
std::string fieldChangeLabel(const FieldChange &change);

/// A kept-flag change as a clause, e.g. "flag --a=1 replaced --a=0",
/// "added flag --b", "removed flag --c", followed, for a flag XLA parsed,
/// by what it also set: "added flag --xla_cpu_enable_fast_math=true; XLA
/// also set DebugOptions.xla_cpu_enable_fast_math (entry 5)".
std::string flagChangeText(const FlagChange &change);

/// An entry change as a detail line, e.g. "jaxlib version '0.4.30' →
/// '0.4.31'", "CPU model 'icelake-server' → 'znver3'".
std::string entryChangeText(const EntryChange &change);

/// What to do about `advice`, one sentence ("" for Advice::None).
std::string adviceText(Advice advice);

/// The detail lines of a comparison of two keys, one per `c.changes`: the
/// cause's changes as entryChangeText, those of an entry moved with it
/// prefixed "entry 5: ", and (no cause) the reasons inputs that differ
/// still give equal keys. This is what `cachekey diff` lists under the
/// sentence.
std::vector<std::string> comparisonDetailsText(const Comparison &c);

/// One line per `c.otherChanges`: "entry 5 (compile_options): …".
std::vector<std::string> comparisonOtherDetailsText(const Comparison &c);

/// One sentence naming the cause, its details, the link, the consequences
/// and the other moved entries, then the unhashed inputs ("Not hashed, so
/// not a cause: …", at most four) and, when no entry moved, " But: …" per
/// change; "The profile changed (a → b): …" first when the profiles
/// differ. The details are comparisonDetailsText and
/// comparisonOtherDetailsText.
std::string comparisonSentence(const Comparison &c);

/// comparisonSentence with the detail lines given: a comparison of logs
/// gives the words of its findings (LogCompare.h). `details` that are not one
/// per `c.changes` are said as given, without grouping compile-options
/// fields.
std::string comparisonSentence(const Comparison &c,
                               const std::vector<std::string> &details,
                               const std::vector<std::string> &otherDetails);

/// What to do about `c`: the advice of the module finding that leads the
/// details when entry 1 is the cause (moduleFindingAdvice, ModuleDiff.h),
/// else adviceText(c.advice).
std::string comparisonAdviceText(const Comparison &c);

/// An unhashed input as a clause, e.g. "flag --xla_dump_to=/tmp added (on
/// the exclusion list, so entry 4 skips it)".
std::string unhashedText(const UnhashedInput &input);

} // namespace cachekey

#endif // CACHEKEY_WORDING_H
