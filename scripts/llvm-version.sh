# The one place the LLVM/MLIR major version is pinned (sourced by the other scripts).
LLVM_MAJOR=22
