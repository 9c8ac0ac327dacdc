// WireMessage (engine/lib/Wire.cpp): protobuf messages as ordered fields.
//
// Expected bytes are derived by hand from the wire format as protobuf's
// encoding guide states it (protobuf.dev/programming-guides/encoding): a
// field is a tag, the varint (number << 3) | wire type, then its value:
// varint (wire type 0: 7 bits per byte, least significant group first, the
// high bit set on every byte but the last), fixed64 (1: 8 bytes
// little-endian), length-delimited (2: a varint length, then the bytes) or
// fixed32 (5: 4 bytes little-endian). Each test shows its derivation. Real
// bytes come from fixtures/: CompileOptionsProto as jaxlib's
// SerializeAsString() returned it.
#include "TestUtil.h"

#include "cachekey/CompileOptions.h"
#include "cachekey/Wire.h"

#include <set>

using namespace cachekey;
using namespace cachekey::test;

namespace {

Bytes hex(const std::string &h) {
  Bytes out;
  for (size_t i = 0; i + 1 < h.size(); i += 2)
    out.push_back(static_cast<char>(std::stoi(h.substr(i, 2), nullptr, 16)));
  return out;
}

/// The error of parsing `bytes`; fails the test when it parses.
Error parseError(const Bytes &bytes) {
  auto m = WireMessage::parse(bytes);
  EXPECT_FALSE(m) << "parsed: " << toHex(bytes);
  return m ? Error{} : m.error();
}

std::vector<uint32_t> numbers(const WireMessage &m) {
  std::vector<uint32_t> v;
  for (const auto &f : m.fields)
    v.push_back(f.number);
  return v;
}

Bytes b64(const Json &j) { return *base64Decode(j.get<std::string>()); }

} // namespace

TEST(Wire, TheEncodingGuidesOwnExamplesParse) {
  // The guide's examples: field 1 = 150 is 08 96 01 (tag 1<<3|0 = 0x08;
  // 150 = 0b1_0010110: low group 0010110 with the high bit set is 0x96,
  // then 1 is 0x01); field 2 = "testing" is 12 07 74 65 73 74 69 6e 67
  // (tag 2<<3|2 = 0x12, length 7, the ASCII bytes).
  Bytes bytes = hex("089601") + hex("1207") + "testing";
  auto m = WireMessage::parse(bytes);
  ASSERT_TRUE(m) << m.error().str();
  ASSERT_EQ(m->fields.size(), 2u);
  EXPECT_EQ(m->fields[0].number, 1u);
  EXPECT_EQ(m->fields[0].type, WireType::Varint);
  EXPECT_EQ(m->fields[0].varint, 150u);
  EXPECT_EQ(m->fields[1].number, 2u);
  EXPECT_EQ(m->fields[1].type, WireType::Len);
  EXPECT_EQ(m->fields[1].payload, "testing");
  EXPECT_EQ(m->serialize(), bytes);
}

TEST(Wire, FixedWidthFieldsKeepTheirLittleEndianBytes) {
  // Field 5, fixed32 1.0f: tag 5<<3|5 = 0x2d; IEEE 754 single 1.0 is
  // 0x3f800000, little-endian 00 00 80 3f. Field 1, fixed64 1.0: tag
  // 1<<3|1 = 0x09; IEEE 754 double 1.0 is 0x3ff0000000000000.
  Bytes bytes = hex("2d0000803f") + hex("09000000000000f03f");
  auto m = WireMessage::parse(bytes);
  ASSERT_TRUE(m) << m.error().str();
  ASSERT_EQ(m->fields.size(), 2u);
  EXPECT_EQ(m->fields[0].type, WireType::Fixed32);
  EXPECT_EQ(m->fields[0].payload, hex("0000803f"));
  EXPECT_EQ(m->fields[1].type, WireType::Fixed64);
  EXPECT_EQ(m->fields[1].payload, hex("000000000000f03f"));
  EXPECT_EQ(m->serialize(), bytes);
}

