//===- Crc32c.h - CRC-32C checksums of checkpoint tensors -------*- C++ -*-===//
//
// CRC-32C (Castagnoli, reflected polynomial 0x82F63B78, initial value and
// final xor 0xFFFFFFFF: the checksum of iSCSI, ext4 and Google's crc32c
// package), which a checkpoint's manifest records per tensor so a resume
// finds a tensor damaged on disk. Portable software (slice-by-8, about
// 1-2 GB/s), no dependency.
//
//===----------------------------------------------------------------------===//

#ifndef DISTRT_MAIN_CRC32C_H
#define DISTRT_MAIN_CRC32C_H

#include <cstddef>
#include <cstdint>
#include <string>

namespace distrt::model {

/// The CRC-32C of `bytes` bytes at `data` ("123456789" gives 0xE3069283).
uint32_t crc32c(const void *data, size_t bytes);

/// `crc` as the manifest writes it: 8 lowercase hexadecimal digits.
std::string crc32cText(uint32_t crc);

/// Parses crc32cText's form (exactly 8 hexadecimal digits, either case).
bool parseCrc32c(const std::string &text, uint32_t &crc);

} // namespace distrt::model

#endif // DISTRT_MAIN_CRC32C_H
