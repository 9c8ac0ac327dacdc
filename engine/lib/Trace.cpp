//===- Trace.cpp - JAX's DEBUG trace: writing and reading -----------------===//
#include "cachekey/Trace.h"

namespace cachekey {

namespace {
const char kFresh[] = "get_cache_key hash of serialized ";
const char kRunning[] = "get_cache_key hash after serializing ";
const char kIncluding[] = "Including XLA flag in cache key: ";
const char kNotIncluding[] = "Not including XLA flag in cache key: ";
const char kMiss[] = "PERSISTENT COMPILATION CACHE MISS for '";
const char kHit[] = "Persistent compilation cache hit for '";

bool isHex64(const std::string &s) {
  if (s.size() != 64)
    return false;
  for (char c : s)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')))
      return false;
  return true;
}

/// Parses "<entry name>: <hex>" after a digest prefix.
bool readDigest(const std::string &rest, int &index, std::string &hex,
                std::string &problem) {
  for (int i = 0; i < kNumEntries; ++i) {
    std::string name = std::string(kEntryNames[i]) + ": ";
    if (rest.compare(0, name.size(), name) == 0) {
      index = i;
      hex = rest.substr(name.size());
      while (!hex.empty() && (hex.back() == ' ' || hex.back() == '\t'))
        hex.pop_back();
      if (!isHex64(hex)) {
        problem = "the digest for " + std::string(kEntryNames[i]) +
                  " is not 64 lowercase hex digits (the line looks cut off "
                  "or altered)";
        return false;
      }
      return true;
    }
  }
  problem = "unknown entry name after the digest prefix";
  return false;
}
} // namespace

std::vector<std::string> traceLines(const KeyResult &r, const Scenario &s) {
  std::vector<std::string> lines;
  for (int i = 0; i < kNumEntries; ++i) {
    const EntryResult &e = r.entries[i];
    if (!e.hashed)
      continue;
    // The real pass, then the fresh pass: side effects (log lines) twice.
    for (int pass = 0; pass < 2; ++pass) {
      if (i == 3)
        for (const auto &f : r.flags)
          lines.push_back(flagLogLine(f));
      if (i == 5 && r.accelerator.fallback)
        lines.push_back(
            fallbackLogLine(std::get<DeviceKinds>(s.accelerator), r.profile));
    }
    lines.push_back(kFresh + e.name + ": " + toHex(e.digest));
    lines.push_back(kRunning + e.name + ": " + toHex(e.running));
  }
  return lines;
}

ParsedLog parseLog(const std::string &text) {
  ParsedLog log;
  ParsedKey *current = nullptr;
  size_t lineNo = 0, start = 0;
  while (start <= text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos)
      end = text.size();
    std::string line = text.substr(start, end - start);
    start = end + 1;
    ++lineNo;
    if (!line.empty() && line.back() == '\r')
      line.pop_back();
    std::string where = "line " + std::to_string(lineNo) + ": ";
    size_t pos;
    if ((pos = line.find(kFresh)) != std::string::npos ||
        (pos = line.find(kRunning)) != std::string::npos) {
      bool fresh = line.compare(pos, sizeof kFresh - 1, kFresh) == 0;
      std::string rest =
          line.substr(pos + (fresh ? sizeof kFresh : sizeof kRunning) - 1);
      int index = 0;
      std::string hex, problem;
      if (!readDigest(rest, index, hex, problem)) {
        log.problems.push_back(where + problem);
        continue;
      }
      if (index == 0 && fresh) {
        log.keys.emplace_back();
        current = &log.keys.back();
        current->firstLine = lineNo;
      }
      if (!current) {
        log.problems.push_back(where + "the log starts in the middle of a key "
                                       "(no \"computation\" line before it); "
                                       "lines before the first computation "
                                       "line are ignored");
        log.keys.emplace_back();
        current = &log.keys.back();
        current->firstLine = lineNo;
      }
      auto &slot = fresh ? current->digest[index] : current->running[index];
      slot = hex;
    } else if ((pos = line.find(kNotIncluding)) != std::string::npos) {
      if (current)
        current->flagLines.emplace_back(
            false, line.substr(pos + sizeof kNotIncluding - 1));
    } else if ((pos = line.find(kIncluding)) != std::string::npos) {
      if (current)
        current->flagLines.emplace_back(
            true, line.substr(pos + sizeof kIncluding - 1));
    } else if ((pos = line.find(kMiss)) != std::string::npos ||
               (pos = line.find(kHit)) != std::string::npos) {
      bool miss = line.compare(pos, sizeof kMiss - 1, kMiss) == 0;
      std::string rest =
          line.substr(pos + (miss ? sizeof kMiss : sizeof kHit) - 1);
      size_t q = rest.find("' with key '");
      if (q != std::string::npos && current) {
        current->moduleName = rest.substr(0, q);
        std::string key = rest.substr(q + 12);
        size_t qe = key.find('\'');
        current->key = key.substr(0, qe);
      }
    }
  }
  return log;
}

