//===- Error.h - distrt's per-thread error message --------------*- C++ -*-===//

#ifndef DISTRT_CORE_ERROR_H
#define DISTRT_CORE_ERROR_H

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

} // namespace distrt

#endif // DISTRT_CORE_ERROR_H
