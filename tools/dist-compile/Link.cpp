//===- Link.cpp - Link the model object with the runtime ------------------===//

#include "tools/dist-compile/Link.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"

#include <cstdlib>

using namespace llvm;

/// The folder holding libdistrt and libdistrt_main.a.
static Expected<std::string> runtimeLibDir(const char *argv0) {
  static int anchor;
  std::string exe = sys::fs::getMainExecutable(argv0, &anchor);
  SmallString<256> dir(sys::path::parent_path(sys::path::parent_path(exe)));
  sys::path::append(dir, "lib");
  SmallString<256> main(dir);
  sys::path::append(main, "libdistrt_main.a");
  if (!sys::fs::exists(main))
    return createStringError("the runtime library " + main.str() +
                             " is missing; build the `distrt_main` target");
  return dir.str().str();
}

Error mlir::dist::linkExecutable(StringRef object, StringRef output,
                                 const char *argv0, bool cuda) {
  Expected<std::string> libDir = runtimeLibDir(argv0);
  if (!libDir)
    return libDir.takeError();
  std::string driver = "c++";
  if (const char *cxx = std::getenv("CXX"); cxx && *cxx)
    driver = cxx;
  ErrorOr<std::string> program = sys::findProgramByName(driver);
  if (!program)
    return createStringError("cannot find the C++ compiler driver '" + driver +
                             "' to link with (set CXX)");
  std::string mainLib = *libDir + "/libdistrt_main.a";
  std::string rpath = "-Wl,-rpath," + *libDir;
  std::string libFlag = "-L" + *libDir;
  std::string cudaLib = *libDir + "/libdistrt_cuda.a";
  std::string jsonLib = *libDir + "/libdistrt_json.a";
  SmallVector<StringRef> args = {*program, object, "-o", output, mainLib};
  if (cuda) {
    if (!sys::fs::exists(cudaLib))
      return createStringError("the runtime library " + cudaLib +
                               " is missing; build the `distrt_cuda` target");
    args.append({cudaLib, "-static-libstdc++", "-static-libgcc", "-ldl",
                 "-lpthread", "-lm"});
  } else {
    // libdistrt.so exports only its C API: the JSON reader the main library
    // uses is its own static library.
    args.append({jsonLib, libFlag, "-ldistrt", rpath, "-lm"});
  }
  std::string error;
  int rc = sys::ExecuteAndWait(*program, args, std::nullopt, {}, 0, 0, &error);
  if (rc != 0)
    return createStringError("linking " + output.str() + " failed (" + driver +
                             " exited with " + std::to_string(rc) +
                             (error.empty() ? "" : ": " + error) + ")");
  return Error::success();
}
