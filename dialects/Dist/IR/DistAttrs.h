//===- DistAttrs.h - Attributes of the dist dialect -------------*- C++ -*-===//

#ifndef DIALECTS_DIST_IR_DISTATTRS_H
#define DIALECTS_DIST_IR_DISTATTRS_H

#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Diagnostics.h"

#include <string>

namespace mlir::dist {

/// A dimension (or factor) that is not split.
constexpr int64_t kReplicated = -1;

/// How one dimension of a tensor (or one factor of an op) is split: over
/// mesh axis `axis` (kReplicated: whole), in `groups` equal groups each
/// split over the axis (1: one block per rank). The passes' in-memory form
/// of one entry of a #dist.sharding.
struct DimSharding {
  int64_t axis = kReplicated;
  int64_t groups = 1;

  static DimSharding replicated() { return {}; }
  static DimSharding split(int64_t axis, int64_t groups = 1) {
    return axis < 0 ? DimSharding{} : DimSharding{axis, groups};
  }
  bool isSplit() const { return axis != kReplicated; }
  bool operator==(const DimSharding &other) const {
    return axis == other.axis && groups == other.groups;
  }
  bool operator!=(const DimSharding &other) const { return !(*this == other); }
  bool operator<(const DimSharding &other) const {
    return axis != other.axis ? axis < other.axis : groups < other.groups;
  }
};

} // namespace mlir::dist

#define GET_ATTRDEF_CLASSES
#include "dialects/Dist/IR/DistAttrs.h.inc"

#endif // DIALECTS_DIST_IR_DISTATTRS_H
