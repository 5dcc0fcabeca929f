//===- FileSystem.cpp - Paths a compiled model needs ----------------------===//
//
// std::filesystem for paths, directories and removal; POSIX calls only for
// what it cannot say: a file created exclusively (O_EXCL) and fsync'd, and a
// directory fsync'd, which the checkpoints' atomic replacement needs
// (Checkpoint.cpp: write into a fresh directory, sync, rename, sync).

#include "FileSystem.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <system_error>
#include <unistd.h>

namespace distrt::model {

namespace fs = std::filesystem;

namespace {

std::string systemError(const std::string &path, const char *what) {
  return path + ": " + what + ": " + std::strerror(errno);
}

std::string systemError(const std::string &path, const char *what,
                        const std::error_code &code) {
  return path + ": " + what + ": " + code.message();
}

} // namespace

std::string executablePath(const char *fallback) {
  std::error_code code;
  fs::path self = fs::read_symlink("/proc/self/exe", code);
  return code || self.empty() ? std::string(fallback) : self.string();
}

bool makeDirectories(const std::string &path, std::string &error) {
  std::error_code code;
  fs::create_directories(path, code);
  if (code) {
    error = systemError(path, "cannot create the directory", code);
    return false;
  }
  if (!fs::is_directory(path, code)) {
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
  std::error_code code;
  return fs::exists(path, code);
}

bool isDirectory(const std::string &path) {
  std::error_code code;
  return fs::is_directory(path, code);
}

std::string absolutePath(const std::string &path) {
  std::error_code code;
  fs::path canonical = fs::canonical(path, code);
  return code ? path : canonical.string();
}

std::string parentDirectory(const std::string &path) {
  fs::path parent = fs::path(path).parent_path();
  return parent.empty() ? "." : parent.string();
}

bool regularFileSize(const std::string &path, uint64_t &size,
                     std::string &error) {
  std::error_code code;
  fs::file_status status = fs::status(path, code);
  if (code) {
    error = systemError(path, "cannot open", code);
    return false;
  }
  if (!fs::is_regular_file(status)) {
    error = path + ": not a regular file";
    return false;
  }
  size = fs::file_size(path, code);
  if (code) {
    error = systemError(path, "cannot open", code);
    return false;
  }
  return true;
}

bool listDirectory(const std::string &path, std::vector<std::string> &names,
                   std::string &error) {
  std::error_code code;
  fs::directory_iterator it(path, code), end;
  if (code) {
    error = systemError(path, "cannot open the directory", code);
    return false;
  }
  names.clear();
  for (; it != end; it.increment(code))
    names.push_back(it->path().filename().string());
  if (code) {
    error = systemError(path, "cannot read the directory", code);
    return false;
  }
  return true;
}

bool removeTree(const std::string &path, std::string &error) {
  // remove_all never follows symbolic links: a link is removed, not what it
  // points to.
  std::error_code code;
  fs::remove_all(path, code);
  if (code) {
    error = systemError(path, "cannot remove", code);
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
