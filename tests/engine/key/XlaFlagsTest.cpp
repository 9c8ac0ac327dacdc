// What XLA itself does with XLA_FLAGS (engine/lib/key/XlaFlags.cpp).
//
// Expected values: the observations real jaxlib gave when the tables were
// measured (fixtures/xla_flags/<jaxlib>.json, tools/xla-flag-table: each is
// the DebugOptions one fresh process built under one XLA_FLAGS value), the
// entry digests of fixtures real JAX captured, and XLA's own refusal text.
#include "TestUtil.h"

#include "cachekey/Wire.h"
#include "cachekey/XlaFlags.h"

using namespace cachekey;
using namespace cachekey::test;

namespace {

const char *kReleases[] = {"0.10.2", "0.12.0.1"};

Bytes fromB64(const std::string &s) {
  static const std::string abc =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  Bytes out;
  uint32_t acc = 0;
  int bits = 0;
  for (char c : s) {
    size_t v = abc.find(c);
    if (v == std::string::npos)
      continue;
    acc = (acc << 6) | static_cast<uint32_t>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<char>((acc >> bits) & 0xff));
    }
  }
  return out;
}

/// DebugOptions (CompileOptionsProto 3 → 3) field number → occurrences.
std::map<uint32_t, std::vector<WireField>> debugFields(const Bytes &co) {
  std::map<uint32_t, std::vector<WireField>> out;
  auto c = WireMessage::parse(co);
  EXPECT_TRUE(static_cast<bool>(c));
  const WireField *ebo = c->last(3);
  if (!ebo)
    return out;
  auto e = WireMessage::parse(ebo->payload);
  const WireField *dbg = e->last(3);
  if (!dbg)
    return out;
  auto d = WireMessage::parse(dbg->payload);
  for (const auto &f : d->fields)
    out[f.number].push_back(f);
  return out;
}

std::string hex(const WireField &f) {
  return std::to_string(static_cast<int>(f.type)) + ":" +
         (f.type == WireType::Varint ? std::to_string(f.varint) : toHex(f.payload));
}

/// A captured fixture of `release` as a scenario document, annotations
/// dropped, with `xla_flags` as the flags its proto was built under.
Json fixtureScenario(const std::string &release, const std::string &id) {
  Json j = loadJson(release == "0.10.2" ? "fixtures/" + id + ".json"
                                        : "fixtures/" + release + "/" + id + ".json");
  Json s = j;
  for (const char *k : {"id", "title", "provenance", "expected"})
    s.erase(k);
  s["compile_options"]["xla_flags"] = j["flags"]["XLA_FLAGS"];
  return s;
}

} // namespace

// XLA's splitting of the variable (ParseArgvFromString in
// xla/parse_flags_from_env.cc, read there): whitespace separates, a quoted
// value is unquoted, and XLA reads nothing after a word without a '-'.
// Written from that code, not from the engine.
TEST(XlaFlags, SplitsAsXlaDoes) {
  EXPECT_EQ(xlaArgv("  --a=1\t--b=\"x y\" --c='p\\q' --d=\"e\\\"f\" stop --z"),
            (std::vector<std::string>{"--a=1", "--b=x y", "--c=p\\q", "--d=e\"f"}));
  EXPECT_EQ(xlaArgv(""), std::vector<std::string>{});
  EXPECT_EQ(xlaArgv("word --a"), std::vector<std::string>{});
}

