//===- Store.cpp - The key-value store of a torchrun-style launch ---------===//
//
// The protocol, one request after another on a client's connection:
//   'S' u32 key-length key u64 value-length value    (no answer)
//   'G' u32 key-length key                           -> u64 length value
// A get is answered once the key is set. Rank 0 serves from a thread that
// polls its listener and clients; every rank, rank 0 included, is a client.
//
//===----------------------------------------------------------------------===//

#include "Store.h"

#include "Socket.h"

#include <cerrno>
#include <cstring>
#include <map>
#include <mutex>
#include <poll.h>
#include <sys/socket.h>
#include <thread>
#include <unistd.h>
#include <vector>

namespace distrt::comm::store {

namespace {

constexpr size_t kMaxKey = 4096, kMaxValue = size_t(1) << 24;

struct Server {
  int listener = -1;
  std::thread thread;
  std::mutex mutex; // guards stopping
  bool stopping = false;
};

struct Client {
  int socket = -1;
  int timeoutMs = 0;
  std::string name; // host:port
};

// Never destroyed: a process that exits without closing the store must not
// run ~thread() on the joinable server thread.
Server &server() {
  static Server &s = *new Server;
  return s;
}
Client &client() {
  static Client &c = *new Client;
  return c;
}

/// One client's connection: what it sent that is not yet a whole request,
/// and the key its get waits for.
struct Connection {
  int fd;
  std::string buffer;
  std::string waitingFor;
  bool waiting = false;
};

/// Reads a u32 or u64 (host order: every rank runs the same binary)
/// at `at` of `buffer`, if whole.
template <typename T>
bool take(const std::string &buffer, size_t &at, T &value) {
  if (buffer.size() < at + sizeof(T))
    return false;
  std::memcpy(&value, buffer.data() + at, sizeof(T));
  at += sizeof(T);
  return true;
}

std::string answer(const std::string &value) {
  uint64_t length = value.size();
  return std::string(reinterpret_cast<const char *>(&length), sizeof(length)) +
         value;
}

/// Handles the whole requests at the front of `c.buffer`; false if the
/// client sent something that is not a request.
bool handle(Connection &c, std::map<std::string, std::string> &values) {
  while (!c.waiting && !c.buffer.empty()) {
    size_t at = 1;
    uint32_t keyLength;
    if (!take(c.buffer, at, keyLength))
      return true;
    if (keyLength > kMaxKey || (c.buffer[0] != 'S' && c.buffer[0] != 'G'))
      return false;
    if (c.buffer.size() < at + keyLength)
      return true;
    std::string key = c.buffer.substr(at, keyLength);
    at += keyLength;
    if (c.buffer[0] == 'G') {
      c.buffer.erase(0, at);
      c.waiting = true;
      c.waitingFor = key;
      break;
    }
    uint64_t valueLength;
    if (!take(c.buffer, at, valueLength))
      return true;
    if (valueLength > kMaxValue)
      return false;
    if (c.buffer.size() < at + valueLength)
      return true;
    values[key] = c.buffer.substr(at, valueLength);
    c.buffer.erase(0, at + valueLength);
  }
  return true;
}

void serve() {
  Server &s = server();
  std::vector<Connection> connections;
  std::map<std::string, std::string> values;
  while (true) {
    {
      std::lock_guard<std::mutex> lock(s.mutex);
      if (s.stopping)
        break;
    }
    // Answer the gets whose keys are set (a set may have come from another
    // client in the last round).
    for (Connection &c : connections) {
      auto found = c.waiting ? values.find(c.waitingFor) : values.end();
      if (found == values.end())
        continue;
      c.waiting = false;
      if (!net::sendAll(c.fd, answer(found->second)) ||
          !handle(c, values)) {
        ::close(c.fd);
        c.fd = -1;
      }
    }
    std::vector<pollfd> fds{{s.listener, POLLIN, 0}};
    for (const Connection &c : connections)
      fds.push_back({c.fd, static_cast<short>(c.fd >= 0 ? POLLIN : 0), 0});
    if (::poll(fds.data(), fds.size(), 100) <= 0)
      continue;
    if (fds[0].revents & POLLIN) {
      int fd = ::accept4(s.listener, nullptr, nullptr, SOCK_CLOEXEC);
      if (fd >= 0) {
        net::setTimeouts(fd, 0, 10000); // a client that stops reading
        connections.push_back({fd});
      }
    }
    for (size_t i = 1; i < fds.size(); ++i) {
      Connection &c = connections[i - 1];
      if (c.fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR)))
        continue;
      char chunk[65536];
      ssize_t n = ::recv(c.fd, chunk, sizeof(chunk), 0);
      if (n <= 0 || (c.buffer.append(chunk, static_cast<size_t>(n)),
                     !handle(c, values)) ||
          c.buffer.size() > kMaxKey + kMaxValue + 16) {
        ::close(c.fd);
        c.fd = -1;
      }
    }
    std::vector<Connection> open;
    for (Connection &c : connections)
      if (c.fd >= 0)
        open.push_back(std::move(c));
    connections = std::move(open);
  }
  for (Connection &c : connections)
    ::close(c.fd);
}

