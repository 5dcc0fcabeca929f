//===- ModelInterface.h - The tensors a compiled model takes ----*- C++ -*-===//
//
// Parses dist_model_interface, the JSON a compiled model carries to describe
// its inputs, parameters and outputs (schema in distrt/model.h), the device
// mesh it was compiled for, how its tensors are split over it and on which
// pipeline stages its parameters and optimizer state are placed, and for a
// trainer ("mode": "train") its step counter, random seed, run-time
// hyperparameters, optimizer state, input ranges (and ignored label values)
// and "meta" entries (docs/trainer-abi.md).
//
//===----------------------------------------------------------------------===//

#ifndef DISTRT_MAIN_MODELINTERFACE_H
#define DISTRT_MAIN_MODELINTERFACE_H

#include "distrt/distrt.h"

#include <string>
#include <utility>
#include <vector>

namespace distrt::model {

/// Step, Seed, Hparam and State appear only in trainers.
enum class Role { Input, Step, Seed, Hparam, Param, State, Output };

/// The interface's "role" of `role` ("input", "state", ...).
const char *roleName(Role role);

/// One line of the interface: a tensor's role, type and name.
struct TensorSpec {
  Role role;
  distrt_dtype dtype;
  int32_t rank;
  int64_t shape[DISTRT_MAX_RANK];
  std::string name;
  /// A trainer's "range": N: the integer input's values are in [0, N).
  /// 0 without one.
  uint64_t range = 0;
  /// A trainer's "ignore": VALUE: the ranged input may also hold VALUE
  /// (a loss's ignore_index, e.g. -100), which synthetic data never draws.
  bool hasIgnore = false;
  int64_t ignore = 0;
  /// A trainer's "init": VALUE of a float state tensor: every element
  /// starts at VALUE (a loss scale's 65536) instead of 0.
  double init = 0;
  /// A trainer's hparam NAME: the value of its "meta" entry NAME, the
  /// default of option --NAME (Hyperparameters.h).
  double hparamDefault = 0;
  /// "split" entries {"dim": DIM, "axes": [...]}: the mesh axes (bit i =
  /// axis i) dimension DIM is split over; 0 for a dimension that is not
  /// split. The shape
  /// above is always the whole (logical) tensor's.
  int64_t shardAxes[DISTRT_MAX_RANK] = {};
  /// "groups": GROUPS: a strided split; the dimension is GROUPS
  /// equal groups, each split over the axes (1: a block split).
  int64_t shardGroups[DISTRT_MAX_RANK] = {1, 1, 1, 1, 1, 1, 1, 1};
  static_assert(DISTRT_MAX_RANK == 8, "one 1 per dimension above");
  /// "place": {"axis": AXIS, "stages": [...]} on a param or state tensor
  /// (pipeline parallelism): only the ranks whose coordinate on mesh axis
  /// AXIS is one of `stages` (strictly increasing) hold it, whole or their
  /// shard of it over the other axes; the others get a null buffer. -1
  /// without "place": every rank holds it.
  int32_t placeAxis = -1;
  std::vector<int64_t> stages;

  int64_t elements() const;
  size_t bytes() const;
  /// "float32 2x3", or "float64 scalar".
  std::string typeText() const;
  /// Whether `tensor` has exactly this dtype and shape.
  bool matches(const distrt_tensor &tensor) const;
  /// Whether the dtype is an integer type (bool is not).
  bool isInteger() const;
  /// Whether `value` is one a ranged input accepts: in [0, range), or the
  /// ignored value. Every value is accepted without a range.
  bool accepts(__int128 value) const;
  /// "[0, 10)", or "[0, 10) or -100" with an ignored value; "" without a
  /// range.
  std::string rangeText() const;
  /// Whether a "split" entry splits a dimension (over a mesh of one device,
  /// the split leaves the tensor whole).
  bool hasShards() const;
  /// "dim 0 over mesh axis 0, dim 2 over mesh axes 1,2"; "" if none.
  std::string shardText() const;
  /// Whether the ranks at coordinate `stage` of the "place" axis hold the
  /// tensor (true without "place").
  bool onStage(int64_t stage) const;
  /// "stage 1 of mesh axis 2", "stages 0, 3 of mesh axis 2"; "" without
  /// "place".
  std::string placeText() const;
};

struct Interface {
  bool train = false; // "mode": "train"
  /// A trainer with loss scaling: its outputs after lr are loss_scale and
  /// skipped (1 when the step was skipped for inf/nan gradients).
  bool lossScaling = false;
  /// "target": {"device": "cuda", "arch": ARCH}: compiled for a CUDA GPU
  /// (sm_90); dist_model_forward takes device pointers. Without the line,
  /// or with {"device": "cpu"}: host buffers.
  bool cuda = false;
  std::string arch;
  /// "flops": the step's floating-point operations in matrix products
  /// and convolutions (per rank), for MFU; 0 without the line.
  int64_t flopsPerStep = 0;
  /// The `mesh` line's shape (at most DISTRT_MAX_MESH_DIMS sizes); empty
  /// without one: a single device.
  std::vector<int64_t> mesh;
  std::vector<TensorSpec> arguments; // in argument order
  std::vector<TensorSpec> outputs;
  /// The "meta" entries, in order; numbers as written, booleans as
  /// true/false.
  std::vector<std::pair<std::string, std::string>> meta;

  const TensorSpec *findArgument(const std::string &name) const;
  /// The names of the arguments with `role`, comma separated.
  std::string names(Role role) const;
  /// The arguments with `role`, in argument order.
  std::vector<const TensorSpec *> withRole(Role role) const;
  /// The value of "meta" entry KEY, or nullptr.
  const std::string *findMeta(const std::string &key) const;
  /// The argument an `--input NAME=FILE` value names: the longest argument
  /// name followed by '=' (names may contain '='), and sets `file` to the
  /// rest; nullptr if no argument name fits.
  const TensorSpec *resolveAssignment(const std::string &value,
                                      std::string &file) const;
  /// The number of devices of the mesh (1 without a mesh).
  int64_t devices() const;
  /// "2x2", "4", or "" without a mesh.
  std::string meshText() const;
};

/// Parses `text`; on failure returns false and sets `error` to what is wrong
/// and on which line.
bool parseInterface(const char *text, Interface &out, std::string &error);

/// "float32 2x3" for any tensor.
std::string typeText(distrt_dtype dtype, int32_t rank, const int64_t *shape);

/// Whether `dtype` is an integer type (bool is not).
bool isIntegerDtype(distrt_dtype dtype);

/// The range of values an integer dtype holds, as [lowest, highest].
void integerLimits(distrt_dtype dtype, int64_t &lowest, uint64_t &highest);

} // namespace distrt::model

#endif // DISTRT_MAIN_MODELINTERFACE_H
