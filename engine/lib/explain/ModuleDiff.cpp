//===- ModuleDiff.cpp - Module changes → findings in JAX's terms ----------===//
//
// No MLIR here: the changes come from engine/mlir/lib/ModuleDiff.cpp (or any
// differ installed with setModuleDiffer); this file only groups them.
//
//===----------------------------------------------------------------------===//
#include "cachekey/ModuleDiff.h"
#include "cachekey/StringExtras.h"

#include <algorithm>

namespace cachekey {

static ModuleDiffer gModuleDiffer = nullptr;

void setModuleDiffer(ModuleDiffer differ) { gModuleDiffer = differ; }

ModuleDiffer moduleDiffer() { return gModuleDiffer; }

const char *moduleChangeKindName(ModuleChange::Kind kind) {
  using K = ModuleChange::Kind;
  switch (kind) {
  case K::ConstantChanged: return "constant_changed";
  case K::AttributeChanged: return "attribute_changed";
  case K::CustomCallTarget: return "custom_call_target";
  case K::CustomCallConfig: return "custom_call_config";
  case K::OpAdded: return "op_added";
  case K::OpRemoved: return "op_removed";
  case K::OperandsChanged: return "operands_changed";
  case K::FunctionAdded: return "function_added";
  case K::FunctionRemoved: return "function_removed";
  case K::ArgType: return "arg_type";
  case K::ResultType: return "result_type";
  case K::ArgCount: return "arg_count";
  case K::ResultCount: return "result_count";
  case K::ArgAttribute: return "arg_attribute";
  case K::ResultAttribute: return "result_attribute";
  case K::ModuleAttribute: return "module_attribute";
  case K::Locations: return "locations";
  }
  return "unknown";
}

const char *moduleFindingCodeName(ModuleFinding::Code code) {
  using C = ModuleFinding::Code;
  switch (code) {
  case C::MatmulPrecision: return "matmul_precision";
  case C::Donation: return "donation";
  case C::Sharding: return "sharding";
  case C::ArgumentTypes: return "argument_types";
  case C::CustomCall: return "custom_call";
  case C::BakedConstant: return "baked_constant";
  case C::MetadataInKey: return "metadata_in_key";
  case C::Structural: return "structural";
  }
  return "unknown";
}

namespace {

bool isShardingAttr(const std::string &name) {
  return name == "mhlo.sharding" || name == "mhlo.num_partitions" ||
         name == "mhlo.num_replicas" || name == "mhlo.frontend_attributes" ||
         startsWith(name, "sdy.") || name == "mhlo.spmd_output_sharding" ||
         name == "mhlo.spmd_parameters_shardings";
}

bool isShardingOp(const std::string &op) { return startsWith(op, "sdy."); }

/// "tensor<4xf32>" → "f32"; the element type of a ranked tensor.
std::string elementType(const std::string &type) {
  size_t lt = type.find('<'), gt = type.rfind('>');
  std::string inner = lt == std::string::npos || gt == std::string::npos
                          ? type
                          : type.substr(lt + 1, gt - lt - 1);
  size_t x = inner.rfind('x');
  std::string e = x == std::string::npos ? inner : inner.substr(x + 1);
  size_t comma = e.find(',');
  return comma == std::string::npos ? e : e.substr(0, comma);
}

/// The finding a change belongs to, before the locations-only rule.
ModuleFinding::Code classify(const ModuleChange &c) {
  using K = ModuleChange::Kind;
  using C = ModuleFinding::Code;
  switch (c.kind) {
  case K::ConstantChanged:
    return C::BakedConstant;
  case K::AttributeChanged:
    if (c.attr == "precision_config")
      return C::MatmulPrecision;
    if (isShardingAttr(c.attr))
      return C::Sharding;
    return C::Structural;
  case K::CustomCallTarget:
  case K::CustomCallConfig:
    return C::CustomCall;
  case K::OpAdded:
  case K::OpRemoved:
    if (c.op == "stablehlo.custom_call")
      return isShardingAttr(c.target) || c.target == "Sharding" ||
                     startsWith(c.target, "SPMD")
                 ? C::Sharding
                 : C::CustomCall;
    return isShardingOp(c.op) ? C::Sharding : C::Structural;
  case K::ArgAttribute:
  case K::ResultAttribute:
    if (c.attr == "tf.aliasing_output" || c.attr == "jax.buffer_donor")
      return C::Donation;
    if (isShardingAttr(c.attr))
      return C::Sharding;
    return C::Structural;
  case K::ModuleAttribute:
    return isShardingAttr(c.attr) ? C::Sharding : C::Structural;
  case K::ArgType:
    return c.func == "main" ? C::ArgumentTypes : C::Structural;
  case K::Locations:
    return C::MetadataInKey;
  default:
    return C::Structural;
  }
}

} // namespace

std::vector<ModuleFinding> interpretModuleChanges(
    const std::vector<ModuleChange> &changes) {
  using C = ModuleFinding::Code;
  std::vector<ModuleFinding> out;
  if (changes.empty())
    return out;
  bool onlyLocations = std::all_of(changes.begin(), changes.end(), [](auto &c) {
    return c.kind == ModuleChange::Kind::Locations;
  });
  constexpr int kCodes = static_cast<int>(C::Structural) + 1;
  std::vector<ModuleFinding> byCode(kCodes);
  for (const auto &c : changes) {
    C code = classify(c);
    // Locations beside other changes are part of them, not the cause.
    if (code == C::MetadataInKey && !onlyLocations)
      continue;
    ModuleFinding &f = byCode[static_cast<int>(code)];
    f.code = code;
    if (f.changes.size() < kMaxChangesPerFinding)
      f.changes.push_back(c);
    ++f.total;
  }
  // The maximal mesh a host callback is placed on (sdy.mesh
  // @maximal_mesh_N) comes and goes with the callback.
  ModuleFinding &calls = byCode[static_cast<int>(C::CustomCall)];
  ModuleFinding &shard = byCode[static_cast<int>(C::Sharding)];
  if (calls.total && shard.total && shard.total == shard.changes.size() &&
      std::all_of(shard.changes.begin(), shard.changes.end(), [](auto &c) {
        return (c.kind == ModuleChange::Kind::OpAdded ||
                c.kind == ModuleChange::Kind::OpRemoved) &&
               c.op == "sdy.mesh" && startsWith(c.attr, "maximal_mesh");
      })) {
    for (auto &c : shard.changes)
      if (calls.changes.size() < kMaxChangesPerFinding)
        calls.changes.push_back(std::move(c));
    calls.total += shard.total;
    shard = ModuleFinding{};
  }
  ModuleFinding &types = byCode[static_cast<int>(C::ArgumentTypes)];
  if (types.total) {
    bool widened = types.total == types.changes.size();
    for (const auto &c : types.changes)
      widened = widened && elementType(c.before).size() > 1 &&
                elementType(c.before)[0] == 'f' &&
                elementType(c.before).substr(1) == "32" &&
                elementType(c.after) == "f64";
    types.x64 = widened;
  }
  for (auto &f : byCode)
    if (f.total)
      out.push_back(std::move(f));
  return out;
}

} // namespace cachekey
