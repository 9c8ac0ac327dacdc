//===- EvictionRuleWording.cpp - The words of the eviction rules ----------===//
#include "cachekey/EvictionRule.h"

namespace cachekey {

std::string evictionRuleText(EvictionRule r) {
  switch (r) {
  case EvictionRule::MtimeAllFiles: return "0.4.30 (LRU by modification time)";
  case EvictionRule::AtimeStrict:
    return "0.4.31 to 0.11.1 (-atime; a missing one makes capped writes fail)";
  case EvictionRule::AtimeMissingZero: break;
  }
  return "0.11.2 and later (a missing -atime counts as 0)";
}

} // namespace cachekey
