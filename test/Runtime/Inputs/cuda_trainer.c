/*===- cuda_trainer.c - toy_trainer.c as a trainer compiled for CUDA -------===*
 *
 * A stand-in for dist-compile --target=cuda's object file, for testing the
 * driver's device side (libdistrt_main.a + libdistrt_cuda.a) without a GPU
 * or the compiler: the interface says "target": {"device": "cuda", "arch":
 * "sm_90"}, so every buffer dist_model_forward gets is a device pointer.
 * The step copies them to the host (distrt_copy), runs toy_trainer.c's step
 * there, and copies the results back: the same numbers as toy-trainer, so a
 * test compares the two runs bit for bit. Around it, it does what compiled
 * code does: a module recorded by a global constructor before main
 * (mgpuModuleLoad, which must not touch CUDA), device temporaries allocated
 * and freed every step (mgpuMemAlloc, _mlir_memref_to_llvm_alloc: the
 * caching allocator must serve them without cuMemAlloc after the first
 * step), memsets, events. With CUDA_TRAINER_LAUNCH_AT_STEP=N it launches a
 * kernel at step N, which the test driver (fake_cuda_driver.cpp) refuses.
 *
 *===----------------------------------------------------------------------===*/

/* toy_trainer.c's TARGET_MEMBERS: JSON members added to its interface. */
#define CUDA_TARGET "\"target\": {\"device\": \"cuda\", \"arch\": \"sm_90\"}"
#ifdef MESH2 /* cuda-trainer-mesh: for a mesh of 2 GPUs */
#define TARGET_MEMBERS ",\n " CUDA_TARGET ",\n \"mesh\": [2]"
#elif defined(FLOPS) /* cuda-trainer-flops: says its FLOPs per step */
#define TARGET_MEMBERS ",\n \"flops\": 123456789,\n " CUDA_TARGET
#else
#define TARGET_MEMBERS ",\n " CUDA_TARGET
#endif
#define dist_model_forward toy_step
#include "toy_trainer.c"
#undef dist_model_forward

#include <stdbool.h>
#include <stdlib.h>

static char kImage[] = "a cubin would be here";
static void *module;

__attribute__((constructor)) static void loadModule(void) {
  module = mgpuModuleLoad(kImage, sizeof(kImage));
}

__attribute__((destructor)) static void unloadModule(void) {
  mgpuModuleUnload(module);
}

#define NARGS 12
static const size_t kBytes[NARGS] = {
    BATCH * DIM * 4, 8, DIM * 4, DIM * 4, DIM * 4, BATCH * 4, 4, 4, 4, 4, 4, 4};

void dist_model_forward(void **device) {
  const distrt_device cuda = {DISTRT_CUDA, 0}, host = {DISTRT_HOST, 0};
  void *stream = mgpuStreamCreate();
  void *scratch = mgpuMemAlloc(1000, stream, false);
  void *big = _mlir_memref_to_llvm_alloc(3 << 20);
  void *empty = _mlir_memref_to_llvm_aligned_alloc(64, 0);
  mgpuMemset32(scratch, 0, 250, stream);
  mgpuMemset16(big, 0, 8, stream);
  void *event = mgpuEventCreate();
  mgpuEventRecord(event, stream);
  mgpuStreamWaitEvent(stream, event);
  mgpuEventSynchronize(event);
  mgpuEventDestroy(event);

  void *buffers[NARGS];
  for (int i = 0; i < NARGS; ++i) {
    buffers[i] = malloc(kBytes[i]);
    if (distrt_copy(host, buffers[i], cuda, device[i], kBytes[i]) != 0)
      distrt_fail(distrt_last_error());
  }
  // A kernel that does nothing, every step (--trace shows it).
  mgpuLaunchKernel(mgpuModuleGetFunction(module, "noop_kernel"), 2, 1, 1, 64,
                   1, 1, 0, stream, NULL, NULL, 0);
  const char *launchAt = getenv("CUDA_TRAINER_LAUNCH_AT_STEP");
  if (launchAt && atoll(launchAt) == *(const int64_t *)buffers[1]) {
    void *kernel = mgpuModuleGetFunction(module, "toy_step_kernel");
    mgpuLaunchKernel(kernel, 4, 1, 1, 128, 1, 1, 0, stream, NULL, NULL, 0);
  }
  toy_step(buffers);
  for (int i = 0; i < NARGS; ++i) {
    if (distrt_copy(cuda, device[i], host, buffers[i], kBytes[i]) != 0)
      distrt_fail(distrt_last_error());
    free(buffers[i]);
  }
  mgpuMemFree(scratch, stream);
  _mlir_memref_to_llvm_free(big);
  _mlir_memref_to_llvm_free(empty);
  mgpuStreamSynchronize(stream);
  mgpuStreamDestroy(stream);
}
