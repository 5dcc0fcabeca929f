//===- Npy.cpp - .npy tensor files ----------------------------------------===//
//
// The NumPy format (numpy.lib.format): magic "\x93NUMPY", a version, a
// little-endian header length, a Python dict literal
// {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), } padded with
// spaces to a multiple of 64 bytes and ended by '\n', then the raw data.
//
//===----------------------------------------------------------------------===//

#include "Error.h"
#include "distrt/distrt.h"

#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>

using distrt::fail;

namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicSize = 6;

struct FileCloser {
  void operator()(std::FILE *f) const { std::fclose(f); }
};
using File = std::unique_ptr<std::FILE, FileCloser>;

/// numpy's `descr` for each dtype ("" where numpy has none).
const char *descrOf(distrt_dtype dtype) {
  static const char *const descrs[DISTRT_NUM_DTYPES] = {
      "<f4", "<f8", "<f2", "",    "<i8", "<i4", "<i2",
      "|i1", "<u8", "<u4", "<u2", "|u1", "|b1"};
  return dtype >= 0 && dtype < DISTRT_NUM_DTYPES ? descrs[dtype] : "";
}

/// The value of `key` in the header dict: the text after "'key':", trimmed.
bool findValue(const std::string &header, const char *key, size_t &at) {
  std::string quoted = std::string("'") + key + "'";
  size_t k = header.find(quoted);
  if (k == std::string::npos)
    return false;
  size_t colon = header.find(':', k + quoted.size());
  if (colon == std::string::npos)
    return false;
  at = colon + 1;
  while (at < header.size() &&
         std::isspace(static_cast<unsigned char>(header[at])))
    ++at;
  return true;
}

int parseHeader(const char *path, const std::string &header,
                distrt_tensor *out) {
  size_t at;
  if (!findValue(header, "descr", at) || header[at] != '\'')
    return fail("%s: malformed .npy header (no 'descr')", path);
  size_t end = header.find('\'', at + 1);
  if (end == std::string::npos)
    return fail("%s: malformed .npy header (unterminated 'descr')", path);
  std::string descr = header.substr(at + 1, end - at - 1);
  // '=' is native order, little-endian on every host distrt supports; one-byte
  // types may say '|', '<' or '>'.
  if (descr.size() >= 2 &&
      (descr[0] == '=' || (descr.back() == '1' && descr[0] != '|')))
    descr[0] = descr.back() == '1' ? '|' : '<';
  int found = -1;
  for (int d = 0; d < DISTRT_NUM_DTYPES; ++d)
    if (*descrOf(static_cast<distrt_dtype>(d)) &&
        descr == descrOf(static_cast<distrt_dtype>(d)))
      found = d;
  if (found < 0)
    return fail("%s: unsupported .npy element type '%s' (supported: "
                "little-endian float16/32/64, int8..64, uint8..64, bool)",
                path, descr.c_str());
  out->dtype = static_cast<distrt_dtype>(found);

  if (!findValue(header, "fortran_order", at))
    return fail("%s: malformed .npy header (no 'fortran_order')", path);
  if (header.compare(at, 5, "False") != 0)
    return fail("%s: Fortran-order .npy data is not supported; save a "
                "C-contiguous array (numpy.ascontiguousarray)",
                path);

  if (!findValue(header, "shape", at) || header[at] != '(')
    return fail("%s: malformed .npy header (no 'shape')", path);
  end = header.find(')', at);
  if (end == std::string::npos)
    return fail("%s: malformed .npy header (unterminated 'shape')", path);
  out->rank = 0;
  long long elements = 1;
  const char *p = header.c_str() + at + 1;
  const char *stop = header.c_str() + end;
  while (p < stop) {
    while (p < stop &&
           (std::isspace(static_cast<unsigned char>(*p)) || *p == ','))
      ++p;
    if (p == stop)
      break;
    if (!std::isdigit(static_cast<unsigned char>(*p)))
      return fail("%s: malformed .npy shape", path);
    if (out->rank == DISTRT_MAX_RANK)
      return fail("%s: rank above %d is not supported", path, DISTRT_MAX_RANK);
    errno = 0;
    char *next;
    long long d = std::strtoll(p, &next, 10);
    if (errno || d < 0 || d > (1LL << 40))
      return fail("%s: malformed .npy shape", path);
    out->shape[out->rank++] = d;
    // Keep the element count (and so its byte size) far from overflowing.
    if (d != 0 && elements > (1LL << 40) / d)
      return fail("%s: the .npy shape has more than 2^40 elements", path);
    elements *= d;
    p = next;
  }
  return 0;
}

} // namespace

