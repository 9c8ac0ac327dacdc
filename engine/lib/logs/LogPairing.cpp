//===- LogPairing.cpp - Which program of one run is which of the other ----===//
//
// A program of the second run whose key the first run computed is that
// program, whatever its name or position (PairMatch::Key). The others are
// paired by module name (the key's readable prefix, from the hit/miss line),
// then by the argument shapes and types of pxla.py's "Compiling … with global
// shapes and types" line, then by order within a name; when both logs
// interleave the same processes (the streams of LogPrefix.h, each of which
// compiles the same programs: not a thread pool's threads), the process is
// part of the name; when the logs name no programs, in order. A program whose
// shapes differ from the candidate's beyond the element types is new.
//
//===----------------------------------------------------------------------===//
#include "LogFacts.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <map>
#include <string_view>
#include <unordered_map>
#include <utility>

namespace cachekey {

const char *pairedByName(PairedBy p) {
  switch (p) {
#define PAIRED_BY(Name, code, words) case PairedBy::Name: return words;
#include "cachekey/PairedBy.def"
  }
  return "order";
}

const char *pairedByCode(PairedBy p) {
  switch (p) {
#define PAIRED_BY(Name, code, words) case PairedBy::Name: return code;
#include "cachekey/PairedBy.def"
  }
  return "order";
}

namespace logs {

std::string shapeSkeleton(const std::string &shapes) {
  // "ShapedArray(float32[8,16])" → "ShapedArray([8,16])": the element type
  // is the identifier just before '['.
  std::string out;
  out.reserve(shapes.size());
  for (char c : shapes) {
    if (c == '[') {
      while (!out.empty() && (std::isalnum(static_cast<unsigned char>(out.back())) ||
                              out.back() == '_' || out.back() == '<' ||
                              out.back() == '>'))
        out.pop_back();
    }
    out.push_back(c);
  }
  return out;
}

std::vector<ProgramPair> pairPrograms(const LogSummary &la, const LogSummary &lb,
                                      PairedBy &pairedBy) {
  auto ia = la.comparable(), ib = lb.comparable();
  auto named = [](const LogSummary &l, const std::vector<int> &idx) {
    for (int i : idx)
      if (!l.programs[i].name.empty())
        return true;
    return false;
  };
  bool byName = named(la, ia) && named(lb, ib);
  auto tags = [](const LogSummary &l, const std::vector<int> &idx) {
    // The distinct tags, sorted: one look per stream, not a copy per program.
    std::vector<bool> used(l.streams.size(), false);
    for (int i : idx)
      used[l.programs[i].stream] = true;
    std::vector<std::string> t;
    for (size_t s = 0; s < used.size(); ++s)
      if (used[s])
        t.push_back(l.streams[s]);
    std::sort(t.begin(), t.end());
    t.erase(std::unique(t.begin(), t.end()), t.end());
    return t;
  };
  // Streams are processes when they compile the same programs (each
  // process of a multi-process run compiles each one). Threads of one
  // process (a thread name in the log format) compile a program once, on
  // whichever thread ran it, which may be another in the other run: their
  // programs pair by name alone.
  auto namesShared = [](const LogSummary &l, const std::vector<int> &idx) {
    std::unordered_map<std::string_view, int> streamOfName;
    for (int i : idx) {
      const LoggedProgram &p = l.programs[i];
      if (p.name.empty())
        continue;
      auto [it, fresh] = streamOfName.emplace(std::string_view(p.name), p.stream);
      if (!fresh && it->second != p.stream)
        return true;
    }
    return false;
  };
  auto tagsA = tags(la, ia);
  bool byStream = tagsA.size() > 1 && tagsA == tags(lb, ib) &&
                  (namesShared(la, ia) || namesShared(lb, ib));
  pairedBy = !byName    ? PairedBy::Order
             : byStream ? PairedBy::ProcessAndName
                        : PairedBy::Name;
  auto shapesOf = [](const LogSummary &l, const LoggedProgram &p) -> const std::string * {
    return p.shapes >= 0 ? &l.texts[p.shapes] : nullptr;
  };

  // 1. By key: a program of the second run whose key the first run
  // computed is that program, whatever its name or position.
  // A SHA-256 is uniformly distributed: its first 8 bytes are a hash.
  struct DigestHash {
    size_t operator()(const Digest &d) const {
      uint64_t h;
      std::memcpy(&h, d.data(), sizeof h);
      return static_cast<size_t>(h ^ (h >> 32));
    }
  };
  struct SameKey {
    std::vector<int> programs; // of the first run, in log order
    size_t next = 0;           // [0, next) are taken
  };
  std::unordered_map<Digest, SameKey, DigestHash> aByKey;
  aByKey.reserve(ia.size());
  for (int i : ia)
    if (auto d = la.programs[i].finalDigest())
      aByKey[*d].programs.push_back(i);
  std::vector<int> partnerOfB(lb.programs.size(), -1);
  std::vector<PairMatch> matchOfB(lb.programs.size(), PairMatch::None);
  std::vector<bool> usedA(la.programs.size(), false);
  for (int i : ib) {
    auto d = lb.programs[i].finalDigest();
    if (!d)
      continue;
    auto it = aByKey.find(*d);
    if (it == aByKey.end())
      continue;
    SameKey &same = it->second;
    if (same.next < same.programs.size()) {
      partnerOfB[i] = same.programs[same.next++];
      usedA[partnerOfB[i]] = true;
      matchOfB[i] = PairMatch::Key;
    }
  }
  decltype(aByKey)().swap(aByKey);

  // 2. The others: by name (and process), then by shapes, then in order;
  // a program whose shapes differ from every unpaired one's beyond their
  // element types is a new program.
  // Programs are grouped by (stream when pairing by process, name when
  // pairing by name); the keys are views of the programs' own strings.
  using GroupKey = std::pair<int, std::string_view>;
  struct GroupKeyHash {
    size_t operator()(const GroupKey &k) const {
      return std::hash<std::string_view>()(k.second) * 31 + static_cast<size_t>(k.first + 1);
    }
  };
  // Each group's unpaired programs of the first run lie in one slice of
  // `members` ([front, end): the candidates, in log order), so the groups
  // of 220,000 names need no allocation of their own. A group's key is that
  // of its first program (`first`: an index into the first run's programs,
  // or ~index into the second's), not a copy.
  struct Group {
    uint32_t front = 0, end = 0;
    int countA = 0, countB = 0;
    int first = 0;
    uint32_t hash = 0; // its key's GroupKeyHash, low bits: most probes end on it
  };
  // jax 0.4.30 names a module after its function as it is; later releases
  // strip trailing underscores from it (interpreters/mlir.py,
  // `sanitize_name(module_name).rstrip("_")`): jit___call__ became
  // jit___call, jit_step_ jit_step. Across releases, names pair without them.
  const bool stripUnderscores = releaseOf(la) != releaseOf(lb);
  auto groupName = [stripUnderscores](std::string_view n) {
    if (stripUnderscores)
      while (n.size() > 4 && n.back() == '_')
        n.remove_suffix(1);
    return n;
  };
  auto groupOf = [&](const LoggedProgram &p) {
    return GroupKey{byStream ? p.stream : -1,
                    byName ? groupName(std::string_view(p.name)) : std::string_view()};
  };
  // Streams are compared by tag: the same tag may have another index in
  // the other log.
  std::vector<int> streamOfB(lb.streams.size(), -1);
  if (byStream)
    for (size_t s = 0; s < lb.streams.size(); ++s)
      for (size_t t = 0; t < la.streams.size(); ++t)
        if (la.streams[t] == lb.streams[s]) {
          streamOfB[s] = static_cast<int>(t);
          break;
        }
  auto groupOfB = [&](const LoggedProgram &p) {
    GroupKey k = groupOf(p);
    if (byStream)
      k.first = streamOfB[p.stream] >= 0 ? streamOfB[p.stream] : -2 - p.stream;
    return k;
  };
  // Group ids by key: open addressing (linear probing) over a power-of-two
  // table of ids, at most half full: 4 or 8 bytes a group where a node-based
  // map takes about 56.
  std::vector<Group> groups;
  groups.reserve(ia.size() / 4 + 16);
  std::vector<int> slots;
  auto keyOfGroup = [&](const Group &g) {
    return g.first >= 0 ? groupOf(la.programs[g.first]) : groupOfB(lb.programs[~g.first]);
  };
  auto place = [&](int id, size_t hash) {
    size_t mask = slots.size() - 1;
    size_t at = hash & mask;
    while (slots[at] >= 0)
      at = (at + 1) & mask;
    slots[at] = id;
  };
  // Tables stay under 2^32 slots, so a key's slot is its stored hash's too.
  auto growSlots = [&](size_t size) {
    std::vector<int>(size, -1).swap(slots);
    for (size_t id = 0; id < groups.size(); ++id)
      place(static_cast<int>(id), groups[id].hash);
  };
  {
    size_t size = 16;
    while (size < 2 * ia.size())
      size *= 2;
    growSlots(size);
  }
  // The id of key `k` of program `first` (as Group::first), added if new.
  auto idOf = [&](const GroupKey &k, int first) {
    size_t hash = GroupKeyHash()(k), mask = slots.size() - 1;
    size_t at = hash & mask;
    const auto low = static_cast<uint32_t>(hash);
    // The stored hash first: a probe past another key reads no program.
    for (; slots[at] >= 0; at = (at + 1) & mask)
      if (groups[slots[at]].hash == low && keyOfGroup(groups[slots[at]]) == k)
        return slots[at];
    int id = static_cast<int>(groups.size());
    Group g;
    g.first = first;
    g.hash = low;
    groups.push_back(g);
    if (2 * groups.size() > slots.size())
      growSlots(2 * slots.size());
    else
      slots[at] = id;
    return id;
  };
  std::vector<int> ordinalA(la.programs.size(), 1), groupOfA(la.programs.size(), -1);
  for (int i : ia) {
    int g = idOf(groupOf(la.programs[i]), i);
    groupOfA[i] = g;
    ordinalA[i] = ++groups[g].countA;
    groups[g].end += !usedA[i]; // counted first, placed below
  }
  std::vector<int> members;
  {
    size_t at = 0;
    for (Group &g : groups) {
      size_t n = g.end;
      g.front = g.end = static_cast<uint32_t>(at);
      at += n;
    }
    members.resize(at);
    for (int i : ia)
      if (!usedA[i])
        members[groups[groupOfA[i]].end++] = i;
  }
  std::vector<int>().swap(groupOfA);
  // A pair's ordinal counts the programs of its group in the second run's
  // order (this loop's): taken here, so that the groups are gone before the
  // pairs are made.
  std::vector<int> ordinalB(lb.programs.size(), 0);
  for (int i : ib) {
    const LoggedProgram &p = lb.programs[i];
    int gid = idOf(groupOfB(p), ~i); // a group of the second run only is empty
    ordinalB[i] = ++groups[gid].countB;
    if (partnerOfB[i] >= 0)
      continue;
    Group &g = groups[gid];
    const std::string *sb = shapesOf(lb, p);
    size_t pick = g.end;
    PairMatch how = byName ? PairMatch::Name : PairMatch::Order;
    if (sb)
      for (size_t k = g.front; k < g.end && pick == g.end; ++k)
        if (const std::string *sa = shapesOf(la, la.programs[members[k]]);
            sa && *sa == *sb) {
          pick = k;
          how = PairMatch::Shapes;
        }
    if (pick == g.end && g.front < g.end) {
      const std::string *sa = shapesOf(la, la.programs[members[g.front]]);
      if (!sa || !sb || shapeSkeleton(*sa) == shapeSkeleton(*sb))
        pick = g.front;
    }
    if (pick == g.end)
      continue;
    partnerOfB[i] = members[pick];
    matchOfB[i] = how;
    usedA[members[pick]] = true;
    // The first candidate is taken by moving `front` (a name compiled
    // thousands of times stays linear); another one is removed from the
    // slice.
    if (pick == g.front) {
      ++g.front;
    } else {
      std::move(members.begin() + static_cast<std::ptrdiff_t>(pick) + 1,
                members.begin() + static_cast<std::ptrdiff_t>(g.end),
                members.begin() + static_cast<std::ptrdiff_t>(pick));
      --g.end;
    }
  }
  std::vector<int>().swap(members);
  std::vector<int>().swap(slots);
  std::vector<Group>().swap(groups);

  size_t onlyA = 0;
  for (int i : ia)
    onlyA += !usedA[i];
  std::vector<ProgramPair> pairs;
  pairs.reserve(ib.size() + onlyA); // exactly: pairs are most of the memory
  for (int i : ib) {
    ProgramPair pair;
    pair.ordinal = ordinalB[i];
    pair.b = i;
    pair.a = partnerOfB[i];
    pair.match = matchOfB[i];
    pairs.push_back(pair);
  }
  for (int i : ia)
    if (!usedA[i]) {
      ProgramPair pair;
      pair.a = i;
      pair.ordinal = ordinalA[i];
      pairs.push_back(pair);
    }
  return pairs;
}

} // namespace logs
} // namespace cachekey