std::vector<std::pair<bool, std::string>> singlePassFlags(const ParsedKey &k) {
  size_t n = k.flagLines.size();
  if (n % 2 == 0) {
    bool doubled = true;
    for (size_t i = 0; i < n / 2 && doubled; ++i)
      doubled = k.flagLines[i] == k.flagLines[i + n / 2];
    if (doubled)
      return {k.flagLines.begin(), k.flagLines.begin() + n / 2};
  }
  return k.flagLines;
}

namespace {
/// An Error when `k` lacks any of its 16 digest lines.
std::optional<Error> checkComplete(const ParsedKey &k, const ParsedLog &log,
                                   const std::string &name) {
  std::vector<std::string> missing;
  for (int i = 0; i < kNumEntries; ++i) {
    if (!k.digest[i])
      missing.push_back(std::string("\"hash of serialized ") + kEntryNames[i] +
                        "\"");
    if (!k.running[i])
      missing.push_back(std::string("\"hash after serializing ") +
                        kEntryNames[i] + "\"");
  }
  if (missing.empty())
    return std::nullopt;
  std::string msg = "the key starting at line " + std::to_string(k.firstLine) +
                    " is incomplete; missing " +
                    std::to_string(missing.size()) + " of 16 digest lines: ";
  for (size_t i = 0; i < missing.size() && i < 4; ++i)
    msg += (i ? ", " : "") + missing[i];
  if (missing.size() > 4)
    msg += ", \u2026";
  if (!log.problems.empty())
    msg += ". Also: " + log.problems.front();
  return Error{name, msg};
}

Comparison compareKeys(const ParsedKey &a, const ParsedKey &b) {
  Comparison c;
  std::array<bool, kNumEntries> own{}, running{};
  for (int i = 0; i < kNumEntries; ++i) {
    own[i] = *a.digest[i] != *b.digest[i];
    running[i] = *a.running[i] != *b.running[i];
  }
  classifyEntries(c, own, running);
  if (c.cause == 4) {
    auto fa = singlePassFlags(a), fb = singlePassFlags(b);
    if (!fa.empty() || !fb.empty())
      c.details = describeFlagChange(fa, fb);
  } else if (c.cause != 0) {
    c.details.push_back(std::string("the ") + kEntryNames[c.cause - 1] +
                        " ingredient moved (a log holds digests, not the "
                        "bytes, so it cannot say more)");
  }
  writeSentence(c);
  return c;
}
} // namespace

Expected<Comparison> compareLogs(const std::string &logA,
                                 const std::string &logB,
                                 const std::string &nameA,
                                 const std::string &nameB) {
  ParsedLog logs[2] = {parseLog(logA), parseLog(logB)};
  const std::string names[2] = {nameA, nameB};
  for (int l = 0; l < 2; ++l) {
    if (logs[l].keys.empty()) {
      std::string msg = "no cache-key lines found. Enable them with "
                        "logging.getLogger(\"jax._src.cache_key\")"
                        ".setLevel(logging.DEBUG) and paste the lines that "
                        "contain \"get_cache_key hash\"";
      if (!logs[l].problems.empty())
        msg += " (" + logs[l].problems.front() + ")";
      return Error{names[l], msg};
    }
  }
  // A real run logs one key per compilation (JAX's own small programs
  // included). Keys are paired in order; the first pair that differs is
  // explained.
  size_t pairs = std::min(logs[0].keys.size(), logs[1].keys.size());
  Comparison result;
  size_t chosen = 0;
  for (size_t i = 0; i < pairs; ++i) {
    for (int l = 0; l < 2; ++l)
      if (auto e = checkComplete(logs[l].keys[i], logs[l], names[l]))
        return *e;
    Comparison c = compareKeys(logs[0].keys[i], logs[1].keys[i]);
    if (i == 0 || (result.cause == 0 && c.cause != 0)) {
      result = c;
      chosen = i;
    }
    if (result.cause != 0)
      break;
  }
  size_t na = logs[0].keys.size(), nb = logs[1].keys.size();
  if (na > 1 || nb > 1) {
    auto which = [&](int l) {
      const auto &k = logs[l].keys[chosen];
      return k.moduleName ? " (" + *k.moduleName + ")" : std::string();
    };
    std::string prefix = names[0] + " holds " + std::to_string(na) +
                         " key computations and " + names[1] + " " +
                         std::to_string(nb) + "; paired in order, ";
    prefix += result.cause != 0
                  ? "key " + std::to_string(chosen + 1) + which(0) +
                        " is the first pair that differs. "
                  : "all " + std::to_string(pairs) + " pairs are equal. ";
    if (na != nb)
      prefix += "The logs hold different numbers of keys, so the runs "
                "compiled different sets of programs. ";
    result.sentence = prefix + result.sentence;
  }
  return result;
}

} // namespace cachekey
