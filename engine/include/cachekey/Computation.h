//===- Computation.h - Entry 1: computation ---------------------*- C++ -*-===//
//
// Mirrors `_hash_computation` in jax/_src/cache_key.py. Entry 1 is MLIR
// bytecode: captured from jaxlib (`module.entry1_b64`, used as-is), or
// computed live from MLIR text by a canonicaliser (clone, strip-debuginfo,
// callback / custom-partitioning rewrite, Mosaic strip on main, write
// bytecode). The canonicaliser lives in its own library so that builds
// without MLIR stay small; it registers itself here.
//
//===----------------------------------------------------------------------===//
#ifndef CACHEKEY_COMPUTATION_H
#define CACHEKEY_COMPUTATION_H

#include "cachekey/Scenario.h"

namespace cachekey {

/// Entry-1 bytes and where they came from.
struct ComputationEntry {
  Bytes bytes;
  std::string symName;
  /// "captured from jaxlib" or the MLIR producer that wrote the bytecode.
  std::string producer;
  bool live = false; // true when computed here rather than captured
  /// Mosaic kernel bodies the live canonicaliser could not read (their
  /// locations were not stripped, where jaxlib's MLIR may strip them).
  int unreadableKernels = 0;
  /// The first such parse error.
  std::string unreadableDetail;
};

/// A live canonicaliser: module text (or bytecode) → entry-1 bytes.
using Canonicalizer = Expected<ComputationEntry> (*)(const ModuleSpec &module,
                                                     Profile profile);

/// Installs the live canonicaliser (done by the MLIR library, if linked).
void setCanonicalizer(Canonicalizer canonicalizer);

/// True when a canonicaliser is installed.
bool hasCanonicalizer();

/// Computes entry 1: captured bytes as-is, or the canonicaliser's output.
/// Without a canonicaliser, `module.text` is an Error at `$.module.text`.
Expected<ComputationEntry> computationEntry(const ModuleSpec &module,
                                           Profile profile);

} // namespace cachekey

#endif // CACHEKEY_COMPUTATION_H