std::string request(char kind, const std::string &key) {
  uint32_t length = static_cast<uint32_t>(key.size());
  return std::string(1, kind) +
         std::string(reinterpret_cast<const char *>(&length), sizeof(length)) +
         key;
}

} // namespace

bool open(const std::string &host, uint16_t port, bool isServer,
          int timeoutMs, const std::string &name, std::string &error) {
  if (isServer) {
    Server &s = server();
    s.listener = net::listenOn(port, 1024, nullptr, error);
    if (s.listener < 0) {
      error = "rank 0 cannot serve the store at " + name + ": " + error +
              " (is the port in use? choose another MASTER_PORT)";
      return false;
    }
    s.stopping = false;
    s.thread = std::thread(serve);
  }
  Client &c = client();
  c.timeoutMs = timeoutMs;
  c.name = name;
  c.socket = net::connectTo(host, port, timeoutMs, error);
  if (c.socket < 0) {
    error = "cannot reach rank 0's store at " + name + ": " + error;
    close();
    return false;
  }
  net::setTimeouts(c.socket, timeoutMs, timeoutMs);
  return true;
}

void close() {
  Client &c = client();
  if (c.socket >= 0)
    ::close(c.socket);
  c.socket = -1;
  Server &s = server();
  if (s.thread.joinable()) {
    {
      std::lock_guard<std::mutex> lock(s.mutex);
      s.stopping = true;
    }
    s.thread.join();
  }
  if (s.listener >= 0)
    ::close(s.listener);
  s.listener = -1;
}

bool set(const std::string &key, const std::string &value,
         std::string &error) {
  uint64_t length = value.size();
  std::string message =
      request('S', key) +
      std::string(reinterpret_cast<const char *>(&length), sizeof(length)) +
      value;
  if (client().socket < 0 || !net::sendAll(client().socket, message)) {
    error = "the store (rank 0) is gone: cannot set '" + key + "'";
    return false;
  }
  return true;
}

bool get(const std::string &key, std::string &value, std::string &error) {
  Client &c = client();
  uint64_t length = 0;
  errno = 0;
  if (c.socket < 0 || !net::sendAll(c.socket, request('G', key)) ||
      !net::recvAll(c.socket, &length, sizeof(length)) || length > kMaxValue) {
    bool timedOut = errno == EAGAIN || errno == EWOULDBLOCK;
    error = timedOut ? "no '" + key + "' in rank 0's store within " +
                           std::to_string(c.timeoutMs / 1000) + " s"
                     : "rank 0's store at " + c.name +
                           " closed (rank 0 ended; see its output)";
    return false;
  }
  value.resize(length);
  if (length && !net::recvAll(c.socket, value.data(), length)) {
    error = "rank 0's store stopped while sending '" + key + "'";
    return false;
  }
  return true;
}

} // namespace distrt::comm::store
