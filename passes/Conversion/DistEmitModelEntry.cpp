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

/// The shapes of the tensors the interface lists, in its order (arguments,
/// then outputs), and how many are arguments.
static FailureOr<std::pair<SmallVector<SmallVector<int64_t>>, unsigned>>
parseShapes(StringRef text) {
  SmallVector<SmallVector<int64_t>> shapes;
  unsigned arguments = 0;
  SmallVector<StringRef> lines;
  text.split(lines, '\n', -1, /*KeepEmpty=*/false);
  for (StringRef line : llvm::drop_begin(lines)) {
    SmallVector<StringRef, 4> fields;
    line.split(fields, ' ', 3);
    StringRef role = fields.front();
    bool isArgument = role == "input" || role == "param" || role == "step" ||
                      role == "seed" || role == "hparam" || role == "state";
    if (!isArgument && role != "output")
      continue; // mode, range and meta lines
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
    arguments += isArgument;
    shapes.push_back(std::move(shape));
  }
  return std::make_pair(std::move(shapes), arguments);
}

struct DistEmitModelEntryPass
    : dist::impl::DistEmitModelEntryBase<DistEmitModelEntryPass> {
  using DistEmitModelEntryBase::DistEmitModelEntryBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    auto text =
        module->getAttrOfType<StringAttr>(DistDialect::kModelInterfaceAttrName);
    if (!text) {
      module.emitError() << "no " << DistDialect::kModelInterfaceAttrName
                         << " attribute: run dist-describe-model first";
      return signalPassFailure();
    }
    auto parsed = parseShapes(text.getValue());
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
    std::string data = text.getValue().str();
    if (!target.empty())
      data += "target " + target + "\n";
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