// Every value real jaxlib accepted when the table was measured: the engine,
// starting from the release's default options, must set exactly the
// DebugOptions fields that value set in the real process.
TEST(XlaFlags, ReproducesEveryMeasuredObservation) {
  for (const char *release : kReleases) {
    SCOPED_TRACE(release);
    const XlaFlagTable *table = xlaFlagTable(release);
    ASSERT_NE(table, nullptr);
    Json t = loadJson(std::string("fixtures/xla_flags/") + release + ".json");
    const Bytes base = fromB64(t["default_compile_options_b64"].get<std::string>());
    const auto baseFields = debugFields(base);
    auto none = parseXlaFlags(*table, "", "$");
    ASSERT_TRUE(static_cast<bool>(none));
    size_t checked = 0, unknown = 0;
    for (auto it = t["flags"].begin(); it != t["flags"].end(); ++it) {
      for (const Json &o : (*it)["observations"]) {
        if (!o["accepted"].get<bool>())
          continue;
        const std::string flag = o["value"].is_null()
                                     ? "--" + it.key()
                                     : "--" + it.key() + "=" + o["value"].get<std::string>();
        if (flag.find_first_of(" \t'\"") != std::string::npos)
          continue; // not one word of XLA_FLAGS
        SCOPED_TRACE(flag);
        auto fx = parseXlaFlags(*table, flag, "$");
        ASSERT_TRUE(static_cast<bool>(fx)) << fx.error().str();
        if (!fx->unknownEffect.empty()) {
          ++unknown;
          continue;
        }
        auto out = replaceXlaFlagEffects(base, *table, *none, *fx);
        ASSERT_TRUE(static_cast<bool>(out));
        auto got = debugFields(*out);
        std::map<uint32_t, std::vector<std::string>> want, have;
        for (auto &kv : baseFields)
          for (auto &f : kv.second)
            want[kv.first].push_back(hex(f));
        for (auto f = o["fields"].begin(); f != o["fields"].end(); ++f) {
          auto &slot = want[static_cast<uint32_t>(std::stoul(f.key()))];
          slot.clear();
          for (const Json &p : *f) {
            WireField w;
            w.type = static_cast<WireType>(p[0].get<int>());
            Bytes b = Bytes();
            std::string h = p[1].get<std::string>();
            for (size_t i = 0; i + 1 < h.size(); i += 2)
              b.push_back(static_cast<char>(std::stoi(h.substr(i, 2), nullptr, 16)));
            if (w.type == WireType::Varint) {
              uint64_t v = 0;
              int shift = 0;
              for (unsigned char c : b) {
                v |= static_cast<uint64_t>(c & 0x7f) << shift;
                shift += 7;
              }
              w.varint = v;
            } else {
              w.payload = b;
            }
            slot.push_back(hex(w));
          }
          if (slot.empty())
            want.erase(static_cast<uint32_t>(std::stoul(f.key())));
        }
        for (auto &kv : got)
          for (auto &f : kv.second)
            have[kv.first].push_back(hex(f));
        EXPECT_EQ(want, have);
        ++checked;
      }
    }
    EXPECT_GT(checked, 300u);
    EXPECT_EQ(unknown, 0u);
  }
}

// XLA refuses a flag it does not register; real jaxlib 0.10.2 printed
// "Unknown flag in XLA_FLAGS: --xla_bogus_flag=1" and exited
// (XLA_FLAGS=--xla_bogus_flag=1 python -c 'xla_client.CompileOptions()',
// 2026-12-01). So there is no key.
TEST(XlaFlags, UnknownFlagIsRefused) {
  auto r = compute(patched("add_1x1", {{"flags", {{"XLA_FLAGS", "--xla_bogus_flag=1"}}}}));
  ASSERT_FALSE(static_cast<bool>(r));
  EXPECT_EQ(r.error().code, ErrorCode::UnknownFlag);
  EXPECT_EQ(r.error().path, "$.flags.XLA_FLAGS");
  EXPECT_EQ(r.error().subject, "--xla_bogus_flag=1");
  EXPECT_NE(r.error().message.find("Unknown flag in XLA_FLAGS: --xla_bogus_flag=1"),
            std::string::npos);
  EXPECT_NE(r.error().message.find("0.10.2"), std::string::npos);
}

// A flag without "=value" is parsed only as a bool. Real jaxlib 0.10.2 and
// 0.12.0.1 printed "Unknown flag in XLA_FLAGS: --xla_cpu_max_isa" (a string
// flag), the same for --xla_dump_to and --xla_backend_optimization_level (an
// int32), and exited (XLA_FLAGS=F python -c 'import jax; jax.devices()',
// 2026-12-03), while a bare bool flag is taken as true.
TEST(XlaFlags, BareFlagIsABoolOrUnknown) {
  for (const char *release : kReleases) {
    SCOPED_TRACE(release);
    for (const char *flag : {"--xla_cpu_max_isa", "--xla_dump_to", "--xla_backend_optimization_level"}) {
      SCOPED_TRACE(flag);
      Json s = fixtureScenario(release, "add_1x1");
      s["flags"]["XLA_FLAGS"] = flag;
      auto r = compute(s);
      ASSERT_FALSE(static_cast<bool>(r));
      EXPECT_EQ(r.error().code, ErrorCode::UnknownFlag);
      EXPECT_EQ(r.error().path, "$.flags.XLA_FLAGS");
      EXPECT_EQ(r.error().subject, flag);
      EXPECT_NE(r.error().message.find(std::string("Unknown flag in XLA_FLAGS: ") + flag),
                std::string::npos);
    }
    Json b = fixtureScenario(release, "add_1x1");
    b["flags"]["XLA_FLAGS"] = "--xla_allow_excess_precision";
    EXPECT_TRUE(static_cast<bool>(compute(b)));
  }
}

