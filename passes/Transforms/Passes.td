//===- Passes.td - Graph-level transformations of the dist dialect --------===//

#ifndef PASSES_TRANSFORMS_PASSES_TD
#define PASSES_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def DistRaiseCoarseOps : Pass<"dist-raise-coarse-ops", "func::FuncOp"> {
  let summary = "Fold decomposed layer norm and GELU into single dist ops";
  let description = [{
    PyTorch's ONNX exporter decomposes `LayerNorm` into
    ReduceMean/Sub/Pow/ReduceMean/Add/Sqrt/Div(/Mul/Add) and `GELU` into
    Div/Erf/Add/Mul/Mul (or the tanh approximation into
    Pow/Mul/Add/Mul/Tanh/Add/Mul). This pass recognizes those chains and
    replaces each by one `dist.layer_norm` or `dist.gelu`, so autodiff,
    rematerialization, the cost model and sharding see coarse ops.

    Before:
    ```mlir
    %mean = dist.reduce_mean %x axes = [1] {keep_dims} : (tensor<4x8xf32>) -> tensor<4x1xf32>
    %d = dist.sub %x, %mean : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
    %sq = dist.pow %d, %two : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
    %var = dist.reduce_mean %sq axes = [1] {keep_dims} : (tensor<4x8xf32>) -> tensor<4x1xf32>
    %ve = dist.add %var, %eps : (tensor<4x1xf32>, tensor<f32>) -> tensor<4x1xf32>
    %std = dist.sqrt %ve : tensor<4x1xf32>
    %n = dist.div %d, %std : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
    %s = dist.mul %n, %gamma : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
    %y = dist.add %s, %beta : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
    ```
    After:
    ```mlir
    %y = dist.layer_norm %x, %gamma, %beta axis = 1 {epsilon = ...}
        : (tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
    ```
  }];
  let dependentDialects = ["dist::DistDialect"];
}

#endif // PASSES_TRANSFORMS_PASSES_TD
