//===- CompileOptionsDetail.h - Shared by the edits and the diff -*- C++ -*-===//
//
// Private to engine/lib. The wire-level view of the three nested messages
// entry 5 edits (CompileOptionsProto → ExecutableBuildOptionsProto field 3 →
// DebugOptions field 3) and how their values are written for a person. The
// edits (CompileOptionsEdits.cpp) use both to say what they changed; the
// diff (CompileOptionsDiff.cpp) to say what differs, and it defines the
// functions declared here.
//
//===----------------------------------------------------------------------===//
#ifndef CACHEKEY_LIB_COMPILEOPTIONSDETAIL_H
#define CACHEKEY_LIB_COMPILEOPTIONSDETAIL_H

#include "cachekey/CompileOptions.h"

#include <string>
#include <vector>

namespace cachekey::detail {

/// `bytes` parsed as a message named `what` in errors ("CompileOptionsProto:
/// malformed protobuf: …", path empty), then ordered by field number the way
/// protobuf's serializer writes a parsed message (JAX's copy goes through
/// protobuf). For input a serializer wrote, the order is unchanged.
inline Expected<WireMessage> parseNamed(const Bytes &bytes,
                                        const std::string &what) {
  auto m = WireMessage::parse(bytes);
  if (!m)
    return m.takeError().about(what);
  m->sortByNumber();
  return m;
}

/// The payload of the last occurrence of Len field `number`, or "" (an
/// absent sub-message reads as an empty one).
inline Bytes lastPayload(const WireMessage &m, uint32_t number) {
  const WireField *f = m.last(number);
  return f && f->type == WireType::Len ? f->payload : Bytes();
}

/// Every occurrence of field `number`, in wire order.
inline std::vector<const WireField *> occurrences(const WireMessage &m,
                                                  uint32_t number) {
  std::vector<const WireField *> v;
  for (const auto &f : m.fields)
    if (f.number == number)
      v.push_back(&f);
  return v;
}

/// `s` as a JSON string literal (bytes that are not UTF-8 become U+FFFD).
std::string jsonQuoted(const std::string &s);

/// One field occurrence for a person, by its `kind` (DebugOptions.h). Gives "unset" for nullptr; a bool as true/false; a
/// varint as a signed decimal; a float or double in decimal when `kind` says
/// so, else its little-endian bytes as 0x-hex; a string (or, with no kind, a
/// short printable payload) as a JSON literal; other bytes as
/// "<n> bytes (<hex preview>)".
std::string describeValue(const WireField *f, FieldKind kind);

/// A serialized DeviceAssignmentProto as R rows of C device ids,
/// "[[0, 1], [2, 3]]"; "unset" for nullptr.
std::string describeDeviceAssignment(const WireField *f);

} // namespace cachekey::detail

#endif // CACHEKEY_LIB_COMPILEOPTIONSDETAIL_H
