//===- CacheEntry.cpp - One cache entry's value ---------------------------===//
//
// Decodes the head of `compress(4-byte big-endian compile seconds +
// executable)` (jax/_src/compilation_cache.py, combine_executable_and_time /
// extract_executable_and_time) with libzstd and zlib, bounded: at most
// EntryLimits::headBytes of output unless a whole decode is asked for, and
// then streamed through a fixed buffer. zstd decodes whole blocks (up to
// 128 KiB of output each), so a head costs its first block; a frame that
// declares at most 128 KiB and lies whole in the bytes read is decoded in
// one call instead of streamed.
//
//===----------------------------------------------------------------------===//
#include "cachekey/CacheDir.h"
#include "cachekey/Wire.h"

#include <zlib.h>
#include <zstd.h>

#include <memory>

namespace cachekey {

const char *codecName(Codec c) {
  switch (c) {
  case Codec::Zstd: return "zstd";
  case Codec::Zlib: return "zlib";
  case Codec::Unknown: break;
  }
  return "unknown";
}

const char *entryStatusName(EntryStatus s) {
  switch (s) {
  case EntryStatus::Ok: return "ok";
  case EntryStatus::TooShort: return "too_short";
  case EntryStatus::NotCompressed: return "not_compressed";
  case EntryStatus::Truncated: return "truncated";
  case EntryStatus::Corrupt: return "corrupt";
  }
  return "ok";
}

std::string IfrtArraySpec::str() const {
  // xla/xla_data.proto PrimitiveType numbers.
  static const char *const names[] = {
      "invalid", "pred", "s8",  "s16", "s32", "s64", "u8",  "u16", "u32",
      "u64",     "f16",  "f32", "f64", "tuple", "opaque", "c64", "bf16",
      "token",   "c128"};
  std::string s = dtype >= 0 && dtype < int(sizeof names / sizeof *names)
                      ? names[dtype]
                      : "type" + std::to_string(dtype);
  s += "[";
  for (size_t i = 0; i < dims.size(); ++i)
    s += (i ? "," : "") + std::to_string(dims[i]);
  return s + "]";
}

namespace {

constexpr size_t kChunk = 128 * 1024;

Codec sniff(std::string_view b) {
  if (b.size() >= 4 && uint8_t(b[0]) == 0x28 && uint8_t(b[1]) == 0xb5 &&
      uint8_t(b[2]) == 0x2f && uint8_t(b[3]) == 0xfd)
    return Codec::Zstd;
  if (b.size() >= 2 && (uint8_t(b[0]) & 0x0f) == 8 && (uint8_t(b[0]) >> 4) <= 7 &&
      ((uint8_t(b[0]) << 8) | uint8_t(b[1])) % 31 == 0)
    return Codec::Zlib;
  return Codec::Unknown;
}

/// Walks a zstd frame's block headers (RFC 8878 §3.1.1.2) without
/// decompressing, to tell whether the file holds the whole frame.
/// Returns "" when it does, otherwise what is wrong.
std::string zstdFrameEnd(const ByteSource &src, std::string_view prefix,
                         EntryStatus &status) {
  // The frame header (RFC 8878 §3.1.1.1): magic, descriptor, optional
  // window descriptor, dictionary id and content size.
  if (prefix.size() < 5) {
    status = EntryStatus::Truncated;
    return "the file ends inside the zstd frame header";
  }
  const uint8_t fhd = uint8_t(prefix[4]);
  const bool single = fhd & 0x20, checksum = fhd & 0x04;
  static const size_t didSize[] = {0, 1, 2, 4};
  const size_t fcsSize[] = {single ? size_t(1) : size_t(0), 2, 4, 8};
  if (fhd & 0x08) {
    status = EntryStatus::Corrupt;
    return "reserved bit set in the zstd frame header";
  }
  size_t hsize = 5 + (single ? 0 : 1) + didSize[fhd & 3] + fcsSize[fhd >> 6];
  uint64_t at = hsize, size = src.size();
  for (uint64_t blocks = 0;; ++blocks) {
    std::string h = at + 3 <= prefix.size() ? std::string(prefix.substr(at, 3))
                                            : src.read(at, 3);
    if (h.size() < 3) {
      status = EntryStatus::Truncated;
      return "the file ends inside block " + std::to_string(blocks) +
             " of the zstd frame, at byte " + std::to_string(size);
    }
    uint32_t bh = uint8_t(h[0]) | uint32_t(uint8_t(h[1])) << 8 |
                  uint32_t(uint8_t(h[2])) << 16;
    uint32_t type = (bh >> 1) & 3, bsize = bh >> 3;
    if (type == 3) {
      status = EntryStatus::Corrupt;
      return "reserved block type at byte " + std::to_string(at);
    }
    at += 3 + (type == 1 ? 1 : bsize);
    if (bh & 1)
      break;
  }
  if (checksum)
    at += 4;
  if (at > size) {
    status = EntryStatus::Truncated;
    return "the zstd frame needs " + std::to_string(at) + " bytes, the file has " +
           std::to_string(size);
  }
  return "";
}

/// Decompresses zstd: the head into `head`, or the whole stream counted.
std::string zstdDecode(const ByteSource &src, std::string_view prefix,
                       const EntryLimits &lim, std::string &head,
                       uint64_t &total, bool &ended, EntryStatus &status) {
  // One decompression context per thread, reset per entry (creating one
  // per entry costs more than decoding a head).
  static thread_local std::unique_ptr<ZSTD_DCtx, size_t (*)(ZSTD_DCtx *)> d(
      ZSTD_createDCtx(), ZSTD_freeDCtx);
  ZSTD_DCtx_reset(d.get(), ZSTD_reset_session_only);
  total = 0;
  ended = false;
  // A small frame held whole in the prefix (most entries of small
  // programs) is decoded in one call: at most the 128 KiB of one zstd
  // block, which a head needs decoded anyway, and half the time of
  // streaming it. Anything else, and any error, goes the streamed way.
  {
    unsigned long long declared = ZSTD_getFrameContentSize(prefix.data(), prefix.size());
    size_t frame = ZSTD_findFrameCompressedSize(prefix.data(), prefix.size());
    if (declared != ZSTD_CONTENTSIZE_UNKNOWN && declared != ZSTD_CONTENTSIZE_ERROR &&
        declared <= kChunk && declared <= lim.wholeLimit && !ZSTD_isError(frame) &&
        frame <= prefix.size()) {
      static thread_local std::string small;
      if (small.size() < kChunk)
        small.resize(kChunk);
      size_t n = ZSTD_decompressDCtx(d.get(), small.data(), kChunk, prefix.data(), frame);
      if (!ZSTD_isError(n)) {
        if (head.size() < lim.headBytes)
          head.append(small.data(), std::min(n, lim.headBytes - head.size()));
        total = n;
        ended = true;
        return "";
      }
      ZSTD_DCtx_reset(d.get(), ZSTD_reset_session_only);
    }
  }
  // The output buffer is the thread's own, sized once (no allocation and no
  // zero-filling per entry); the prefix is decoded where it lies.
  static thread_local std::string outBuffer;
  const size_t outSize = lim.whole ? kChunk : lim.headBytes;
  if (outBuffer.size() < outSize)
    outBuffer.resize(outSize);
  std::string_view out(outBuffer.data(), outSize);
  std::string in; // input read past the prefix
  uint64_t inAt = prefix.size();
  ZSTD_inBuffer ib{prefix.data(), prefix.size(), 0};
  total = 0;
  ended = false;
  for (;;) {
    ZSTD_outBuffer ob{outBuffer.data(), out.size(), 0};
    size_t r = ZSTD_decompressStream(d.get(), &ob, &ib);
    if (ZSTD_isError(r)) {
      status = EntryStatus::Corrupt;
      return ZSTD_getErrorName(r);
    }
    if (head.size() < lim.headBytes)
      head.append(out.data(), std::min(ob.pos, lim.headBytes - head.size()));
    total += ob.pos;
    if (r == 0) {
      ended = true;
      return "";
    }
    if (!lim.whole && head.size() >= lim.headBytes)
      return "";
    if (total > lim.wholeLimit) {
      status = EntryStatus::Corrupt;
      return "decompresses to more than " + std::to_string(lim.wholeLimit) + " bytes";
    }
    if (ib.pos == ib.size && ob.pos < ob.size) {
      // More input: a head needs at least the whole first block.
      in = inAt < src.size() ? src.read(inAt, kChunk) : std::string();
      if (in.empty()) {
        status = EntryStatus::Truncated;
        return "the zstd stream stops before its end";
      }
      inAt += in.size();
      ib = ZSTD_inBuffer{in.data(), in.size(), 0};
    }
  }
}

std::string zlibDecode(const ByteSource &src, std::string_view prefix,
                       const EntryLimits &lim, std::string &head,
                       uint64_t &total, bool &ended, EntryStatus &status) {
  z_stream z{};
  if (inflateInit(&z) != Z_OK) {
    status = EntryStatus::Corrupt;
    return "zlib could not start";
  }
  std::string out(lim.whole ? kChunk : lim.headBytes, '\0');
  std::string in(prefix);
  uint64_t inAt = in.size();
  z.next_in = reinterpret_cast<Bytef *>(in.data());
  z.avail_in = static_cast<uInt>(in.size());
  total = 0;
  ended = false;
  std::string err;
  for (;;) {
    z.next_out = reinterpret_cast<Bytef *>(out.data());
    z.avail_out = static_cast<uInt>(out.size());
    int r = inflate(&z, Z_NO_FLUSH);
    size_t got = out.size() - z.avail_out;
    if (head.size() < lim.headBytes)
      head.append(out.data(), std::min(got, lim.headBytes - head.size()));
    total += got;
    if (r == Z_STREAM_END) {
      ended = true;
      break;
    }
    if (r != Z_OK && r != Z_BUF_ERROR) {
      status = EntryStatus::Corrupt;
      err = z.msg ? z.msg : "zlib error " + std::to_string(r);
      break;
    }
    if (!lim.whole && head.size() >= lim.headBytes)
      break;
    if (total > lim.wholeLimit) {
      status = EntryStatus::Corrupt;
      err = "decompresses to more than " + std::to_string(lim.wholeLimit) + " bytes";
      break;
    }
    if (z.avail_in == 0) {
      in = inAt < src.size() ? src.read(inAt, kChunk) : std::string();
      if (in.empty()) {
        status = EntryStatus::Truncated;
        err = "the zlib stream stops before its end";
        break;
      }
      inAt += in.size();
      z.next_in = reinterpret_cast<Bytef *>(in.data());
      z.avail_in = static_cast<uInt>(in.size());
    }
  }
  inflateEnd(&z);
  return err;
}

struct MemorySource : ByteSource {
  std::string_view bytes;
  explicit MemorySource(std::string_view b) : bytes(b) {}
  uint64_t size() const override { return bytes.size(); }
  std::string read(uint64_t offset, size_t n) const override {
    if (offset >= bytes.size())
      return {};
    return std::string(bytes.substr(offset, n));
  }
};

} // namespace

std::optional<IfrtHeader> parseIfrtHeader(std::string_view exe) {
  uint64_t len = 0;
  size_t i = 0;
  for (int shift = 0; i < exe.size() && shift < 64; shift += 7) {
    uint8_t b = uint8_t(exe[i++]);
    len |= uint64_t(b & 0x7f) << shift;
    if (!(b & 0x80))
      break;
    if (i == exe.size())
      return std::nullopt;
  }
  if (i == 0 || len == 0 || len > exe.size() - i)
    return std::nullopt;
  auto msg = WireMessage::parse(Bytes(exe.substr(i, len)));
  if (!msg)
    return std::nullopt;
  IfrtHeader h;
  h.bytes = i + len;
  for (const WireField &f : msg->fields) {
    if (f.number == 1 && f.type == WireType::Varint)
      h.version = static_cast<int64_t>(f.varint);
    else if (f.number == 2 && f.type == WireType::Len)
      h.runtime = f.payload;
    else if (f.number == 7 && f.type == WireType::Len)
      h.computationName = f.payload;
    else if (f.number == 5 && f.type == WireType::Len) {
      auto spec = WireMessage::parse(f.payload);
      if (!spec)
        return std::nullopt;
      IfrtArraySpec a;
      for (const WireField &s : spec->fields) {
        if (s.number == 1 && s.type == WireType::Len) { // Shape { dims }
          auto shape = WireMessage::parse(s.payload);
          if (!shape)
            return std::nullopt;
          for (const WireField &d : shape->fields) {
            if (d.number != 1)
              continue;
            if (d.type == WireType::Varint) {
              a.dims.push_back(static_cast<int64_t>(d.varint));
            } else if (d.type == WireType::Len) { // packed
              const std::string &p = d.payload;
              uint64_t v = 0;
              int sh = 0;
              for (char c : p) {
                v |= uint64_t(uint8_t(c) & 0x7f) << sh;
                if (uint8_t(c) & 0x80) {
                  sh += 7;
                  if (sh >= 64)
                    return std::nullopt;
                } else {
                  a.dims.push_back(static_cast<int64_t>(v));
                  v = 0;
                  sh = 0;
                }
              }
              if (sh)
                return std::nullopt;
            }
          }
        } else if (s.number == 2 && s.type == WireType::Len) { // DType { kind }
          auto dt = WireMessage::parse(s.payload);
          if (!dt)
            return std::nullopt;
          if (const WireField *k = dt->last(1); k && k->type == WireType::Varint)
            a.dtype = static_cast<int>(k->varint & 0xffff);
        }
      }
      h.outputs.push_back(std::move(a));
    }
  }
  if (h.runtime != "pjrt_ifrt")
    return std::nullopt;
  return h;
}

EntryFacts readEntry(const ByteSource &src, const EntryLimits &limits) {
  EntryFacts f;
  const uint64_t size = src.size();
  std::string prefix = src.read(0, static_cast<size_t>(std::min<uint64_t>(size, 16 * 1024)));
  if (prefix.size() < 4) {
    f.codec = sniff(prefix);
    f.status = EntryStatus::TooShort;
    f.detail = std::to_string(size) + " bytes";
    return f;
  }
  f.codec = sniff(prefix);
  if (f.codec == Codec::Unknown) {
    f.status = EntryStatus::NotCompressed;
    return f;
  }
  std::string head;
  uint64_t total = 0;
  bool ended = false;
  EntryStatus st = EntryStatus::Ok;
  std::string err;
  if (f.codec == Codec::Zstd) {
    err = zstdFrameEnd(src, prefix, st);
    unsigned long long cs = ZSTD_getFrameContentSize(prefix.data(), prefix.size());
    if (cs != ZSTD_CONTENTSIZE_UNKNOWN && cs != ZSTD_CONTENTSIZE_ERROR)
      f.decompressed = cs;
    EntryStatus dst = EntryStatus::Ok;
    std::string derr = zstdDecode(src, prefix, limits, head, total, ended, dst);
    if (st == EntryStatus::Ok && dst != EntryStatus::Ok) {
      st = dst;
      err = derr;
    }
  } else {
    err = zlibDecode(src, prefix, limits, head, total, ended, st);
  }
  if (ended) {
    f.wholeDecoded = true;
    if (f.decompressed && *f.decompressed != total && st == EntryStatus::Ok) {
      st = EntryStatus::Corrupt;
      err = "the frame says " + std::to_string(*f.decompressed) +
            " bytes, it decodes to " + std::to_string(total);
    }
    f.decompressed = total;
  }
  f.status = st;
  f.detail = err;
  if (st != EntryStatus::Ok)
    return f;
  if (head.size() < 4) {
    f.status = EntryStatus::TooShort;
    f.detail = "decompresses to " + std::to_string(head.size()) + " bytes";
    return f;
  }
  f.compileSeconds = uint32_t(uint8_t(head[0])) << 24 | uint32_t(uint8_t(head[1])) << 16 |
                     uint32_t(uint8_t(head[2])) << 8 | uint32_t(uint8_t(head[3]));
  if (auto h = parseIfrtHeader(std::string_view(head).substr(4, limits.headBytes))) {
    f.hasIfrt = true;
    f.outputs = shapesText(h->outputs);
  }
  return f;
}

EntryFacts readEntryBytes(std::string_view bytes, const EntryLimits &limits) {
  return readEntry(MemorySource(bytes), limits);
}

} // namespace cachekey
