//===- ModelInterface.cpp - Parses a compiled model's interface -----------===//

#include "ModelInterface.h"

#include <charconv>
#include <cstring>
#include <set>

namespace distrt::model {

namespace {

/// Short dtype names, in distrt_dtype order, accepted besides
/// distrt_dtype_name's.
constexpr const char *kShortNames[DISTRT_NUM_DTYPES] = {
    "f32", "f64", "f16", "bf16", "i64", "i32", "i16",
    "i8",  "u64", "u32", "u16",  "u8",  "bool"};

bool parseDtype(const std::string &text, distrt_dtype &dtype) {
  for (int d = 0; d < DISTRT_NUM_DTYPES; ++d)
    if (text == kShortNames[d] ||
        text == distrt_dtype_name(static_cast<distrt_dtype>(d))) {
      dtype = static_cast<distrt_dtype>(d);
      return true;
    }
  return false;
}

bool parseShape(const std::string &text, TensorSpec &spec, std::string &error) {
  spec.rank = 0;
  if (text == "scalar")
    return true;
  // Keep the byte size of every tensor far from overflowing.
  constexpr int64_t kMaxElements = int64_t(1) << 48;
  int64_t elements = 1;
  size_t at = 0;
  while (true) {
    size_t end = text.find('x', at);
    if (end == std::string::npos)
      end = text.size();
    int64_t dim;
    const char *first = text.data() + at, *last = text.data() + end;
    auto result = std::from_chars(first, last, dim);
    if (first == last || *first < '0' || *first > '9' ||
        result.ec != std::errc() || result.ptr != last) {
      error = "bad shape '" + text + "' (expected e.g. 8x32, or scalar)";
      return false;
    }
    if (spec.rank == DISTRT_MAX_RANK) {
      error = "shape '" + text + "' has more than " +
              std::to_string(DISTRT_MAX_RANK) + " dimensions";
      return false;
    }
    if (dim != 0 && elements > kMaxElements / dim) {
      error = "shape '" + text + "' has more than 2^48 elements";
      return false;
    }
    elements *= dim;
    spec.shape[spec.rank++] = dim;
    if (end == text.size())
      return true;
    at = end + 1;
  }
}

/// Splits off the next space-separated word of `line` from `at`.
bool word(const std::string &line, size_t &at, std::string &out) {
  size_t end = line.find(' ', at);
  if (end == std::string::npos || end == at)
    return false;
  out = line.substr(at, end - at);
  at = end + 1;
  return true;
}

bool parseLine(const std::string &line, TensorSpec &spec, std::string &error) {
  size_t at = 0;
  std::string role, dtype, shape;
  if (!word(line, at, role) || !word(line, at, dtype) ||
      !word(line, at, shape) || at == line.size()) {
    error = "expected '<input|param|output> <dtype> <shape> <name>', got '" +
            line + "'";
    return false;
  }
  if (role == "input")
    spec.role = Role::Input;
  else if (role == "param")
    spec.role = Role::Param;
  else if (role == "output")
    spec.role = Role::Output;
  else {
    error = "unknown kind '" + role + "' (input, param or output)";
    return false;
  }
  if (!parseDtype(dtype, spec.dtype)) {
    error = "unknown dtype '" + dtype + "'";
    return false;
  }
  if (!parseShape(shape, spec, error))
    return false;
  spec.name = line.substr(at);
  return true;
}

} // namespace

size_t TensorSpec::bytes() const {
  int64_t elements = 1;
  for (int32_t i = 0; i < rank; ++i)
    elements *= shape[i];
  return static_cast<size_t>(elements) * distrt_dtype_size(dtype);
}

std::string TensorSpec::typeText() const {
  return model::typeText(dtype, rank, shape);
}

bool TensorSpec::matches(const distrt_tensor &tensor) const {
  if (tensor.dtype != dtype || tensor.rank != rank)
    return false;
  for (int32_t i = 0; i < rank; ++i)
    if (tensor.shape[i] != shape[i])
      return false;
  return true;
}

const TensorSpec *Interface::findArgument(const std::string &name) const {
  for (const TensorSpec &spec : arguments)
    if (spec.name == name)
      return &spec;
  return nullptr;
}

std::string Interface::names(Role role) const {
  std::string text;
  for (const TensorSpec &spec : role == Role::Output ? outputs : arguments)
    if (spec.role == role)
      text += (text.empty() ? "" : ", ") + spec.name;
  return text;
}

std::string typeText(distrt_dtype dtype, int32_t rank, const int64_t *shape) {
  std::string text = std::string(distrt_dtype_name(dtype)) + " ";
  if (rank == 0)
    return text + "scalar";
  for (int32_t i = 0; i < rank; ++i)
    text += (i ? "x" : "") + std::to_string(shape[i]);
  return text;
}

bool parseInterface(const char *text, Interface &out, std::string &error) {
  out = Interface();
  std::string all = text ? text : "";
  std::set<std::string> argumentNames, outputNames;
  size_t at = 0;
  for (int number = 1; at < all.size(); ++number) {
    size_t end = all.find('\n', at);
    if (end == std::string::npos)
      end = all.size();
    std::string line = all.substr(at, end - at);
    at = end + 1;
    std::string where = "line " + std::to_string(number) + ": ";
    if (number == 1) {
      if (line != "dist-model 1") {
        error = where + "expected 'dist-model 1', got '" + line + "'";
        return false;
      }
      continue;
    }
    if (line.empty())
      continue;
    TensorSpec spec;
    if (!parseLine(line, spec, error)) {
      error = where + error;
      return false;
    }
    bool isOutput = spec.role == Role::Output;
    if (!(isOutput ? outputNames : argumentNames).insert(spec.name).second) {
      error = where + "duplicate " + (isOutput ? "output" : "argument") +
              " name '" + spec.name + "'";
      return false;
    }
    (isOutput ? out.outputs : out.arguments).push_back(spec);
  }
  if (all.empty()) {
    error = "empty text (expected 'dist-model 1' first)";
    return false;
  }
  return true;
}

} // namespace distrt::model
