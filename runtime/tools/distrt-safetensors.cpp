//===- distrt-safetensors.cpp - Lists and converts safetensors files ------===//
//
//   distrt-safetensors [list] FILE
//   distrt-safetensors pack OUT NAME=FILE.npy... [--metadata KEY=VALUE]...
//   distrt-safetensors unpack IN DIR
//   distrt-safetensors copy IN OUT
//
// `list` prints one line per tensor, `NAME DTYPE [SHAPE]`, in header order,
// then `# metadata: KEY = VALUE` lines. `pack` writes .npy files as one
// safetensors file; `unpack` writes each tensor as DIR/NAME.npy ('/' in NAME
// becomes '_'; DIR is created if missing); `copy` reads every tensor and its
// metadata and writes them again. Tests check all of them against a Python
// reference of the format.
//
//===----------------------------------------------------------------------===//

#include "distrt/distrt.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <set>
#include <string>
#include <sys/stat.h>
#include <vector>

namespace {

const distrt_device kHost = {DISTRT_HOST, 0};

int usage() {
  std::fprintf(
      stderr,
      "usage: distrt-safetensors [list] FILE\n"
      "       distrt-safetensors pack OUT NAME=FILE.npy... "
      "[--metadata KEY=VALUE]...\n"
      "       distrt-safetensors unpack IN DIR   (writes DIR/NAME.npy, '/' "
      "in NAME becomes '_')\n"
      "       distrt-safetensors copy IN OUT\n");
  return 2;
}

int error(const std::string &message) {
  std::fprintf(stderr, "distrt-safetensors: error: %s\n", message.c_str());
  return 1;
}

int lastError() { return error(distrt_last_error()); }

struct Closer {
  void operator()(distrt_safetensors *file) const {
    distrt_safetensors_close(file);
  }
};
using File = std::unique_ptr<distrt_safetensors, Closer>;

/// Host tensors whose data this owns.
struct Tensors {
  std::vector<std::string> names;
  std::vector<distrt_tensor> tensors;
  ~Tensors() {
    for (distrt_tensor &tensor : tensors)
      distrt_free(tensor.device, tensor.data);
  }
};

/// Reads every tensor of `file` into `out`.
int readAll(const distrt_safetensors *file, Tensors &out) {
  for (int64_t i = 0; i < distrt_safetensors_count(file); ++i) {
    const char *name = distrt_safetensors_name(file, i);
    distrt_tensor tensor;
    if (distrt_safetensors_info(file, name, &tensor) != 0)
      return -1;
    size_t bytes = static_cast<size_t>(distrt_tensor_numel(&tensor)) *
                   distrt_dtype_size(tensor.dtype);
    tensor.data = distrt_alloc(kHost, bytes);
    if (!tensor.data)
      return -1;
    out.names.push_back(name);
    out.tensors.push_back(tensor);
    if (distrt_safetensors_read(file, name, tensor.data, bytes) != 0)
      return -1;
  }
  return 0;
}

std::string shapeText(const distrt_tensor &tensor) {
  std::string text = "[";
  for (int32_t i = 0; i < tensor.rank; ++i)
    text += (i ? ", " : "") + std::to_string(tensor.shape[i]);
  return text + "]";
}

int list(const char *path) {
  File file(distrt_safetensors_open(path));
  if (!file)
    return lastError();
  for (int64_t i = 0; i < distrt_safetensors_count(file.get()); ++i) {
    const char *name = distrt_safetensors_name(file.get(), i);
    distrt_tensor info;
    distrt_safetensors_info(file.get(), name, &info);
    std::printf("%s %s %s\n", name, distrt_dtype_name(info.dtype),
                shapeText(info).c_str());
  }
  for (int64_t i = 0; i < distrt_safetensors_metadata_count(file.get()); ++i) {
    const char *key = distrt_safetensors_metadata_key(file.get(), i);
    std::printf("# metadata: %s = %s\n", key,
                distrt_safetensors_metadata(file.get(), key));
  }
  return 0;
}

int pack(int argc, char **argv) {
  const char *out = argv[0];
  Tensors tensors;
  std::vector<std::string> keys, values;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    bool isMetadata = arg == "--metadata" || arg.rfind("--metadata=", 0) == 0;
    if (arg == "--metadata") {
      if (++i == argc)
        return error("--metadata needs KEY=VALUE");
      arg = argv[i];
    } else if (isMetadata) {
      arg = arg.substr(std::strlen("--metadata="));
    } else if (arg.rfind("-", 0) == 0) {
      return error("unknown option '" + arg + "'");
    }
    size_t equals = arg.find('=');
    if (equals == std::string::npos)
      return error("'" + arg + "' is not " +
                   (isMetadata ? "KEY=VALUE" : "NAME=FILE.npy"));
    if (isMetadata) {
      keys.push_back(arg.substr(0, equals));
      values.push_back(arg.substr(equals + 1));
      continue;
    }
    distrt_tensor tensor;
    std::string npy = arg.substr(equals + 1);
    if (distrt_npy_read(npy.c_str(), &tensor) != 0)
      return lastError();
    tensors.names.push_back(arg.substr(0, equals));
    tensors.tensors.push_back(tensor);
  }
  std::vector<const char *> names, keyPointers, valuePointers;
  for (const std::string &name : tensors.names)
    names.push_back(name.c_str());
  for (size_t i = 0; i < keys.size(); ++i) {
    keyPointers.push_back(keys[i].c_str());
    valuePointers.push_back(values[i].c_str());
  }
  if (distrt_safetensors_write(out, static_cast<int64_t>(names.size()),
                               names.data(), tensors.tensors.data(),
                               static_cast<int64_t>(keys.size()),
                               keyPointers.data(), valuePointers.data()) != 0)
    return lastError();
  return 0;
}

