//===- ProfilesCommand.cpp - `cachekey profiles` --------------------------===//
#include "Command.h"

#include "cachekey/ProfileInfo.h"

#include <iostream>

namespace cachekey::cli {

int runProfiles(const CommandLine &cl) {
  if (!cl.files.empty())
    return cl.report.usageError("profiles takes no file");
  if (cl.json) {
    std::cout << dumpJson(profilesToJson(), 2) << "\n";
    return 0;
  }
  for (const ProfileSpec &p : allProfiles()) {
    std::cout << "profile " << p.id << (p.profile == kNewestProfile ? " (main)" : "")
              << "\n  releases: ";
    for (size_t i = 0; i < p.releases.size(); ++i)
      std::cout << (i ? ", " : "") << p.releases[i];
    std::cout << "\n  changes:  " << p.changes << "\n  verified: "
              << p.verified << "\n";
  }
  return 0;
}

} // namespace cachekey::cli
