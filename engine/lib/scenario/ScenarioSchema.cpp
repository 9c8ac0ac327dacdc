//===- ScenarioSchema.cpp - Typed members with JSON paths -----------------===//
#include "ScenarioSchema.h"

namespace cachekey::schema {

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
  return Error{path, std::string("expected ") + want + ", got " + typeName(got),
               ErrorCode::Type};
}

std::string keyPath(const std::string &path, const std::string &key) {
  return path + "." + key;
}

std::string indexPath(const std::string &path, size_t i) {
  return path + "[" + std::to_string(i) + "]";
}

const Json *member(const Json &obj, const char *key) {
  auto it = obj.find(key);
  return it == obj.end() ? nullptr : &*it;
}

Status checkKeys(const Json &obj, const std::string &path,
                               const std::vector<const char *> &allowed) {
  for (auto it = obj.begin(); it != obj.end(); ++it) {
    bool ok = false;
    for (const char *a : allowed)
      ok = ok || it.key() == a;
    if (!ok) {
      std::string list;
      for (const char *a : allowed)
        list += std::string(list.empty() ? "" : ", ") + a;
      return Error{keyPath(path, it.key()),
                   "unknown key (expected one of: " + list + ")",
                   ErrorCode::UnknownKey};
    }
  }
  return {};
}

Status checkSchemaVersion(const Json &document) {
  const Json *schema = member(document, "schema");
  if (!schema)
    return Error{"$.schema", "missing (this engine reads schema 1)",
                 ErrorCode::Missing};
  if (!schema->is_number_integer() || schema->get<int64_t>() != kScenarioSchema)
    return Error{"$.schema",
                 "unsupported scenario schema " +
                     dumpJson(*schema) +
                     " (this engine reads schema 1)",
                 ErrorCode::Unsupported};
  return {};
}

Status readString(const Json &obj, const char *key,
                                const std::string &path, std::string &out,
                                bool required) {
  const Json *v = member(obj, key);
  if (!v) {
    if (required)
      return Error{keyPath(path, key), "missing (a string is required)",
                   ErrorCode::Missing};
    return {};
  }
  if (!v->is_string())
    return typeError(keyPath(path, key), "a string", *v);
  out = v->get_ref<const std::string &>();
  return {};
}

Status readOptString(const Json &obj, const char *key,
                                   const std::string &path,
                                   std::optional<std::string> &out) {
  const Json *v = member(obj, key);
  if (!v || v->is_null())
    return {};
  if (!v->is_string())
    return typeError(keyPath(path, key), "a string or null", *v);
  out = v->get_ref<const std::string &>();
  return {};
}

Status readBool(const Json &obj, const char *key,
                              const std::string &path, bool &out) {
  const Json *v = member(obj, key);
  if (!v)
    return {};
  if (!v->is_boolean())
    return typeError(keyPath(path, key), "a boolean", *v);
  out = v->get<bool>();
  return {};
}

Status readStringArray(const Json &obj, const char *key,
                                     const std::string &path,
                                     std::vector<std::string> &out) {
  const Json *v = member(obj, key);
  if (!v || v->is_null())
    return {};
  std::string p = keyPath(path, key);
  if (!v->is_array())
    return typeError(p, "an array of strings", *v);
  for (size_t i = 0; i < v->size(); ++i) {
    if (!(*v)[i].is_string())
      return typeError(indexPath(p, i), "a string", (*v)[i]);
    out.push_back((*v)[i].get<std::string>());
  }
  return {};
}

Status readBase64(const Json &obj, const char *key,
                                const std::string &path, Bytes &out) {
  std::string text;
  CACHEKEY_TRY(readString(obj, key, path, text, true));
  auto bytes = base64Decode(text);
  if (!bytes)
    return bytes.takeError(keyPath(path, key));
  out = std::move(*bytes);
  return {};
}

} // namespace cachekey::schema
