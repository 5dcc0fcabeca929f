//===- Link.h - Link the model object with the runtime ----------*- C++ -*-===//

#ifndef TOOLS_DIST_COMPILE_LINK_H
#define TOOLS_DIST_COMPILE_LINK_H

#include "llvm/Support/Error.h"

namespace mlir::dist {

/// Links `object` with the runtime's generic main (libdistrt_main.a) and
/// libdistrt into the executable `output`, with the system C++ compiler
/// driver (`$CXX`, else `c++`). The runtime libraries are looked up next to
/// the dist-compile binary (`../lib`). A `cuda` executable links the static
/// runtime without MPI and BLAS (libdistrt_cuda.a) and the C++ runtime
/// statically: it needs only libc where it runs (the GPU machine has no MPI,
/// no OpenBLAS); the CUDA libraries are dlopen'd at run time.
llvm::Error linkExecutable(llvm::StringRef object, llvm::StringRef output,
                           const char *argv0, bool cuda);

} // namespace mlir::dist

#endif // TOOLS_DIST_COMPILE_LINK_H
