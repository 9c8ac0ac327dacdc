//===- ShownText.cpp - Text output a terminal cannot act on ---------------===//
#include "ShownText.h"

namespace cachekey::cli {

namespace {

/// The length of the well-formed UTF-8 sequence at `s` (of `n` bytes, n > 0,
/// s[0] >= 0x80): 2-4; 0 when it is not one; -1 when the `n` bytes are the
/// well-formed start of one that goes on past them. RFC 3629's table.
int sequenceLength(const unsigned char *s, size_t n) {
  const unsigned char c = s[0];
  int len;
  unsigned char lo = 0x80, hi = 0xbf; // the second byte's range
  if (c >= 0xc2 && c <= 0xdf)
    len = 2;
  else if (c >= 0xe0 && c <= 0xef) {
    len = 3;
    if (c == 0xe0)
      lo = 0xa0; // no overlong forms
    else if (c == 0xed)
      hi = 0x9f; // no surrogates
  } else if (c >= 0xf0 && c <= 0xf4) {
    len = 4;
    if (c == 0xf0)
      lo = 0x90;
    else if (c == 0xf4)
      hi = 0x8f; // nothing past U+10FFFF
  } else
    return 0;
  for (int i = 1; i < len; ++i) {
    if (static_cast<size_t>(i) >= n)
      return -1;
    const unsigned char b = s[i];
    if (i == 1 ? (b < lo || b > hi) : (b < 0x80 || b > 0xbf))
      return 0;
  }
  return len;
}

bool passes(unsigned char c) { return (c >= 0x20 && c < 0x7f) || c == '\n' || c == '\t'; }

} // namespace

void ShownTextBuf::escape(unsigned char c) {
  static const char hex[] = "0123456789abcdef";
  if (c == '\r') {
    next->sputn("\\r", 2);
    return;
  }
  const char out[4] = {'\\', 'x', hex[c >> 4], hex[c & 15]};
  next->sputn(out, 4);
}

void ShownTextBuf::write(const char *s, size_t n) {
  // A held start of a sequence goes first, with the bytes that may finish
  // it (4 at most); what is still unfinished after them is held again.
  while (!held.empty() && n > 0) {
    std::string joined;
    joined.swap(held);
    const size_t take = n < 4 ? n : 4;
    joined.append(s, take);
    writeWhole(joined.data(), joined.size());
    s += take;
    n -= take;
  }
  if (n > 0)
    writeWhole(s, n);
}

void ShownTextBuf::writeWhole(const char *s, size_t n) {
  const auto *u = reinterpret_cast<const unsigned char *>(s);
  size_t i = 0;
  size_t run = i; // the start of bytes that pass as they are
  while (i < n) {
    const unsigned char c = u[i];
    if (passes(c)) {
      ++i;
      continue;
    }
    if (c >= 0x80) {
      const int len = sequenceLength(u + i, n - i);
      if (len > 0) {
        i += len;
        continue;
      }
      next->sputn(s + run, static_cast<std::streamsize>(i - run));
      if (len == -1) {
        held.assign(s + i, n - i);
        return;
      }
    } else
      next->sputn(s + run, static_cast<std::streamsize>(i - run));
    escape(c);
    run = ++i;
  }
  next->sputn(s + run, static_cast<std::streamsize>(i - run));
}

void ShownTextBuf::finish() {
  for (unsigned char c : held)
    escape(c);
  held.clear();
  next->pubsync();
}

ShownTextBuf::int_type ShownTextBuf::overflow(int_type c) {
  if (traits_type::eq_int_type(c, traits_type::eof()))
    return traits_type::not_eof(c);
  const char ch = traits_type::to_char_type(c);
  write(&ch, 1);
  return c;
}

std::streamsize ShownTextBuf::xsputn(const char *s, std::streamsize n) {
  write(s, static_cast<size_t>(n));
  return n;
}

int ShownTextBuf::sync() { return next->pubsync(); }

} // namespace cachekey::cli
