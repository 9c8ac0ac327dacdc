//===- PyBase64.cpp - Python's base64.b64decode ---------------------------===//
#include "cachekey/mlir/PyBase64.h"

namespace cachekey {

static int base64Value(unsigned char c) {
  if (c >= 'A' && c <= 'Z')
    return c - 'A';
  if (c >= 'a' && c <= 'z')
    return c - 'a' + 26;
  if (c >= '0' && c <= '9')
    return c - '0' + 52;
  if (c == '+')
    return 62;
  if (c == '/')
    return 63;
  return -1;
}

Expected<Bytes> pyB64Decode(const std::string &s) {
  for (unsigned char c : s)
    if (c >= 0x80)
      return Error{"", "string argument should contain only ASCII characters",
                   ErrorCode::Invalid, "", "ValueError"};

  Bytes out;
  out.reserve(s.size() / 4 * 3 + 3);
  int quadPos = 0;       // data characters seen in the current quad
  int pads = 0;          // consecutive '=' counted since the last data char
  unsigned leftover = 0; // bits not yet emitted
  for (unsigned char c : s) {
    if (c == '=') {
      // Padding only counts after two data characters of a quad; it ends
      // decoding as soon as it completes the quad.
      if (quadPos >= 2 && quadPos + ++pads >= 4)
        return out;
      continue;
    }
    int v = base64Value(c);
    if (v < 0)
      continue; // validate=False: discard anything outside the alphabet
    pads = 0;
    switch (quadPos) {
    case 0:
      leftover = static_cast<unsigned>(v);
      quadPos = 1;
      break;
    case 1:
      out += static_cast<char>((leftover << 2) | (static_cast<unsigned>(v) >> 4));
      leftover = static_cast<unsigned>(v) & 0x0f;
      quadPos = 2;
      break;
    case 2:
      out += static_cast<char>((leftover << 4) | (static_cast<unsigned>(v) >> 2));
      leftover = static_cast<unsigned>(v) & 0x03;
      quadPos = 3;
      break;
    default:
      out += static_cast<char>((leftover << 6) | static_cast<unsigned>(v));
      leftover = 0;
      quadPos = 0;
      break;
    }
  }
  if (quadPos == 1)
    return Error{"", "Invalid base64-encoded string: number of data characters (" +
                         std::to_string(out.size() / 3 * 4 + 1) +
                         ") cannot be 1 more than a multiple of 4",
                 ErrorCode::Invalid, "", "binascii.Error"};
  if (quadPos != 0)
    return Error{"", "Incorrect padding", ErrorCode::Invalid, "", "binascii.Error"};
  return out;
}

} // namespace cachekey
