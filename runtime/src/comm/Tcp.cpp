//===- Tcp.cpp - The collectives' transport over TCP sockets --------------===//
//
// For processes started torchrun-style (RANK, WORLD_SIZE, MASTER_ADDR,
// MASTER_PORT; no MPI launcher): every rank listens on a port of its own,
// publishes its address in rank 0's store (Store.h) and connects to every
// other rank, one socket per pair. The collectives are rings over the
// members of a group, in group rank order (the reduce-scatter, then the
// all-gather, of the bandwidth-optimal all-reduce); each step sends to the
// next rank while it receives from the previous one, so no send waits for
// a receive. Every rank ends a ring with the same bits.
//
// One thread per process runs the operations in the order the program
// starts them (the same on every rank), so a started collective proceeds
// while the program computes, and distrt_wait waits for its turn to end.
// Every message carries a header (the operation and its size) that the
// receiver checks: ranks that disagree about the next operation end the
// job with a message instead of exchanging the wrong data.
//
//===----------------------------------------------------------------------===//

#include "Comm.h"
#include "Socket.h"
#include "Store.h"

#include <algorithm>
#include <chrono>
#include <cerrno>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <fcntl.h>
#include <mutex>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <random>
#include <sys/socket.h>
#include <thread>
#include <unistd.h>
#include <vector>

