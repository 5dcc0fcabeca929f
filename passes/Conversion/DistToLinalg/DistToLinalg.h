//===- DistToLinalg.h - Patterns lowering dist ops to linalg/tensor -------===//
//
// One populate function per op family; the convert-dist-to-linalg pass only
// assembles them.
//
//===----------------------------------------------------------------------===//

#ifndef PASSES_CONVERSION_DISTTOLINALG_DISTTOLINALG_H
#define PASSES_CONVERSION_DISTTOLINALG_DISTTOLINALG_H

#include "llvm/ADT/StringRef.h"

namespace mlir {
class ModuleOp;
class Operation;
class RewritePatternSet;
class TypeConverter;

namespace dist {

/// Unary, binary, compare, select, cast, GELU, dropout.
void populateElementwiseToLinalgPatterns(const TypeConverter &converter,
                                         RewritePatternSet &patterns);
/// reduce_*, argmax/argmin, cumsum, softmax, log_softmax, layer_norm.
void populateReductionToLinalgPatterns(const TypeConverter &converter,
                                       RewritePatternSet &patterns);
/// cross_entropy, nll_loss.
void populateLossToLinalgPatterns(const TypeConverter &converter,
                                  RewritePatternSet &patterns);
/// transpose, reshape, broadcast, slice, concat, split, trilu, constant.
void populateShapeToLinalgPatterns(const TypeConverter &converter,
                                   RewritePatternSet &patterns);
/// gather, gather_elements.
void populateIndexingToLinalgPatterns(const TypeConverter &converter,
                                      RewritePatternSet &patterns);
/// matmul, gemm.
void populateContractionToLinalgPatterns(const TypeConverter &converter,
                                         RewritePatternSet &patterns);
/// conv2d, max/avg pooling, global average pooling, batch_norm.
/// insert_slice, scatter_add and the pooling gradients (autodiff's ops).
void populateGradientOpsToLinalgPatterns(const TypeConverter &converter,
                                         RewritePatternSet &patterns);
/// attention, attention_grad: loops over rows (no linalg op can carry an
/// online softmax).
void populateAttentionToLoopsPatterns(const TypeConverter &converter,
                                      RewritePatternSet &patterns);
void populateConvToLinalgPatterns(const TypeConverter &converter,
                                  RewritePatternSet &patterns);
/// Collectives get the signless types of their converted operands; they
/// stay dist ops until one-shot bufferization, which turns them into distrt
/// calls (dialects/Dist/Runtime/CollectiveBufferization.h).
void populateCollectivesToRuntimePatterns(const TypeConverter &converter,
                                          RewritePatternSet &patterns);

} // namespace dist
} // namespace mlir

#endif // PASSES_CONVERSION_DISTTOLINALG_DISTTOLINALG_H
