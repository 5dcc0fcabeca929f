//===- FileSystem.cpp - Paths a compiled model needs ----------------------===//

#include "FileSystem.h"

#include <cerrno>
#include <climits>
#include <cstring>
#include <sys/stat.h>
#include <unistd.h>

namespace distrt::model {

std::string executablePath(const char *fallback) {
  char buffer[PATH_MAX];
  ssize_t length = ::readlink("/proc/self/exe", buffer, sizeof(buffer) - 1);
  if (length <= 0)
    return fallback;
  return std::string(buffer, static_cast<size_t>(length));
}

bool makeDirectories(const std::string &path, std::string &error) {
  for (size_t slash = path.find('/', 1);; slash = path.find('/', slash + 1)) {
    std::string prefix = path.substr(0, slash);
    if (!prefix.empty() && ::mkdir(prefix.c_str(), 0777) != 0 &&
        errno != EEXIST) {
      error = path + ": cannot create the directory: " + std::strerror(errno);
      return false;
    }
    if (slash == std::string::npos)
      break;
  }
  struct stat status;
  if (::stat(path.c_str(), &status) != 0 || !S_ISDIR(status.st_mode)) {
    error = path + ": not a directory";
    return false;
  }
  return true;
}

std::string outputFileName(const std::string &name) {
  std::string file = name;
  for (char &ch : file)
    if (ch == '/')
      ch = '_';
  return file + ".npy";
}

} // namespace distrt::model
