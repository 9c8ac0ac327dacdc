//===- Scenario.cpp - Strict reader for the scenario format ---------------===//
//
// Exception-free: nlohmann::json is used with allow_exceptions=false and every
// access is type-checked first, so the wasm build can run without C++
// exception support and a bad document can never abort the instance.
//
//===----------------------------------------------------------------------===//
#include "cachekey/Scenario.h"

#include <cstdlib>
#include <set>

namespace cachekey {
namespace {

/// Collects the first syntax error nlohmann's SAX parser reports.
struct ErrorSax : nlohmann::json_sax<Json> {
  std::string message;
  bool null() override { return true; }
  bool boolean(bool) override { return true; }
  bool number_integer(number_integer_t) override { return true; }
  bool number_unsigned(number_unsigned_t) override { return true; }
  bool number_float(number_float_t, const string_t &) override { return true; }
  bool string(string_t &) override { return true; }
  bool binary(binary_t &) override { return true; }
  bool start_object(std::size_t) override { return true; }
  bool key(string_t &) override { return true; }
  bool end_object() override { return true; }
  bool start_array(std::size_t) override { return true; }
  bool end_array() override { return true; }
  bool parse_error(std::size_t, const std::string &,
                   const nlohmann::detail::exception &ex) override {
    message = ex.what();
    return false;
  }
};

const char *typeName(const Json &j) {
  switch (j.type()) {
  case Json::value_t::null: return "null";
  case Json::value_t::object: return "object";
  case Json::value_t::array: return "array";
  case Json::value_t::string: return "string";
  case Json::value_t::boolean: return "boolean";
  case Json::value_t::number_integer:
  case Json::value_t::number_unsigned: return "integer";
  case Json::value_t::number_float: return "number";
  default: return "value";
  }
}

Error typeError(const std::string &path, const char *want, const Json &got) {
  return Error{path, std::string("expected ") + want + ", got " + typeName(got)};
}

std::string keyPath(const std::string &path, const std::string &key) {
  return path + "." + key;
}

std::string indexPath(const std::string &path, size_t i) {
  return path + "[" + std::to_string(i) + "]";
}

/// Rejects keys outside `allowed`, naming the first unknown one.
std::optional<Error> checkKeys(const Json &obj, const std::string &path,
                               std::initializer_list<const char *> allowed) {
  for (auto it = obj.begin(); it != obj.end(); ++it) {
    bool ok = false;
    for (const char *a : allowed)
      ok = ok || it.key() == a;
    if (!ok) {
      std::string list;
      for (const char *a : allowed)
        list += std::string(list.empty() ? "" : ", ") + a;
      return Error{keyPath(path, it.key()),
                   "unknown key (expected one of: " + list + ")"};
    }
  }
  return std::nullopt;
}

const Json *member(const Json &obj, const char *key) {
  auto it = obj.find(key);
  return it == obj.end() ? nullptr : &*it;
}

std::optional<Error> readString(const Json &obj, const char *key,
                                const std::string &path, std::string &out,
                                bool required) {
  const Json *v = member(obj, key);
  if (!v) {
    if (required)
      return Error{keyPath(path, key), "missing (a string is required)"};
    return std::nullopt;
  }
  if (!v->is_string())
    return typeError(keyPath(path, key), "a string", *v);
  out = v->get_ref<const std::string &>();
  return std::nullopt;
}

std::optional<Error> readOptString(const Json &obj, const char *key,
                                   const std::string &path,
                                   std::optional<std::string> &out) {
  const Json *v = member(obj, key);
  if (!v || v->is_null())
    return std::nullopt;
  if (!v->is_string())
    return typeError(keyPath(path, key), "a string or null", *v);
  out = v->get_ref<const std::string &>();
  return std::nullopt;
}

std::optional<Error> readBool(const Json &obj, const char *key,
                              const std::string &path, bool &out) {
  const Json *v = member(obj, key);
  if (!v)
    return std::nullopt;
  if (!v->is_boolean())
    return typeError(keyPath(path, key), "a boolean", *v);
  out = v->get<bool>();
  return std::nullopt;
}

template <typename Int>
std::optional<Error> readInt(const Json &v, const std::string &path, Int &out,
                             int64_t lo, int64_t hi) {
  if (!v.is_number_integer())
    return typeError(path, "an integer", v);
  if (v.is_number_unsigned() && v.get<uint64_t>() > static_cast<uint64_t>(hi))
    return Error{path, "integer out of range"};
  int64_t x = v.get<int64_t>();
  if (x < lo || x > hi)
    return Error{path, "integer " + std::to_string(x) + " out of range [" +
                           std::to_string(lo) + ", " + std::to_string(hi) + "]"};
  out = static_cast<Int>(x);
  return std::nullopt;
}

std::optional<Error> readStringArray(const Json &obj, const char *key,
                                     const std::string &path,
                                     std::vector<std::string> &out) {
  const Json *v = member(obj, key);
  if (!v || v->is_null())
    return std::nullopt;
  std::string p = keyPath(path, key);
  if (!v->is_array())
    return typeError(p, "an array of strings", *v);
  for (size_t i = 0; i < v->size(); ++i) {
    if (!(*v)[i].is_string())
      return typeError(indexPath(p, i), "a string", (*v)[i]);
    out.push_back((*v)[i].get<std::string>());
  }
  return std::nullopt;
}

std::optional<Error> readBase64(const Json &obj, const char *key,
                                const std::string &path, Bytes &out) {
  std::string text;
  if (auto e = readString(obj, key, path, text, true))
    return e;
  auto bytes = base64Decode(text);
  if (!bytes)
    return Error{keyPath(path, key), bytes.error().message};
  out = std::move(*bytes);
  return std::nullopt;
}

#define TRY(expr)                                                              \
  if (auto err_ = (expr))                                                      \
    return *err_;

Expected<ModuleSpec> readModule(const Json &j, const std::string &path,
                                Profile profile) {
  if (!j.is_object())
    return typeError(path, "an object", j);
  TRY(checkKeys(j, path,
                {"sym_name", "entry1_b64", "text", "include_metadata",
                 "ignore_callbacks", "ignore_custom_partitioning"}));
  ModuleSpec m;
  bool hasEntry1 = member(j, "entry1_b64") && !j["entry1_b64"].is_null();
  bool hasText = member(j, "text") && !j["text"].is_null();
  if (hasEntry1 == hasText)
    return Error{path, hasEntry1 ? "give either entry1_b64 or text, not both"
                                 : "missing: give entry1_b64 (captured entry-1 "
                                   "bytes) or text (MLIR to canonicalise)"};
  TRY(readString(j, "sym_name", path, m.symName, hasEntry1));
  if (hasEntry1) {
    Bytes b;
    TRY(readBase64(j, "entry1_b64", path, b));
    m.entry1 = std::move(b);
  } else {
    std::string t;
    TRY(readString(j, "text", path, t, true));
    // MLIR 19's bytecode reader can crash on corrupt input (an upstream
    // bug), and a scenario is untrusted; only `cachekey canonicalize FILE`
    // reads bytecode.
    if (t.compare(0, 4, "ML\xefR") == 0)
      return Error{keyPath(path, "text"),
                   "MLIR bytecode is not accepted in a scenario; give the "
                   "module as text (generic form), or its entry-1 bytes as "
                   "entry1_b64"};
    m.text = std::move(t);
  }
  TRY(readBool(j, "include_metadata", path, m.includeMetadata));
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
  if (const Json *v = member(j, "ignore_custom_partitioning")) {
    bool b = false;
    TRY(readBool(j, "ignore_custom_partitioning", path, b));
    if (member(j, "ignore_callbacks") && b != m.ignoreCustomPartitioning)
      return Error{keyPath(path, "ignore_custom_partitioning"),
                   "contradicts ignore_callbacks; give one of the two"};
    (void)v;
    m.ignoreCustomPartitioning = b;
    if (!member(j, "ignore_callbacks"))
      m.ignoreCallbacks =
          b ? IgnoreCallbacks::CustomPartitioning : IgnoreCallbacks::No;
  }
  (void)profile;
  return m;
}

Expected<FlagInputs> readFlags(const Json &j, const std::string &path) {
  FlagInputs f;
  if (j.is_null())
    return f;
  if (!j.is_object())
    return typeError(path, "an object", j);
  TRY(checkKeys(j, path,
                {"XLA_FLAGS", "LIBTPU_INIT_ARGS", "argv", "extra_prefixes"}));
  TRY(readOptString(j, "XLA_FLAGS", path, f.xlaFlags));
  TRY(readOptString(j, "LIBTPU_INIT_ARGS", path, f.libtpuInitArgs));
  TRY(readStringArray(j, "argv", path, f.argv));
  TRY(readStringArray(j, "extra_prefixes", path, f.extraPrefixes));
  return f;
}

Expected<CompileOptionsEdits> readEdits(const Json &j, const std::string &path) {
  CompileOptionsEdits e;
  if (!j.is_object())
    return typeError(path, "an object", j);
  TRY(checkKeys(j, path,
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
        TRY(readInt(v, indexPath(pp, 1), x, INT64_MIN, INT64_MAX));
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
        TRY(readInt(row[c], indexPath(rp, c), id, 0, INT32_MAX));
        ids.push_back(id);
      }
      rows.push_back(std::move(ids));
    }
    e.deviceAssignment = std::move(rows);
  }
  for (const char *k : {"num_replicas", "num_partitions"}) {
    if (const Json *v = member(j, k)) {
      int64_t x = 0;
      TRY(readInt(*v, keyPath(path, k), x, 0, INT32_MAX));
      (std::string(k) == "num_replicas" ? e.numReplicas : e.numPartitions) = x;
    }
  }
  if (member(j, "fdo_profile_b64")) {
    Bytes b;
    TRY(readBase64(j, "fdo_profile_b64", path, b));
    e.fdoProfile = std::move(b);
  }
  return e;
}

Expected<CompileOptionsSpec> readCompileOptions(const Json &j,
                                                const std::string &path) {
  if (!j.is_object())
    return typeError(path, "an object", j);
  TRY(checkKeys(j, path, {"proto_b64", "edits"}));
  CompileOptionsSpec c;
  TRY(readBase64(j, "proto_b64", path, c.proto));
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
  TRY(checkKeys(j, path,
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
    TRY(checkKeys(*f, p, {"value", "provenance", "stand_in"}));
    FingerprintSpec s;
    std::string hex;
    TRY(readString(*f, "value", p, hex, true));
    bool ok = hex.size() == 16;
    for (char c : hex)
      ok = ok && ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'));
    if (!ok)
      return Error{keyPath(p, "value"),
                   "expected 16 lowercase hex digits (the 64-bit fingerprint, "
                   "most significant first), got \"" + hex + "\""};
    s.value = std::strtoull(hex.c_str(), nullptr, 16);
    TRY(readString(*f, "provenance", p, s.provenance, true));
    TRY(readBool(*f, "stand_in", p, s.standIn));
    return AcceleratorSpec(s);
  }
  if (const Json *t = member(j, "cpu_topology")) {
    std::string p = keyPath(path, "cpu_topology");
    if (!t->is_object())
      return typeError(p, "an object", *t);
    TRY(checkKeys(*t, p, {"devices", "target_machine"}));
    CpuTopology topo;
    const Json *devs = member(*t, "devices");
    if (!devs || !devs->is_array())
      return Error{keyPath(p, "devices"), "expected an array of devices"};
    for (size_t i = 0; i < devs->size(); ++i) {
      const Json &d = (*devs)[i];
      std::string dp = indexPath(keyPath(p, "devices"), i);
      if (!d.is_object())
        return typeError(dp, "an object", d);
      TRY(checkKeys(d, dp, {"process_index", "local_hardware_id"}));
      CpuDevice dev;
      if (const Json *v = member(d, "process_index"))
        TRY(readInt(*v, keyPath(dp, "process_index"), dev.processIndex,
                    INT32_MIN, INT32_MAX));
      if (const Json *v = member(d, "local_hardware_id"))
        TRY(readInt(*v, keyPath(dp, "local_hardware_id"), dev.localHardwareId,
                    INT32_MIN, INT32_MAX));
      topo.devices.push_back(dev);
    }
    const Json *tm = member(*t, "target_machine");
    std::string tp = keyPath(p, "target_machine");
    if (!tm || !tm->is_object())
      return Error{tp, "expected an object with triple, cpu, features"};
    TRY(checkKeys(*tm, tp, {"triple", "cpu", "features"}));
    TRY(readString(*tm, "triple", tp, topo.triple, false));
    TRY(readString(*tm, "cpu", tp, topo.cpu, false));
    TRY(readString(*tm, "features", tp, topo.features, false));
    return AcceleratorSpec(topo);
  }
  if (const Json *g = member(j, "gpu_topology")) {
    std::string p = keyPath(path, "gpu_topology");
    if (!g->is_object())
      return typeError(p, "an object", *g);
    TRY(checkKeys(*g, p,
                  {"platform_version", "num_partitions",
                   "num_hosts_per_partition", "num_devices_per_host",
                   "num_devices_per_process"}));
    GpuTopology topo;
    TRY(readString(*g, "platform_version", p, topo.platformVersion, false));
    if (const Json *v = member(*g, "num_partitions"))
      TRY(readInt(*v, keyPath(p, "num_partitions"), topo.numPartitions,
                  INT32_MIN, INT32_MAX));
    if (const Json *v = member(*g, "num_hosts_per_partition"))
      TRY(readInt(*v, keyPath(p, "num_hosts_per_partition"),
                  topo.numHostsPerPartition, INT32_MIN, INT32_MAX));
    if (const Json *v = member(*g, "num_devices_per_host"))
      TRY(readInt(*v, keyPath(p, "num_devices_per_host"),
                  topo.numDevicesPerHost, INT32_MIN, INT32_MAX));
    if (const Json *v = member(*g, "num_devices_per_process")) {
      int32_t x = 0;
      TRY(readInt(*v, keyPath(p, "num_devices_per_process"), x, INT32_MIN,
                  INT32_MAX));
      topo.numDevicesPerProcess = x;
    }
    return AcceleratorSpec(topo);
  }
  if (member(j, "device_kinds")) {
    DeviceKinds k;
    TRY(readStringArray(j, "device_kinds", path, k.kinds));
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
  TRY(checkKeys(j, path, {"python", "zstandard_installed"}));
  std::string py;
  TRY(readString(j, "python", path, py, true));
  int major = 0, minor = 0, used = 0;
  if (py.size() > 7 ||
      std::sscanf(py.c_str(), "%d.%d%n", &major, &minor, &used) != 2 ||
      used != static_cast<int>(py.size()) || major < 3 || minor < 0)
    return Error{keyPath(path, "python"),
                 "expected a Python version such as \"3.13\", got \"" + py +
                     "\""};
  c.python = py;
  TRY(readBool(j, "zstandard_installed", path, c.zstandardInstalled));
  return c;
}

} // namespace

Expected<Json> parseJsonText(const std::string &text, const std::string &what) {
  // Later steps (copies, merge patch, dump) recurse per level; a scenario
  // never needs more than a handful, so refuse absurd nesting up front.
  constexpr int kMaxDepth = 64;
  bool tooDeep = false;
  Json::parser_callback_t limitDepth = [&](int depth, Json::parse_event_t,
                                           Json &) {
    if (depth > kMaxDepth)
      tooDeep = true;
    return !tooDeep;
  };
  Json j = Json::parse(text, limitDepth, /*allow_exceptions=*/false);
  if (tooDeep)
    return Error{"$", "malformed " + what + " JSON: nested deeper than " +
                          std::to_string(kMaxDepth) + " levels"};
  if (!j.is_discarded())
    return j;
  ErrorSax sax;
  Json::sax_parse(text, &sax);
  return Error{"$", "malformed " + what + " JSON: " + sax.message};
}

namespace {
/// Applies `patch` (without "base") over the fully resolved `merged`.
Json applyPatch(Json merged, Json patch) {
  // Union-valued members are replaced, not merged: a patch that picks a form
  // (another accelerator form, compression as a name or a runtime, module
  // bytes or module text) must not inherit the base's other form.
  for (const char *k : {"accelerator", "compression"})
    if (patch.contains(k) && merged.contains(k))
      merged.erase(k);
  if (patch.contains("module") && patch["module"].is_object() &&
      merged.contains("module") && merged["module"].is_object()) {
    Json &m = merged["module"];
    if (patch["module"].contains("text")) {
      m.erase("entry1_b64");
      m.erase("sym_name"); // read from the text, unless the patch names it
    }
    if (patch["module"].contains("entry1_b64"))
      m.erase("text");
    if (patch["module"].contains("ignore_callbacks"))
      m.erase("ignore_custom_partitioning");
    if (patch["module"].contains("ignore_custom_partitioning"))
      m.erase("ignore_callbacks");
  }
  // Annotations describe the fixture, not the patched scenario.
  for (const char *k : {"id", "title", "description", "provenance",
                        "expected", "capture", "notes"})
    merged.erase(k);
  merged.merge_patch(patch);
  return merged;
}

/// Resolves `doc`'s base chain bottom-up: the base is resolved completely
/// before this document's patch is applied, so a null in the patch deletes
/// the key wherever in the chain it was set.
Expected<Json> resolveChain(const Json &doc, const FixtureResolver &resolver,
                            int depth) {
  auto it = doc.find("base");
  if (it == doc.end())
    return doc;
  if (depth >= 8)
    return Error{"$.base", "base chain deeper than 8 fixtures"};
  if (!it->is_string())
    return typeError("$.base", "a fixture id string", *it);
  std::string id = it->get<std::string>();
  if (!resolver)
    return Error{"$.base", "no fixtures are available to resolve \"" + id +
                               "\""};
  auto base = resolver(id);
  if (!base)
    return Error{"$.base", base.error().message};
  if (!base->is_object())
    return Error{"$.base", "fixture \"" + id + "\" is not a JSON object"};
  auto resolved = resolveChain(*base, resolver, depth + 1);
  if (!resolved)
    return resolved;
  Json patch = doc;
  patch.erase("base");
  return applyPatch(std::move(*resolved), std::move(patch));
}
} // namespace

Expected<Json> resolveBase(const Json &document,
                           const FixtureResolver &resolver) {
  if (!document.is_object())
    return typeError("$", "a JSON object", document);
  // The version belongs to the document itself: a patch must not inherit it
  // from its base.
  const Json *schema = member(document, "schema");
  if (!schema)
    return Error{"$.schema", "missing (this engine reads schema 1)"};
  if (!schema->is_number_integer() || schema->get<int64_t>() != kScenarioSchema)
    return Error{"$.schema", "unsupported scenario schema " +
                                 schema->dump(-1, ' ', false,
                                              Json::error_handler_t::replace) +
                                 " (this engine reads schema 1)"};
  return resolveChain(document, resolver, 0);
}

Expected<Scenario> scenarioFromJson(const Json &j) {
  if (!j.is_object())
    return typeError("$", "a JSON object", j);
  const Json *schema = member(j, "schema");
  if (!schema)
    return Error{"$.schema", "missing (this engine reads schema 1)"};
  if (!schema->is_number_integer() || schema->get<int64_t>() != kScenarioSchema)
    return Error{"$.schema",
                 "unsupported scenario schema " + schema->dump() +
                     " (this engine reads schema 1)"};
  TRY(checkKeys(j, "$",
                {"schema", "base", "profile", "module", "jaxlib_version",
                 "backend", "flags", "compile_options", "accelerator",
                 "compression", "custom_hook", "id", "title", "description",
                 "provenance", "expected", "capture", "notes"}));
  Scenario s;
  std::string profile = "main";
  TRY(readString(j, "profile", "$", profile, false));
  auto p = parseProfile(profile);
  if (!p)
    return p.takeError("$.profile");
  s.profile = *p;

  const Json *m = member(j, "module");
  if (!m)
    return Error{"$.module", "missing"};
  auto module = readModule(*m, "$.module", s.profile);
  if (!module)
    return module.takeError();
  s.module = std::move(*module);

  TRY(readString(j, "jaxlib_version", "$", s.jaxlibVersion, true));

  const Json *b = member(j, "backend");
  if (!b)
    return Error{"$.backend", "missing (platform and platform_version)"};
  if (!b->is_object())
    return typeError("$.backend", "an object", *b);
  TRY(checkKeys(*b, "$.backend", {"platform", "platform_version", "runtime_type"}));
  TRY(readString(*b, "platform", "$.backend", s.platform, true));
  TRY(readString(*b, "platform_version", "$.backend", s.platformVersion, true));
  TRY(readString(*b, "runtime_type", "$.backend", s.runtimeType, false));

  if (const Json *f = member(j, "flags")) {
    auto flags = readFlags(*f, "$.flags");
    if (!flags)
      return flags.takeError();
    s.flags = std::move(*flags);
  }

  const Json *c = member(j, "compile_options");
  if (!c)
    return Error{"$.compile_options", "missing (proto_b64 is required)"};
  auto co = readCompileOptions(*c, "$.compile_options");
  if (!co)
    return co.takeError();
  s.compileOptions = std::move(*co);

  const Json *a = member(j, "accelerator");
  if (!a)
    return Error{"$.accelerator", "missing"};
  auto acc = readAccelerator(*a, "$.accelerator");
  if (!acc)
    return acc.takeError();
  s.accelerator = std::move(*acc);
  if (auto *kinds = std::get_if<DeviceKinds>(&s.accelerator)) {
    TRY(readString(*a, "error", "$.accelerator", kinds->error, false));
    TRY(readString(*a, "error_type", "$.accelerator", kinds->errorType, false));
  }

  if (const Json *comp = member(j, "compression")) {
    auto cs = readCompression(*comp, "$.compression");
    if (!cs)
      return cs.takeError();
    s.compression = std::move(*cs);
  }
  TRY(readString(j, "custom_hook", "$", s.customHook, false));
  return s;
}

Expected<Scenario> readScenario(const Json &document,
                                const FixtureResolver &resolver) {
  auto resolved = resolveBase(document, resolver);
  if (!resolved)
    return resolved.takeError();
  return scenarioFromJson(*resolved);
}

bool writesStdlibZstd(const CompressionSpec &spec, Profile profile) {
  if (!spec.python)
    return false;
  int major = 0, minor = 0;
  std::sscanf(spec.python->c_str(), "%d.%d", &major, &minor);
  // From jax 0.7.1 the standard library's compression.zstd is imported first
  // (Python 3.14 and later), leaving `zstandard` as None: the key says "zlib".
  return profileSpec(profile).compression == CompressionRule::StdlibZstdFirst &&
         (major > 3 || (major == 3 && minor >= 14));
}

std::string compressionName(const CompressionSpec &spec, Profile profile) {
  if (!spec.python)
    return spec.name;
  return !writesStdlibZstd(spec, profile) && spec.zstandardInstalled
             ? "zstandard"
             : "zlib";
}

} // namespace cachekey
