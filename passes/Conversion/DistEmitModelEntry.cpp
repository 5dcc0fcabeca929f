//===- DistEmitModelEntry.cpp - The executable's entry on the LLVM dialect ===//

#include "passes/Conversion/Passes.h"

#include "dialects/Dist/IR/DistOps.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"

#include <cmath>

#define DEBUG_TYPE "dist-emit-model-entry"

namespace mlir::dist {
#define GEN_PASS_DEF_DISTEMITMODELENTRY
#include "passes/Conversion/Passes.h.inc"
} // namespace mlir::dist

using namespace mlir;
using namespace mlir::dist;

namespace {

/// The interface description (a dictionary of strings, integers, floats,
/// booleans, arrays and dictionaries) as JSON; failure on any other
/// attribute.
static FailureOr<llvm::json::Value> toJson(Attribute attr) {
  if (auto str = dyn_cast<StringAttr>(attr))
    return llvm::json::Value(str.getValue().str());
  if (auto flag = dyn_cast<BoolAttr>(attr)) // before IntegerAttr: i1
    return llvm::json::Value(flag.getValue());
  if (auto n = dyn_cast<IntegerAttr>(attr))
    return llvm::json::Value(n.getInt());
  if (auto f = dyn_cast<FloatAttr>(attr)) {
    // JSON has no NaN or infinity.
    if (!std::isfinite(f.getValueAsDouble()))
      return failure();
    return llvm::json::Value(f.getValueAsDouble());
  }
  if (auto list = dyn_cast<DenseI64ArrayAttr>(attr))
    return llvm::json::Value(llvm::json::Array(list.asArrayRef()));
  if (auto list = dyn_cast<ArrayAttr>(attr)) {
    llvm::json::Array items;
    for (Attribute item : list) {
      FailureOr<llvm::json::Value> value = toJson(item);
      if (failed(value))
        return failure();
      items.push_back(std::move(*value));
    }
    return llvm::json::Value(std::move(items));
  }
  if (auto dict = dyn_cast<DictionaryAttr>(attr)) {
    llvm::json::Object object;
    for (NamedAttribute member : dict) {
      FailureOr<llvm::json::Value> value = toJson(member.getValue());
      if (failed(value))
        return failure();
      object[member.getName().getValue()] = std::move(*value);
    }
    return llvm::json::Value(std::move(object));
  }
  return failure();
}

/// The shapes of this rank's buffers of the tensors the description
/// lists, in its order (arguments, then outputs), and how many are
/// arguments. The description gives whole (global) shapes; a split
/// dimension's buffer holds its size over the product of its mesh axes.
static FailureOr<std::pair<SmallVector<SmallVector<int64_t>>, unsigned>>
shapesOf(DictionaryAttr description) {
  SmallVector<SmallVector<int64_t>> shapes;
  unsigned arguments = 0;
  auto mesh = description.getAs<DenseI64ArrayAttr>("mesh");
  for (StringRef key : {"arguments", "outputs"}) {
    auto list = description.getAs<ArrayAttr>(key);
    if (!list)
      return failure();
    for (Attribute item : list) {
      auto entry = dyn_cast<DictionaryAttr>(item);
      auto shape = entry ? entry.getAs<DenseI64ArrayAttr>("shape")
                         : DenseI64ArrayAttr();
      if (!shape)
        return failure();
      SmallVector<int64_t> local(shape.asArrayRef());
      auto splits = entry.getAs<ArrayAttr>("split");
      for (Attribute s : splits ? splits.getValue() : ArrayRef<Attribute>()) {
        auto split = dyn_cast<DictionaryAttr>(s);
        auto dim = split ? split.getAs<IntegerAttr>("dim") : IntegerAttr();
        auto axes =
            split ? split.getAs<DenseI64ArrayAttr>("axes") : DenseI64ArrayAttr();
        if (!dim || !axes || !mesh || dim.getInt() < 0 ||
            dim.getInt() >= static_cast<int64_t>(local.size()))
          return failure();
        int64_t devices = 1;
        for (int64_t axis : axes.asArrayRef()) {
          if (axis < 0 || axis >= static_cast<int64_t>(mesh.size()))
            return failure();
          devices *= mesh[axis];
        }
        int64_t &size = local[dim.getInt()];
        if (size % devices)
          return failure();
        size /= devices;
      }
      shapes.push_back(std::move(local));
    }
    if (key == "arguments")
      arguments = shapes.size();
  }
  return std::make_pair(std::move(shapes), arguments);
}

struct DistEmitModelEntryPass
    : dist::impl::DistEmitModelEntryBase<DistEmitModelEntryPass> {
  using DistEmitModelEntryBase::DistEmitModelEntryBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    auto [device, arch] = StringRef(target).split(' ');
    if (!target.empty() &&
        !((device == "cpu" && arch.empty()) ||
          (device == "cuda" && !arch.empty() && !arch.contains(' ')))) {
      module.emitError() << "target '" << target
                         << "': expected 'cpu' or 'cuda <arch>'";
      return signalPassFailure();
    }
    auto description = module->getAttrOfType<DictionaryAttr>(
        DistDialect::kModelInterfaceAttrName);
    if (!description) {
      module.emitError() << "no " << DistDialect::kModelInterfaceAttrName
                         << " attribute: run dist-describe-model first";
      return signalPassFailure();
    }
    auto parsed = shapesOf(description);
    std::string cifaceName = "_mlir_ciface_" + entry;
    auto ciface = module.lookupSymbol<LLVM::LLVMFuncOp>(cifaceName);
    // The descriptors in calling order: the arguments, then one per result,
    // which is the next output's buffer or, for a result that updates an
    // argument, that argument's.
    SmallVector<std::pair<unsigned, SmallVector<int64_t>>> slots;
    if (succeeded(parsed)) {
      auto &[shapes, arguments] = *parsed;
      for (unsigned i = 0; i < arguments; ++i)
        slots.push_back({i, shapes[i]});
      SmallVector<int64_t> updates;
      if (auto attr = module->getAttrOfType<DenseI64ArrayAttr>(
              DistDialect::kModelUpdatesAttrName))
        updates.assign(attr.asArrayRef().begin(), attr.asArrayRef().end());
      else
        updates.assign(shapes.size() - arguments, -1);
      unsigned nextOutput = arguments;
      for (int64_t target : updates) {
        if (target >= 0 && target < static_cast<int64_t>(arguments))
          slots.push_back({static_cast<unsigned>(target), shapes[target]});
        else if (nextOutput < shapes.size())
          slots.push_back({nextOutput, shapes[nextOutput]}), ++nextOutput;
      }
    }
    if (failed(parsed) || !ciface || ciface.getNumArguments() != slots.size() ||
        !isa<LLVM::LLVMVoidType>(ciface.getFunctionType().getReturnType())) {
      module.emitError() << "@" << cifaceName
                         << " does not take one memref descriptor per "
                            "buffer of the interface; lower the entry with "
                            "its results as out-parameters";
      return signalPassFailure();
    }

    OpBuilder b = OpBuilder::atBlockEnd(module.getBody());
    Location loc = module.getLoc();
    FailureOr<llvm::json::Value> json = toJson(description);
    if (failed(json)) {
      module.emitError() << DistDialect::kModelInterfaceAttrName
                         << " holds an attribute JSON cannot express (a "
                            "non-finite number, or not a string, integer, "
                            "float, boolean, array or dictionary)";
      return signalPassFailure();
    }
    if (!target.empty()) {
      llvm::json::Object where{{"device", device}};
      if (!arch.empty())
        where["arch"] = arch;
      json->getAsObject()->try_emplace("target", std::move(where));
    }
    std::string data = llvm::formatv("{0}", *json).str();
    data.push_back('\n');
    data.push_back('\0');
    auto strType =
        LLVM::LLVMArrayType::get(IntegerType::get(ctx, 8), data.size());
    LLVM::GlobalOp::create(b, loc, strType, /*isConstant=*/true,
                           LLVM::Linkage::External, "dist_model_interface",
                           b.getStringAttr(data));

    auto ptr = LLVM::LLVMPointerType::get(ctx);
    Type i64 = b.getI64Type();
    auto fnType =
        LLVM::LLVMFunctionType::get(LLVM::LLVMVoidType::get(ctx), {ptr});
    auto fn = LLVM::LLVMFuncOp::create(b, loc, "dist_model_forward", fnType);
    Block *body = fn.addEntryBlock(b);
    b.setInsertionPointToStart(body);
    Value buffers = body->getArgument(0);
    Value one = LLVM::ConstantOp::create(b, loc, i64, 1);
    SmallVector<Value> descriptors;
    for (auto &[index, shape] : slots) {
      Value slot = LLVM::GEPOp::create(b, loc, ptr, ptr, buffers,
                                       ArrayRef<LLVM::GEPArg>{(int32_t)index});
      Value data = LLVM::LoadOp::create(b, loc, ptr, slot);
      int64_t rank = shape.size();
      SmallVector<Type> fields = {ptr, ptr, i64};
      if (rank) {
        auto arr = LLVM::LLVMArrayType::get(i64, rank);
        fields.append({arr, arr});
      }
      auto structType = LLVM::LLVMStructType::getLiteral(ctx, fields);
      Value desc = LLVM::UndefOp::create(b, loc, structType);
      auto c = [&](int64_t v) {
        return LLVM::ConstantOp::create(b, loc, i64, v);
      };
      desc =
          LLVM::InsertValueOp::create(b, loc, desc, data, ArrayRef<int64_t>{0});
      desc =
          LLVM::InsertValueOp::create(b, loc, desc, data, ArrayRef<int64_t>{1});
      desc =
          LLVM::InsertValueOp::create(b, loc, desc, c(0), ArrayRef<int64_t>{2});
      int64_t stride = 1;
      for (int64_t d = rank - 1; d >= 0; --d) {
        desc = LLVM::InsertValueOp::create(b, loc, desc, c(shape[d]),
                                           ArrayRef<int64_t>{3, d});
        desc = LLVM::InsertValueOp::create(b, loc, desc, c(stride),
                                           ArrayRef<int64_t>{4, d});
        stride *= shape[d];
      }
      Value mem = LLVM::AllocaOp::create(b, loc, ptr, structType, one);
      LLVM::StoreOp::create(b, loc, desc, mem);
      descriptors.push_back(mem);
    }
    LLVM::CallOp::create(b, loc, ciface, descriptors);
    LLVM::ReturnOp::create(b, loc, ValueRange{});

    for (ParameterOp param :
         llvm::make_early_inc_range(module.getOps<ParameterOp>()))
      param.erase();
    // The interface's `mesh` line carries the mesh to the runtime.
    for (MeshOp mesh : llvm::make_early_inc_range(module.getOps<MeshOp>()))
      mesh.erase();
    module->removeAttr(DistDialect::kModelInterfaceAttrName);
    module->removeAttr(DistDialect::kModelUpdatesAttrName);
  }
};

} // namespace
