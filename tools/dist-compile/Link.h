//===- Link.h - Link the model object with the runtime ----------*- C++ -*-===//

#ifndef TOOLS_DIST_COMPILE_LINK_H
#define TOOLS_DIST_COMPILE_LINK_H

#include "llvm/Support/Error.h"

namespace mlir::dist {

/// Links `object` with the runtime's generic main (libdistrt_main.a) and
/// libdistrt into the executable `output`, with the system C++ compiler
/// driver (`$CXX`, else `c++`). The runtime libraries are looked up next to
/// the dist-compile binary (`../lib`).
llvm::Error linkExecutable(llvm::StringRef object, llvm::StringRef output,
                           const char *argv0);

} // namespace mlir::dist

#endif // TOOLS_DIST_COMPILE_LINK_H
