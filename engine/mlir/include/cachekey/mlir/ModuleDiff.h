//===- ModuleDiff.h - A structural diff of two MLIR modules -----*- C++ -*-===//
//
// The changes between two modules, found with MLIR's own structures rather
// than their text: both are parsed (parseMlirModule) into one context, so
// that uniqued attributes and types compare by identity; `func.func`s are
// matched by symbol name; the operations of each matched function (walked in
// pre-order, nested regions included) are aligned by a shortest edit script
// (Myers) over a structural key (op name, operand and result types, a
// custom_call's call_target_name); aligned operations are compared by their
// attribute dictionaries, their operands (which aligned operation or block
// argument defines each) and their locations. What the changes mean for JAX
// is interpretModuleChanges (cachekey/ModuleDiff.h).
//
//===----------------------------------------------------------------------===//
#ifndef CACHEKEY_MLIR_MODULEDIFFMLIR_H
#define CACHEKEY_MLIR_MODULEDIFFMLIR_H

#include "cachekey/ModuleDiff.h"

namespace cachekey {

/// Diffs two modules given as MLIR text (pretty form of the builtin and func
/// dialects, generic form otherwise) or MLIR bytecode, such as entry-1 bytes.
/// Attribute values and types in the changes are MLIR's printed forms,
/// shortened to about 80 characters. Locations count only when they carry a
/// source (a location the text parser made up from its own line and column
/// is ignored), so a module read from text without locations reports none.
///
/// Errors: "module A: cannot parse the module (…)" (or "module B: …").
Expected<ModuleDiff> diffModules(const std::string &before,
                                 const std::string &after);

/// Installs `diffModules` as the engine's module differ (setModuleDiffer),
/// so that compareResults explains a moved entry 1 with its findings.
void registerMlirModuleDiffer();

} // namespace cachekey

#endif
