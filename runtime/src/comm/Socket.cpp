//===- Socket.cpp - TCP sockets of the runtime ----------------------------===//

#include "Socket.h"

#include <algorithm>
#include <arpa/inet.h>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <fcntl.h>
#include <ifaddrs.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <thread>
#include <unistd.h>

namespace distrt::comm::net {

namespace {

using Clock = std::chrono::steady_clock;

/// `host` as an IPv4 address (a dotted quad or a name to look up).
bool resolve(const std::string &host, in_addr &address, std::string &error) {
  if (::inet_pton(AF_INET, host.c_str(), &address) == 1)
    return true;
  addrinfo hints{};
  hints.ai_family = AF_INET;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo *list = nullptr;
  int status = ::getaddrinfo(host.c_str(), nullptr, &hints, &list);
  if (status != 0 || !list) {
    error = "cannot resolve '" + host + "': " + ::gai_strerror(status);
    return false;
  }
  address = reinterpret_cast<sockaddr_in *>(list->ai_addr)->sin_addr;
  ::freeaddrinfo(list);
  return true;
}

} // namespace

bool sendAll(int fd, const void *data, size_t size, int flags, bool *partly) {
  const char *bytes = static_cast<const char *>(data);
  size_t done = 0;
  while (done < size) {
    ssize_t n = ::send(fd, bytes + done, size - done, MSG_NOSIGNAL | flags);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0) {
      if (partly)
        *partly = done > 0;
      return false;
    }
    done += static_cast<size_t>(n);
  }
  return true;
}

bool recvAll(int fd, void *data, size_t size) {
  char *bytes = static_cast<char *>(data);
  size_t done = 0;
  while (done < size) {
    ssize_t n = ::recv(fd, bytes + done, size - done, 0);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return false;
    done += static_cast<size_t>(n);
  }
  return true;
}

int listenOn(uint16_t port, int backlog, uint16_t *bound, std::string &error) {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    error = std::string("socket: ") + std::strerror(errno);
    return -1;
  }
  int one = 1;
  ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  sockaddr_in any{};
  any.sin_family = AF_INET;
  any.sin_addr.s_addr = htonl(INADDR_ANY);
  any.sin_port = htons(port);
  socklen_t length = sizeof(any);
  if (::bind(fd, reinterpret_cast<sockaddr *>(&any), sizeof(any)) != 0 ||
      ::listen(fd, backlog) != 0 ||
      ::getsockname(fd, reinterpret_cast<sockaddr *>(&any), &length) != 0) {
    error = "cannot listen on port " + std::to_string(port) + ": " +
            std::strerror(errno);
    ::close(fd);
    return -1;
  }
  if (bound)
    *bound = ntohs(any.sin_port);
  return fd;
}

int connectTo(const std::string &host, uint16_t port, int timeoutMs,
              std::string &error, bool retryRefused) {
  in_addr address;
  if (!resolve(host, address, error))
    return -1;
  sockaddr_in to{};
  to.sin_family = AF_INET;
  to.sin_port = htons(port);
  to.sin_addr = address;
  auto deadline = Clock::now() + std::chrono::milliseconds(timeoutMs);
  std::string last = "timed out";
  do {
    int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0) {
      error = std::string("socket: ") + std::strerror(errno);
      return -1;
    }
    int status = ::connect(fd, reinterpret_cast<sockaddr *>(&to), sizeof(to));
    int code = status == 0 ? 0 : errno;
    if (status != 0 && errno == EINPROGRESS) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                      deadline - Clock::now())
                      .count();
      pollfd p{fd, POLLOUT, 0};
      socklen_t size = sizeof(code);
      code = ETIMEDOUT;
      if (::poll(&p, 1, static_cast<int>(std::max<int64_t>(left, 1))) == 1)
        ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &code, &size);
    }
    // A connection to a free local port in the ephemeral range can be
    // the socket's own (TCP simultaneous open): not a listener.
    sockaddr_in self{}, peer{};
    socklen_t selfSize = sizeof(self), peerSize = sizeof(peer);
    if (code == 0 &&
        ::getsockname(fd, reinterpret_cast<sockaddr *>(&self), &selfSize) ==
            0 &&
        ::getpeername(fd, reinterpret_cast<sockaddr *>(&peer), &peerSize) ==
            0 &&
        self.sin_port == peer.sin_port &&
        self.sin_addr.s_addr == peer.sin_addr.s_addr)
      code = ECONNREFUSED;
    if (code == 0) {
      ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
      int one = 1;
      ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
      return fd;
    }
    ::close(fd);
    last = std::strerror(code);
    if (code == ECONNREFUSED && !retryRefused)
      break;
    // Refused: nobody listens yet (the peer has not started); try again.
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  } while (Clock::now() < deadline);
  error = "cannot connect to " + host + ":" + std::to_string(port) + " (" +
          last + ")";
  return -1;
}

std::string ipv4Addresses() {
  std::string text, loopback;
  ifaddrs *list = nullptr;
  if (::getifaddrs(&list) == 0) {
    for (ifaddrs *a = list; a; a = a->ifa_next) {
      if (!a->ifa_addr || a->ifa_addr->sa_family != AF_INET)
        continue;
      char name[INET_ADDRSTRLEN];
      auto *in = reinterpret_cast<sockaddr_in *>(a->ifa_addr);
      if (!::inet_ntop(AF_INET, &in->sin_addr, name, sizeof(name)))
        continue;
      if (ntohl(in->sin_addr.s_addr) >> 24 == 127)
        loopback = name;
      else
        text += std::string(text.empty() ? "" : " ") + name;
    }
    ::freeifaddrs(list);
  }
  return text + (text.empty() ? "" : " ") +
         (loopback.empty() ? std::string("127.0.0.1") : loopback);
}

std::string addressToward(const std::string &host) {
  in_addr address;
  std::string error;
  if (!resolve(host, address, error))
    return "";
  // A datagram socket "connected" to the host sends nothing, but is bound
  // to the address its packets would leave from.
  int fd = ::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0)
    return "";
  sockaddr_in to{};
  to.sin_family = AF_INET;
  to.sin_port = htons(9);
  to.sin_addr = address;
  sockaddr_in local{};
  socklen_t length = sizeof(local);
  char name[INET_ADDRSTRLEN] = {0};
  if (::connect(fd, reinterpret_cast<sockaddr *>(&to), sizeof(to)) != 0 ||
      ::getsockname(fd, reinterpret_cast<sockaddr *>(&local), &length) != 0 ||
      !::inet_ntop(AF_INET, &local.sin_addr, name, sizeof(name)))
    name[0] = 0;
  ::close(fd);
  return name;
}

std::string hostName() {
  char name[256] = {0};
  if (::gethostname(name, sizeof(name) - 1) != 0)
    return "localhost";
  return name;
}

void setTimeouts(int fd, int receiveMs, int sendMs) {
  timeval receive{receiveMs / 1000, (receiveMs % 1000) * 1000};
  timeval send{sendMs / 1000, (sendMs % 1000) * 1000};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &receive, sizeof(receive));
  ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &send, sizeof(send));
}

} // namespace distrt::comm::net
