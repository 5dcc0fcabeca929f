//===- ModelInterface.h - The tensors a compiled model takes ----*- C++ -*-===//
//
// Parses dist_model_interface, the text a compiled model carries to describe
// its inputs, parameters and outputs (format in distrt/model.h).
//
//===----------------------------------------------------------------------===//

#ifndef DISTRT_MAIN_MODELINTERFACE_H
#define DISTRT_MAIN_MODELINTERFACE_H

#include "distrt/distrt.h"

#include <string>
#include <vector>

namespace distrt::model {

enum class Role { Input, Param, Output };

/// One line of the interface: a tensor's role, type and name.
struct TensorSpec {
  Role role;
  distrt_dtype dtype;
  int32_t rank;
  int64_t shape[DISTRT_MAX_RANK];
  std::string name;

  size_t bytes() const;
  /// "float32 2x3", or "float64 scalar".
  std::string typeText() const;
  /// Whether `tensor` has exactly this dtype and shape.
  bool matches(const distrt_tensor &tensor) const;
};

struct Interface {
  std::vector<TensorSpec> arguments; // inputs and params, in argument order
  std::vector<TensorSpec> outputs;

  const TensorSpec *findArgument(const std::string &name) const;
  /// The names of the arguments with `role`, comma separated.
  std::string names(Role role) const;
};

/// Parses `text`; on failure returns false and sets `error` to what is wrong
/// and on which line.
bool parseInterface(const char *text, Interface &out, std::string &error);

/// "float32 2x3" for any tensor.
std::string typeText(distrt_dtype dtype, int32_t rank, const int64_t *shape);

} // namespace distrt::model

#endif // DISTRT_MAIN_MODELINTERFACE_H
