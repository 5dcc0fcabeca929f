//===- DistParameters.h - Finding the parameters of a function --*- C++ -*-===//
//
// A function reads a `dist.parameter` through an argument carrying the
// argument attribute `dist.parameter = @name`. These helpers are how later
// passes (autodiff, optimizer, sharding, checkpointing) find them.
//
//===----------------------------------------------------------------------===//

#ifndef DIALECTS_DIST_IR_DISTPARAMETERS_H
#define DIALECTS_DIST_IR_DISTPARAMETERS_H

#include "dialects/Dist/IR/DistOps.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/DenseSet.h"

namespace mlir::dist {

/// The symbol that argument `argIndex` of `fn` is bound to, or null when the
/// argument is not a parameter.
FlatSymbolRefAttr getParameterRef(FunctionOpInterface fn, unsigned argIndex);

/// The `dist.parameter` that argument `argIndex` of `fn` reads, or null.
ParameterOp lookupParameter(FunctionOpInterface fn, unsigned argIndex,
                            SymbolTableCollection &symbols);

/// Binds argument `argIndex` of `fn` to `param`.
void bindParameter(FunctionOpInterface fn, unsigned argIndex,
                   ParameterOp param);

/// A function argument together with the parameter it reads.
struct ParameterArgument {
  unsigned argIndex;
  ParameterOp parameter;
};

/// Every argument of `fn` that reads a parameter, in argument order; with
/// `trainableOnly`, only those whose parameter is not frozen.
SmallVector<ParameterArgument>
getParameterArguments(FunctionOpInterface fn, SymbolTableCollection &symbols,
                      bool trainableOnly = false);

/// What an argument of a training step is, and the name users know it by:
/// ("param", parameter name), ("state", `<param>.<slot>`), ("step",
/// "step") or ("input", its dist.input_name, else "arg<i>").
std::pair<StringRef, std::string> describeArgument(FunctionOpInterface fn,
                                                   unsigned argIndex);

/// A result of a gradient function (dist-autodiff's) and the parameter
/// argument it is the gradient of.
struct GradientResult {
  unsigned argIndex, resultIndex;
  FlatSymbolRefAttr parameter;
};

/// Every result of `gradFn` after the loss (result 0) matched, through its
/// `dist.gradient`, to the argument of that parameter; emits an error (run
/// dist-autodiff) and fails if one is not a parameter's gradient.
FailureOr<SmallVector<GradientResult>>
matchGradientResults(FunctionOpInterface gradFn);

/// The values the integer argument `argIndex` of `fn` may take, [0, n),
/// when it indexes something: its `dist.index_range`, or else the smallest
/// of the rows of an embedding it gathers from and the classes of a loss it
/// labels (through reshapes). None if it indexes nothing.
std::optional<int64_t> indexRange(FunctionOpInterface fn, unsigned argIndex);

/// A value the integer argument `argIndex` of `fn` may take besides its
/// index range: its `dist.index_ignore`, or else the `ignore_index` of the
/// losses it labels, when it only labels losses that all ignore that value
/// (Hugging Face's -100 labels). None otherwise.
std::optional<int64_t> indexIgnore(FunctionOpInterface fn, unsigned argIndex);

/// Whether argument `argIndex` of `fn` is data (a model input, a batch)
/// rather than a parameter, optimizer state, hyperparameter, step or seed.
bool isDataArgument(FunctionOpInterface fn, unsigned argIndex);

/// The result of a training step that is its loss: the one named "loss"
/// (dist.output_name), else the first. None without results.
std::optional<unsigned> lossResult(FunctionOpInterface fn);

/// The ops of `block` that `value` depends on (its defining op's backward
/// slice within the block): a training step's forward, for its loss.
llvm::DenseSet<Operation *> opsFeeding(Value value, Block &block);

} // namespace mlir::dist

#endif // DIALECTS_DIST_IR_DISTPARAMETERS_H
