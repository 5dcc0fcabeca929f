//===- FileSystem.cpp - Paths a compiled model needs ----------------------===//

#include "FileSystem.h"

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace distrt::model {

namespace {

std::string systemError(const std::string &path, const char *what) {
  return path + ": " + what + ": " + std::strerror(errno);
}

/// Removes the entries of the open directory `fd` (which it closes), then
/// nothing else: the caller removes the directory itself.
bool removeEntries(int fd, const std::string &path, std::string &error) {
  DIR *dir = ::fdopendir(fd);
  if (!dir) {
    error = systemError(path, "cannot read the directory");
    ::close(fd);
    return false;
  }
  bool ok = true;
  while (dirent *entry = ::readdir(dir)) {
    std::string name = entry->d_name;
    if (name == "." || name == "..")
      continue;
    std::string child = path + "/" + name;
    struct stat status;
    if (::fstatat(fd, name.c_str(), &status, AT_SYMLINK_NOFOLLOW) != 0) {
      error = systemError(child, "cannot stat");
      ok = false;
      break;
    }
    if (S_ISDIR(status.st_mode)) {
      int childFd = ::openat(fd, name.c_str(),
                             O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
      if (childFd < 0 || !removeEntries(childFd, child, error)) {
        if (childFd < 0)
          error = systemError(child, "cannot open the directory");
        ok = false;
        break;
      }
    }
    if (::unlinkat(fd, name.c_str(),
                   S_ISDIR(status.st_mode) ? AT_REMOVEDIR : 0) != 0) {
      error = systemError(child, "cannot remove");
      ok = false;
      break;
    }
  }
  ::closedir(dir);
  return ok;
}

} // namespace

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

bool pathExists(const std::string &path) {
  struct stat status;
  return ::stat(path.c_str(), &status) == 0;
}

bool isDirectory(const std::string &path) {
  struct stat status;
  return ::stat(path.c_str(), &status) == 0 && S_ISDIR(status.st_mode);
}

std::string absolutePath(const std::string &path) {
  char *resolved = ::realpath(path.c_str(), nullptr);
  if (!resolved)
    return path;
  std::string result = resolved;
  std::free(resolved);
  return result;
}

std::string parentDirectory(const std::string &path) {
  size_t slash = path.rfind('/');
  if (slash == std::string::npos)
    return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

bool regularFileSize(const std::string &path, uint64_t &size,
                     std::string &error) {
  struct stat status;
  if (::stat(path.c_str(), &status) != 0) {
    error = systemError(path, "cannot open");
    return false;
  }
  if (!S_ISREG(status.st_mode)) {
    error = path + ": not a regular file";
    return false;
  }
  size = static_cast<uint64_t>(status.st_size);
  return true;
}

bool listDirectory(const std::string &path, std::vector<std::string> &names,
                   std::string &error) {
  DIR *dir = ::opendir(path.c_str());
  if (!dir) {
    error = systemError(path, "cannot open the directory");
    return false;
  }
  names.clear();
  while (dirent *entry = ::readdir(dir)) {
    std::string name = entry->d_name;
    if (name != "." && name != "..")
      names.push_back(name);
  }
  ::closedir(dir);
  return true;
}

bool removeTree(const std::string &path, std::string &error) {
  struct stat status;
  if (::lstat(path.c_str(), &status) != 0) {
    if (errno == ENOENT)
      return true;
    error = systemError(path, "cannot stat");
    return false;
  }
  if (S_ISDIR(status.st_mode)) {
    int fd =
        ::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) {
      error = systemError(path, "cannot open the directory");
      return false;
    }
    if (!removeEntries(fd, path, error))
      return false;
    if (::rmdir(path.c_str()) != 0) {
      error = systemError(path, "cannot remove");
      return false;
    }
    return true;
  }
  if (::unlink(path.c_str()) != 0) {
    error = systemError(path, "cannot remove");
    return false;
  }
  return true;
}

bool syncDirectory(const std::string &path, std::string &error) {
  int fd = ::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) {
    error = systemError(path, "cannot open the directory");
    return false;
  }
  bool ok = ::fsync(fd) == 0;
  if (!ok)
    error = systemError(path, "cannot sync the directory");
  ::close(fd);
  return ok;
}

bool writeNewFile(const std::string &path, const std::string &text,
                  std::string &error) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
  if (fd < 0) {
    error = systemError(path, "cannot create");
    return false;
  }
  const char *at = text.data();
  size_t left = text.size();
  while (left > 0) {
    ssize_t put = ::write(fd, at, left);
    if (put < 0 && errno == EINTR)
      continue;
    if (put <= 0) {
      error = systemError(path, "write error");
      ::close(fd);
      return false;
    }
    at += put;
    left -= static_cast<size_t>(put);
  }
  if (::fsync(fd) != 0) {
    error = systemError(path, "write error");
    ::close(fd);
    return false;
  }
  if (::close(fd) != 0) {
    error = systemError(path, "write error");
    return false;
  }
  return true;
}

bool readFile(const std::string &path, uint64_t maxBytes, std::string &text,
              std::string &error) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    error = systemError(path, "cannot open");
    return false;
  }
  text.clear();
  char buffer[65536];
  while (true) {
    ssize_t got = ::read(fd, buffer, sizeof(buffer));
    if (got < 0 && errno == EINTR)
      continue;
    if (got < 0) {
      error = systemError(path, "read error");
      ::close(fd);
      return false;
    }
    if (got == 0)
      break;
    text.append(buffer, static_cast<size_t>(got));
    if (text.size() > maxBytes) {
      error = path + ": larger than " + std::to_string(maxBytes) + " bytes";
      ::close(fd);
      return false;
    }
  }
  ::close(fd);
  return true;
}

} // namespace distrt::model
