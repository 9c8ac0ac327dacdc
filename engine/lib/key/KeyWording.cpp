//===- KeyWording.cpp - The words of the key's notes ----------------------===//
//
// The notes a key result carries (Key.h: NoteCode), in English: why a key
// may not be JAX's, or what a reader must know beside it. Key.cpp decides
// when a note is due; the sentences are made here only.
//
//===----------------------------------------------------------------------===//
#include "cachekey/English.h"
#include "cachekey/Key.h"

namespace cachekey {

std::string stdlibZstdNote(const std::string &python) {
  return "On Python " + python +
         " JAX compresses with the standard library's zstd but the key says "
         "\"zlib\": a process that really writes zlib computes the same key.";
}

std::string unreadableKernelsNote(const KeyResult &r) {
  const int n = r.computation.unreadableKernels;
  return "Not JAX's key: " + std::to_string(n) + " Mosaic kernel bod" +
         agree(n, "y", "ies") + " could not be read by " +
         r.computation.producer + " (" + r.computation.unreadableDetail +
         "). jax " + profileSpec(r.profile).id +
         " strips the locations inside kernels its own MLIR can read, so "
         "entry 1 here (and every running digest after it) can differ from "
         "JAX's.";
}

std::string xlaFlagsUnparsedNote(const std::string &jaxlib) {
  return "XLA_FLAGS changed, but the engine has no measured flag table for "
         "jaxlib " + jaxlib + ": the flags reach entry 4 here, while real XLA "
         "also parses them into DebugOptions (entry 5) and the CPU client "
         "(entry 6), so this key may not be JAX's.";
}

std::string xlaFlagEffectUnknownNote(const std::string &flag, const std::string &jaxlib) {
  return "The engine does not know what XLA (jaxlib " + jaxlib + ") sets in "
         "DebugOptions for " + flag + ": that value was not measured, so "
         "entry 5 here, and the key, may not be JAX's.";
}

std::string cpuTargetUnknownNote(const std::string &isa, const std::string &cpu,
                                 const std::string &capturedIsa,
                                 const std::string &jaxlib) {
  const std::string at =
      cpu.empty() ? std::string("this CPU") : "CPU \"" + cpu + "\"";
  const std::string why =
      capturedIsa.empty()
          ? "the capture lists machine attributes, not the target XLA built"
          : "the capture was made under --xla_cpu_max_isa=" + capturedIsa +
                ", which already hid the host's newer features";
  return "The engine cannot know which CPU features --xla_cpu_max_isa" +
         (isa.empty() ? std::string(" (unset)") : "=" + isa) + " leaves on " + at +
         " (jaxlib " + jaxlib + "): " + why +
         ", so entry 6 here keeps the captured target and may not be JAX's.";
}

} // namespace cachekey
