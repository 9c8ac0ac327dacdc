//===- ModuleIO.cpp - Read and write MLIR modules -------------------------===//
#include "cachekey/mlir/ModuleIO.h"

#include <optional>
#include "cachekey/mlir/RangeLocations.h"

#include "mlir/Bytecode/BytecodeWriter.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Location.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

namespace cachekey {

std::unique_ptr<mlir::MLIRContext> makeMlirContext() {
  mlir::DialectRegistry registry;
  registry.insert<mlir::func::FuncDialect>();
  auto context = std::make_unique<mlir::MLIRContext>(
      registry, mlir::MLIRContext::Threading::DISABLED);
  context->loadAllAvailableDialects();
  context->allowUnregisteredDialects();
  return context;
}

static std::string formatDiagnostic(mlir::Diagnostic &diag) {
  std::string text;
  llvm::raw_string_ostream os(text);
  if (auto file = mlir::Location(diag.getLocation())
                      ->findInstanceOf<mlir::FileLineColLoc>();
      file && file.getLine() > 0)
    os << file.getLine() << ":" << file.getColumn() << ": ";
  os << diag.str();
  for (mlir::Diagnostic &note : diag.getNotes())
    os << " (note: " << note.str() << ")";
  return os.str();
}

DiagnosticCapture::DiagnosticCapture(mlir::MLIRContext &context)
    : handler(&context, [this](mlir::Diagnostic &diag) {
        messages.push_back(formatDiagnostic(diag));
        return mlir::success(); // handled: nothing reaches stderr
      }) {}

std::string DiagnosticCapture::joined(const std::string &fallback) const {
  if (messages.empty())
    return fallback;
  std::string out;
  for (const auto &m : messages)
    out += (out.empty() ? "" : "; ") + m;
  return out;
}

bool isMlirBytecode(const std::string &bytes) {
  return bytes.compare(0, 4, "ML\xEFR") == 0;
}

namespace {
/// MLIR's parser recurses once per nested region, attribute or type; deep
/// enough nesting overflows the stack (natively near 2,500 levels, sooner in
/// wasm). Real modules nest a few dozen levels. Brackets inside string
/// literals are not counted.
constexpr int kMaxTextNesting = 256;

Status checkNesting(const std::string &text) {
  int depth = 0, line = 1;
  bool inString = false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '\n')
      ++line;
    if (inString) {
      if (c == '\\')
        ++i;
      else if (c == '"')
        inString = false;
      continue;
    }
    if (c == '"')
      inString = true;
    else if (c == '{' || c == '[' || c == '(') {
      if (++depth > kMaxTextNesting)
        return Error{"", "cannot parse the module (MLIR text): " +
                             std::to_string(line) +
                             ": brackets nest more than " +
                             std::to_string(kMaxTextNesting) +
                             " levels deep, past what the parser's stack "
                             "allows"};
    } else if (c == '}' || c == ']' || c == ')')
      depth = depth > 0 ? depth - 1 : 0;
  }
  return {};
}
} // namespace

Expected<mlir::OwningOpRef<mlir::ModuleOp>>
parseMlirModule(mlir::MLIRContext &context, const std::string &source) {
  DiagnosticCapture diagnostics(context);
  bool bytecode = isMlirBytecode(source);
  if (!bytecode)
    CACHEKEY_TRY(checkNesting(source));
  // A copy: null-terminated for the lexer and suitably aligned for bytecode
  // resources, whatever the caller's string.
  auto buffer = llvm::MemoryBuffer::getMemBufferCopy(
      bytecode ? source : downgradeRangeLocations(source), /*BufferName=*/"");
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(buffer), llvm::SMLoc());
  mlir::ParserConfig config(&context, /*verifyAfterParse=*/true);
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceFile<mlir::ModuleOp>(sourceMgr, config);
  if (!module)
    return Error{"", std::string("cannot parse the module (") +
                         (bytecode ? "MLIR bytecode" : "MLIR text") + "): " +
                         diagnostics.joined("unknown parse error")};
  return module;
}

Bytes writeMlirBytecode(mlir::Operation *op) {
  std::string out;
  llvm::raw_string_ostream os(out);
  // Without a requested version the writer cannot fail.
  (void)mlir::writeBytecodeToFile(op, os);
  os.flush();
  return out;
}

std::string bytecodeProducer(const Bytes &bytecode) {
  if (!isMlirBytecode(bytecode) || bytecode.size() < 5)
    return "";
  // Header: magic, format version as a prefix varint (its byte count is one
  // more than the trailing zero bits of the first byte; 0 means 9 bytes),
  // then the producer, NUL-terminated.
  unsigned char first = static_cast<unsigned char>(bytecode[4]);
  size_t width = 1;
  if (first == 0)
    width = 9;
  else
    while (!(first & 1)) {
      first >>= 1;
      ++width;
    }
  size_t start = 4 + width;
  size_t end = bytecode.find('\0', start);
  if (start > bytecode.size() || end == std::string::npos)
    return "";
  return bytecode.substr(start, end - start);
}

} // namespace cachekey
