//===- ModuleDiff.cpp - A structural diff of two MLIR modules -------------===//
#include "cachekey/mlir/ModuleDiff.h"

#include "cachekey/mlir/ModuleIO.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Location.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/Hashing.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <map>
#include <set>

namespace cachekey {

namespace {

using K = ModuleChange::Kind;

constexpr size_t kShortLength = 80;
/// Largest edit distance searched per function (memory is O(D²)); beyond it
/// the unmatched middle counts as removed and added.
constexpr int kMaxEdits = 2000;

/// MLIR's printed form, cut to about kShortLength characters (elided
/// large elements attributes, as the printer's own flag does).
std::string shortPrint(const std::string &s) {
  return s.size() > kShortLength ? s.substr(0, kShortLength - 3) + "..." : s;
}

template <typename T> std::string shortPrint(T value) {
  if (!value)
    return "";
  std::string s;
  llvm::raw_string_ostream os(s);
  value.print(os);
  os.flush();
  if (s.size() > kShortLength)
    s = s.substr(0, kShortLength - 3) + "...";
  return s;
}

/// True for a location the text parser made from its own position (no
/// source file): it says where the text was, not where the program was.
bool isParserPosition(mlir::Location loc) {
  // The parser names its unnamed buffer "-" (MLIR 19) or "".
  if (auto f = llvm::dyn_cast<mlir::FileLineColLoc>(loc))
    return f.getFilename().empty() || f.getFilename() == "-";
  return false;
}

/// The first differing locations of the diff under way (one diff at a
/// time: the engine is single-threaded).
std::string firstLocBefore, firstLocAfter;

bool locationsDiffer(mlir::Location a, mlir::Location b) {
  if (a == b)
    return false;
  if (isParserPosition(a) && isParserPosition(b))
    return false;
  if (firstLocBefore.empty() && firstLocAfter.empty()) {
    llvm::raw_string_ostream oa(firstLocBefore), ob(firstLocAfter);
    a.print(oa);
    b.print(ob);
  }
  return true;
}

std::string targetOf(mlir::Operation *op) {
  if (auto t = op->getAttrOfType<mlir::StringAttr>("call_target_name"))
    return t.getValue().str();
  return "";
}

/// The structural key an alignment matches on.
size_t keyOf(mlir::Operation *op) {
  llvm::hash_code h = llvm::hash_value(op->getName().getStringRef());
  for (mlir::Type t : op->getOperandTypes())
    h = llvm::hash_combine(h, t.getAsOpaquePointer());
  h = llvm::hash_combine(h, llvm::hash_value(op->getNumResults()));
  for (mlir::Type t : op->getResultTypes())
    h = llvm::hash_combine(h, t.getAsOpaquePointer());
  h = llvm::hash_combine(h, op->getNumRegions());
  if (auto t = op->getAttrOfType<mlir::StringAttr>("call_target_name"))
    h = llvm::hash_combine(h, t.getValue());
  return static_cast<size_t>(h);
}

/// Pairs (i, j) of a longest common subsequence of `a` and `b` (Myers'
/// O((N+M)·D) greedy algorithm, common head and tail first; the search
/// keeps each round's diagonals [-d-1, d+1], O(D²) ints in all).
std::vector<std::pair<size_t, size_t>> align(const std::vector<size_t> &a,
                                             const std::vector<size_t> &b) {
  std::vector<std::pair<size_t, size_t>> out;
  size_t n = a.size(), m = b.size(), head = 0;
  while (head < n && head < m && a[head] == b[head])
    out.emplace_back(head, head), ++head;
  size_t tail = 0;
  while (tail < n - head && tail < m - head &&
         a[n - 1 - tail] == b[m - 1 - tail])
    ++tail;
  const int N = static_cast<int>(n - head - tail);
  const int M = static_cast<int>(m - head - tail);
  auto A = [&](int i) { return a[head + i]; };
  auto B = [&](int j) { return b[head + j]; };
  std::vector<std::pair<size_t, size_t>> middle;
  if (N > 0 && M > 0) {
    const int max = std::min(N + M, kMaxEdits);
    const int off = max + 1;
    std::vector<int> v(2 * max + 3, 0);
    // trace[d][k + d + 1]: v[k] at the start of round d, k in [-d-1, d+1].
    std::vector<std::vector<int>> trace;
    int found = -1;
    for (int d = 0; d <= max && found < 0; ++d) {
      trace.emplace_back(v.begin() + (off - d - 1), v.begin() + (off + d + 2));
      for (int k = -d; k <= d; k += 2) {
        int x = (k == -d || (k != d && v[off + k - 1] < v[off + k + 1]))
                    ? v[off + k + 1]
                    : v[off + k - 1] + 1;
        int y = x - k;
        while (x < N && y < M && A(x) == B(y))
          ++x, ++y;
        v[off + k] = x;
        if (x >= N && y >= M) {
          found = d;
          break;
        }
      }
    }
    if (found >= 0) {
      int x = N, y = M;
      for (int d = found; d > 0; --d) {
        const std::vector<int> &trow = trace[d];
        auto pv = [&](int k) { return trow[k + d + 1]; };
        int k = x - y;
        int pk = (k == -d || (k != d && pv(k - 1) < pv(k + 1))) ? k + 1 : k - 1;
        int px = pv(pk), py = px - pk;
        while (x > px && y > py)
          middle.emplace_back(head + --x, head + --y);
        x = px, y = py;
      }
      while (x > 0 && y > 0)
        middle.emplace_back(head + --x, head + --y);
      std::reverse(middle.begin(), middle.end());
    }
  }
  out.insert(out.end(), middle.begin(), middle.end());
  for (size_t t = tail; t > 0; --t)
    out.emplace_back(n - t, m - t);
  return out;
}

struct Differ {
  std::vector<ModuleChange> changes;
  size_t locations = 0;
  size_t opsBefore = 0, opsAfter = 0;

