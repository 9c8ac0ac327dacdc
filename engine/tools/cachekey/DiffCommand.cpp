//===- DiffCommand.cpp - `cachekey diff` ----------------------------------===//
#include "Command.h"
#include "FileInput.h"

#include "cachekey/CaptureDiff.h"
#include "cachekey/Diff.h"
#include "cachekey/Wording.h"

#include <iostream>

namespace cachekey::cli {

int runDiff(const CommandLine &cl) {
  const Report &report = cl.report;
  const auto &files = cl.files;
  if (files.size() != 2 || isDirectory(files[0]) != isDirectory(files[1]))
    return report.usageError("diff takes two scenario files or two capture "
                             "directories");
  if (isDirectory(files[0])) {
    if (cl.usedFixtures)
      return report.usageError("--fixtures does not apply to two capture "
                               "directories (captures have no base)");
    auto c = compareCaptures(captureReader(files[0]), captureReader(files[1]),
                             files[0], files[1]);
    if (!c)
      return report.fail(c.error());
    if (cl.json)
      std::cout << dumpJson(captureComparisonToJson(*c), 2) << "\n";
    else
      std::cout << captureComparisonText(*c);
    return c->identical() ? 0 : 1;
  }
  FixtureResolver resolver = resolverFor(cl.fixtures);
  auto fa = computeFromFile(files[0], resolver);
  if (!fa)
    return report.fail(fa.error());
  auto fb = computeFromFile(files[1], resolver);
  if (!fb)
    return report.fail(fb.error());
  const KeyResult *a = &fa->result, *b = &fb->result;
  Comparison c = compareResults(*a, *b);
  if (cl.json) {
    Json j = comparisonToJson(c);
    j["key_a"] = a->key;
    j["key_b"] = b->key;
    std::cout << dumpJson(j, 2) << "\n";
  } else {
    std::cout << comparisonSentence(c) << "\n";
    for (const auto &d : comparisonDetailsText(c))
      std::cout << "  - " << d << "\n";
    std::cout << "A: " << a->key << "\nB: " << b->key << "\n";
    if (std::string advice = comparisonAdviceText(c); !advice.empty())
      std::cout << "What to do: " << advice << "\n";
    for (const auto &n : c.notes)
      std::cout << "note: " << noteText(n) << "\n";
  }
  return c.cause == 0 ? 0 : 1;
}

} // namespace cachekey::cli
