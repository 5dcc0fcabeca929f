//===- Error.h - distrt's per-thread error message --------------*- C++ -*-===//

#ifndef DISTRT_CORE_ERROR_H
#define DISTRT_CORE_ERROR_H

#include <string>

namespace distrt {

/// Records a printf-style message as this thread's last error; returns -1 so
/// that `return fail(...)` is a C-ABI failure.
int fail(const char *format, ...) __attribute__((format(printf, 1, 2)));

/// Gives each of the `localProcesses` processes of a job on this machine an
/// equal share of its cores for gemm (BLAS's own threads), unless the user
/// chose a count (OPENBLAS_NUM_THREADS, GOTO_NUM_THREADS, OMP_NUM_THREADS).
/// Without it every process would start a thread per core and they would
/// fight over them. Gemm.cpp.
void shareGemmThreads(int localProcesses);

/// "step 12" after distrt_set_step(12), else "before the first step": what
/// the fatal errors of compiled code's calls end with. Core.cpp.
std::string stepText();

} // namespace distrt

#endif // DISTRT_CORE_ERROR_H
