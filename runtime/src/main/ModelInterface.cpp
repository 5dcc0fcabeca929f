//===- ModelInterface.cpp - Parses a compiled model's interface -----------===//
//
// dist_model_interface is one JSON object (distrt/model.h); core/Json.cpp
// parses it into a tree, and this file checks the tree against the schema
// and what the driver relies on, naming the member that is wrong
// ("arguments[2] 'labels': ...").
//
//===----------------------------------------------------------------------===//

#include "ModelInterface.h"
#include "Hyperparameters.h"

#include "../core/Json.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>
#include <set>
#include <tuple>

namespace distrt::model {

namespace {

using json::Value;

/// The mesh axes in `mask` as "0" or "0,2".
std::string axisList(int64_t mask) {
  std::string text;
  for (int axis = 0; axis < DISTRT_MAX_MESH_DIMS; ++axis)
    if (mask >> axis & 1)
      text += (text.empty() ? "" : ",") + std::to_string(axis);
  return text;
}

/// Reads one JSON object's members by name, each at most once; `done`
/// reports a member nobody asked for (a typo in a hand-written interface
/// must not pass silently).
class Fields {
public:
  Fields(const Value &object, std::string where, std::string &error)
      : object(object), where(std::move(where)), error(error) {}

  /// Checks that the value is an object with no duplicate keys.
  bool isObject() {
    if (object.kind != Value::Object)
      return fail("expected an object, got " +
                  std::string(json::kindName(object.kind)));
    std::set<std::string> keys;
    for (const json::Member &member : object.members)
      if (!keys.insert(member.key).second)
        return fail("duplicate key " + json::quote(member.key));
    return true;
  }

  /// Whether the object has member `key` (not marking it as read).
  bool has(const char *key) const { return object.find(key) != nullptr; }

  /// The member `key`, or nullptr; marks it as read.
  const Value *get(const char *key) {
    known.insert(key);
    return object.find(key);
  }

  /// A required member of `kind`.
  const Value *require(const char *key, Value::Kind kind) {
    const Value *value = get(key);
    if (!value) {
      fail("missing " + json::quote(key));
      return nullptr;
    }
    if (value->kind != kind) {
      fail(json::quote(key) + " must be " + json::kindName(kind) + ", got " +
           json::kindName(value->kind));
      return nullptr;
    }
    return value;
  }

  /// An optional member of `kind`; `ok` is false when it has another kind.
  const Value *optional(const char *key, Value::Kind kind, bool &ok) {
    const Value *value = get(key);
    ok = !value || value->kind == kind;
    if (!ok)
      fail(json::quote(key) + " must be " + json::kindName(kind) + ", got " +
           json::kindName(value->kind));
    return ok ? value : nullptr;
  }

  /// Fails on the first member that was not read.
  bool done() {
    for (const json::Member &member : object.members)
      if (!known.count(member.key)) {
        std::string expected;
        for (const std::string &key : known)
          expected += (expected.empty() ? "" : ", ") + json::quote(key);
        return fail("unknown key " + json::quote(member.key) + " (expected " +
                    expected + ")");
      }
    return true;
  }

  bool fail(const std::string &what) {
    error = where + what;
    return false;
  }

