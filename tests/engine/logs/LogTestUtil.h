// Shared by the tests of engine/lib/logs: a case's two logs compared.
#ifndef CACHEKEY_TESTS_LOGS_LOGTESTUTIL_H
#define CACHEKEY_TESTS_LOGS_LOGTESTUTIL_H

#include "../TestUtil.h"
#include "logs/LogFacts.h"

namespace cachekey::test {

/// The logs `a` and `b` of tests/cases/`dir`, read and compared.
inline LogComparison compareCase(const std::string &dir, const std::string &a,
                                 const std::string &b) {
  auto c = compareLogs(readText(sourcePath("tests/cases/" + dir + "/" + a)),
                       readText(sourcePath("tests/cases/" + dir + "/" + b)), a, b);
  EXPECT_TRUE(c) << (c ? "" : c.error().str());
  return c ? std::move(*c) : LogComparison{};
}

/// The pair labelled `label`, or nullptr.
inline const ProgramPair *pairLabelled(const LogComparison &c,
                                       const std::string &label) {
  for (const auto &p : c.pairs)
    if (c.labelOf(p) == label)
      return &p;
  return nullptr;
}

} // namespace cachekey::test

#endif // CACHEKEY_TESTS_LOGS_LOGTESTUTIL_H
