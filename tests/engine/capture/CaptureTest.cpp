// Captured runs (Capture.h) and their comparison (CaptureDiff.h), on
// captures built in memory from fixtures.
#include "TestUtil.h"

#include "cachekey/Capture.h"
#include "cachekey/CaptureDiff.h"
#include "cachekey/ModuleDiff.h"
#include "cachekey/Sha256.h"
#include "cachekey/Wording.h"

#include <zstd.h>

#include <algorithm>
#include <map>

using namespace cachekey;
using namespace cachekey::test;

namespace {

/// A capture directory in memory: file name → bytes.
struct MemoryDir {
  std::map<std::string, Bytes> files;
  CaptureFileReader reader() const {
    return [this](const std::string &name) -> Expected<Bytes> {
      auto it = files.find(name);
      if (it == files.end())
        return Error{name, "no such file"};
      return it->second;
    };
  }
};

/// A fixture turned into a captured program: entry 1 stored as `storage`
/// ("inline", "sidecar" (raw) or "omitted"), text in a sidecar.
Json capturedFromFixture(const std::string &id, const std::string &stem,
                         const std::string &storage, MemoryDir &dir,
                         const std::string &text = "module {}\n") {
  Json doc = loadJson("fixtures/" + id + ".json");
  Bytes entry1 = *base64Decode(doc["module"]["entry1_b64"].get<std::string>());
  Json e1 = {{"bytes", entry1.size()}, {"sha256", toHex(Sha256::of(entry1))},
             {"storage", storage}};
  if (storage != "inline")
    doc["module"].erase("entry1_b64");
  if (storage == "sidecar") {
    e1["file"] = stem + ".entry1";
    e1["encoding"] = "raw";
    dir.files[stem + ".entry1"] = entry1;
  }
  dir.files[stem + ".mlir"] = text;
  doc["capture"] = {{"format", 1},
                    {"occurrence", 1},
                    {"entry1", e1},
                    {"module_text",
                     {{"storage", "sidecar"},
                      {"file", stem + ".mlir"},
                      {"sha256", toHex(Sha256::of(text))}}}};
  doc.erase("provenance");
  return doc;
}

void addToIndex(MemoryDir &dir, const std::string &file, const Json &doc) {
  dir.files[file] = doc.dump();
  Json index = dir.files.count("index.json")
                   ? Json::parse(dir.files["index.json"])
                   : Json{{"format", 1}, {"programs", Json::array()}};
  index["programs"].push_back({{"file", file},
                               {"program", doc["module"]["sym_name"]},
                               {"occurrence", 1},
                               {"key", doc["expected"]["key"]},
                               {"outcome", "written"}});
  dir.files["index.json"] = index.dump();
}

} // namespace

TEST(Capture, SidecarEntry1IsLoadedAndTheKeyChecked) {
  MemoryDir dir;
  Json doc = capturedFromFixture("add_1x1", "0001-jit__lambda", "sidecar", dir);
  ASSERT_TRUE(isCapturedScenario(doc));
  auto p = readCapturedProgram("0001-jit__lambda.json", doc, dir.reader());
  ASSERT_TRUE(p) << p.error().str();
  auto r = computeCapturedKey(*p);
  ASSERT_TRUE(r) << r.error().str();
  CaptureCheck ok = checkCapturedKey(*p, *r);
  EXPECT_TRUE(ok.matches) << ok.sentence;
  EXPECT_EQ(ok.sentence, "The engine's key equals the key real JAX computed.");

  p->expectedKey = "jit__lambda-" + std::string(64, '0');
  CaptureCheck bad = checkCapturedKey(*p, *r);
  EXPECT_FALSE(bad.matches);
  EXPECT_NE(bad.sentence.find("MISMATCH"), std::string::npos);
}

