//===- ConstantTable.cpp - A mask computed from constants, as a table -----===//

#include "passes/Transforms/ConstantTable.h"

#include "dialects/Dist/IR/DistOps.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/Matchers.h"

#include <cstring>

using namespace mlir;
using namespace mlir::dist;

namespace {

/// A tensor type seen as tables: how many (its leading dimensions) of
/// rows x cols.
struct TableShape {
  int64_t count = 1, rows = 1, cols = 1;
  bool isBool = false;
};

std::optional<TableShape> tableShape(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor || !tensor.hasStaticShape())
    return std::nullopt;
  Type element = tensor.getElementType();
  if (!element.isF32() && !element.isInteger(1))
    return std::nullopt;
  TableShape shape;
  shape.isBool = element.isInteger(1);
  ArrayRef<int64_t> dims = tensor.getShape();
  int64_t rank = dims.size();
  if (rank >= 1)
    shape.cols = dims[rank - 1];
  if (rank >= 2)
    shape.rows = dims[rank - 2];
  for (int64_t d : dims.drop_back(std::min<int64_t>(rank, 2)))
    shape.count *= d;
  return shape;
}

ConstantTable filled(const TableShape &shape, float value) {
  ConstantTable table{shape.rows, shape.cols, {}};
  table.values.assign(shape.rows * shape.cols, value);
  return table;
}

std::optional<ConstantTable> fromAttr(ElementsAttr attr,
                                      const TableShape &shape) {
  int64_t entries = shape.rows * shape.cols;
  if (auto dense = dyn_cast<DenseElementsAttr>(attr)) {
    if (dense.isSplat())
      return filled(shape, shape.isBool
                               ? static_cast<float>(dense.getSplatValue<bool>())
                               : dense.getSplatValue<float>());
    if (shape.count != 1)
      return std::nullopt;
    ConstantTable table{shape.rows, shape.cols, {}};
    table.values.reserve(entries);
    if (shape.isBool)
      for (bool b : dense.getValues<bool>())
        table.values.push_back(b);
    else
      for (float f : dense.getValues<float>())
        table.values.push_back(f);
    return table;
  }
  // An initializer imported as a resource: float32 little-endian, or one
  // byte per boolean.
  auto resource = dyn_cast<DenseResourceElementsAttr>(attr);
  AsmResourceBlob *blob = resource ? resource.getRawHandle().getBlob() : nullptr;
  size_t width = shape.isBool ? 1 : sizeof(float);
  if (!blob || shape.count != 1 ||
      blob->getData().size() != static_cast<size_t>(entries) * width)
    return std::nullopt;
  ConstantTable table{shape.rows, shape.cols, {}};
  table.values.resize(entries);
  ArrayRef<char> data = blob->getData();
  for (int64_t i = 0; i < entries; ++i) {
    if (shape.isBool) {
      table.values[i] = data[i] != 0;
    } else {
      std::memcpy(&table.values[i], data.data() + i * width, width);
    }
  }
  return table;
}

/// `table` broadcast to rows x cols (numpy rules on the last two
/// dimensions), or nullopt when it does not broadcast.
std::optional<ConstantTable> broadcastTo(const ConstantTable &table,
                                         int64_t rows, int64_t cols) {
  if ((table.rows != rows && table.rows != 1) ||
      (table.cols != cols && table.cols != 1))
    return std::nullopt;
  ConstantTable out{rows, cols, {}};
  out.values.reserve(rows * cols);
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j)
      out.values.push_back(
          table.at(table.rows == 1 ? 0 : i, table.cols == 1 ? 0 : j));
  return out;
}

