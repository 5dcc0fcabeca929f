//===- StepLog.cpp - A trainer's per-step lines ---------------------------===//

#include "StepLog.h"

#include <cmath>
#include <cstdio>
#include <sys/resource.h>

namespace distrt::model {

namespace {

std::string format(const char *format, double value) {
  char text[64];
  std::snprintf(text, sizeof(text), format, value);
  return text;
}

/// A float32 as a JSON number that reads back as the same float32.
std::string jsonFloat(float value) {
  if (std::isnan(value))
    return "NaN";
  if (std::isinf(value))
    return value > 0 ? "Infinity" : "-Infinity";
  return format("%.9g", value);
}

} // namespace

std::string stepLine(const StepResult &result, const char *unit,
                     int64_t perStep, double peakMiB) {
  double seconds = result.ms > 0 ? result.ms * 1e-3 : 1e-9;
  return "step " + std::to_string(result.step) + " | loss " +
         format("%.6f", result.loss) + " | grad norm " +
         format("%.4f", result.gradNorm) + " | lr " +
         format("%.3e", result.lr) + " | " + format("%.1f", result.ms) +
         " ms/step | " +
         format("%.0f", static_cast<double>(perStep) / seconds) + " " + unit +
         "/s | peak mem " + format("%.1f", peakMiB) + " MiB" +
         (result.gpuPeakMiB >= 0
              ? " | gpu " + format("%.1f", result.gpuPeakMiB) + " MiB"
              : "") +
         (result.mfu >= 0 ? " | MFU " + format("%.1f", 100 * result.mfu) + "%"
                          : "") +
         (result.lossScale >= 0
              ? " | loss scale " + format("%.9g", result.lossScale)
              : "") +
         (result.skipped ? " | skipped (inf/nan gradients)" : "");
}

std::string stepJson(const StepResult &result) {
  double ms = std::isfinite(result.ms) ? result.ms : 0;
  return "{\"step\": " + std::to_string(result.step) +
         ", \"loss\": " + jsonFloat(result.loss) +
         ", \"grad_norm\": " + jsonFloat(result.gradNorm) +
         ", \"lr\": " + jsonFloat(result.lr) +
         ", \"ms\": " + format("%.6g", ms) +
         (result.gpuPeakMiB >= 0
              ? ", \"gpu_mem_peak_mib\": " + format("%.6g", result.gpuPeakMiB)
              : "") +
         (result.mfu >= 0 ? ", \"mfu\": " + format("%.6g", result.mfu) : "") +
         (result.tensorPeakMiB >= 0
              ? ", \"tensor_peak_mib\": " + format("%.6g", result.tensorPeakMiB)
              : "") +
         (result.lossScale >= 0
              ? ", \"loss_scale\": " +
                    jsonFloat(static_cast<float>(result.lossScale)) +
                    ", \"skipped\": " + (result.skipped ? "true" : "false")
              : "") +
         "}";
}

double peakMemoryMiB() {
  struct rusage usage;
  if (::getrusage(RUSAGE_SELF, &usage) != 0)
    return 0;
  return static_cast<double>(usage.ru_maxrss) / 1024.0; // KiB on Linux
}

} // namespace distrt::model
