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
  std::array<const char *, 2> prefixes;
  std::array<const char *, 3> names;
};

constexpr std::array<IsaRow, 8> kRows{{
    {CpuIsa::Sse4_2, "SSE4_2", "nehalem", {"avx", nullptr}, {"f16c", "vpclmulqdq", "vaes"}},
    {CpuIsa::Avx, "AVX", "sandybridge", {"avx2", "fma"}, {nullptr, nullptr, nullptr}},
    {CpuIsa::Avx2, "AVX2", "haswell", {"avx512", nullptr}, {"evex512", nullptr, nullptr}},
    {CpuIsa::Avx512, "AVX512", "skylake-avx512", {nullptr, nullptr}, {"avx512vnni", nullptr, nullptr}},
    {CpuIsa::Avx512Vnni, "AVX512_VNNI", "cascadelake", {nullptr, nullptr}, {"avx512bf16", nullptr, nullptr}},
    {CpuIsa::Avx512Bf16, "AVX512_BF16", "cooperlake", {"amx", nullptr}, {nullptr, nullptr, nullptr}},
    {CpuIsa::Amx, "AMX", "sapphirerapids", {nullptr, nullptr}, {"amx-fp16", nullptr, nullptr}},
    {CpuIsa::AmxFp16, "AMX_FP16", "graniterapids", {nullptr, nullptr}, {nullptr, nullptr, nullptr}},
}};

const IsaRow &row(CpuIsa isa) { return kRows[static_cast<size_t>(isa)]; }

bool rowHas(const IsaRow &r, std::string_view feature) {
  for (const char *p : r.prefixes)
    if (p && feature.substr(0, std::string_view(p).size()) == p)
      return true;
  for (const char *n : r.names)
    if (n && feature == n)
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

std::optional<CpuIsa> cpuIsaFromFlag(std::string_view value) {
  std::string upper(value);
  for (char &c : upper)
    if (c >= 'a' && c <= 'z')
      c = static_cast<char>(c - 'a' + 'A');
  for (const IsaRow &r : kRows)
    if (upper == r.flag)
      return r.isa;
  return std::nullopt;
}

const char *cpuIsaName(CpuIsa isa) { return row(isa).flag; }

const char *cpuIsaTargetCpu(CpuIsa isa) { return row(isa).cpu; }

bool cpuIsaKeeps(CpuIsa isa, std::string_view feature) {
  for (size_t i = static_cast<size_t>(isa); i < kRows.size(); ++i)
    if (rowHas(kRows[i], feature))
      return false;
  return true;
}

CpuTarget cpuTargetUnder(const CpuTarget &host, std::optional<CpuIsa> isa) {
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
      if (cpuIsaKeeps(*isa, f))
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
