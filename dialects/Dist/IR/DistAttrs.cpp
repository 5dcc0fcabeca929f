//===- DistAttrs.cpp - Attributes of the dist dialect ---------------------===//

#include "dialects/Dist/IR/DistAttrs.h"

#include "dialects/Dist/IR/DistDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::dist;

#define GET_ATTRDEF_CLASSES
#include "dialects/Dist/IR/DistAttrs.cpp.inc"

void DistDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "dialects/Dist/IR/DistAttrs.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// ShardingAttr
//===----------------------------------------------------------------------===//

/// `[a, b, ...]`, possibly empty.
static ParseResult parseAxisList(AsmParser &parser,
                                 SmallVectorImpl<int64_t> &axes) {
  return parser.parseCommaSeparatedList(AsmParser::Delimiter::Square, [&] {
    return parser.parseInteger(axes.emplace_back());
  });
}

/// One dimension: `-` (whole), `a` (over axis a) or `(a, b)` (over axes a
/// and b, a major), then `/g` for g groups.
static ParseResult parseDim(AsmParser &parser, SmallVectorImpl<int64_t> &axes,
                            int64_t &groups) {
  groups = 1;
  if (succeeded(parser.parseOptionalMinus()))
    return success();
  if (succeeded(parser.parseOptionalLParen())) {
    if (parser.parseCommaSeparatedList(
            [&] { return parser.parseInteger(axes.emplace_back()); }) ||
        parser.parseRParen())
      return failure();
  } else if (parser.parseInteger(axes.emplace_back())) {
    return failure();
  }
  if (succeeded(parser.parseOptionalSlash()) && parser.parseInteger(groups))
    return failure();
  return success();
}

Attribute ShardingAttr::parse(AsmParser &parser, Type) {
  MLIRContext *ctx = parser.getContext();
  SmallVector<DenseI64ArrayAttr> splitAxes;
  SmallVector<int64_t> groups, partial;
  if (parser.parseLess() ||
      parser.parseCommaSeparatedList(AsmParser::Delimiter::Square, [&] {
        SmallVector<int64_t> axes;
        if (parseDim(parser, axes, groups.emplace_back()))
          return failure();
        splitAxes.push_back(DenseI64ArrayAttr::get(ctx, axes));
        return success();
      }))
    return {};
  if (succeeded(parser.parseOptionalComma()) &&
      (parser.parseKeyword("partial") || parser.parseEqual() ||
       parseAxisList(parser, partial)))
    return {};
  if (parser.parseGreater())
    return {};
  return parser.getChecked<ShardingAttr>(ctx, splitAxes, groups, partial);
}

void ShardingAttr::print(AsmPrinter &printer) const {
  printer << "<[";
  for (auto [i, axes] : llvm::enumerate(getSplitAxes())) {
    if (i)
      printer << ", ";
    if (axes.empty()) {
      printer << '-';
    } else if (axes.size() == 1) {
      printer << axes[0];
    } else {
      printer << '(';
      llvm::interleaveComma(axes.asArrayRef(), printer);
      printer << ')';
    }
    if (getGroups()[i] != 1)
      printer << '/' << getGroups()[i];
  }
  printer << ']';
  if (!getPartialAxes().empty()) {
    printer << ", partial = [";
    llvm::interleaveComma(getPartialAxes(), printer);
    printer << ']';
  }
  printer << '>';
}

LogicalResult ShardingAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                   ArrayRef<DenseI64ArrayAttr> splitAxes,
                                   ArrayRef<int64_t> groups,
                                   ArrayRef<int64_t> partialAxes) {
  if (splitAxes.size() != groups.size())
    return emitError() << "#dist.sharding has " << splitAxes.size()
                       << " dimensions but " << groups.size()
                       << " group counts";
  llvm::SmallDenseSet<int64_t> seen;
  auto use = [&](int64_t axis) -> LogicalResult {
    if (axis < 0)
      return emitError() << "#dist.sharding names mesh axis " << axis
                         << ": axes are numbered from 0";
    if (!seen.insert(axis).second)
      return emitError() << "#dist.sharding uses mesh axis " << axis
                         << " twice";
    return success();
  };
  for (auto [dim, axes] : llvm::enumerate(splitAxes)) {
    for (int64_t axis : axes.asArrayRef())
      if (failed(use(axis)))
        return failure();
    if (groups[dim] < 1 || (groups[dim] > 1 && axes.empty()))
      return emitError() << "#dist.sharding splits dimension " << dim << " in "
                         << groups[dim]
                         << " groups: expected at least 1, and more than 1 "
                            "only for a dimension split over mesh axes";
  }
  for (int64_t axis : partialAxes)
    if (failed(use(axis)))
      return failure();
  if (!llvm::is_sorted(partialAxes))
    return emitError() << "#dist.sharding's partial axes must be increasing";
  return success();
}

ShardingAttr ShardingAttr::get(MLIRContext *ctx, ArrayRef<DimSharding> dims,
                               ArrayRef<int64_t> partial) {
  SmallVector<DenseI64ArrayAttr> splitAxes;
  SmallVector<int64_t> groups;
  for (const DimSharding &d : dims) {
    splitAxes.push_back(DenseI64ArrayAttr::get(
        ctx, d.isSplit() ? ArrayRef<int64_t>(d.axis) : ArrayRef<int64_t>()));
    groups.push_back(d.isSplit() ? d.groups : 1);
  }
  return Base::get(ctx, splitAxes, groups, partial);
}

FailureOr<SmallVector<DimSharding>>
ShardingAttr::getDims(function_ref<InFlightDiagnostic()> emitError,
                      StringRef what) const {
  SmallVector<DimSharding> dims;
  for (auto [dim, axes] : llvm::enumerate(getSplitAxes())) {
    if (axes.size() > 1)
      return emitError() << "the sharding of " << what << " splits dimension "
                         << dim << " over " << axes.size()
                         << " mesh axes; dist-opt splits a dimension over "
                            "one axis (reshape it to split it twice)";
    dims.push_back(axes.empty()
                       ? DimSharding::replicated()
                       : DimSharding::split(axes[0], getGroups()[dim]));
  }
  return dims;
}

bool ShardingAttr::isReplicated() const {
  return getPartialAxes().empty() &&
         llvm::all_of(getSplitAxes(),
                      [](DenseI64ArrayAttr a) { return a.empty(); });
}
