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

/// The text the CLI's --json gives for document `whole` (an object whose
/// member `array` is an array), made here from nlohmann's dump, not by the
/// engine's writer: with `indent` -1, the one-line dump; with indent 2, the
/// dump indented by 2 in which each item of `array` is one line (its
/// one-line dump) at the array's indentation (4 spaces).
inline std::string cliJsonLayout(const Json &whole, const std::string &array, int indent) {
  const auto dump = [](const Json &j, int n) {
    return j.dump(n, ' ', false, Json::error_handler_t::replace);
  };
  if (indent < 0)
    return dump(whole, -1);
  Json head = whole;
  const std::string mark = "\x01items of the array\x01";
  head[array] = mark;
  std::string items;
  for (const auto &item : whole.at(array))
    items += (items.empty() ? "\n    " : ",\n    ") + dump(item, -1);
  std::string text = dump(head, indent);
  const std::string quoted = dump(Json(mark), -1);
  size_t at = text.find(quoted);
  EXPECT_NE(at, std::string::npos);
  if (at != std::string::npos)
    text.replace(at, quoted.size(), items.empty() ? "[]" : "[" + items + "\n  ]");
  return text;
}

} // namespace cachekey::test

#endif // CACHEKEY_TESTS_LOGS_LOGTESTUTIL_H
