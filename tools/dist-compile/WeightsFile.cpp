//===- WeightsFile.cpp - The executable's parameter file ------------------===//
//
// Parameter values go to a safetensors file next to the executable rather
// than into the object file: 500 MB of weights as LLVM constants would cost
// minutes of compile time and gigabytes of memory; a file write costs less
// than a second, and the same format carries checkpoints.
//
//===----------------------------------------------------------------------===//

#include "tools/dist-compile/WeightsFile.h"

#include "dialects/Dist/IR/DistOps.h"
#include "dialects/Dist/Runtime/RuntimeTypes.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"

#include "distrt/distrt.h"

#include <deque>

using namespace mlir;
using namespace mlir::dist;

/// The row-major bytes of `value`: a view of the attribute's storage when it
/// has one, else expanded into `scratch` (splats, packed booleans).
static FailureOr<ArrayRef<char>>
rawBytes(ElementsAttr value, std::deque<std::vector<char>> &scratch) {
  auto type = cast<ShapedType>(value.getType());
  Type et = type.getElementType();
  int64_t count = type.getNumElements();
  size_t width = et.isInteger(1) ? 1 : et.getIntOrFloatBitWidth() / 8;
  if (auto resource = dyn_cast<DenseResourceElementsAttr>(value)) {
    AsmResourceBlob *blob = resource.getRawHandle().getBlob();
    if (!blob || blob->getData().size() != count * width)
      return failure();
    return blob->getData();
  }
  auto dense = dyn_cast<DenseElementsAttr>(value);
  if (!dense)
    return failure();
  if (!dense.isSplat() && !et.isInteger(1))
    return dense.getRawData();
  std::vector<char> &out = scratch.emplace_back(count * width);
  if (et.isInteger(1)) {
    auto values = dense.getValues<bool>();
    for (int64_t i = 0; i < count; ++i)
      out[i] = values[i] ? 1 : 0;
  } else {
    ArrayRef<char> one = dense.getRawData();
    for (int64_t i = 0; i < count; ++i)
      std::copy(one.begin(), one.begin() + width, out.begin() + i * width);
  }
  return ArrayRef<char>(out);
}

LogicalResult mlir::dist::writeWeightsFile(ModuleOp module, StringRef path) {
  std::vector<std::string> names;
  std::vector<distrt_tensor> tensors;
  std::deque<std::vector<char>> scratch;
  for (ParameterOp param : module.getOps<ParameterOp>()) {
    RankedTensorType type = param.getTensorType();
    std::optional<ElementsAttr> value = param.getInitialValue();
    if (!value)
      return param.emitError()
             << "parameter @" << param.getSymName()
             << " has no initial value; the executable needs one for every "
                "parameter";
    std::optional<distrt_dtype> dtype = runtimeDtype(type.getElementType());
    if (!dtype || type.getRank() > DISTRT_MAX_RANK)
      return param.emitError()
             << "parameter @" << param.getSymName() << " of type " << type
             << " cannot be stored (rank at most " << DISTRT_MAX_RANK << ")";
    FailureOr<ArrayRef<char>> bytes = rawBytes(*value, scratch);
    if (failed(bytes))
      return param.emitError() << "parameter @" << param.getSymName()
                               << " has an initial value whose data cannot "
                                  "be read (missing or mis-sized resource)";
    distrt_tensor t = {};
    t.dtype = *dtype;
    t.rank = type.getRank();
    for (int64_t d = 0; d < type.getRank(); ++d)
      t.shape[d] = type.getDimSize(d);
    t.device = {DISTRT_HOST, 0};
    t.data = const_cast<char *>(bytes->data());
    names.push_back(param.getSymName().str());
    tensors.push_back(t);
  }
  std::vector<const char *> cnames;
  for (const std::string &n : names)
    cnames.push_back(n.c_str());
  const char *keys[] = {"format"}, *values[] = {"dist-opt weights"};
  if (distrt_safetensors_write(path.str().c_str(), tensors.size(),
                               cnames.data(), tensors.data(), 1, keys,
                               values) != 0)
    return module.emitError()
           << "cannot write the weights file: " << distrt_last_error();
  return success();
}
