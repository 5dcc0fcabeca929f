//===- DistShardingInterface.cpp - How ops split over a mesh --------------===//

#include "dialects/Dist/IR/DistShardingInterface.h"

#include "dialects/Dist/IR/DistShardingInterface.cpp.inc"
