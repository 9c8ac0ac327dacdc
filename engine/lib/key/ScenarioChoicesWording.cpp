//===- ScenarioChoicesWording.cpp - The pickers' labels -------------------===//
//
// The only place the choices of ScenarioChoices.h get words.
//
//===----------------------------------------------------------------------===//
#include "cachekey/ScenarioChoices.h"

namespace cachekey {

std::string compressionChoiceText(const CompressionChoice &c) {
  if (!c.spec.python)
    return c.spec.name + " (name given directly)";
  return "Python " + *c.spec.python + ", zstandard " +
         (c.spec.zstandardInstalled ? "installed" : "not installed");
}

std::string platformVersionChoiceText(const PlatformVersionChoice &c) {
  std::string lines;
  for (char ch : c.platformVersion)
    lines += ch == '\n' ? std::string(" / ") : std::string(1, ch);
  switch (c.kind) {
  case PlatformVersionKind::Cpu: return lines;
  case PlatformVersionKind::Gpu: return "GPU: " + lines;
  case PlatformVersionKind::GpuPlugin: break;
  }
  return "GPU through the plugin: " + lines;
}

} // namespace cachekey