// A CPU client with no device: real jaxlib 0.10.2 and 0.12.0.1 failed to
// start the CPU backend under --xla_force_host_platform_device_count=0
// ("Could not determine process_index") and =-1 ("vector::reserve")
// (2026-12-03), so there is no key.
TEST(XlaFlags, DeviceCountBelowOneIsRefused) {
  for (const char *release : kReleases) {
    SCOPED_TRACE(release);
    for (const char *flag : {"--xla_force_host_platform_device_count=0",
                             "--xla_force_host_platform_device_count=-1"}) {
      SCOPED_TRACE(flag);
      Json s = fixtureScenario(release, "add_1x1");
      s["flags"]["XLA_FLAGS"] = flag;
      auto r = compute(s);
      ASSERT_FALSE(static_cast<bool>(r));
      EXPECT_EQ(r.error().code, ErrorCode::Invalid);
      EXPECT_EQ(r.error().path, "$.flags.XLA_FLAGS");
      EXPECT_EQ(r.error().subject, flag);
    }
  }
}

// The device-count flag gives the CPU client its devices (entry 6): add_1x1
// with --xla_force_host_platform_device_count=4 hashes the topology that
// real JAX hashed for sharded_4dev (captured with that flag, same machine),
// and sharded_4dev without it the one-device topology of add_1x1.
TEST(XlaFlags, DeviceCountSetsEntrySix) {
  for (const char *release : kReleases) {
    SCOPED_TRACE(release);
    Json add = fixtureScenario(release, "add_1x1");
    Json sharded = fixtureScenario(release, "sharded_4dev");
    const std::string addEntry6 = loadJson(std::string(release) == "0.10.2"
                                               ? "fixtures/add_1x1.json"
                                               : std::string("fixtures/") + release + "/add_1x1.json")
                                      ["expected"]["entries"][5]["digest"];
    const std::string shardedEntry6 =
        loadJson(std::string(release) == "0.10.2"
                     ? "fixtures/sharded_4dev.json"
                     : std::string("fixtures/") + release + "/sharded_4dev.json")
            ["expected"]["entries"][5]["digest"];
    ASSERT_NE(addEntry6, shardedEntry6);
    add["flags"]["XLA_FLAGS"] = "--xla_force_host_platform_device_count=4";
    KeyResult a = mustCompute(add);
    EXPECT_EQ(toHex(a.entries[5].digest), shardedEntry6);
    EXPECT_TRUE(a.xlaFlagsMovedDevices);
    sharded["flags"]["XLA_FLAGS"] = nullptr;
    KeyResult b = mustCompute(sharded);
    EXPECT_EQ(toHex(b.entries[5].digest), addEntry6);
  }
}

// A base fixture whose own flags are kept: their effect is replaced by the
// same flags, not added a second time, so the key stays the captured one.
TEST(XlaFlags, CapturedFlagsAreReplacedNotAddedTwice) {
  Json expected = loadJson("fixtures/sharded_4dev.json")["expected"];
  KeyResult r = mustCompute(patched("sharded_4dev", {{"custom_hook", ""}}));
  expectMatchesCapture(expected, r);
  ASSERT_TRUE(r.xlaFlags.has_value());
  EXPECT_FALSE(r.xlaFlagsMovedDevices);
}

// A comma list of enum names into a packed repeated enum, by the measured
// enum_list rule, for lists no table sample holds. Expected: the field real
// jaxlib 0.10.2 and 0.12.0.1 built (tools/xla_flags/probe.py Prober, one
// fresh process each, 2026-12-01): FUSION,CUBLAS,cudnn -> 01 02 03;
// while,FUSION,WHILE -> 06 01 (the command-buffer setter keeps one of each);
// ALLGATHER,ALLREDUCE,ALLGATHER -> 02 01 02 (the async-collectives one keeps
// repeats).
TEST(XlaFlags, EnumListIsPackedAsXlaPacksIt) {
  struct Case {
    const char *flag;
    uint32_t number;
    const char *packedHex;
  };
  const Case cases[] = {
      {"--xla_gpu_enable_command_buffer=FUSION,CUBLAS,cudnn", 258, "010203"},
      {"--xla_gpu_enable_command_buffer=while,FUSION,WHILE", 258, "0601"},
      {"--xla_gpu_disable_async_collectives=ALLGATHER,ALLREDUCE,ALLGATHER", 289, "020102"},
  };
  for (const char *release : kReleases) {
    SCOPED_TRACE(release);
    const XlaFlagTable *table = xlaFlagTable(release);
    ASSERT_NE(table, nullptr);
    for (const Case &c : cases) {
      SCOPED_TRACE(c.flag);
      auto fx = parseXlaFlags(*table, c.flag, "$");
      ASSERT_TRUE(static_cast<bool>(fx)) << fx.error().str();
      EXPECT_TRUE(fx->unknownEffect.empty());
      auto it = fx->debugFields.find(c.number);
      ASSERT_NE(it, fx->debugFields.end());
      ASSERT_EQ(it->second.size(), 1u);
      EXPECT_EQ(it->second[0].type, WireType::Len);
      EXPECT_EQ(toHex(it->second[0].payload), c.packedHex);
    }
  }
}