  ModuleChange &add(K kind, const std::string &func) {
    changes.emplace_back();
    changes.back().kind = kind;
    changes.back().func = func;
    return changes.back();
  }

  /// Attribute-by-attribute comparison of two dictionaries, skipping `skip`.
  template <typename F>
  void compareDicts(mlir::DictionaryAttr a, mlir::DictionaryAttr b,
                    const std::set<std::string> &skip, F onChange) {
    std::map<std::string, std::pair<mlir::Attribute, mlir::Attribute>> all;
    if (a)
      for (auto na : a)
        all[na.getName().str()].first = na.getValue();
    if (b)
      for (auto na : b)
        all[na.getName().str()].second = na.getValue();
    for (auto &[name, ab] : all)
      if (ab.first != ab.second && !skip.count(name))
        onChange(name, ab.first, ab.second);
  }

  /// The discardable and inherent attributes, and the properties of an op
  /// whose dialect is not loaded (kept as one dictionary), in one dictionary.
  static mlir::DictionaryAttr allAttributes(mlir::Operation *op) {
    mlir::DictionaryAttr attrs = op->getAttrDictionary();
    auto props =
        llvm::dyn_cast_or_null<mlir::DictionaryAttr>(op->getPropertiesAsAttribute());
    if (!props || props.empty())
      return attrs;
    mlir::NamedAttrList all(props);
    for (auto na : attrs)
      all.set(na.getName(), na.getValue());
    return all.getDictionary(op->getContext());
  }

