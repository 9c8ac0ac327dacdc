//===- ModuleIO.h - Read and write MLIR modules -----------------*- C++ -*-===//
//
// The context, parser and bytecode writer that the canonicaliser uses, set up
// the way jaxlib's Python bindings use theirs: `ir.Module.parse` (text or
// bytecode, verified after parsing) and `Operation.write_bytecode` (default
// writer configuration). Diagnostics never reach stderr: they are collected
// and returned in the Error.
//
//===----------------------------------------------------------------------===//
#ifndef CACHEKEY_MLIR_MODULEIO_H
#define CACHEKEY_MLIR_MODULEIO_H

#include "cachekey/Support.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"

#include <memory>
#include <string>
#include <vector>

namespace cachekey {

/// A fresh context with the builtin and func dialects loaded and unregistered
/// dialects allowed, so `stablehlo`, `sdy`, `mhlo` … ops and attributes
/// are read in generic form. Threading is off: one canonicalisation is
/// sequential work, and a per-call context should not own a thread pool.
std::unique_ptr<mlir::MLIRContext> makeMlirContext();

/// Collects every diagnostic emitted in `context` while alive (innermost
/// capture wins), formatted as `line:column: message` when the diagnostic
/// has a file location with a line, followed by its notes.
class DiagnosticCapture {
public:
  explicit DiagnosticCapture(mlir::MLIRContext &context);
  DiagnosticCapture(const DiagnosticCapture &) = delete;
  DiagnosticCapture &operator=(const DiagnosticCapture &) = delete;

  /// All messages so far, joined by "; ", or `fallback` when there are none.
  std::string joined(const std::string &fallback) const;

private:
  std::vector<std::string> messages;
  mlir::ScopedDiagnosticHandler handler;
};

/// True when `bytes` start with the MLIR bytecode magic `ML\xEFR`.
bool isMlirBytecode(const std::string &bytes);

/// Parses a module from MLIR text (pretty or generic form) or MLIR bytecode,
/// as `ir.Module.parse` does: the result is verified, and a source that is
/// not a single `builtin.module` is wrapped in one. Text goes through
/// `downgradeRangeLocations` first (see RangeLocations.h). The buffer name
/// is empty, as in the C API, so ops without an explicit location get
/// `loc("":line:col)`.
///
/// Errors: the diagnostics, e.g. "cannot parse the module (MLIR text): 5:10:
/// Dialect `stablehlo' not found for custom op 'stablehlo.tanh'". The context
/// stays usable.
///
/// Limitation: MLIR 19's bytecode reader trusts its input. Corrupted bytecode
/// can crash it (a mutation loop over a valid file found inputs on which
/// `mlir-opt` 19 segfaults as well); text input is parsed defensively.
Expected<mlir::OwningOpRef<mlir::ModuleOp>>
parseMlirModule(mlir::MLIRContext &context, const std::string &source);

/// `op.write_bytecode()`: MLIR bytecode with the default
/// `BytecodeWriterConfig` (current format version, producer
/// "MLIR" LLVM_VERSION_STRING).
Bytes writeMlirBytecode(mlir::Operation *op);

/// The producer string in a bytecode header (e.g. "MLIR19.1.7"), or "" when
/// `bytecode` is not MLIR bytecode.
std::string bytecodeProducer(const Bytes &bytecode);

} // namespace cachekey

#endif // CACHEKEY_MLIR_MODULEIO_H
