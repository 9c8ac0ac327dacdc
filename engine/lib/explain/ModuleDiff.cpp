//===- ModuleDiff.cpp - Module changes → findings in JAX's terms ----------===//
//
// No MLIR here: the changes come from engine/mlir/lib/ModuleDiff.cpp (or any
// differ installed with setModuleDiffer); this file only groups them.
//
//===----------------------------------------------------------------------===//
#include "cachekey/ModuleDiff.h"
#include "cachekey/StringExtras.h"

#include <algorithm>
#include <map>
#include <set>

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
  case C::RandomBits: return "random_bits";
  case C::Checkpoint: return "checkpoint";
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

/// Whether `func` is one of jax.random's jitted helpers, which JAX lowers as
/// private functions of their Python name: the distributions of
/// jax/_src/random.py (jax/_src/random/ from 0.11 on) and the bit
/// generators of jax/_src/prng.py (threefry, philox, rbg). Names read from
/// the jit-decorated `def`s of jax 0.10.2 and 0.12.0.1.
bool isRandomHelper(const std::string &func) {
  static const std::set<std::string> kDistributions = {
      "_ball", "_bernoulli", "_beta", "_binomial", "_binomial_inversion",
      "_btrs", "_cauchy", "_chisquare", "_dirichlet", "_double_sided_maxwell",
      "_exponential", "_f", "_gamma", "_gamma_approx", "_generalized_normal",
      "_geometric", "_gumbel", "_laplace", "_logistic", "_lognormal",
      "_maxwell", "_multivariate_normal", "_normal", "_normal_real",
      "_orthogonal", "_pareto", "_poisson", "_poisson_approx",
      "_poisson_knuth", "_poisson_rejection", "_rademacher", "_randint",
      "_rayleigh", "_shuffle", "_t", "_triangular", "_truncated_normal",
      "_uniform", "_wald", "_weibull_min"};
  for (const char *generator : {"_threefry", "threefry", "_philox", "philox",
                                "_rbg", "_unsafe_rbg"})
    if (startsWith(func, generator))
      return true;
  return kDistributions.count(func) > 0;
}

bool isRandomOp(const std::string &op) {
  return op == "stablehlo.rng_bit_generator" || op == "stablehlo.rng";
}

bool isOpChange(const ModuleChange &c) {
  using K = ModuleChange::Kind;
  return c.kind == K::OpAdded || c.kind == K::OpRemoved ||
         c.kind == K::OperandsChanged;
}

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

/// Whether `func` is random-bit code: a jax.random helper, or a function
/// that only such code calls (memoised in `seen`; a cycle counts as not).
bool isRandomCode(const std::string &func, const ModuleCallers &callers,
                  std::map<std::string, int> &seen) {
  if (isRandomHelper(func))
    return true;
  auto it = callers.find(func);
  if (it == callers.end() || it->second.empty())
    return false;
  auto [memo, fresh] = seen.try_emplace(func, -1);
  if (!fresh)
    return memo->second == 1;
  bool all = std::all_of(it->second.begin(), it->second.end(),
                         [&](const std::string &caller) {
                           return isRandomCode(caller, callers, seen);
                         });
  seen[func] = all ? 1 : 0;
  return all;
}

/// The finding a change belongs to, before the locations-only rule.
ModuleFinding::Code classify(const ModuleChange &c, bool randomCode) {
  using K = ModuleChange::Kind;
  using C = ModuleFinding::Code;
  if (c.kind != K::Locations && c.kind != K::FunctionAdded &&
      c.kind != K::FunctionRemoved && (randomCode || isRandomOp(c.op)))
    return C::RandomBits;
  switch (c.kind) {
  case K::ConstantChanged:
    return C::BakedConstant;
  case K::AttributeChanged:
    if (c.attr == "precision_config")
      return C::MatmulPrecision;
    if (isShardingAttr(c.attr) || isShardingOp(c.op))
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

/// The functions whose changes the whole-diff rules take (see
/// interpretModuleChanges): `retyped` when @main's argument types changed
/// and a function's added and removed operations are the same kinds;
/// `barrier` where an optimization_barrier came, went or was rewired.
struct FunctionRules {
  bool mainArgs = false;
  std::set<std::string> retyped, barrier;
};

FunctionRules functionRules(const std::vector<ModuleChange> &changes) {
  using K = ModuleChange::Kind;
  FunctionRules r;
  std::map<std::string, std::map<std::string, long>> balance;
  for (const auto &c : changes) {
    r.mainArgs = r.mainArgs || (c.kind == K::ArgType && c.func == "main");
    if (c.kind == K::OpAdded || c.kind == K::OpRemoved) {
      long &n = balance[c.func][c.op + "@" + c.target];
      n += c.kind == K::OpAdded ? 1 : -1;
    }
    if (isOpChange(c) && c.op == "stablehlo.optimization_barrier")
      r.barrier.insert(c.func);
  }
  if (r.mainArgs)
    for (const auto &[func, ops] : balance)
      if (std::all_of(ops.begin(), ops.end(), [](auto &o) { return o.second == 0; }))
        r.retyped.insert(func);
  return r;
}

/// Whether `c` only follows from @main's new argument types.
bool isRetyped(const FunctionRules &r, const ModuleChange &c) {
  using K = ModuleChange::Kind;
  if (!r.mainArgs)
    return false;
  switch (c.kind) {
  case K::ResultType:
    return true;
  case K::ArgType:
    return c.func != "main";
  case K::OpAdded:
  case K::OpRemoved:
    return r.retyped.count(c.func) > 0;
  default:
    return false;
  }
}

} // namespace

std::vector<ModuleFinding> interpretModuleChanges(
    const std::vector<ModuleChange> &changes, const ModuleCallers &callers) {
  using C = ModuleFinding::Code;
  std::vector<ModuleFinding> out;
  if (changes.empty())
    return out;
  bool onlyLocations = std::all_of(changes.begin(), changes.end(), [](auto &c) {
    return c.kind == ModuleChange::Kind::Locations;
  });
  constexpr int kCodes = static_cast<int>(C::Structural) + 1;
  std::vector<ModuleFinding> byCode(kCodes);
  FunctionRules rules = functionRules(changes);
  std::map<std::string, int> randomSeen;
  size_t retyped = 0;
  for (const auto &c : changes) {
    if (isRetyped(rules, c)) {
      ++retyped;
      continue;
    }
    C code = rules.barrier.count(c.func) && isOpChange(c)
                 ? C::Checkpoint
                 : classify(c, isRandomCode(c.func, callers, randomSeen));
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
  types.retyped = retyped;
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