TEST(Capture, ZstdSidecarIsDecompressed) {
  MemoryDir dir;
  Json doc = capturedFromFixture("add_1x1", "z", "sidecar", dir);
  Bytes raw = dir.files["z.entry1"];
  Bytes packed(ZSTD_compressBound(raw.size()), '\0');
  packed.resize(ZSTD_compress(packed.data(), packed.size(), raw.data(), raw.size(), 3));
  dir.files.erase("z.entry1");
  dir.files["z.entry1.zst"] = packed;
  doc["capture"]["entry1"]["file"] = "z.entry1.zst";
  doc["capture"]["entry1"]["encoding"] = "zstd";
  auto p = readCapturedProgram("z.json", doc, dir.reader());
  ASSERT_TRUE(p) << p.error().str();
  auto r = computeCapturedKey(*p);
  ASSERT_TRUE(r) << r.error().str();
  EXPECT_TRUE(checkCapturedKey(*p, *r).matches);
  dir.files["z.entry1.zst"] = "not zstd";
  p = readCapturedProgram("z.json", doc, dir.reader());
  ASSERT_FALSE(p);
  EXPECT_EQ(p.error().path, "z.json: $.capture.entry1.file (z.entry1.zst)");
}

TEST(Capture, BadSidecarsNameFileAndPath) {
  MemoryDir dir;
  Json doc = capturedFromFixture("add_1x1", "s", "sidecar", dir);
  dir.files["s.entry1"][3] ^= 1;
  auto p = readCapturedProgram("s.json", doc, dir.reader());
  ASSERT_FALSE(p);
  EXPECT_EQ(p.error().path, "s.json: $.capture.entry1.sha256");
  dir.files.erase("s.entry1");
  p = readCapturedProgram("s.json", doc, dir.reader());
  ASSERT_FALSE(p);
  EXPECT_EQ(p.error().path, "s.json: $.capture.entry1.file");
  doc["capture"]["entry1"]["encoding"] = "gzip";
  dir.files["s.entry1"] = "x";
  p = readCapturedProgram("s.json", doc, dir.reader());
  ASSERT_FALSE(p);
  EXPECT_EQ(p.error().path, "s.json: $.capture.entry1.encoding");
  doc["capture"]["format"] = 2;
  p = readCapturedProgram("s.json", doc, dir.reader());
  ASSERT_FALSE(p);
  EXPECT_EQ(p.error().path, "s.json: $.capture.format");
}

TEST(Capture, OmittedEntry1UsesJaxDigests) {
  MemoryDir dir;
  Json doc = capturedFromFixture("add_1x1", "o", "omitted", dir);
  auto p = readCapturedProgram("o.json", doc, dir.reader());
  ASSERT_TRUE(p) << p.error().str();
  EXPECT_TRUE(p->entry1Omitted);
  auto r = computeCapturedKey(*p);
  ASSERT_TRUE(r) << r.error().str();
  EXPECT_EQ(r->key, doc["expected"]["key"].get<std::string>());
  CaptureCheck c = checkCapturedKey(*p, *r);
  EXPECT_TRUE(c.matches) << c.sentence;
  EXPECT_NE(c.sentence.find("digest only"), std::string::npos);
}

// Two keys whose entry 1 is known as a digest only (a record of
// cachekey.watch's index, given to `cachekey diff` as a scenario): the moved
// entry 1 is named by its digests, never as "0 → 0 bytes, first difference
// at byte 0".
TEST(Capture, OmittedEntry1MovesAsDigests) {
  MemoryDir dir;
  Json a = capturedFromFixture("add_1x1", "a", "omitted", dir);
  Json b = capturedFromFixture("mul_2x2", "b", "omitted", dir);
  auto pa = readCapturedProgram("a.json", a, dir.reader());
  auto pb = readCapturedProgram("b.json", b, dir.reader());
  ASSERT_TRUE(pa && pb);
  auto ra = computeCapturedKey(*pa), rb = computeCapturedKey(*pb);
  ASSERT_TRUE(ra && rb);
  Comparison c = compareResults(*ra, *rb);
  std::vector<EntryChange> all = c.changes;
  all.insert(all.end(), c.otherChanges.begin(), c.otherChanges.end());
  int digestOnly = 0;
  for (const EntryChange &ch : all) {
    if (ch.entry != 1)
      continue;
    EXPECT_NE(ch.code, EntryChange::Code::ModuleBytes);
    if (ch.code == EntryChange::Code::Entry1DigestOnly) {
      ++digestOnly;
      EXPECT_EQ(ch.before, shortDigest(a["capture"]["entry1"]["sha256"].get<std::string>()));
      EXPECT_EQ(ch.after, shortDigest(b["capture"]["entry1"]["sha256"].get<std::string>()));
    }
  }
  EXPECT_EQ(digestOnly, 1);
}

