//===- ObjectEmission.cpp - LLVM dialect to LLVM IR / object file ---------===//
//
// In process, without mlir-translate, llc or a temporary .ll file: translate,
// run LLVM's O3 pipeline for the host, emit through the TargetMachine.
//
//===----------------------------------------------------------------------===//

#include "tools/dist-compile/ObjectEmission.h"

#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/Target/LLVMIR/Export.h"

#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/Linker/Linker.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/Triple.h"

using namespace mlir;

namespace {

/// One program of pipeline stages: module k's entry point becomes
/// dist_model_forward_stage<k> (its other definitions internal, so that
/// the stages' kernels and constants do not clash), stage 0 keeps the
/// interface, and dist_model_forward calls the entry of the rank's
/// coordinate on mesh axis `axis` (distrt_mesh_coord).
std::unique_ptr<llvm::Module>
linkStages(ArrayRef<ModuleOp> stages, int64_t axis, llvm::LLVMContext &context) {
  std::unique_ptr<llvm::Module> linked;
  for (size_t k = 0; k < stages.size(); ++k) {
    ModuleOp stage = stages[k];
    std::unique_ptr<llvm::Module> module =
        translateModuleToLLVMIR(stage, context, "model");
    if (!module) {
      stage.emitError() << "cannot translate stage " << k << " to LLVM IR";
      return nullptr;
    }
    std::string entry = "dist_model_forward_stage" + std::to_string(k);
    llvm::Function *forward = module->getFunction("dist_model_forward");
    if (!forward) {
      stage.emitError() << "stage " << k << " has no dist_model_forward";
      return nullptr;
    }
    forward->setName(entry);
    if (llvm::GlobalVariable *description =
            module->getGlobalVariable("dist_model_interface"))
      if (k > 0)
        description->eraseFromParent();
    for (llvm::GlobalValue &value : module->global_values())
      if (!value.isDeclaration() && value.getName() != entry &&
          value.getName() != "dist_model_interface")
        value.setLinkage(llvm::GlobalValue::InternalLinkage);
    if (!linked) {
      linked = std::move(module);
      continue;
    }
    if (llvm::Linker::linkModules(*linked, std::move(module))) {
      stage.emitError() << "cannot link stage " << k << " to the others";
      return nullptr;
    }
  }
  llvm::IRBuilder<> b(context);
  auto *ptr = llvm::PointerType::get(context, 0);
  llvm::FunctionCallee coord = linked->getOrInsertFunction(
      "distrt_mesh_coord", b.getInt64Ty(), b.getInt32Ty());
  auto *dispatch = llvm::Function::Create(
      llvm::FunctionType::get(b.getVoidTy(), {ptr}, false),
      llvm::GlobalValue::ExternalLinkage, "dist_model_forward", *linked);
  auto *entryBlock = llvm::BasicBlock::Create(context, "entry", dispatch);
  auto *none = llvm::BasicBlock::Create(context, "none", dispatch);
  b.SetInsertPoint(entryBlock);
  llvm::Value *at = b.CreateCall(coord, {b.getInt32(axis)});
  llvm::SwitchInst *cases = b.CreateSwitch(at, none, stages.size());
  for (size_t k = 0; k < stages.size(); ++k) {
    auto *run = llvm::BasicBlock::Create(context, "stage", dispatch);
    cases->addCase(b.getInt64(k), run);
    b.SetInsertPoint(run);
    b.CreateCall(linked->getFunction("dist_model_forward_stage" +
                                     std::to_string(k)),
                 {dispatch->getArg(0)});
    b.CreateRetVoid();
  }
  b.SetInsertPoint(none);
  b.CreateRetVoid();
  return linked;
}

/// Parameter-server mode's programs: module 0 (the workers') keeps
/// dist_model_forward and dist_model_interface; server k's become
/// dist_ps_server_forward_<k> and dist_ps_server_interface_<k> (their other
/// definitions internal); then the table of distrt/model.h:
/// dist_ps_workers, dist_ps_servers (int64 constants),
/// dist_ps_grad_compression (a string) and dist_ps_server(k, &interface),
/// which returns server k's entry point.
std::unique_ptr<llvm::Module>
linkParameterServer(ArrayRef<ModuleOp> programs,
                    const mlir::dist::ParameterServerLink &ps,
                    llvm::LLVMContext &context) {
  int64_t workers = ps.workers;
  std::unique_ptr<llvm::Module> linked;
  int64_t servers = static_cast<int64_t>(programs.size()) - 1;
  for (size_t k = 0; k < programs.size(); ++k) {
    std::unique_ptr<llvm::Module> module =
        translateModuleToLLVMIR(programs[k], context, "model");
    if (!module) {
      ModuleOp(programs[k]).emitError() << "cannot translate program " << k
                              << " to LLVM IR";
      return nullptr;
    }
    llvm::Function *forward = module->getFunction("dist_model_forward");
    llvm::GlobalVariable *description =
        module->getGlobalVariable("dist_model_interface");
    if (!forward || !description) {
      ModuleOp(programs[k]).emitError() << "program " << k
                              << " has no dist_model_forward and interface";
      return nullptr;
    }
    if (k > 0) {
      std::string server = std::to_string(k - 1);
      forward->setName("dist_ps_server_forward_" + server);
      description->setName("dist_ps_server_interface_" + server);
    }
    std::string entry = forward->getName().str(),
                interface = description->getName().str();
    for (llvm::GlobalValue &value : module->global_values())
      if (!value.isDeclaration() && value.getName() != entry &&
          value.getName() != interface)
        value.setLinkage(llvm::GlobalValue::InternalLinkage);
    if (!linked) {
      linked = std::move(module);
      continue;
    }
    if (llvm::Linker::linkModules(*linked, std::move(module))) {
      ModuleOp(programs[k]).emitError() << "cannot link program " << k
                              << " to the others";
      return nullptr;
    }
  }
  llvm::IRBuilder<> b(context);
  auto constant = [&](StringRef name, int64_t value) {
    new llvm::GlobalVariable(*linked, b.getInt64Ty(), /*isConstant=*/true,
                             llvm::GlobalValue::ExternalLinkage,
                             b.getInt64(value), name);
  };
  constant("dist_ps_workers", workers);
  constant("dist_ps_servers", servers);
  constant("dist_ps_allreduce", ps.allReduce ? 1 : 0);
  llvm::Constant *compression =
      llvm::ConstantDataArray::getString(context, ps.gradCompression);
  new llvm::GlobalVariable(*linked, compression->getType(),
                           /*isConstant=*/true,
                           llvm::GlobalValue::ExternalLinkage, compression,
                           "dist_ps_grad_compression");
  auto *ptr = llvm::PointerType::get(context, 0);
  auto *lookup = llvm::Function::Create(
      llvm::FunctionType::get(ptr, {b.getInt64Ty(), ptr}, false),
      llvm::GlobalValue::ExternalLinkage, "dist_ps_server", *linked);
  auto *entryBlock = llvm::BasicBlock::Create(context, "entry", lookup);
  auto *none = llvm::BasicBlock::Create(context, "none", lookup);
  b.SetInsertPoint(entryBlock);
  llvm::SwitchInst *cases =
      b.CreateSwitch(lookup->getArg(0), none, servers);
  for (int64_t k = 0; k < servers; ++k) {
    auto *found = llvm::BasicBlock::Create(context, "server", lookup);
    cases->addCase(b.getInt64(k), found);
    b.SetInsertPoint(found);
    std::string server = std::to_string(k);
    b.CreateStore(
        linked->getGlobalVariable("dist_ps_server_interface_" + server),
        lookup->getArg(1));
    b.CreateRet(linked->getFunction("dist_ps_server_forward_" + server));
  }
  b.SetInsertPoint(none);
  b.CreateRet(llvm::ConstantPointerNull::get(ptr));
  return linked;
}

/// Code generation's level for the IR's -O level: at 0, FastISel and the
/// fast register allocator (a CUDA program's host code is one function of
/// launches: gpt2-xl's took 292 s with SelectionDAG and the greedy
/// allocator).
llvm::CodeGenOptLevel codeGenOptLevel(unsigned optLevel) {
  switch (optLevel) {
  case 0:
    return llvm::CodeGenOptLevel::None;
  case 1:
    return llvm::CodeGenOptLevel::Less;
  case 2:
    return llvm::CodeGenOptLevel::Default;
  default:
    return llvm::CodeGenOptLevel::Aggressive;
  }
}

} // namespace

