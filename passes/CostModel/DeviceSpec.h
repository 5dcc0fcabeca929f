//===- DeviceSpec.h - What a device and its links can do ---------*- C++ -*-===//
//
// The figures the cost model predicts time from: a device's peak
// arithmetic per precision, its memory bandwidth and size, the fractions of
// those that real kernels reach, and the links between devices inside a
// host and across hosts. They come from small JSON files, each figure with
// its source: the project's own (devices/*.json, built in, chosen by name
// with --device-spec=NAME) or a user's (--device-spec=FILE, e.g. one that
// dist-calibrate measured).
//
//===----------------------------------------------------------------------===//

#ifndef PASSES_PLANNER_DEVICESPEC_H
#define PASSES_PLANNER_DEVICESPEC_H

#include "mlir/Support/LLVM.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <map>
#include <string>

namespace mlir::dist::cost {

/// The arithmetic a product runs in.
enum class Precision { fp32, tf32, bf16, fp16 };
inline constexpr int kPrecisions = 4;
StringRef precisionName(Precision precision);

/// One direction of a link between two devices.
struct Link {
  double bandwidth = 0; ///< bytes per second, each way
  double latency = 0;   ///< seconds per message (alpha)
};

struct DeviceSpec {
  std::string name, description;
  /// Dense peak FLOP/s per Precision.
  double peakFlops[kPrecisions] = {};
  double memoryBandwidth = 0; ///< bytes per second
  double memoryBytes = 0;
  /// The fractions of peak that matrix products and memory-bound ops reach.
  double gemmEfficiency = 1, memoryEfficiency = 1;
  int64_t devicesPerHost = 1;
  Link intraHost, interHost;
  /// The fraction of a started collective that runs while the device
  /// computes: 1 where collectives have their own engine (NCCL on its own
  /// stream), about 0 where they progress only inside the library's calls
  /// (MPI without a progress thread: the work happens at the wait).
  double overlap = 1;
  /// Where each figure comes from, by field.
  std::map<std::string, std::string> sources;
};

/// Parses a device description; `what` names it in errors.
FailureOr<DeviceSpec> parseDeviceSpec(StringRef json, StringRef what,
                                      std::string &error);

/// The built-in description `name` (devices/<name>.json), or the file at
/// `nameOrPath` when it names none.
FailureOr<DeviceSpec> loadDeviceSpec(StringRef nameOrPath, std::string &error);

/// The built-in descriptions' names.
SmallVector<StringRef> builtinDeviceSpecs();

} // namespace mlir::dist::cost

#endif // PASSES_PLANNER_DEVICESPEC_H
