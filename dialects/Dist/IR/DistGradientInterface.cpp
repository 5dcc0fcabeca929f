//===- DistGradientInterface.cpp - Reverse-mode gradients of ops ----------===//

#include "dialects/Dist/IR/DistGradientInterface.h"

#include "dialects/Dist/IR/DistGradientInterface.cpp.inc"
