//===- Library.cpp - Finding the CUDA libraries at run time ---------------===//
//
// The driver (libcuda.so.1) comes with the NVIDIA driver, cuBLASLt with the
// toolkit or PyTorch's nvidia-* wheels: an executable cannot carry them
// (cuBLASLt is 500 MB), so it looks where they usually are, in the order of
// distrt.h ("CUDA device").
//
//===----------------------------------------------------------------------===//

#include "Cuda.h"

#include <cstdlib>
#include <dlfcn.h>
#include <glob.h>
#include <set>
#include <unistd.h>

namespace distrt::cuda {

namespace {

std::string env(const char *name) {
  const char *value = std::getenv(name);
  return value ? value : "";
}

/// Every path `pattern` matches, sorted (glob's order).
std::vector<std::string> globPaths(const std::string &pattern) {
  std::vector<std::string> paths;
  glob_t result;
  if (::glob(pattern.c_str(), 0, nullptr, &result) == 0)
    for (size_t i = 0; i < result.gl_pathc; ++i)
      paths.push_back(result.gl_pathv[i]);
  ::globfree(&result);
  return paths;
}

/// The CUDA toolkit's folders: $CUDA_HOME, $CUDA_PATH, /usr/local/cuda.
std::vector<std::string> toolkitRoots() {
  std::vector<std::string> roots;
  for (const char *variable : {"CUDA_HOME", "CUDA_PATH"})
    if (!env(variable).empty())
      roots.push_back(env(variable));
  roots.push_back("/usr/local/cuda");
  return roots;
}

/// Python's package folders where pip puts NVIDIA's wheels: the system's,
/// the user's, the active virtual environment's, and those of each python3
/// on PATH (a venv's or conda's bin/../lib).
std::vector<std::string> sitePackages() {
  std::vector<std::string> patterns = {"/usr/lib/python3*/site-packages",
                                       "/usr/lib/python3/dist-packages",
                                       "/usr/local/lib/python3*/dist-packages",
                                       "/usr/local/lib/python3*/site-packages"};
  if (!env("HOME").empty())
    patterns.push_back(env("HOME") + "/.local/lib/python3*/site-packages");
  if (!env("VIRTUAL_ENV").empty())
    patterns.push_back(env("VIRTUAL_ENV") + "/lib/python3*/site-packages");
  std::string path = env("PATH");
  for (size_t at = 0; at <= path.size();) {
    size_t end = path.find(':', at);
    if (end == std::string::npos)
      end = path.size();
    std::string dir = path.substr(at, end - at);
    at = end + 1;
    if (!dir.empty() && ::access((dir + "/python3").c_str(), X_OK) == 0)
      patterns.push_back(dir + "/../lib/python3*/site-packages");
  }
  std::vector<std::string> dirs;
  for (const std::string &pattern : patterns)
    for (const std::string &dir : globPaths(pattern))
      dirs.push_back(dir);
  return dirs;
}

} // namespace

bool openLibrary(const char *soname, const char *overrideVariable,
                 const std::vector<std::string> &fallbacks, Library &out,
                 std::string &error) {
  std::string chosen = env(overrideVariable);
  if (!chosen.empty()) {
    ::dlerror();
    out.handle = ::dlopen(chosen.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!out.handle) {
      const char *why = ::dlerror();
      error = std::string(soname) + " not found: " + overrideVariable + "=" +
              chosen + ": " + (why ? why : "dlopen failed");
      return false;
    }
    out.path = chosen;
    return true;
  }
  std::vector<std::string> candidates = {soname};
  for (const std::string &root : toolkitRoots())
    for (const char *lib : {"/lib64/", "/lib/"})
      candidates.push_back(root + lib + soname);
  for (const std::string &site : sitePackages())
    for (const std::string &file : globPaths(site + "/nvidia/*/lib/" + soname))
      candidates.push_back(file);
  for (const std::string &root : toolkitRoots())
    for (const std::string &fallback : fallbacks)
      candidates.push_back(root + "/" + fallback);
  std::set<std::string> tried;
  std::string failures; // files that exist but would not load
  for (const std::string &candidate : candidates) {
    if (!tried.insert(candidate).second)
      continue;
    bool isPath = candidate.find('/') != std::string::npos;
    if (isPath && ::access(candidate.c_str(), F_OK) != 0)
      continue;
    ::dlerror();
    out.handle = ::dlopen(candidate.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (out.handle) {
      out.path = candidate;
      if (!isPath) {
        // Name the file the loader picked.
        char where[4096];
        if (::dlinfo(out.handle, RTLD_DI_ORIGIN, where) == 0)
          out.path = std::string(where) + "/" + candidate;
      }
      return true;
    }
    const char *why = ::dlerror();
    if (isPath && why)
      failures += std::string("; ") + why;
  }
  error = std::string(soname) +
          " not found (looked in the loader path, the CUDA toolkit's lib64 "
          "of $CUDA_HOME, $CUDA_PATH and /usr/local/cuda, and Python's "
          "nvidia/*/lib folders; set " +
          overrideVariable + " to its full path)" + failures;
  return false;
}

} // namespace distrt::cuda
