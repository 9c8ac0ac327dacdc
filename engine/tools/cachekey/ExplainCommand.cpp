//===- ExplainCommand.cpp - `cachekey explain` ----------------------------===//
#include "Command.h"
#include "FileInput.h"

#include "cachekey/Capture.h"
#include "cachekey/Key.h"
#include "cachekey/ProfileInfo.h"
#include "cachekey/Trace.h"

#include <iostream>
#include <optional>

namespace cachekey::cli {
namespace {

/// The entries of `r` as text: each entry's bytes, digest and running
/// digest, entry 4's flags, entry 5's edits and entry 6's source.
void printExplain(const KeyResult &r) {
  std::cout << "profile " << profileName(r.profile) << "\n\n";
  for (const auto &e : r.entries) {
    if (!e.hashed) {
      std::cout << e.index << ". " << e.name << "  (not hashed)\n"
                << "   " << e.summary << "\n";
      continue;
    }
    std::cout << e.index << ". " << e.name << "  (" << e.bytes.size()
              << " bytes)\n"
              << "   hashes:  " << e.summary << "\n"
              << "   fed:     "
              << (e.bytes.empty() ? "(nothing)" : hexPreview(e.bytes, 32))
              << "\n"
              << "   digest:  " << toHex(e.digest) << "\n"
              << "   running: " << toHex(e.running) << "\n";
    if (e.index == 4)
      for (const auto &f : r.flags)
        std::cout << "   " << (f.included ? "kept     " : "excluded ") << f.flag
                  << "  [" << flagSourceName(f.source) << "]\n";
    if (e.index == 5)
      for (const auto &c : r.compileOptions.changes)
        std::cout << "   edit:    " << cacheKeyEditText(c) << "\n";
    if (e.index == 6)
      std::cout << "   source:  " << r.accelerator.provenance
                << (r.accelerator.standIn ? "  [STAND-IN]" : "") << "\n";
  }
  std::cout << "\nkey: " << r.key
            << (r.computation.unreadableKernels
                    ? "  [NOT JAX'S KEY: a Mosaic kernel MLIR 19 cannot read; "
                      "see the note]"
                    : "")
            << "\n";
  for (const auto &n : r.notes)
    std::cout << "note: " << noteText(n) << "\n";
}

} // namespace

int runExplain(const CommandLine &cl) {
  if (cl.trace && cl.json)
    return cl.report.usageError("--trace and --json do not go together");
  if (cl.files.size() != 1)
    return cl.report.usageError("explain takes one scenario file ('-' for standard "
                                "input)");
  auto file = computeFromFile(cl.files[0], resolverFor(cl.fixtures));
  if (!file)
    return cl.report.fail(file.error());
  const KeyResult *r = &file->result;
  std::optional<CaptureCheck> check;
  if (file->captured)
    check = checkCapturedKey(*file->captured, *r);
  if (cl.json) {
    Json j = resultToJson(*r);
    if (check)
      j["capture_check"] = captureCheckToJson(*check, *file->captured);
    std::cout << dumpJson(j, 2) << "\n";
  } else if (cl.trace) {
    for (const auto &line : r->trace)
      std::cout << line.message << "\n";
  } else {
    printExplain(*r);
    if (check)
      std::cout << "check: " << check->sentence << "\n";
  }
  if (check && !check->matches)
    std::cerr << "cachekey: " << cl.files[0] << ": " << check->sentence << "\n";
  return check && !check->matches ? 1 : 0;
}

} // namespace cachekey::cli
