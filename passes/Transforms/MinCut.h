//===- MinCut.h - Minimum s-t cut of a capacitated graph --------*- C++ -*-===//
//
// A directed graph with int64 capacities and a maximum flow between a source
// and a sink (Dinic's algorithm); after it, the nodes that still reach the
// sink in the residual graph are the sink side of a minimum cut.
// dist-remat's `cheap` policy cuts the forward's dataflow with it: each value
// is an edge whose capacity is what keeping it costs.
//
//===----------------------------------------------------------------------===//

#ifndef DIST_PASSES_TRANSFORMS_MINCUT_H
#define DIST_PASSES_TRANSFORMS_MINCUT_H

#include "llvm/ADT/BitVector.h"
#include "llvm/ADT/SmallVector.h"

#include <cstdint>
#include <limits>

namespace mlir::dist {

class MinCutGraph {
public:
  /// A capacity no cut pays (far above any sum of tensor sizes, and small
  /// enough that adding a few never overflows).
  static constexpr int64_t kInfinite = std::numeric_limits<int64_t>::max() / 8;

  explicit MinCutGraph(unsigned numNodes) : adjacency(numNodes) {}

  unsigned addNode() {
    adjacency.emplace_back();
    return adjacency.size() - 1;
  }
  void addEdge(unsigned from, unsigned to, int64_t capacity);

  /// The maximum flow from `source` to `sink` (the capacity of a minimum
  /// cut); saturates the graph's edges.
  int64_t maxFlow(unsigned source, unsigned sink);

  /// After maxFlow: the nodes that reach `sink` over edges with capacity
  /// left. The nodes outside are the source side of the minimum cut closest
  /// to the sink.
  llvm::BitVector sinkSide(unsigned sink) const;

private:
  struct Edge {
    unsigned to;
    int64_t capacity;
  };
  bool levelGraph(unsigned source, unsigned sink);
  int64_t augment(unsigned node, unsigned sink, int64_t limit);

  /// edges[2k] is an edge, edges[2k + 1] its reverse (capacity 0).
  llvm::SmallVector<Edge> edges;
  llvm::SmallVector<llvm::SmallVector<unsigned, 4>> adjacency;
  llvm::SmallVector<int> level;
  llvm::SmallVector<unsigned> next;
};

} // namespace mlir::dist

#endif // DIST_PASSES_TRANSFORMS_MINCUT_H
