//===- Safetensors.cpp - safetensors tensor files -------------------------===//
//
// The format (github.com/huggingface/safetensors): an 8-byte little-endian
// header length N, N bytes of JSON
//   {"name": {"dtype": "F32", "shape": [2, 3], "data_offsets": [0, 24]},
//    "__metadata__": {"key": "value"}}
// (possibly padded with spaces), then the data area; offsets count from its
// first byte. Opening parses and checks the whole header; tensors are read
// with pread straight into the caller's buffer, so a large file costs one
// copy and no more memory than the tensors themselves.
//
//===----------------------------------------------------------------------===//

#include "Error.h"
#include "Json.h"
#include "distrt/distrt.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <new>
#include <string>
#include <sys/stat.h>
#include <unistd.h>
#include <unordered_map>
#include <unordered_set>
#include <vector>

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
              "safetensors data is little-endian; distrt reads it in place");

using distrt::fail;

namespace {

/// The largest header distrt accepts (the reference implementation's limit).
constexpr uint64_t kMaxHeaderBytes = 100000000;
constexpr char kMetadataKey[] = "__metadata__";

/// safetensors' name of each distrt dtype, in distrt_dtype order.
constexpr const char *kDtypeNames[DISTRT_NUM_DTYPES] = {
    "F32", "F64", "F16", "BF16", "I64", "I32", "I16",
    "I8",  "U64", "U32", "U16",  "U8",  "BOOL"};

struct Entry {
  std::string name;
  distrt_dtype dtype;
  int32_t rank;
  int64_t shape[DISTRT_MAX_RANK];
  uint64_t begin, end; // in the data area
};

std::string shapeText(const int64_t *shape, int32_t rank) {
  std::string text = "[";
  for (int32_t i = 0; i < rank; ++i)
    text += (i ? ", " : "") + std::to_string(shape[i]);
  return text + "]";
}

/// Reads exactly `bytes` at `offset`; false on an error or end of file.
bool preadAll(int fd, void *dst, size_t bytes, uint64_t offset) {
  char *out = static_cast<char *>(dst);
  while (bytes > 0) {
    ssize_t got = ::pread(fd, out, bytes, static_cast<off_t>(offset));
    if (got < 0 && errno == EINTR)
      continue;
    if (got <= 0)
      return false;
    out += got;
    bytes -= static_cast<size_t>(got);
    offset += static_cast<uint64_t>(got);
  }
  return true;
}

bool writeAll(int fd, const void *src, size_t bytes) {
  const char *in = static_cast<const char *>(src);
  while (bytes > 0) {
    ssize_t put = ::write(fd, in, bytes);
    if (put < 0 && errno == EINTR)
      continue;
    if (put <= 0)
      return false;
    in += put;
    bytes -= static_cast<size_t>(put);
  }
  return true;
}

/// The byte size of a dtype and shape; false if it overflows 63 bits.
bool byteSize(distrt_dtype dtype, const int64_t *shape, int32_t rank,
              uint64_t &bytes) {
  bytes = distrt_dtype_size(dtype);
  for (int32_t i = 0; i < rank; ++i)
    if (__builtin_mul_overflow(bytes, static_cast<uint64_t>(shape[i]),
                               &bytes) ||
        bytes > static_cast<uint64_t>(INT64_MAX))
      return false;
  return true;
}

} // namespace

struct distrt_safetensors {
  std::string path;
  int fd = -1;
  uint64_t dataStart = 0, dataSize = 0;
  std::vector<Entry> tensors; // header order
  std::unordered_map<std::string, size_t> byName;
  std::vector<std::pair<std::string, std::string>> metadata;

  ~distrt_safetensors() {
    if (fd >= 0)
      ::close(fd);
  }

  const Entry *find(const char *name) const {
    auto it = byName.find(name ? name : "");
    return it == byName.end() ? nullptr : &tensors[it->second];
  }
};

