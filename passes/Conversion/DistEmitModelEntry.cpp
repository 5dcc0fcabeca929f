//===- DistEmitModelEntry.cpp - The executable's entry on the LLVM dialect ===//

#include "passes/Conversion/Passes.h"

#include "dialects/Dist/IR/DistOps.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

#define DEBUG_TYPE "dist-emit-model-entry"

namespace mlir::dist {
#define GEN_PASS_DEF_DISTEMITMODELENTRY
#include "passes/Conversion/Passes.h.inc"
} // namespace mlir::dist

using namespace mlir;
using namespace mlir::dist;

namespace {

/// The shapes of the buffers in calling order (arguments, then results), as
/// the descriptor lists them.
static FailureOr<SmallVector<SmallVector<int64_t>>>
parseShapes(StringRef text) {
  SmallVector<SmallVector<int64_t>> shapes;
  SmallVector<StringRef> lines;
  text.split(lines, '\n', -1, /*KeepEmpty=*/false);
  for (StringRef line : llvm::drop_begin(lines)) {
    SmallVector<StringRef, 4> fields;
    line.split(fields, ' ', 3);
    if (fields.size() < 4)
      return failure();
    SmallVector<int64_t> shape;
    if (fields[2] != "scalar") {
      SmallVector<StringRef> dims;
      fields[2].split(dims, 'x');
      for (StringRef d : dims) {
        int64_t v;
        if (d.getAsInteger(10, v))
          return failure();
        shape.push_back(v);
      }
    }
    shapes.push_back(std::move(shape));
  }
  return shapes;
}

struct DistEmitModelEntryPass
    : dist::impl::DistEmitModelEntryBase<DistEmitModelEntryPass> {
  using DistEmitModelEntryBase::DistEmitModelEntryBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    auto text = module->getAttrOfType<StringAttr>(kModelInterfaceAttrName);
    if (!text) {
      module.emitError() << "no " << kModelInterfaceAttrName
                         << " attribute: run dist-describe-model first";
      return signalPassFailure();
    }
    FailureOr<SmallVector<SmallVector<int64_t>>> shapes =
        parseShapes(text.getValue());
    std::string cifaceName = "_mlir_ciface_" + entry;
    auto ciface = module.lookupSymbol<LLVM::LLVMFuncOp>(cifaceName);
    if (failed(shapes) || !ciface ||
        ciface.getNumArguments() != shapes->size() ||
        !isa<LLVM::LLVMVoidType>(ciface.getFunctionType().getReturnType())) {
      module.emitError() << "@" << cifaceName
                         << " does not take one memref descriptor per "
                            "buffer of the interface; lower the entry with "
                            "its results as out-parameters";
      return signalPassFailure();
    }

    OpBuilder b = OpBuilder::atBlockEnd(module.getBody());
    Location loc = module.getLoc();
    std::string data = text.getValue().str();
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
    for (auto [i, shape] : llvm::enumerate(*shapes)) {
      Value slot = LLVM::GEPOp::create(b, loc, ptr, ptr, buffers,
                                       ArrayRef<LLVM::GEPArg>{(int32_t)i});
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
    module->removeAttr(kModelInterfaceAttrName);
  }
};

} // namespace
