//===- LogPairing.cpp - Which program of one run is which of the other ----===//
//
// A program is named in a log by its module name (the key's readable
// prefix, from the hit/miss line). Programs are paired by that name, then by
// order within a name; when both logs interleave the same processes (the
// streams of LogPrefix.h), the process is part of the name; when the logs
// name no programs, in order.
//
//===----------------------------------------------------------------------===//
#include "LogFacts.h"

#include <algorithm>
#include <map>

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
  auto group = [&](const LogSummary &l, const LoggedProgram &p) {
    return (byStream ? l.streams[p.stream] + "\n" : std::string()) +
           (byName ? p.name : std::string());
  };
  std::map<std::pair<std::string, int>, int> inA;
  std::map<std::string, int> countA, countB;
  std::vector<int> ordinalA(la.programs.size(), 1);
  for (int i : ia) {
    std::string g = group(la, la.programs[i]);
    ordinalA[i] = ++countA[g];
    inA[{g, ordinalA[i]}] = i;
  }
  std::vector<ProgramPair> pairs;
  std::vector<bool> usedA(la.programs.size(), false);
  for (int i : ib) {
    const LoggedProgram &p = lb.programs[i];
    ProgramPair pair;
    pair.name = byName ? p.name : "";
    pair.ordinal = ++countB[group(lb, p)];
    pair.b = i;
    auto it = inA.find({group(lb, p), pair.ordinal});
    if (it != inA.end()) {
      pair.a = it->second;
      usedA[it->second] = true;
    }
    pair.label = pairLabel(pair, lb.streams[p.stream], byStream);
    pairs.push_back(pair);
  }
  for (int i : ia)
    if (!usedA[i]) {
      const LoggedProgram &p = la.programs[i];
      ProgramPair pair;
      pair.name = byName ? p.name : "";
      pair.a = i;
      pair.ordinal = ordinalA[i];
      pair.label = pairLabel(pair, la.streams[p.stream], byStream);
      pairs.push_back(pair);
    }
  return pairs;
}

} // namespace logs
} // namespace cachekey