namespace {

int parseMetadata(distrt_safetensors &file, const distrt::json::Value &value) {
  const char *path = file.path.c_str();
  if (value.kind != distrt::json::Value::Object)
    return fail("%s: %s must be an object of strings, not %s", path,
                kMetadataKey, distrt::json::kindName(value.kind));
  std::unordered_set<std::string> seen;
  for (const distrt::json::Member &member : value.members) {
    if (member.value.kind != distrt::json::Value::String)
      return fail("%s: %s value of '%s' must be a string, not %s", path,
                  kMetadataKey, member.key.c_str(),
                  distrt::json::kindName(member.value.kind));
    if (!seen.insert(member.key).second)
      return fail("%s: duplicate %s key '%s'", path, kMetadataKey,
                  member.key.c_str());
    file.metadata.emplace_back(member.key, member.value.text);
  }
  return 0;
}

/// Reads a JSON array of non-negative integers into `out`.
bool integers(const distrt::json::Value &value, std::vector<uint64_t> &out) {
  if (value.kind != distrt::json::Value::Array)
    return false;
  for (const distrt::json::Value &item : value.items) {
    uint64_t n;
    if (!item.asUint64(n))
      return false;
    out.push_back(n);
  }
  return true;
}

int parseTensor(const distrt_safetensors &file, const std::string &name,
                const distrt::json::Value &value, Entry &entry) {
  const char *path = file.path.c_str(), *tensor = name.c_str();
  if (value.kind != distrt::json::Value::Object)
    return fail("%s: tensor '%s': expected an object, found %s", path, tensor,
                distrt::json::kindName(value.kind));
  const distrt::json::Value *fields[3] = {nullptr, nullptr, nullptr};
  const char *fieldNames[3] = {"dtype", "shape", "data_offsets"};
  for (const distrt::json::Member &member : value.members)
    for (int i = 0; i < 3; ++i)
      if (member.key == fieldNames[i]) {
        if (fields[i])
          return fail("%s: tensor '%s': duplicate '%s'", path, tensor,
                      fieldNames[i]);
        fields[i] = &member.value;
      }
  for (int i = 0; i < 3; ++i)
    if (!fields[i])
      return fail("%s: tensor '%s': missing '%s'", path, tensor, fieldNames[i]);

  entry.name = name;
  if (fields[0]->kind != distrt::json::Value::String)
    return fail("%s: tensor '%s': 'dtype' must be a string", path, tensor);
  const std::string &dtype = fields[0]->text;
  const char *const *known =
      std::find_if(std::begin(kDtypeNames), std::end(kDtypeNames),
                   [&](const char *n) { return dtype == n; });
  if (known == std::end(kDtypeNames))
    return fail("%s: tensor '%s': unsupported dtype '%s' (supported: F64, "
                "F32, F16, BF16, I64, I32, I16, I8, U64, U32, U16, U8, BOOL)",
                path, tensor, dtype.c_str());
  entry.dtype = static_cast<distrt_dtype>(known - kDtypeNames);

  std::vector<uint64_t> shape, offsets;
  if (!integers(*fields[1], shape))
    return fail("%s: tensor '%s': 'shape' must be an array of non-negative "
                "integers",
                path, tensor);
  if (shape.size() > DISTRT_MAX_RANK)
    return fail("%s: tensor '%s': rank %zu is above the supported %d", path,
                tensor, shape.size(), DISTRT_MAX_RANK);
  entry.rank = static_cast<int32_t>(shape.size());
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] > static_cast<uint64_t>(INT64_MAX))
      return fail("%s: tensor '%s': dimension %llu is too large", path, tensor,
                  static_cast<unsigned long long>(shape[i]));
    entry.shape[i] = static_cast<int64_t>(shape[i]);
  }

  if (!integers(*fields[2], offsets) || offsets.size() != 2)
    return fail("%s: tensor '%s': 'data_offsets' must be [begin, end], two "
                "non-negative integers",
                path, tensor);
  entry.begin = offsets[0];
  entry.end = offsets[1];
  if (entry.begin > entry.end)
    return fail("%s: tensor '%s': data_offsets [%llu, %llu] end before they "
                "begin",
                path, tensor, static_cast<unsigned long long>(entry.begin),
                static_cast<unsigned long long>(entry.end));
  if (entry.end > file.dataSize)
    return fail("%s: tensor '%s': data_offsets [%llu, %llu] run past the end "
                "of the %llu-byte data area (truncated file?)",
                path, tensor, static_cast<unsigned long long>(entry.begin),
                static_cast<unsigned long long>(entry.end),
                static_cast<unsigned long long>(file.dataSize));
  uint64_t bytes;
  bool fits = byteSize(entry.dtype, entry.shape, entry.rank, bytes);
  if (!fits || bytes != entry.end - entry.begin)
    return fail("%s: tensor '%s': %s %s needs %s bytes, but data_offsets "
                "[%llu, %llu] hold %llu",
                path, tensor, dtype.c_str(),
                shapeText(entry.shape, entry.rank).c_str(),
                fits ? std::to_string(bytes).c_str() : "more than 2^63",
                static_cast<unsigned long long>(entry.begin),
                static_cast<unsigned long long>(entry.end),
                static_cast<unsigned long long>(entry.end - entry.begin));
  return 0;
}

