//===- Sharding.h - A rank's shards of a model's tensors --------*- C++ -*-===//
//
// Under a mesh, the interface's shapes are the whole (logical) tensors; the
// buffer dist_model_forward gets for a tensor split by `shard` lines is this
// rank's block of it: each split dimension divided by the size of its group
// of devices, at the block of the rank's group rank (distrt.h). Every rank
// builds the whole tensors a single process would (parameters, batches),
// slices its shards out, and gathers them back for checkpoints and outputs.
//
//===----------------------------------------------------------------------===//

#ifndef DISTRT_MAIN_SHARDING_H
#define DISTRT_MAIN_SHARDING_H

#include "ModelInterface.h"

#include <string>
#include <vector>

namespace distrt::model {

/// Whether this rank holds only part of `spec`: a dimension is split over
/// more than one device.
bool isSplit(const TensorSpec &spec);

/// This rank's shard's shape (spec.rank dimensions), and its size.
void shardShape(const TensorSpec &spec, int64_t *shape);
size_t shardBytes(const TensorSpec &spec);

/// Copies this rank's shard of the whole tensor `whole` into `shard`.
void sliceShard(const TensorSpec &spec, const void *whole, void *shard);

/// Gathers every rank's `shard` into the whole tensor `whole`, on every
/// rank: a collective, which all ranks call at the same point.
void gatherShards(const TensorSpec &spec, const void *shard, void *whole);

/// Replaces the whole tensor of each split argument in `pointers` (one per
/// argument of `model`, distrt_alloc'd) by a newly allocated shard of it.
/// The whole tensors of split inputs move to `wholeInputs` (one per
/// argument, for the data sources to write into) if it is given, and every
/// other whole tensor is freed. On failure returns false and sets `error`.
bool shardArguments(const Interface &model, std::vector<void *> &pointers,
                    std::vector<void *> *wholeInputs, std::string &error);

} // namespace distrt::model

#endif // DISTRT_MAIN_SHARDING_H