TEST(Wire, MultiByteTagsAndTenByteVarints) {
  // Field 16 has tag 16<<3 = 128 = 0b1_0000000: 80 01. A varint of 2^64-1
  // (also how an int64 -1 is written) is nine bytes of seven one-bits with
  // the high bit set (ff) and a last byte holding the top bit (01).
  Bytes bytes = hex("8001") + hex("ffffffffffffffffff01");
  auto m = WireMessage::parse(bytes);
  ASSERT_TRUE(m) << m.error().str();
  ASSERT_EQ(m->fields.size(), 1u);
  EXPECT_EQ(m->fields[0].number, 16u);
  EXPECT_EQ(m->fields[0].varint, UINT64_MAX);
  EXPECT_EQ(m->serialize(), bytes);
  // makeVarint/makeLen encode the same way.
  WireMessage built;
  built.fields.push_back(WireField::makeVarint(16, UINT64_MAX));
  built.fields.push_back(WireField::makeLen(2, "testing"));
  EXPECT_EQ(built.serialize(), bytes + hex("1207") + "testing");
}

TEST(Wire, EmptyInputIsAnEmptyMessage) {
  auto m = WireMessage::parse("");
  ASSERT_TRUE(m);
  EXPECT_TRUE(m->fields.empty());
  EXPECT_EQ(m->serialize(), "");
}

TEST(Wire, MalformedInputNamesTheFieldAndTheByteOffset) {
  struct Case {
    Bytes bytes;
    const char *fragment;
  };
  const Case cases[] = {
      // 00: tag 0 (field 0, a varint): no field has number 0.
      {hex("00"), "at byte 0"},
      // 02: tag 0<<3|2, field number 0 with a valid wire type.
      {hex("02"), "field number 0 at byte 0"},
      // 08 then nothing: field 1's varint value is missing.
      {hex("08"), "truncated varint field 1 at byte 0"},
      // 08 96: the varint's last byte still has the high bit set.
      {hex("0896"), "truncated varint field 1 at byte 0"},
      // 08 01 is field 1 = 1 (bytes 0-1); 12 05 'a' at byte 2 declares 5
      // bytes for field 2 but 1 remains.
      {hex("08011205") + "a",
       "field 2 at byte 2 declares 5 bytes but only 1 remain"},
      // 2d 00 00: field 5 fixed32 with 2 of its 4 bytes.
      {hex("2d0000"), "truncated fixed32 field 5 at byte 0"},
      // 09 + 7 bytes: field 1 fixed64 with 7 of 8.
      {hex("0900000000000000"), "truncated fixed64 field 1 at byte 0"},
      // 0b: tag 1<<3|3, a group start (wire type 3), not valid in proto3.
      {hex("0b"), "wire type 3 field 1 at byte 0"},
      // 0e: tag 1<<3|6, wire type 6 does not exist.
      {hex("0e"), "wire type 6 field 1 at byte 0"},
  };
  for (const Case &c : cases) {
    SCOPED_TRACE(toHex(c.bytes));
    Error e = parseError(c.bytes);
    EXPECT_EQ(e.code, ErrorCode::MalformedProto) << e.str();
    EXPECT_NE(e.message.find(c.fragment), std::string::npos) << e.str();
  }
}

TEST(Wire, FieldsStayInWireOrderUntilSorted) {
  // Fields 3, 1, 3, 2 (each a varint of its position 0..3): parse keeps the
  // order; last(3) is the second field 3; sortByNumber is stable.
  Bytes bytes = hex("1800") + hex("0801") + hex("1802") + hex("1003");
  auto m = WireMessage::parse(bytes);
  ASSERT_TRUE(m);
  EXPECT_EQ(numbers(*m), (std::vector<uint32_t>{3, 1, 3, 2}));
  ASSERT_NE(m->last(3), nullptr);
  EXPECT_EQ(m->last(3)->varint, 2u);
  EXPECT_EQ(m->last(4), nullptr);
  EXPECT_EQ(m->serialize(), bytes);
  m->sortByNumber();
  EXPECT_EQ(numbers(*m), (std::vector<uint32_t>{1, 2, 3, 3}));
  EXPECT_EQ(m->fields[2].varint, 0u);
  EXPECT_EQ(m->fields[3].varint, 2u);
}

TEST(Wire, SetSortedReplacesEveryOccurrenceInNumberOrder) {
  WireMessage m;
  for (uint32_t n : {1u, 3u, 3u, 5u})
    m.fields.push_back(WireField::makeVarint(n, n));
  m.setSorted(WireField::makeVarint(3, 30));
  EXPECT_EQ(numbers(m), (std::vector<uint32_t>{1, 3, 5}));
  EXPECT_EQ(m.last(3)->varint, 30u);
  m.setSorted(WireField::makeVarint(4, 40)); // absent: before field 5
  EXPECT_EQ(numbers(m), (std::vector<uint32_t>{1, 3, 4, 5}));
  m.setSorted(WireField::makeVarint(9, 90)); // after every field
  EXPECT_EQ(numbers(m), (std::vector<uint32_t>{1, 3, 4, 5, 9}));
  EXPECT_EQ(m.removeAll(4), 1u);
  EXPECT_EQ(m.removeAll(4), 0u);
  EXPECT_EQ(numbers(m), (std::vector<uint32_t>{1, 3, 5, 9}));
}