/// No two tensors may share a byte of the data area.
int checkOverlaps(const distrt_safetensors &file) {
  std::vector<const Entry *> sorted;
  for (const Entry &entry : file.tensors)
    if (entry.end > entry.begin)
      sorted.push_back(&entry);
  std::sort(sorted.begin(), sorted.end(),
            [](const Entry *a, const Entry *b) { return a->begin < b->begin; });
  for (size_t i = 1; i < sorted.size(); ++i) {
    const Entry &a = *sorted[i - 1], &b = *sorted[i];
    if (b.begin < a.end)
      return fail("%s: tensors '%s' (bytes [%llu, %llu]) and '%s' (bytes "
                  "[%llu, %llu]) overlap",
                  file.path.c_str(), a.name.c_str(),
                  static_cast<unsigned long long>(a.begin),
                  static_cast<unsigned long long>(a.end), b.name.c_str(),
                  static_cast<unsigned long long>(b.begin),
                  static_cast<unsigned long long>(b.end));
  }
  return 0;
}

int openFile(distrt_safetensors &file) {
  const char *path = file.path.c_str();
  file.fd = ::open(path, O_RDONLY | O_CLOEXEC);
  if (file.fd < 0)
    return fail("%s: cannot open: %s", path, std::strerror(errno));
  struct stat status;
  if (::fstat(file.fd, &status) != 0)
    return fail("%s: cannot stat: %s", path, std::strerror(errno));
  if (!S_ISREG(status.st_mode))
    return fail("%s: not a regular file", path);
  uint64_t fileSize = static_cast<uint64_t>(status.st_size);
  unsigned char prefix[8];
  if (fileSize < sizeof(prefix) || !preadAll(file.fd, prefix, 8, 0))
    return fail("%s: %llu bytes is too short for a safetensors file (8-byte "
                "header length, header, data)",
                path, static_cast<unsigned long long>(fileSize));
  uint64_t headerSize = 0;
  for (int i = 7; i >= 0; --i)
    headerSize = headerSize << 8 | prefix[i];
  if (headerSize > kMaxHeaderBytes)
    return fail("%s: header length %llu is above the limit of %llu bytes "
                "(not a safetensors file?)",
                path, static_cast<unsigned long long>(headerSize),
                static_cast<unsigned long long>(kMaxHeaderBytes));
  if (headerSize > fileSize - 8)
    return fail("%s: header length %llu runs past the end of the %llu-byte "
                "file (truncated?)",
                path, static_cast<unsigned long long>(headerSize),
                static_cast<unsigned long long>(fileSize));
  file.dataStart = 8 + headerSize;
  file.dataSize = fileSize - file.dataStart;

  std::string header(headerSize, '\0');
  errno = 0;
  if (!preadAll(file.fd, &header[0], headerSize, 8))
    return fail("%s: cannot read the header: %s", path,
                errno ? std::strerror(errno) : "file ends early");
  distrt::json::Value root;
  std::string error;
  if (!distrt::json::parse(header, root, error))
    return fail("%s: malformed header JSON: %s", path, error.c_str());
  if (root.kind != distrt::json::Value::Object)
    return fail("%s: the header is %s, not a JSON object", path,
                distrt::json::kindName(root.kind));

  bool sawMetadata = false;
  for (const distrt::json::Member &member : root.members) {
    if (member.key == kMetadataKey) {
      if (sawMetadata)
        return fail("%s: duplicate %s", path, kMetadataKey);
      sawMetadata = true;
      if (int status = parseMetadata(file, member.value))
        return status;
      continue;
    }
    if (!file.byName.emplace(member.key, file.tensors.size()).second)
      return fail("%s: duplicate tensor '%s'", path, member.key.c_str());
    file.tensors.emplace_back();
    if (int status =
            parseTensor(file, member.key, member.value, file.tensors.back()))
      return status;
  }
  return checkOverlaps(file);
}

} // namespace

extern "C" distrt_safetensors *distrt_safetensors_open(const char *path) {
  if (!path) {
    fail("distrt_safetensors_open: null path");
    return nullptr;
  }
  try {
    auto *file = new distrt_safetensors;
    file->path = path;
    if (openFile(*file) != 0) {
      delete file;
      return nullptr;
    }
    return file;
  } catch (const std::bad_alloc &) {
    fail("%s: out of memory reading the header", path);
    return nullptr;
  }
}

extern "C" void distrt_safetensors_close(distrt_safetensors *file) {
  delete file;
}

