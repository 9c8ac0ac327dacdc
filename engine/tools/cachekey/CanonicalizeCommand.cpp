//===- CanonicalizeCommand.cpp - `cachekey canonicalize` ------------------===//
#include "Command.h"
#include "FileInput.h"

#include "cachekey/Key.h"
#include "cachekey/ProfileInfo.h"

#include <iostream>

namespace cachekey::cli {

int runCanonicalize(const CommandLine &cl) {
  if (cl.files.size() != 1)
    return cl.report.usageError("canonicalize takes one MLIR file (text or "
                                "bytecode; '-' for standard input)");
  auto p = parseProfile(cl.profile);
  if (!p)
    return cl.report.fail(p.takeError("--profile"));
  auto text = readFile(cl.files[0]);
  if (!text)
    return cl.report.fail(text.error());
  ModuleSpec m;
  m.text = *text;
  m.includeMetadata = cl.includeMetadata;
  m.ignoreCustomPartitioning = cl.ignoreCp;
  if (cl.ignoreCp)
    m.ignoreCallbacks = IgnoreCallbacks::CustomPartitioning;
  auto e = computationEntry(m, *p);
  if (!e)
    return cl.report.fail(e.takeError().from(cl.files[0]));
  std::cout.write(e->bytes.data(), static_cast<std::streamsize>(e->bytes.size()));
  return 0;
}

} // namespace cachekey::cli