  void compareOps(mlir::Operation *a, mlir::Operation *b,
                  const std::string &func) {
    std::string op = a->getName().getStringRef().str();
    bool constant = op == "stablehlo.constant" || op == "arith.constant" ||
                    op == "mhlo.constant" || op == "chlo.constant";
    bool customCall = op == "stablehlo.custom_call" || op == "mhlo.custom_call";
    compareDicts(
        allAttributes(a), allAttributes(b), {},
        [&](const std::string &name, mlir::Attribute x, mlir::Attribute y) {
          if (constant && name == "value") {
            auto &c = add(K::ConstantChanged, func);
            c.op = op, c.attr = name;
            c.before = shortPrint(x), c.after = shortPrint(y);
          } else if (customCall && name == "call_target_name") {
            auto &c = add(K::CustomCallTarget, func);
            c.op = op, c.attr = name;
            c.before = targetOf(a), c.after = targetOf(b);
          } else if (customCall &&
                     (name == "backend_config" ||
                      name == "mhlo.backend_config" || name == "api_version")) {
            auto &c = add(K::CustomCallConfig, func);
            c.op = op, c.attr = name, c.target = targetOf(a);
            c.before = shortPrint(x), c.after = shortPrint(y);
          } else {
            auto &c = add(K::AttributeChanged, func);
            c.op = op, c.attr = name;
            c.before = shortPrint(x), c.after = shortPrint(y);
          }
        });
    if (locationsDiffer(a->getLoc(), b->getLoc()))
      ++locations;
  }

  /// Aligns and compares two lists of operations of function `func`.
  /// `where` maps a value to its definer's (position, result) in its list,
  /// or a block argument's (-1 - argument number).
  void compareBodies(const std::vector<mlir::Operation *> &a,
                     const std::vector<mlir::Operation *> &b,
                     const std::string &func) {
    opsBefore += a.size(), opsAfter += b.size();
    std::vector<size_t> ka, kb;
    ka.reserve(a.size()), kb.reserve(b.size());
    for (auto *op : a)
      ka.push_back(keyOf(op));
    for (auto *op : b)
      kb.push_back(keyOf(op));
    auto pairs = align(ka, kb);
    llvm::DenseMap<mlir::Operation *, size_t> posA, posB;
    for (size_t i = 0; i < a.size(); ++i)
      posA[a[i]] = i;
    for (size_t j = 0; j < b.size(); ++j)
      posB[b[j]] = j;
    std::vector<long> matchOfA(a.size(), -1);
    std::vector<bool> matchedB(b.size(), false);
    for (auto [i, j] : pairs)
      matchOfA[i] = static_cast<long>(j), matchedB[j] = true;
    // An operand defined by an added or removed operation moved with it:
    // that is the addition or removal, not a rewiring.
    auto unmatchedA = [&](mlir::Value v) {
      auto *d = v.getDefiningOp();
      auto it = d ? posA.find(d) : posA.end();
      return d && it != posA.end() && matchOfA[it->second] < 0;
    };
    auto unmatchedB = [&](mlir::Value v) {
      auto *d = v.getDefiningOp();
      auto it = d ? posB.find(d) : posB.end();
      return d && it != posB.end() && !matchedB[it->second];
    };
    // Where a value comes from, in the other side's numbering.
    auto sourceA = [&](mlir::Value v) -> std::pair<long, long> {
      if (auto *d = v.getDefiningOp()) {
        auto it = posA.find(d);
        long j = it == posA.end() ? -2 : matchOfA[it->second];
        return {j, llvm::cast<mlir::OpResult>(v).getResultNumber()};
      }
      auto arg = llvm::cast<mlir::BlockArgument>(v);
      return {-1 - static_cast<long>(arg.getArgNumber()), -1};
    };
    auto sourceB = [&](mlir::Value v) -> std::pair<long, long> {
      if (auto *d = v.getDefiningOp()) {
        auto it = posB.find(d);
        long j = it == posB.end() ? -2 : static_cast<long>(it->second);
        return {j, llvm::cast<mlir::OpResult>(v).getResultNumber()};
      }
      auto arg = llvm::cast<mlir::BlockArgument>(v);
      return {-1 - static_cast<long>(arg.getArgNumber()), -1};
    };
    size_t i = 0, j = 0;
    auto opChange = [&](K kind, mlir::Operation *op) {
      auto &c = add(kind, func);
      c.op = op->getName().getStringRef().str();
      c.target = targetOf(op);
      if (auto name = op->getAttrOfType<mlir::StringAttr>("sym_name"))
        c.attr = name.getValue().str();
    };
    for (auto [pi, pj] : pairs) {
      for (; i < pi; ++i)
        opChange(K::OpRemoved, a[i]);
      for (; j < pj; ++j)
        opChange(K::OpAdded, b[j]);
      compareOps(a[pi], b[pj], func);
      bool wired = a[pi]->getNumOperands() == b[pj]->getNumOperands();
      for (unsigned k = 0; wired && k < a[pi]->getNumOperands(); ++k) {
        mlir::Value va = a[pi]->getOperand(k), vb = b[pj]->getOperand(k);
        if (unmatchedA(va) || unmatchedB(vb))
          continue;
        wired = sourceA(va) == sourceB(vb);
      }
      if (!wired)
        opChange(K::OperandsChanged, a[pi]);
      i = pi + 1, j = pj + 1;
    }
    for (; i < a.size(); ++i)
      opChange(K::OpRemoved, a[i]);
    for (; j < b.size(); ++j)
      opChange(K::OpAdded, b[j]);
  }