extern "C" int64_t distrt_safetensors_count(const distrt_safetensors *file) {
  return file ? static_cast<int64_t>(file->tensors.size()) : 0;
}

extern "C" const char *distrt_safetensors_name(const distrt_safetensors *file,
                                               int64_t index) {
  if (!file || index < 0 ||
      index >= static_cast<int64_t>(file->tensors.size())) {
    fail("distrt_safetensors_name: index %lld is out of range",
         static_cast<long long>(index));
    return nullptr;
  }
  return file->tensors[index].name.c_str();
}

extern "C" int distrt_safetensors_info(const distrt_safetensors *file,
                                       const char *name, distrt_tensor *info) {
  if (!file || !info)
    return fail("distrt_safetensors_info: null argument");
  const Entry *entry = file->find(name);
  if (!entry)
    return fail("%s: no tensor '%s'", file->path.c_str(), name ? name : "");
  std::memset(info, 0, sizeof(*info));
  info->dtype = entry->dtype;
  info->rank = entry->rank;
  std::copy(entry->shape, entry->shape + entry->rank, info->shape);
  info->device = distrt_device{DISTRT_HOST, 0};
  info->data = nullptr;
  return 0;
}

extern "C" int distrt_safetensors_read(const distrt_safetensors *file,
                                       const char *name, void *dst,
                                       size_t bytes) {
  if (!file)
    return fail("distrt_safetensors_read: null file");
  const Entry *entry = file->find(name);
  const char *path = file->path.c_str();
  if (!entry)
    return fail("%s: no tensor '%s'", path, name ? name : "");
  uint64_t size = entry->end - entry->begin;
  if (bytes != size)
    return fail("%s: tensor '%s' has %llu bytes, but the buffer holds %zu",
                path, name, static_cast<unsigned long long>(size), bytes);
  if (size == 0)
    return 0;
  if (!dst)
    return fail("%s: tensor '%s': null destination", path, name);
  errno = 0;
  if (!preadAll(file->fd, dst, size, file->dataStart + entry->begin))
    return fail("%s: tensor '%s': read error: %s", path, name,
                errno ? std::strerror(errno)
                      : "file ends early (changed since it was opened?)");
  return 0;
}

extern "C" const char *
distrt_safetensors_metadata(const distrt_safetensors *file, const char *key) {
  if (!file || !key)
    return nullptr;
  for (const auto &entry : file->metadata)
    if (entry.first == key)
      return entry.second.c_str();
  return nullptr;
}

extern "C" int64_t
distrt_safetensors_metadata_count(const distrt_safetensors *file) {
  return file ? static_cast<int64_t>(file->metadata.size()) : 0;
}

extern "C" const char *
distrt_safetensors_metadata_key(const distrt_safetensors *file, int64_t index) {
  if (!file || index < 0 ||
      index >= static_cast<int64_t>(file->metadata.size())) {
    fail("distrt_safetensors_metadata_key: index %lld is out of range",
         static_cast<long long>(index));
    return nullptr;
  }
  return file->metadata[index].first.c_str();
}

