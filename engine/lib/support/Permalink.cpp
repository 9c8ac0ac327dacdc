//===- Permalink.cpp - Scenarios in a URL fragment ------------------------===//
#include "cachekey/Permalink.h"

#include <zstd.h>

namespace cachekey {

std::string base64UrlEncode(const Bytes &bytes) {
  std::string s = base64Encode(bytes);
  while (!s.empty() && s.back() == '=')
    s.pop_back();
  for (char &c : s)
    c = c == '+' ? '-' : c == '/' ? '_' : c;
  return s;
}

Expected<Bytes> base64UrlDecode(const std::string &text) {
  std::string s = text;
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (c == '+' || c == '/' || c == '=')
      return Error{"", std::string("invalid base64url character '") + c +
                           "' at offset " + std::to_string(i) +
                           " (links use '-' and '_' and no padding)", ErrorCode::Syntax};
    s[i] = c == '-' ? '+' : c == '_' ? '/' : c;
  }
  if (s.size() % 4 == 1)
    return Error{"", "invalid base64url length " + std::to_string(s.size()) +
                         " (the link looks truncated)", ErrorCode::Syntax};
  while (s.size() % 4 != 0)
    s.push_back('=');
  // Offsets are the same in both alphabets; the message names the link's.
  auto bytes = base64Decode(s, "base64url");
  if (!bytes)
    return bytes.takeError();
  return bytes;
}

std::string encodePermalink(const std::string &json) {
  Bytes out(ZSTD_compressBound(json.size()), '\0');
  size_t n = ZSTD_compress(out.data(), out.size(), json.data(), json.size(), 19);
  if (ZSTD_isError(n))
    return "";
  out.resize(n);
  return kPermalinkPrefix + base64UrlEncode(out);
}

Expected<std::string> decodePermalink(const std::string &fragment,
                                      size_t maxJsonBytes) {
  std::string f = fragment;
  if (!f.empty() && f[0] == '#')
    f.erase(0, 1);
  const std::string prefix = kPermalinkPrefix;
  if (f.compare(0, prefix.size(), prefix) != 0) {
    if (f.size() >= 3 && f[0] == 's' && f[2] == '=')
      return Error{"", "this link uses encoding version \"" +
                                    f.substr(1, 1) +
                                    "\", which this page does not read "
                                    "(it reads version 1)", ErrorCode::Syntax, "permalink"};
    return Error{"", "not a cachekey link (the fragment should start "
                              "with \"s1=\")", ErrorCode::Syntax, "permalink"};
  }
  if (f.size() > 4 * kPermalinkMaxChars)
    return Error{"", "link of " + std::to_string(f.size()) +
                                  " characters is far longer than any link "
                                  "this page makes", ErrorCode::TooLarge, "permalink"};
  auto raw = base64UrlDecode(f.substr(prefix.size()));
  if (!raw)
    return raw.takeError().from("permalink");
  // ZSTD_MAGICNUMBER 0xFD2FB528, little-endian.
  if (raw->size() < 4 || raw->compare(0, 4, "\x28\xb5\x2f\xfd") != 0)
    return Error{"", "the data is not a zstd frame", ErrorCode::Syntax, "permalink"};
  unsigned long long declared = ZSTD_getFrameContentSize(raw->data(), raw->size());
  if (declared == ZSTD_CONTENTSIZE_ERROR)
    return Error{"", "the zstd frame header is corrupt", ErrorCode::Syntax, "permalink"};
  if (declared != ZSTD_CONTENTSIZE_UNKNOWN && declared > maxJsonBytes)
    return Error{"", "the scenario would decompress to " +
                                  std::to_string(declared) +
                                  " bytes, more than the " +
                                  std::to_string(maxJsonBytes) + "-byte cap", ErrorCode::TooLarge, "permalink"};
  // Stream with a hard output cap, whatever the header claims.
  ZSTD_DCtx *dctx = ZSTD_createDCtx();
  ZSTD_DCtx_setParameter(dctx, ZSTD_d_windowLogMax, 20);
  std::string out;
  Bytes buf(ZSTD_DStreamOutSize(), '\0');
  ZSTD_inBuffer in{raw->data(), raw->size(), 0};
  size_t ret = 0;
  while (true) {
    ZSTD_outBuffer o{buf.data(), buf.size(), 0};
    ret = ZSTD_decompressStream(dctx, &o, &in);
    if (ZSTD_isError(ret)) {
      std::string why = ZSTD_getErrorName(ret);
      ZSTD_freeDCtx(dctx);
      return Error{"", "the compressed data is corrupt (zstd: " + why +
                                    ")", ErrorCode::Syntax, "permalink"};
    }
    out.append(buf.data(), o.pos);
    if (out.size() > maxJsonBytes) {
      ZSTD_freeDCtx(dctx);
      return Error{"", "the scenario decompresses to more than the " +
                                    std::to_string(maxJsonBytes) +
                                    "-byte cap", ErrorCode::TooLarge, "permalink"};
    }
    if (ret == 0)
      break; // frame complete
    if (in.pos == in.size && o.pos < o.size)
      break; // the decoder wants input that is not there
  }
  ZSTD_freeDCtx(dctx);
  if (ret != 0)
    return Error{"", "truncated zstd data (the link was cut short)", ErrorCode::Syntax, "permalink"};
  if (in.pos != in.size)
    return Error{"", "unexpected data after the zstd frame", ErrorCode::Syntax, "permalink"};
  return out;
}

} // namespace cachekey
