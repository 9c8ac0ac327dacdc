//===- Binding.cpp - What the Embind modules share ------------------------===//
#include "Binding.h"

namespace cachekey::wasm {

std::map<std::string, Json> &fixtures() {
  static std::map<std::string, Json> store;
  return store;
}

FixtureResolver resolver() {
  return [](const std::string &id) -> Expected<Json> {
    auto it = fixtures().find(id);
    if (it == fixtures().end())
      return Error{"", "unknown fixture \"" + id + "\"",
                   ErrorCode::UnknownFixture, "", id};
    return it->second;
  };
}

std::string dump(const Json &j) { return dumpJson(j); }

std::string errorText(const Error &e) { return dump(errorToJson(e)); }

Bytes copyBytes(const emscripten::val &arr, size_t n) {
  Bytes out(n, '\0');
  emscripten::val(emscripten::typed_memory_view(n, reinterpret_cast<uint8_t *>(out.data())))
      .call<void>("set", n == arr["length"].as<size_t>() ? arr
                                                          : arr.call<emscripten::val>("subarray", 0, double(n)));
  return out;
}

} // namespace cachekey::wasm
