//===- LogPairing.cpp - Which program of one run is which of the other ----===//
//
// A program of the second run whose key the first run computed is that
// program, whatever its name or position (PairMatch::Key). The others are
// paired by module name (the key's readable prefix, from the hit/miss line),
// then by the argument shapes and types of pxla.py's "Compiling … with global
// shapes and types" line, then by order within a name; when both logs
// interleave the same processes (the streams of LogPrefix.h), the process is
// part of the name; when the logs name no programs, in order. A program whose
// shapes differ from the candidate's beyond the element types is new.
//
//===----------------------------------------------------------------------===//
#include "LogFacts.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <string_view>
#include <unordered_map>
#include <utility>

namespace cachekey {

const char *pairedByName(PairedBy p) {
  switch (p) {
  case PairedBy::Order:
    return "order";
  case PairedBy::Name:
    return "name";
  case PairedBy::ProcessAndName:
    return "process and name";
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
    std::vector<std::string> t;
    for (int i : idx)
      t.push_back(l.streams[l.programs[i].stream]);
    std::sort(t.begin(), t.end());
    t.erase(std::unique(t.begin(), t.end()), t.end());
    return t;
  };
  auto tagsA = tags(la, ia);
  bool byStream = tagsA.size() > 1 && tagsA == tags(lb, ib);
  pairedBy = !byName    ? PairedBy::Order
             : byStream ? PairedBy::ProcessAndName
                        : PairedBy::Name;
  auto shapesOf = [](const LogSummary &l, const LoggedProgram &p) -> const std::string * {
    return p.shapes >= 0 ? &l.texts[p.shapes] : nullptr;
  };

  // 1. By key: a program of the second run whose key the first run
  // computed is that program, whatever its name or position.
  std::map<Digest, std::vector<int>> aByKey; // unused, in log order
  for (int i : ia)
    if (auto d = la.programs[i].finalDigest())
      aByKey[*d].push_back(i);
  std::map<Digest, size_t> nextByKey;
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
    size_t &next = nextByKey[*d];
    if (next < it->second.size()) {
      partnerOfB[i] = it->second[next++];
      usedA[partnerOfB[i]] = true;
      matchOfB[i] = PairMatch::Key;
    }
  }
  aByKey.clear();

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
  struct Group {
    std::vector<int> unusedA; // in order; [0, front) are taken
    size_t front = 0;
    int countA = 0, countB = 0;
  };
  auto groupOf = [&](const LoggedProgram &p) {
    return GroupKey{byStream ? p.stream : -1,
                    byName ? std::string_view(p.name) : std::string_view()};
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
  std::unordered_map<GroupKey, Group, GroupKeyHash> groups;
  std::vector<int> ordinalA(la.programs.size(), 1);
  for (int i : ia) {
    Group &g = groups[groupOf(la.programs[i])];
    ordinalA[i] = ++g.countA;
    if (!usedA[i])
      g.unusedA.push_back(i);
  }
  for (int i : ib) {
    if (partnerOfB[i] >= 0)
      continue;
    const LoggedProgram &p = lb.programs[i];
    auto it = groups.find(groupOfB(p));
    if (it == groups.end())
      continue;
    Group &g = it->second;
    const std::string *sb = shapesOf(lb, p);
    size_t pick = g.unusedA.size();
    PairMatch how = byName ? PairMatch::Name : PairMatch::Order;
    if (sb)
      for (size_t k = g.front; k < g.unusedA.size() && pick == g.unusedA.size(); ++k)
        if (const std::string *sa = shapesOf(la, la.programs[g.unusedA[k]]);
            sa && *sa == *sb) {
          pick = k;
          how = PairMatch::Shapes;
        }
    if (pick == g.unusedA.size() && g.front < g.unusedA.size()) {
      const std::string *sa = shapesOf(la, la.programs[g.unusedA[g.front]]);
      if (!sa || !sb || shapeSkeleton(*sa) == shapeSkeleton(*sb))
        pick = g.front;
    }
    if (pick == g.unusedA.size())
      continue;
    partnerOfB[i] = g.unusedA[pick];
    matchOfB[i] = how;
    usedA[g.unusedA[pick]] = true;
    // The first candidate is taken by moving `front` (a name compiled
    // thousands of times stays linear); another one is erased.
    if (pick == g.front)
      ++g.front;
    else
      g.unusedA.erase(g.unusedA.begin() + static_cast<std::ptrdiff_t>(pick));
  }

  std::vector<ProgramPair> pairs;
  pairs.reserve(ib.size() + ia.size()); // no doubling: pairs are most of the memory
  for (int i : ib) {
    const LoggedProgram &p = lb.programs[i];
    ProgramPair pair;
    pair.name = byName ? p.name : "";
    pair.ordinal = ++groups[groupOfB(p)].countB;
    pair.b = i;
    pair.a = partnerOfB[i];
    pair.match = matchOfB[i];
    pair.label = pairLabel(pair, lb.streams[p.stream], byStream);
    pairs.push_back(std::move(pair));
  }
  for (int i : ia)
    if (!usedA[i]) {
      const LoggedProgram &p = la.programs[i];
      ProgramPair pair;
      pair.name = byName ? p.name : "";
      pair.a = i;
      pair.ordinal = ordinalA[i];
      pair.label = pairLabel(pair, la.streams[p.stream], byStream);
      pairs.push_back(std::move(pair));
    }
  return pairs;
}

} // namespace logs
} // namespace cachekey
