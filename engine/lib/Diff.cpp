//===- Diff.cpp - Which ingredient moved ----------------------------------===//
#include "cachekey/Diff.h"

#include "cachekey/PyText.h"

#include <algorithm>
#include <map>

namespace cachekey {

namespace {
std::string entryLabel(int index) {
  return "entry " + std::to_string(index) + " (" + kEntryNames[index - 1] + ")";
}

std::string rangeText(const std::vector<int> &xs) {
  if (xs.empty())
    return "";
  bool contiguous = true;
  for (size_t i = 1; i < xs.size(); ++i)
    contiguous = contiguous && xs[i] == xs[i - 1] + 1;
  if (xs.size() == 1)
    return "entry " + std::to_string(xs[0]);
  if (contiguous)
    return "entries " + std::to_string(xs.front()) + "\u2013" +
           std::to_string(xs.back());
  std::string s = "entries ";
  for (size_t i = 0; i < xs.size(); ++i)
    s += (i ? ", " : "") + std::to_string(xs[i]);
  return s;
}

std::string quotedPy(const std::string &s) { return pyRepr(s); }

std::string capitalised(std::string s) {
  if (!s.empty() && s[0] >= 'a' && s[0] <= 'z')
    s[0] = static_cast<char>(s[0] - 'a' + 'A');
  return s;
}
} // namespace

void writeSentence(Comparison &c) {
  if (c.cause == 0) {
    c.sentence = "Nothing moved: every entry's own digest is the same, so the "
                 "hashes are equal.";
    return;
  }
  std::string s = "The cause is " + entryLabel(c.cause);
  if (!c.details.empty()) {
    s += ": ";
    for (size_t i = 0; i < c.details.size() && i < 4; ++i)
      s += (i ? "; " : "") + c.details[i];
    if (c.details.size() > 4)
      s += "; and " + std::to_string(c.details.size() - 4) + " more";
  }
  s += ".";
  if (!c.consequences.empty())
    s += " " + capitalised(rangeText(c.consequences)) +
         " differ only as a consequence: their own digests are unchanged, "
         "but the running digest carries the change.";
  if (!c.alsoChanged.empty())
    s += " Another ingredient moved too: " + rangeText(c.alsoChanged) +
         (c.alsoChanged.size() == 1 ? " has" : " have") +
         " a different own digest.";
  c.sentence = s;
}

std::vector<std::string> describeFlagChange(
    const std::vector<std::pair<bool, std::string>> &a,
    const std::vector<std::pair<bool, std::string>> &b) {
  // Multisets of kept flags; excluded flags never reach the hash.
  std::map<std::string, int> count;
  for (auto &f : a)
    if (f.first)
      count[f.second]--;
  for (auto &f : b)
    if (f.first)
      count[f.second]++;
  std::vector<std::string> removed, added;
  for (auto &kv : count) {
    for (int i = 0; i < -kv.second; ++i)
      removed.push_back(kv.first);
    for (int i = 0; i < kv.second; ++i)
      added.push_back(kv.first);
  }
  std::vector<std::string> out;
  std::vector<bool> usedRemoved(removed.size(), false);
  for (const auto &add : added) {
    bool paired = false;
    for (size_t i = 0; i < removed.size() && !paired; ++i) {
      if (!usedRemoved[i] && flagName(removed[i]) == flagName(add)) {
        usedRemoved[i] = paired = true;
        out.push_back("flag " + add + " replaced " + removed[i]);
      }
    }
    if (!paired)
      out.push_back("added flag " + add);
  }
  for (size_t i = 0; i < removed.size(); ++i)
    if (!usedRemoved[i])
      out.push_back("removed flag " + removed[i]);
  if (out.empty())
    out.push_back("the kept flags are the same but are fed in a different "
                  "grouping");
  return out;
}

std::vector<std::string> describeEntryChange(const KeyResult &a,
                                             const KeyResult &b, int index) {
  std::vector<std::string> out;
  const EntryResult &ea = a.entries[index - 1], &eb = b.entries[index - 1];
  switch (index) {
  case 1: {
    size_t n = std::min(ea.bytes.size(), eb.bytes.size()), k = 0;
    while (k < n && ea.bytes[k] == eb.bytes[k])
      ++k;
    out.push_back("the module bytecode differs (" +
                  std::to_string(ea.bytes.size()) + " → " +
                  std::to_string(eb.bytes.size()) +
                  " bytes, first difference at byte " + std::to_string(k) + ")");
    if (a.symName != b.symName)
      out.push_back("sym_name " + quotedPy(a.symName) + " → " +
                    quotedPy(b.symName));
    break;
  }
  case 2:
    out.push_back("jaxlib version " + quotedPy(ea.bytes) + " → " +
                  quotedPy(eb.bytes));
    break;
  case 3:
    if (ea.hashed != eb.hashed) {
      out.push_back(std::string("entry 3 is ") +
                    (ea.hashed ? "hashed on the first side only"
                               : "hashed on the second side only") +
                    " (jax 0.6.0 added it)");
      break;
    }
    for (size_t i = 0; i < std::min(ea.parts.size(), eb.parts.size()); ++i)
      if (ea.partBytes(i) != eb.partBytes(i))
        out.push_back(ea.parts[i].label + " " + quotedPy(ea.partBytes(i)) +
                      " → " + quotedPy(eb.partBytes(i)));
    if (out.empty())
      out.push_back("platform and platform_version feed the same bytes "
                    "joined differently");
    break;
  case 4: {
    std::vector<std::pair<bool, std::string>> fa, fb;
    for (auto &f : a.flags)
      fa.emplace_back(f.included, f.flag);
    for (auto &f : b.flags)
      fb.emplace_back(f.included, f.flag);
    out = describeFlagChange(fa, fb);
    break;
  }
  case 5:
    out = describeCompileOptionsDiff(a.compileOptions.output,
                                     b.compileOptions.output);
    break;
  case 6: {
    auto fp = [](const AcceleratorEntry &e) {
      char hex[17];
      std::snprintf(hex, sizeof hex, "%016llx",
                    static_cast<unsigned long long>(*e.fingerprint));
      return std::string(hex) + (e.standIn ? " (stand-in)" : "");
    };
    if (a.accelerator.fingerprint && b.accelerator.fingerprint)
      out.push_back("topology fingerprint " + fp(a.accelerator) + " → " +
                    fp(b.accelerator));
    else if (a.accelerator.fingerprint)
      out.push_back("topology fingerprint " + fp(a.accelerator) +
                    " → device_kind fallback");
    else if (b.accelerator.fingerprint)
      out.push_back("device_kind fallback → topology fingerprint " +
                    fp(b.accelerator));
    else
      out.push_back("device kinds changed (" +
                    std::to_string(ea.parts.size()) + " → " +
                    std::to_string(eb.parts.size()) + " devices)");
    break;
  }
  case 7:
    out.push_back("compression " + quotedPy(a.compression) + " → " +
                  quotedPy(b.compression));
    break;
  case 8:
    out.push_back("custom_hook " + quotedPy(ea.bytes) + " → " +
                  quotedPy(eb.bytes));
    break;
  }
  return out;
}

namespace {
/// Inputs that differ but feed identical bytes: hash-string has no
/// separator, so ["ab", "c"] and ["a", "bc"] collide.
void noteCollisions(const KeyResult &a, const KeyResult &b,
                    std::vector<std::string> &notes) {
  const EntryResult &pa = a.entries[2], &pb = b.entries[2];
  if (pa.parts.size() >= 2 && pb.parts.size() >= 2 && pa.bytes == pb.bytes &&
      (pa.partBytes(0) != pb.partBytes(0) || pa.partBytes(1) != pb.partBytes(1)))
    notes.push_back("platform " + pyRepr(pa.partBytes(0)) + " + " +
                    pyRepr(pa.partBytes(1)) + " and " +
                    pyRepr(pb.partBytes(0)) + " + " + pyRepr(pb.partBytes(1)) +
                    " differ but feed the same bytes: hash-string puts no "
                    "separator between strings");
  std::vector<std::string> fa, fb;
  for (const auto &f : a.flags)
    if (f.included)
      fa.push_back(f.flag);
  for (const auto &f : b.flags)
    if (f.included)
      fb.push_back(f.flag);
  if (a.entries[3].bytes == b.entries[3].bytes && fa != fb)
    notes.push_back("the kept flags differ but feed the same bytes: flags are "
                    "hashed one after another with no separator");
}
} // namespace

void classifyEntries(Comparison &c, const std::array<bool, kNumEntries> &own,
                     const std::array<bool, kNumEntries> &running) {
  for (int i = 1; i <= kNumEntries; ++i) {
    if (own[i - 1] && c.cause == 0)
      c.cause = i;
    else if (own[i - 1])
      c.alsoChanged.push_back(i);
    else if (running[i - 1] && c.cause != 0)
      c.consequences.push_back(i);
  }
}

Comparison compareResults(const KeyResult &a, const KeyResult &b) {
  Comparison c;
  std::array<bool, kNumEntries> own{}, running{};
  for (int i = 0; i < kNumEntries; ++i) {
    own[i] = a.entries[i].digest != b.entries[i].digest ||
             a.entries[i].hashed != b.entries[i].hashed;
    running[i] = a.entries[i].running != b.entries[i].running;
  }
  classifyEntries(c, own, running);
  if (c.cause != 0)
    c.details = describeEntryChange(a, b, c.cause);
  c.notes = a.notes;
  for (const auto &n : b.notes)
    if (std::find(c.notes.begin(), c.notes.end(), n) == c.notes.end())
      c.notes.push_back(n);
  std::vector<std::string> extra;
  if (a.profile != b.profile)
    extra.push_back(std::string("The profile changed (") +
                    profileName(a.profile) + " \u2192 " + profileName(b.profile) +
                    "): the two keys follow different versions of cache_key.py.");
  if (c.cause == 0) {
    noteCollisions(a, b, c.details);
    if (a.moduleOptions != b.moduleOptions && !a.computation.live &&
        !b.computation.live)
      c.details.push_back("the module options differ (" + a.moduleOptions +
                          " \u2192 " + b.moduleOptions +
                          ") but entry 1 holds bytes captured from jaxlib, "
                          "which options cannot change; capture the module "
                          "again with them, or give its text");
    if (a.symName != b.symName)
      c.details.push_back("only the module name differs (" + pyRepr(a.symName) +
                          " \u2192 " + pyRepr(b.symName) +
                          "): it is the key's readable prefix, not hashed");
  }
  writeSentence(c);
  if (c.cause == 0 && !c.details.empty()) {
    c.sentence += " But:";
    for (const auto &d : c.details)
      c.sentence += " " + d + ".";
  }
  for (const auto &e : extra)
    c.sentence = e + " " + c.sentence;
  return c;
}

Json comparisonToJson(const Comparison &c) {
  Json j;
  j["cause"] = c.cause;
  j["cause_name"] = c.cause ? kEntryNames[c.cause - 1] : "";
  j["also_changed"] = c.alsoChanged;
  j["consequences"] = c.consequences;
  j["details"] = c.details;
  j["sentence"] = c.sentence;
  j["notes"] = c.notes;
  return j;
}

} // namespace cachekey
