//===- ProgressBoard.cpp - Which rank is behind, when a collective hangs --===//
//
// A collective that never completes tells a waiting rank nothing about who
// is missing. Rank 0 keeps a board of every rank's progress: each rank's
// watchdog thread sends, twice a second over TCP, how many waits it has
// started and at which step (one line, "P rank count step"); a query
// ("Q") returns the table, with how long ago each rank was heard from and
// whether its connection closed. A rank that timed out then names the
// ranks of its group that are behind it, stopped (not heard from), or gone.
// Rank 0's address (its port and IPv4 addresses, loopback last) reaches the
// others through one broadcast when the mesh is created.
//
//===----------------------------------------------------------------------===//

#include "Comm.h"
#include "Socket.h"

#include <cerrno>
#include <chrono>
#include <mutex>
#include <poll.h>
#include <sstream>
#include <sys/socket.h>
#include <thread>
#include <unistd.h>
#include <vector>

namespace distrt::comm::board {

namespace {

using Clock = std::chrono::steady_clock;

struct Server {
  int listener = -1;
  std::thread thread;
  bool stopping = false;
  std::mutex mutex; // guards table
  std::vector<Entry> table;
  std::vector<Clock::time_point> heard;
};

struct Client {
  int socket = -1; // to rank 0 (ranks other than 0)
  std::string pending;
};

// Never destroyed: a process that exits without distrt_comm_finalize must
// not run ~thread() on a joinable server thread (std::terminate).
Server &server() {
  static Server &s = *new Server;
  return s;
}
Client &client() {
  static Client &c = *new Client;
  return c;
}

using net::sendAll;

/// Records "P rank count frozen step" from a client (or rank 0 itself).
void record(int32_t rank, int64_t count, double frozen,
            const std::string &step) {
  Server &s = server();
  std::lock_guard<std::mutex> lock(s.mutex);
  if (rank < 0 || rank >= static_cast<int32_t>(s.table.size()))
    return;
  Entry &e = s.table[rank];
  e.known = true;
  e.gone = false;
  e.count = count;
  e.frozenSeconds = frozen;
  e.step = step;
  s.heard[rank] = Clock::now();
}

std::string tableText() {
  Server &s = server();
  std::lock_guard<std::mutex> lock(s.mutex);
  std::ostringstream out;
  for (size_t r = 0; r < s.table.size(); ++r) {
    const Entry &e = s.table[r];
    double age = e.known ? std::chrono::duration<double>(Clock::now() -
                                                         s.heard[r])
                               .count()
                         : -1;
    out << r << ' ' << e.known << ' ' << e.gone << ' ' << e.count << ' '
        << age << ' ' << e.frozenSeconds << ' ' << e.step << '\n';
  }
  out << "E\n";
  return out.str();
}

void serve() {
  Server &s = server();
  struct Connection {
    int fd;
    int32_t rank = -1;
    std::string buffer;
  };
  std::vector<Connection> connections;
  while (true) {
    {
      std::lock_guard<std::mutex> lock(s.mutex);
      if (s.stopping)
        break;
    }
    std::vector<pollfd> fds{{s.listener, POLLIN, 0}};
    for (const Connection &c : connections)
      fds.push_back({c.fd, POLLIN, 0});
    if (::poll(fds.data(), fds.size(), 200) <= 0)
      continue;
    if (fds[0].revents & POLLIN) {
      int fd = ::accept(s.listener, nullptr, nullptr);
      if (fd >= 0) {
        net::setTimeouts(fd, 0, 3000); // a client that stops reading
        connections.push_back({fd});
      }
    }
    for (size_t i = 1; i < fds.size(); ++i) {
      Connection &c = connections[i - 1];
      if (!(fds[i].revents & (POLLIN | POLLHUP | POLLERR)))
        continue;
      char chunk[4096];
      ssize_t n = ::recv(c.fd, chunk, sizeof(chunk), 0);
      if (n <= 0) { // closed: the process ended (or closed the board)
        if (c.rank >= 0) {
          std::lock_guard<std::mutex> lock(s.mutex);
          s.table[c.rank].gone = true;
        }
        ::close(c.fd);
        c.fd = -1;
        continue;
      }
      c.buffer.append(chunk, static_cast<size_t>(n));
      if (c.buffer.size() > (1 << 16)) { // not a rank's line: drop it
        ::close(c.fd);
        c.fd = -1;
        continue;
      }
      size_t end;
      while ((end = c.buffer.find('\n')) != std::string::npos) {
        std::string line = c.buffer.substr(0, end);
        c.buffer.erase(0, end + 1);
        if (line == "Q") {
          sendAll(c.fd, tableText());
          continue;
        }
        std::istringstream in(line);
        char tag;
        int32_t rank;
        int64_t count;
        double frozen;
        std::string step;
        if (in >> tag >> rank >> count >> frozen && tag == 'P' &&
            rank >= 0 && rank < static_cast<int32_t>(s.heard.size())) {
          std::getline(in >> std::ws, step);
          c.rank = rank;
          record(rank, count, frozen, step);
        }
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

/// Rank 0's port and IPv4 addresses, loopback last: "port a.b.c.d ...".
std::string listen(int32_t world) {
  Server &s = server();
  std::string error;
  uint16_t port = 0;
  s.listener = net::listenOn(0, 64, &port, error);
  if (s.listener < 0)
    return "";
  std::string text = std::to_string(port) + " " + net::ipv4Addresses();
  s.table.assign(static_cast<size_t>(world), Entry());
  s.heard.assign(static_cast<size_t>(world), Clock::now());
  s.stopping = false;
  s.thread = std::thread(serve);
  return text;
}

/// Connects to one of rank 0's addresses, each tried for up to 2 s.
int connectTo(const std::string &board) {
  std::istringstream in(board);
  int port;
  if (!(in >> port))
    return -1;
  std::string address, error;
  while (in >> address) {
    int fd = net::connectTo(address, static_cast<uint16_t>(port), 2000, error,
                            /*retryRefused=*/false);
    if (fd >= 0) {
      // A query to a rank 0 that stopped reading gives up, as its answer
      // does, after 3 s.
      net::setTimeouts(fd, 0, 3000);
      return fd;
    }
  }
  return -1;
}

} // namespace

void open(int32_t rank, int32_t world, int64_t allMask) {
  char address[512] = {0};
  if (rank == 0) {
    std::string text = listen(world);
    std::snprintf(address, sizeof(address), "%s", text.c_str());
  }
  transport::broadcast(DISTRT_U8, address, sizeof(address), 0, allMask);
  if (rank == 0 || !address[0]) {
    if (!address[0])
      distrt_log(DISTRT_LOG_WARN, "rank 0 could not open the progress board: "
                                  "a collective that times out will not name "
                                  "the ranks it waited for");
    return;
  }
  client().socket = connectTo(address);
  if (client().socket < 0)
    distrt_log(DISTRT_LOG_WARN,
               "rank %d cannot reach rank 0's progress board at %s: a "
               "collective that times out will not name the ranks it waited "
               "for",
               rank, address);
}

void close() {
  Server &s = server();
  if (s.thread.joinable()) {
    {
      std::lock_guard<std::mutex> lock(s.mutex);
      s.stopping = true;
    }
    s.thread.join();
    ::close(s.listener);
    s.listener = -1;
  }
  if (client().socket >= 0) {
    ::close(client().socket);
    client().socket = -1;
  }
}

void report(int32_t rank, int64_t count, double frozenSeconds,
            const std::string &step) {
  if (rank == 0) {
    if (server().listener >= 0)
      record(0, count, frozenSeconds, step);
    return;
  }
  Client &c = client();
  if (c.socket < 0)
    return;
  std::string line = "P " + std::to_string(rank) + " " +
                     std::to_string(count) + " " +
                     std::to_string(frozenSeconds) + " " + step + "\n";
  // Never blocks the watchdog: with rank 0 stopped for long, its socket's
  // buffer fills, and a report that does not fit is dropped.
  bool partly = false;
  if (!sendAll(c.socket, line, MSG_DONTWAIT, &partly) &&
      (partly || (errno != EAGAIN && errno != EWOULDBLOCK))) {
    ::close(c.socket);
    c.socket = -1;
  }
}

bool query(int32_t rank, std::vector<Entry> &table) {
  std::string text;
  if (rank == 0) {
    if (server().listener < 0)
      return false;
    text = tableText();
  } else {
    Client &c = client();
    if (c.socket < 0 || !sendAll(c.socket, "Q\n"))
      return false;
    auto deadline = Clock::now() + std::chrono::seconds(3);
    while (text.size() < 2 || text.compare(text.size() - 2, 2, "E\n") != 0) {
      int left = static_cast<int>(std::chrono::duration_cast<
                                      std::chrono::milliseconds>(
                                      deadline - Clock::now())
                                      .count());
      pollfd p{c.socket, POLLIN, 0};
      if (left <= 0 || ::poll(&p, 1, left) != 1)
        return false;
      char chunk[4096];
      ssize_t n = ::recv(c.socket, chunk, sizeof(chunk), 0);
      if (n <= 0)
        return false;
      text.append(chunk, static_cast<size_t>(n));
    }
  }
  std::istringstream in(text);
  std::string line;
  table.clear();
  while (std::getline(in, line) && line != "E") {
    std::istringstream fields(line);
    size_t r;
    Entry e;
    double age;
    if (!(fields >> r >> e.known >> e.gone >> e.count >> age >>
          e.frozenSeconds))
      return false;
    std::getline(fields >> std::ws, e.step);
    e.ageSeconds = age;
    if (table.size() <= r)
      table.resize(r + 1);
    table[r] = e;
  }
  return true;
}

} // namespace distrt::comm::board
