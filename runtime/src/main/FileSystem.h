//===- FileSystem.h - Paths a compiled model needs --------------*- C++ -*-===//

#ifndef DISTRT_MAIN_FILESYSTEM_H
#define DISTRT_MAIN_FILESYSTEM_H

#include <string>

namespace distrt::model {

/// The running executable's path (/proc/self/exe), or `fallback` (argv[0])
/// where that cannot be read.
std::string executablePath(const char *fallback);

/// mkdir -p `path`; on failure returns false and sets `error`.
bool makeDirectories(const std::string &path, std::string &error);

/// An output's file name in --output-dir: NAME.npy with '/' replaced by '_'.
std::string outputFileName(const std::string &name);

} // namespace distrt::model

#endif // DISTRT_MAIN_FILESYSTEM_H
