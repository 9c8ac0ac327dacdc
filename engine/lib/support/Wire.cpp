//===- Wire.cpp - Protobuf messages as ordered wire fields ----------------===//
#include "cachekey/Wire.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>

#include <algorithm>
#include <climits>

namespace cachekey {

using google::protobuf::io::CodedInputStream;
using google::protobuf::io::CodedOutputStream;
using google::protobuf::io::StringOutputStream;

WireField WireField::makeVarint(uint32_t number, uint64_t value) {
  WireField f;
  f.number = number;
  f.type = WireType::Varint;
  f.varint = value;
  return f;
}

WireField WireField::makeLen(uint32_t number, Bytes payload) {
  WireField f;
  f.number = number;
  f.type = WireType::Len;
  f.payload = std::move(payload);
  return f;
}

Expected<WireMessage> WireMessage::parse(const Bytes &bytes) {
  if (bytes.size() > static_cast<size_t>(INT_MAX))
    return Error{"", "message of " + std::to_string(bytes.size()) +
                         " bytes is larger than protobuf's 2 GiB limit", ErrorCode::MalformedProto};
  CodedInputStream in(reinterpret_cast<const uint8_t *>(bytes.data()),
                      static_cast<int>(bytes.size()));
  in.SetTotalBytesLimit(INT_MAX);
  WireMessage msg;
  while (true) {
    int at = in.CurrentPosition();
    if (static_cast<size_t>(at) == bytes.size())
      return msg;
    uint32_t tag = in.ReadTag();
    if (tag == 0)
      return Error{"", "malformed protobuf: invalid tag (field number 0 or a "
                       "malformed varint) at byte " +
                           std::to_string(at), ErrorCode::MalformedProto};
    WireField f;
    f.number = tag >> 3;
    if (f.number == 0)
      return Error{"", "malformed protobuf: field number 0 at byte " +
                           std::to_string(at), ErrorCode::MalformedProto};
    // The field and its position, for an error's message (made only then:
    // a header of a cache entry parses thousands of fields a second).
    auto where = [&f, at] {
      return " field " + std::to_string(f.number) + " at byte " + std::to_string(at);
    };
    switch (tag & 7) {
    case 0:
      f.type = WireType::Varint;
      if (!in.ReadVarint64(&f.varint))
        return Error{"", "malformed protobuf: truncated varint" + where(), ErrorCode::MalformedProto};
      break;
    case 1: {
      f.type = WireType::Fixed64;
      f.payload.resize(8);
      if (!in.ReadRaw(f.payload.data(), 8))
        return Error{"", "malformed protobuf: truncated fixed64" + where(), ErrorCode::MalformedProto};
      break;
    }
    case 2: {
      f.type = WireType::Len;
      uint32_t len = 0;
      if (!in.ReadVarint32(&len))
        return Error{"", "malformed protobuf: truncated length" + where(), ErrorCode::MalformedProto};
      if (len > static_cast<uint32_t>(in.BytesUntilLimit()))
        return Error{"", "malformed protobuf: length-delimited" + where() +
                             " declares " + std::to_string(len) +
                             " bytes but only " +
                             std::to_string(in.BytesUntilLimit()) + " remain", ErrorCode::MalformedProto};
      if (!in.ReadString(&f.payload, static_cast<int>(len)))
        return Error{"", "malformed protobuf: truncated length-delimited" +
                             where(), ErrorCode::MalformedProto};
      break;
    }
    case 5:
      f.type = WireType::Fixed32;
      f.payload.resize(4);
      if (!in.ReadRaw(f.payload.data(), 4))
        return Error{"", "malformed protobuf: truncated fixed32" + where(), ErrorCode::MalformedProto};
      break;
    default:
      return Error{"", "malformed protobuf: wire type " +
                           std::to_string(tag & 7) + where() +
                           " (groups and unknown wire types are not valid in "
                           "these proto3 messages)", ErrorCode::MalformedProto};
    }
    msg.fields.push_back(std::move(f));
  }
}

Bytes WireMessage::serialize() const {
  Bytes out;
  {
    StringOutputStream stream(&out);
    CodedOutputStream coded(&stream);
    for (const auto &f : fields) {
      coded.WriteTag((f.number << 3) | static_cast<uint32_t>(f.type));
      switch (f.type) {
      case WireType::Varint:
        coded.WriteVarint64(f.varint);
        break;
      case WireType::Len:
        coded.WriteVarint32(static_cast<uint32_t>(f.payload.size()));
        coded.WriteRaw(f.payload.data(), static_cast<int>(f.payload.size()));
        break;
      case WireType::Fixed64:
      case WireType::Fixed32:
        coded.WriteRaw(f.payload.data(), static_cast<int>(f.payload.size()));
        break;
      }
    }
  }
  return out;
}

const WireField *WireMessage::last(uint32_t number) const {
  for (auto it = fields.rbegin(); it != fields.rend(); ++it)
    if (it->number == number)
      return &*it;
  return nullptr;
}

size_t WireMessage::removeAll(uint32_t number) {
  size_t before = fields.size();
  fields.erase(std::remove_if(fields.begin(), fields.end(),
                              [&](const WireField &f) {
                                return f.number == number;
                              }),
               fields.end());
  return before - fields.size();
}

void WireMessage::sortByNumber() {
  std::stable_sort(fields.begin(), fields.end(),
                   [](const WireField &a, const WireField &b) {
                     return a.number < b.number;
                   });
}

void WireMessage::setSorted(WireField field) {
  removeAll(field.number);
  auto pos = std::find_if(fields.begin(), fields.end(), [&](const WireField &f) {
    return f.number > field.number;
  });
  fields.insert(pos, std::move(field));
}

void WireMessage::setMessage(uint32_t number, Bytes payload) {
  for (auto it = fields.rbegin(); it != fields.rend(); ++it) {
    if (it->number == number && it->type == WireType::Len) {
      it->payload = std::move(payload);
      return;
    }
  }
  setSorted(WireField::makeLen(number, std::move(payload)));
}

} // namespace cachekey
