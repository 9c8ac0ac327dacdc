// JsonWriter (Json.h) against an independent computation: nlohmann's own
// dump of the same tree. Each tree is written through the writer's events
// (objects and arrays opened and closed, members keyed, scalars as values),
// at indent 2 and on one line, and the text must be dump's byte for byte;
// so must an array whose items another writer made (the streamed pairs of
// a log comparison, a cache directory's entries).
#include "cachekey/Json.h"

#include <gtest/gtest.h>

#include <random>

using namespace cachekey;

namespace {

/// Writes `v` through `w` event by event: containers opened and closed,
/// scalars as whole values, or (`typed`) strings, integers, booleans and
/// null by the writer's own scalar events.
void writeEvents(JsonWriter &w, const Json &v, bool typed = false) {
  if (v.is_object()) {
    w.objectBegin();
    for (const auto &[k, x] : v.items()) {
      w.key(k);
      writeEvents(w, x, typed);
    }
    w.objectEnd();
  } else if (v.is_array()) {
    w.arrayBegin();
    for (const auto &x : v)
      writeEvents(w, x, typed);
    w.arrayEnd();
  } else if (typed && v.is_string()) {
    w.string(v.get_ref<const std::string &>());
  } else if (typed && v.is_number_integer()) {
    w.integer(v.get<long long>());
  } else if (typed && v.is_boolean()) {
    w.boolean(v.get<bool>());
  } else if (typed && v.is_null()) {
    w.null();
  } else {
    w.value(v);
  }
}

/// A random tree: objects, arrays (empty ones too), strings with escapes
/// and bytes that are not UTF-8, numbers, booleans, null.
Json randomTree(std::mt19937 &rng, int depth) {
  std::uniform_int_distribution<int> kind(0, depth > 3 ? 4 : 7);
  switch (kind(rng)) {
  case 0: return nullptr;
  case 1: return rng() % 2 == 0;
  case 2:
    if (rng() % 8 == 0) // beyond 32 bits, of either sign
      return (rng() % 2 ? 1 : -1) * ((static_cast<int64_t>(rng()) << 30) + 7);
    return static_cast<int64_t>(rng() % 2000) - 1000;
  case 3: return static_cast<double>(rng() % 1000) / 7.0;
  case 4: {
    static const char *strings[] = {"",        "a",        "quote \" and \\", "line\nbreak",
                                    "\xff\xfe", "ü →",      "tab\there",       "del \x7f ~",
                                    "\x01\x1f", "cut \xe2\x86"};
    return strings[rng() % 10];
  }
  case 5:
  case 6: {
    Json o = Json::object();
    int n = static_cast<int>(rng() % 4);
    for (int i = 0; i < n; ++i)
      o["k" + std::to_string(i) + (i % 2 ? "\"q" : "")] = randomTree(rng, depth + 1);
    return o;
  }
  default: {
    Json a = Json::array();
    int n = static_cast<int>(rng() % 4);
    for (int i = 0; i < n; ++i)
      a.push_back(randomTree(rng, depth + 1));
    return a;
  }
  }
}

TEST(JsonWriterTest, EventsGiveDumpsBytes) {
  std::mt19937 rng(20261203);
  for (int round = 0; round < 400; ++round) {
    Json tree = randomTree(rng, 0);
    for (int indent : {2, -1})
      for (bool typed : {false, true}) {
        std::string out;
        JsonWriter w(out, indent);
        writeEvents(w, tree, typed);
        ASSERT_EQ(out, dumpJson(tree, indent))
            << "round " << round << " indent " << indent << " typed " << typed;
      }
  }
}

TEST(JsonWriterTest, WholeValuesNestAtTheirDepth) {
  Json inner = {{"a", Json::array({1, Json::object({{"b", "c"}})})}, {"d", Json::object()}};
  Json doc = {{"x", inner}, {"y", Json::array({inner, inner})}};
  std::string out;
  JsonWriter w(out, 2);
  w.objectBegin();
  w.attribute("x", inner);
  w.key("y");
  w.arrayBegin();
  w.value(inner);
  w.value(inner);
  w.arrayEnd();
  w.objectEnd();
  EXPECT_EQ(out, dumpJson(doc, 2));
}

TEST(JsonWriterTest, ItemsWrittenElsewhereJoinTheArray) {
  // {"head": 1, "items": [i0, i1, i2, i3], "tail": true}, the items made by
  // writers of their own (as makeInOrder's pieces), continuing the array.
  Json items = Json::array();
  for (int i = 0; i < 4; ++i)
    items.push_back({{"i", i}, {"list", Json::array({i, i + 1})}});
  Json doc = {{"head", 1}, {"items", items}, {"tail", true}};
  for (int indent : {2, -1}) {
    std::string out;
    JsonWriter w(out, indent);
    w.objectBegin();
    w.attribute("head", 1);
    w.key("items");
    w.arrayBegin();
    const int depth = w.depth();
    for (size_t i = 0; i < items.size(); ++i) {
      std::string piece;
      JsonWriter(piece, indent, depth, i).value(items[i]);
      out += piece;
    }
    w.itemsWrittenElsewhere(items.size());
    w.arrayEnd();
    w.attribute("tail", true);
    w.objectEnd();
    EXPECT_EQ(out, dumpJson(doc, indent)) << "indent " << indent;
  }
  // No items at all: "[]", as dump writes an empty array.
  std::string out;
  JsonWriter w(out, 2);
  w.objectBegin();
  w.key("items");
  w.arrayBegin();
  w.itemsWrittenElsewhere(0);
  w.arrayEnd();
  w.objectEnd();
  EXPECT_EQ(out, dumpJson(Json{{"items", Json::array()}}, 2));
}

TEST(JsonWriterTest, RawTextStandsAsAValue) {
  Json f = {{"code", "hit"}, {"n", Json::array({1, 2})}};
  std::string text;
  JsonAppender(text, 2).append(f, 2); // as a member's value at depth 2
  std::string out;
  JsonWriter w(out, 2);
  w.objectBegin();
  w.key("pair");
  w.objectBegin();
  w.key("findings");
  ASSERT_EQ(w.depth(), 2);
  w.raw(text);
  w.objectEnd();
  w.objectEnd();
  EXPECT_EQ(out, dumpJson(Json{{"pair", {{"findings", f}}}}, 2));
}

} // namespace
