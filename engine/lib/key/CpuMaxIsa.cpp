//===- CpuMaxIsa.cpp - The CPU target under --xla_cpu_max_isa -------------===//
//
// XLA's ceiling rule (CpuMaxIsa.h) as data: for each ceiling, the features
// that the next x86 generation brings, so that a ceiling turns off its own
// row's features and every later row's.
//
//===----------------------------------------------------------------------===//
#include "cachekey/CpuMaxIsa.h"

#include <algorithm>
#include <array>
#include <vector>

namespace cachekey {

namespace {

/// One ceiling: its flag value, the CPU XLA names for it, and the features
/// the generation after it introduces (by prefix, or by whole name).
struct IsaRow {
  CpuIsa isa;
  const char *flag;
  const char *cpu;
  std::vector<std::string_view> prefixes, names;
};

/// The rows of `rule`, oldest first, indexed by CpuIsa.
const std::vector<IsaRow> &rows(CpuIsaRule rule) {
  static const std::vector<IsaRow> granite{
      {CpuIsa::Sse4_2, "SSE4_2", "nehalem", {"avx"}, {"f16c", "vpclmulqdq", "vaes"}},
      {CpuIsa::Avx, "AVX", "sandybridge", {"avx2", "fma"}, {}},
      {CpuIsa::Avx2, "AVX2", "haswell", {"avx512"}, {"evex512"}},
      {CpuIsa::Avx512, "AVX512", "skylake-avx512", {}, {"avx512vnni"}},
      {CpuIsa::Avx512Vnni, "AVX512_VNNI", "cascadelake", {}, {"avx512bf16"}},
      {CpuIsa::Avx512Bf16, "AVX512_BF16", "cooperlake", {"amx"}, {}},
      {CpuIsa::Amx, "AMX", "sapphirerapids", {}, {"amx-fp16"}},
      {CpuIsa::AmxFp16, "AMX_FP16", "graniterapids", {}, {}},
  };
  static const std::vector<IsaRow> diamond = [] {
    std::vector<IsaRow> v = granite;
    v.back().prefixes = {"avx10.2"};
    v.back().names = {"amx-fp8", "amx-tf32", "amx-avx512", "amx-movrs", "egpr",
                      "ndd", "ccmp", "nf", "zu", "ppx", "push2pop2", "movrs", "jmpabs"};
    v.push_back({CpuIsa::AmxFp8, "AMX_FP8", "diamondrapids", {}, {}});
    return v;
  }();
  return rule == CpuIsaRule::ToDiamondRapids ? diamond : granite;
}

const IsaRow &row(CpuIsa isa) {
  // Every rule's rows agree on the flag and CPU names of the ceilings they share.
  return rows(CpuIsaRule::ToDiamondRapids)[static_cast<size_t>(isa)];
}

bool rowHas(const IsaRow &r, std::string_view feature) {
  for (std::string_view p : r.prefixes)
    if (feature.substr(0, p.size()) == p)
      return true;
  for (std::string_view n : r.names)
    if (feature == n)
      return true;
  return false;
}

bool isPreferNo(std::string_view f) {
  return f == "prefer-no-gather" || f == "prefer-no-scatter";
}

std::string join(const std::vector<std::string> &on, const std::vector<std::string> &off) {
  std::string out;
  for (const auto &f : on)
    out += (out.empty() ? "+" : ",+") + f;
  for (const auto &f : off)
    out += (out.empty() ? "-" : ",-") + f;
  return out;
}

} // namespace

std::optional<CpuIsa> cpuIsaFromFlag(std::string_view value, CpuIsaRule rule) {
  std::string upper(value);
  for (char &c : upper)
    if (c >= 'a' && c <= 'z')
      c = static_cast<char>(c - 'a' + 'A');
  for (const IsaRow &r : rows(rule))
    if (upper == r.flag)
      return r.isa;
  return std::nullopt;
}

const char *cpuIsaName(CpuIsa isa) { return row(isa).flag; }

const char *cpuIsaTargetCpu(CpuIsa isa) { return row(isa).cpu; }

bool cpuIsaKeeps(CpuIsa isa, std::string_view feature, CpuIsaRule rule) {
  const std::vector<IsaRow> &all = rows(rule);
  for (size_t i = static_cast<size_t>(isa); i < all.size(); ++i)
    if (rowHas(all[i], feature))
      return false;
  return true;
}

CpuTarget cpuTargetUnder(const CpuTarget &host, std::optional<CpuIsa> isa, CpuIsaRule rule) {
  std::vector<std::string> on, off;
  size_t start = 0;
  const std::string &s = host.features;
  while (start <= s.size() && !s.empty()) {
    size_t comma = s.find(',', start);
    if (comma == std::string::npos)
      comma = s.size();
    std::string_view item(s.data() + start, comma - start);
    if (item.size() > 1 && (item[0] == '+' || item[0] == '-')) {
      std::string name(item.substr(1));
      (item[0] == '+' ? on : off).push_back(std::move(name));
    }
    start = comma + 1;
  }
  // The host's own list: what XLA added for AVX-512 is not the host's.
  const bool hadAvx512 = std::any_of(on.begin(), on.end(), [](const std::string &f) {
    return f.find("avx512") != std::string::npos;
  });
  if (hadAvx512)
    on.erase(std::remove_if(on.begin(), on.end(), [](const std::string &f) { return isPreferNo(f); }),
             on.end());
  CpuTarget out;
  if (isa) {
    std::vector<std::string> kept;
    for (auto &f : on)
      if (cpuIsaKeeps(*isa, f, rule))
        kept.push_back(std::move(f));
      else
        off.push_back(std::move(f)), ++out.turnedOff;
    on = std::move(kept);
  }
  if (std::any_of(on.begin(), on.end(),
                  [](const std::string &f) { return f.find("avx512") != std::string::npos; }))
    for (const char *f : {"prefer-no-gather", "prefer-no-scatter"})
      if (std::find(on.begin(), on.end(), f) == on.end())
        on.push_back(f);
  std::sort(on.begin(), on.end());
  std::sort(off.begin(), off.end());
  out.features = join(on, off);
  out.cpu = out.turnedOff ? cpuIsaTargetCpu(*isa) : host.cpu;
  return out;
}

} // namespace cachekey
