//===- Store.h - The key-value store of a torchrun-style launch -*- C++ -*-===//
//
// Processes started without an MPI launcher (torchrun, or any script that
// sets RANK, WORLD_SIZE, MASTER_ADDR and MASTER_PORT) find each other
// through a small TCP store that rank 0 serves: each rank sets its keys (its
// address, an NCCL unique id) and gets the others', a get waiting until the
// key is set. Used only while the mesh is created.
//
//===----------------------------------------------------------------------===//

#ifndef DISTRT_COMM_STORE_H
#define DISTRT_COMM_STORE_H

#include <cstdint>
#include <string>

namespace distrt::comm::store {

/// Connects to the store at `host`:`port` (`name` in messages), which rank
/// 0 (`isServer`) first opens. Waits up to `timeoutMs` for it (the ranks
/// start in any order); false with `error` set if it cannot.
bool open(const std::string &host, uint16_t port, bool isServer,
          int timeoutMs, const std::string &name, std::string &error);
/// Ends this rank's connection, and on rank 0 the store.
void close();

bool set(const std::string &key, const std::string &value, std::string &error);
/// Waits until `key` is set (up to the timeout of open()).
bool get(const std::string &key, std::string &value, std::string &error);

} // namespace distrt::comm::store

#endif // DISTRT_COMM_STORE_H
