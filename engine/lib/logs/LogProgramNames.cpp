//===- LogProgramNames.cpp - The programs JAX compiles itself, by name ------===//
//
// JAX jits some programs itself when an operation runs outside jit (a lax
// primitive applied eagerly, a private helper of jax.random or jax.numpy):
// their names say so. The evidence (LogEvidence.cpp) and the pairing read
// a move of such a program otherwise than one of the user's.
//
//===----------------------------------------------------------------------===//
#include "LogFacts.h"

#include "cachekey/StringExtras.h"

#include <algorithm>
#include <iterator>
#include <string_view>

namespace cachekey::logs {

namespace {

/// Whether `name` is one of `list`'s (views: most are ruled out by their
/// size, with no strlen per name; the pairing asks this of every program).
template <size_t N>
bool listed(std::string_view name, const std::string_view (&list)[N]) {
  return std::any_of(std::begin(list), std::end(list),
                     [&](std::string_view p) { return name == p; });
}

/// The programs JAX compiled by itself when its functions ran outside jit
/// (every public callable of jax.numpy, jax.lax, jax.nn and jax.random
/// called eagerly), in jax 0.4.30, 0.10.2 and 0.12.0.1: measured by
/// tools/jax_own_programs.py (fixtures/jax_own_programs/), sorted.
constexpr std::string_view kMeasured[] = {
#include "JaxOwnPrograms.inc"
};

constexpr bool sortedUnique(const std::string_view *list, size_t n) {
  for (size_t i = 1; i < n; ++i)
    if (!(list[i - 1] < list[i]))
      return false;
  return true;
}
static_assert(sortedUnique(kMeasured, std::size(kMeasured)),
              "JaxOwnPrograms.inc is sorted (tools/jax_own_programs.py --cpp)");

} // namespace

bool isJaxOwnProgram(std::string_view name) {
  if (std::binary_search(std::begin(kMeasured), std::end(kMeasured), name))
    return true;
  // Beyond the measured ones, the programs JAX jits itself when an
  // operation runs outside jit: lax primitives applied eagerly and jax's
  // private helpers (jit__linspace,
  // jit__threefry_seed, jit__reduce_sum: a leading underscore, and a name
  // of kHelpers).
  static constexpr std::string_view kPrimitives[] = {
      "jit_broadcast_in_dim", "jit_convert_element_type", "jit_iota",
      "jit_concatenate", "jit_reshape", "jit_squeeze", "jit_transpose",
      "jit_dynamic_slice", "jit_dynamic_update_slice", "jit_gather",
      "jit_scatter", "jit_select_n", "jit_pad", "jit_add", "jit_sub",
      "jit_mul", "jit_div", "jit_neg", "jit_sin", "jit_cos", "jit_exp",
      "jit_log", "jit_sqrt", "jit_tanh", "jit_integer_pow", "jit_pow",
      "jit_max", "jit_min", "jit_eq", "jit_ne", "jit_lt", "jit_gt",
      "jit_copy", "jit_device_put", "jit_clamp", "jit_reduce_sum",
      "jit_reduce_max", "jit_argmax", "jit_cumsum", "jit_sort",
      "jit_dot_general", "jit_random_bits", "jit_random_wrap",
      "jit_random_unwrap", "jit_random_seed", "jit_random_split",
      "jit_threefry2x32", "jit_ravel"};
  // JAX's private helpers that it jits itself (jax/_src/random, prng.py,
  // numpy/*.py of 0.4.30 to 0.12.0.1: functions under @jit / @partial(jit,
  // …) whose names start with '_'). A user's own private function, lambda
  // or __call__ is named the same way (jit__update, jit__lambda,
  // jit___call), so the prefix alone says nothing.
  static constexpr std::string_view kHelpers[] = {
      "argmax", "argmin", "average", "bernoulli", "beta", "binomial", "cauchy",
      "chisquare", "conv", "cumsum_with_promotion", "diag", "dirichlet",
      "exponential", "flip", "gamma", "geomspace", "gumbel", "laplace",
      "linspace", "logistic", "lognormal", "logspace", "mean", "moveaxis",
      "multi_slice", "multivariate_normal", "nanargmax", "nanargmin", "normal",
      "normal_real", "pad", "pareto", "permutation", "piecewise", "poisson",
      "power", "ptp", "rademacher", "randint", "random_bits", "reduce_all",
      "reduce_any", "reduce_logical_and", "reduce_logical_or", "reduce_max",
      "reduce_min", "reduce_minmax", "reduce_prod", "reduce_sum",
      "roll_dynamic", "roll_static", "shuffle", "split", "fold_in", "squeeze",
      "std", "t", "take", "threefry_fold_in", "threefry_random_bits",
      "threefry_random_bits_original", "threefry_seed", "threefry_split",
      "threefry_split_foldlike", "threefry_split_original", "triangular",
      "truncated_normal", "uniform", "var", "wald", "weibull_min", "where"};
  if (startsWith(name, "jit__"))
    return listed(name.substr(5), kHelpers);
  return listed(name, kPrimitives);
}

/// JAX's eager programs of the elementwise primitives without parameters:
/// their module is their argument shapes and types and nothing else.
bool isElementwisePrimitive(std::string_view name) {
  static constexpr std::string_view kElementwise[] = {
      "jit_add", "jit_sub", "jit_mul", "jit_div", "jit_neg", "jit_sin",
      "jit_cos", "jit_exp", "jit_log", "jit_sqrt", "jit_tanh", "jit_pow",
      "jit_max", "jit_min", "jit_eq", "jit_ne", "jit_lt", "jit_gt",
      "jit_copy", "jit_clamp"};
  return listed(name, kElementwise);
}

} // namespace cachekey::logs
