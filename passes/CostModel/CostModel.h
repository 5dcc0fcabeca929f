//===- CostModel.h - Predicted time of a distributed step --------*- C++ -*-===//
//
// The time a per-rank program takes on a device (DeviceSpec), predicted
// from its ops: each computing op by the roofline of its FLOPs (OpCost.h)
// and bytes moved against the device's peak times the achievable
// fraction; each collective by the alpha-beta model of a ring over the
// slowest link of its mesh axes:
//
//   all-reduce            2 (n - 1) / n * S / B + 2 (n - 1) alpha
//   all-gather            (n - 1) / n * S / B + (n - 1) alpha   (S: result)
//   reduce-scatter        (n - 1) / n * S / B + (n - 1) alpha   (S: input)
//   send / receive        S / B + alpha
//
// The program runs on two queues, compute and communication: a blocking
// collective waits for both, a started all-reduce (all_reduce_start) runs
// on the communication queue until its dist.wait, so the compute between
// them hides it (the device's `overlap` fraction of it; the rest is paid
// at the wait). A pipeline's step adds the bubble: with S stages of
// slowest per-micro-batch time t, (S - 1) t (divided by the virtual
// stages when interleaved).
//
//===----------------------------------------------------------------------===//

#ifndef PASSES_COSTMODEL_COSTMODEL_H
#define PASSES_COSTMODEL_COSTMODEL_H

#include "passes/CostModel/DeviceSpec.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"

namespace mlir::dist::cost {

/// The link of each mesh axis: an axis whose groups stay inside a host
/// (row-major ranks: the last axes are the closest) uses the intra-host
/// link, the others the inter-host one.
SmallVector<Link> meshLinks(const DeviceSpec &spec, ArrayRef<int64_t> mesh);

enum class Collective { allReduce, allGather, reduceScatter, pointToPoint };

/// Seconds of one collective of `bytes` over a group of `n` ranks.
double collectiveSeconds(Collective kind, int64_t n, double bytes, Link link);

/// Seconds of one collective of `bytes` over the groups of mesh `axes` of
/// `mesh` (the slowest of their links).
double collectiveSeconds(const DeviceSpec &spec, Collective kind,
                         ArrayRef<int64_t> axes, ArrayRef<int64_t> mesh,
                         double bytes);

/// Seconds of an op of `flops` FLOPs (in `precision`) moving `bytes`.
double computeSeconds(const DeviceSpec &spec, Precision precision,
                      double flops, double bytes);

struct StepPrediction {
  double compute = 0;       ///< seconds computing
  double communication = 0; ///< seconds of collectives, sends, receives
  double exposed = 0;       ///< communication not hidden by compute
  double bubble = 0;        ///< a pipeline's idle time
  /// The most bytes the rank's tensors hold at once (with pipelines, the
  /// stage that holds most).
  double peakBytes = 0;
  double total() const { return compute + exposed + bubble; }
};

/// The most bytes `fn`'s tensors hold at once on a rank: its arguments
/// (parameters, optimizer state, inputs) throughout, and each op's results
/// from the op to their last use (to the end for what it returns). An
/// estimate at the level of the dist dialect: the lowering's buffers (and
/// --explain's memory line after it) can reuse or fuse some of these.
double peakBytes(func::FuncOp fn);

/// The bytes of `fn`'s forward activations the backward reads: results of
/// the ops the loss depends on that depend on a data argument and have a
/// reader outside them (a remat barrier of a kept value included). What a
/// pipeline stage holds per micro-batch in flight.
double heldForBackwardBytes(func::FuncOp fn);

struct CostOptions {
  /// float32 products on TF32 tensor cores.
  bool tf32 = false;
};

/// The predicted time of `fn` (a per-rank program on `mesh`) per call.
StepPrediction predictFunction(func::FuncOp fn, ArrayRef<int64_t> mesh,
                               const DeviceSpec &spec,
                               const CostOptions &options = {});

/// The predicted step of `module`'s training step: its `function`, or with
/// pipeline stages (dist.pipeline) the slowest stage's program plus the
/// bubble.
FailureOr<StepPrediction> predictStep(ModuleOp module, StringRef function,
                                      const DeviceSpec &spec,
                                      const CostOptions &options = {});

} // namespace mlir::dist::cost

#endif // PASSES_COSTMODEL_COSTMODEL_H