namespace distrt::comm::transport {

namespace {

constexpr uint32_t kMagic = 0x44495354; // "DIST"

/// The operations, as headers name them.
enum Kind : uint32_t {
  kAllReduce = 1,
  kAllGather,
  kReduceScatter,
  kBroadcast,
  kMessage, // send / recv
  kBarrier,
  kHello,
};

const char *kindName(uint32_t kind) {
  static const char *const names[] = {"?",         "all-reduce", "all-gather",
                                      "reduce-scatter", "broadcast",
                                      "send/recv", "barrier",    "hello"};
  return kind <= kHello ? names[kind] : "?";
}

struct Header {
  uint32_t magic = kMagic;
  uint32_t kind = 0;
  int32_t tag = 0;     // of a send / recv; the sender's rank in a hello
  int32_t world = 0;   // in a hello
  uint32_t detail = 0; // dtype | op << 8 of a collective
  uint32_t reserved = 0;
  uint64_t bytes = 0;  // the payload; the job's nonce in a hello
};

/// The header's `detail` of an operation on `dtype` with `op` (-1: none).
uint32_t detailOf(distrt_dtype dtype, int32_t op = -1) {
  return static_cast<uint32_t>(dtype) | static_cast<uint32_t>(op + 1) << 8;
}

/// "float32, sum" of a `detail`.
std::string detailText(uint32_t detail) {
  uint32_t dtype = detail & 0xff, op = detail >> 8;
  static const char *const ops[] = {"", ", sum", ", max", ", min"};
  return std::string(dtype < DISTRT_NUM_DTYPES
                         ? distrt_dtype_name(static_cast<distrt_dtype>(dtype))
                         : "?") +
         (op < 4 ? ops[op] : ", ?");
}

/// A number from the environment, or -1.
int64_t environmentNumber(const char *name) {
  const char *value = std::getenv(name);
  if (!value || !*value)
    return -1;
  char *end = nullptr;
  long long n = std::strtoll(value, &end, 10);
  return end && *end == '\0' && n >= 0 ? n : -1;
}

/// What a started operation leaves: whether the thread has run it.
struct Job {
  std::function<void()> run;
  bool done = false;
};

/// The operations posted to the thread, shared with the waits of started
/// ones (which may outlive the transport: a wait after finalize).
struct Queue {
  std::mutex mutex;
  std::condition_variable changed;
  std::deque<std::shared_ptr<Job>> jobs;
  bool stopping = false;
};

/// Runs the jobs of `queue` in order until it stops and is empty.
void work(Queue &queue) {
  while (true) {
    std::shared_ptr<Job> job;
    {
      std::unique_lock<std::mutex> lock(queue.mutex);
      queue.changed.wait(lock,
                         [&] { return queue.stopping || !queue.jobs.empty(); });
      if (queue.jobs.empty())
        return;
      job = queue.jobs.front();
    }
    job->run();
    std::lock_guard<std::mutex> lock(queue.mutex);
    queue.jobs.pop_front();
    job->done = true;
    queue.changed.notify_all();
  }
}

/// The non-empty fields of `text` between `separator`s.
std::vector<std::string> split(const std::string &text, char separator) {
  std::vector<std::string> fields;
  size_t begin = 0;
  while (begin <= text.size()) {
    size_t end = text.find(separator, begin);
    if (end == std::string::npos)
      end = text.size();
    if (end > begin)
      fields.push_back(text.substr(begin, end - begin));
    begin = end + 1;
  }
  return fields;
}

/// Combines `count` elements of `from` into `to` with `op`.
template <typename T>
void combine(int32_t op, T *to, const T *from, int64_t count) {
  for (int64_t i = 0; i < count; ++i)
    to[i] = op == DISTRT_OP_SUM   ? static_cast<T>(to[i] + from[i])
            : op == DISTRT_OP_MAX ? std::max(to[i], from[i])
                                  : std::min(to[i], from[i]);
}

void reduceInto(distrt_dtype dtype, int32_t op, void *to, const void *from,
                int64_t count) {
  switch (dtype) {
  case DISTRT_F32:
    return combine(op, static_cast<float *>(to),
                   static_cast<const float *>(from), count);
  case DISTRT_F64:
    return combine(op, static_cast<double *>(to),
                   static_cast<const double *>(from), count);
  case DISTRT_F16:
  case DISTRT_BF16:
    return combineHalves(dtype, op, static_cast<uint16_t *>(to),
                         static_cast<const uint16_t *>(from), count);
  case DISTRT_I64:
    return combine(op, static_cast<int64_t *>(to),
                   static_cast<const int64_t *>(from), count);
  case DISTRT_I32:
    return combine(op, static_cast<int32_t *>(to),
                   static_cast<const int32_t *>(from), count);
  case DISTRT_I16:
    return combine(op, static_cast<int16_t *>(to),
                   static_cast<const int16_t *>(from), count);
  case DISTRT_I8:
    return combine(op, static_cast<int8_t *>(to),
                   static_cast<const int8_t *>(from), count);
  case DISTRT_U64:
    return combine(op, static_cast<uint64_t *>(to),
                   static_cast<const uint64_t *>(from), count);
  case DISTRT_U32:
    return combine(op, static_cast<uint32_t *>(to),
                   static_cast<const uint32_t *>(from), count);
  case DISTRT_U16:
    return combine(op, static_cast<uint16_t *>(to),
                   static_cast<const uint16_t *>(from), count);
  default: // uint8, bool (max and min only)
    return combine(op, static_cast<uint8_t *>(to),
                   static_cast<const uint8_t *>(from), count);
  }
}

/// A group's members (world ranks) in group rank order, and this rank's
/// place among them.
struct Group {
  std::vector<int32_t> members;
  size_t me = 0;
  size_t size() const { return members.size(); }
  int32_t next() const { return members[(me + 1) % size()]; }
  int32_t previous() const { return members[(me + size() - 1) % size()]; }
};

/// What every rank published in the store: where it listens (its
/// addresses, the one routing to MASTER_ADDR first), on which host.
struct Peer {
  std::vector<std::string> addresses;
  std::string host;
  uint16_t port = 0;
};

class TcpTransport final : public Transport {
public:
  const char *name() const override { return "TCP"; }
  bool start(int32_t &rank, int32_t &world, std::string &error) override;
  int32_t localSize() override;
  bool createGroups(const Mesh &mesh, std::string &error) override;
  void drain() override;
  void finish() override;
  [[noreturn]] void abort(int status) override { ::_exit(status); }
  void allReduce(distrt_dtype dtype, int32_t op, void *buf, int64_t count,
                 int64_t mask, std::function<void()> *wait) override;
  void allGather(distrt_dtype dtype, const void *in, void *out, int64_t count,
                 int64_t mask, std::function<void()> *wait) override;
  void reduceScatter(distrt_dtype dtype, int32_t op, const void *in, void *out,
                     int64_t count, int64_t mask,
                     std::function<void()> *wait) override;
  void broadcast(distrt_dtype dtype, void *buf, int64_t count, int64_t root,
                 int64_t mask) override;
  void send(distrt_dtype dtype, const void *buf, int64_t count, int32_t peer,
            int32_t tag) override;
  void recv(distrt_dtype dtype, void *buf, int64_t count, int32_t peer,
            int32_t tag) override;
  void barrier(int64_t mask) override;

private:
  bool connectAll(int listener, int timeoutMs, std::string &error);
  /// A connection to rank `p` (trying its addresses in order), greeted and
  /// answered by that rank of this job; -1 if none.
  int connectToPeer(int32_t p, int timeoutMs, std::string &error);
  const Group &group(int64_t mask) const {
    return groups[static_cast<size_t>(mask & meshAxes)];
  }

