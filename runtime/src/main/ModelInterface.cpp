//===- ModelInterface.cpp - Parses a compiled model's interface -----------===//

#include "ModelInterface.h"
#include "Hyperparameters.h"

#include <cctype>
#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <limits>
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

bool parseLine(const std::string &line, bool train, TensorSpec &spec,
               std::string &error) {
  const char *roles = train ? "input|step|seed|hparam|param|state|output"
                            : "input|param|output";
  size_t at = 0;
  std::string role, dtype, shape;
  if (!word(line, at, role) || !word(line, at, dtype) ||
      !word(line, at, shape) || at == line.size()) {
    error = std::string("expected '<") + roles +
            "> <dtype> <shape> <name>', got '" + line + "'";
    return false;
  }
  bool known = false;
  for (Role r : {Role::Input, Role::Step, Role::Seed, Role::Hparam, Role::Param,
                 Role::State, Role::Output})
    if (role == roleName(r)) {
      spec.role = r;
      known = true;
    }
  if (known && !train &&
      (spec.role == Role::Step || spec.role == Role::Seed ||
       spec.role == Role::Hparam || spec.role == Role::State)) {
    error = "'" + role + "' lines need 'mode train' on line 2";
    return false;
  }
  if (!known) {
    error = "unknown kind '" + role + "' (" +
            (train ? "input, step, seed, hparam, param, state or output"
                   : "input, param or output") +
            ")";
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

/// A `range NAME N` line, resolved once every tensor line is read.
struct RangeLine {
  std::string where, name;
  uint64_t range;
};

/// `range <input> <n>`: the name may contain spaces, so <n> is the last word.
bool parseRange(const std::string &line, RangeLine &out, std::string &error) {
  size_t space = line.rfind(' ');
  const char *first = line.data() + space + 1,
             *last = line.data() + line.size();
  auto result = std::from_chars(first, last, out.range);
  if (space <= 6 || first == last || *first < '0' || *first > '9' ||
      result.ec != std::errc() || result.ptr != last || out.range == 0) {
    error = "expected 'range <input> <n>' with n a positive integer, got '" +
            line + "'";
    return false;
  }
  out.name = line.substr(6, space - 6);
  return true;
}

/// An `ignore NAME VALUE` line, resolved once every tensor line is read.
struct IgnoreLine {
  std::string where, name;
  int64_t value;
};

/// `ignore <input> <value>`: like `range`, the name is the rest of the line
/// up to the last space; the value is a signed decimal integer.
bool parseIgnore(const std::string &line, IgnoreLine &out, std::string &error) {
  size_t space = line.rfind(' ');
  const char *first = line.data() + space + 1,
             *last = line.data() + line.size();
  auto result = std::from_chars(first, last, out.value);
  if (space <= 7 || first == last || result.ec != std::errc() ||
      result.ptr != last) {
    error = "expected 'ignore <input> <value>' with value an integer (e.g. "
            "-100), got '" +
            line + "'";
    return false;
  }
  out.name = line.substr(7, space - 7);
  return true;
}

/// A non-negative decimal number that is all of `text`.
bool parseCount(const std::string &text, int64_t &value) {
  const char *first = text.data(), *last = text.data() + text.size();
  auto result = std::from_chars(first, last, value);
  return first != last && *first >= '0' && *first <= '9' &&
         result.ec == std::errc() && result.ptr == last;
}

/// `mesh <shape>`: 1 to DISTRT_MAX_MESH_DIMS sizes of at least 1, with
/// fewer than 2^31 devices in all.
bool parseMesh(const std::string &line, Interface &out, std::string &error) {
  if (!out.mesh.empty()) {
    error = "a second 'mesh' line";
    return false;
  }
  std::string text = line.substr(5);
  int64_t devices = 1;
  size_t at = 0;
  while (true) {
    size_t end = text.find('x', at);
    if (end == std::string::npos)
      end = text.size();
    int64_t size;
    if (!parseCount(text.substr(at, end - at), size) || size < 1 ||
        size > std::numeric_limits<int32_t>::max() / devices ||
        out.mesh.size() == DISTRT_MAX_MESH_DIMS) {
      out.mesh.clear();
      error = "bad mesh shape '" + text + "' (expected e.g. 4 or 2x2: 1 to " +
              std::to_string(DISTRT_MAX_MESH_DIMS) +
              " sizes of at least 1, fewer than 2^31 devices)";
      return false;
    }
    devices *= size;
    out.mesh.push_back(size);
    if (end == text.size())
      return true;
    at = end + 1;
  }
}

/// A `shard DIM AXES NAME` line, resolved once every tensor line is read.
struct ShardLine {
  std::string where, axesText, name;
  int64_t dim;
  int64_t axes = 0; // bit i = mesh axis i
  int64_t groups = 1;
};

/// `shard <dim> <axis>[,<axis>...][/<groups>] <name>`, axes strictly
/// increasing.
bool parseShard(const std::string &line, ShardLine &out, std::string &error) {
  size_t at = 6;
  std::string dim;
  if (!word(line, at, dim) || !word(line, at, out.axesText) ||
      at == line.size() || !parseCount(dim, out.dim)) {
    error =
        "expected 'shard <dim> <axis>[,<axis>...][/<groups>] <name>', got '" +
        line + "'";
    return false;
  }
  out.name = line.substr(at);
  if (size_t slash = out.axesText.find('/'); slash != std::string::npos) {
    if (!parseCount(out.axesText.substr(slash + 1), out.groups) ||
        out.groups < 1) {
      error = "shard of '" + out.name + "': bad group count in '" +
              out.axesText + "' (expected <axes>/<groups>, groups at least 1)";
      return false;
    }
    out.axesText.resize(slash);
  }
  int64_t last = -1;
  size_t from = 0;
  while (true) {
    size_t end = out.axesText.find(',', from);
    if (end == std::string::npos)
      end = out.axesText.size();
    int64_t axis;
    if (!parseCount(out.axesText.substr(from, end - from), axis) ||
        axis >= DISTRT_MAX_MESH_DIMS || axis <= last) {
      error = "shard of '" + out.name + "': bad mesh axes '" + out.axesText +
              "' (expected axis numbers below " +
              std::to_string(DISTRT_MAX_MESH_DIMS) +
              ", comma separated, strictly increasing)";
      return false;
    }
    out.axes |= int64_t(1) << axis;
    last = axis;
    if (end == out.axesText.size())
      return true;
    from = end + 1;
  }
}

/// The mesh axes in `mask` as "0" or "0,2".
std::string axisList(int64_t mask) {
  std::string text;
  for (int axis = 0; axis < DISTRT_MAX_MESH_DIMS; ++axis)
    if (mask >> axis & 1)
      text += (text.empty() ? "" : ",") + std::to_string(axis);
  return text;
}

bool applyShard(const ShardLine &line, Interface &out, std::string &error) {
  std::string what = line.where + "shard of '" + line.name + "': ";
  TensorSpec *spec = nullptr;
  int found = 0;
  for (auto *list : {&out.arguments, &out.outputs})
    for (TensorSpec &tensor : *list)
      if (tensor.name == line.name) {
        spec = &tensor;
        ++found;
      }
  if (found != 1) {
    error = what + (found ? "both an argument and an output have that name"
                          : "no argument or output has that name");
    return false;
  }
  int64_t devices = 1;
  for (int axis = 0; axis < DISTRT_MAX_MESH_DIMS; ++axis) {
    if (!(line.axes >> axis & 1))
      continue;
    if (axis >= static_cast<int>(out.mesh.size())) {
      error =
          what + "mesh axis " + std::to_string(axis) + ", but " +
          (out.mesh.empty() ? std::string("there is no 'mesh' line")
                            : "the mesh is " + out.meshText() + " (" +
                                  std::to_string(out.mesh.size()) +
                                  (out.mesh.size() == 1 ? " axis)" : " axes)"));
      return false;
    }
    devices *= out.mesh[axis];
  }
  if (line.dim >= spec->rank) {
    error = what + "dimension " + std::to_string(line.dim) + ", but '" +
            spec->name + "' is " + spec->typeText();
    return false;
  }
  if (spec->shardAxes[line.dim]) {
    error = what + "dimension " + std::to_string(line.dim) +
            " is already split (a second shard line)";
    return false;
  }
  for (int32_t d = 0; d < spec->rank; ++d)
    if (spec->shardAxes[d] & line.axes) {
      error = what + "mesh axes " + axisList(spec->shardAxes[d] & line.axes) +
              " already split dimension " + std::to_string(d) +
              " (each axis splits a tensor once)";
      return false;
    }
  if (spec->shape[line.dim] % (devices * line.groups)) {
    error = what + "dimension " + std::to_string(line.dim) + " (" +
            std::to_string(spec->shape[line.dim]) + ") does not divide into " +
            (line.groups > 1 ? std::to_string(line.groups) + " groups of " +
                                   std::to_string(devices)
                             : std::to_string(devices)) +
            " shards (mesh axes " + line.axesText + " of the mesh " +
            out.meshText() + ")";
    return false;
  }
  spec->shardAxes[line.dim] = line.axes;
  spec->shardGroups[line.dim] = line.groups;
  return true;
}

bool parseMeta(const std::string &line, Interface &out, std::string &error) {
  size_t at = 5;
  std::string key;
  if (!word(line, at, key) || at == line.size()) {
    error = "expected 'meta <key> <value>', got '" + line + "'";
    return false;
  }
  if (out.findMeta(key)) {
    error = "duplicate meta key '" + key + "'";
    return false;
  }
  out.meta.emplace_back(key, line.substr(at));
  return true;
}

bool applyRange(const RangeLine &line, Interface &out, std::string &error) {
  TensorSpec *spec = nullptr;
  for (TensorSpec &argument : out.arguments)
    if (argument.name == line.name)
      spec = &argument;
  if (!spec || spec->role != Role::Input || !spec->isInteger()) {
    error = line.where + "range of '" + line.name + "': " +
            (!spec ? "no such argument"
             : spec->role != Role::Input
                 ? "not an input"
                 : "not an integer input (" + spec->typeText() + ")");
    return false;
  }
  if (spec->range) {
    error = line.where + "duplicate range of '" + line.name + "'";
    return false;
  }
  int64_t lowest;
  uint64_t highest;
  integerLimits(spec->dtype, lowest, highest);
  if (line.range - 1 > highest) {
    error = line.where + "range " + std::to_string(line.range) + " of '" +
            line.name + "' does not fit its dtype " +
            distrt_dtype_name(spec->dtype);
    return false;
  }
  spec->range = line.range;
  return true;
}

/// `ignore` widens a range: the input must have one, and the value must
/// fit its dtype.
bool applyIgnore(const IgnoreLine &line, Interface &out, std::string &error) {
  TensorSpec *spec = nullptr;
  for (TensorSpec &argument : out.arguments)
    if (argument.name == line.name)
      spec = &argument;
  std::string what = line.where + "ignore of '" + line.name + "': ";
  if (!spec || spec->role != Role::Input || !spec->isInteger()) {
    error = what + (!spec ? "no such argument"
                    : spec->role != Role::Input
                        ? "not an input"
                        : "not an integer input (" + spec->typeText() + ")");
    return false;
  }
  if (!spec->range) {
    error = what + "the input has no 'range' line (an ignored value is "
                   "one besides its range)";
    return false;
  }
  if (spec->hasIgnore) {
    error = line.where + "duplicate ignore of '" + line.name + "'";
    return false;
  }
  int64_t lowest;
  uint64_t highest;
  integerLimits(spec->dtype, lowest, highest);
  if (line.value < lowest ||
      (line.value > 0 && static_cast<uint64_t>(line.value) > highest)) {
    error = what + "value " + std::to_string(line.value) +
            " does not fit its dtype " + distrt_dtype_name(spec->dtype);
    return false;
  }
  spec->hasIgnore = true;
  spec->ignore = line.value;
  return true;
}

/// At most one argument of `role` (step, seed), an int64 scalar.
bool checkCounter(const Interface &out, Role role, std::string &error) {
  std::vector<const TensorSpec *> specs = out.withRole(role);
  if (specs.size() > 1) {
    error = std::string("more than one '") + roleName(role) + "' argument ('" +
            specs[0]->name + "', '" + specs[1]->name + "')";
    return false;
  }
  if (!specs.empty() &&
      (specs[0]->dtype != DISTRT_I64 || specs[0]->rank != 0)) {
    error = std::string(roleName(role)) + " '" + specs[0]->name +
            "' must be an int64 scalar, not " + specs[0]->typeText();
    return false;
  }
  return true;
}

/// Each hparam: a float64 scalar whose name makes an option, with a `meta`
/// line of the same name holding its compiled value, a number. (Argument
/// names are unique, so hparam names are too.)
bool checkHparams(Interface &out, std::string &error) {
  for (TensorSpec &spec : out.arguments) {
    if (spec.role != Role::Hparam)
      continue;
    if (spec.dtype != DISTRT_F64 || spec.rank != 0) {
      error = "hparam '" + spec.name + "' must be a float64 scalar, not " +
              spec.typeText();
      return false;
    }
    if (!checkHparamName(spec.name, error))
      return false;
    const std::string *value = out.findMeta(spec.name);
    if (!value) {
      error = "hparam '" + spec.name + "' has no 'meta " + spec.name +
              " <value>' line (its compiled value, the default of " +
              hparamFlag(spec.name) + ")";
      return false;
    }
    if (!parseFiniteNumber(*value, spec.hparamDefault)) {
      error = "hparam '" + spec.name + "': its compiled value 'meta " +
              spec.name + " " + *value + "' is not a finite number";
      return false;
    }
  }
  return true;
}

/// What the driver relies on in a trainer: at most one step and one seed,
/// int64 scalars, hparams it can set, and the three outputs it prints.
bool checkTrainer(Interface &out, std::string &error) {
  if (!checkCounter(out, Role::Step, error) ||
      !checkCounter(out, Role::Seed, error) || !checkHparams(out, error))
    return false;
  static const char *const kOutputs[] = {"loss", "grad_norm", "lr"};
  bool ok = out.outputs.size() == 3;
  for (size_t i = 0; ok && i < 3; ++i)
    ok = out.outputs[i].name == kOutputs[i] &&
         out.outputs[i].dtype == DISTRT_F32 && out.outputs[i].rank == 0;
  if (!ok) {
    std::string got;
    for (const TensorSpec &spec : out.outputs)
      got +=
          (got.empty() ? "" : ", ") + spec.name + " (" + spec.typeText() + ")";
    error = "a trainer's outputs must be loss, grad_norm and lr, float32 "
            "scalars in that order; got " +
            (got.empty() ? std::string("none") : got);
    return false;
  }
  return true;
}

} // namespace

const char *roleName(Role role) {
  switch (role) {
  case Role::Input:
    return "input";
  case Role::Step:
    return "step";
  case Role::Seed:
    return "seed";
  case Role::Hparam:
    return "hparam";
  case Role::Param:
    return "param";
  case Role::State:
    return "state";
  case Role::Output:
    return "output";
  }
  return "?";
}

int64_t TensorSpec::elements() const {
  int64_t elements = 1;
  for (int32_t i = 0; i < rank; ++i)
    elements *= shape[i];
  return elements;
}

size_t TensorSpec::bytes() const {
  return static_cast<size_t>(elements()) * distrt_dtype_size(dtype);
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

bool TensorSpec::isInteger() const { return isIntegerDtype(dtype); }

bool TensorSpec::accepts(__int128 value) const {
  return !range || (value >= 0 && value < static_cast<__int128>(range)) ||
         (hasIgnore && value == ignore);
}

std::string TensorSpec::rangeText() const {
  if (!range)
    return "";
  return "[0, " + std::to_string(range) + ")" +
         (hasIgnore ? " or " + std::to_string(ignore) : "");
}

bool TensorSpec::hasShards() const {
  for (int32_t d = 0; d < rank; ++d)
    if (shardAxes[d])
      return true;
  return false;
}

std::string TensorSpec::shardText() const {
  std::string text;
  for (int32_t d = 0; d < rank; ++d) {
    if (!shardAxes[d])
      continue;
    std::string axes = axisList(shardAxes[d]);
    text += (text.empty() ? "dim " : ", dim ") + std::to_string(d) +
            (axes.size() > 1 ? " over mesh axes " : " over mesh axis ") + axes;
    if (shardGroups[d] > 1)
      text += " in " + std::to_string(shardGroups[d]) + " groups";
  }
  return text;
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

std::vector<const TensorSpec *> Interface::withRole(Role role) const {
  std::vector<const TensorSpec *> specs;
  for (const TensorSpec &spec : role == Role::Output ? outputs : arguments)
    if (spec.role == role)
      specs.push_back(&spec);
  return specs;
}

const std::string *Interface::findMeta(const std::string &key) const {
  for (const auto &entry : meta)
    if (entry.first == key)
      return &entry.second;
  return nullptr;
}

const TensorSpec *Interface::resolveAssignment(const std::string &value,
                                               std::string &file) const {
  const TensorSpec *best = nullptr;
  for (const TensorSpec &spec : arguments)
    if (value.size() > spec.name.size() &&
        value.compare(0, spec.name.size(), spec.name) == 0 &&
        value[spec.name.size()] == '=' &&
        (!best || spec.name.size() > best->name.size()))
      best = &spec;
  if (best)
    file = value.substr(best->name.size() + 1);
  return best;
}

int64_t Interface::devices() const {
  int64_t devices = 1;
  for (int64_t size : mesh)
    devices *= size;
  return devices;
}

std::string Interface::meshText() const {
  std::string text;
  for (size_t axis = 0; axis < mesh.size(); ++axis)
    text += (axis ? "x" : "") + std::to_string(mesh[axis]);
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

bool isIntegerDtype(distrt_dtype dtype) {
  switch (dtype) {
  case DISTRT_I64:
  case DISTRT_I32:
  case DISTRT_I16:
  case DISTRT_I8:
  case DISTRT_U64:
  case DISTRT_U32:
  case DISTRT_U16:
  case DISTRT_U8:
    return true;
  default:
    return false;
  }
}

void integerLimits(distrt_dtype dtype, int64_t &lowest, uint64_t &highest) {
  size_t bits = 8 * distrt_dtype_size(dtype);
  bool isSigned = dtype == DISTRT_I64 || dtype == DISTRT_I32 ||
                  dtype == DISTRT_I16 || dtype == DISTRT_I8;
  if (isSigned) {
    highest = (uint64_t(1) << (bits - 1)) - 1;
    lowest = -static_cast<int64_t>(highest) - 1;
  } else {
    highest = bits == 64 ? std::numeric_limits<uint64_t>::max()
                         : (uint64_t(1) << bits) - 1;
    lowest = 0;
  }
}

bool parseInterface(const char *text, Interface &out, std::string &error) {
  out = Interface();
  std::string all = text ? text : "";
  std::set<std::string> argumentNames, outputNames;
  std::vector<RangeLine> ranges;
  std::vector<IgnoreLine> ignores;
  std::vector<ShardLine> shards;
  int targetLine = 0; // the line of the `target` line, 0 while none
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
    if (line.rfind("mode ", 0) == 0) {
      if (number != 2 || line != "mode train") {
        error = where + (number != 2 ? "'mode' must be on line 2"
                                     : "unknown mode '" + line.substr(5) +
                                           "' (the only one is 'train')");
        return false;
      }
      out.train = true;
      continue;
    }
    if (line.rfind("target ", 0) == 0) {
      if (targetLine) {
        error = where + "a second 'target' line (the first is line " +
                std::to_string(targetLine) + ")";
        return false;
      }
      targetLine = number;
      std::string target = line.substr(7);
      size_t space = target.find(' ');
      std::string arch =
          space == std::string::npos ? "" : target.substr(space + 1);
      target = target.substr(0, space);
      if (target == "cpu" && space == std::string::npos)
        continue;
      if (target != "cuda" || arch.empty() ||
          arch.find(' ') != std::string::npos) {
        error = where +
                "expected 'target cpu' or 'target cuda <arch>' (e.g. "
                "'target cuda sm_90'), got '" +
                line + "'";
        return false;
      }
      out.cuda = true;
      out.arch = arch;
      continue;
    }
    if (line.rfind("flops ", 0) == 0) {
      std::string count = line.substr(6);
      char *end = nullptr;
      errno = 0;
      long long value = std::strtoll(count.c_str(), &end, 10);
      if (out.flopsPerStep || count.empty() || *end || errno || value < 1 ||
          !std::isdigit(static_cast<unsigned char>(count[0]))) {
        error =
            where + (out.flopsPerStep ? std::string("a second 'flops' line")
                                      : "expected 'flops <count>' (a positive "
                                        "integer), got '" +
                                            line + "'");
        return false;
      }
      out.flopsPerStep = value;
      continue;
    }
    if (line.rfind("mesh ", 0) == 0) {
      if (!parseMesh(line, out, error)) {
        error = where + error;
        return false;
      }
      continue;
    }
    if (line.rfind("shard ", 0) == 0) {
      shards.emplace_back();
      shards.back().where = where;
      if (!parseShard(line, shards.back(), error)) {
        error = where + error;
        return false;
      }
      continue;
    }
    bool isRange = line.rfind("range ", 0) == 0,
         isIgnore = line.rfind("ignore ", 0) == 0,
         isMeta = line.rfind("meta ", 0) == 0;
    if ((isRange || isIgnore || isMeta) && !out.train) {
      error = where + "'" + line.substr(0, line.find(' ')) +
              "' lines need 'mode train' on line 2";
      return false;
    }
    if (isRange) {
      ranges.emplace_back();
      ranges.back().where = where;
      if (!parseRange(line, ranges.back(), error)) {
        error = where + error;
        return false;
      }
      continue;
    }
    if (isIgnore) {
      ignores.emplace_back();
      ignores.back().where = where;
      if (!parseIgnore(line, ignores.back(), error)) {
        error = where + error;
        return false;
      }
      continue;
    }
    if (isMeta) {
      if (!parseMeta(line, out, error)) {
        error = where + error;
        return false;
      }
      continue;
    }
    TensorSpec spec;
    if (!parseLine(line, out.train, spec, error)) {
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
  for (const RangeLine &range : ranges)
    if (!applyRange(range, out, error))
      return false;
  for (const IgnoreLine &ignore : ignores)
    if (!applyIgnore(ignore, out, error))
      return false;
  for (const ShardLine &shard : shards)
    if (!applyShard(shard, out, error))
      return false;
  return !out.train || checkTrainer(out, error);
}

} // namespace distrt::model
