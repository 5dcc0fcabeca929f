//===- Crc32c.cpp - CRC-32C checksums of checkpoint tensors ---------------===//

#include "Crc32c.h"

#include <array>
#include <cstdio>

namespace distrt::model {

namespace {

constexpr uint32_t kPolynomial = 0x82F63B78; // reflected Castagnoli

/// Slice-by-8 tables: tables[0] is the classic byte-at-a-time table;
/// tables[k][b] is the CRC of byte b followed by k zero bytes.
using Tables = std::array<std::array<uint32_t, 256>, 8>;

Tables makeTables() {
  Tables tables{};
  for (uint32_t b = 0; b < 256; ++b) {
    uint32_t crc = b;
    for (int bit = 0; bit < 8; ++bit)
      crc = crc & 1 ? (crc >> 1) ^ kPolynomial : crc >> 1;
    tables[0][b] = crc;
  }
  for (uint32_t b = 0; b < 256; ++b)
    for (size_t k = 1; k < 8; ++k)
      tables[k][b] =
          (tables[k - 1][b] >> 8) ^ tables[0][tables[k - 1][b] & 0xFF];
  return tables;
}

const Tables &tables() {
  static const Tables instance = makeTables();
  return instance;
}

} // namespace

uint32_t crc32c(const void *data, size_t bytes) {
  const Tables &t = tables();
  const auto *p = static_cast<const unsigned char *>(data);
  uint32_t crc = 0xFFFFFFFF;
  // Eight bytes per round; the loads are byte-wise, so any alignment and
  // either byte order work.
  for (; bytes >= 8; bytes -= 8, p += 8) {
    uint32_t low = crc ^ (uint32_t(p[0]) | uint32_t(p[1]) << 8 |
                          uint32_t(p[2]) << 16 | uint32_t(p[3]) << 24);
    crc = t[7][low & 0xFF] ^ t[6][(low >> 8) & 0xFF] ^
          t[5][(low >> 16) & 0xFF] ^ t[4][low >> 24] ^ t[3][p[4]] ^ t[2][p[5]] ^
          t[1][p[6]] ^ t[0][p[7]];
  }
  for (; bytes; --bytes, ++p)
    crc = (crc >> 8) ^ t[0][(crc ^ *p) & 0xFF];
  return crc ^ 0xFFFFFFFF;
}

std::string crc32cText(uint32_t crc) {
  char text[9];
  std::snprintf(text, sizeof(text), "%08x", crc);
  return text;
}

bool parseCrc32c(const std::string &text, uint32_t &crc) {
  if (text.size() != 8)
    return false;
  crc = 0;
  for (char ch : text) {
    int digit = ch >= '0' && ch <= '9'   ? ch - '0'
                : ch >= 'a' && ch <= 'f' ? ch - 'a' + 10
                : ch >= 'A' && ch <= 'F' ? ch - 'A' + 10
                                         : -1;
    if (digit < 0)
      return false;
    crc = crc << 4 | static_cast<uint32_t>(digit);
  }
  return true;
}

} // namespace distrt::model