TEST(CaptureDiff, PairsByNameAndOrderAndNamesTheFlag) {
  MemoryDir a, b;
  addToIndex(a, "0001.json", capturedFromFixture("add_1x1", "0001", "inline", a));
  // B: the same program with one flag moved, then a program of another name.
  Json moved = capturedFromFixture("add_1x1", "0001", "inline", b);
  moved["flags"]["XLA_FLAGS"] = "--xla_gpu_autotune_level=1";
  moved["expected"]["key"] = "jit__lambda-changed"; // keys differ
  addToIndex(b, "0001.json", moved);
  addToIndex(b, "0002.json", capturedFromFixture("mul_2x2", "0002", "inline", b));
  auto c = compareCaptures(a.reader(), b.reader());
  ASSERT_TRUE(c) << c.error().str();
  EXPECT_EQ(c->paired, 1u);
  ASSERT_EQ(c->differing.size(), 1u);
  EXPECT_EQ(c->differing[0].comparison.cause, 4);
  EXPECT_NE(comparisonSentence(c->differing[0].comparison).find(
                "added flag --xla_gpu_autotune_level=1"),
            std::string::npos);
  ASSERT_EQ(c->onlyB.size(), 1u);
  EXPECT_EQ(c->onlyB[0].file, "0002.json");
  EXPECT_NE(captureComparisonText(*c).find("Only in B: jit_mul"), std::string::npos);
  EXPECT_FALSE(c->identical());
  // The engine's key for the moved side is not the placeholder "changed" key.
  ASSERT_EQ(c->notes.size(), 1u);
  // The JSON gives each detail, also-detail and note its code.
  Json j = captureComparisonToJson(*c);
  const Json &d = j["differing"][0];
  EXPECT_EQ(d["comparison"]["findings"]["details"][0]["code"], "flag");
  EXPECT_EQ(d["comparison"]["findings"]["details"][0]["flag"]["kind"], "added");
  EXPECT_FALSE(d.contains("also_details"));
  ASSERT_EQ(j["notes"].size(), 1u);
  EXPECT_EQ(j["notes"][0]["code"], "capture_not_reproduced");
  EXPECT_EQ(j["notes"][0]["text"], captureNoteText(c->notes[0]));
  EXPECT_EQ(j["notes"][0]["side"], c->notes[0].side);
  EXPECT_EQ(j["notes"][0]["file"], c->notes[0].file);
  EXPECT_EQ(c->notes[0].side, "B");
}

TEST(CaptureDiff, PairsByKeyBeforeOrder) {
  // Two programs of one name, compiled in the other order in B (as a run
  // that evaluates before it trains): paired by order, both would differ;
  // by key, both are the same programs (real JAX hits on both).
  MemoryDir a, b;
  Json first = capturedFromFixture("add_1x1", "0001", "inline", a);
  Json second = first;
  second["expected"]["key"] = "jit__lambda-second";
  addToIndex(a, "0001.json", first);
  addToIndex(a, "0002.json", second);
  addToIndex(b, "0001.json", second);
  addToIndex(b, "0002.json", first);
  Json ia = Json::parse(a.files["index.json"]), ib = Json::parse(b.files["index.json"]);
  ia["programs"][1]["occurrence"] = ib["programs"][1]["occurrence"] = 2;
  a.files["index.json"] = ia.dump(), b.files["index.json"] = ib.dump();
  auto c = compareCaptures(a.reader(), b.reader());
  ASSERT_TRUE(c) << c.error().str();
  EXPECT_EQ(c->paired, 2u);
  EXPECT_EQ(c->sameKey, 2u);
  EXPECT_EQ(c->sameKeyElsewhere, 2u);
  EXPECT_TRUE(c->identical());
  EXPECT_NE(captureSummaryText(*c).find("2 with the same key (2 of them found by key in another order)"),
            std::string::npos)
      << captureSummaryText(*c);
  Json j = captureComparisonToJson(*c);
  EXPECT_EQ(j["summary"]["code"], "capture_summary");
  EXPECT_EQ(j["summary"]["same_key_elsewhere"], 2);
  EXPECT_EQ(j["summary"]["text"], captureSummaryText(*c));
}

