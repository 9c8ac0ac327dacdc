//===- ModuleDiffWording.cpp - The words and JSON of module findings ------===//
//
// The one wording module of the module-diff family: every sentence about a
// ModuleChange or a ModuleFinding is written here, from its fields.
//
//===----------------------------------------------------------------------===//
#include "cachekey/English.h"
#include "cachekey/ModuleDiff.h"

#include <map>

namespace cachekey {

namespace {

const std::string kArrow = " \u2192 ";

std::string orAbsent(const std::string &v) { return v.empty() ? "(absent)" : v; }

std::string inFunc(const ModuleChange &c) {
  return c.func.empty() ? "" : " in @" + c.func;
}

std::string opWithTarget(const ModuleChange &c) {
  return c.target.empty() ? c.op : c.op + " @" + c.target;
}

/// "2 operations added: stablehlo.sort, stablehlo.add (2)".
std::string opSummary(const std::vector<ModuleChange> &changes,
                      ModuleChange::Kind kind, const char *verb) {
  std::map<std::string, size_t> counts;
  std::vector<std::string> order;
  size_t n = 0;
  for (const auto &c : changes)
    if (c.kind == kind) {
      std::string k = opWithTarget(c);
      if (!counts[k]++)
        order.push_back(k);
      ++n;
    }
  if (!n)
    return "";
  std::string s = plural(n, "operation", "operations") + " " +
                  verb + ": ";
  for (size_t i = 0; i < order.size(); ++i) {
    if (i)
      s += ", ";
    s += order[i];
    if (counts[order[i]] > 1)
      s += " (" + std::to_string(counts[order[i]]) + ")";
  }
  return s;
}

/// The first change's clause, and "and N more" for the rest.
std::string examples(const ModuleFinding &f, size_t shown = 2) {
  std::string s;
  for (size_t i = 0; i < f.changes.size() && i < shown; ++i)
    s += (i ? "; " : "") + moduleChangeText(f.changes[i]);
  if (f.total > shown)
    s += " (and " + std::to_string(f.total - shown) + " more)";
  return s;
}

} // namespace

std::string moduleChangeText(const ModuleChange &c) {
  using K = ModuleChange::Kind;
  std::string idx = std::to_string(c.index);
  switch (c.kind) {
  case K::ConstantChanged:
    return c.op + inFunc(c) + ": value " + c.before + kArrow + c.after;
  case K::AttributeChanged:
    return c.op + inFunc(c) + ": " + c.attr + " " + orAbsent(c.before) +
           kArrow + orAbsent(c.after);
  case K::CustomCallTarget:
    return "stablehlo.custom_call" + inFunc(c) + ": call_target_name " +
           orAbsent(c.before) + kArrow + orAbsent(c.after);
  case K::CustomCallConfig:
    return "stablehlo.custom_call @" + c.target + inFunc(c) + ": " + c.attr +
           " changed";
  case K::OpAdded:
    return opWithTarget(c) + " added" + inFunc(c);
  case K::OpRemoved:
    return opWithTarget(c) + " removed" + inFunc(c);
  case K::OperandsChanged:
    return c.op + inFunc(c) + " takes other operands";
  case K::FunctionAdded:
    return "function @" + c.func + " added";
  case K::FunctionRemoved:
    return "function @" + c.func + " removed";
  case K::ArgType:
    return "argument " + idx + " of @" + c.func + ": " + c.before + kArrow +
           c.after;
  case K::ResultType:
    return "result " + idx + " of @" + c.func + ": " + c.before + kArrow +
           c.after;
  case K::ArgCount:
    return "@" + c.func + " takes " + c.before + kArrow + c.after +
           " arguments";
  case K::ResultCount:
    return "@" + c.func + " returns " + c.before + kArrow + c.after +
           " results";
  case K::ArgAttribute:
    return "argument " + idx + " of @" + c.func + ": " + c.attr + " " +
           orAbsent(c.before) + kArrow + orAbsent(c.after);
  case K::ResultAttribute:
    return "result " + idx + " of @" + c.func + ": " + c.attr + " " +
           orAbsent(c.before) + kArrow + orAbsent(c.after);
  case K::ModuleAttribute:
    return "module attribute " + c.attr + " " + orAbsent(c.before) + kArrow +
           orAbsent(c.after);
  case K::Locations:
    return plural(c.count, "location", "locations") + agree(c.count, " differs", " differ") +
           " (source file, line or name), nothing else";
  }
  return "";
}

std::string moduleFindingAdvice(const ModuleFinding &f) {
  using C = ModuleFinding::Code;
  switch (f.code) {
  case C::MatmulPrecision:
    return "Set the same jax_default_matmul_precision (or JAX_DEFAULT_MATMUL_"
           "PRECISION) in both runs, or pass the same precision= to the "
           "matmul-like calls.";
  case C::Donation:
    return "Use the same donate_argnums (or donate_argnames) in both runs.";
  case C::Sharding:
    return "Run with the same device count and mesh, the same in_shardings "
           "and out_shardings, and the same jax_use_shardy_partitioner.";
  case C::ArgumentTypes:
    return f.x64 ? "Set jax_enable_x64 (JAX_ENABLE_X64) the same way in both "
                   "runs."
                 : "Call the function with arguments of the same shapes and "
                   "dtypes (pad or bucket shapes that vary).";
  case C::RandomBits:
    return "Set jax_threefry_partitionable and jax_default_prng_impl the "
           "same way in both runs (jax_threefry_partitionable is False by "
           "default in jax 0.4.30 and True from 0.6.2 on, so an upgrade "
           "across them changes it), and keep the jax.random calls the same.";
  case C::Checkpoint:
    return "Use the same checkpoint policy (the policy= of jax.checkpoint or "
           "jax.remat) and the same code under it in both runs.";
  case C::CustomCall:
    return "Keep the host callbacks (jax.pure_callback, io_callback, "
           "jax.debug.print) and the Pallas or Mosaic kernels the same; a "
           "changed kernel is a changed program.";
  case C::BakedConstant:
    return "Pass the value as a traced argument instead of closing over it "
           "(or as a static argument, static_argnums, only if a new "
           "compilation per value is intended).";
  case C::MetadataInKey:
    return "Turn off metadata in the key (jax_compilation_cache_include_"
           "metadata_in_key / JAX_COMPILATION_CACHE_INCLUDE_METADATA_IN_KEY) "
           "or keep the source lines where they are.";
  case C::Structural:
    return "The traced program itself differs: compare the code and the "
           "settings that shape it in the two runs.";
  }
  return "";
}

std::string moduleFindingText(const ModuleFinding &f) {
  using C = ModuleFinding::Code;
  switch (f.code) {
  case C::MatmulPrecision:
    return "the matmul precision changed (" + examples(f, 1) +
           "): jax_default_matmul_precision or a precision= argument differs";
  case C::Donation:
    return "buffer donation changed (" + examples(f) +
           "): donate_argnums differs";
  case C::Sharding:
    return "the sharding changed (" + examples(f) +
           "): the mesh, the device count or the partitioner differs";
  case C::ArgumentTypes:
    return "the argument shapes or dtypes changed (" + examples(f, 3) + ")" +
           (f.x64 ? ": every float widened f32 \u2192 f64, as jax_enable_x64 "
                    "does"
                  : "") +
           (f.retyped ? "; " + plural(f.retyped, "operation or result", "operations and results") +
                            " only took the new types"
                      : "");
  case C::RandomBits:
    return "the random-bit generation changed (" + examples(f) +
           "): jax_threefry_partitionable or jax_default_prng_impl differs, "
           "or the jax.random calls do";
  case C::Checkpoint:
    return "the rematerialization changed (" + examples(f) +
           "): the checkpoint policy of jax.checkpoint (jax.remat), or the "
           "code under it, differs";
  case C::CustomCall:
    return "a custom_call changed (" + examples(f) +
           "): a host callback or a Pallas or Mosaic kernel differs";
  case C::BakedConstant:
    return "a constant in the program changed (" + examples(f) +
           "): a Python value (a static argument, a closure or a global) was "
           "baked in at trace time";
  case C::MetadataInKey:
    return "only locations differ (" +
           std::to_string(f.changes.empty() ? 0 : f.changes[0].count) +
           " operations or functions moved in the source, nothing else): "
           "metadata is in the key, so moved source lines change it";
  case C::Structural: {
    std::vector<std::string> parts;
    for (auto [kind, verb] :
         {std::pair{ModuleChange::Kind::OpAdded, "added"},
          std::pair{ModuleChange::Kind::OpRemoved, "removed"}}) {
      std::string s = opSummary(f.changes, kind, verb);
      if (!s.empty())
        parts.push_back(s);
    }
    size_t other = 0;
    const ModuleChange *first = nullptr;
    for (const auto &c : f.changes)
      if (c.kind != ModuleChange::Kind::OpAdded &&
          c.kind != ModuleChange::Kind::OpRemoved) {
        ++other;
        if (!first)
          first = &c;
      }
    if (first)
      parts.push_back(moduleChangeText(*first) +
                      (other > 1 ? " (and " + std::to_string(other - 1) +
                                       " other changes)"
                                 : ""));
    std::string s = "the program's structure changed: ";
    for (size_t i = 0; i < parts.size(); ++i)
      s += (i ? "; " : "") + parts[i];
    if (f.total > f.changes.size())
      s += " (" + std::to_string(f.total) + " changes in all)";
    return s;
  }
  }
  return "";
}

Json moduleChangeToJson(const ModuleChange &c) {
  Json j{{"code", moduleChangeKindName(c.kind)}};
  for (auto [k, v] : {std::pair{"func", &c.func}, {"op", &c.op},
                      {"attr", &c.attr}, {"target", &c.target},
                      {"before", &c.before}, {"after", &c.after}})
    if (!v->empty())
      j[k] = *v;
  if (c.index >= 0)
    j["index"] = c.index;
  if (c.count)
    j["count"] = c.count;
  j["text"] = moduleChangeText(c);
  return j;
}

Json moduleFindingToJson(const ModuleFinding &f) {
  Json changes = Json::array();
  for (const auto &c : f.changes)
    changes.push_back(moduleChangeToJson(c));
  return Json{{"code", moduleFindingCodeName(f.code)},
              {"changes", std::move(changes)},
              {"total", f.total},
              {"x64", f.x64},
              {"retyped", f.retyped},
              {"advice", moduleFindingAdvice(f)},
              {"text", moduleFindingText(f)}};
}

Json moduleDiffToJson(const ModuleDiff &d) {
  Json findings = Json::array(), changes = Json::array();
  for (const auto &f : d.findings)
    findings.push_back(moduleFindingToJson(f));
  for (const auto &c : d.changes)
    changes.push_back(moduleChangeToJson(c));
  return Json{{"same", d.same},
              {"ops_before", d.opsBefore},
              {"ops_after", d.opsAfter},
              {"findings", std::move(findings)},
              {"changes", std::move(changes)}};
}

} // namespace cachekey
