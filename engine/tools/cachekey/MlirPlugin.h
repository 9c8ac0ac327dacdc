//===- MlirPlugin.h - Loading the MLIR canonicaliser on demand --*- C++ -*-===//
#ifndef CACHEKEY_TOOLS_MLIRPLUGIN_H
#define CACHEKEY_TOOLS_MLIRPLUGIN_H

namespace cachekey {

/// Installs (setCanonicalizer, Computation.h) a canonicaliser that loads
/// `libcachekey-mlir.so` with dlopen on its first call and forwards to the
/// plugin's `cachekey::canonicalize`; and a module differ (setModuleDiffer,
/// ModuleDiff.h) that loads it the same way the first time two moved entry-1
/// modules are compared. Commands that neither see module text nor compare a
/// moved entry 1 (compare-logs, explain of captured bytes) therefore never
/// map MLIR or LLVM. The plugin's `cachekey_mlir_plugin_v2` is used when it
/// has one; a version-1 plugin gives the canonicaliser and no module diff.
///
/// The plugin is looked up at $CACHEKEY_MLIR_PLUGIN when set (a file path;
/// one without '/' is taken relative to the working directory), else at
/// `<directory of the executable>/../lib/libcachekey-mlir.so` (the build
/// tree's layout). When it cannot be loaded, the call returns an Error with
/// code `no_mlir` naming the path and dlerror()'s reason; later calls return
/// the same error without retrying.
void registerLazyMlirCanonicalizer();

} // namespace cachekey

#endif // CACHEKEY_TOOLS_MLIRPLUGIN_H
