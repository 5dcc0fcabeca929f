//===- distrt-npy.cpp - Reads a .npy file with distrt and writes it back --===//
//
//   distrt-npy IN.npy [OUT.npy]
//
// Prints the tensor's element type and shape; with OUT, writes it back. Tests
// check both directions against numpy.
//
//===----------------------------------------------------------------------===//

#include "distrt/distrt.h"

#include <cstdio>

int main(int argc, char **argv) {
  if (argc < 2 || argc > 3) {
    std::fprintf(stderr, "usage: distrt-npy IN.npy [OUT.npy]\n");
    return 2;
  }
  distrt_tensor tensor;
  if (distrt_npy_read(argv[1], &tensor) != 0) {
    std::fprintf(stderr, "distrt-npy: error: %s\n", distrt_last_error());
    return 1;
  }
  std::printf("%s (", distrt_dtype_name(tensor.dtype));
  for (int32_t i = 0; i < tensor.rank; ++i)
    std::printf(i ? ", %lld" : "%lld", static_cast<long long>(tensor.shape[i]));
  std::printf(")\n");
  int status = 0;
  if (argc == 3 && distrt_npy_write(argv[2], &tensor) != 0) {
    std::fprintf(stderr, "distrt-npy: error: %s\n", distrt_last_error());
    status = 1;
  }
  distrt_free(tensor.device, tensor.data);
  return status;
}
