//===- DistLowerAsserts.cpp - Failed checks exit through distrt_fail ------===//

#include "passes/Conversion/Passes.h"

#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"

#define DEBUG_TYPE "dist-lower-asserts"

namespace mlir::dist {
#define GEN_PASS_DEF_DISTLOWERASSERTS
#include "passes/Conversion/Passes.h.inc"
} // namespace mlir::dist

using namespace mlir;

namespace {

constexpr llvm::StringLiteral kFailName = "distrt_fail";

struct DistLowerAssertsPass
    : dist::impl::DistLowerAssertsBase<DistLowerAssertsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<cf::AssertOp> asserts;
    module.walk([&](cf::AssertOp op) { asserts.push_back(op); });
    if (asserts.empty())
      return;
    MLIRContext *ctx = &getContext();
    auto ptr = LLVM::LLVMPointerType::get(ctx);
    OpBuilder top = OpBuilder::atBlockBegin(module.getBody());
    auto fail = module.lookupSymbol<func::FuncOp>(kFailName);
    if (!fail) {
      fail = func::FuncOp::create(top, module.getLoc(), kFailName,
                                  top.getFunctionType({ptr}, {}));
      fail.setPrivate();
    }
    // One global per distinct message.
    llvm::StringMap<LLVM::GlobalOp> globals;
    for (cf::AssertOp op : asserts) {
      std::string text = op.getMsg().str();
      LLVM::GlobalOp &global = globals[text];
      if (!global) {
        std::string data = text;
        data.push_back('\0');
        auto type =
            LLVM::LLVMArrayType::get(IntegerType::get(ctx, 8), data.size());
        global = LLVM::GlobalOp::create(
            top, op.getLoc(), type, /*isConstant=*/true,
            LLVM::Linkage::Internal,
            ("dist_check_" + Twine(globals.size() - 1)).str(),
            top.getStringAttr(data));
      }
      OpBuilder b(op);
      Location loc = op.getLoc();
      Value bad = arith::XOrIOp::create(
          b, loc, op.getArg(),
          arith::ConstantIntOp::create(b, loc, b.getI1Type(), 1));
      auto branch = scf::IfOp::create(b, loc, bad, /*withElseRegion=*/false);
      b.setInsertionPointToStart(branch.thenBlock());
      Value message = LLVM::AddressOfOp::create(b, loc, global);
      func::CallOp::create(b, loc, fail, message);
      op.erase();
    }
  }
};

} // namespace
