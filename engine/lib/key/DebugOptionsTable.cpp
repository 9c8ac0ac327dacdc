//===- DebugOptionsTable.cpp - XLA's DebugOptions fields, by name ---------===//
//
// Loads the table compiled in from fixtures/debug_options_fields.json once,
// on first use. The JSON is the project's own and parsed without exceptions;
// entries without an integer "number" are skipped.
//
//===----------------------------------------------------------------------===//
#include "cachekey/DebugOptions.h"

#include "cachekey/Json.h"

#include <algorithm>
#include <map>

namespace cachekey {

extern const char kDebugOptionsFieldsJson[]; // generated from fixtures/

namespace {

struct Table {
  std::vector<DebugOptionField> byNumber;
  std::map<std::string, size_t> nameIndex;
  std::map<uint32_t, size_t> numberIndex;
};

const Table &table() {
  static const Table t = [] {
    Table t;
    Json j = Json::parse(kDebugOptionsFieldsJson, nullptr, false);
    const Json *fields = nullptr;
    if (j.is_object() && j.contains("fields"))
      fields = &j["fields"];
    if (fields && fields->is_object()) {
      for (auto it = fields->begin(); it != fields->end(); ++it) {
        const Json &v = *it;
        if (!v.is_object() || !v.contains("number") ||
            !v["number"].is_number_integer())
          continue;
        DebugOptionField f;
        f.name = it.key();
        f.number = v["number"].get<uint32_t>();
        f.kind = v.contains("kind") && v["kind"].is_string()
                     ? parseFieldKind(v["kind"].get<std::string>())
                     : FieldKind::Int;
        t.byNumber.push_back(f);
      }
    }
    std::sort(t.byNumber.begin(), t.byNumber.end(),
              [](const auto &a, const auto &b) { return a.number < b.number; });
    for (size_t i = 0; i < t.byNumber.size(); ++i) {
      t.nameIndex[t.byNumber[i].name] = i;
      t.numberIndex[t.byNumber[i].number] = i;
    }
    return t;
  }();
  return t;
}

} // namespace

const char *fieldKindName(FieldKind kind) {
  switch (kind) {
  case FieldKind::Bool: return "bool";
  case FieldKind::Int32: return "int32";
  case FieldKind::Int64: return "int64";
  case FieldKind::Int: return "int";
  case FieldKind::Enum: return "enum";
  case FieldKind::String: return "string";
  case FieldKind::Float: return "float";
  case FieldKind::Double: return "double";
  case FieldKind::Bytes: return "bytes";
  case FieldKind::Unknown: return "";
  }
  return "";
}

FieldKind parseFieldKind(const std::string &name) {
  for (FieldKind k : {FieldKind::Bool, FieldKind::Int32, FieldKind::Int64,
                      FieldKind::Enum, FieldKind::String, FieldKind::Float,
                      FieldKind::Double, FieldKind::Bytes})
    if (name == fieldKindName(k))
      return k;
  return FieldKind::Int;
}

const std::vector<DebugOptionField> &knownDebugOptions() {
  return table().byNumber;
}

const DebugOptionField *findDebugOption(const std::string &name) {
  auto it = table().nameIndex.find(name);
  return it == table().nameIndex.end() ? nullptr : &table().byNumber[it->second];
}

const DebugOptionField *findDebugOption(uint32_t number) {
  auto it = table().numberIndex.find(number);
  return it == table().numberIndex.end() ? nullptr
                                         : &table().byNumber[it->second];
}

} // namespace cachekey
