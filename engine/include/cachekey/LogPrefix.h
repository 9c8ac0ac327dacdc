//===- LogPrefix.h - What a log handler puts before JAX's message -*- C++ -*-===//
//
// JAX's messages reach a log through whatever handler the program set up:
// `logging.basicConfig` (`DEBUG:jax._src.cache_key:`), JAX's own handler
// (`DEBUG:2026-11-30 20:20:12,448:jax._src.cache_key:157: `), absl/glog
// (`I1130 20:20:12.452898 2930 cache_key.py:157] `), a custom `%(asctime)s -
// %(name)s - %(levelname)s - `, terminal colours, and, when several processes
// or hosts write one file, a launcher's tag (`[rank1]:`, `host-b | `,
// `[1,0]<stderr>:`, `0: `). The reader finds JAX's message by its own words;
// this file turns what comes before it into a *stream tag*: the prefix with
// the parts that change from line to line (level, timestamp, logger name,
// source line) removed, so that the lines of one process share a tag.
//
//===----------------------------------------------------------------------===//
#ifndef CACHEKEY_LOGPREFIX_H
#define CACHEKEY_LOGPREFIX_H

#include <string>
#include <string_view>

namespace cachekey {

/// Removes ANSI escape sequences (CSI `ESC [ … final` and two-character
/// `ESC x`) and a trailing carriage return from `line`, in place.
void stripTerminalCodes(std::string &line);

/// The stream tag of a line whose JAX message starts after `prefix`: the
/// prefix without log levels (DEBUG, INFO, …, glog's `I1130`), dates, times,
/// `jax…` logger names with their line number, `file.py:line` and the
/// punctuation around them. "" for the lines of a single process written by
/// any of the usual handlers; `[rank1]`, `host-b`, or absl's thread id when
/// a launcher or handler adds one. Never longer than 64 characters.
std::string streamTag(std::string_view prefix);
/// streamTag(prefix) written into `out` (cleared first): a reader that tags
/// many lines reuses one buffer instead of making a string for each.
void streamTag(std::string_view prefix, std::string &out);

} // namespace cachekey

#endif // CACHEKEY_LOGPREFIX_H
