//===- FileSystem.h - Paths a compiled model needs --------------*- C++ -*-===//

#ifndef DISTRT_MAIN_FILESYSTEM_H
#define DISTRT_MAIN_FILESYSTEM_H

#include <cstdint>
#include <string>
#include <vector>

namespace distrt::model {

/// The running executable's path (/proc/self/exe), or `fallback` (argv[0])
/// where that cannot be read.
std::string executablePath(const char *fallback);

/// mkdir -p `path`; on failure returns false and sets `error`.
bool makeDirectories(const std::string &path, std::string &error);

/// An output's file name in --output-dir: NAME.npy with '/' replaced by '_'.
std::string outputFileName(const std::string &name);

/// Whether `path` exists, and whether it is a directory (symlinks followed).
bool pathExists(const std::string &path);
bool isDirectory(const std::string &path);

/// `path` made absolute and canonical (realpath), or `path` unchanged if
/// that fails.
std::string absolutePath(const std::string &path);

/// The directory holding `path`: "." for a bare name.
std::string parentDirectory(const std::string &path);

/// The size of the regular file `path`; false (with `error`) if it is not
/// one.
bool regularFileSize(const std::string &path, uint64_t &size,
                     std::string &error);

/// The names in directory `path`, without "." and "..".
bool listDirectory(const std::string &path, std::vector<std::string> &names,
                   std::string &error);

/// rm -rf `path`, never following symbolic links.
bool removeTree(const std::string &path, std::string &error);

/// fsync of a directory, which makes the renames and creations in it
/// durable.
bool syncDirectory(const std::string &path, std::string &error);

/// Creates `path` (which must not exist) holding `text`, and fsyncs it.
bool writeNewFile(const std::string &path, const std::string &text,
                  std::string &error);

/// Reads the whole of `path` into `text`; a file above `maxBytes` is an
/// error.
bool readFile(const std::string &path, uint64_t maxBytes, std::string &text,
              std::string &error);

} // namespace distrt::model

#endif // DISTRT_MAIN_FILESYSTEM_H