/// mkdir -p.
bool makeDirectories(const std::string &path) {
  for (size_t slash = path.find('/', 1);; slash = path.find('/', slash + 1)) {
    std::string prefix = path.substr(0, slash);
    if (::mkdir(prefix.c_str(), 0777) != 0 && errno != EEXIST)
      return false;
    if (slash == std::string::npos)
      break;
  }
  struct stat status;
  return ::stat(path.c_str(), &status) == 0 && S_ISDIR(status.st_mode);
}

int unpack(const char *in, const std::string &dir) {
  File file(distrt_safetensors_open(in));
  if (!file)
    return lastError();
  Tensors tensors;
  if (readAll(file.get(), tensors) != 0)
    return lastError();
  if (!makeDirectories(dir))
    return error(dir +
                 ": cannot create the directory: " + std::strerror(errno));
  std::set<std::string> written;
  for (size_t i = 0; i < tensors.names.size(); ++i) {
    std::string base = tensors.names[i];
    for (char &ch : base)
      if (ch == '/')
        ch = '_';
    if (!written.insert(base).second)
      return error("tensor '" + tensors.names[i] + "': " + base +
                   ".npy is already written by another tensor");
    std::string path = dir + "/" + base + ".npy";
    if (distrt_npy_write(path.c_str(), &tensors.tensors[i]) != 0)
      return error("tensor '" + tensors.names[i] + "': " + distrt_last_error());
  }
  return 0;
}

int copy(const char *in, const char *out) {
  File file(distrt_safetensors_open(in));
  if (!file)
    return lastError();
  Tensors tensors;
  if (readAll(file.get(), tensors) != 0)
    return lastError();
  std::vector<const char *> names, keys, values;
  for (const std::string &name : tensors.names)
    names.push_back(name.c_str());
  for (int64_t i = 0; i < distrt_safetensors_metadata_count(file.get()); ++i) {
    keys.push_back(distrt_safetensors_metadata_key(file.get(), i));
    values.push_back(distrt_safetensors_metadata(file.get(), keys.back()));
  }
  if (distrt_safetensors_write(out, static_cast<int64_t>(names.size()),
                               names.data(), tensors.tensors.data(),
                               static_cast<int64_t>(keys.size()), keys.data(),
                               values.data()) != 0)
    return lastError();
  return 0;
}

} // namespace

int main(int argc, char **argv) {
  if (argc < 2)
    return usage();
  std::string command = argv[1];
  if (command == "-h" || command == "--help") {
    usage();
    return 0;
  }
  if (command == "list")
    return argc == 3 ? list(argv[2]) : usage();
  if (command == "pack")
    return argc >= 3 ? pack(argc - 2, argv + 2) : usage();
  if (command == "unpack")
    return argc == 4 ? unpack(argv[2], argv[3]) : usage();
  if (command == "copy")
    return argc == 4 ? copy(argv[2], argv[3]) : usage();
  return argc == 2 ? list(argv[1]) : usage();
}