std::optional<ConstantTable> evaluate(Value value, int64_t maxEntries,
                                      int depth) {
  std::optional<TableShape> shape = tableShape(value.getType());
  if (!shape || shape->rows * shape->cols > maxEntries)
    return std::nullopt;
  ElementsAttr attr;
  if (matchPattern(value, m_Constant(&attr)))
    return fromAttr(attr, *shape);
  Operation *def = value.getDefiningOp();
  if (!def || depth == 0)
    return std::nullopt;
  auto operand = [&](unsigned i) {
    return evaluate(def->getOperand(i), maxEntries, depth - 1);
  };

  if (auto trilu = dyn_cast<TriluOp>(def)) {
    std::optional<ConstantTable> table = operand(0);
    if (!table || shape->rows != table->rows || shape->cols != table->cols)
      return std::nullopt;
    // (I64Attr's getter is unsigned.)
    int64_t diagonal = static_cast<int64_t>(trilu.getDiagonal());
    for (int64_t i = 0; i < table->rows; ++i)
      for (int64_t j = 0; j < table->cols; ++j) {
        bool inside =
            trilu.getUpper() ? j - i >= diagonal : j - i <= diagonal;
        if (!inside)
          table->values[i * table->cols + j] = 0.0f;
      }
    return table;
  }
  if (isa<NotOp>(def)) {
    std::optional<ConstantTable> table = operand(0);
    if (table)
      for (float &v : table->values)
        v = v == 0.0f;
    return table;
  }
  if (isa<CastOp>(def)) {
    std::optional<ConstantTable> table = operand(0);
    if (table && shape->isBool)
      for (float &v : table->values)
        v = v != 0.0f;
    return table;
  }
  if (isa<AddOp, SubOp, MulOp>(def)) {
    if (shape->isBool)
      return std::nullopt;
    std::optional<ConstantTable> lhs = operand(0), rhs = operand(1);
    if (!lhs || !rhs)
      return std::nullopt;
    lhs = broadcastTo(*lhs, shape->rows, shape->cols);
    rhs = broadcastTo(*rhs, shape->rows, shape->cols);
    if (!lhs || !rhs)
      return std::nullopt;
    for (auto [x, y] : llvm::zip_equal(lhs->values, rhs->values))
      x = isa<AddOp>(def) ? x + y : isa<SubOp>(def) ? x - y : x * y;
    return lhs;
  }
  if (isa<SelectOp>(def)) {
    std::optional<ConstantTable> cond = operand(0), yes = operand(1),
                                 no = operand(2);
    if (!cond || !yes || !no)
      return std::nullopt;
    cond = broadcastTo(*cond, shape->rows, shape->cols);
    yes = broadcastTo(*yes, shape->rows, shape->cols);
    no = broadcastTo(*no, shape->rows, shape->cols);
    if (!cond || !yes || !no)
      return std::nullopt;
    for (auto [c, y, n] : llvm::zip_equal(cond->values, yes->values, no->values))
      c = c != 0.0f ? y : n;
    return cond;
  }
  if (isa<ReshapeOp>(def)) {
    std::optional<ConstantTable> table = operand(0);
    std::optional<TableShape> from = tableShape(def->getOperand(0).getType());
    if (!table || !from)
      return std::nullopt;
    // The same tables renumbered, or one table read in other rows.
    if (from->rows == shape->rows && from->cols == shape->cols)
      return table;
    if (from->count != 1 || shape->count != 1)
      return std::nullopt;
    table->rows = shape->rows;
    table->cols = shape->cols;
    return table;
  }
  if (isa<BroadcastOp>(def)) {
    std::optional<ConstantTable> table = operand(0);
    return table ? broadcastTo(*table, shape->rows, shape->cols)
                 : std::nullopt;
  }
  if (auto slice = dyn_cast<SliceOp>(def)) {
    std::optional<ConstantTable> table = operand(0);
    ArrayRef<int64_t> starts = slice.getStarts(), strides = slice.getStrides();
    int64_t rank = starts.size();
    if (!table || rank == 0)
      return std::nullopt;
    int64_t rowStart = rank >= 2 ? starts[rank - 2] : 0;
    int64_t rowStride = rank >= 2 ? strides[rank - 2] : 1;
    int64_t colStart = starts[rank - 1], colStride = strides[rank - 1];
    ConstantTable out{shape->rows, shape->cols, {}};
    out.values.reserve(shape->rows * shape->cols);
    for (int64_t i = 0; i < shape->rows; ++i)
      for (int64_t j = 0; j < shape->cols; ++j) {
        int64_t row = rowStart + i * rowStride, col = colStart + j * colStride;
        if (row < 0 || row >= table->rows || col < 0 || col >= table->cols)
          return std::nullopt;
        out.values.push_back(table->at(row, col));
      }
    return out;
  }
  return std::nullopt;
}

} // namespace

std::optional<ConstantTable>
mlir::dist::evaluateConstantTable(Value value, int64_t maxEntries) {
  return evaluate(value, maxEntries, /*depth=*/8);
}
