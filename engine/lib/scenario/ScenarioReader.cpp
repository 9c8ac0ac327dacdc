//===- ScenarioReader.cpp - A scenario document to a Scenario -------------===//
//
// Walks a scenario document (after `resolveBase`) member by member into the
// `Scenario` struct, with the typed reads of ScenarioSchema.h: every member is
// type-checked before it is used and every problem is an Error at its JSON
// path. The document is untrusted and exceptions are off (the wasm build has
// no C++ exception support), so nothing here may throw.
//
//===----------------------------------------------------------------------===//
#include "cachekey/Scenario.h"

#include "ScenarioSchema.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <utility>

namespace cachekey {

using namespace schema;

namespace {

Expected<ModuleSpec> readModule(const Json &j, const std::string &path) {
  if (!j.is_object())
    return typeError(path, "an object", j);
  CACHEKEY_TRY(checkKeys(j, path,
                {"sym_name", "entry1_b64", "text", "include_metadata",
                 "ignore_callbacks", "ignore_custom_partitioning"}));
  ModuleSpec m;
  bool hasEntry1 = member(j, "entry1_b64") && !j["entry1_b64"].is_null();
  bool hasText = member(j, "text") && !j["text"].is_null();
  if (hasEntry1 == hasText)
    return Error{path,
                 hasEntry1 ? "give either entry1_b64 or text, not both"
                           : "missing: give entry1_b64 (captured entry-1 "
                             "bytes) or text (MLIR to canonicalise)",
                 hasEntry1 ? ErrorCode::Invalid : ErrorCode::Missing};
  CACHEKEY_TRY(readString(j, "sym_name", path, m.symName, hasEntry1));
  if (hasEntry1) {
    Bytes b;
    CACHEKEY_TRY(readBase64(j, "entry1_b64", path, b));
    m.entry1 = std::move(b);
  } else {
    std::string t;
    CACHEKEY_TRY(readString(j, "text", path, t, true));
    // MLIR 19's bytecode reader can crash on corrupt input (an upstream
    // bug), and a scenario is untrusted; only `cachekey canonicalize FILE`
    // reads bytecode.
    if (t.compare(0, 4, "ML\xefR") == 0)
      return Error{keyPath(path, "text"),
                   "MLIR bytecode is not accepted in a scenario; give the "
                   "module as text (generic form), or its entry-1 bytes as "
                   "entry1_b64",
                   ErrorCode::Unsupported};
    m.text = std::move(t);
  }
  CACHEKEY_TRY(readBool(j, "include_metadata", path, m.includeMetadata));
  // The two profiles name the option differently (0.10.2: the enum
  // IgnoreCallbacks; main: the bool ignore_custom_partitioning). Either
  // spelling is read under either profile so that switching the profile keeps
  // the scenario valid; main has no ALL, so ALL there means the
  // custom-partitioning rewrite only.
  if (const Json *v = member(j, "ignore_callbacks")) {
    std::string p = keyPath(path, "ignore_callbacks");
    if (!v->is_string())
      return typeError(p, "a string", *v);
    const std::string &s = v->get_ref<const std::string &>();
    if (s == "NO")
      m.ignoreCallbacks = IgnoreCallbacks::No;
    else if (s == "ALL")
      m.ignoreCallbacks = IgnoreCallbacks::All;
    else if (s == "CUSTOM_PARTITIONING")
      m.ignoreCallbacks = IgnoreCallbacks::CustomPartitioning;
    else
      return Error{p, "unknown value \"" + s +
                          "\" (expected NO, ALL or CUSTOM_PARTITIONING)"};
    m.ignoreCustomPartitioning = m.ignoreCallbacks != IgnoreCallbacks::No;
  }
  if (member(j, "ignore_custom_partitioning")) {
    bool b = false;
    CACHEKEY_TRY(readBool(j, "ignore_custom_partitioning", path, b));
    if (member(j, "ignore_callbacks") && b != m.ignoreCustomPartitioning)
      return Error{keyPath(path, "ignore_custom_partitioning"),
                   "contradicts ignore_callbacks; give one of the two"};
    m.ignoreCustomPartitioning = b;
    if (!member(j, "ignore_callbacks"))
      m.ignoreCallbacks =
          b ? IgnoreCallbacks::CustomPartitioning : IgnoreCallbacks::No;
  }
  return m;
}

Expected<FlagInputs> readFlags(const Json &j, const std::string &path) {
  FlagInputs f;
  if (j.is_null())
    return f;
  if (!j.is_object())
    return typeError(path, "an object", j);
  CACHEKEY_TRY(checkKeys(j, path,
                {"XLA_FLAGS", "LIBTPU_INIT_ARGS", "argv", "extra_prefixes"}));
  CACHEKEY_TRY(readOptString(j, "XLA_FLAGS", path, f.xlaFlags));
  CACHEKEY_TRY(readOptString(j, "LIBTPU_INIT_ARGS", path, f.libtpuInitArgs));
  CACHEKEY_TRY(readStringArray(j, "argv", path, f.argv));
  CACHEKEY_TRY(readStringArray(j, "extra_prefixes", path, f.extraPrefixes));
  return f;
}

Expected<CompileOptionsEdits> readEdits(const Json &j, const std::string &path) {
  CompileOptionsEdits e;
  if (!j.is_object())
    return typeError(path, "an object", j);
  CACHEKEY_TRY(checkKeys(j, path,
                {"debug_options", "env_option_overrides", "device_assignment",
                 "num_replicas", "num_partitions", "fdo_profile_b64"}));
  if (const Json *d = member(j, "debug_options")) {
    std::string p = keyPath(path, "debug_options");
    if (!d->is_object())
      return typeError(p, "an object of DebugOptions field names", *d);
    for (auto it = d->begin(); it != d->end(); ++it) {
      if (!(it->is_boolean() || it->is_number() || it->is_string()))
        return typeError(keyPath(p, it.key()),
                         "a boolean, number or string", *it);
      e.debugOptions.emplace_back(it.key(), *it);
    }
  }
  if (const Json *o = member(j, "env_option_overrides")) {
    std::string p = keyPath(path, "env_option_overrides");
    if (!o->is_array())
      return typeError(p, "an array of [name, value] pairs", *o);
    std::vector<std::pair<std::string, OverrideValue>> list;
    for (size_t i = 0; i < o->size(); ++i) {
      const Json &pair = (*o)[i];
      std::string pp = indexPath(p, i);
      if (!pair.is_array() || pair.size() != 2 || !pair[0].is_string())
        return Error{pp, "expected a [name, value] pair with a string name"};
      const Json &v = pair[1];
      OverrideValue value;
      if (v.is_string())
        value = v.get<std::string>();
      else if (v.is_boolean())
        value = v.get<bool>();
      else if (v.is_number_integer()) {
        int64_t x = 0;
        CACHEKEY_TRY(readInt(v, indexPath(pp, 1), x, INT64_MIN, INT64_MAX));
        value = x;
      } else if (v.is_number_float())
        value = v.get<double>();
      else
        return typeError(indexPath(pp, 1), "a string, boolean or number", v);
      list.emplace_back(pair[0].get<std::string>(), std::move(value));
    }
    e.envOptionOverrides = std::move(list);
  }
  if (const Json *d = member(j, "device_assignment")) {
    std::string p = keyPath(path, "device_assignment");
    if (!d->is_array() || d->empty())
      return Error{p, "expected a non-empty array of R rows (replicas)"};
    std::vector<std::vector<int64_t>> rows;
    size_t cols = 0;
    for (size_t r = 0; r < d->size(); ++r) {
      const Json &row = (*d)[r];
      std::string rp = indexPath(p, r);
      if (!row.is_array() || row.empty())
        return Error{rp, "expected a non-empty array of C device ids "
                         "(one per computation)"};
      if (r == 0)
        cols = row.size();
      else if (row.size() != cols)
        return Error{rp, "row has " + std::to_string(row.size()) +
                             " columns; row 0 has " + std::to_string(cols)};
      std::vector<int64_t> ids;
      for (size_t c = 0; c < row.size(); ++c) {
        int64_t id = 0;
        CACHEKEY_TRY(readInt(row[c], indexPath(rp, c), id, 0, INT32_MAX));
        ids.push_back(id);
      }
      rows.push_back(std::move(ids));
    }
    e.deviceAssignment = std::move(rows);
  }
  // num_replicas is read before num_partitions: with both wrong, the first
  // error names num_replicas.
  const std::pair<const char *, std::optional<int64_t> *> counts[] = {
      {"num_replicas", &e.numReplicas}, {"num_partitions", &e.numPartitions}};
  for (const auto &[key, out] : counts) {
    if (const Json *v = member(j, key)) {
      int64_t x = 0;
      CACHEKEY_TRY(readInt(*v, keyPath(path, key), x, 0, INT32_MAX));
      *out = x;
    }
  }
  if (member(j, "fdo_profile_b64")) {
    Bytes b;
    CACHEKEY_TRY(readBase64(j, "fdo_profile_b64", path, b));
    e.fdoProfile = std::move(b);
  }
  return e;
}

Expected<CompileOptionsSpec> readCompileOptions(const Json &j,
                                                const std::string &path) {
  if (!j.is_object())
    return typeError(path, "an object", j);
  CACHEKEY_TRY(checkKeys(j, path, {"proto_b64", "edits", "xla_flags"}));
  CompileOptionsSpec c;
  CACHEKEY_TRY(readBase64(j, "proto_b64", path, c.proto));
  // xla_flags: the XLA_FLAGS XLA parsed for this proto (null: none), or
  // false when XLA parsed none of the scenario's flags (they were set after
  // XLA started, as in a test that changes os.environ).
  if (const Json *x = member(j, "xla_flags")) {
    if (x->is_boolean() && !x->get<bool>()) {
      // not parsed: the proto is used as given
    } else if (!x->is_null() && !x->is_string()) {
      return typeError(keyPath(path, "xla_flags"), "a string, null or false", *x);
    } else {
      c.parsedXlaFlags = x->is_string() ? x->get<std::string>() : std::string();
    }
  }
  if (const Json *e = member(j, "edits")) {
    auto edits = readEdits(*e, keyPath(path, "edits"));
    if (!edits)
      return edits.takeError();
    c.edits = std::move(*edits);
  }
  return c;
}

Expected<AcceleratorSpec> readAccelerator(const Json &j,
                                          const std::string &path) {
  if (!j.is_object())
    return typeError(path, "an object", j);
  CACHEKEY_TRY(checkKeys(j, path,
                {"fingerprint", "cpu_topology", "gpu_topology", "device_kinds",
                 "error", "error_type"}));
  size_t forms = j.count("fingerprint") + j.count("cpu_topology") +
                 j.count("gpu_topology") + j.count("device_kinds");
  if (forms != 1)
    return Error{path, "expected exactly one of: fingerprint, cpu_topology, "
                       "gpu_topology, device_kinds (got " +
                           std::to_string(forms) + ")"};
  if ((j.count("error") || j.count("error_type")) && !j.count("device_kinds"))
    return Error{keyPath(path, "error"),
                 "only the device_kinds fallback carries a runtime error"};
  if (const Json *f = member(j, "fingerprint")) {
    std::string p = keyPath(path, "fingerprint");
    if (!f->is_object())
      return typeError(p, "an object", *f);
    CACHEKEY_TRY(checkKeys(*f, p, {"value", "provenance", "stand_in"}));
    FingerprintSpec s;
    std::string hex;
    CACHEKEY_TRY(readString(*f, "value", p, hex, true));
    bool ok = hex.size() == 16;
    for (char c : hex)
      ok = ok && ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'));
    if (!ok)
      return Error{keyPath(p, "value"),
                   "expected 16 lowercase hex digits (the 64-bit fingerprint, "
                   "most significant first), got \"" + hex + "\""};
    s.value = std::strtoull(hex.c_str(), nullptr, 16);
    CACHEKEY_TRY(readString(*f, "provenance", p, s.provenance, true));
    CACHEKEY_TRY(readBool(*f, "stand_in", p, s.standIn));
    return AcceleratorSpec(s);
  }
  if (const Json *t = member(j, "cpu_topology")) {
    std::string p = keyPath(path, "cpu_topology");
    if (!t->is_object())
      return typeError(p, "an object", *t);
    CACHEKEY_TRY(checkKeys(*t, p, {"devices", "target_machine", "machine_attributes"}));
    CpuTopology topo;
    const Json *devs = member(*t, "devices");
    if (!devs || !devs->is_array())
      return Error{keyPath(p, "devices"), "expected an array of devices"};
    for (size_t i = 0; i < devs->size(); ++i) {
      const Json &d = (*devs)[i];
      std::string dp = indexPath(keyPath(p, "devices"), i);
      if (!d.is_object())
        return typeError(dp, "an object", d);
      CACHEKEY_TRY(checkKeys(d, dp, {"process_index", "local_hardware_id"}));
      CpuDevice dev;
      if (const Json *v = member(d, "process_index"))
        CACHEKEY_TRY(readInt(*v, keyPath(dp, "process_index"), dev.processIndex,
                    INT32_MIN, INT32_MAX));
      if (const Json *v = member(d, "local_hardware_id"))
        CACHEKEY_TRY(readInt(*v, keyPath(dp, "local_hardware_id"), dev.localHardwareId,
                    INT32_MIN, INT32_MAX));
      topo.devices.push_back(dev);
    }
    if (member(*t, "machine_attributes")) {
      if (member(*t, "target_machine"))
        return Error{keyPath(p, "machine_attributes"),
                     "give target_machine or machine_attributes, not both"};
      std::vector<std::string> attrs;
      CACHEKEY_TRY(readStringArray(*t, "machine_attributes", p, attrs));
      topo.machineAttributes = std::move(attrs);
      return AcceleratorSpec(topo);
    }
    const Json *tm = member(*t, "target_machine");
    std::string tp = keyPath(p, "target_machine");
    if (!tm || !tm->is_object())
      return Error{tp, "expected an object with triple, cpu, features (or "
                       "machine_attributes, for jaxlib before 0.9.1)",
                   ErrorCode::Missing};
    CACHEKEY_TRY(checkKeys(*tm, tp, {"triple", "cpu", "features"}));
    CACHEKEY_TRY(readString(*tm, "triple", tp, topo.triple, false));
    CACHEKEY_TRY(readString(*tm, "cpu", tp, topo.cpu, false));
    CACHEKEY_TRY(readString(*tm, "features", tp, topo.features, false));
    return AcceleratorSpec(topo);
  }
  if (const Json *g = member(j, "gpu_topology")) {
    std::string p = keyPath(path, "gpu_topology");
    if (!g->is_object())
      return typeError(p, "an object", *g);
    CACHEKEY_TRY(checkKeys(*g, p,
                  {"platform_version", "num_partitions",
                   "num_hosts_per_partition", "num_devices_per_host",
                   "num_devices_per_process"}));
    GpuTopology topo;
    CACHEKEY_TRY(readString(*g, "platform_version", p, topo.platformVersion, false));
    if (const Json *v = member(*g, "num_partitions"))
      CACHEKEY_TRY(readInt(*v, keyPath(p, "num_partitions"), topo.numPartitions,
                  INT32_MIN, INT32_MAX));
    if (const Json *v = member(*g, "num_hosts_per_partition"))
      CACHEKEY_TRY(readInt(*v, keyPath(p, "num_hosts_per_partition"),
                  topo.numHostsPerPartition, INT32_MIN, INT32_MAX));
    if (const Json *v = member(*g, "num_devices_per_host"))
      CACHEKEY_TRY(readInt(*v, keyPath(p, "num_devices_per_host"),
                  topo.numDevicesPerHost, INT32_MIN, INT32_MAX));
    if (const Json *v = member(*g, "num_devices_per_process")) {
      int32_t x = 0;
      CACHEKEY_TRY(readInt(*v, keyPath(p, "num_devices_per_process"), x, INT32_MIN,
                  INT32_MAX));
      topo.numDevicesPerProcess = x;
    }
    return AcceleratorSpec(topo);
  }
  if (member(j, "device_kinds")) {
    DeviceKinds k;
    CACHEKEY_TRY(readStringArray(j, "device_kinds", path, k.kinds));
    return AcceleratorSpec(k);
  }
  return Error{path, "expected exactly one of: fingerprint, cpu_topology, "
                     "gpu_topology, device_kinds"};
}

Expected<CompressionSpec> readCompression(const Json &j,
                                          const std::string &path) {
  CompressionSpec c;
  if (j.is_string()) {
    // Any string: `cache_key.get` hashes whatever name it is given.
    c.name = j.get<std::string>();
    return c;
  }
  if (!j.is_object())
    return typeError(path, "a string (the name) or an object (the runtime)", j);
  CACHEKEY_TRY(checkKeys(j, path, {"python", "zstandard_installed"}));
  std::string py;
  CACHEKEY_TRY(readString(j, "python", path, py, true));
  int major = 0, minor = 0, used = 0;
  if (py.size() > 7 ||
      std::sscanf(py.c_str(), "%d.%d%n", &major, &minor, &used) != 2 ||
      used != static_cast<int>(py.size()) || major < 3 || minor < 0)
    return Error{keyPath(path, "python"),
                 "expected a Python version such as \"3.13\", got \"" + py +
                     "\""};
  c.python = py;
  CACHEKEY_TRY(readBool(j, "zstandard_installed", path, c.zstandardInstalled));
  return c;
}

} // namespace

Expected<Scenario> scenarioFromJson(const Json &j) {
  if (!j.is_object())
    return typeError("$", "a JSON object", j);
  CACHEKEY_TRY(checkSchemaVersion(j));
  std::vector<const char *> topLevel = kIngredientKeys;
  topLevel.insert(topLevel.end(), kAnnotationKeys.begin(), kAnnotationKeys.end());
  CACHEKEY_TRY(checkKeys(j, "$", topLevel));
  Scenario s;
  std::string profile = kMainAlias;
  CACHEKEY_TRY(readString(j, "profile", "$", profile, false));
  auto p = parseProfile(profile);
  if (!p)
    return p.takeError("$.profile");
  s.profile = *p;

  const Json *m = member(j, "module");
  if (!m)
    return Error{"$.module", "missing", ErrorCode::Missing};
  auto module = readModule(*m, "$.module");
  if (!module)
    return module.takeError();
  s.module = std::move(*module);

  CACHEKEY_TRY(readString(j, "jaxlib_version", "$", s.jaxlibVersion, true));

  const Json *b = member(j, "backend");
  if (!b)
    return Error{"$.backend", "missing (platform and platform_version)",
                 ErrorCode::Missing};
  if (!b->is_object())
    return typeError("$.backend", "an object", *b);
  CACHEKEY_TRY(checkKeys(*b, "$.backend",
                         {"platform", "platform_version", "runtime_type"}));
  CACHEKEY_TRY(readString(*b, "platform", "$.backend", s.platform, true));
  CACHEKEY_TRY(readString(*b, "platform_version", "$.backend",
                          s.platformVersion, true));
  CACHEKEY_TRY(readString(*b, "runtime_type", "$.backend", s.runtimeType, false));

  if (const Json *f = member(j, "flags")) {
    auto flags = readFlags(*f, "$.flags");
    if (!flags)
      return flags.takeError();
    s.flags = std::move(*flags);
  }

  const Json *c = member(j, "compile_options");
  if (!c)
    return Error{"$.compile_options", "missing (proto_b64 is required)",
                 ErrorCode::Missing};
  auto co = readCompileOptions(*c, "$.compile_options");
  if (!co)
    return co.takeError();
  s.compileOptions = std::move(*co);

  const Json *a = member(j, "accelerator");
  if (!a)
    return Error{"$.accelerator", "missing", ErrorCode::Missing};
  auto acc = readAccelerator(*a, "$.accelerator");
  if (!acc)
    return acc.takeError();
  s.accelerator = std::move(*acc);
  if (auto *kinds = std::get_if<DeviceKinds>(&s.accelerator)) {
    CACHEKEY_TRY(readString(*a, "error", "$.accelerator", kinds->error, false));
    CACHEKEY_TRY(readString(*a, "error_type", "$.accelerator", kinds->errorType,
                            false));
  }

  if (const Json *comp = member(j, "compression")) {
    auto cs = readCompression(*comp, "$.compression");
    if (!cs)
      return cs.takeError();
    s.compression = std::move(*cs);
  }
  CACHEKEY_TRY(readString(j, "custom_hook", "$", s.customHook, false));
  return s;
}

Expected<Scenario> readScenario(const Json &document,
                                const FixtureResolver &resolver) {
  auto resolved = resolveBase(document, resolver);
  if (!resolved)
    return resolved.takeError();
  return scenarioFromJson(*resolved);
}

} // namespace cachekey
