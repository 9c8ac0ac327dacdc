//===- Key.h - The cache key, entry by entry --------------------*- C++ -*-===//
//
// Mirrors `get` in jax/_src/cache_key.py: eight entries, in a fixed order,
// update one running SHA-256; the key is `<sym_name>-<64 hex>`. For each entry
// the engine also keeps what JAX's DEBUG log shows: the entry's own digest
// (the same step run on a fresh hash) and the running digest after it.
//
//===----------------------------------------------------------------------===//
#ifndef CACHEKEY_KEY_H
#define CACHEKEY_KEY_H

#include "cachekey/CompileOptions.h"
#include "cachekey/Compression.h"
#include "cachekey/Computation.h"
#include "cachekey/Flags.h"
#include "cachekey/Scenario.h"
#include "cachekey/Sha256.h"
#include "cachekey/Topology.h"
#include "cachekey/Trace.h"
#include "cachekey/XlaFlags.h"

#include <array>
#include <optional>
#include <string>
#include <vector>

namespace cachekey {

/// One labelled piece of an entry's bytes: `size` bytes at `offset` in
/// `EntryResult::bytes`. Pieces are fed in order, with nothing between them.
struct EntryPart {
  std::string label;
  size_t offset = 0;
  size_t size = 0;
  /// True when hash-string (`_hash_string` in jax/_src/cache_key.py:
  /// `.encode("utf-8").strip()`) removed ASCII whitespace from the input, and
  /// `raw` is the input as given; false when the part fed the input as is.
  bool stripped = false;
  std::string raw;
};

/// One of the eight entries.
struct EntryResult {
  int index = 0;     // 1…8: the ingredient (EntryKind), the same in every profile
  /// False when the profile does not hash this entry at all (entry 3 before
  /// jax 0.6.0): no bytes, no digests, no log lines.
  bool hashed = true;
  std::string name;  // e.g. "XLA flags"
  std::string summary; // what is hashed, in plain words
  std::vector<EntryPart> parts;
  Bytes bytes;       // concatenation of the parts: exactly what was fed
  Digest digest{};   // SHA-256 of `bytes` alone ("hash of serialized …")
  Digest running{};  // running digest after this entry ("hash after …")

  /// Appends a labelled piece to `bytes`.
  void append(std::string label, const Bytes &piece) {
    parts.push_back({std::move(label), bytes.size(), piece.size(), false, {}});
    bytes += piece;
  }
  /// Appends `input` through hash-string (ASCII whitespace stripped from both
  /// ends, as `_hash_string` does), keeping the input when stripping changed it.
  void appendStripped(std::string label, const std::string &input);
  /// The input of part `i` as given (before hash-string stripped it).
  std::string partInput(size_t i) const {
    return parts[i].stripped ? parts[i].raw : partBytes(i);
  }
  /// The bytes of part `i`.
  Bytes partBytes(size_t i) const {
    return bytes.substr(parts[i].offset, parts[i].size);
  }
};

/// What a note of a result (or of a comparison, or of a log comparison) is
/// about; `noteCodeName` gives it in snake_case for JSON.
enum class NoteCode : uint8_t {
  LiveEntry1,          // entry 1 computed here by MLIR, not jaxlib's
  StandInFingerprint,  // entry 6 uses a stand-in topology fingerprint
  StdlibZstd,          // Python 3.14+: zstd payloads, "zlib" in the key
  UnreadableKernels,   // Mosaic kernels MLIR 19 cannot read: not JAX's key
  Entry1DigestOnly,    // a capture kept entry 1 as a digest only
  // Notes of a log comparison (LogCompare.h):
  IncompleteKey,       // a program's key is cut, and left out
  UnreadableLine,      // a line the reader could not read
  MoreUnreadableLines, // the count of unreadable lines not listed
  LongLines,           // lines longer than 1 MiB, read in part
  KeyErrors,           // programs JAX could not make a key for
  CacheOff,            // the persistent cache is disabled or not initialised
  SameLog,             // one file given twice (LogSummary::source)
  PgleProbeKeys,       // PGLE probe keys left out (LoggedProgram::pgleProbe)
  // Notes of a key whose XLA_FLAGS XLA also parses (XlaFlags.h):
  XlaFlagsUnparsed,    // no flag table for this jaxlib: entry 4 only
  XlaFlagEffectUnknown,// a flag value whose DebugOptions effect is not measured
  CpuTargetUnknown,    // --xla_cpu_max_isa the captured target cannot take
};

/// "live_entry1", "stand_in_fingerprint", … .
const char *noteCodeName(NoteCode code);

/// A caveat of a key result (and of a comparison of two), as a fact: its
/// code and the values its words name. `noteText` makes the words. Which
/// fields a code uses:
/// - LiveEntry1: `subject`, the producer of entry 1's bytes;
/// - StandInFingerprint: `subject`, the fingerprint's provenance;
/// - StdlibZstd: `subject`, the Python version;
/// - UnreadableKernels: `count` kernel bodies, `subject` the producer,
///   `detail` why they could not be read, `release` the jax profile id;
/// - Entry1DigestOnly: `subject`, the captured file;
/// - XlaFlagsUnparsed: `release`, the jaxlib version;
/// - XlaFlagEffectUnknown: `subject` the flag, `release` the jaxlib version;
/// - CpuTargetUnknown: `detail` the --xla_cpu_max_isa value ("" unset),
///   `subject` the captured CPU, `captured` the ceiling the capture was made
///   under ("" when its topology lists machine attributes), `release` the
///   jaxlib version.
/// The notes of a log comparison (LogCompare.h) keep their own words.
struct Note {
  NoteCode code = NoteCode::LiveEntry1;
  std::string subject, detail, captured, release;
  int count = 0;