LogicalResult mlir::dist::emitLLVM(ArrayRef<ModuleOp> modules,
                                   int64_t stageAxis,
                                   const CodegenOptions &options, bool asIR,
                                   llvm::raw_pwrite_stream &os,
                                   const ParameterServerLink &ps) {
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  llvm::LLVMContext context;
  ModuleOp module = modules.front();
  std::unique_ptr<llvm::Module> llvmModule =
      ps.workers > 0 ? linkParameterServer(modules, ps, context)
      : modules.size() == 1 && stageAxis < 0
          ? translateModuleToLLVMIR(module, context, "model")
          : linkStages(modules, stageAxis, context);
  if (!llvmModule)
    return module.emitError() << "cannot translate the module to LLVM IR";

  llvm::Triple triple(llvm::sys::getDefaultTargetTriple());
  std::string error;
  const llvm::Target *target =
      llvm::TargetRegistry::lookupTarget(triple, error);
  if (!target)
    return module.emitError()
           << "no LLVM target for " << triple.str() << ": " << error;
  std::string cpu = options.cpu, features;
  if (cpu == "native") {
    cpu = llvm::sys::getHostCPUName().str();
    llvm::SmallVector<std::string> list;
    for (const auto &feature : llvm::sys::getHostCPUFeatures())
      list.push_back((feature.second ? "+" : "-") + feature.first().str());
    features = llvm::join(list, ",");
  }
  llvm::TargetOptions targetOptions;
  std::unique_ptr<llvm::TargetMachine> machine(target->createTargetMachine(
      triple, cpu, features, targetOptions, llvm::Reloc::PIC_, std::nullopt,
      codeGenOptLevel(options.optLevel)));
  if (!machine)
    return module.emitError()
           << "cannot create a target machine for CPU '" << cpu << "'";
  llvmModule->setDataLayout(machine->createDataLayout());
  llvmModule->setTargetTriple(triple);
  if (llvm::Error e = makeOptimizingTransformer(
          options.optLevel, 0, machine.get())(llvmModule.get())) {
    std::string message = llvm::toString(std::move(e));
    return module.emitError() << "LLVM optimization failed: " << message;
  }
  if (asIR) {
    llvmModule->print(os, nullptr);
    return success();
  }
  llvm::legacy::PassManager codegen;
  if (machine->addPassesToEmitFile(codegen, os, nullptr,
                                   llvm::CodeGenFileType::ObjectFile))
    return module.emitError() << "the target cannot emit object files";
  codegen.run(*llvmModule);
  return success();
}
