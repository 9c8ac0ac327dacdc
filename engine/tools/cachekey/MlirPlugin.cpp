//===- MlirPlugin.cpp - Loading the MLIR canonicaliser on demand ----------===//
#include "MlirPlugin.h"
#include "cachekey/StringExtras.h"

#include "cachekey/Computation.h"
#include "cachekey/ModuleDiff.h"

#include <dlfcn.h>
#include <limits.h>
#include <unistd.h>

#include <cstdlib>
#include <optional>
#include <string>

namespace cachekey {
namespace {

using PluginEntryV1 = void (*)(Canonicalizer *);
using PluginEntryV2 = void (*)(MlirPluginV2 *);

/// `<dir of /proc/self/exe>/../lib/libcachekey-mlir.so`, or "" if the
/// executable's path cannot be read.
std::string defaultPluginPath() {
  char buf[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0)
    return "";
  std::string exe(buf, static_cast<size_t>(n));
  std::string dir = exe.substr(0, exe.rfind('/'));
  return dir + "/../lib/libcachekey-mlir.so";
}

/// The plugin's entry points (version 2, or version 1's canonicaliser
/// alone), or the error that loading it gave. Loaded once per process.
const Expected<MlirPluginV2> &loadedPlugin() {
  static const Expected<MlirPluginV2> loaded = []() -> Expected<MlirPluginV2> {
    const char *env = std::getenv("CACHEKEY_MLIR_PLUGIN");
    std::string path = env && *env ? env : defaultPluginPath();
    auto fail = [&](const std::string &why) -> Expected<MlirPluginV2> {
      return Error{"",
                   "module text needs the MLIR 19 canonicaliser, which could "
                   "not be loaded from " +
                       (path.empty() ? std::string("(unknown path)") : path) +
                       ": " + why +
                       " (set CACHEKEY_MLIR_PLUGIN to its path, or give "
                       "module.entry1_b64 instead)",
                   ErrorCode::NoMlir};
    };
    if (path.empty())
      return fail("the executable's directory is unknown");
    // A path with no '/' would go through the library search path; this
    // names a file, relative to the working directory if need be.
    if (path.find('/') == std::string::npos)
      path = "./" + path;
    void *handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
      // dlerror() starts with the path, which the message names already.
      const char *e = dlerror();
      std::string why = e ? e : "dlopen failed";
      if (startsWith(why, path + ": "))
        why.erase(0, path.size() + 2);
      return fail(why);
    }
    MlirPluginV2 plugin;
    if (auto v2 = reinterpret_cast<PluginEntryV2>(
            dlsym(handle, "cachekey_mlir_plugin_v2"))) {
      v2(&plugin);
    } else {
      auto v1 = reinterpret_cast<PluginEntryV1>(
          dlsym(handle, "cachekey_mlir_plugin_v1"));
      if (!v1)
        return fail("it has neither cachekey_mlir_plugin_v2 nor "
                    "cachekey_mlir_plugin_v1");
      v1(&plugin.canonicalize);
    }
    if (!plugin.canonicalize)
      return fail("its plugin entry gave no canonicaliser");
    return plugin; // the handle stays open for the process's life
  }();
  return loaded;
}

Expected<ComputationEntry> lazyCanonicalize(const ModuleSpec &module,
                                            Profile profile) {
  const Expected<MlirPluginV2> &plugin = loadedPlugin();
  if (!plugin)
    return plugin.error();
  return plugin->canonicalize(module, profile);
}

Expected<ModuleDiff> lazyDiffModules(const std::string &before,
                                     const std::string &after) {
  const Expected<MlirPluginV2> &plugin = loadedPlugin();
  if (!plugin)
    return plugin.error();
  if (!plugin->diffModules)
    return Error{"", "the MLIR plugin is version 1: it has no module diff",
                 ErrorCode::NoMlir};
  return plugin->diffModules(before, after);
}

} // namespace

void registerLazyMlirCanonicalizer() {
  setCanonicalizer(&lazyCanonicalize);
  setModuleDiffer(&lazyDiffModules);
}

} // namespace cachekey