TEST(CaptureDiff, IndexAndFileMustAgreeOnTheKey) {
  MemoryDir a, b;
  addToIndex(a, "0001.json", capturedFromFixture("add_1x1", "0001", "inline", a));
  Json other = capturedFromFixture("add_1x1", "0001", "inline", b);
  other["expected"]["key"] = "jit__lambda-other";
  addToIndex(b, "0001.json", other);
  Json index = Json::parse(b.files["index.json"]);
  index["programs"][0]["key"] = "jit__lambda-listed";
  b.files["index.json"] = index.dump();
  auto c = compareCaptures(a.reader(), b.reader());
  // The pair is left out with its error; the comparison itself stands.
  ASSERT_TRUE(c) << c.error().str();
  EXPECT_EQ(c->paired, 0u);
  ASSERT_EQ(c->unreadable.size(), 1u);
  EXPECT_EQ(c->unreadable[0].side, "B");
  EXPECT_EQ(c->unreadable[0].file, "0001.json");
  EXPECT_NE(c->unreadable[0].error.str().find(
                "0001.json: $.expected.key: is jit__lambda-other, "
                "but index.json lists jit__lambda-listed"),
            std::string::npos)
      << c->unreadable[0].error.str();
  EXPECT_FALSE(c->identical());
}

TEST(CaptureDiff, ADamagedFileLeavesOnlyItsPairOut) {
  // B's second program file is cut in half (a copy that did not finish):
  // its pair is one finding, with the file, the engine's error code and no
  // JSON library jargon; the first pair is still compared and differs.
  MemoryDir a, b;
  addToIndex(a, "0001.json", capturedFromFixture("add_1x1", "0001", "inline", a));
  addToIndex(a, "0002.json", capturedFromFixture("mul_2x2", "0002", "inline", a));
  Json moved = capturedFromFixture("add_1x1", "0001", "inline", b);
  moved["flags"]["XLA_FLAGS"] = "--xla_gpu_autotune_level=1";
  moved["expected"]["key"] = "jit__lambda-changed";
  addToIndex(b, "0001.json", moved);
  Json second = capturedFromFixture("mul_2x2", "0002", "inline", b);
  second["expected"]["key"] = "jit_mul-changed"; // keys differ: the file is read
  addToIndex(b, "0002.json", second);
  Bytes &cut = b.files["0002.json"];
  cut.resize(cut.size() / 2);
  auto c = compareCaptures(a.reader(), b.reader(), "A", "B");
  ASSERT_TRUE(c) << c.error().str();
  EXPECT_EQ(c->paired, 1u);
  ASSERT_EQ(c->differing.size(), 1u);
  EXPECT_EQ(c->differing[0].comparison.cause, 4);
  ASSERT_EQ(c->unreadable.size(), 1u);
  const UnreadableProgram &u = c->unreadable[0];
  EXPECT_EQ(u.side, "B");
  EXPECT_EQ(u.file, "0002.json");
  EXPECT_EQ(u.program, "jit_mul");
  EXPECT_EQ(u.error.code, ErrorCode::Syntax);
  std::string text = unreadableProgramText(u);
  EXPECT_EQ(text.find("Not compared: jit_mul #1 (B/0002.json): "), 0u) << text;
  EXPECT_EQ(text.find("json.exception"), std::string::npos) << text;
  EXPECT_NE(captureComparisonText(*c).find(text), std::string::npos);
  EXPECT_NE(captureSummaryText(*c).find("1 program file could not be read"),
            std::string::npos)
      << captureSummaryText(*c);
  Json j = captureComparisonToJson(*c);
  ASSERT_EQ(j["unreadable"].size(), 1u);
  EXPECT_EQ(j["unreadable"][0]["code"], "program_unreadable");
  EXPECT_EQ(j["unreadable"][0]["error"]["code"], "syntax");
  EXPECT_EQ(j["unreadable"][0]["text"], text);
  EXPECT_EQ(j["summary"]["unreadable"], 1);
}

