//===- ScenarioChoices.cpp - Ready-made values for two ingredients --------===//
//
// Facts and their JSON; the words are ScenarioChoicesWording.cpp's.
//
//===----------------------------------------------------------------------===//
#include "cachekey/ScenarioChoices.h"

namespace cachekey {

namespace {

CompressionChoice named(const char *name) {
  CompressionChoice c;
  c.id = name;
  c.spec.name = name;
  return c;
}

CompressionChoice runtime(const char *id, const char *python, bool zstandardInstalled) {
  CompressionChoice c;
  c.id = id;
  c.spec.python = python;
  c.spec.zstandardInstalled = zstandardInstalled;
  return c;
}

} // namespace

const std::vector<CompressionChoice> &compressionChoices() {
  static const std::vector<CompressionChoice> choices = {
      named("zlib"),
      named("zstandard"),
      runtime("py313-zstd", "3.13", true),
      runtime("py313-nozstd", "3.13", false),
      runtime("py314-zstd", "3.14", true),
  };
  return choices;
}

const char *platformVersionKindName(PlatformVersionKind k) {
  switch (k) {
  case PlatformVersionKind::Cpu: return "cpu";
  case PlatformVersionKind::Gpu: return "gpu";
  case PlatformVersionKind::GpuPlugin: break;
  }
  return "gpu_plugin";
}

const std::vector<PlatformVersionChoice> &platformVersionChoices() {
  static const std::vector<PlatformVersionChoice> choices = {
      {PlatformVersionKind::Cpu, "cpu"},
      {PlatformVersionKind::Gpu, "cuda 12080"},
      {PlatformVersionKind::GpuPlugin, "PJRT C API\ncuda 12"},
  };
  return choices;
}

Json scenarioChoicesToJson() {
  Json compression = Json::array();
  for (const CompressionChoice &c : compressionChoices()) {
    Json j;
    j["code"] = c.spec.python ? "runtime" : "name";
    j["id"] = c.id;
    if (c.spec.python) {
      j["python"] = *c.spec.python;
      j["zstandard_installed"] = c.spec.zstandardInstalled;
      j["value"] = {{"python", *c.spec.python},
                    {"zstandard_installed", c.spec.zstandardInstalled}};
    } else {
      j["name"] = c.spec.name;
      j["value"] = c.spec.name;
    }
    j["text"] = compressionChoiceText(c);
    compression.push_back(std::move(j));
  }
  Json platformVersions = Json::array();
  for (const PlatformVersionChoice &c : platformVersionChoices())
    platformVersions.push_back({{"code", platformVersionKindName(c.kind)},
                                {"platform_version", c.platformVersion},
                                {"text", platformVersionChoiceText(c)}});
  Json out;
  out["compression"] = std::move(compression);
  out["platform_versions"] = std::move(platformVersions);
  return out;
}

} // namespace cachekey