  /// Runs `run` on the thread after what was started before; with `wait`,
  /// leaves the waiting to distrt_wait, else waits (under the watchdog).
  void post(std::function<void()> run, std::string what, int64_t mask,
            int64_t bytes, std::function<void()> *wait);

  /// Sends `sendBytes` to world rank `to` while receiving `recvBytes` from
  /// `from` (-1: no such side), each behind a header of `kind` and `tag`.
  void exchange(int32_t to, const void *sendData, uint64_t sendBytes,
                int32_t from, void *recvData, uint64_t recvBytes,
                uint32_t kind, int32_t tag, uint32_t detail);
  /// The ring steps of a reduce-scatter of `data`, split at `offsets`
  /// (elements; n + 1 of them), after which this rank's chunk holds the
  /// reduction; and of an all-gather of the chunks. The headers carry
  /// `kind` and `detail`.
  void ringReduceScatter(const Group &g, distrt_dtype dtype, int32_t op,
                         char *data, const std::vector<int64_t> &offsets,
                         uint32_t kind);
  void ringAllGather(const Group &g, distrt_dtype dtype, char *data,
                     const std::vector<int64_t> &offsets, uint32_t kind,
                     uint32_t detail);

  int32_t rank = 0, world = 1;
  uint64_t nonce = 0; // the job's, from rank 0: greetings carry it
  std::vector<Peer> peers;
  std::vector<int> sockets; // by world rank; -1 for this rank
  std::vector<Group> groups;
  int64_t meshAxes = 0;

