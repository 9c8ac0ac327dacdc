//===- Wire.h - Protobuf messages as ordered wire fields --------*- C++ -*-===//
//
// Entry 5 is the serialized `CompileOptionsProto` after a few edits. XLA's
// `DebugOptions` has hundreds of fields and changes every release, so instead
// of compiling XLA's schema the engine edits messages at the wire level: a
// message is its fields in wire order, each kept as the exact bytes it had.
// Decoding and encoding go through protobuf's CodedInputStream and
// CodedOutputStream. A field the edits do not touch is written back exactly
// as it was read.
//
//===----------------------------------------------------------------------===//
#ifndef CACHEKEY_WIRE_H
#define CACHEKEY_WIRE_H

#include "cachekey/Support.h"

#include <cstdint>
#include <vector>

namespace cachekey {

/// Protobuf wire types (groups are not used by proto3 and are rejected).
enum class WireType : uint8_t { Varint = 0, Fixed64 = 1, Len = 2, Fixed32 = 5 };

/// One field occurrence: its number, wire type and value. `varint` holds
/// Varint values; `payload` holds the bytes of Len fields and the
/// little-endian bytes of Fixed32/Fixed64 fields.
struct WireField {
  uint32_t number = 0;
  WireType type = WireType::Varint;
  uint64_t varint = 0;
  Bytes payload;

  static WireField makeVarint(uint32_t number, uint64_t value);
  static WireField makeLen(uint32_t number, Bytes payload);
  bool operator==(const WireField &o) const {
    return number == o.number && type == o.type && varint == o.varint &&
           payload == o.payload;
  }
  bool operator!=(const WireField &o) const { return !(*this == o); }
};

/// A message as its field occurrences, in wire order.
struct WireMessage {
  std::vector<WireField> fields;

  /// Decodes `bytes`. The Error says what is malformed and at which byte
  /// offset (relative to `bytes`), e.g. "truncated length-delimited field 3
  /// at byte 17".
  static Expected<WireMessage> parse(const Bytes &bytes);

  /// Encodes the fields in their current order.
  Bytes serialize() const;

  /// The last occurrence of `number` (protobuf's "last one wins" for
  /// singular fields), or nullptr.
  const WireField *last(uint32_t number) const;

  /// Removes every occurrence of `number`, then inserts `field` before the
  /// first field with a higher number, keeping field-number order for input
  /// that had it (as protobuf's serializers write it).
  void setSorted(WireField field);

  /// Replaces the payload of the last occurrence of Len field `number` in
  /// place, or inserts it in field-number order when absent.
  void setMessage(uint32_t number, Bytes payload);

  /// Removes every occurrence of `number`; returns how many there were.
  size_t removeAll(uint32_t number);

  /// Orders the fields by number, keeping the order of equal numbers, as
  /// protobuf's serializer writes a parsed message. A no-op on what a
  /// protobuf serializer wrote.
  void sortByNumber();
};

} // namespace cachekey

#endif // CACHEKEY_WIRE_H
