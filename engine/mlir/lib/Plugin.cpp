//===- Plugin.cpp - The canonicaliser as a loadable module ----------------===//
//
// The native CLI does not link MLIR: libLLVM.so alone costs about 42 MB of
// resident memory at start-up, which every command would pay (compare-logs
// streaming a 1 GB log included) although only module text needs it. This
// file holds the exported symbols of `libcachekey-mlir.so`, which the CLI
// loads with dlopen the first time a scenario gives module text or a moved
// entry 1 is diffed (engine/tools/cachekey/MlirPlugin.cpp).
//
//===----------------------------------------------------------------------===//
#include "cachekey/mlir/Canonicalize.h"
#include "cachekey/mlir/ModuleDiff.h"

/// Version 1 of the plugin interface: writes `cachekey::canonicalize`
/// (Canonicalize.h) to `*out`. The engine types that cross the boundary
/// (ModuleSpec, Expected<ComputationEntry>) are those of the same build; the
/// loader checks nothing else, so a plugin must come from the same build tree
/// as the CLI that loads it.
extern "C" __attribute__((visibility("default"))) void
cachekey_mlir_plugin_v1(cachekey::Canonicalizer *out) {
  *out = &cachekey::canonicalize;
}

/// Version 2: the canonicaliser and the structural module diff
/// (`cachekey::diffModules`, ModuleDiff.h), as an MlirPluginV2. The same
/// same-build rule as version 1 holds for ModuleDiff and its findings.
extern "C" __attribute__((visibility("default"))) void
cachekey_mlir_plugin_v2(cachekey::MlirPluginV2 *out) {
  out->canonicalize = &cachekey::canonicalize;
  out->diffModules = &cachekey::diffModules;
}