  std::shared_ptr<Queue> queue = std::make_shared<Queue>();
  std::thread thread;
};

bool TcpTransport::start(int32_t &rankOut, int32_t &worldOut,
                         std::string &error) {
  int64_t r = environmentNumber("RANK"), w = environmentNumber("WORLD_SIZE"),
          port = environmentNumber("MASTER_PORT");
  const char *master = std::getenv("MASTER_ADDR");
  std::string launch = "launched torchrun-style (RANK=" + std::to_string(r) +
                       ")";
  if (w < 1 || r >= w) {
    error = launch + " but WORLD_SIZE is not a number of processes above "
                     "RANK: set WORLD_SIZE to the number of processes";
    return false;
  }
  if (!master || !*master || port < 0) {
    error = launch + " without MASTER_ADDR and MASTER_PORT: set them to rank "
                     "0's host and a free port (as torchrun does)";
    return false;
  }
  // Under torchrun its agent serves its own store at MASTER_PORT: ours
  // takes the port after it.
  const char *agentStore = std::getenv("TORCHELASTIC_USE_AGENT_STORE");
  bool afterAgent = agentStore && std::string(agentStore) == "True";
  int64_t storePort = port + (afterAgent ? 1 : 0);
  if (port < 1 || storePort > 65535) {
    error = launch + ": MASTER_PORT=" + std::to_string(port) +
            " is not a port" + (afterAgent ? " below 65535" : "") +
            " (1 to 65535)";
    return false;
  }
  rank = static_cast<int32_t>(r);
  world = static_cast<int32_t>(w);
  double timeout = watchdog::timeoutSeconds();
  int timeoutMs = timeout > 0 && timeout < 86400
                      ? static_cast<int>(timeout * 1000)
                      : 86400 * 1000; // "no limit": a day to start
  std::string storeName =
      std::string(master) + ":" + std::to_string(storePort) +
      (afterAgent ? " (MASTER_PORT + 1: torchrun's agent holds MASTER_PORT)"
                  : "");
  if (!store::open(master, static_cast<uint16_t>(storePort), rank == 0,
                   timeoutMs, storeName, error))
    return false;
  // Rank 0 draws the job's nonce: greetings from other jobs are refused.
  if (rank == 0) {
    std::random_device random;
    nonce = (uint64_t(random()) << 32) ^ random() ^ uint64_t(::getpid());
    if (!store::set("distrt/nonce", std::to_string(nonce), error)) {
      store::close();
      return false;
    }
  }
  std::string nonceText;
  if (!store::get("distrt/nonce", nonceText, error)) {
    store::close();
    return false;
  }
  nonce = std::strtoull(nonceText.c_str(), nullptr, 10);

  uint16_t listening = 0;
  int listener = net::listenOn(0, world + 16, &listening, error);
  // The address routing to MASTER_ADDR first, then this host's others
  // (MASTER_ADDR may name a host that resolves to loopback locally).
  std::string addresses = net::addressToward(master);
  for (const std::string &other : split(net::ipv4Addresses(), ' '))
    if (other != addresses)
      addresses += (addresses.empty() ? "" : ",") + other;
  std::string prefix = "distrt/peer/";
  if (listener < 0 ||
      !store::set(prefix + std::to_string(rank),
                  addresses + " " + std::to_string(listening) + " " +
                      net::hostName(),
                  error)) {
    if (listener >= 0)
      ::close(listener);
    store::close();
    return false;
  }
  peers.assign(static_cast<size_t>(world), Peer());
  for (int32_t p = 0; p < world; ++p) {
    std::string value;
    std::vector<std::string> fields;
    if (store::get(prefix + std::to_string(p), value, error))
      fields = split(value, ' ');
    if (fields.size() < 3) {
      error = "rank " + std::to_string(p) + " did not join the job: " +
              (error.empty() ? "'" + value + "' is not an address" : error);
      ::close(listener);
      store::close();
      return false;
    }
    peers[p].addresses = split(fields[0], ',');
    peers[p].port =
        static_cast<uint16_t>(std::strtoul(fields[1].c_str(), nullptr, 10));
    peers[p].host = fields[2];
  }
  bool connected = connectAll(listener, timeoutMs, error);
  ::close(listener);
  if (!connected) {
    finish();
    return false;
  }
  queue->stopping = false;
  thread = std::thread([queue = queue] { work(*queue); });
  rankOut = rank;
  worldOut = world;
  return true;
}

int TcpTransport::connectToPeer(int32_t p, int timeoutMs, std::string &error) {
  Header hello;
  hello.kind = kHello;
  hello.tag = rank;
  hello.world = world;
  hello.bytes = nonce;
  // The peer listens before it publishes its addresses, so a right one
  // connects at once: each is tried for a few seconds only.
  int perAddress = std::min(timeoutMs, 5000);
  for (const std::string &address : peers[p].addresses) {
    int fd = net::connectTo(address, peers[p].port, perAddress, error);
    if (fd < 0)
      continue;
    net::setTimeouts(fd, perAddress, perAddress);
    Header answer;
    if (net::sendAll(fd, &hello, sizeof(hello)) &&
        net::recvAll(fd, &answer, sizeof(answer)) && answer.magic == kMagic &&
        answer.kind == kHello && answer.tag == p && answer.world == world &&
        answer.bytes == nonce) {
      net::setTimeouts(fd, 0, 0);
      return fd;
    }
    ::close(fd); // another process at that address and port
    error = address + ":" + std::to_string(peers[p].port) + " is not rank " +
            std::to_string(p) + " of this job";
  }
  return -1;
}

bool TcpTransport::connectAll(int listener, int timeoutMs,
                              std::string &error) {
  sockets.assign(static_cast<size_t>(world), -1);
  // Connect to the ranks below, whose listeners accept even before they
  // call accept(); then accept the ranks above.
  for (int32_t p = 0; p < rank; ++p) {
    sockets[p] = connectToPeer(p, timeoutMs, error);
    if (sockets[p] < 0) {
      error = "rank " + std::to_string(rank) + " cannot connect to rank " +
              std::to_string(p) + " (host " + peers[p].host + "): " + error;
      return false;
    }
  }
  auto deadline = std::chrono::steady_clock::now() +
                  std::chrono::milliseconds(timeoutMs);
  for (int32_t expected = world - 1 - rank; expected > 0;) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                    deadline - std::chrono::steady_clock::now())
                    .count();
    pollfd p{listener, POLLIN, 0};
    if (left <= 0 || ::poll(&p, 1, static_cast<int>(left)) != 1) {
      std::string missing;
      for (int32_t q = rank + 1; q < world; ++q)
        if (sockets[q] < 0)
          missing += (missing.empty() ? "" : ", ") + std::to_string(q);
      error = "rank " + std::to_string(rank) + " waited " +
              std::to_string(timeoutMs / 1000) + " s for rank(s) " + missing +
              " to connect to it";
      return false;
    }
    int fd = ::accept4(listener, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
      continue;
    }
    // Something else that connected (not a rank of this job) is dropped.
    net::setTimeouts(fd, 5000, 5000);
    Header theirs, answer;
    answer.kind = kHello;
    answer.tag = rank;
    answer.world = world;
    answer.bytes = nonce;
    if (!net::recvAll(fd, &theirs, sizeof(theirs)) ||
        theirs.magic != kMagic || theirs.kind != kHello ||
        theirs.world != world || theirs.bytes != nonce ||
        theirs.tag <= rank || theirs.tag >= world ||
        sockets[theirs.tag] >= 0 ||
        !net::sendAll(fd, &answer, sizeof(answer))) {
      ::close(fd);
      continue;
    }
    net::setTimeouts(fd, 0, 0);
    sockets[theirs.tag] = fd;
    --expected;
  }
  for (int fd : sockets)
    if (fd >= 0) {
      ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
      int one = 1;
      ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    }
  return true;
}

