//===- XlaFlagTable.cpp - The measured XLA flag tables --------------------===//
//
// Reads the tables compiled in from fixtures/xla_flags/ (once, on first use):
// each flag's type, DebugOptions field and observed settings, the defaults,
// the measured CPU topologies, and the jaxlib's `--xla_cpu_max_isa` rule. The
// JSON is the project's own and is parsed without exceptions.
//
//===----------------------------------------------------------------------===//
#include "cachekey/XlaFlags.h"

#include "cachekey/Json.h"

#include <cstdlib>

namespace cachekey {

extern const char kXlaFlagsTable_0_10_2[];   // fixtures/xla_flags/0.10.2.json
extern const char kXlaFlagsTable_0_12_0_1[]; // fixtures/xla_flags/0.12.0.1.json

namespace {

constexpr const char *kMaxIsaFlag = "xla_cpu_max_isa";

Bytes fromHex(const std::string &hex) {
  Bytes out;
  for (size_t i = 0; i + 1 < hex.size(); i += 2)
    out.push_back(static_cast<char>(std::strtol(hex.substr(i, 2).c_str(), nullptr, 16)));
  return out;
}

/// A table's [wire type, payload hex] pair as a WireField of `number`.
WireField wireOf(uint32_t number, const Json &pair) {
  WireField f;
  f.number = number;
  f.type = static_cast<WireType>(pair[0].get<int>());
  Bytes payload = fromHex(pair[1].get<std::string>());
  if (f.type == WireType::Varint) {
    uint64_t v = 0;
    int shift = 0;
    for (unsigned char c : payload) {
      v |= static_cast<uint64_t>(c & 0x7f) << shift;
      shift += 7;
    }
    f.varint = v;
  } else {
    f.payload = std::move(payload);
  }
  return f;
}

std::vector<WireField> wiresOf(uint32_t number, const Json &list) {
  std::vector<WireField> out;
  if (list.is_array())
    for (const Json &p : list)
      if (p.is_array() && p.size() == 2)
        out.push_back(wireOf(number, p));
  return out;
}

XlaFlagRule::Parse parseOf(const std::string &s) {
  using P = XlaFlagRule::Parse;
  if (s == "bool") return P::Bool;
  if (s == "int") return P::Int;
  if (s == "float") return P::Float;
  if (s == "string") return P::String;
  if (s == "comma_list") return P::CommaList;
  if (s == "enum") return P::Enum;
  if (s == "enum_list") return P::EnumList;
  return P::Unknown;
}

XlaFlagTable readTable(const char *text) {
  XlaFlagTable t;
  Json j = Json::parse(text, nullptr, false);
  if (!j.is_object())
    return t;
  t.jaxlib = j.value("jaxlib", "");
  const Json &flags = j.contains("flags") ? j["flags"] : Json();
  if (flags.is_object())
    for (auto it = flags.begin(); it != flags.end(); ++it) {
      const Json &v = *it;
      XlaFlagRule r;
      r.name = it.key();
      r.type = v.value("type", "");
      std::string effect = v.value("effect", "");
      r.effect = effect == "field" ? XlaFlagRule::Effect::Field
                 : effect == "none" ? XlaFlagRule::Effect::None
                                    : XlaFlagRule::Effect::Observed;
      if (r.effect == XlaFlagRule::Effect::Field) {
        r.number = v.value("number", 0u);
        if (v.contains("field") && v["field"].is_string())
          r.field = v["field"].get<std::string>();
        if (v.contains("wire") && v["wire"].is_number_integer())
          r.wire = static_cast<WireType>(v["wire"].get<int>());
        r.parse = v.contains("parse") && v["parse"].is_string()
                      ? parseOf(v["parse"].get<std::string>())
                      : XlaFlagRule::Parse::Unknown;
        r.repeatAppends = v.value("repeat", "") == "append";
        if (v.contains("spellings") && v["spellings"].is_object()) {
          for (auto s = v["spellings"].begin(); s != v["spellings"].end(); ++s)
          if (s->is_boolean()) {
            r.spellings[s.key()] = s->get<bool>();
          } else if (s->is_number_integer()) {
            // The varint the field gets; not 0/1 when a bool flag sets an
            // enum field (jaxlib 0.12.0.1: xla_gpu_enable_pipelined_all_reduce).
            r.spellings[s.key()] = s->get<int64_t>() != 0;
            r.enumValues[s.key()] = s->get<int64_t>();
          }
        }
        if (v.contains("values") && v["values"].is_object())
          for (auto s = v["values"].begin(); s != v["values"].end(); ++s) {
            if (s->is_number_integer()) {
              r.enumValues[s.key()] = s->get<int64_t>();
            } else if (s->is_array()) {
              auto &list = r.enumLists[s.key()];
              for (const Json &n : *s)
                if (n.is_number_integer())
                  list.push_back(n.get<int64_t>());
            }
          }
        r.enumListDropsRepeats = v.value("repeats", "") == "dropped";
        if (v.contains("default_wire"))
          r.defaultWire = wiresOf(r.number, v["default_wire"]);
      }
      if (v.contains("observations") && v["observations"].is_array())
        for (const Json &o : v["observations"]) {
          std::string value = o["value"].is_string() ? o["value"].get<std::string>() : "";
          if (!o.value("accepted", false)) {
            r.refused.push_back(value);
            continue;
          }
          auto &fields = r.observed[value];
          if (o.contains("fields") && o["fields"].is_object())
            for (auto f = o["fields"].begin(); f != o["fields"].end(); ++f) {
              uint32_t n = static_cast<uint32_t>(std::strtoul(f.key().c_str(), nullptr, 10));
              fields[n] = wiresOf(n, *f);
            }
        }
      // A bool flag that sets a field that is not one varint (jaxlib
      // 0.12.0.1: --xla_gpu_unsupported_use_all_reduce_one_shot_kernel fills
      // a packed repeated enum): only the measured values are known.
      if (r.parse == XlaFlagRule::Parse::Bool && r.wire != WireType::Varint)
        r.effect = XlaFlagRule::Effect::Observed;
      // A table whose bool spellings are true/false (jaxlib 0.10.2's): the
      // number each spelling gave is the measured one (a bool flag can set
      // an enum field to 2).
      if (r.parse == XlaFlagRule::Parse::Bool)
        for (const auto &sp : r.spellings) {
          auto o = r.observed.find(sp.first);
          if (r.enumValues.count(sp.first) || o == r.observed.end())
            continue;
          auto f = o->second.find(r.number);
          if (f != o->second.end() && f->second.size() == 1 &&
              f->second[0].type == WireType::Varint)
            r.enumValues[sp.first] = static_cast<int64_t>(f->second[0].varint);
        }
      t.flags[r.name] = std::move(r);
    }
  if (j.contains("default_debug_fields") && j["default_debug_fields"].is_object())
    for (auto it = j["default_debug_fields"].begin(); it != j["default_debug_fields"].end(); ++it) {
      uint32_t n = static_cast<uint32_t>(std::strtoul(it.key().c_str(), nullptr, 10));
      t.defaultDebug[n] = wiresOf(n, *it);
    }
  // The ceiling rule of the table's jaxlib (CpuMaxIsa.h): 0.12.0.1's XLA
  // knows AMX_FP8 and 0.10.2's logs "Unknown CPU ISA: AMX_FP8" (both
  // observed with real jaxlib on 2026-12-03; the topology tables cannot tell
  // them apart on a host without Diamond Rapids features).
  t.cpuIsaRule = t.jaxlib == "0.10.2" ? CpuIsaRule::ToGraniteRapids : CpuIsaRule::ToDiamondRapids;
  if (j.contains("topology") && j["topology"].is_object()) {
    const Json &topo = j["topology"];
    if (topo.contains("base") && topo["base"].contains("target_machine")) {
      t.hostCpu = topo["base"]["target_machine"].value("cpu", "");
      t.hostFeatures = topo["base"]["target_machine"].value("features", "");
    }
    if (topo.contains(kMaxIsaFlag) && topo[kMaxIsaFlag].is_object())
      for (auto it = topo[kMaxIsaFlag].begin(); it != topo[kMaxIsaFlag].end(); ++it)
        if (it->contains("target_machine"))
          t.maxIsa.push_back({it.key(), (*it)["target_machine"].value("cpu", ""),
                              (*it)["target_machine"].value("features", "")});
  }
  return t;
}

const std::vector<XlaFlagTable> &tables() {
  static const std::vector<XlaFlagTable> all = [] {
    std::vector<XlaFlagTable> v;
    for (const char *text : {kXlaFlagsTable_0_10_2, kXlaFlagsTable_0_12_0_1}) {
      XlaFlagTable t = readTable(text);
      if (!t.jaxlib.empty())
        v.push_back(std::move(t));
    }
    return v;
  }();
  return all;
}

} // namespace

const XlaFlagTable *xlaFlagTable(const std::string &jaxlibVersion) {
  for (const auto &t : tables())
    if (t.jaxlib == jaxlibVersion)
      return &t;
  return nullptr;
}

std::vector<std::string> xlaFlagTableVersions() {
  std::vector<std::string> v;
  for (const auto &t : tables())
    v.push_back(t.jaxlib);
  return v;
}

} // namespace cachekey