  bool operator==(const Note &o) const {
    return code == o.code && subject == o.subject && detail == o.detail &&
           captured == o.captured && release == o.release && count == o.count;
  }
};

/// The words of `note`, one or two sentences, e.g. "Entry 6 uses a stand-in
/// topology fingerprint (not measured on a TPU): …" (key/KeyWording.cpp).
std::string noteText(const Note &note);

/// Everything computed for one scenario.
struct KeyResult {
  Profile profile = kNewestProfile;
  std::string symName;
  std::string key; // "<sym_name>-<64 lowercase hex>"
  std::array<EntryResult, kNumEntries> entries;
  std::vector<FlagStep> flags;
  /// Entry 1's provenance; its bytes live in entries[0].bytes.
  ComputationEntry computation;
  /// The module options as given ("include_metadata=…, ignore_callbacks=…"),
  /// for saying when options cannot change captured bytes.
  std::string moduleOptions;
  EditedCompileOptions compileOptions;
  AcceleratorEntry accelerator;
  std::string compression;
  /// Set (to the Python version) when JAX compresses with the standard
  /// library's zstd while the key names "zlib" (Python 3.14 and later).
  std::optional<std::string> stdlibZstdPython;
  /// The DEBUG (and fallback INFO) messages JAX logs, in order, each with
  /// the level JAX logs it at.
  std::vector<TraceLine> trace;
  /// What XLA itself made of the scenario's XLA_FLAGS, when the scenario
  /// says which flags its proto was built under (compile_options.xla_flags)
  /// and a table for its jaxlib exists: the flags, the DebugOptions fields
  /// they set (entry 5) and whether they moved the CPU devices or target
  /// (entry 6).
  std::optional<XlaFlagEffects> xlaFlags;
  /// The table `xlaFlags` came from.
  const XlaFlagTable *xlaFlagTable = nullptr;
  /// DebugOptions fields the captured flags had set and the scenario's flags
  /// no longer set (put back to XLA's default), by field number.
  std::vector<uint32_t> xlaFlagsReset;
  bool xlaFlagsMovedDevices = false, xlaFlagsMovedTarget = false;
  /// Caveats a reader must see, e.g. a stand-in fingerprint or live MLIR,
  /// as facts (noteText words them).
  std::vector<Note> notes;
};

/// Computes the key and every entry for `scenario`.
Expected<KeyResult> computeKey(const Scenario &scenario);

/// The result as JSON: {"key", "sym_name", "profile" (the profile id),
/// "entries": [{"index", "name", "hashed", "summary", "bytes_len",
/// "preview_hex", "digest", "running", "parts": [{"label", "bytes_len",
/// "preview_hex"}]}] (always 8; an entry the profile does not hash has
/// hashed false, no bytes, "digest" "" (JAX computes none) and "running"
/// the running digest of the entry before it, carried over), "flags": [{"flag", "source",
/// "name", "included", "hashed_hex", "collected" (0-based position in
/// collection order, before sorting), "log_line" (flagLogLine)}] (sorted,
/// as hashed: one step per flag of `_hash_xla_flags`), "collected":
/// {"XLA_FLAGS", "LIBTPU_INIT_ARGS", "argv": [flag]} (collection order),
/// "computation": {"producer", "live"}, "compile_options": {"edits": [{"code",
/// "name"?, "number"?, "zero"?, "before"?, "after"?, "text"}]},
/// "accelerator": {"fallback", "fingerprint", "provenance", "stand_in"},
/// "fidelity": {"jax_key", "unreadable_kernels", "text" (why the key is not
/// JAX's, when unreadable_kernels > 0)}, "compression", "compression_writes"
/// (only when the process writes another algorithm than the key names:
/// {"code": "stdlib_zstd", "algorithm", "python", "text"}), "trace"
/// (the messages, as JAX formats them), "trace_levels" (one per message:
/// "debug" or "info", the level of the `logger` call that writes it),
/// "notes": [{"code" (noteCodeName), "text"}]}. Digests are 64 lowercase hex characters. `previewBytes` bounds
/// each hex preview.
Json resultToJson(const KeyResult &result, size_t previewBytes = 48);

/// The note said when JAX on Python `python` compresses with the standard
/// library's zstd while the key names "zlib" (compressionName, entry 7).
std::string stdlibZstdNote(const std::string &python);

/// The note (NoteCode::UnreadableKernels) said when `result`'s module holds
/// Mosaic kernel bodies that the engine's MLIR could not read, so that
/// entry 1 may differ from JAX's.
Note unreadableKernelsNote(const KeyResult &result);

} // namespace cachekey

#endif // CACHEKEY_KEY_H