int32_t TcpTransport::localSize() {
  const std::string &host = peers[static_cast<size_t>(rank)].host;
  return static_cast<int32_t>(
      std::count_if(peers.begin(), peers.end(),
                    [&](const Peer &p) { return p.host == host; }));
}

bool TcpTransport::createGroups(const Mesh &mesh, std::string &) {
  int64_t all = (int64_t(1) << kMaxDims) - 1;
  meshAxes = (int64_t(1) << mesh.ndims) - 1;
  groups.assign(static_cast<size_t>(meshAxes + 1), Group());
  for (int64_t mask = 1; mask <= meshAxes; ++mask) {
    Group &g = groups[static_cast<size_t>(mask)];
    int64_t mine = mesh.indexOn(rank, all & ~mask);
    std::vector<std::pair<int64_t, int32_t>> members;
    for (int32_t p = 0; p < world; ++p)
      if (mesh.indexOn(p, all & ~mask) == mine)
        members.emplace_back(mesh.indexOn(p, mask), p);
    std::sort(members.begin(), members.end());
    for (auto &[index, member] : members) {
      if (member == rank)
        g.me = g.members.size();
      g.members.push_back(member);
    }
  }
  return true;
}

void TcpTransport::drain() {
  {
    std::lock_guard<std::mutex> lock(queue->mutex);
    if (queue->jobs.empty())
      return;
  }
  // Started operations that were never waited for end before the
  // connections do, under the watchdog (a peer that hangs ends the job).
  watchdog::Waiting waiting("TCP operations started and not waited for, at "
                            "the end of the mesh",
                            meshAxes);
  std::unique_lock<std::mutex> lock(queue->mutex);
  queue->changed.wait(lock, [&] { return queue->jobs.empty(); });
}

void TcpTransport::finish() {
  if (thread.joinable()) {
    {
      std::lock_guard<std::mutex> lock(queue->mutex);
      queue->stopping = true;
    }
    queue->changed.notify_all();
    thread.join();
  }
  for (int &fd : sockets)
    if (fd >= 0) {
      ::close(fd);
      fd = -1;
    }
  store::close();
}

