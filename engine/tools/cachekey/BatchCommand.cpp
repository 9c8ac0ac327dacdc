//===- BatchCommand.cpp - `cachekey batch` --------------------------------===//
#include "Command.h"
#include "FileInput.h"

#include "cachekey/Key.h"
#include "cachekey/Run.h"

#include <iostream>

namespace cachekey::cli {

int runBatch(const CommandLine &cl) {
  // One output line per input line, in order, so that results pair with
  // scenarios by position: a blank line is an error line too. An error's
  // source is "line N" (1-based).
  FixtureResolver resolver = resolverFor(cl.fixtures);
  std::string line;
  for (size_t n = 1; std::getline(std::cin, line); ++n) {
    const std::string where = "line " + std::to_string(n);
    Json out;
    if (line.find_first_not_of(" \t\r") == std::string::npos) {
      out = errorToJson(Error{"$",
                              "empty line (batch reads one scenario, a "
                              "JSON object, per line)",
                              ErrorCode::Syntax, where});
    } else if (auto r = computeFromText(line, resolver)) {
      out = resultToJson(*r, 16);
    } else {
      Error e = r.takeError();
      if (e.source.empty())
        e.source = where;
      out = errorToJson(e);
    }
    std::cout << dumpJson(out) << "\n";
  }
  return 0;
}

} // namespace cachekey::cli
