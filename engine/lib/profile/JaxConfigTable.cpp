//===- JaxConfigTable.cpp - Which JAX options move which entries ----------===//
//
// Reads the measured tables of fixtures/jax_config/ (compiled in; read once,
// on first use) and answers which options move exactly a given set of
// entries. The JSON is parsed without exceptions; every problem is an
// Error naming the JSON path.
//
//===----------------------------------------------------------------------===//
#include "cachekey/JaxConfigTable.h"

#include "cachekey/Json.h"

#include <algorithm>

namespace cachekey {

extern const char kJaxConfigTable_0_6_2[];    // fixtures/jax_config/0.6.2.json
extern const char kJaxConfigTable_0_10_2[];   // fixtures/jax_config/0.10.2.json
extern const char kJaxConfigTable_0_12_0_1[]; // fixtures/jax_config/0.12.0.1.json

const char *probeKindCode(ProbeKind kind) {
  switch (kind) {
#define PROBE_KIND(Name, code)                                                 \
  case ProbeKind::Name:                                                        \
    return code;
#include "cachekey/ProbeKinds.def"
  }
  return "";
}

std::optional<ProbeKind> probeKindFromCode(const std::string &code) {
#define PROBE_KIND(Name, c)                                                    \
  if (code == c)                                                               \
    return ProbeKind::Name;
#include "cachekey/ProbeKinds.def"
  return std::nullopt;
}

const std::vector<ProbeKind> &allProbeKinds() {
  static const std::vector<ProbeKind> all = {
#define PROBE_KIND(Name, code) ProbeKind::Name,
#include "cachekey/ProbeKinds.def"
  };
  return all;
}

EntrySet JaxOption::moves() const {
  EntrySet out;
  for (const auto &p : programs)
    out.insert(p.second.moved.begin(), p.second.moved.end());
  return out;
}

namespace {

/// JSON path of member `key` of the object at `path` (names of JAX options
/// and kinds are identifiers, so the dotted form is unambiguous).
std::string member(const std::string &path, const std::string &key) {
  return path + "." + key;
}

std::string element(const std::string &path, size_t i) {
  return path + "[" + std::to_string(i) + "]";
}

const char *typeName(const Json &j) { return j.type_name(); }

Error typeError(const std::string &path, const char *want, const Json &got) {
  return Error(path, std::string("expected ") + want + ", found " + typeName(got),
               ErrorCode::Type);
}

/// Object member `key` of `obj` (at `path`) as a string; Missing when
/// absent and `required`, Type when not a string.
Expected<std::string> stringAt(const Json &obj, const std::string &path,
                               const std::string &key, bool required) {
  auto it = obj.find(key);
  if (it == obj.end() || (!required && it->is_null())) {
    if (required)
      return Error(member(path, key), "required member is missing", ErrorCode::Missing);
    return std::string();
  }
  if (!it->is_string())
    return typeError(member(path, key), "a string", *it);
  return it->get<std::string>();
}

Expected<const Json *> objectAt(const Json &obj, const std::string &path,
                                const std::string &key, bool required) {
  auto it = obj.find(key);
  if (it == obj.end()) {
    if (required)
      return Error(member(path, key), "required member is missing", ErrorCode::Missing);
    return static_cast<const Json *>(nullptr);
  }
  if (!it->is_object())
    return typeError(member(path, key), "an object", *it);
  return &*it;
}

/// A list of 1-based entry numbers at `path`, each within 1..count.
Expected<EntrySet> entriesAt(const Json &list, const std::string &path, size_t count) {
  if (!list.is_array())
    return typeError(path, "an array of entry numbers", list);
  EntrySet out;
  for (size_t i = 0; i < list.size(); ++i) {
    const Json &n = list[i];
    if (!n.is_number_integer())
      return typeError(element(path, i), "an entry number", n);
    int64_t v = n.get<int64_t>();
    if (v < 1 || v > static_cast<int64_t>(count))
      return Error(element(path, i),
                   "entry " + std::to_string(v) + " is outside 1.." + std::to_string(count) +
                       " (this table's entries)",
                   ErrorCode::Invalid);
    out.insert(static_cast<int>(v));
  }
  return out;
}

Expected<ProbeKind> kindAt(const std::string &code, const std::string &path) {
  auto k = probeKindFromCode(code);
  if (!k)
    return Error(path, "unknown program kind \"" + code + "\"", ErrorCode::Invalid, "", code);
  return *k;
}

Expected<ProbeEffect> readEffect(const Json &j, const std::string &path, size_t count) {
  if (!j.is_object())
    return typeError(path, "an object", j);
  ProbeEffect e;
  auto outcome = stringAt(j, path, "outcome", true);
  if (!outcome)
    return outcome.takeError();
  if (*outcome == "key")
    e.outcome = ProbeEffect::Outcome::Key;
  else if (*outcome == "no_key")
    e.outcome = ProbeEffect::Outcome::NoKey;
  else if (*outcome == "error")
    e.outcome = ProbeEffect::Outcome::Error;
  else if (*outcome == "entries_differ")
    e.outcome = ProbeEffect::Outcome::EntriesDiffer;
  else if (*outcome == "other_program")
    e.outcome = ProbeEffect::Outcome::OtherProgram;
  else
    return Error(member(path, "outcome"), "unknown outcome \"" + *outcome + "\"",
                 ErrorCode::Invalid, "", *outcome);
  auto error = stringAt(j, path, "error", false);
  if (!error)
    return error.takeError();
  e.error = *error;
  if (e.outcome == ProbeEffect::Outcome::OtherProgram) {
    auto m = j.find("modules");
    if (m == j.end())
      return Error(member(path, "modules"), "required member is missing", ErrorCode::Missing);
    if (!m->is_array())
      return typeError(member(path, "modules"), "an array of module names", *m);
    for (size_t i = 0; i < m->size(); ++i) {
      if (!(*m)[i].is_string())
        return typeError(element(member(path, "modules"), i), "a module name", (*m)[i]);
      e.modules.push_back((*m)[i].get<std::string>());
    }
  }
  if (e.outcome != ProbeEffect::Outcome::Key)
    return e;
  auto moved = j.find("moved");
  if (moved == j.end())
    return Error(member(path, "moved"), "required member is missing", ErrorCode::Missing);
  auto set = entriesAt(*moved, member(path, "moved"), count);
  if (!set)
    return set.takeError();
  e.moved = std::move(*set);
  auto km = j.find("key_moved");
  if (km != j.end()) {
    if (!km->is_boolean())
      return typeError(member(path, "key_moved"), "a boolean", *km);
    e.keyMoved = km->get<bool>();
  }
  auto after = objectAt(j, path, "after", false);
  if (!after)
    return after.takeError();
  if (*after)
    for (auto it = (*after)->begin(); it != (*after)->end(); ++it) {
      std::string p = member(member(path, "after"), it.key());
      int n = 0;
      for (char c : it.key())
        n = (c >= '0' && c <= '9' && n < 1000) ? n * 10 + (c - '0') : -1;
      if (it.key().empty() || n < 1 || e.moved.count(n) == 0)
        return Error(p, "\"" + it.key() + "\" is not an entry this program moved",
                     ErrorCode::Invalid);
      if (!it->is_string())
        return typeError(p, "a digest string", *it);
      e.after[n] = it->get<std::string>();
    }
  return e;
}

Expected<JaxOption> readOption(const std::string &name, const Json &j,
                               const std::string &path, size_t count) {
  if (!j.is_object())
    return typeError(path, "an object", j);
  JaxOption o;
  o.name = name;
  for (auto [key, field] : {std::pair<const char *, std::string *>{"holder", &o.holder},
                            {"type", &o.type}}) {
    auto s = stringAt(j, path, key, true);
    if (!s)
      return s.takeError();
    *field = *s;
  }
  auto status = stringAt(j, path, "status", true);
  if (!status)
    return status.takeError();
  if (*status == "measured")
    o.status = JaxOption::Status::Measured;
  else if (*status == "skipped")
    o.status = JaxOption::Status::Skipped;
  else if (*status == "failed")
    o.status = JaxOption::Status::Failed;
  else
    return Error(member(path, "status"), "unknown status \"" + *status + "\"",
                 ErrorCode::Invalid, "", *status);
  auto reason = stringAt(j, path, "reason", o.status != JaxOption::Status::Measured);
  if (!reason)
    return reason.takeError();
  o.reason = *reason;
  if (j.contains("default"))
    o.defaultJson = dumpJson(j["default"]);
  if (j.contains("value"))
    o.valueJson = dumpJson(j["value"]);
  if (j.contains("allowed")) {
    const Json &a = j["allowed"];
    if (!a.is_array())
      return typeError(member(path, "allowed"), "an array", a);
    for (size_t i = 0; i < a.size(); ++i) {
      if (!a[i].is_string())
        return typeError(element(member(path, "allowed"), i), "a string", a[i]);
      o.allowed.push_back(a[i].get<std::string>());
    }
  }
  if (o.status != JaxOption::Status::Measured)
    return o;
  auto programs = objectAt(j, path, "programs", true);
  if (!programs)
    return programs.takeError();
  std::string ppath = member(path, "programs");
  for (auto it = (*programs)->begin(); it != (*programs)->end(); ++it) {
    auto kind = kindAt(it.key(), member(ppath, it.key()));
    if (!kind)
      return kind.takeError();
    auto effect = readEffect(*it, member(ppath, it.key()), count);
    if (!effect)
      return effect.takeError();
    o.programs[*kind] = std::move(*effect);
  }
  return o;
}

} // namespace

Expected<JaxConfigTable> readJaxConfigTable(const std::string &text) {
  auto parsed = parseJsonText(text, "JAX settings table");
  if (!parsed)
    return parsed.takeError();
  const Json &j = *parsed;
  if (!j.is_object())
    return typeError("$", "an object", j);
  JaxConfigTable t;
  auto jax = stringAt(j, "$", "jax", true);
  if (!jax)
    return jax.takeError();
  t.jax = *jax;
  auto prov = objectAt(j, "$", "provenance", true);
  if (!prov)
    return prov.takeError();
  for (auto [key, field] : {std::pair<const char *, std::string *>{"jaxlib", &t.jaxlib},
                            {"python", &t.python},
                            {"date", &t.date},
                            {"command", &t.command}}) {
    auto s = stringAt(**prov, "$.provenance", key, true);
    if (!s)
      return s.takeError();
    *field = *s;
  }
  auto entries = j.find("entries");
  if (entries == j.end())
    return Error("$.entries", "required member is missing", ErrorCode::Missing);
  if (!entries->is_array() || entries->empty())
    return typeError("$.entries", "a non-empty array of entry names", *entries);
  for (size_t i = 0; i < entries->size(); ++i) {
    if (!(*entries)[i].is_string())
      return typeError(element("$.entries", i), "an entry name", (*entries)[i]);
    t.entries.push_back((*entries)[i].get<std::string>());
  }
  const size_t count = t.entries.size();
  auto programs = objectAt(j, "$", "programs", true);
  if (!programs)
    return programs.takeError();
  for (auto it = (*programs)->begin(); it != (*programs)->end(); ++it) {
    std::string p = member("$.programs", it.key());
    auto kind = kindAt(it.key(), p);
    if (!kind)
      return kind.takeError();
    if (!it->is_object())
      return typeError(p, "an object", *it);
    ProbeBaseline b;
    auto d = stringAt(*it, p, "description", true);
    if (!d)
      return d.takeError();
    b.description = *d;
    auto key = stringAt(*it, p, "key", false);
    if (!key)
      return key.takeError();
    b.key = *key;
    auto digests = it->find("digests");
    if (digests == it->end())
      return Error(member(p, "digests"), "required member is missing", ErrorCode::Missing);
    if (!digests->is_array() || digests->size() != count)
      return Error(member(p, "digests"),
                   "expected an array of " + std::to_string(count) + " digests (one per entry)",
                   ErrorCode::Type);
    for (size_t i = 0; i < count; ++i) {
      if (!(*digests)[i].is_string())
        return typeError(element(member(p, "digests"), i), "a digest string", (*digests)[i]);
      b.digests.push_back((*digests)[i].get<std::string>());
    }
    t.programs[*kind] = std::move(b);
  }
  auto unstable = objectAt(j, "$", "unstable", false);
  if (!unstable)
    return unstable.takeError();
  if (*unstable)
    for (auto it = (*unstable)->begin(); it != (*unstable)->end(); ++it) {
      std::string p = member("$.unstable", it.key());
      auto kind = kindAt(it.key(), p);
      if (!kind)
        return kind.takeError();
      auto set = entriesAt(*it, p, count);
      if (!set)
        return set.takeError();
      t.unstable[*kind] = std::move(*set);
    }
  auto options = objectAt(j, "$", "options", true);
  if (!options)
    return options.takeError();
  for (auto it = (*options)->begin(); it != (*options)->end(); ++it) {
    auto o = readOption(it.key(), *it, member("$.options", it.key()), count);
    if (!o)
      return o.takeError();
    t.options[it.key()] = std::move(*o);
  }
  return t;
}

namespace {

const std::vector<JaxConfigTable> &tables() {
  // Compiled-in tables are checked by the tests; one that does not read is
  // left out rather than aborting (the wasm build has no exceptions).
  static const std::vector<JaxConfigTable> all = [] {
    std::vector<JaxConfigTable> out;
    // 0.4.30's table (seven entries: no backend version) is not compiled
    // in: its entry numbers are not the eight the logs are read by.
    for (const char *text : {kJaxConfigTable_0_6_2, kJaxConfigTable_0_10_2,
                             kJaxConfigTable_0_12_0_1}) {
      auto t = readJaxConfigTable(text);
      if (t)
        out.push_back(std::move(*t));
    }
    return out;
  }();
  return all;
}

} // namespace

const JaxConfigTable *jaxConfigTable(const std::string &jaxVersion) {
  for (const auto &t : tables())
    if (t.jax == jaxVersion)
      return &t;
  return nullptr;
}

std::vector<std::string> jaxConfigTableVersions() {
  std::vector<std::string> v;
  for (const auto &t : tables())
    v.push_back(t.jax);
  return v;
}

std::vector<const JaxOption *>
settingsMovingExactly(const JaxConfigTable &table,
                      const std::map<ProbeKind, EntrySet> &moves) {
  std::vector<const JaxOption *> out;
  if (moves.empty())
    return out;
  for (const auto &[name, option] : table.options) {
    if (option.status != JaxOption::Status::Measured)
      continue;
    bool all = true;
    for (const auto &[kind, entries] : moves) {
      auto p = option.programs.find(kind);
      if (p == option.programs.end() || p->second.outcome != ProbeEffect::Outcome::Key ||
          p->second.moved != entries) {
        all = false;
        break;
      }
    }
    if (all)
      out.push_back(&option);
  }
  return out;
}

std::vector<const JaxOption *>
settingsMovingExactly(const JaxConfigTable &table, const EntrySet &entries,
                      const std::vector<ProbeKind> &kinds) {
  std::map<ProbeKind, EntrySet> moves;
  for (ProbeKind k : kinds)
    moves[k] = entries;
  return settingsMovingExactly(table, moves);
}

} // namespace cachekey
