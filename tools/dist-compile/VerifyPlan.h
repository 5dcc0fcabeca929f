//===- VerifyPlan.h - Run a plan against one rank on a smaller copy -*- C++ -*-===//
//
// dist-compile --verify-plan: the model cut to a few of its repeated
// layers (RepeatedLayers.h), compiled once for one rank and once with the
// plan, both trained a few steps on the same synthetic data (the plan
// under the launcher, N ranks), and their losses and gradient norms
// compared. A plan that computes something else than one device fails
// loudly, before the user spends a cluster on it.
//
//===----------------------------------------------------------------------===//

#ifndef TOOLS_DIST_COMPILE_VERIFYPLAN_H
#define TOOLS_DIST_COMPILE_VERIFYPLAN_H

#include "mlir/IR/BuiltinOps.h"

#include <string>
#include <vector>

namespace dist_compile {

struct VerifyPlanRequest {
  std::string self;                     ///< this dist-compile
  std::vector<std::string> common;      ///< flags of both compiles
  std::vector<std::string> plan;        ///< flags of the plan's only
  std::string planText;                 ///< the plan, for messages
  std::string entry;                    ///< the forward function
  int64_t ranks = 1;
  int64_t stages = 0;                   ///< pipeline stages (0: none)
  int64_t steps = 3;
  std::vector<std::string> launcher;    ///< e.g. mpirun --oversubscribe
  double tolerance = 1e-5;
};

/// The user's flags split for the two compiles: `common` (the model's and
/// the training step's) and `distribution` (overlap, buckets, reduction
/// precision: the plan's only). The input file, -o, the output kind,
/// --explain, the planner's and the plan's own flags (rebuilt from the
/// final plan) and --verify-* are left out.
void splitFlags(int argc, char **argv, llvm::StringRef input,
                std::vector<std::string> &common,
                std::vector<std::string> &distribution);

/// Runs the check on `model` (the imported model, changed: cut); prints
/// what it did to `os`. Fails with a message on stderr when a compile or a
/// run fails or the results differ by more than the tolerance.
mlir::LogicalResult verifyPlan(mlir::ModuleOp model,
                               const VerifyPlanRequest &request,
                               llvm::raw_ostream &os);

} // namespace dist_compile

#endif // TOOLS_DIST_COMPILE_VERIFYPLAN_H