TEST(CaptureDiff, AMovedCpuTopologyIsNamedOnceAsTheComparisonsFacts) {
  // B ran on 4 devices of another CPU model: entry 6 moves, and its CPU
  // fields are the comparison's own changes (acceleratorChanges, as for two
  // scenarios), not said again beside them.
  MemoryDir a, b;
  addToIndex(a, "0001.json", capturedFromFixture("add_1x1", "0001", "inline", a));
  Json moved = capturedFromFixture("add_1x1", "0001", "inline", b);
  Json &topology = moved["accelerator"]["cpu_topology"];
  const std::string cpuA = topology["target_machine"]["cpu"];
  topology["target_machine"]["cpu"] = "znver3";
  topology["devices"] = Json::array();
  for (int i = 0; i < 4; ++i)
    topology["devices"].push_back({{"process_index", 0}, {"local_hardware_id", i}});
  moved["expected"]["key"] = "jit__lambda-moved";
  addToIndex(b, "0001.json", moved);
  auto c = compareCaptures(a.reader(), b.reader());
  ASSERT_TRUE(c) << c.error().str();
  ASSERT_EQ(c->differing.size(), 1u);
  const ProgramDifference &d = c->differing[0];
  EXPECT_EQ(d.comparison.cause, 6);
  const EntryChange *model = nullptr, *count = nullptr;
  for (const EntryChange &ch : d.comparison.changes) {
    EXPECT_EQ(ch.entry, 6);
    if (ch.code == EntryChange::Code::CpuModel)
      model = &ch;
    if (ch.code == EntryChange::Code::DeviceCount)
      count = &ch;
  }
  ASSERT_NE(model, nullptr);
  EXPECT_EQ(model->before, cpuA);
  EXPECT_EQ(model->after, "znver3");
  ASSERT_NE(count, nullptr);
  EXPECT_EQ(count->sizeBefore, 1u);
  EXPECT_EQ(count->sizeAfter, 4u);
  for (const AlsoFinding &f : d.also)
    EXPECT_NE(f.entry, 6) << alsoFindingText(f);
  Json j = captureComparisonToJson(*c);
  std::vector<std::string> codes;
  for (const Json &f : j["differing"][0]["comparison"]["findings"]["details"])
    codes.push_back(f["code"]);
  EXPECT_NE(std::find(codes.begin(), codes.end(), "cpu_model"), codes.end());
  EXPECT_NE(std::find(codes.begin(), codes.end(), "device_count"), codes.end());
  for (const Json &f : j["differing"][0]["also_findings"])
    EXPECT_NE(f.value("entry", 0), 6) << f.dump();
}

namespace {

/// A module differ that finds every float argument widened, as
/// jax_enable_x64 would (ModuleFinding::x64), whatever the modules.
Expected<ModuleDiff> widenedDiffer(const std::string &, const std::string &) {
  ModuleDiff d;
  ModuleFinding f;
  f.code = ModuleFinding::Code::ArgumentTypes;
  f.x64 = true;
  d.findings.push_back(f);
  return d;
}

Expected<ModuleDiff> failingDiffer(const std::string &, const std::string &) {
  return Error{"$", "does not parse", ErrorCode::Syntax};
}

/// Captures of add_1x1 whose entry 1 differs (B's bytes end in one more
/// byte), with the given recorded settings and generic-text sidecars.
std::pair<MemoryDir, MemoryDir> movedPair(const Json &settingsA, const Json &settingsB) {
  MemoryDir a, b;
  Json da = capturedFromFixture("add_1x1", "0001", "inline", a);
  Json db = capturedFromFixture("add_1x1", "0001", "inline", b);
  Bytes e1 = *base64Decode(db["module"]["entry1_b64"].get<std::string>()) + "x";
  db["module"]["entry1_b64"] = base64Encode(e1);
  db["capture"]["entry1"]["bytes"] = e1.size();
  db["capture"]["entry1"]["sha256"] = toHex(Sha256::of(e1));
  db["expected"]["key"] = "jit__lambda-moved";
  da["capture"]["settings"] = settingsA;
  db["capture"]["settings"] = settingsB;
  for (auto [doc, dir] : {std::pair{&da, &a}, {&db, &b}}) {
    (*doc)["capture"]["module_text"]["generic_file"] = "0001.generic.mlir";
    dir->files["0001.generic.mlir"] = "\"builtin.module\"() ({}) : () -> ()\n";
  }
  addToIndex(a, "0001.json", da);
  addToIndex(b, "0001.json", db);
  return {std::move(a), std::move(b)};
}

} // namespace

