//===- Profile.cpp - Per-version tables ------------------------------------===//
//
// Facts read from jax-ml/jax `jax/_src/cache_key.py` at the two versions the
// explainer reproduces (see ../shared/spec/cache-key-reference.md §4, §5).
//
//===----------------------------------------------------------------------===//
#include "cachekey/Profile.h"

namespace cachekey {

const char *profileName(Profile profile) {
  return profile == Profile::Main ? "main" : "0.10.2";
}

Expected<Profile> parseProfile(const std::string &name) {
  if (name == "main")
    return Profile::Main;
  if (name == "0.10.2")
    return Profile::V0_10_2;
  return Error{"", "unknown profile \"" + name +
                       "\" (expected \"main\" or \"0.10.2\")"};
}

const std::vector<std::string> &excludedFlagNames(Profile profile) {
  static const std::vector<std::string> common = {
      "--xla_dump_compress_protos",
      "--xla_dump_module_metadata",
      "--xla_dump_max_hlo_modules",
      "--xla_dump_include_timestamp",
      "--xla_dump_hlo_pass_re",
      "--xla_dump_hlo_module_re",
      "--xla_dump_hlo_snapshots",
      "--xla_dump_fusion_visualization",
      "--xla_dump_hlo_as_url",
      "--xla_dump_hlo_as_proto",
      "--xla_dump_hlo_as_text",
      "--xla_dump_hlo_as_long_text",
      "--xla_dump_hlo_as_html",
      "--xla_dump_hlo_as_dot",
      "--xla_dump_to",
      "--xla_force_host_platform_device_count",
      "--xla_dump_disable_metadata",
      "--xla_dump_hlo_pipeline_re",
      "--xla_tpu_sdc_checker_streamz_metric",
      "--xla_tpu_sdc_checker_enable_sdc_event_callbacks",
      "--xla_tpu_sdc_checker_enable_coresweep_ng_callbacks",
      "--xla_tpu_sdc_checker_no_logging_if_callbacks_are_present",
      "--xla_gpu_cuda_data_dir",
      "--xla_gpu_experimental_autotune_cache_mode",
  };
  static const std::vector<std::string> main = [] {
    std::vector<std::string> names = common;
    names.push_back("--xla_gpu_per_fusion_autotune_cache_dir");
    names.push_back("--xla_tpu_compiler_variant");
    return names;
  }();
  return profile == Profile::Main ? main : common;
}

const std::vector<ZeroedField> &zeroedDebugFields(Profile profile) {
  using K = ZeroKind;
  static const std::vector<ZeroedField> common = {
      {"xla_force_host_platform_device_count", 102, K::Varint},
      {"xla_dump_to", 109, K::String},
      {"xla_dump_hlo_module_re", 110, K::String},
      {"xla_dump_hlo_pass_re", 111, K::String},
      {"xla_dump_hlo_as_text", 112, K::Varint},
      {"xla_dump_hlo_as_proto", 113, K::Varint},
      {"xla_dump_hlo_as_dot", 114, K::Varint},
      {"xla_dump_hlo_as_url", 115, K::Varint},
      {"xla_dump_hlo_as_html", 116, K::Varint},
      {"xla_dump_fusion_visualization", 149, K::Varint},
      {"xla_dump_hlo_snapshots", 118, K::Varint},
      {"xla_dump_max_hlo_modules", 132, K::Varint},
      {"xla_dump_module_metadata", 144, K::Varint},
      {"xla_dump_compress_protos", 151, K::Varint},
      {"xla_dump_hlo_as_long_text", 164, K::Varint},
      {"xla_dump_disable_metadata", 153, K::Varint},
      {"xla_dump_hlo_pipeline_re", 154, K::String},
      {"xla_gpu_experimental_autotune_cache_mode", 324, K::Varint},
      {"xla_gpu_cuda_data_dir", 61, K::String},
  };
  static const std::vector<ZeroedField> main = [] {
    std::vector<ZeroedField> fields = common;
    fields.push_back({"xla_gpu_per_fusion_autotune_cache_dir", 310, K::String});
    return fields;
  }();
  return profile == Profile::Main ? main : common;
}

} // namespace cachekey
