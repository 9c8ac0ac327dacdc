//===- PyText.cpp - Python-exact string handling --------------------------===//
#include "cachekey/PyText.h"

namespace cachekey {

bool isPythonWhitespace(char32_t c) {
  switch (c) {
  case 0x09: case 0x0a: case 0x0b: case 0x0c: case 0x0d:
  case 0x1c: case 0x1d: case 0x1e: case 0x1f: case 0x20:
  case 0x85: case 0xa0: case 0x1680:
  case 0x2028: case 0x2029: case 0x202f: case 0x205f: case 0x3000:
    return true;
  default:
    return c >= 0x2000 && c <= 0x200a;
  }
}

/// Decodes one well-formed UTF-8 sequence at `s[i]`; returns its length, or 0
/// when the bytes there are not a valid sequence.
static size_t decodeUtf8(const std::string &s, size_t i, char32_t &out) {
  auto byte = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  unsigned char b0 = byte(i);
  if (b0 < 0x80) {
    out = b0;
    return 1;
  }
  size_t len = (b0 & 0xe0) == 0xc0 ? 2 : (b0 & 0xf0) == 0xe0 ? 3
               : (b0 & 0xf8) == 0xf0 ? 4 : 0;
  if (len == 0 || i + len > s.size())
    return 0;
  char32_t cp = b0 & (0x7f >> len);
  for (size_t k = 1; k < len; ++k) {
    if ((byte(i + k) & 0xc0) != 0x80)
      return 0;
    cp = (cp << 6) | (byte(i + k) & 0x3f);
  }
  out = cp;
  return len;
}

std::vector<std::string> pySplit(const std::string &s) {
  std::vector<std::string> pieces;
  std::string current;
  bool inPiece = false;
  for (size_t i = 0; i < s.size();) {
    char32_t cp = 0;
    size_t len = decodeUtf8(s, i, cp);
    if (len != 0 && isPythonWhitespace(cp)) {
      if (inPiece)
        pieces.push_back(std::move(current));
      current.clear();
      inPiece = false;
      i += len;
      continue;
    }
    size_t take = len == 0 ? 1 : len;
    current.append(s, i, take);
    inPiece = true;
    i += take;
  }
  if (inPiece)
    pieces.push_back(std::move(current));
  return pieces;
}

static bool isAsciiSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\x0b' ||
         c == '\x0c';
}

Bytes pyBytesStrip(const Bytes &b) {
  size_t start = 0, end = b.size();
  while (start < end && isAsciiSpace(b[start]))
    ++start;
  while (end > start && isAsciiSpace(b[end - 1]))
    --end;
  return b.substr(start, end - start);
}

std::string pyStripChars(const std::string &s, const std::string &chars) {
  size_t start = s.find_first_not_of(chars);
  if (start == std::string::npos)
    return "";
  size_t end = s.find_last_not_of(chars);
  return s.substr(start, end - start + 1);
}

std::string flagName(const std::string &flag) {
  return flag.substr(0, flag.find('='));
}

std::string pyRepr(const std::string &s) {
  bool hasSingle = s.find('\'') != std::string::npos;
  bool hasDouble = s.find('"') != std::string::npos;
  char quote = hasSingle && !hasDouble ? '"' : '\'';
  std::string out(1, quote);
  for (unsigned char c : s) {
    if (c == '\\')
      out += "\\\\";
    else if (c == static_cast<unsigned char>(quote))
      out += std::string("\\") + quote;
    else if (c == '\n')
      out += "\\n";
    else if (c == '\r')
      out += "\\r";
    else if (c == '\t')
      out += "\\t";
    else if (c < 0x20 || c == 0x7f) {
      static const char digits[] = "0123456789abcdef";
      out += "\\x";
      out += digits[c >> 4];
      out += digits[c & 15];
    } else
      out += static_cast<char>(c);
  }
  out += quote;
  return out;
}

} // namespace cachekey
