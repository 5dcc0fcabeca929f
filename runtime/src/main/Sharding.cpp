//===- Sharding.cpp - A rank's shards of a model's tensors ----------------===//
//
// A tensor split along several dimensions is sliced (or gathered) one
// dimension at a time, as a [outer, size * inner] tensor with outer the
// product of the dimensions before it: distrt_shard_slice and
// distrt_all_gather do the rest; a strided split of a dimension into g
// groups is a [outer * g, size / g * inner] tensor. The axes of different
// dimensions are distinct, so gathering one dimension over its group leaves
// the others' blocks as they were.
//
//===----------------------------------------------------------------------===//

#include "Sharding.h"
#include "HostBuffers.h"

#include <algorithm>
#include <cstring>
#include <memory>

namespace distrt::model {

namespace {

/// Steps through the split dimensions of `spec`, from the whole shape to
/// the shard's (`toShard`) or back, calling `step(outer, shardInner,
/// mask, from, to)` per dimension with buffers of the shapes before and
/// after it; the first `from` is `source`, the last `to` is `target`.
template <typename Step>
void throughDimensions(const TensorSpec &spec, bool toShard, const void *source,
                       void *target, Step step) {
  int64_t shape[DISTRT_MAX_RANK];
  std::vector<int32_t> dims;
  for (int32_t d = 0; d < spec.rank; ++d)
    if (distrt_group_size(spec.shardAxes[d]) > 1)
      dims.push_back(d);
  if (toShard)
    std::copy(spec.shape, spec.shape + spec.rank, shape);
  else
    shardShape(spec, shape);
  size_t element = distrt_dtype_size(spec.dtype);
  std::unique_ptr<char[]> buffers[2];
  const void *from = source;
  for (size_t k = 0; k < dims.size(); ++k) {
    int32_t d = dims[k];
    int64_t group = distrt_group_size(spec.shardAxes[d]);
    // A strided split slices each group: [outer * groups, size / groups].
    int64_t groups = spec.shardGroups[d];
    int64_t outer = groups, inner = 1;
    for (int32_t i = 0; i < d; ++i)
      outer *= shape[i];
    for (int32_t i = d + 1; i < spec.rank; ++i)
      inner *= shape[i];
    shape[d] = toShard ? shape[d] / group : shape[d] * group;
    void *to = target;
    if (k + 1 < dims.size()) {
      int64_t elements = 1;
      for (int32_t i = 0; i < spec.rank; ++i)
        elements *= shape[i];
      buffers[k % 2].reset(new char[static_cast<size_t>(elements) * element]);
      to = buffers[k % 2].get();
    }
    int64_t shardDim = (toShard ? shape[d] : shape[d] / group) / groups;
    step(outer, shardDim * inner, spec.shardAxes[d], from, to);
    from = to;
  }
  if (dims.empty()) // nothing is split here: the shard is the whole
    std::memcpy(target, source, spec.bytes());
}

} // namespace

bool isSplit(const TensorSpec &spec) {
  for (int32_t d = 0; d < spec.rank; ++d)
    if (distrt_group_size(spec.shardAxes[d]) > 1)
      return true;
  return false;
}

void shardShape(const TensorSpec &spec, int64_t *shape) {
  for (int32_t d = 0; d < spec.rank; ++d)
    shape[d] = spec.shape[d] / distrt_group_size(spec.shardAxes[d]);
}

size_t shardBytes(const TensorSpec &spec) {
  int64_t shape[DISTRT_MAX_RANK], elements = 1;
  shardShape(spec, shape);
  for (int32_t d = 0; d < spec.rank; ++d)
    elements *= shape[d];
  return static_cast<size_t>(elements) * distrt_dtype_size(spec.dtype);
}

void sliceShard(const TensorSpec &spec, const void *whole, void *shard) {
  throughDimensions(spec, true, whole, shard,
                    [&](int64_t outer, int64_t inner, int64_t mask,
                        const void *from, void *to) {
                      distrt_shard_slice(spec.dtype, from, to, outer, inner,
                                         mask);
                    });
}

void gatherShards(const TensorSpec &spec, const void *shard, void *whole) {
  throughDimensions(spec, false, shard, whole,
                    [&](int64_t outer, int64_t inner, int64_t mask,
                        const void *from, void *to) {
                      distrt_all_gather(spec.dtype, from, to, outer, inner,
                                        mask);
                    });
}

bool holds(const TensorSpec &spec) {
  return spec.placeAxis < 0 || spec.onStage(distrt_mesh_coord(spec.placeAxis));
}

int32_t wholeSender(const TensorSpec &spec) {
  if (spec.placeAxis < 0)
    return 0;
  // Row-major: the first stage's coordinate times the sizes of the axes
  // after the place axis.
  int64_t rank = spec.stages.front();
  for (int32_t axis = spec.placeAxis + 1; axis < DISTRT_MAX_MESH_DIMS; ++axis)
    rank *= distrt_mesh_size(axis);
  return static_cast<int32_t>(rank);
}

bool needsWholeBuffer(const TensorSpec &spec) {
  return holds(spec) ? isSplit(spec) : distrt_comm_rank() == 0;
}

void collectWhole(const TensorSpec &spec, const void *local, void *whole) {
  bool held = holds(spec);
  if (held && isSplit(spec)) {
    gatherShards(spec, local, whole);
    local = whole;
  }
  int32_t sender = wholeSender(spec);
  if (sender == 0)
    return; // rank 0 holds it
  int32_t rank = distrt_comm_rank();
  if (rank == sender)
    distrt_send(spec.dtype, local, spec.elements(), 0, kWholeTensorTag);
  else if (rank == 0)
    distrt_recv(spec.dtype, whole, spec.elements(), sender, kWholeTensorTag);
}

bool shardArguments(const Interface &model, std::vector<void *> &pointers,
                    std::vector<void *> *wholeInputs, std::string &error) {
  for (size_t i = 0; i < model.arguments.size(); ++i) {
    const TensorSpec &spec = model.arguments[i];
    if (!holds(spec)) {
      distrt_free(kHost, pointers[i]);
      pointers[i] = nullptr;
      continue;
    }
    if (!isSplit(spec))
      continue;
    void *whole = pointers[i];
    void *shard = distrt_alloc(kHost, shardBytes(spec));
    if (!shard) {
      error = std::string(roleName(spec.role)) + " '" + spec.name +
              "': " + distrt_last_error();
      return false;
    }
    sliceShard(spec, whole, shard);
    pointers[i] = shard;
    if (wholeInputs && spec.role == Role::Input)
      (*wholeInputs)[i] = whole;
    else
      distrt_free(kHost, whole);
  }
  return true;
}

} // namespace distrt::model
