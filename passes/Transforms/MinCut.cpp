//===- MinCut.cpp - Minimum s-t cut of a capacitated graph ----------------===//

#include "passes/Transforms/MinCut.h"

#include <algorithm>

using namespace mlir::dist;

void MinCutGraph::addEdge(unsigned from, unsigned to, int64_t capacity) {
  adjacency[from].push_back(edges.size());
  edges.push_back({to, capacity});
  adjacency[to].push_back(edges.size());
  edges.push_back({from, 0});
}

/// Breadth-first levels from the source over edges with capacity left;
/// whether the sink is reached.
bool MinCutGraph::levelGraph(unsigned source, unsigned sink) {
  level.assign(adjacency.size(), -1);
  llvm::SmallVector<unsigned> queue{source};
  level[source] = 0;
  for (size_t head = 0; head < queue.size(); ++head) {
    unsigned node = queue[head];
    for (unsigned e : adjacency[node])
      if (edges[e].capacity > 0 && level[edges[e].to] < 0) {
        level[edges[e].to] = level[node] + 1;
        queue.push_back(edges[e].to);
      }
  }
  return level[sink] >= 0;
}

/// Pushes at most `limit` from `node` to the sink along the level graph
/// (iteratively: a forward chain can be thousands of nodes deep).
int64_t MinCutGraph::augment(unsigned start, unsigned sink, int64_t limit) {
  // The path so far, as the edges taken.
  llvm::SmallVector<unsigned> path;
  unsigned node = start;
  while (true) {
    if (node == sink) {
      int64_t pushed = limit;
      for (unsigned e : path)
        pushed = std::min(pushed, edges[e].capacity);
      for (unsigned e : path) {
        edges[e].capacity -= pushed;
        edges[e ^ 1].capacity += pushed;
      }
      return pushed;
    }
    bool advanced = false;
    for (; next[node] < adjacency[node].size(); ++next[node]) {
      unsigned e = adjacency[node][next[node]];
      if (edges[e].capacity > 0 && level[edges[e].to] == level[node] + 1) {
        path.push_back(e);
        node = edges[e].to;
        advanced = true;
        break;
      }
    }
    if (advanced)
      continue;
    // A dead end: never visit it again in this phase, and step back.
    level[node] = -1;
    if (path.empty())
      return 0;
    unsigned back = path.pop_back_val();
    node = edges[back ^ 1].to;
    ++next[node];
  }
}

int64_t MinCutGraph::maxFlow(unsigned source, unsigned sink) {
  int64_t flow = 0;
  while (levelGraph(source, sink)) {
    next.assign(adjacency.size(), 0);
    while (int64_t pushed = augment(source, sink, kInfinite))
      flow += pushed;
  }
  return flow;
}

llvm::BitVector MinCutGraph::sinkSide(unsigned sink) const {
  // u reaches the sink over edge e = (u, w) when w does and e has capacity
  // left; e's reverse, listed at w, leads back to u.
  llvm::BitVector seen(adjacency.size());
  llvm::SmallVector<unsigned> stack{sink};
  seen.set(sink);
  while (!stack.empty()) {
    unsigned node = stack.pop_back_val();
    for (unsigned reverse : adjacency[node]) {
      unsigned u = edges[reverse].to;
      if (edges[reverse ^ 1].capacity > 0 && !seen.test(u)) {
        seen.set(u);
        stack.push_back(u);
      }
    }
  }
  return seen;
}
