//===- LogEncoding.cpp - Whether a log's bytes are text to read -----------===//
//
// A log handed to the reader may be a gzip file, UTF-16 text (PowerShell's
// `2>` writes it) or another binary file. Its first bytes say which, so that
// the error names what the file is instead of "no cache-key lines".
//
//===----------------------------------------------------------------------===//
#include "cachekey/LogReader.h"

#include <algorithm>

namespace cachekey {

namespace {

/// Whether bytes with a NUL among them read as UTF-16 text without a
/// byte-order mark: ASCII in UTF-16 has a NUL in every second byte, all at
/// odd offsets (little-endian) or all at even ones (big-endian), and at
/// least a third of the bytes are NULs. An executable's NULs fall anywhere
/// ("\x7fELF\x02\x01\x01\0\0…").
bool looksUtf16(std::string_view head) {
  size_t even = 0, odd = 0;
  for (size_t i = 0; i < head.size(); ++i)
    if (head[i] == '\0')
      ++(i % 2 ? odd : even);
  return (even == 0 || odd == 0) && 3 * (even + odd) >= head.size();
}

} // namespace

LogSummary::Encoding LogSummary::encodingOf(std::string_view firstBytes) {
  const auto byte = [&](size_t i) { return static_cast<unsigned char>(firstBytes[i]); };
  // RFC 1952: a gzip member starts with 1f 8b.
  if (firstBytes.size() >= 2 && byte(0) == 0x1f && byte(1) == 0x8b)
    return Encoding::Gzip;
  // A UTF-16 byte-order mark, little- or big-endian.
  if (firstBytes.size() >= 2 &&
      ((byte(0) == 0xff && byte(1) == 0xfe) || (byte(0) == 0xfe && byte(1) == 0xff)))
    return Encoding::Utf16;
  std::string_view head = firstBytes.substr(0, std::min<size_t>(firstBytes.size(), 64));
  if (head.find('\0') == std::string_view::npos)
    return Encoding::Text;
  return looksUtf16(head) ? Encoding::Utf16 : Encoding::Binary;
}

// How a log's lines end, from its first line break (LogReader::lineEnds).
void LogReader::learnLineEnds(std::string_view chunk) {
  // A '\r' held at the end of the line so far (the previous chunk ended
  // on it) is decided by this chunk's first byte.
  if (!partial.empty() && partial.back() == '\r') {
    lineEnds = chunk[0] == '\n' ? LineEnds::Lf : LineEnds::Cr;
    if (lineEnds == LineEnds::Cr) {
      // That line ended at its '\r': read it now, as a line feed would have.
      lineChecked = false;
      if (!skippingLongLine)
        readLine(partial);
      partial.clear();
      skippingLongLine = false;
    }
    return;
  }
  const size_t at = chunk.find_first_of("\r\n");
  if (at == std::string_view::npos || (chunk[at] == '\r' && at + 1 == chunk.size()))
    return; // no line break yet, or a '\r' the next chunk decides
  lineEnds = chunk[at] == '\r' && chunk[at + 1] != '\n' ? LineEnds::Cr : LineEnds::Lf;
}

} // namespace cachekey
