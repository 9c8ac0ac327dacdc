//===- KeyWording.cpp - The words of the key's notes ----------------------===//
//
// The notes a key result carries (Key.h: NoteCode), in English: why a key
// may not be JAX's, or what a reader must know beside it. Key.cpp decides
// when a note is due; the sentences are made here only.
//
//===----------------------------------------------------------------------===//
#include "cachekey/English.h"
#include "cachekey/Key.h"
#include "cachekey/Profile.h"

namespace cachekey {

std::string stdlibZstdNote(const std::string &python) {
  return "On Python " + python +
         " JAX compresses with the standard library's zstd but the key says "
         "\"zlib\": a process that really writes zlib computes the same key.";
}

Note unreadableKernelsNote(const KeyResult &r) {
  Note n;
  n.code = NoteCode::UnreadableKernels;
  n.count = r.computation.unreadableKernels;
  n.subject = r.computation.producer;
  n.detail = r.computation.unreadableDetail;
  n.release = profileSpec(r.profile).id;
  return n;
}

std::string noteText(const Note &n) {
  switch (n.code) {
  case NoteCode::LiveEntry1:
    return "Entry 1 was computed here by " + n.subject +
           "; jaxlib's MLIR is a different version, so its bytecode "
           "(and every digest from entry 1 on) differs from what "
           "jaxlib would feed.";
  case NoteCode::StandInFingerprint:
    return "Entry 6 uses a stand-in topology fingerprint (not "
           "measured on a TPU): " + n.subject;
  case NoteCode::StdlibZstd:
    return stdlibZstdNote(n.subject);
  case NoteCode::UnreadableKernels:
    return "Not JAX's key: " + std::to_string(n.count) + " Mosaic kernel bod" +
           agree(n.count, "y", "ies") + " could not be read by " + n.subject +
           " (" + n.detail + "). jax " + n.release +
           " strips the locations inside kernels its own MLIR can read, so "
           "entry 1 here (and every running digest after it) can differ from "
           "JAX's.";
  case NoteCode::Entry1DigestOnly:
    return "entry 1 of " + n.subject +
           " was captured as a digest only (--no-entry1-bytes): its own digest, "
           "every running digest and the key are JAX's, not recomputed";
  case NoteCode::XlaFlagsUnparsed:
    return "XLA_FLAGS changed, but the engine has no measured flag table for "
           "jaxlib " + n.release + ": the flags reach entry 4 here, while real XLA "
           "also parses them into DebugOptions (entry 5) and the CPU client "
           "(entry 6), so this key may not be JAX's.";
  case NoteCode::XlaFlagEffectUnknown:
    return "The engine does not know what XLA (jaxlib " + n.release + ") sets in "
           "DebugOptions for " + n.subject + ": that value was not measured, so "
           "entry 5 here, and the key, may not be JAX's.";
  case NoteCode::CpuTargetUnknown: {
    const std::string at =
        n.subject.empty() ? std::string("this CPU") : "CPU \"" + n.subject + "\"";
    const std::string why =
        n.captured.empty()
            ? "the capture lists machine attributes, not the target XLA built"
            : "the capture was made under --xla_cpu_max_isa=" + n.captured +
                  ", which already hid the host's newer features";
    return "The engine cannot know which CPU features --xla_cpu_max_isa" +
           (n.detail.empty() ? std::string(" (unset)") : "=" + n.detail) +
           " leaves on " + at + " (jaxlib " + n.release + "): " + why +
           ", so entry 6 here keeps the captured target and may not be JAX's.";
  }
  // The notes of a log comparison are worded where they are made
  // (LogCompare.h); none reaches a key result.
  case NoteCode::IncompleteKey:
  case NoteCode::UnreadableLine:
  case NoteCode::MoreUnreadableLines:
  case NoteCode::LongLines:
  case NoteCode::KeyErrors:
  case NoteCode::CacheOff:
  case NoteCode::SameLog:
  case NoteCode::PgleProbeKeys:
    break;
  }
  return "";
}

} // namespace cachekey