  static std::vector<mlir::Operation *> bodyOf(mlir::Operation *root) {
    std::vector<mlir::Operation *> ops;
    root->walk<mlir::WalkOrder::PreOrder>([&](mlir::Operation *op) {
      if (op != root)
        ops.push_back(op);
    });
    return ops;
  }

  void compareFuncs(mlir::func::FuncOp a, mlir::func::FuncOp b) {
    std::string name = a.getSymName().str();
    mlir::FunctionType ta = a.getFunctionType(), tb = b.getFunctionType();
    auto sig = [&](K countKind, K typeKind, K attrKind,
                   llvm::ArrayRef<mlir::Type> xs, llvm::ArrayRef<mlir::Type> ys,
                   auto dictA, auto dictB) {
      if (xs.size() != ys.size()) {
        auto &c = add(countKind, name);
        c.before = std::to_string(xs.size()), c.after = std::to_string(ys.size());
      }
      for (size_t k = 0; k < std::min(xs.size(), ys.size()); ++k) {
        if (xs[k] != ys[k]) {
          auto &c = add(typeKind, name);
          c.index = static_cast<int>(k);
          c.before = shortPrint(xs[k]), c.after = shortPrint(ys[k]);
        }
        compareDicts(dictA(k), dictB(k), {},
                     [&](const std::string &attr, mlir::Attribute x,
                         mlir::Attribute y) {
                       auto &c = add(attrKind, name);
                       c.index = static_cast<int>(k), c.attr = attr;
                       c.before = shortPrint(x), c.after = shortPrint(y);
                     });
      }
    };
    sig(K::ArgCount, K::ArgType, K::ArgAttribute, ta.getInputs(),
        tb.getInputs(), [&](size_t k) { return a.getArgAttrDict(k); },
        [&](size_t k) { return b.getArgAttrDict(k); });
    sig(K::ResultCount, K::ResultType, K::ResultAttribute, ta.getResults(),
        tb.getResults(), [&](size_t k) { return a.getResultAttrDict(k); },
        [&](size_t k) { return b.getResultAttrDict(k); });
    compareDicts(a->getAttrDictionary(), b->getAttrDictionary(),
                 {"sym_name", "function_type", "arg_attrs", "res_attrs"},
                 [&](const std::string &attr, mlir::Attribute x,
                     mlir::Attribute y) {
                   auto &c = add(K::AttributeChanged, name);
                   c.op = "func.func", c.attr = attr;
                   c.before = shortPrint(x), c.after = shortPrint(y);
                 });
    if (locationsDiffer(a.getLoc(), b.getLoc()))
      ++locations;
    // Block arguments carry locations too (metadata in the key).
    if (!a.getBody().empty() && !b.getBody().empty())
      for (size_t k = 0; k < std::min(a.getNumArguments(), b.getNumArguments());
           ++k)
        if (locationsDiffer(a.getArgument(k).getLoc(), b.getArgument(k).getLoc()))
          ++locations;
    compareBodies(bodyOf(a), bodyOf(b), name);
  }

