//===- PipelineVerify.h - Pipeline stages' programs cannot deadlock -*- C++ -*-===//

#ifndef PASSES_SHARDING_PIPELINEVERIFY_H
#define PASSES_SHARDING_PIPELINEVERIFY_H

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace mlir::dist {

/// Runs the stages' programs (one function per coordinate of mesh axis
/// `axis`, in order) against each other: sends never wait (they are
/// buffered), a receive waits for the send with its tag. Fails, naming
/// where each stuck stage waits, if they cannot all finish; also for a tag
/// sent twice, a receive that does not match its send (peer or type), or
/// a send nobody receives.
LogicalResult verifySchedule(MutableArrayRef<func::FuncOp> stageFns,
                             int64_t axis);

} // namespace mlir::dist

#endif // PASSES_SHARDING_PIPELINEVERIFY_H