void TcpTransport::post(std::function<void()> run, std::string what,
                        int64_t mask, int64_t bytes,
                        std::function<void()> *wait) {
  auto job = std::make_shared<Job>();
  job->run = std::move(run);
  {
    std::lock_guard<std::mutex> lock(queue->mutex);
    queue->jobs.push_back(job);
  }
  queue->changed.notify_all();
  auto block = [queue = queue, job] {
    std::unique_lock<std::mutex> lock(queue->mutex);
    queue->changed.wait(lock, [&] { return job->done; });
  };
  if (wait) {
    *wait = tracedWait(block, mask, std::move(what), bytes);
    return;
  }
  watchdog::Waiting waiting(std::move(what), mask, bytes);
  block();
}

void TcpTransport::exchange(int32_t to, const void *sendData,
                            uint64_t sendBytes, int32_t from, void *recvData,
                            uint64_t recvBytes, uint32_t kind, int32_t tag,
                            uint32_t detail) {
  Header out, in;
  out.kind = kind;
  out.tag = tag;
  out.detail = detail;
  out.bytes = sendBytes;
  // Progress: the header, then the payload, in each direction.
  uint64_t sent = to < 0 ? sizeof(Header) + sendBytes : 0;
  uint64_t received = from < 0 ? sizeof(Header) + recvBytes : 0;
  auto piece = [](uint64_t at, const void *header, const void *payload,
                  uint64_t payloadBytes, uint64_t &size) {
    if (at < sizeof(Header)) {
      size = sizeof(Header) - at;
      return static_cast<const char *>(header) + at;
    }
    size = payloadBytes - (at - sizeof(Header));
    return static_cast<const char *>(payload) + (at - sizeof(Header));
  };
  while (sent < sizeof(Header) + sendBytes ||
         received < sizeof(Header) + recvBytes) {
    pollfd fds[2];
    int n = 0, sendAt = -1, recvAt = -1;
    if (sent < sizeof(Header) + sendBytes) {
      fds[n] = {sockets[static_cast<size_t>(to)], POLLOUT, 0};
      sendAt = n++;
    }
    if (received < sizeof(Header) + recvBytes) {
      fds[n] = {sockets[static_cast<size_t>(from)], POLLIN, 0};
      recvAt = n++;
    }
    if (::poll(fds, static_cast<nfds_t>(n), -1) < 0) {
      if (errno == EINTR)
        continue;
      fatal("%s over TCP: poll failed: %s", kindName(kind),
            std::strerror(errno));
    }
    if (sendAt >= 0 && fds[sendAt].revents) {
      uint64_t size;
      const char *data = piece(sent, &out, sendData, sendBytes, size);
      ssize_t n = ::send(fds[sendAt].fd, data, size, MSG_NOSIGNAL);
      if (n > 0)
        sent += static_cast<uint64_t>(n);
      else if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK &&
               errno != EINTR)
        fatal("%s over TCP: the connection to rank %d broke (%s): that rank "
              "ended; see its output",
              kindName(kind), to, std::strerror(errno));
    }
    if (recvAt >= 0 && fds[recvAt].revents) {
      uint64_t size;
      char *data = const_cast<char *>(
          piece(received, &in, recvData, recvBytes, size));
      ssize_t n = ::recv(fds[recvAt].fd, data, size, 0);
      if (n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK &&
                     errno != EINTR))
        fatal("%s over TCP: rank %d closed its connection (%s): that rank "
              "ended; see its output",
              kindName(kind), from, n == 0 ? "end of stream"
                                           : std::strerror(errno));
      if (n > 0) {
        uint64_t before = received;
        received += static_cast<uint64_t>(n);
        if (before < sizeof(Header) && received >= sizeof(Header) &&
            (in.magic != kMagic || in.kind != kind || in.tag != tag ||
             in.detail != detail || in.bytes != recvBytes))
          fatal("rank %d sent a %s of %llu bytes (%s, tag %d) where rank %d "
                "expects a %s of %llu bytes (%s, tag %d): the ranks are out "
                "of step (do they run the same program?)",
                from, in.magic == kMagic ? kindName(in.kind) : "garbled message",
                static_cast<unsigned long long>(in.bytes),
                detailText(in.detail).c_str(), in.tag, rank, kindName(kind),
                static_cast<unsigned long long>(recvBytes),
                detailText(detail).c_str(), tag);
      }
    }
  }
}

