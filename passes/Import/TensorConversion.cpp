//===- TensorConversion.cpp - ONNX TensorProto to MLIR attributes ---------===//
//
// Reads inline, typed and external tensor data. External data must stay in
// the model's folder: absolute locations, `..` and symlinks that leave the
// folder are refused, and a data size that disagrees with the shape is an
// error rather than a read past the end.
//
//===----------------------------------------------------------------------===//

#include "passes/Import/NodeImporter.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "llvm/ADT/bit.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

using namespace mlir;
using namespace mlir::dist;
using namespace mlir::dist::onnx_import;

Type mlir::dist::onnx_import::convertElementType(MLIRContext *context,
                                                 int onnxType) {
  Builder b(context);
  switch (onnxType) {
  case onnx::TensorProto_DataType_FLOAT:
    return b.getF32Type();
  case onnx::TensorProto_DataType_FLOAT16:
    return b.getF16Type();
  case onnx::TensorProto_DataType_BFLOAT16:
    return b.getBF16Type();
  case onnx::TensorProto_DataType_DOUBLE:
    return b.getF64Type();
  case onnx::TensorProto_DataType_INT64:
    return b.getI64Type();
  case onnx::TensorProto_DataType_INT32:
    return b.getI32Type();
  case onnx::TensorProto_DataType_INT16:
    return b.getIntegerType(16);
  case onnx::TensorProto_DataType_INT8:
    return b.getIntegerType(8);
  case onnx::TensorProto_DataType_UINT64:
    return b.getIntegerType(64, /*isSigned=*/false);
  case onnx::TensorProto_DataType_UINT32:
    return b.getIntegerType(32, /*isSigned=*/false);
  case onnx::TensorProto_DataType_UINT16:
    return b.getIntegerType(16, /*isSigned=*/false);
  case onnx::TensorProto_DataType_UINT8:
    return b.getIntegerType(8, /*isSigned=*/false);
  case onnx::TensorProto_DataType_BOOL:
    return b.getI1Type();
  default:
    return {};
  }
}

/// Bytes one element takes in raw ONNX data (i1 as one byte).
static int64_t byteWidth(Type elementType) {
  return elementType.isInteger(1)
             ? 1
             : static_cast<int64_t>(elementType.getIntOrFloatBitWidth() / 8);
}

/// Reads external data into `bytes`, refusing locations outside `baseDir`.
static LogicalResult
readExternal(const onnx::TensorProto &tensor, StringRef baseDir,
             std::string &bytes, function_ref<InFlightDiagnostic()> emitError) {
  std::string location;
  int64_t offset = 0, length = -1;
  for (const onnx::StringStringEntryProto &entry : tensor.external_data()) {
    if (entry.key() == "location")
      location = entry.value();
    else if (entry.key() == "offset" || entry.key() == "length") {
      int64_t v;
      if (StringRef(entry.value()).getAsInteger(10, v) || v < 0)
        return emitError() << "tensor '" << tensor.name() << "' has invalid "
                           << entry.key() << " '" << entry.value()
                           << "' for its external data";
      (entry.key() == "offset" ? offset : length) = v;
    }
  }
  if (location.empty())
    return emitError() << "tensor '" << tensor.name()
                       << "' keeps its data externally but names no location";
  auto escapes = [&] {
    return emitError() << "tensor '" << tensor.name()
                       << "' has external data at '" << location
                       << "', outside the model's folder; external data must "
                          "be a relative path inside it";
  };
  if (llvm::sys::path::is_absolute(location))
    return escapes();
  for (StringRef part : llvm::make_range(llvm::sys::path::begin(location),
                                         llvm::sys::path::end(location)))
    if (part == "..")
      return escapes();
  SmallString<256> path(baseDir);
  llvm::sys::path::append(path, location);
  SmallString<256> realBase, realPath;
  if (llvm::sys::fs::real_path(baseDir.empty() ? "." : baseDir, realBase) ||
      llvm::sys::fs::real_path(path, realPath))
    return emitError() << "tensor '" << tensor.name()
                       << "': cannot open external data file '" << path << "'";
  if (!StringRef(realPath).starts_with(realBase.str().str() + "/"))
    return escapes();
  uint64_t size = 0;
  if (llvm::sys::fs::file_size(realPath, size) ||
      static_cast<uint64_t>(offset) > size ||
      (length >= 0 && static_cast<uint64_t>(offset + length) > size))
    return emitError() << "tensor '" << tensor.name()
                       << "': external data file '" << location
                       << "' is too short for offset " << offset
                       << " and length " << length;
  if (length < 0)
    length = size - offset;
  auto buffer = llvm::MemoryBuffer::getFileSlice(realPath, length, offset);
  if (!buffer)
    return emitError() << "tensor '" << tensor.name()
                       << "': cannot read external data file '" << location
                       << "': " << buffer.getError().message();
  bytes.assign((*buffer)->getBufferStart(), (*buffer)->getBufferSize());
  return success();
}