extern "C" int distrt_npy_read(const char *path, distrt_tensor *out) {
  std::memset(out, 0, sizeof(*out));
  File file(std::fopen(path, "rb"));
  if (!file)
    return fail("%s: cannot open: %s", path, std::strerror(errno));
  unsigned char prefix[kMagicSize + 2];
  if (std::fread(prefix, 1, sizeof(prefix), file.get()) != sizeof(prefix) ||
      std::memcmp(prefix, kMagic, kMagicSize) != 0)
    return fail("%s: not a .npy file", path);
  int major = prefix[kMagicSize];
  if (major < 1 || major > 3)
    return fail("%s: unsupported .npy format version %d", path, major);
  size_t lengthBytes = major == 1 ? 2 : 4;
  unsigned char lengthData[4] = {0, 0, 0, 0};
  if (std::fread(lengthData, 1, lengthBytes, file.get()) != lengthBytes)
    return fail("%s: truncated .npy header", path);
  size_t headerLength = lengthData[0] | lengthData[1] << 8 |
                        static_cast<size_t>(lengthData[2]) << 16 |
                        static_cast<size_t>(lengthData[3]) << 24;
  if (headerLength > (1u << 20))
    return fail("%s: .npy header too long", path);
  std::string header(headerLength, '\0');
  if (std::fread(&header[0], 1, headerLength, file.get()) != headerLength)
    return fail("%s: truncated .npy header", path);
  if (int error = parseHeader(path, header, out))
    return error;

  int64_t numel = distrt_tensor_numel(out);
  size_t bytes = static_cast<size_t>(numel) * distrt_dtype_size(out->dtype);
  long dataStart = std::ftell(file.get());
  if (std::fseek(file.get(), 0, SEEK_END) != 0)
    return fail("%s: cannot seek: %s", path, std::strerror(errno));
  long fileSize = std::ftell(file.get());
  if (dataStart < 0 || fileSize < 0 ||
      static_cast<size_t>(fileSize - dataStart) != bytes)
    return fail("%s: holds %ld bytes of data, but a %s tensor of %lld "
                "elements needs %zu",
                path, fileSize - dataStart, distrt_dtype_name(out->dtype),
                static_cast<long long>(numel), bytes);
  std::fseek(file.get(), dataStart, SEEK_SET);
  distrt_device host = {DISTRT_HOST, 0};
  out->device = host;
  out->data = distrt_alloc(host, bytes);
  if (!out->data)
    return -1;
  if (std::fread(out->data, 1, bytes, file.get()) != bytes) {
    distrt_free(host, out->data);
    out->data = nullptr;
    return fail("%s: read error", path);
  }
  return 0;
}

extern "C" int distrt_npy_write(const char *path, const distrt_tensor *tensor) {
  if (tensor->device.kind != DISTRT_HOST)
    return fail("%s: only host tensors can be written", path);
  const char *descr = descrOf(tensor->dtype);
  if (!*descr)
    return fail("%s: %s has no .npy element type; convert to float32 first",
                path, distrt_dtype_name(tensor->dtype));
  if (tensor->rank < 0 || tensor->rank > DISTRT_MAX_RANK)
    return fail("%s: invalid rank %d", path, tensor->rank);
  std::string shape = "(";
  for (int32_t i = 0; i < tensor->rank; ++i)
    shape += std::to_string(tensor->shape[i]) +
             (tensor->rank == 1 ? "," : (i + 1 < tensor->rank ? ", " : ""));
  shape += ")";
  std::string header = std::string("{'descr': '") + descr +
                       "', 'fortran_order': False, 'shape': " + shape + ", }";
  // Pad so the data starts at a multiple of 64 bytes; end with '\n'.
  size_t total = kMagicSize + 2 + 2 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  if (header.size() > 65535)
    return fail("%s: .npy header too long", path);

  // Write to a temporary name and rename, so no half-written file remains.
  std::string temporary = std::string(path) + ".tmp";
  File file(std::fopen(temporary.c_str(), "wb"));
  if (!file)
    return fail("%s: cannot create: %s", path, std::strerror(errno));
  unsigned char prefix[kMagicSize + 4];
  std::memcpy(prefix, kMagic, kMagicSize);
  prefix[kMagicSize] = 1;
  prefix[kMagicSize + 1] = 0;
  prefix[kMagicSize + 2] = header.size() & 0xff;
  prefix[kMagicSize + 3] = header.size() >> 8;
  size_t bytes = static_cast<size_t>(distrt_tensor_numel(tensor)) *
                 distrt_dtype_size(tensor->dtype);
  bool ok =
      std::fwrite(prefix, 1, sizeof(prefix), file.get()) == sizeof(prefix) &&
      std::fwrite(header.data(), 1, header.size(), file.get()) ==
          header.size() &&
      (bytes == 0 || std::fwrite(tensor->data, 1, bytes, file.get()) == bytes);
  ok = std::fclose(file.release()) == 0 && ok;
  if (!ok || std::rename(temporary.c_str(), path) != 0) {
    std::remove(temporary.c_str());
    return fail("%s: write error: %s", path, std::strerror(errno));
  }
  return 0;
}
