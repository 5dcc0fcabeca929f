//===- LinalgBuilders.h - Shared builders of the dist-to-linalg patterns --===//
//
// The small pieces every op family of the dist -> linalg conversion needs:
// signless element types, broadcasting indexing maps, elementwise and
// reduction linalg.generic ops, scalar constants. Each pattern file builds its
// ops from these so that the generated IR has one shape the elementwise
// fusion and the later lowering can rely on.
//
//===----------------------------------------------------------------------===//

#ifndef PASSES_CONVERSION_DISTTOLINALG_LINALGBUILDERS_H
#define PASSES_CONVERSION_DISTTOLINALG_LINALGBUILDERS_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mlir::dist {

/// Integer element types lose their signedness (ui8 -> i8, si32 -> i32): arith
/// works on signless integers, and patterns read the sign from the dist op's
/// own types.
Type toSignless(Type elementType);
RankedTensorType toSignless(RankedTensorType type);

/// Whether a dist element type is an unsigned integer (or i1, which compares
/// and converts as unsigned).
bool isUnsignedElement(Type elementType);

/// The type converter of the conversion: tensors get signless element types.
class DistTypeConverter : public TypeConverter {
public:
  DistTypeConverter();
};

/// `tensor.empty` of a static shape.
Value emptyTensor(OpBuilder &b, Location loc, ArrayRef<int64_t> shape,
                  Type elementType);
/// A tensor of `shape` filled with `value` (linalg.fill).
Value filledTensor(OpBuilder &b, Location loc, ArrayRef<int64_t> shape,
                   Value value);

/// A scalar constant of float or integer type `type` with value `value`.
Value scalarConstant(OpBuilder &b, Location loc, Type type, double value);
/// The most negative (or, with `positive`, the most positive) value of the
/// type: -inf / +inf for floats, the integer limits otherwise.
Value extremeConstant(OpBuilder &b, Location loc, Type type, bool positive,
                      bool isUnsigned);

/// The indexing map that reads an operand of `operandShape` broadcast (numpy
/// rules, aligned on the right) into an iteration space of `resultShape`:
/// size-1 dimensions that broadcast read index 0.
AffineMap broadcastMap(MLIRContext *ctx, ArrayRef<int64_t> operandShape,
                       ArrayRef<int64_t> resultShape);

using ScalarBodyFn =
    function_ref<Value(OpBuilder &, Location, ValueRange /*scalars*/)>;

/// A parallel linalg.generic producing a tensor of `resultType` whose element
/// is `body` of the inputs' elements; the inputs broadcast to the result.
Value buildElementwise(OpBuilder &b, Location loc, RankedTensorType resultType,
                       ValueRange inputs, ScalarBodyFn body);

using CombineFn = function_ref<Value(OpBuilder &, Location, Value /*element*/,
                                     Value /*accumulator*/)>;

/// Reduces `input` over `axes` (sorted, distinct) into a tensor without those
/// dimensions and with element type `accType`, starting from `init` and
/// folding each element in with `combine`.
Value buildReduction(OpBuilder &b, Location loc, Value input,
                     ArrayRef<int64_t> axes, Value init, CombineFn combine);

/// The index `raw` (i32/i64) as an `index` in [0, size): negative ones count
/// from the end, and one outside [-size, size) fails a run-time check
/// (cf.assert) whose message names `dist.<opName>` and the location.
Value checkedIndex(OpBuilder &b, Location loc, Value raw, int64_t size,
                   StringRef opName);

/// The `OH x OW` constant of `acc` (f32 or f64) holding 1 / the number of
/// elements each output position of an average pooling averages: the window
/// clipped to the padded input with `includePad` (count_include_pad), else
/// to the input. `inShape` and `outShape` are NCHW. Shared by avg_pool2d and
/// its gradient so both divide alike.
Value avgPoolReciprocalCounts(OpBuilder &b, Location loc,
                              ArrayRef<int64_t> inShape,
                              ArrayRef<int64_t> outShape,
                              ArrayRef<int64_t> kernel,
                              ArrayRef<int64_t> strides, ArrayRef<int64_t> pads,
                              bool includePad, Type acc);

/// Reshapes `value` to the static `shape` holding the same number of
/// elements (collapse and/or expand; nothing when the shapes agree).
Value reshapeTo(OpBuilder &b, Location loc, Value value,
                ArrayRef<int64_t> shape);

/// Converts a scalar between numeric types (float, signless integer, i1) with
/// the semantics of dist.cast; `srcUnsigned`/`dstUnsigned` give the integer
/// signedness.
Value convertScalar(OpBuilder &b, Location loc, Value value, Type dstType,
                    bool srcUnsigned, bool dstUnsigned);

/// `v` extended to the float type `type` (nothing when it already is).
Value extendTo(OpBuilder &b, Location loc, Value v, Type type);
/// The float tensor `v` with element type `et` (a truncating generic, or `v`).
Value truncateTo(OpBuilder &b, Location loc, Value v, Type et);

/// The map from an iteration space of `rank` dims to the dims not in `axes`.
AffineMap keptMap(MLIRContext *ctx, int64_t rank, ArrayRef<int64_t> axes);

/// `x + acc` for a float reduction, marked reassociable: the order of a
/// float sum is not part of any op's semantics, and without the flag LLVM
/// cannot vectorize a reduction loop.
Value accumulateF(OpBuilder &b, Location loc, Value x, Value acc);

/// Whether transcendental math on `type` is computed in f32 (f16, bf16).
bool computesInF32(Type type);

} // namespace mlir::dist

#endif // PASSES_CONVERSION_DISTTOLINALG_LINALGBUILDERS_H