  void compareModules(mlir::ModuleOp a, mlir::ModuleOp b) {
    compareDicts(a->getAttrDictionary(), b->getAttrDictionary(), {},
                 [&](const std::string &attr, mlir::Attribute x,
                     mlir::Attribute y) {
                   auto &c = add(K::ModuleAttribute, "");
                   c.attr = attr;
                   c.before = shortPrint(x), c.after = shortPrint(y);
                 });
    std::map<std::string, mlir::func::FuncOp> fa, fb;
    std::vector<std::string> order;
    std::vector<mlir::Operation *> otherA, otherB;
    for (auto &op : *a.getBody())
      if (auto f = llvm::dyn_cast<mlir::func::FuncOp>(op)) {
        fa[f.getSymName().str()] = f;
        order.push_back(f.getSymName().str());
      } else {
        otherA.push_back(&op);
      }
    for (auto &op : *b.getBody())
      if (auto f = llvm::dyn_cast<mlir::func::FuncOp>(op))
        fb[f.getSymName().str()] = f;
      else
        otherB.push_back(&op);
    for (const auto &name : order) {
      auto it = fb.find(name);
      if (it == fb.end())
        add(K::FunctionRemoved, name);
      else
        compareFuncs(fa[name], it->second);
    }
    for (auto &op : *b.getBody())
      if (auto f = llvm::dyn_cast<mlir::func::FuncOp>(op))
        if (!fa.count(f.getSymName().str()))
          add(K::FunctionAdded, f.getSymName().str());
    // Top-level operations other than functions (sdy.mesh, …) and their
    // regions, as one list of the module.
    std::vector<mlir::Operation *> la, lb;
    for (auto *op : otherA) {
      la.push_back(op);
      auto nested = bodyOf(op);
      la.insert(la.end(), nested.begin(), nested.end());
    }
    for (auto *op : otherB) {
      lb.push_back(op);
      auto nested = bodyOf(op);
      lb.insert(lb.end(), nested.begin(), nested.end());
    }
    compareBodies(la, lb, "");
  }
};

} // namespace

Expected<ModuleDiff> diffModules(const std::string &before,
                                 const std::string &after) {
  firstLocBefore.clear(), firstLocAfter.clear();
  auto context = makeMlirContext();
  auto a = parseMlirModule(*context, before);
  if (!a)
    return Error{"", "module A: " + a.error().message};
  auto b = parseMlirModule(*context, after);
  if (!b)
    return Error{"", "module B: " + b.error().message};
  Differ d;
  d.compareModules(**a, **b);
  if (d.locations) {
    auto &c = d.add(K::Locations, "");
    c.count = d.locations;
    c.before = shortPrint(firstLocBefore), c.after = shortPrint(firstLocAfter);
  }
  firstLocBefore.clear(), firstLocAfter.clear();
  ModuleDiff out;
  out.opsBefore = d.opsBefore, out.opsAfter = d.opsAfter;
  out.changes = std::move(d.changes);
  out.same = out.changes.empty();
  for (mlir::ModuleOp m : {**a, **b})
    m.walk([&](mlir::func::CallOp call) {
      if (auto caller = call->getParentOfType<mlir::func::FuncOp>())
        out.callers[call.getCallee().str()].insert(caller.getSymName().str());
    });
  out.findings = interpretModuleChanges(out.changes, out.callers);
  return out;
}

void registerMlirModuleDiffer() { setModuleDiffer(&diffModules); }

} // namespace cachekey
