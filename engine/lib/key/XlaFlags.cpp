//===- XlaFlags.cpp - What XLA itself does with XLA_FLAGS -----------------===//
//
// Splits XLA_FLAGS as XLA does and applies each flag's measured rule from
// the jaxlib's table (XlaFlagTable.cpp).
//
//===----------------------------------------------------------------------===//
#include "cachekey/English.h"
#include "cachekey/StringExtras.h"
#include "cachekey/XlaFlags.h"

#include "CompileOptionsDetail.h"
#include "cachekey/CompileOptions.h"
#include "cachekey/Json.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>

namespace cachekey {

namespace {

constexpr const char *kDeviceCountFlag = "xla_force_host_platform_device_count";
constexpr const char *kMaxIsaFlag = "xla_cpu_max_isa";

bool isWordChar(char c) {
  return static_cast<unsigned char>(c) < 0x80 &&
         (c == '-' || c == '_' || std::isalnum(static_cast<unsigned char>(c)));
}

bool isXlaSpace(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

/// A decimal integer as absl::SimpleAtoi reads it (optional sign, digits),
/// within [lo, hi].
std::optional<int64_t> readInt(const std::string &s, int64_t lo, int64_t hi) {
  if (s.empty())
    return std::nullopt;
  errno = 0;
  char *end = nullptr;
  long long v = std::strtoll(s.c_str(), &end, 10);
  if (errno || *end || isXlaSpace(s[0]) || v < lo || v > hi)
    return std::nullopt;
  return static_cast<int64_t>(v);
}

std::vector<std::string> splitCommas(const std::string &s) {
  std::vector<std::string> out;
  size_t b = 0;
  while (true) {
    size_t e = s.find(',', b);
    out.push_back(s.substr(b, e == std::string::npos ? std::string::npos : e - b));
    if (e == std::string::npos)
      break;
    b = e + 1;
  }
  return out;
}

/// The DebugOptions field occurrences `value` gives under `rule`, or
/// nullopt when the table cannot say; `refused` is set when XLA refuses it.
std::optional<std::vector<WireField>> fieldValue(const XlaFlagRule &rule,
                                                 const std::optional<std::string> &value,
                                                 bool &refused) {
  using P = XlaFlagRule::Parse;
  const std::string text = value.value_or("");
  for (const auto &r : rule.refused)
    if (value && r == text)
      refused = true;
  if (refused)
    return std::nullopt;
  const uint32_t n = rule.number;
  switch (rule.parse) {
  case P::Bool: {
    auto it = rule.spellings.find(value ? text : "");
    if (it == rule.spellings.end())
      return std::nullopt;
    auto e = rule.enumValues.find(it->first);
    const uint64_t v = e != rule.enumValues.end() ? static_cast<uint64_t>(e->second)
                                                  : (it->second ? 1 : 0);
    return std::vector<WireField>{WireField::makeVarint(n, v)};
  }
  case P::Int: {
    if (!value) {
      refused = true;
      return std::nullopt;
    }
    auto v = rule.type == "int32" ? readInt(text, INT32_MIN, INT32_MAX)
                                  : readInt(text, INT64_MIN, INT64_MAX);
    if (!v) {
      refused = true;
      return std::nullopt;
    }
    return std::vector<WireField>{WireField::makeVarint(n, static_cast<uint64_t>(*v))};
  }
  case P::Float: {
    if (!value)
      return std::nullopt;
    char *end = nullptr;
    float f = std::strtof(text.c_str(), &end);
    if (text.empty() || *end)
      return std::nullopt;
    WireField w;
    w.number = n;
    w.type = WireType::Fixed32;
    w.payload.assign(reinterpret_cast<const char *>(&f), 4);
    return std::vector<WireField>{w};
  }
  case P::String:
    if (!value)
      return std::nullopt;
    // An empty value: some fields keep an explicitly set "" on the wire
    // (--xla_dump_to=), others drop it (--xla_gpu_ptx_compiler_extra_flags=);
    // the measurement of "" says which.
    if (text.empty()) {
      auto o = rule.observed.find("");
      if (o != rule.observed.end()) {
        auto f = o->second.find(n);
        return f != o->second.end() ? f->second : rule.defaultWire;
      }
    }
    // XLA's setter for the ISA ceiling stores the value in ASCII upper
    // case: real jaxlib 0.10.2 and 0.12.0.1 wrote "AVX2" into DebugOptions
    // for --xla_cpu_max_isa=avx2 (fixtures/xla_flags/hosts/, whose real keys
    // for avx2 and AVX2 differ in entry 4 only).
    if (rule.name == kMaxIsaFlag) {
      std::string upper = text;
      for (char &c : upper)
        if (c >= 'a' && c <= 'z')
          c = static_cast<char>(c - 'a' + 'A');
      return std::vector<WireField>{WireField::makeLen(n, upper)};
    }
    return std::vector<WireField>{WireField::makeLen(n, text)};
  case P::CommaList: {
    if (!value)
      return std::nullopt;
    std::vector<WireField> out;
    for (auto &piece : splitCommas(text))
      out.push_back(WireField::makeLen(n, piece));
    return out;
  }
  case P::Enum: {
    auto it = rule.enumValues.find(text);
    if (!value || it == rule.enumValues.end())
      return std::nullopt;
    return std::vector<WireField>{WireField::makeVarint(n, static_cast<uint64_t>(it->second))};
  }
  case P::EnumList: {
    // "" is left to its observation (a setter may clear the list or keep it).
    if (!value || text.empty())
      return std::nullopt;
    std::vector<int64_t> numbers;
    for (auto &piece : splitCommas(text)) {
      auto it = rule.enumLists.find(piece);
      if (it == rule.enumLists.end())
        return std::nullopt;
      for (int64_t v : it->second)
        if (!rule.enumListDropsRepeats ||
            std::find(numbers.begin(), numbers.end(), v) == numbers.end())
          numbers.push_back(v);
    }
    if (numbers.empty())
      return std::vector<WireField>{};
    Bytes packed;
    for (int64_t v : numbers) {
      uint64_t u = static_cast<uint64_t>(v);
      do {
        char c = static_cast<char>(u & 0x7f);
        u >>= 7;
        packed.push_back(u ? static_cast<char>(c | 0x80) : c);
      } while (u);
    }
    return std::vector<WireField>{WireField::makeLen(n, packed)};
  }
  case P::Unknown:
    return std::nullopt;
  }
  return std::nullopt;
}

/// Sets every occurrence of `number` in `msg` to `fields`, in field order.
void setAll(WireMessage &msg, uint32_t number, const std::vector<WireField> &fields) {
  msg.removeAll(number);
  auto pos = msg.fields.begin();
  while (pos != msg.fields.end() && pos->number <= number)
    ++pos;
  msg.fields.insert(pos, fields.begin(), fields.end());
}

} // namespace

std::vector<std::string> xlaArgv(const std::string &s) {
  std::vector<std::string> out;
  size_t b = 0;
  while (b < s.size() && isXlaSpace(s[b]))
    ++b;
  while (b < s.size() && s[b] == '-') {
    size_t e = b;
    while (e < s.size() && isWordChar(s[e]))
      ++e;
    if (e < s.size() && s[e] == '=' && e + 1 < s.size() &&
        (s[e + 1] == '"' || s[e + 1] == '\'')) {
      ++e; // past '='
      std::string flag = s.substr(b, e - b);
      const char quote = s[e++];
      for (; e < s.size() && s[e] != quote; ++e) {
        if (quote == '"' && s[e] == '\\' && e + 1 < s.size())
          ++e;
        flag += s[e];
      }
      if (e < s.size())
        ++e; // the closing quote
      out.push_back(std::move(flag));
    } else {
      while (e < s.size() && !isXlaSpace(s[e]))
        ++e;
      out.push_back(s.substr(b, e - b));
    }
    b = e;
    while (b < s.size() && isXlaSpace(s[b]))
      ++b;
  }
  return out;
}

Expected<XlaFlagEffects> parseXlaFlags(const XlaFlagTable &table,
                                       const std::string &xlaFlags,
                                       const std::string &path) {
  XlaFlagEffects fx;
  std::vector<std::string> unknown, bare;
  for (const std::string &flag : xlaArgv(xlaFlags)) {
    ParsedXlaFlag p;
    p.flag = flag;
    std::string body = startsWith(flag, "--") ? flag.substr(2) : "";
    size_t eq = body.find('=');
    p.name = body.substr(0, eq);
    if (eq != std::string::npos)
      p.value = body.substr(eq + 1);
    auto it = body.empty() ? table.flags.end() : table.flags.find(p.name);
    if (it == table.flags.end()) {
      unknown.push_back(flag);
      continue;
    }
    // XLA's parser takes a flag without "=value" only as a bool (tsl's
    // command_line_flags.cc): any other bare flag is left unparsed, and
    // parse_flags_from_env.cc aborts on it as an unknown flag (real jaxlib
    // 0.10.2 and 0.12.0.1, for --xla_cpu_max_isa, --xla_dump_to and
    // --xla_backend_optimization_level).
    if (!p.value && it->second.type != "bool") {
      bare.push_back(flag);
      unknown.push_back(flag);
      continue;
    }
    p.rule = &it->second;
    fx.flags.push_back(p);
  }
  if (!unknown.empty()) {
    std::string list;
    for (size_t i = 0; i < unknown.size() && i < 5; ++i)
      list += (i ? " " : "") + unknown[i];
    if (unknown.size() > 5)
      list += " and " + std::to_string(unknown.size() - 5) + " more";
    const std::string why =
        bare.size() == unknown.size()
            ? std::string(" registers ") + agree(bare.size(), "it", "them") +
                  " with a value after '=' and parses a bare flag only as a bool"
            : bare.empty() ? " registers no such flag"
                           : " registers no such flag, or takes a value after '='";
    return Error{path,
                 std::string("Unknown flag") + (unknown.size() > 1 ? "s" : "") +
                     " in XLA_FLAGS: " + list + " (jaxlib " + table.jaxlib + why +
                     ", so real JAX aborts and computes no key)",
                 ErrorCode::UnknownFlag, "", unknown.front()};
  }
  for (const ParsedXlaFlag &p : fx.flags) {
    const XlaFlagRule &r = *p.rule;
    if (r.name == kDeviceCountFlag && p.value) {
      auto v = readInt(*p.value, INT32_MIN, INT32_MAX);
      // A CPU client needs a device: with 0 real jaxlib fails "Could not
      // determine process_index", with -1 "vector::reserve" (0.10.2 and
      // 0.12.0.1), and JAX computes no key.
      if (v && *v < 1)
        return Error{path,
                     p.flag + " asks for " + std::to_string(*v) +
                         " CPU devices; jaxlib " + table.jaxlib +
                         " cannot start its CPU backend without one, so real "
                         "JAX computes no key",
                     ErrorCode::Invalid, "", p.flag};
      if (v)
        fx.deviceCount = *v;
    }
    if (r.name == kMaxIsaFlag && p.value)
      fx.maxIsa = *p.value;
    if (r.effect == XlaFlagRule::Effect::None)
      continue;
    bool refused = false;
    if (r.effect == XlaFlagRule::Effect::Field) {
      auto fields = fieldValue(r, p.value, refused);
      if (fields) {
        auto &slot = fx.debugFields[r.number];
        if (r.parse == XlaFlagRule::Parse::CommaList && r.repeatAppends &&
            fx.setBy.count(r.number))
          slot.insert(slot.end(), fields->begin(), fields->end());
        else
          slot = std::move(*fields);
        fx.setBy[r.number].push_back(p.flag);
        continue;
      }
    }
    if (!refused) {
      auto obs = r.observed.find(p.value.value_or(""));
      if (obs != r.observed.end() && (p.value || r.type == "bool")) {
        for (const auto &kv : obs->second) {
          fx.debugFields[kv.first] = kv.second;
          fx.setBy[kv.first].push_back(p.flag);
        }
        continue;
      }
    }
    if (refused)
      return Error{path,
                   "XLA cannot parse " + p.flag + " (a " + r.type +
                       " flag in jaxlib " + table.jaxlib +
                       "), so real JAX aborts and computes no key",
                   ErrorCode::Invalid, "", p.flag};
    fx.unknownEffect.push_back(p.flag);
  }
  return fx;
}

std::vector<std::string> xlaFlagDebugFields(const XlaFlagEffects &fx,
                                            const std::string &flag) {
  std::vector<std::string> out;
  const ParsedXlaFlag *parsed = nullptr;
  for (const auto &p : fx.flags)
    if (p.flag == flag)
      parsed = &p;
  for (const auto &kv : fx.setBy) {
    if (std::find(kv.second.begin(), kv.second.end(), flag) == kv.second.end())
      continue;
    std::string name;
    if (parsed && parsed->rule && parsed->rule->number == kv.first)
      name = parsed->rule->field;
    if (name.empty())
      if (const DebugOptionField *f = findDebugOption(kv.first))
        name = f->name;
    out.push_back(name.empty() ? "field " + std::to_string(kv.first) : name);
  }
  return out;
}

Expected<Bytes> replaceXlaFlagEffects(const Bytes &proto,
                                      const XlaFlagTable &table,
                                      const XlaFlagEffects &before,
                                      const XlaFlagEffects &after) {
  if (before.debugFields.empty() && after.debugFields.empty())
    return proto;
  auto co = detail::parseNamed(proto, "CompileOptionsProto");
  if (!co)
    return co.takeError();
  auto ebo = detail::parseNamed(detail::lastPayload(*co, field::kExecutableBuildOptions),
                                "ExecutableBuildOptionsProto");
  if (!ebo)
    return ebo.takeError();
  auto dbg = detail::parseNamed(detail::lastPayload(*ebo, field::kDebugOptions),
                                "DebugOptions");
  if (!dbg)
    return dbg.takeError();
  // Fields JAX's get_compile_options (compiler.py) sets itself after XLA
  // has parsed XLA_FLAGS, when the persistent cache is on with the XLA
  // caches enabled (jax_persistent_cache_enable_xla_caches): the autotune
  // cache path and mode, the kernel cache file and the module-compilation
  // parallelism it needs. Where the captured proto holds JAX's value, a
  // flag setting the field is overwritten by JAX, so neither side's flags
  // touch it.
  struct Group {
    const char *path;  // the field whose value in the proto shows JAX set it
    const char *other; // set with it
  };
  std::vector<uint32_t> jaxOwned;
  for (const Group g : {Group{"xla_gpu_per_fusion_autotune_cache_dir",
                              "xla_gpu_experimental_autotune_cache_mode"},
                        Group{"xla_gpu_kernel_cache_file",
                              "xla_gpu_enable_llvm_module_compilation_parallelism"}}) {
    const DebugOptionField *path = findDebugOption(std::string(g.path));
    const WireField *w = path ? dbg->last(path->number) : nullptr;
    if (!w || w->payload.empty())
      continue; // JAX did not set this path: XLA_FLAGS decide
    jaxOwned.push_back(path->number);
    if (const DebugOptionField *o = findDebugOption(std::string(g.other)))
      jaxOwned.push_back(o->number);
  }
  auto ownedByJax = [&](uint32_t number) {
    return std::find(jaxOwned.begin(), jaxOwned.end(), number) != jaxOwned.end();
  };
  // What a process without flags writes for each field `before` set.
  for (const auto &kv : before.debugFields) {
    if (ownedByJax(kv.first))
      continue;
    auto d = table.defaultDebug.find(kv.first);
    setAll(*dbg, kv.first,
           d == table.defaultDebug.end() ? std::vector<WireField>{} : d->second);
  }
  for (const auto &kv : after.debugFields)
    if (!ownedByJax(kv.first))
      setAll(*dbg, kv.first, kv.second);
  ebo->setMessage(field::kDebugOptions, dbg->serialize());
  co->setMessage(field::kExecutableBuildOptions, ebo->serialize());
  return co->serialize();
}

} // namespace cachekey
