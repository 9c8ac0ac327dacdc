//===- English.h - The grammar every wording module uses --------*- C++ -*-===//
//
// Number agreement, lists of names, capitals and shortened values, written
// once. The wording modules of each family (explain/Wording.cpp, the logs',
// capture's and cachedir's *Wording.cpp files) build their sentences with
// these, and no sentence spells out `n == 1 ? … : …` itself. Nothing here
// knows about JAX.
//
//===----------------------------------------------------------------------===//
#ifndef CACHEKEY_ENGLISH_H
#define CACHEKEY_ENGLISH_H

#include <cstddef>
#include <string>
#include <vector>

namespace cachekey {

/// The form of a word that agrees with a count: `one` when `n` is 1, else
/// `many` (e.g. agree(n, " is", " are"), agree(n, "y", "ies")). The strings
/// are returned as given, so spaces and suffixes are the caller's.
inline const char *agree(size_t n, const char *one, const char *many) {
  return n == 1 ? one : many;
}

/// "once", "twice", "3 times": how many times something was given.
std::string timesText(size_t n);

/// "1 program" / "2 programs": `n` in decimal, a space and agree(n, one, many).
std::string plural(size_t n, const char *one, const char *many);

/// "its paired program has" / "all 3 paired programs have": `one` when `n`
/// is 1, else "all N " and `many`.
std::string everyOf(size_t n, const char *one, const char *many);

/// "a, b and c": at most `max` names, then " and N more".
std::string nameList(const std::vector<std::string> &names, size_t max = 5);

/// Names to be listed with nameList when there may be hundreds of
/// thousands (the programs of a large log): the first kKept and how many.
struct NameSample {
  static constexpr size_t kKept = 8;
  std::vector<std::string> first;
  size_t count = 0;
  void push_back(const std::string &name) {
    if (first.size() < kKept)
      first.push_back(name);
    ++count;
  }
  /// As push_back, calling `make` for the name only when it is kept: a
  /// large log's labels are counted, not made.
  template <class MakeName> void add(const MakeName &make) {
    if (first.size() < kKept)
      first.push_back(make());
    ++count;
  }
  size_t size() const { return count; }
  bool empty() const { return count == 0; }
};

/// nameList of all the sampled names (`max` at most NameSample::kKept).
std::string nameList(const NameSample &names, size_t max = 5);

/// `part` of `whole` (whole > 0) as a percentage, "37%": whole percents
/// from 1% to 99%; a share that is not all or nothing never reads as 100%
/// or 0%: one decimal outside that range ("99.7%", "0.3%"), and ">99.9%" /
/// "<0.1%" beyond it (299 hits of 300 programs is "99.7%", not "100%").
std::string percentText(size_t part, size_t whole);

/// `text` with its first character upper-cased when it is an ASCII letter
/// a–z, to start a sentence with a phrase written to follow other words.
std::string capitalised(std::string text);

/// `text` cut to about `max` characters (bytes, at a UTF-8 character
/// boundary) for a sentence: the start, "…" and the full length, e.g.
/// "xxxx… (12000 chars)"; whole when it is at most `max`.
std::string shortened(const std::string &text, size_t max = 80);

/// The first 16 characters of a digest's hex and "…", as sentences show it.
std::string shortDigest(const std::string &hex);

} // namespace cachekey

#endif // CACHEKEY_ENGLISH_H
