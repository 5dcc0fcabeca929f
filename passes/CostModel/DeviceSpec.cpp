//===- DeviceSpec.cpp - Device descriptions from JSON ---------------------===//

#include "passes/CostModel/DeviceSpec.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"

using namespace mlir;
using namespace mlir::dist::cost;

namespace {

/// devices/*.json, embedded at configure time.
struct Builtin {
  const char *name;
  const char *json;
};
constexpr Builtin kBuiltins[] = {
#include "passes/CostModel/BuiltinDeviceSpecs.inc"
};

constexpr const char *kPrecisionNames[kPrecisions] = {"fp32", "tf32", "bf16",
                                                       "fp16"};

/// Reads the fields of one JSON object, recording the first problem.
class Reader {
public:
  Reader(const llvm::json::Object &object, std::string where,
         std::string &error)
      : object(object), where(std::move(where)), error(error) {}

  /// A positive number (or `fallback` when absent and not `required`).
  double number(StringRef key, bool required = true, double fallback = 0) {
    const llvm::json::Value *value = object.get(key);
    if (!value) {
      if (required)
        fail("'" + key + "' is missing");
      return fallback;
    }
    std::optional<double> n = value->getAsNumber();
    if (!n || !(*n > 0)) {
      fail("'" + key + "' must be a positive number");
      return fallback;
    }
    return *n;
  }
  const llvm::json::Object *object_(StringRef key) {
    const llvm::json::Object *inner = object.getObject(key);
    if (!inner)
      fail("'" + key + "' must be an object");
    return inner;
  }
  std::string string(StringRef key) {
    if (std::optional<StringRef> s = object.getString(key))
      return s->str();
    fail("'" + key + "' must be a string");
    return "";
  }
  void fail(const Twine &message) {
    if (error.empty())
      error = where + ": " + message.str();
  }
  bool ok() const { return error.empty(); }

private:
  const llvm::json::Object &object;
  std::string where;
  std::string &error;
};

Link readLink(const llvm::json::Object *object, const std::string &where,
              std::string &error) {
  Link link;
  if (!object)
    return link;
  Reader r(*object, where, error);
  link.bandwidth = r.number("bandwidth");
  link.latency = r.number("latency");
  return link;
}

} // namespace

StringRef mlir::dist::cost::precisionName(Precision precision) {
  return kPrecisionNames[static_cast<int>(precision)];
}

FailureOr<DeviceSpec> mlir::dist::cost::parseDeviceSpec(StringRef json,
                                                       StringRef what,
                                                       std::string &error) {
  llvm::Expected<llvm::json::Value> parsed = llvm::json::parse(json);
  if (!parsed) {
    error = (what + ": not JSON: " + llvm::toString(parsed.takeError())).str();
    return failure();
  }
  const llvm::json::Object *root = parsed->getAsObject();
  if (!root) {
    error = (what + ": a device description is a JSON object").str();
    return failure();
  }
  DeviceSpec spec;
  Reader r(*root, what.str(), error);
  spec.name = r.string("name");
  if (std::optional<StringRef> text = root->getString("description"))
    spec.description = text->str();
  if (const llvm::json::Object *peaks = r.object_("peak_flops")) {
    Reader p(*peaks, what.str() + ": peak_flops", error);
    spec.peakFlops[0] = p.number("fp32");
    // Precisions without a figure of their own run at the next one's rate.
    spec.peakFlops[1] = p.number("tf32", false, spec.peakFlops[0]);
    spec.peakFlops[2] = p.number("bf16", false, spec.peakFlops[1]);
    spec.peakFlops[3] = p.number("fp16", false, spec.peakFlops[2]);
  }
  spec.memoryBandwidth = r.number("memory_bandwidth");
  spec.memoryBytes = r.number("memory_bytes");
  if (const llvm::json::Object *achievable = r.object_("achievable")) {
    Reader a(*achievable, what.str() + ": achievable", error);
    spec.gemmEfficiency = a.number("gemm");
    spec.memoryEfficiency = a.number("memory");
    if (spec.gemmEfficiency > 1 || spec.memoryEfficiency > 1)
      a.fail("fractions of peak are at most 1");
  }
  spec.devicesPerHost =
      static_cast<int64_t>(r.number("devices_per_host", false, 1));
  if (const llvm::json::Value *overlap = root->get("overlap")) {
    std::optional<double> f = overlap->getAsNumber();
    if (!f || !(*f >= 0 && *f <= 1))
      r.fail("'overlap' must be a number from 0 to 1");
    else
      spec.overlap = *f;
  }
  spec.intraHost = readLink(r.object_("intra_host"),
                            what.str() + ": intra_host", error);
  if (root->get("inter_host"))
    spec.interHost = readLink(r.object_("inter_host"),
                              what.str() + ": inter_host", error);
  else
    spec.interHost = spec.intraHost;
  if (const llvm::json::Object *sources = root->getObject("sources"))
    for (const auto &[key, value] : *sources)
      if (std::optional<StringRef> text = value.getAsString())
        spec.sources[key.str()] = text->str();
  if (!r.ok())
    return failure();
  return spec;
}

FailureOr<DeviceSpec> mlir::dist::cost::loadDeviceSpec(StringRef nameOrPath,
                                                      std::string &error) {
  for (const Builtin &builtin : kBuiltins)
    if (nameOrPath == builtin.name)
      return parseDeviceSpec(builtin.json,
                             ("devices/" + nameOrPath + ".json").str(), error);
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> file =
      llvm::MemoryBuffer::getFile(nameOrPath);
  if (!file) {
    error = "--device-spec=" + nameOrPath.str() +
            ": neither a built-in device (";
    llvm::raw_string_ostream os(error);
    llvm::interleave(builtinDeviceSpecs(), os, ", ");
    os << ") nor a readable file (" << file.getError().message() << ")";
    return failure();
  }
  return parseDeviceSpec((*file)->getBuffer(), nameOrPath, error);
}

SmallVector<StringRef> mlir::dist::cost::builtinDeviceSpecs() {
  SmallVector<StringRef> names;
  for (const Builtin &builtin : kBuiltins)
    names.push_back(builtin.name);
  llvm::sort(names);
  return names;
}
