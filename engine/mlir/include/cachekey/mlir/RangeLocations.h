//===- RangeLocations.h - Read newer MLIR's range locations ------*- C++ -*-===//
//
// jaxlib 0.10.2 is built on MLIR 23, whose printer writes a source range as
// `loc("file.py":155:19 to :30)` or `loc("file.py":155:19 to 157:4)`. MLIR 19,
// which this library links, only knows `loc("file.py":155:19)` and rejects the
// rest with "expected ')' in inline location". So every real jaxlib module
// printed with locations would fail to parse here.
//
// strip-debuginfo turns every location into `loc(unknown)`, so for the
// default (canonicalised) entry 1 the range ends are irrelevant. They do
// matter with include_metadata: there, a range is kept as its start point,
// so two modules whose ranges differ only in their end read the same. (Those
// include-metadata bytes are MLIR 19's, which never equal jaxlib's anyway.)
//
//===----------------------------------------------------------------------===//
#ifndef CACHEKEY_MLIR_RANGELOCATIONS_H
#define CACHEKEY_MLIR_RANGELOCATIONS_H

#include <string>

namespace cachekey {

/// Rewrites MLIR textual IR so that MLIR 19 can read its file locations:
/// every `"<file>":L:C to :C2` and `"<file>":L:C to L2:C2` outside string
/// literals and `//` comments becomes `"<file>":L:C` followed by as many
/// spaces as were removed. The text keeps its length and line structure, so
/// diagnostics keep pointing at the caller's line and column. `*rewritten`,
/// if given, receives the number of ranges rewritten. Text without ranges
/// comes back unchanged.
std::string downgradeRangeLocations(const std::string &text,
                                    size_t *rewritten = nullptr);

} // namespace cachekey

#endif // CACHEKEY_MLIR_RANGELOCATIONS_H
