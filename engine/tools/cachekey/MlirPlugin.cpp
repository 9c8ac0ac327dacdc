//===- MlirPlugin.cpp - Loading the MLIR canonicaliser on demand ----------===//
#include "MlirPlugin.h"

#include "cachekey/Computation.h"

#include <dlfcn.h>
#include <limits.h>
#include <unistd.h>

#include <cstdlib>
#include <optional>
#include <string>

namespace cachekey {
namespace {

using PluginEntry = void (*)(Canonicalizer *);

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

/// The plugin's canonicaliser, or the error that loading it gave. Loaded
/// once per process.
const Expected<Canonicalizer> &loadedPlugin() {
  static const Expected<Canonicalizer> loaded = []() -> Expected<Canonicalizer> {
    const char *env = std::getenv("CACHEKEY_MLIR_PLUGIN");
    std::string path = env && *env ? env : defaultPluginPath();
    auto fail = [&](const std::string &why) -> Expected<Canonicalizer> {
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
      if (why.rfind(path + ": ", 0) == 0)
        why.erase(0, path.size() + 2);
      return fail(why);
    }
    auto entry = reinterpret_cast<PluginEntry>(
        dlsym(handle, "cachekey_mlir_plugin_v1"));
    if (!entry)
      return fail("it has no cachekey_mlir_plugin_v1");
    Canonicalizer canonicalizer = nullptr;
    entry(&canonicalizer);
    if (!canonicalizer)
      return fail("its cachekey_mlir_plugin_v1 gave no canonicaliser");
    return canonicalizer; // the handle stays open for the process's life
  }();
  return loaded;
}

Expected<ComputationEntry> lazyCanonicalize(const ModuleSpec &module,
                                            Profile profile) {
  const Expected<Canonicalizer> &plugin = loadedPlugin();
  if (!plugin)
    return plugin.error();
  return (*plugin)(module, profile);
}

} // namespace

void registerLazyMlirCanonicalizer() { setCanonicalizer(&lazyCanonicalize); }

} // namespace cachekey