  const std::string &prefix() const { return where; }

private:
  const Value &object;
  std::string where;
  std::string &error;
  std::set<std::string> known;
};

/// A JSON number written as an integer (no fraction or exponent) that fits
/// in int64.
bool asInt64(const Value &value, int64_t &out) {
  if (value.kind != Value::Number || value.text.empty() ||
      value.text.find_first_of(".eE") != std::string::npos)
    return false;
  const char *end = value.text.data() + value.text.size();
  auto result = std::from_chars(value.text.data(), end, out);
  return result.ec == std::errc() && result.ptr == end;
}

bool parseDtype(Fields &fields, distrt_dtype &dtype) {
  const Value *value = fields.require("dtype", Value::String);
  if (!value)
    return false;
  for (int d = 0; d < DISTRT_NUM_DTYPES; ++d)
    if (value->text == distrt_dtype_name(static_cast<distrt_dtype>(d))) {
      dtype = static_cast<distrt_dtype>(d);
      return true;
    }
  std::string known;
  for (int d = 0; d < DISTRT_NUM_DTYPES; ++d)
    known += (d ? ", " : "") +
             std::string(distrt_dtype_name(static_cast<distrt_dtype>(d)));
  return fields.fail("unknown dtype " + json::quote(value->text) + " (" +
                     known + ")");
}

/// "shape": [dims...], [] for a scalar.
bool parseShape(Fields &fields, TensorSpec &spec) {
  const Value *shape = fields.require("shape", Value::Array);
  if (!shape)
    return false;
  // Keep the byte size of every tensor far from overflowing.
  constexpr int64_t kMaxElements = int64_t(1) << 48;
  if (shape->items.size() > DISTRT_MAX_RANK)
    return fields.fail("\"shape\" has more than " +
                       std::to_string(DISTRT_MAX_RANK) + " dimensions");
  int64_t elements = 1;
  spec.rank = 0;
  for (const Value &item : shape->items) {
    int64_t dim;
    if (!asInt64(item, dim) || dim < 0)
      return fields.fail("\"shape\" must hold sizes (integers of at least "
                         "0), [] for a scalar");
    if (dim != 0 && elements > kMaxElements / dim)
      return fields.fail("\"shape\" has more than 2^48 elements");
    elements *= dim;
    spec.shape[spec.rank++] = dim;
  }
  return true;
}

/// A mesh dimension split, resolved once the mesh is known.
struct Split {
  std::string where;
  int64_t dim = 0;
  int64_t axes = 0; // bit i = mesh axis i
  std::string axesText;
  int64_t groups = 1;
};

/// "split": [{"dim": D, "axes": [A, ...], "groups": G}, ...].
bool parseSplits(Fields &fields, std::vector<Split> &splits,
                 std::string &error) {
  bool ok;
  const Value *list = fields.optional("split", Value::Array, ok);
  if (!list)
    return ok;
  for (size_t i = 0; i < list->items.size(); ++i) {
    Split split;
    split.where = fields.prefix() + "split[" + std::to_string(i) + "]: ";
    Fields entry(list->items[i], split.where, error);
    if (!entry.isObject())
      return false;
    const Value *dim = entry.require("dim", Value::Number);
    const Value *axes = dim ? entry.require("axes", Value::Array) : nullptr;
    if (!axes)
      return false;
    if (!asInt64(*dim, split.dim) || split.dim < 0)
      return entry.fail("\"dim\" must be a dimension number (0 or more)");
    int64_t last = -1;
    for (const Value &item : axes->items) {
      int64_t axis;
      if (!asInt64(item, axis) || axis < 0 || axis >= DISTRT_MAX_MESH_DIMS ||
          axis <= last)
        return entry.fail("\"axes\" must be mesh axis numbers below " +
                          std::to_string(DISTRT_MAX_MESH_DIMS) +
                          ", strictly increasing");
      split.axes |= int64_t(1) << axis;
      split.axesText += (last < 0 ? "" : ",") + std::to_string(axis);
      last = axis;
    }
    if (!split.axes)
      return entry.fail("\"axes\" is empty (a dimension split over no axis "
                        "is whole: leave it out)");
    if (const Value *groups = entry.optional("groups", Value::Number, ok))
      if (!asInt64(*groups, split.groups) || split.groups < 1)
        return entry.fail("\"groups\" must be an integer of at least 1");
    if (!ok || !entry.done())
      return false;
    splits.push_back(split);
  }
  return true;
}

/// "mesh axis 2, but the mesh is 2x2 (2 axes)", or "..., but there is no
/// "mesh"": what names an axis the mesh lacks.
std::string missingAxis(int axis, const Interface &out) {
  return "mesh axis " + std::to_string(axis) + ", but " +
         (out.mesh.empty() ? std::string("there is no \"mesh\"")
                           : "the mesh is " + out.meshText() + " (" +
                                 std::to_string(out.mesh.size()) +
                                 (out.mesh.size() == 1 ? " axis)" : " axes)"));
}

bool applySplit(const Split &split, const Interface &out, TensorSpec &spec,
                std::string &error) {
  const std::string &what = split.where;
  int64_t devices = 1;
  for (int axis = 0; axis < DISTRT_MAX_MESH_DIMS; ++axis) {
    if (!(split.axes >> axis & 1))
      continue;
    if (axis >= static_cast<int>(out.mesh.size())) {
      error = what + missingAxis(axis, out);
      return false;
    }
    devices *= out.mesh[axis];
  }
  if (split.dim >= spec.rank) {
    error = what + "dimension " + std::to_string(split.dim) + ", but '" +
            spec.name + "' is " + spec.typeText();
    return false;
  }
  if (spec.shardAxes[split.dim]) {
    error = what + "dimension " + std::to_string(split.dim) +
            " is already split (a second entry)";
    return false;
  }
  for (int32_t d = 0; d < spec.rank; ++d)
    if (spec.shardAxes[d] & split.axes) {
      error = what + "mesh axes " + axisList(spec.shardAxes[d] & split.axes) +
              " already split dimension " + std::to_string(d) +
              " (each axis splits a tensor once)";
      return false;
    }
  int64_t pieces;
  if (__builtin_mul_overflow(devices, split.groups, &pieces) ||
      spec.shape[split.dim] % pieces) {
    error = what + "dimension " + std::to_string(split.dim) + " (" +
            std::to_string(spec.shape[split.dim]) + ") does not divide into " +
            (split.groups > 1 ? std::to_string(split.groups) + " groups of " +
                                    std::to_string(devices)
                              : std::to_string(devices)) +
            " shards (mesh axes " + split.axesText + " of the mesh " +
            out.meshText() + ")";
    return false;
  }
  spec.shardAxes[split.dim] = split.axes;
  spec.shardGroups[split.dim] = split.groups;
  return true;
}

/// "range": N and "ignore": V of an integer input (of a trainer, or of the
/// workers' gradient function in parameter-server mode).
bool parseRange(Fields &fields, TensorSpec &spec) {
  bool ok;
  const Value *range = fields.optional("range", Value::Number, ok);
  if (!ok)
    return false;
  const Value *ignore = fields.optional("ignore", Value::Number, ok);
  if (!ok)
    return false;
  if (!range && !ignore)
    return true;
  const char *key = range ? "\"range\"" : "\"ignore\"";
  if (spec.role != Role::Input || !spec.isInteger())
    return fields.fail(std::string(key) + " is for integer inputs, not " +
                       roleName(spec.role) + " " + spec.typeText());
  if (!range)
    return fields.fail("\"ignore\" without \"range\" (an ignored value is "
                       "one besides the range)");
  int64_t lowest;
  uint64_t highest;
  integerLimits(spec.dtype, lowest, highest);
  if (!range->asUint64(spec.range) || spec.range == 0)
    return fields.fail("\"range\" must be a positive integer");
  if (spec.range - 1 > highest)
    return fields.fail("\"range\" " + std::to_string(spec.range) +
                       " does not fit the dtype " +
                       distrt_dtype_name(spec.dtype));
  if (!ignore)
    return true;
  if (!asInt64(*ignore, spec.ignore))
    return fields.fail("\"ignore\" must be an integer (e.g. -100)");
  if (spec.ignore < lowest ||
      (spec.ignore > 0 && static_cast<uint64_t>(spec.ignore) > highest))
    return fields.fail("\"ignore\" " + std::to_string(spec.ignore) +
                       " does not fit the dtype " +
                       distrt_dtype_name(spec.dtype));
  spec.hasIgnore = true;
  return true;
}

/// "init": VALUE of a trainer's float state tensor.
bool parseInit(Fields &fields, bool train, TensorSpec &spec) {
  bool ok;
  const Value *init = fields.optional("init", Value::Number, ok);
  if (!ok || !init)
    return ok;
  if (!train || spec.role != Role::State ||
      (spec.dtype != DISTRT_F32 && spec.dtype != DISTRT_F64))
    return fields.fail("\"init\" is for a trainer's float32 or float64 "
                       "state, not " +
                       std::string(roleName(spec.role)) + " " +
                       spec.typeText());
  if (!parseFiniteNumber(init->text, spec.init) ||
      (spec.dtype == DISTRT_F32 &&
       std::fabs(spec.init) > std::numeric_limits<float>::max()))
    return fields.fail("\"init\" " + init->text +
                       " is not a finite number of the dtype");
  return true;
}

/// "place": {"axis": AXIS, "stages": [STAGE, ...]}: its form, on a param
/// or state argument; checkPlace checks it against the mesh and the splits
/// once they are known.
bool parsePlace(Fields &fields, bool isOutput, TensorSpec &spec,
                std::string &error) {
  // A stage holds what it updates; every rank gets the inputs, step, seed
  // and hyperparameters, and returns the outputs (whose other members'
  // errors do not list "place").
  if (isOutput)
    return !fields.has("place") ||
           fields.fail("place: every rank returns the outputs; only param "
                       "and state arguments are placed on stages");
  bool ok;
  const Value *place = fields.optional("place", Value::Object, ok);
  if (!place)
    return ok;
  Fields entry(*place, fields.prefix() + "place: ", error);
  if (spec.role != Role::Param && spec.role != Role::State)
    return entry.fail("every rank gets the " +
                      json::quote(roleName(spec.role)) +
                      " arguments; only param and state arguments are "
                      "placed on stages");
  if (!entry.isObject())
    return false;
  const Value *axis = entry.require("axis", Value::Number);
  const Value *stages = axis ? entry.require("stages", Value::Array) : nullptr;
  if (!stages)
    return false;
  int64_t number;
  if (!asInt64(*axis, number) || number < 0 || number >= DISTRT_MAX_MESH_DIMS)
    return entry.fail("\"axis\" must be a mesh axis number below " +
                      std::to_string(DISTRT_MAX_MESH_DIMS));
  spec.placeAxis = static_cast<int32_t>(number);
  for (const Value &item : stages->items) {
    int64_t stage;
    if (!asInt64(item, stage) || stage < 0 ||
        (!spec.stages.empty() && stage <= spec.stages.back()))
      return entry.fail("\"stages\" must be stage numbers (0 or more), "
                        "strictly increasing");
    spec.stages.push_back(stage);
  }
  if (spec.stages.empty())
    return entry.fail("\"stages\" is empty (no rank would hold the "
                      "tensor)");
  return entry.done();
}

/// Argument `index`'s "place" against the mesh and its splits: its axis is
/// one of the mesh's, its stages are coordinates on it, and the axis does
/// not also split it (a stage's ranks must hold the same tensor, or their
/// shards of it over the other axes).
bool checkPlace(const Interface &out, size_t index, std::string &error) {
  const TensorSpec &spec = out.arguments[index];
  if (spec.placeAxis < 0)
    return true;
  std::string what =
      "arguments[" + std::to_string(index) + "] '" + spec.name + "': place: ";
  int32_t axis = spec.placeAxis;
  if (axis >= static_cast<int32_t>(out.mesh.size())) {
    error = what + missingAxis(axis, out);
    return false;
  }
  int64_t size = out.mesh[axis];
  if (spec.stages.back() >= size) {
    error = what + "stage " + std::to_string(spec.stages.back()) +
            ", but mesh axis " + std::to_string(axis) + " has " +
            (size == 1 ? std::string("1 stage (0)")
                       : std::to_string(size) + " stages (0 to " +
                             std::to_string(size - 1) + ")");
    return false;
  }
  for (int32_t d = 0; d < spec.rank; ++d)
    if (spec.shardAxes[d] >> axis & 1) {
      error = what + "mesh axis " + std::to_string(axis) +
              " also splits dimension " + std::to_string(d) +
              " (a stage's ranks hold the tensor, split over the other "
              "axes only)";
      return false;
    }
  return true;
}

const Role kArgumentRoles[] = {Role::Input, Role::Step,  Role::Seed,
                               Role::Hparam, Role::Param, Role::State};

/// One element of "arguments" (with "role") or "outputs" (without).
bool parseTensor(const Value &value, const std::string &where, bool isOutput,
                 bool train, TensorSpec &spec, std::vector<Split> &splits,
                 std::string &error) {
  Fields fields(value, where, error);
  if (!fields.isObject())
    return false;
  const Value *name = fields.require("name", Value::String);
  if (!name)
    return false;
  if (name->text.empty())
    return fields.fail("\"name\" is empty");
  spec.name = name->text;
  Fields named(value, where + "'" + spec.name + "': ", error);
  named.get("name");
  spec.role = Role::Output;
  if (!isOutput) {
    const Value *role = named.require("role", Value::String);
    if (!role)
      return false;
    bool known = false;
    for (Role r : kArgumentRoles)
      if (role->text == roleName(r)) {
        spec.role = r;
        known = true;
      }
    bool trainerOnly = spec.role == Role::Step || spec.role == Role::Seed ||
                       spec.role == Role::Hparam || spec.role == Role::State;
    if (!known || (trainerOnly && !train))
      return named.fail(
          "\"role\" " + json::quote(role->text) +
          (known ? " is for trainers (\"mode\": \"train\")"
                 : std::string(" is unknown (") +
                       (train ? "input, step, seed, hparam, param or state"
                              : "input or param") +
                       ")"));
  }
  if (!parseDtype(named, spec.dtype) || !parseShape(named, spec) ||
      !parseSplits(named, splits, error) ||
      !parsePlace(named, isOutput, spec, error) ||
      (!isOutput && (!parseRange(named, spec) ||
                     !parseInit(named, train, spec))))
    return false;
  return named.done();
}

/// "mesh": [sizes]: 1 to DISTRT_MAX_MESH_DIMS sizes of at least 1, with
/// fewer than 2^31 devices in all.
bool parseMesh(const Value &mesh, Interface &out, std::string &error) {
  int64_t devices = 1;
  bool ok = !mesh.items.empty() && mesh.items.size() <= DISTRT_MAX_MESH_DIMS;
  for (const Value &item : mesh.items) {
    int64_t size;
    ok = ok && asInt64(item, size) && size >= 1 &&
         size <= std::numeric_limits<int32_t>::max() / devices;
    if (!ok)
      break;
    devices *= size;
    out.mesh.push_back(size);
  }
  if (!ok) {
    out.mesh.clear();
    error = "\"mesh\" must be 1 to " + std::to_string(DISTRT_MAX_MESH_DIMS) +
            " sizes of at least 1, fewer than 2^31 devices in all (e.g. [4] "
            "or [2, 2])";
  }
  return ok;
}

/// "target": {"device": "cpu"} or {"device": "cuda", "arch": "sm_90"}.
bool parseTarget(const Value &target, Interface &out, std::string &error) {
  Fields fields(target, "\"target\": ", error);
  if (!fields.isObject())
    return false;
  const Value *device = fields.require("device", Value::String);
  if (!device)
    return false;
  bool ok;
  const Value *arch = fields.optional("arch", Value::String, ok);
  if (!ok)
    return false;
  if (device->text == "cuda") {
    if (!arch || arch->text.empty())
      return fields.fail("\"cuda\" needs \"arch\" (e.g. \"sm_90\")");
    out.cuda = true;
    out.arch = arch->text;
  } else if (device->text != "cpu" || arch) {
    return fields.fail("expected {\"device\": \"cpu\"} or {\"device\": "
                       "\"cuda\", \"arch\": \"sm_90\"}");
  }
  return fields.done();
}

/// "meta": {"key": value, ...}: strings, numbers (kept as written) and
/// booleans.
bool parseMeta(const Value &meta, Interface &out, std::string &error) {
  Fields fields(meta, "\"meta\": ", error);
  if (!fields.isObject())
    return false;
  for (const json::Member &member : meta.members) {
    const Value &value = member.value;
    if (value.kind == Value::String || value.kind == Value::Number)
      out.meta.emplace_back(member.key, value.text);
    else if (value.kind == Value::Bool)
      out.meta.emplace_back(member.key, value.boolean ? "true" : "false");
    else
      return fields.fail(json::quote(member.key) +
                         " must be a string, a number or a boolean, got " +
                         json::kindName(value.kind));
  }
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

/// Each hparam: a float64 scalar whose name makes an option, with a "meta"
/// entry of the same name holding its compiled value, a number. (Argument
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
      error = "hparam '" + spec.name + "' has no \"meta\" entry " +
              json::quote(spec.name) +
              " (its compiled value, the default of " + hparamFlag(spec.name) +
              ")";
      return false;
    }
    if (!parseFiniteNumber(*value, spec.hparamDefault)) {
      error = "hparam '" + spec.name + "': its compiled value (\"meta\" " +
              json::quote(spec.name) + ": " + json::quote(*value) +
              ") is not a finite number";
      return false;
    }
  }
  return true;
}

