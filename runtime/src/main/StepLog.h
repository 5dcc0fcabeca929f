//===- StepLog.h - A trainer's per-step lines -------------------*- C++ -*-===//
//
// The line a trainer prints per step on stdout, and the JSON line
// --log-json writes (formats in docs/trainer-abi.md; scripts parse both).
//
//===----------------------------------------------------------------------===//

#ifndef DISTRT_MAIN_STEPLOG_H
#define DISTRT_MAIN_STEPLOG_H

#include <cstdint>
#include <string>

namespace distrt::model {

/// What one step produced, and how long it took.
struct StepResult {
  int64_t step;
  float loss, gradNorm, lr;
  double ms;
  /// A CUDA program's peak of device memory in use so far, in MiB; negative
  /// for a host program.
  double gpuPeakMiB = -1;
  /// Model FLOPs utilization: the step's matrix-product and convolution
  /// FLOPs (the interface's "flops") per second over the GPU's
  /// peak; negative when either is unknown.
  double mfu = -1;
  /// With loss scaling: the scale the step's backward used, and whether the
  /// step was skipped (inf/nan gradients: parameters and state unchanged,
  /// the scale halved); a negative scale without loss scaling.
  double lossScale = -1;
  bool skipped = false;
  /// The most host tensor memory held at once since the first step
  /// (distrt_host_memory), in MiB; negative when unknown.
  double tensorPeakMiB = -1;
};

/// `step 3 | loss 6.123456 | grad norm 1.2345 | lr 1.000e-03 | 12.3 ms/step
/// | 10400 tokens/s | peak mem 45.6 MiB`, without a newline: `perStep`
/// `unit`s (tokens or samples) per step. A CUDA program's line ends with
/// ` | gpu 812.3 MiB` (its peak of device memory), and ` | MFU 41.2%` when
/// the GPU's peak rate is known. With loss scaling it ends with
/// ` | loss scale 65536`, and ` | skipped (inf/nan gradients)` for a
/// skipped step.
std::string stepLine(const StepResult &result, const char *unit,
                     int64_t perStep, double peakMiB);

/// `{"step": 3, "loss": 6.12345648, "grad_norm": 1.2345, "lr": 0.001,
/// "ms": 12.3456}`, without a newline: float32 values exact (%.9g); NaN and
/// infinities as NaN, Infinity, -Infinity (what Python's json reads). A
/// CUDA program's adds `"gpu_mem_peak_mib": 812.3` (and `"mfu": 0.412`)
/// before the `}`; with loss scaling, `"loss_scale": 65536, "skipped":
/// false`; a host program's, `"tensor_peak_mib": 12.3456`.
std::string stepJson(const StepResult &result);

/// The process's peak resident set so far (getrusage ru_maxrss), in MiB.
double peakMemoryMiB();

} // namespace distrt::model

#endif // DISTRT_MAIN_STEPLOG_H