TEST(CaptureDiff, RecordedSettingsNameTheOptionAndClearAnX64Guess) {
  // Both runs had jax_enable_x64 on; only the matmul precision moved.
  auto [a, b] = movedPair({{"jax_enable_x64", true}, {"jax_default_matmul_precision", nullptr}},
                          {{"jax_enable_x64", true}, {"jax_default_matmul_precision", "highest"}});
  setModuleDiffer(&widenedDiffer);
  auto c = compareCaptures(a.reader(), b.reader());
  setModuleDiffer(nullptr);
  ASSERT_TRUE(c) << c.error().str();
  ASSERT_EQ(c->differing.size(), 1u);
  const ProgramDifference &d = c->differing[0];
  EXPECT_EQ(d.comparison.cause, 1);
  ASSERT_FALSE(d.comparison.changes.empty());
  ASSERT_EQ(d.comparison.changes.front().code, EntryChange::Code::ModuleFinding);
  // x64 was the same in both runs: the widening is not put down to it.
  EXPECT_FALSE(d.comparison.changes.front().module->x64);
  // The advice names the recorded option that moved, with its values, and
  // not jax_enable_x64 (the same in both runs).
  const std::string advice = programAdviceText(d);
  EXPECT_EQ(advice.rfind("Set jax_default_matmul_precision (None in A, 'highest' in B)", 0), 0u)
      << advice;
  EXPECT_EQ(advice.find("jax_enable_x64"), std::string::npos) << advice;
  EXPECT_EQ(captureComparisonToJson(*c)["differing"][0]["comparison"]["advice"]["jax_settings"],
            Json::array({"jax_default_matmul_precision"}));
  const AlsoFinding *setting = nullptr;
  for (const auto &f : d.also)
    if (f.code == AlsoFinding::Code::JaxSetting)
      setting = &f;
  ASSERT_NE(setting, nullptr);
  EXPECT_EQ(setting->setting, "jax_default_matmul_precision");
  EXPECT_EQ(alsoFindingText(*setting).rfind("JAX option jax_default_matmul_precision None → 'highest'", 0), 0u)
      << alsoFindingText(*setting);
  Json j = captureComparisonToJson(*c);
  bool found = false;
  for (const auto &f : j["differing"][0]["also_findings"])
    found = found || (f["code"] == "jax_setting" && f["after"] == "highest");
  EXPECT_TRUE(found);
}

TEST(CaptureDiff, AGenericTextThatDoesNotDiffIsSaid) {
  // x64 moved (recorded), so a widening stays x64's; and the generic texts
  // do not parse, which the pair says instead of dropping the diff silently.
  auto [a, b] = movedPair({{"jax_enable_x64", false}}, {{"jax_enable_x64", true}});
  setModuleDiffer(&failingDiffer);
  auto c = compareCaptures(a.reader(), b.reader());
  setModuleDiffer(nullptr);
  ASSERT_TRUE(c) << c.error().str();
  ASSERT_EQ(c->differing.size(), 1u);
  const ProgramDifference &d = c->differing[0];
  ASSERT_TRUE(d.genericError);
  EXPECT_NE(captureComparisonText(*c).find("the generic module texts could not be diffed"),
            std::string::npos);
  EXPECT_EQ(captureComparisonToJson(*c)["differing"][0]["generic_text_error"]["error"]["code"],
            "syntax");
}
