//===- Socket.h - TCP sockets of the runtime (internal) ---------*- C++ -*-===//
//
// What the TCP users of src/comm share (the progress board, the store of a
// torchrun-style launch, the TCP transport): listening, connecting with a
// deadline, whole sends and receives, and this host's addresses.
//
//===----------------------------------------------------------------------===//

#ifndef DISTRT_COMM_SOCKET_H
#define DISTRT_COMM_SOCKET_H

#include <cstddef>
#include <cstdint>
#include <string>

namespace distrt::comm::net {

/// Sends all `size` bytes; false if it could not, with `*partly` set when
/// some went out (the stream then holds half a message). Never raises
/// SIGPIPE.
bool sendAll(int fd, const void *data, size_t size, int flags = 0,
             bool *partly = nullptr);
inline bool sendAll(int fd, const std::string &text, int flags = 0,
                    bool *partly = nullptr) {
  return sendAll(fd, text.data(), text.size(), flags, partly);
}

/// Receives exactly `size` bytes (blocking); false at the end of the
/// stream, an error or the socket's receive timeout.
bool recvAll(int fd, void *data, size_t size);

/// A socket listening on all IPv4 addresses at `port` (0: any free port,
/// then `*bound` says which); -1 with `error` set if it cannot.
int listenOn(uint16_t port, int backlog, uint16_t *bound, std::string &error);

/// A blocking TCP connection (TCP_NODELAY) to `host` (a name or an IPv4
/// address) at `port`, tried until it succeeds or `timeoutMs` pass (a
/// refusal, nobody listening yet, is tried again unless `retryRefused` is
/// false); -1 with `error` set if none could be made.
int connectTo(const std::string &host, uint16_t port, int timeoutMs,
              std::string &error, bool retryRefused = true);

/// This host's IPv4 addresses, loopback last: "a.b.c.d e.f.g.h 127.0.0.1".
std::string ipv4Addresses();

/// The address of this host that packets to `host` leave from (the
/// interface routing to it); empty if there is no route.
std::string addressToward(const std::string &host);

/// This host's name (`hostname`).
std::string hostName();

/// A socket's receive and send timeouts; 0 ms: none.
void setTimeouts(int fd, int receiveMs, int sendMs);

} // namespace distrt::comm::net

#endif // DISTRT_COMM_SOCKET_H