namespace {

/// Checks what distrt_safetensors_write is given and builds the header.
int buildHeader(const char *path, int64_t count, const char *const *names,
                const distrt_tensor *tensors, int64_t metadataCount,
                const char *const *keys, const char *const *values,
                std::string &header) {
  if (count < 0 || metadataCount < 0)
    return fail("%s: negative tensor or metadata count", path);
  if ((count > 0 && (!names || !tensors)) ||
      (metadataCount > 0 && (!keys || !values)))
    return fail("%s: null name, tensor or metadata array", path);
  header = "{";
  if (metadataCount > 0) {
    header += distrt::json::quote(kMetadataKey) + ":{";
    std::unordered_set<std::string> seen;
    for (int64_t i = 0; i < metadataCount; ++i) {
      if (!keys[i] || !values[i])
        return fail("%s: metadata entry %lld is null", path,
                    static_cast<long long>(i));
      if (!distrt::json::isValidUtf8(keys[i]) ||
          !distrt::json::isValidUtf8(values[i]))
        return fail("%s: metadata '%s' is not valid UTF-8", path, keys[i]);
      if (!seen.insert(keys[i]).second)
        return fail("%s: duplicate metadata key '%s'", path, keys[i]);
      header += (i ? "," : "") + distrt::json::quote(keys[i]) + ":" +
                distrt::json::quote(values[i]);
    }
    header += "}";
  }
  std::unordered_set<std::string> seen;
  uint64_t offset = 0;
  for (int64_t i = 0; i < count; ++i) {
    const char *name = names[i];
    const distrt_tensor &tensor = tensors[i];
    if (!name)
      return fail("%s: tensor %lld has a null name", path,
                  static_cast<long long>(i));
    if (!distrt::json::isValidUtf8(name))
      return fail("%s: tensor name '%s' is not valid UTF-8", path, name);
    if (std::strcmp(name, kMetadataKey) == 0)
      return fail("%s: '%s' cannot name a tensor", path, kMetadataKey);
    if (!seen.insert(name).second)
      return fail("%s: duplicate tensor '%s'", path, name);
    if (tensor.device.kind != DISTRT_HOST)
      return fail("%s: tensor '%s' is not in host memory", path, name);
    if (tensor.dtype < 0 || tensor.dtype >= DISTRT_NUM_DTYPES)
      return fail("%s: tensor '%s' has invalid dtype %d", path, name,
                  static_cast<int>(tensor.dtype));
    if (tensor.rank < 0 || tensor.rank > DISTRT_MAX_RANK)
      return fail("%s: tensor '%s' has invalid rank %d", path, name,
                  tensor.rank);
    for (int32_t d = 0; d < tensor.rank; ++d)
      if (tensor.shape[d] < 0)
        return fail("%s: tensor '%s' has a negative dimension", path, name);
    uint64_t bytes;
    if (!byteSize(tensor.dtype, tensor.shape, tensor.rank, bytes) ||
        __builtin_add_overflow(offset, bytes, &offset))
      return fail("%s: tensor '%s' is too large", path, name);
    if (bytes > 0 && !tensor.data)
      return fail("%s: tensor '%s' has no data", path, name);
    header += (header.size() > 1 ? "," : "") + distrt::json::quote(name) +
              ":{\"dtype\":\"" + kDtypeNames[tensor.dtype] +
              "\",\"shape\":" + shapeText(tensor.shape, tensor.rank) +
              ",\"data_offsets\":[" + std::to_string(offset - bytes) + "," +
              std::to_string(offset) + "]}";
  }
  header += "}";
  // Pad with spaces so that the data starts 8-byte aligned, as the reference
  // writer does.
  header.append((8 - header.size() % 8) % 8, ' ');
  return 0;
}

std::atomic<unsigned> temporaryCounter{0};

} // namespace

extern "C" int distrt_safetensors_write(const char *path, int64_t count,
                                        const char *const *names,
                                        const distrt_tensor *tensors,
                                        int64_t metadata_count,
                                        const char *const *metadata_keys,
                                        const char *const *metadata_values) {
  if (!path)
    return fail("distrt_safetensors_write: null path");
  try {
    std::string header;
    if (int status = buildHeader(path, count, names, tensors, metadata_count,
                                 metadata_keys, metadata_values, header))
      return status;

    // A temporary file next to `path` (so rename is atomic), created
    // exclusively, with the permissions a new file would get.
    std::string temporary = std::string(path) + ".tmp-" +
                            std::to_string(::getpid()) + "-" +
                            std::to_string(temporaryCounter++);
    int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
                    0666);
    if (fd < 0)
      return fail("%s: cannot create %s: %s", path, temporary.c_str(),
                  std::strerror(errno));
    unsigned char prefix[8];
    for (int i = 0; i < 8; ++i)
      prefix[i] = static_cast<unsigned char>(
          static_cast<uint64_t>(header.size()) >> (8 * i));
    errno = 0;
    bool ok =
        writeAll(fd, prefix, 8) && writeAll(fd, header.data(), header.size());
    for (int64_t i = 0; ok && i < count; ++i) {
      uint64_t bytes;
      byteSize(tensors[i].dtype, tensors[i].shape, tensors[i].rank, bytes);
      ok = writeAll(fd, tensors[i].data, bytes);
    }
    ok = ok && ::fsync(fd) == 0;
    int error = ok ? 0 : (errno ? errno : EIO);
    if (::close(fd) != 0 && !error)
      error = errno;
    if (!error && ::rename(temporary.c_str(), path) != 0)
      error = errno;
    if (error) {
      ::unlink(temporary.c_str());
      return fail("%s: write error: %s", path, std::strerror(error));
    }
    // Make the rename itself durable; a failure here loses nothing written.
    std::string directory = path;
    size_t slash = directory.rfind('/');
    directory = slash == std::string::npos ? "."
                : slash == 0               ? "/"
                                           : directory.substr(0, slash);
    int dirFd = ::open(directory.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dirFd >= 0) {
      ::fsync(dirFd);
      ::close(dirFd);
    }
    return 0;
  } catch (const std::bad_alloc &) {
    return fail("%s: out of memory", path);
  }
}