/// Packs the typed fields of `tensor` as little-endian raw bytes.
template <typename Stored, typename Field>
static void packTyped(const Field &field, std::string &bytes) {
  bytes.resize(field.size() * sizeof(Stored));
  for (int i = 0, e = field.size(); i < e; ++i) {
    Stored v = static_cast<Stored>(field.Get(i));
    std::memcpy(&bytes[i * sizeof(Stored)], &v, sizeof(Stored));
  }
}

FailureOr<ElementsAttr> mlir::dist::onnx_import::convertTensor(
    const onnx::TensorProto &tensor, MLIRContext *context, StringRef baseDir,
    bool asResource, StringRef blobName,
    function_ref<InFlightDiagnostic()> emitError) {
  Type elementType = convertElementType(context, tensor.data_type());
  if (!elementType)
    return emitError() << "tensor '" << tensor.name()
                       << "' has ONNX element type "
                       << onnx::TensorProto_DataType_Name(
                              static_cast<onnx::TensorProto_DataType>(
                                  tensor.data_type()))
                       << ", which dist does not support (supported: float, "
                          "float16, bfloat16, double, signed and unsigned "
                          "integers of 8 to 64 bits, bool)";
  SmallVector<int64_t> shape;
  int64_t numElements = 1;
  for (int64_t dim : tensor.dims()) {
    if (dim < 0 || (dim > 0 && numElements > (int64_t(1) << 40) / dim))
      return emitError() << "tensor '" << tensor.name()
                         << "' has an invalid or too large shape";
    shape.push_back(dim);
    numElements *= dim;
  }
  // `data` views the tensor's bytes: the proto's own raw data when it has
  // some (no copy: weights are most of a model's memory), else `bytes`.
  std::string bytes;
  StringRef data;
  if (tensor.data_location() == onnx::TensorProto_DataLocation_EXTERNAL) {
    if (failed(readExternal(tensor, baseDir, bytes, emitError)))
      return failure();
    data = bytes;
  } else if (tensor.has_raw_data()) {
    data = tensor.raw_data();
  } else {
    switch (tensor.data_type()) {
    case onnx::TensorProto_DataType_FLOAT:
      packTyped<float>(tensor.float_data(), bytes);
      break;
    case onnx::TensorProto_DataType_DOUBLE:
      packTyped<double>(tensor.double_data(), bytes);
      break;
    case onnx::TensorProto_DataType_INT64:
      packTyped<int64_t>(tensor.int64_data(), bytes);
      break;
    case onnx::TensorProto_DataType_INT32:
      packTyped<int32_t>(tensor.int32_data(), bytes);
      break;
    case onnx::TensorProto_DataType_INT16:
    case onnx::TensorProto_DataType_UINT16:
      packTyped<uint16_t>(tensor.int32_data(), bytes);
      break;
    case onnx::TensorProto_DataType_INT8:
    case onnx::TensorProto_DataType_UINT8:
    case onnx::TensorProto_DataType_BOOL:
      packTyped<uint8_t>(tensor.int32_data(), bytes);
      break;
    case onnx::TensorProto_DataType_UINT64:
      packTyped<uint64_t>(tensor.uint64_data(), bytes);
      break;
    case onnx::TensorProto_DataType_UINT32:
      packTyped<uint32_t>(tensor.uint64_data(), bytes);
      break;
    default: // float16, bfloat16: 16-bit patterns in int32_data
      packTyped<uint16_t>(tensor.int32_data(), bytes);
      break;
    }
    data = bytes;
  }
  int64_t expected = numElements * byteWidth(elementType);
  if (static_cast<int64_t>(data.size()) != expected)
    return emitError() << "tensor '" << tensor.name() << "' holds "
                       << data.size() << " bytes of data, but its shape and "
                       << "element type need " << expected;
  auto type = RankedTensorType::get(shape, elementType);
  if (asResource)
    return ElementsAttr(DenseResourceElementsAttr::get(
        type, blobName,
        HeapAsmResourceBlob::allocateAndCopyWithAlign(
            ArrayRef<char>(data.data(), data.size()), alignof(uint64_t))));
  if (elementType.isInteger(1)) {
    SmallVector<bool> bits(data.begin(), data.end());
    return ElementsAttr(DenseElementsAttr::get(type, ArrayRef<bool>(bits)));
  }
  return ElementsAttr(DenseElementsAttr::getFromRawBuffer(
      type, ArrayRef<char>(data.data(), data.size())));
}