void TcpTransport::ringReduceScatter(const Group &g, distrt_dtype dtype,
                                     int32_t op, char *data,
                                     const std::vector<int64_t> &offsets,
                                     uint32_t kind) {
  size_t n = g.size(), size = distrt_dtype_size(dtype);
  int64_t largest = 0;
  for (size_t c = 0; c < n; ++c)
    largest = std::max(largest, offsets[c + 1] - offsets[c]);
  std::vector<char> incoming(static_cast<size_t>(largest) * size);
  // Step s sends chunk me - s - 1 and receives chunk me - s - 2, so that
  // the last step completes chunk me here.
  for (size_t s = 0; s + 1 < n; ++s) {
    size_t out = (g.me + 2 * n - s - 1) % n, in = (g.me + 2 * n - s - 2) % n;
    int64_t outCount = offsets[out + 1] - offsets[out];
    int64_t inCount = offsets[in + 1] - offsets[in];
    exchange(g.next(), data + offsets[out] * size, outCount * size,
             g.previous(), incoming.data(), inCount * size, kind, 0,
             detailOf(dtype, op));
    reduceInto(dtype, op, data + offsets[in] * size, incoming.data(), inCount);
  }
}

void TcpTransport::ringAllGather(const Group &g, distrt_dtype dtype,
                                 char *data,
                                 const std::vector<int64_t> &offsets,
                                 uint32_t kind, uint32_t detail) {
  size_t n = g.size(), size = distrt_dtype_size(dtype);
  // Step s passes on chunk me - s and receives chunk me - s - 1.
  for (size_t s = 0; s + 1 < n; ++s) {
    size_t out = (g.me + n - s) % n, in = (g.me + 2 * n - s - 1) % n;
    exchange(g.next(), data + offsets[out] * size,
             (offsets[out + 1] - offsets[out]) * size, g.previous(),
             data + offsets[in] * size, (offsets[in + 1] - offsets[in]) * size,
             kind, 0, detail);
  }
}

/// Chunk c of `count` elements split `parts` ways: [offsets[c],
/// offsets[c + 1]).
std::vector<int64_t> evenSplit(int64_t count, size_t parts) {
  std::vector<int64_t> offsets(parts + 1);
  for (size_t c = 0; c <= parts; ++c)
    offsets[c] = static_cast<int64_t>(
        static_cast<__int128>(count) * static_cast<int64_t>(c) /
        static_cast<int64_t>(parts));
  return offsets;
}

void TcpTransport::allReduce(distrt_dtype dtype, int32_t op, void *buf,
                             int64_t count, int64_t mask,
                             std::function<void()> *wait) {
  const Group &g = group(mask);
  post(
      [this, &g, dtype, op, buf, count] {
        std::vector<int64_t> offsets = evenSplit(count, g.size());
        ringReduceScatter(g, dtype, op, static_cast<char *>(buf), offsets,
                          kAllReduce);
        ringAllGather(g, dtype, static_cast<char *>(buf), offsets, kAllReduce,
                      detailOf(dtype, op));
      },
      waitText(wait ? "TCP all-reduce (started)" : "TCP all-reduce", dtype,
               count, mask),
      mask, count * distrt_dtype_size(dtype), wait);
}

void TcpTransport::allGather(distrt_dtype dtype, const void *in, void *out,
                             int64_t count, int64_t mask,
                             std::function<void()> *wait) {
  const Group &g = group(mask);
  post(
      [this, &g, dtype, in, out, count] {
        size_t bytes = static_cast<size_t>(count) * distrt_dtype_size(dtype);
        std::memcpy(static_cast<char *>(out) + g.me * bytes, in, bytes);
        std::vector<int64_t> offsets(g.size() + 1);
        for (size_t c = 0; c <= g.size(); ++c)
          offsets[c] = count * static_cast<int64_t>(c);
        ringAllGather(g, dtype, static_cast<char *>(out), offsets, kAllGather,
                      detailOf(dtype));
      },
      waitText(wait ? "TCP all-gather (started)" : "TCP all-gather", dtype,
               count, mask),
      mask, count * distrt_dtype_size(dtype), wait);
}

