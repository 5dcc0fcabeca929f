//===- Sharding.h - A rank's shards of a model's tensors --------*- C++ -*-===//
//
// Under a mesh, the interface's shapes are the whole (logical) tensors; the
// buffer dist_model_forward gets for a tensor split by `shard` lines is this
// rank's block of it: each split dimension divided by the size of its group
// of devices, at the block of the rank's group rank (distrt.h). Every rank
// builds the whole tensors a single process would (parameters, batches),
// slices its shards out, and gathers them back for checkpoints and outputs.
//
// A tensor "placed" on pipeline stages (a "place" line) is held only by the
// ranks of those stages of its mesh axis; the others drop it after loading
// and hand the step a null pointer. Its splits use other axes only, so the
// group of each split is all holders or all non-holders: the holders alone
// gather it, and one of them sends it whole to rank 0 for a checkpoint.
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

/// Whether this rank holds `spec`: it has no "place", or this rank's
/// coordinate on the place axis is one of its stages.
bool holds(const TensorSpec &spec);

/// The world rank that sends placed tensor `spec` whole to rank 0: the
/// holder whose coordinate on the place axis is the first stage and on
/// every other axis 0. It is rank 0 itself when rank 0 holds the tensor
/// (and for a tensor without "place"): then nothing is sent. Every rank
/// computes the same from the interface alone.
int32_t wholeSender(const TensorSpec &spec);

/// The tag of those sends (MPI's tags go to at least 32767; compiled code's
/// messages are all received within its step, before any of these).
constexpr int32_t kWholeTensorTag = 32000;

/// Whether collectWhole needs room for the whole of `spec` on this rank: a
/// holder of a split tensor gathers it, and rank 0 receives one it does not
/// hold.
bool needsWholeBuffer(const TensorSpec &spec);

/// Brings argument `spec` whole to rank 0: the holders of a split tensor
/// gather their shards `local` into `whole` (a collective among them; the
/// other ranks do not take part), then, if rank 0 does not hold the
/// tensor, wholeSender(spec) sends it whole to rank 0, which receives it
/// into `whole`. Every rank calls it for the same tensors in the same
/// order. `whole` is the room needsWholeBuffer asks for (else unused);
/// `local` is this rank's buffer, null where it does not hold the tensor.
void collectWhole(const TensorSpec &spec, const void *local, void *whole);

/// Replaces the whole tensor of each split argument in `pointers` (one per
/// argument of `model`, distrt_alloc'd) by a newly allocated shard of it,
/// and frees (and nulls) each placed argument this rank does not hold.
/// The whole tensors of split inputs move to `wholeInputs` (one per
/// argument, for the data sources to write into) if it is given, and every
/// other whole tensor is freed. On failure returns false and sets `error`.
bool shardArguments(const Interface &model, std::vector<void *> &pointers,
                    std::vector<void *> *wholeInputs, std::string &error);

} // namespace distrt::model

#endif // DISTRT_MAIN_SHARDING_H