TEST(Wire, SetMessageEditsTheLastOccurrenceWhereItIs) {
  // Field 3 sits after field 7 (out of number order); setMessage edits it
  // in place, since the last occurrence is the one a singular field reads.
  WireMessage m;
  m.fields.push_back(WireField::makeLen(7, "a"));
  m.fields.push_back(WireField::makeLen(3, "b"));
  m.setMessage(3, "new");
  EXPECT_EQ(numbers(m), (std::vector<uint32_t>{7, 3}));
  EXPECT_EQ(m.fields[1].payload, "new");
  // An absent field is inserted in number order, before field 7. On the
  // wire: 2a 00 (tag 5<<3|2, length 0), 3a 01 'a' (field 7), 1a 03 'new'
  // (field 3).
  m.setMessage(5, "");
  EXPECT_EQ(numbers(m), (std::vector<uint32_t>{5, 7, 3}));
  EXPECT_EQ(m.serialize(), hex("2a00") + hex("3a01") + "a" + hex("1a03") + "new");
}

TEST(Wire, JaxlibsCompileOptionsRoundTripByteForByte) {
  // Each fixture's CompileOptionsProto is what jaxlib's SerializeAsString()
  // wrote; parsing and writing it back, and each nested message on the path
  // to DebugOptions, must give the same bytes.
  int checked = 0;
  for (const std::string dir : {"fixtures", "fixtures/0.12.0.1", "fixtures/tpu"}) {
    for (const auto &id : jsonIdsIn(dir)) {
      Json doc = loadJson(dir + "/" + id + ".json");
      if (!doc.contains("compile_options"))
        continue;
      SCOPED_TRACE(dir + "/" + id);
      Bytes co = b64(doc["compile_options"]["proto_b64"]);
      auto m = WireMessage::parse(co);
      ASSERT_TRUE(m) << m.error().str();
      EXPECT_EQ(m->serialize(), co);
      const WireField *ebo = m->last(field::kExecutableBuildOptions);
      ASSERT_NE(ebo, nullptr);
      auto e = WireMessage::parse(ebo->payload);
      ASSERT_TRUE(e);
      EXPECT_EQ(e->serialize(), ebo->payload);
      const WireField *dbg = e->last(field::kDebugOptions);
      ASSERT_NE(dbg, nullptr);
      auto d = WireMessage::parse(dbg->payload);
      ASSERT_TRUE(d);
      EXPECT_EQ(d->serialize(), dbg->payload);
      ++checked;
    }
  }
  EXPECT_GE(checked, 50); // 20 CPU captures and the TPU ones
}

TEST(Wire, DefaultDebugOptionsHoldTheFieldsTheTableFoundThere) {
  // fixtures/debug_options_fields.json was discovered in jaxlib 0.10.2 by
  // its own means (setting attributes, injecting fields); it records
  // jaxlib's default CompileOptions() bytes and, per field, whether that
  // default serialization holds it. Reading those bytes here must find
  // exactly the fields it says are there (and possibly fields it could not
  // name, such as message-typed ones).
  Json table = loadJson("fixtures/debug_options_fields.json");
  auto co = WireMessage::parse(b64(table["default_compile_options_b64"]));
  ASSERT_TRUE(co);
  auto ebo = WireMessage::parse(co->last(field::kExecutableBuildOptions)->payload);
  ASSERT_TRUE(ebo);
  auto dbg = WireMessage::parse(ebo->last(field::kDebugOptions)->payload);
  ASSERT_TRUE(dbg);
  std::set<uint32_t> onWire;
  for (const auto &f : dbg->fields)
    onWire.insert(f.number);
  int named = 0;
  for (auto it = table["fields"].begin(); it != table["fields"].end(); ++it) {
    SCOPED_TRACE(it.key());
    uint32_t n = (*it)["number"].get<uint32_t>();
    EXPECT_EQ(onWire.count(n) == 1,
              (*it)["in_default_serialization"].get<bool>());
    named += onWire.count(n) ? 1 : 0;
  }
  EXPECT_GT(named, 50);
}