/// What the driver relies on in a trainer: at most one step and one seed,
/// int64 scalars, hparams it can set, and the outputs it prints: loss,
/// grad_norm and lr, then with loss scaling loss_scale and skipped.
bool checkTrainer(Interface &out, std::string &error) {
  if (!checkCounter(out, Role::Step, error) ||
      !checkCounter(out, Role::Seed, error) || !checkHparams(out, error))
    return false;
  static const char *const kOutputs[] = {"loss", "grad_norm", "lr",
                                         "loss_scale", "skipped"};
  size_t count = out.outputs.size();
  bool ok = count == 3 || count == 5;
  for (size_t i = 0; ok && i < count; ++i)
    ok = out.outputs[i].name == kOutputs[i] &&
         out.outputs[i].dtype == DISTRT_F32 && out.outputs[i].rank == 0;
  out.lossScaling = ok && count == 5;
  if (!ok) {
    std::string got;
    for (const TensorSpec &spec : out.outputs)
      got +=
          (got.empty() ? "" : ", ") + spec.name + " (" + spec.typeText() + ")";
    error = "a trainer's outputs must be loss, grad_norm and lr (then "
            "loss_scale and skipped, with loss scaling), float32 scalars in "
            "that order; got " +
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

bool TensorSpec::onStage(int64_t stage) const {
  return placeAxis < 0 ||
         std::binary_search(stages.begin(), stages.end(), stage);
}

std::string TensorSpec::placeText() const {
  if (placeAxis < 0)
    return "";
  std::string list;
  for (int64_t stage : stages)
    list += (list.empty() ? "" : ", ") + std::to_string(stage);
  return (stages.size() == 1 ? "stage " : "stages ") + list + " of mesh axis " +
         std::to_string(placeAxis);
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
  Value root;
  if (!json::parse(text ? text : "", root, error))
    return false;
  Fields fields(root, "", error);
  if (!fields.isObject())
    return false;
  const Value *format = fields.get("format");
  const Value *version = fields.get("version");
  uint64_t number = 0;
  if (!format || format->kind != Value::String ||
      format->text != "dist-model" || !version || !version->asUint64(number) ||
      number != 1)
    return fields.fail("expected \"format\": \"dist-model\" and \"version\": 1 "
                       "(an interface this driver reads)");
  bool ok;
  if (const Value *mode = fields.optional("mode", Value::String, ok)) {
    if (mode->text != "train" && mode->text != "forward")
      return fields.fail("\"mode\" must be \"forward\" or \"train\", got " +
                         json::quote(mode->text));
    out.train = mode->text == "train";
  }
  if (!ok)
    return false;
  if (const Value *target = fields.optional("target", Value::Object, ok))
    if (!parseTarget(*target, out, error))
      return false;
  if (!ok)
    return false;
  if (const Value *mesh = fields.optional("mesh", Value::Array, ok))
    if (!parseMesh(*mesh, out, error))
      return false;
  if (!ok)
    return false;
  if (const Value *flops = fields.optional("flops", Value::Number, ok))
    if (!asInt64(*flops, out.flopsPerStep) || out.flopsPerStep < 1)
      return fields.fail("\"flops\" must be a positive integer");
  if (!ok)
    return false;
  if (const Value *meta = fields.optional("meta", Value::Object, ok))
    if (!parseMeta(*meta, out, error))
      return false;
  if (!ok)
    return false;
  // Splits are checked against the mesh once every member is read.
  std::vector<std::tuple<bool, size_t, Split>> splits;
  std::set<std::string> argumentNames, outputNames;
  for (bool isOutput : {false, true}) {
    const char *key = isOutput ? "outputs" : "arguments";
    const Value *list = fields.require(key, Value::Array);
    if (!list)
      return false;
    std::set<std::string> &names = isOutput ? outputNames : argumentNames;
    for (size_t i = 0; i < list->items.size(); ++i) {
      std::string where = std::string(key) + "[" + std::to_string(i) + "] ";
      TensorSpec spec;
      std::vector<Split> own;
      if (!parseTensor(list->items[i], where, isOutput, out.train, spec, own,
                       error))
        return false;
      for (Split &split : own)
        splits.emplace_back(isOutput, i, std::move(split));
      if (!names.insert(spec.name).second)
        return fields.fail(where + "'" + spec.name + "': duplicate " +
                           (isOutput ? "output" : "argument") + " name");
      (isOutput ? out.outputs : out.arguments).push_back(std::move(spec));
    }
  }
  if (!fields.done())
    return false;
  for (const auto &[isOutput, index, split] : splits)
    if (!applySplit(split, out,
                    (isOutput ? out.outputs : out.arguments)[index], error))
      return false;
  for (size_t i = 0; i < out.arguments.size(); ++i)
    if (!checkPlace(out, i, error))
      return false;
  return !out.train || checkTrainer(out, error);
}

} // namespace distrt::model