void TcpTransport::reduceScatter(distrt_dtype dtype, int32_t op,
                                 const void *in, void *out, int64_t count,
                                 int64_t mask, std::function<void()> *wait) {
  const Group &g = group(mask);
  post(
      [this, &g, dtype, op, in, out, count] {
        size_t bytes = static_cast<size_t>(count) * distrt_dtype_size(dtype);
        std::vector<char> data(static_cast<const char *>(in),
                               static_cast<const char *>(in) +
                                   bytes * g.size());
        std::vector<int64_t> offsets(g.size() + 1);
        for (size_t c = 0; c <= g.size(); ++c)
          offsets[c] = count * static_cast<int64_t>(c);
        ringReduceScatter(g, dtype, op, data.data(), offsets, kReduceScatter);
        std::memcpy(out, data.data() + g.me * bytes, bytes);
      },
      waitText(wait ? "TCP reduce-scatter (started)" : "TCP reduce-scatter",
               dtype, count, mask),
      mask, count * distrt_dtype_size(dtype), wait);
}

void TcpTransport::broadcast(distrt_dtype dtype, void *buf, int64_t count,
                             int64_t root, int64_t mask) {
  const Group &g = group(mask);
  uint64_t bytes = static_cast<uint64_t>(count) * distrt_dtype_size(dtype);
  post(
      [this, &g, dtype, buf, bytes, root] {
        int32_t from = g.members[static_cast<size_t>(root)];
        if (from != rank) {
          exchange(-1, nullptr, 0, from, buf, bytes, kBroadcast, 0,
                   detailOf(dtype));
          return;
        }
        for (int32_t member : g.members)
          if (member != rank)
            exchange(member, buf, bytes, -1, nullptr, 0, kBroadcast, 0,
                     detailOf(dtype));
      },
      waitText("TCP broadcast", dtype, count, mask), mask,
      static_cast<int64_t>(bytes), nullptr);
}

void TcpTransport::send(distrt_dtype dtype, const void *buf, int64_t count,
                        int32_t peer, int32_t tag) {
  uint64_t bytes = static_cast<uint64_t>(count) * distrt_dtype_size(dtype);
  post(
      [this, dtype, buf, bytes, peer, tag] {
        exchange(peer, buf, bytes, -1, nullptr, 0, kMessage, tag,
                 detailOf(dtype));
      },
       waitText("TCP send", dtype, count, 0) + " to rank " +
           std::to_string(peer),
       meshAxes, static_cast<int64_t>(bytes), nullptr);
}

void TcpTransport::recv(distrt_dtype dtype, void *buf, int64_t count,
                        int32_t peer, int32_t tag) {
  uint64_t bytes = static_cast<uint64_t>(count) * distrt_dtype_size(dtype);
  post(
      [this, dtype, buf, bytes, peer, tag] {
        exchange(-1, nullptr, 0, peer, buf, bytes, kMessage, tag,
                 detailOf(dtype));
      },
       waitText("TCP recv", dtype, count, 0) + " from rank " +
           std::to_string(peer),
       meshAxes, static_cast<int64_t>(bytes), nullptr);
}

void TcpTransport::barrier(int64_t mask) {
  const Group &g = group(mask);
  post(
      [this, &g] {
        std::vector<int32_t> token(g.size(), 0);
        std::vector<int64_t> offsets = evenSplit(g.size(), g.size());
        ringReduceScatter(g, DISTRT_I32, DISTRT_OP_SUM,
                          reinterpret_cast<char *>(token.data()), offsets,
                          kBarrier);
        ringAllGather(g, DISTRT_I32, reinterpret_cast<char *>(token.data()),
                      offsets, kBarrier, detailOf(DISTRT_I32));
      },
      "TCP barrier over mesh axes {" + watchdog::axesText(mask) + "}", mask,
      -1, nullptr);
}

} // namespace

std::unique_ptr<Transport> makeTcp() {
  return std::make_unique<TcpTransport>();
}

} // namespace distrt::comm::transport
