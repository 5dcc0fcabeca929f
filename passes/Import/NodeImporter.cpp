//===- NodeImporter.cpp - What an ONNX op converter sees ------------------===//

#include "passes/Import/NodeImporter.h"

using namespace mlir;
using namespace mlir::dist;
using namespace mlir::dist::onnx_import;

bool NodeImporter::hasInput(unsigned i) const {
  return static_cast<int>(i) < node.input_size() && !node.input(i).empty();
}

Value NodeImporter::input(unsigned i) {
  if (!hasInput(i)) {
    emitError() << "input #" << i << " is required";
    return {};
  }
  ImportedValue &v = values[node.input(i)];
  if (!v.value && v.constant)
    v.value = ConstantOp::create(builder, loc, v.constant);
  return v.value;
}

DenseElementsAttr NodeImporter::constantInput(unsigned i) {
  if (!hasInput(i))
    return {};
  return values[node.input(i)].constant;
}

RankedTensorType NodeImporter::inputType(unsigned i) {
  const ImportedValue &v = values[node.input(i)];
  return cast<RankedTensorType>(v.value ? v.value.getType()
                                        : v.constant.getType());
}

FailureOr<SmallVector<int64_t>> NodeImporter::constantInts(unsigned i,
                                                           StringRef what) {
  DenseElementsAttr c = constantInput(i);
  if (!c || !isa<IntegerType>(c.getElementType())) {
    emitError() << "input '" << what
                << "' must be known at import time (a constant or a shape "
                   "computation); dist needs static shapes";
    return failure();
  }
  SmallVector<int64_t> result;
  for (const APInt &v : c.getValues<APInt>())
    result.push_back(v.getSExtValue());
  return result;
}

FailureOr<SmallVector<int64_t>> NodeImporter::constantShape(unsigned i,
                                                            StringRef what) {
  FailureOr<SmallVector<int64_t>> shape = constantInts(i, what);
  if (failed(shape) || failed(checkShape(*shape, "input '" + what + "'")))
    return failure();
  return shape;
}

LogicalResult NodeImporter::checkShape(ArrayRef<int64_t> shape,
                                       const Twine &what) {
  int64_t elements = 1;
  for (int64_t d : shape) {
    if (d < 0 || (d > 0 && elements > (int64_t(1) << 40) / d))
      return emitError() << what << " holds size " << d
                         << ", which is negative or makes the tensor too large",
             failure();
    elements *= d;
  }
  return success();
}

void NodeImporter::setOutput(unsigned i, Value value) {
  if (hasOutput(i))
    values[node.output(i)] = {value, {}};
}

void NodeImporter::setConstantOutput(unsigned i, DenseElementsAttr constant) {
  if (hasOutput(i))
    values[node.output(i)] = {{}, constant};
}

const onnx::AttributeProto *NodeImporter::attribute(StringRef name) const {
  for (const onnx::AttributeProto &a : node.attribute())
    if (a.name() == name)
      return &a;
  return nullptr;
}

int64_t NodeImporter::intAttr(StringRef name, int64_t defaultValue) const {
  const onnx::AttributeProto *a = attribute(name);
  return a ? a->i() : defaultValue;
}

float NodeImporter::floatAttr(StringRef name, float defaultValue) const {
  const onnx::AttributeProto *a = attribute(name);
  return a ? a->f() : defaultValue;
}

std::string NodeImporter::stringAttr(StringRef name,
                                     StringRef defaultValue) const {
  const onnx::AttributeProto *a = attribute(name);
  return a ? a->s() : defaultValue.str();
}

std::optional<SmallVector<int64_t>>
NodeImporter::intsAttr(StringRef name) const {
  const onnx::AttributeProto *a = attribute(name);
  if (!a)
    return std::nullopt;
  return SmallVector<int64_t>(a->ints().begin(), a->ints().end());
}

FailureOr<int64_t> NodeImporter::normalizeAxis(int64_t axis, int64_t rank,
                                               StringRef what) {
  if (axis < -rank || axis >= rank) {
    emitError() << what << " " << axis << " is out of range for rank " << rank;
    return failure();
  }
  return axis < 0 ? axis + rank : axis;
}

Value NodeImporter::scalar(Type elementType, double value) {
  auto type = RankedTensorType::get({}, elementType);
  if (auto floatType = dyn_cast<FloatType>(elementType))
    return create<ConstantOp>(
        DenseElementsAttr::get(type, FloatAttr::get(floatType, value)));
  unsigned width = elementType.getIntOrFloatBitWidth();
  APInt bits = width == 1 ? APInt(1, value != 0.0)
                          : APInt(width, static_cast<int64_t>(value),
                                  /*isSigned=*/true);
  return create<ConstantOp>(DenseElementsAttr::get(type, bits));
}

Value NodeImporter::reshape(Value value, ArrayRef<int64_t> shape) {
  auto type = cast<RankedTensorType>(value.getType());
  if (type.getShape() == shape)
    return value;
  return create<ReshapeOp>(type.clone(shape), value);
}

InFlightDiagnostic NodeImporter::emitError() {
  return mlir::emitError(loc) << "ONNX " << node.op_type() << ": ";
}

LogicalResult NodeImporter::unsupported(const Twine &why) {
  return mlir::emitError(loc)
         << "unsupported ONNX op '" << node.op_type() << "' (opset " << opset
         << ") at node '" << node.name() << "': " << why;
}

FailureOr<DenseElementsAttr>
NodeImporter::tensorAttr(const onnx::TensorProto &tensor) {
  FailureOr<ElementsAttr> attr =
      convertTensor(tensor, getContext(), /*baseDir=*/"", /*asResource=*/false,
                    "", [&] { return emitError(); });
  if (failed(attr))
    return failure();
  return cast<DenseElementsAttr>(*attr);
}

LogicalResult NodeImporter::inferResultTypes(Operation *op) {
  SmallVector<Type> types;
  auto inferring = cast<InferTypeOpInterface>(op);
  if (failed(inferring.inferReturnTypes(
          getContext(), loc, op->getOperands(), op->getRawDictionaryAttrs(),
          op->getPropertiesStorage(), op->getRegions(), types))) {
    op->erase();
    return failure();
  }
  for (auto [result, type] : llvm::zip(op->getResults(), types))
    result.setType(type);
  return success();
}
