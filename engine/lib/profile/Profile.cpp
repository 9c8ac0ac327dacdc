//===- Profile.cpp - One table of per-release behaviour -------------------===//
//
// Read from `jax/_src/cache_key.py` and `jax/_src/compilation_cache.py` in
// each jax wheel from 0.4.30 to 0.12.0.1 (docs/cache-key.md has the
// per-release account, with upstream file and line for each fact).
//
//===----------------------------------------------------------------------===//
#include "cachekey/Profile.h"

namespace cachekey {

const std::array<const char *, kNumEntries> kEntryNames = {
    "computation",     "jax_lib version",    "backend version", "XLA flags",
    "compile_options", "accelerator_config", "compression",     "custom_hook"};

namespace {

using K = ZeroKind;

// The exclusion list grew by appending, except for two TPU SDC-checker names
// inserted in 0.4.36; each list below is complete and in upstream order.
std::vector<std::string> excluded21() {
  return {"--xla_dump_compress_protos",
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
          "--xla_gpu_cuda_data_dir"};
}

std::vector<std::string> excluded24() {
  std::vector<std::string> names = excluded21();
  names.insert(names.end() - 1,
               {"--xla_tpu_sdc_checker_enable_coresweep_ng_callbacks",
                "--xla_tpu_sdc_checker_no_logging_if_callbacks_are_present"});
  names.push_back("--xla_gpu_experimental_autotune_cache_mode");
  return names;
}

std::vector<std::string> excluded25() {
  std::vector<std::string> names = excluded24();
  names.push_back("--xla_gpu_per_fusion_autotune_cache_dir");
  return names;
}

std::vector<std::string> excluded26() {
  std::vector<std::string> names = excluded25();
  names.push_back("--xla_tpu_compiler_variant");
  return names;
}

std::vector<ZeroedField> zeroed18() {
  return {{"xla_force_host_platform_device_count", 102, K::Varint},
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
          {"xla_gpu_cuda_data_dir", 61, K::String}};
}

std::vector<ZeroedField> zeroed19() {
  std::vector<ZeroedField> fields = zeroed18();
  fields.insert(fields.end() - 1,
                {"xla_gpu_experimental_autotune_cache_mode", 324, K::Varint});
  return fields;
}

std::vector<ZeroedField> zeroed20() {
  std::vector<ZeroedField> fields = zeroed19();
  fields.push_back({"xla_gpu_per_fusion_autotune_cache_dir", 310, K::String});
  return fields;
}

constexpr const char *kXlaRuntimeError =
    "<class 'jaxlib.xla_extension.XlaRuntimeError'>";
constexpr const char *kJaxlibXlaRuntimeError =
    "<class 'jaxlib._jax.XlaRuntimeError'>";
constexpr const char *kJaxRuntimeError =
    "<class 'jax.errors.JaxRuntimeError'>";

constexpr const char *kVerifiedOracle =
    "differential oracle (tools/oracle --jax RELEASE) against this release's "
    "own wheel; see docs/oracle-sweep.md";

std::vector<ProfileSpec> makeProfiles() {
  using P = Profile;
  using C = CallbackRule;
  using M = MosaicRule;
  std::vector<ProfileSpec> v;
  v.push_back({P::V0_4_33, "0.4.33",
               {"0.4.30", "0.4.31", "0.4.32", "0.4.33"},
               /*hasBackendVersion=*/false, /*hashesRuntimeType=*/true,
               AcceleratorRule::Serialize, FallbackRule::DeviceKindsAndBackend,
               C::None, M::None, CompressionRule::ZstandardImport,
               /*filtersEnvOverrides=*/false, /*explicitZeroes=*/false, excluded21(), zeroed18(),
               kXlaRuntimeError,
               "the oldest profile: seven entries (no backend version); entry "
               "6 feeds topology.serialize(), and its fallback feeds the "
               "device kinds, platform, platform_version and runtime_type",
               kVerifiedOracle});
  v.push_back({P::V0_4_35, "0.4.35", {"0.4.34", "0.4.35"}, false, true,
               AcceleratorRule::Serialize, FallbackRule::DeviceKindsAndBackend,
               C::CustomPartitioningConfig, M::None,
               CompressionRule::ZstandardImport, false, false, excluded21(),
               zeroed18(), kXlaRuntimeError,
               "jax_remove_custom_partitioning_ptr_from_cache_key replaces the "
               "backend_config of CustomSPMDPartitioning calls with "
               "\"REMOVED\"",
               kVerifiedOracle});
  v.push_back({P::V0_5_3, "0.5.3",
               {"0.4.36", "0.4.37", "0.4.38", "0.5.0", "0.5.1", "0.5.2",
                "0.5.3"},
               false, true, AcceleratorRule::Serialize,
               FallbackRule::DeviceKindsAndBackend, C::IgnoreCallbacksEnum,
               M::None, CompressionRule::ZstandardImport, true, false, excluded24(),
               zeroed19(), kXlaRuntimeError,
               "the ignore_callbacks argument (NO, ALL, CUSTOM_PARTITIONING); "
               "three more excluded flags (24); "
               "xla_gpu_experimental_autotune_cache_mode zeroed (19 fields); "
               "env_option_overrides named like an excluded flag dropped",
               kVerifiedOracle});
  // 0.6.0 – 0.8.1 share cache_key.py's behaviour (entry 3 with
  // runtime_type); they differ in what their jaxlib does: whether a zeroed
  // DebugOptions field is written (from jaxlib 0.7.0), the exception class
  // the fallback line names, and compilation_cache.py's Python 3.14 rule
  // (from 0.7.1).
  const char *entry3New =
      "entry 3 (backend version: platform, platform_version, runtime_type) is "
      "new, so eight entries; the entry-6 fallback feeds the device kinds "
      "only";
  v.push_back({P::V0_6_0, "0.6.0", {"0.6.0"}, true, true,
               AcceleratorRule::Serialize, FallbackRule::DeviceKinds,
               C::IgnoreCallbacksEnum, M::None,
               CompressionRule::ZstandardImport, true, false, excluded24(),
               zeroed19(), kXlaRuntimeError, entry3New, kVerifiedOracle});
  v.push_back({P::V0_6_2, "0.6.2", {"0.6.1", "0.6.2"}, true, true,
               AcceleratorRule::Serialize, FallbackRule::DeviceKinds,
               C::IgnoreCallbacksEnum, M::None,
               CompressionRule::ZstandardImport, true, false, excluded24(),
               zeroed19(), kJaxlibXlaRuntimeError,
               "the fallback line names jaxlib._jax.XlaRuntimeError (jaxlib's "
               "extension module was renamed)",
               kVerifiedOracle});
  v.push_back({P::V0_7_0, "0.7.0", {"0.7.0"}, true, true,
               AcceleratorRule::Serialize, FallbackRule::DeviceKinds,
               C::IgnoreCallbacksEnum, M::None,
               CompressionRule::ZstandardImport, true, true, excluded24(),
               zeroed19(), kJaxlibXlaRuntimeError,
               "jaxlib's DebugOptions keeps a zeroed field on the wire "
               "(explicit presence), so entry 5 carries the zeros",
               kVerifiedOracle});
  v.push_back({P::V0_7_2, "0.7.2", {"0.7.1", "0.7.2"}, true, true,
               AcceleratorRule::Serialize, FallbackRule::DeviceKinds,
               C::IgnoreCallbacksEnum, M::None,
               CompressionRule::StdlibZstdFirst, true, true, excluded24(),
               zeroed19(), kJaxlibXlaRuntimeError,
               "on Python 3.14 and later the key says \"zlib\" (the standard "
               "library's zstd is imported first)",
               kVerifiedOracle});
  v.push_back({P::V0_8_1, "0.8.1", {"0.8.0", "0.8.1"}, true, true,
               AcceleratorRule::Serialize, FallbackRule::DeviceKinds,
               C::IgnoreCallbacksEnum, M::None,
               CompressionRule::StdlibZstdFirst, true, true, excluded24(),
               zeroed19(), kJaxRuntimeError,
               "the fallback line names jax.errors.JaxRuntimeError",
               kVerifiedOracle});
  v.push_back({P::V0_9_2, "0.9.2",
               {"0.8.2", "0.8.3", "0.9.0", "0.9.0.1", "0.9.1", "0.9.2"}, true,
               false, AcceleratorRule::Serialize, FallbackRule::DeviceKinds,
               C::IgnoreCallbacksEnum, M::None,
               CompressionRule::StdlibZstdFirst, true, true, excluded24(),
               zeroed19(), kJaxRuntimeError,
               "entry 3 no longer feeds runtime_type", kVerifiedOracle});
  v.push_back({P::V0_10_2, "0.10.2", {"0.10.0", "0.10.1", "0.10.2"}, true,
               false, AcceleratorRule::Fingerprint, FallbackRule::DeviceKinds,
               C::IgnoreCallbacksEnum, M::None,
               CompressionRule::StdlibZstdFirst, true, true, excluded24(),
               zeroed19(), kJaxRuntimeError,
               "entry 6 feeds topology.fingerprint() as 8 bytes, big-endian, "
               "instead of the serialized topology",
               "captured fixtures and the differential oracle (1,000 "
               "scenarios on every CI run) against jax/jaxlib 0.10.2"});
  v.push_back({P::V0_11_0, "0.11.0", {"0.11.0"}, true, false,
               AcceleratorRule::Fingerprint, FallbackRule::DeviceKinds,
               C::IgnoreCustomPartitioningBool, M::SkipMissingBody,
               CompressionRule::StdlibZstdFirst, true, true, excluded25(),
               zeroed20(), kJaxRuntimeError,
               "ignore_custom_partitioning (a bool) replaces ignore_callbacks "
               "(no ALL mode); the Mosaic kernel step strips kernel bodies; "
               "--xla_gpu_per_fusion_autotune_cache_dir excluded and zeroed",
               kVerifiedOracle});
  v.push_back({P::V0_11_2, "0.11.2", {"0.11.1", "0.11.2"}, true, false,
               AcceleratorRule::Fingerprint, FallbackRule::DeviceKinds,
               C::IgnoreCustomPartitioningBool, M::SkipMissingBody,
               CompressionRule::StdlibZstdFirst, true, true, excluded26(),
               zeroed20(), kJaxRuntimeError,
               "--xla_tpu_compiler_variant excluded (26 names)",
               kVerifiedOracle});
  v.push_back({P::V0_12_0_1, "0.12.0.1", {"0.12.0", "0.12.0.1"}, true, false,
               AcceleratorRule::Fingerprint, FallbackRule::DeviceKinds,
               C::IgnoreCustomPartitioningBool, M::DeleteDebugLocations,
               CompressionRule::StdlibZstdFirst, true, true, excluded26(),
               zeroed20(), kJaxRuntimeError,
               "the Mosaic step deletes custom_call_config.debug_locations "
               "and leaves the body alone when that member exists, strips "
               "every other body (an empty one too), and raises KeyError "
               "when custom_call_config or body is missing",
               "captured fixtures and the differential oracle (on every CI "
               "run) against jax/jaxlib 0.12.0.1"});
  return v;
}

} // namespace

const std::vector<ProfileSpec> &allProfiles() {
  static const std::vector<ProfileSpec> profiles = makeProfiles();
  return profiles;
}

const ProfileSpec &profileSpec(Profile profile) {
  return allProfiles()[static_cast<size_t>(profile)];
}

const char *profileName(Profile profile) { return profileSpec(profile).id; }

Expected<Profile> parseProfile(const std::string &name) {
  if (name == kMainAlias)
    return kNewestProfile;
  for (const ProfileSpec &p : allProfiles()) {
    if (name == p.id)
      return p.profile;
    for (const char *release : p.releases)
      if (name == release)
        return p.profile;
  }
  std::string known;
  for (const ProfileSpec &p : allProfiles())
    known += (known.empty() ? "" : ", ") + std::string(p.releases.front()) +
             (p.releases.size() > 1 ? std::string("\u2013") + p.id : "");
  return Error{"",
               "unknown profile \"" + name +
                   "\": expected a jax release from 0.4.30 to " +
                   profileName(kNewestProfile) + " as pip spells it (" + known +
                   ") or \"main\"",
               ErrorCode::UnknownProfile, "", name};
}

} // namespace cachekey
