//===- ShownText.h - Text output a terminal cannot act on -------*- C++ -*-===//
//
// The CLI's text reports carry names and paths read from the user's files
// (a log's program names, a cache directory's file names). A byte there that
// a terminal acts on (a carriage return, an escape sequence) or that is not
// UTF-8 would reach the terminal raw; the JSON output escapes control bytes
// and replaces bytes that are not UTF-8 (nlohmann's error_handler_t::replace),
// and the text output now shows both, at the one place it is written.
//
//===----------------------------------------------------------------------===//
#ifndef CACHEKEY_TOOLS_SHOWNTEXT_H
#define CACHEKEY_TOOLS_SHOWNTEXT_H

#include <ostream>
#include <streambuf>
#include <string>

namespace cachekey::cli {

/// A stream buffer that passes text on to `next`, byte for byte, except:
/// a control byte other than line feed and tab (0x00-0x1f, 0x7f) becomes
/// `\r` for a carriage return and `\xNN` (two lowercase hex digits)
/// otherwise, and each byte that does not belong to a well-formed UTF-8
/// sequence (RFC 3629: no overlong forms, no surrogates, nothing past
/// U+10FFFF) becomes `\xNN`. A sequence split between two writes is held
/// until the next write, or until sync() or destruction, which show it as
/// `\xNN` bytes if nothing completes it. Text that is printable ASCII or
/// UTF-8 (every report the engine words) passes unchanged.
class ShownTextBuf : public std::streambuf {
public:
  explicit ShownTextBuf(std::streambuf *next) : next(next) {}
  ~ShownTextBuf() override { finish(); }

  /// Shows what is held (an unfinished sequence) as bytes, and flushes.
  void finish();

protected:
  int_type overflow(int_type c) override;
  std::streamsize xsputn(const char *s, std::streamsize n) override;
  int sync() override;

private:
  void write(const char *s, size_t n);
  /// write() once nothing is held.
  void writeWhole(const char *s, size_t n);
  void escape(unsigned char c);

  std::streambuf *next;
  /// The start of a UTF-8 sequence whose remaining bytes have not come.
  std::string held;
};

/// While alive, `stream`'s output goes through a ShownTextBuf; its old
/// buffer is restored (and what is held written) on destruction.
class ShownTextScope {
public:
  explicit ShownTextScope(std::ostream &stream)
      : stream(stream), filter(stream.rdbuf()), old(stream.rdbuf(&filter)) {}
  ~ShownTextScope() {
    stream.flush();
    filter.finish();
    stream.rdbuf(old);
  }
  ShownTextScope(const ShownTextScope &) = delete;
  ShownTextScope &operator=(const ShownTextScope &) = delete;

private:
  std::ostream &stream;
  ShownTextBuf filter;
  std::streambuf *old;
};

} // namespace cachekey::cli

#endif // CACHEKEY_TOOLS_SHOWNTEXT_H
