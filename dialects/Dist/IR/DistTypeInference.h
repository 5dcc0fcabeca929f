//===- DistTypeInference.h - Shared result-type rules of dist ops -*- C++
//-*-===//

#ifndef DIALECTS_DIST_IR_DISTTYPEINFERENCE_H
#define DIALECTS_DIST_IR_DISTTYPEINFERENCE_H

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/ValueRange.h"

#include "dialects/Dist/IR/DistEnums.h"

namespace mlir::dist {

/// Broadcasts the shapes of `operands` together (numpy rules) into `shape`.
/// On failure emits "'<opName>' op ..." naming the operands that disagree.
LogicalResult broadcastShapes(std::optional<Location> loc, StringRef opName,
                              ValueRange operands,
                              SmallVectorImpl<int64_t> &shape);

/// Result type of a binary elementwise op: both operands have one element
/// type, and their shapes broadcast.
LogicalResult inferBroadcastResultType(std::optional<Location> loc,
                                       StringRef opName, ValueRange operands,
                                       SmallVectorImpl<Type> &types);

/// Result type of a reduction of `input` over `axes` (sorted, distinct,
/// in range), keeping the reduced dimensions as size 1 when `keepDims`.
LogicalResult inferReductionResultType(std::optional<Location> loc,
                                       StringRef opName, Type input,
                                       ArrayRef<int64_t> axes, bool keepDims,
                                       SmallVectorImpl<Type> &types);

/// Result type (i64) of an index-of-extremum reduction of `input` along
/// `axis`.
LogicalResult inferArgReductionResultType(std::optional<Location> loc,
                                          StringRef opName, Type input,
                                          int64_t axis, bool keepDims,
                                          SmallVectorImpl<Type> &types);

/// Result type of a classification loss of `input` (classes on dimension 1)
/// against `labels`, with optional class weights `weight` (null if none).
LogicalResult inferLossResultType(std::optional<Location> loc, StringRef opName,
                                  Type input, Type labels, Type weight,
                                  LossReduction reduction,
                                  SmallVectorImpl<Type> &types);

/// Result type of 2-D pooling of an NCHW `input` with `kernel` windows.
LogicalResult inferPool2DResultType(std::optional<Location> loc,
                                    StringRef opName, Type input,
                                    ArrayRef<int64_t> kernel,
                                    ArrayRef<int64_t> strides,
                                    ArrayRef<int64_t> pads, bool ceilMode,
                                    SmallVectorImpl<Type> &types);

/// Whether `axis` names a dimension of a rank-`rank` tensor.
inline bool isValidAxis(int64_t axis, int64_t rank) {
  return axis >= 0 && axis < rank;
}

} // namespace mlir::dist

#endif // DIALECTS_DIST_IR_DISTTYPEINFERENCE_H
