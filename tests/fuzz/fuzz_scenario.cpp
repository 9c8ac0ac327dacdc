// Fuzzes the scenario JSON reader and the whole key computation: any bytes,
// as scenario text, must give a key or an Error, never a crash.
#include "cachekey/Key.h"

#include <fstream>
#include <sstream>

using namespace cachekey;

static Expected<Json> fixture(const std::string &id) {
  if (id != "add_1x1")
    return Error{"", "unknown fixture"};
  static const Json fx = [] {
    std::ifstream in(std::string(CACHEKEY_SOURCE_DIR) + "/fixtures/add_1x1.json");
    std::stringstream ss;
    ss << in.rdbuf();
    return Json::parse(ss.str(), nullptr, false);
  }();
  return fx;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string text(reinterpret_cast<const char *>(data), size);
  auto doc = parseJsonText(text);
  if (!doc)
    return 0;
  auto s = readScenario(*doc, fixture);
  if (!s)
    return 0;
  auto r = computeKey(*s);
  if (r)
    (void)resultToJson(*r).dump(-1, ' ', false, Json::error_handler_t::replace);
  return 0;
}
