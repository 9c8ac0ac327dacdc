//===- Capture.h - Scenarios captured from a real run -----------*- C++ -*-===//
//
// `python -m cachekey.capture` (python/cachekey/capture.py) writes, for each
// program JAX compiled, one scenario with a `"capture"` annotation (format 1)
// and the key real JAX computed under `"expected"`, plus `index.json`. Entry
// 1 may sit in a sidecar file (raw, or zstd-compressed) or be omitted
// (--no-entry1-bytes: only its SHA-256); the module text sits in a `.mlir`
// sidecar or is omitted likewise. This file reads them and checks the
// engine's key against JAX's. See docs/capture.md.
//
//===----------------------------------------------------------------------===//
#ifndef CACHEKEY_CAPTURE_H
#define CACHEKEY_CAPTURE_H

#include "cachekey/Key.h"
#include "cachekey/Scenario.h"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace cachekey {

/// The capture format this engine reads (`capture.format`, `index.format`).
constexpr int kCaptureFormat = 1;

/// Reads a file of a capture directory by its name there (e.g.
/// "0003-jit_f.entry1.zst"). The CLI reads the file system; tests may serve
/// memory.
using CaptureFileReader = std::function<Expected<Bytes>(const std::string &name)>;

/// One entry as real JAX logged it: own digest and running digest, hex.
struct CapturedEntry {
  std::string name;
  std::string digest;
  std::string running;
};

/// One captured program.
struct CapturedProgram {
  std::string file;    // its scenario's file name in the directory
  std::string program; // the module's sym_name
  int occurrence = 1;  // 1 for the first program of that name, 2 for the next…
  std::string outcome; // from index.json ("written", "hit", …); may be empty
  std::string reason;  // why not written, when JAX said
  std::string expectedKey;               // the key real JAX computed
  std::vector<CapturedEntry> entries;    // JAX's digests, in JAX's order
  bool entry1Omitted = false;            // captured with --no-entry1-bytes
  std::string entry1Sha256;              // hex, always present
  std::optional<std::string> textFile;   // the .mlir sidecar, when kept
  std::string textSha256;                // hex, always present
  /// The generic-form text of the same module (`.generic.mlir` sidecar,
  /// `get_asm(print_generic_op_form=True, enable_debug_info=False)`), when
  /// kept: MLIR 19 parses it with the JAX dialects unregistered, while
  /// jaxlib's entry-1 bytecode, written by a newer MLIR, it cannot read.
  std::optional<std::string> genericTextFile;
  /// The JAX options the capture read when the program was compiled
  /// (`capture.settings`, e.g. {"jax_enable_x64": false}); empty for a
  /// capture made before it recorded them.
  Json settings = Json::object();
  /// The scenario document, with a sidecar entry 1 inlined as entry1_b64;
  /// with entry 1 omitted, an empty placeholder stands in for it.
  Json scenario;
};

/// True when `document` is a captured scenario (`capture.format` present).
bool isCapturedScenario(const Json &document);

/// Reads one captured scenario named `file`, loading its entry-1 sidecar
/// through `read`. Errors name the file and the JSON path, e.g.
/// "0003-jit_f.json: $.capture.entry1.sha256: the sidecar's bytes do not
/// have this SHA-256".
Expected<CapturedProgram> readCapturedProgram(const std::string &file,
                                              const Json &document,
                                              const CaptureFileReader &read);

/// One program as `index.json` lists it.
struct CaptureIndexRow {
  std::string file;    // the scenario's file name
  std::string program; // sym_name
  int occurrence = 1;
  std::string key;     // the key real JAX computed
  std::string outcome; // "written", "hit", "not written", … (may be empty)
  std::string reason;
};

/// Reads `index.json` alone (what `cachekey diff` needs to pair programs and
/// to see which keys differ, without opening every scenario).
Expected<std::vector<CaptureIndexRow>> readCaptureIndex(const CaptureFileReader &read);

/// Reads the scenario of `row` (and its sidecar), checking that its key is
/// the one the index lists.
Expected<CapturedProgram> readIndexedProgram(const CaptureIndexRow &row,
                                             const CaptureFileReader &read);

/// Reads `index.json` and every program it lists, in order.
Expected<std::vector<CapturedProgram>> readCaptureDirectory(
    const CaptureFileReader &read);

/// The engine's result for a captured program. With entry 1 omitted, entry
/// 1 is an empty placeholder: entries 2–8's own digests are the engine's,
/// but every running digest and entry 1's own digest are JAX's (from the
/// capture), and the key is JAX's.
Expected<KeyResult> computeCapturedKey(const CapturedProgram &program);

/// The check of `cachekey explain` on a captured file.
struct CaptureCheck {
  bool matches = false;
  /// Entries (1…8) whose own digest the engine computes differently from
  /// JAX's log; for an omitted entry 1, only entries 2–8 are checked.
  std::vector<int> differing;
  /// One sentence: "The engine's key equals the key real JAX computed." or
  /// what differs.
  std::string sentence;
};

/// Compares the engine's `result` with what real JAX computed for `program`.
CaptureCheck checkCapturedKey(const CapturedProgram &program,
                              const KeyResult &result);

/// `check` as JSON: {"matches", "differing", "sentence", "jax_key"}.
Json captureCheckToJson(const CaptureCheck &check,
                        const CapturedProgram &program);

} // namespace cachekey

#endif // CACHEKEY_CAPTURE_H
