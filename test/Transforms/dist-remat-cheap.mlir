// RUN: dist-opt %s --split-input-file --dist-remat="mode=cheap" | FileCheck %s
// RUN: dist-opt %s --split-input-file --dist-remat="mode=cheap explain=true" -o /dev/null | FileCheck %s --check-prefix=EXPLAIN

// Attention in bf16: the scores %s are a product's bf16 result, softmax
// runs in float32, its bf16 copy %yb feeds two products. The backward reads
// %y (float32, 4 bytes an element) in an elementwise op, which fuses with a
// recomputation: the minimum cut keeps %s (2 bytes; a widening cast is no
// buffer of its own, so keeping %sf would cost the same) and recomputes %y
// from it. The cast is cloned too, the constant is read as it is, and the
// backward reads the clone itself (no barrier). %yb is read by a product,
// which reads memory: it is kept.
// CHECK-LABEL: func.func @train_step
// CHECK: %[[S:.*]] = dist.matmul %arg0, %arg1
// CHECK: %[[C:.*]] = dist.constant
// CHECK: %[[YB:.*]] = dist.cast %{{.*}} : tensor<2x4x4xf32> to tensor<2x4x4xbf16>
// CHECK: dist.reduce_sum
// CHECK-NEXT: %[[SB:.*]] = dist.optimization_barrier %[[S]] transparent {dist.backward}
// CHECK-NEXT: %[[SF:.*]] = dist.cast %[[SB]] {dist.backward}
// CHECK-NEXT: %[[M:.*]] = dist.mul %[[SF]], %[[C]] {dist.backward}
// CHECK-NEXT: %[[Y:.*]] = dist.softmax %[[M]] axis = 2 {dist.backward}
// CHECK-NEXT: dist.mul %arg2, %[[Y]] :
// CHECK-NEXT: dist.matmul %[[YB]], %arg0 :
// EXPLAIN: remat cheap on @train_step: the backward reads 2 forward activations (0.00 MiB); kept 2 (0.00 MiB), recomputed 1 by 3 cloned ops
module {
  func.func @train_step(%q: tensor<2x4x4xbf16> {dist.input_name = "q"},
                        %k: tensor<2x4x4xbf16> {dist.input_name = "k"},
                        %dy: tensor<2x4x4xf32> {dist.input_name = "dy"})
      -> (tensor<f32> {dist.output_name = "loss"}, tensor<2x4x4xf32>, tensor<2x4x4xbf16>) {
    %s = dist.matmul %q, %k : (tensor<2x4x4xbf16>, tensor<2x4x4xbf16>) -> tensor<2x4x4xbf16>
    %sf = dist.cast %s : tensor<2x4x4xbf16> to tensor<2x4x4xf32>
    %scale = dist.constant dense<0.5> : tensor<f32>
    %m = dist.mul %sf, %scale : (tensor<2x4x4xf32>, tensor<f32>) -> tensor<2x4x4xf32>
    %y = dist.softmax %m axis = 2 : tensor<2x4x4xf32>
    %yb = dist.cast %y : tensor<2x4x4xf32> to tensor<2x4x4xbf16>
    %o = dist.matmul %yb, %k : (tensor<2x4x4xbf16>, tensor<2x4x4xbf16>) -> tensor<2x4x4xbf16>
    %of = dist.cast %o : tensor<2x4x4xbf16> to tensor<2x4x4xf32>
    %l = dist.reduce_sum %of axes = [0, 1, 2] : (tensor<2x4x4xf32>) -> tensor<f32>
    %g = dist.mul %dy, %y : (tensor<2x4x4xf32>, tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
    %gv = dist.matmul %yb, %q : (tensor<2x4x4xbf16>, tensor<2x4x4xbf16>) -> tensor<2x4x4xbf16>
    return %l, %g, %gv : tensor<f32>, tensor<2x4x4xf32>, tensor<2x4x4xbf16>
  }
}

// -----

// A residual stream: the backward reads both sums %x1 and %x2 (as a layer
// norm's gradient does). Recomputing %x2 from the products' bf16 results
// alone would recompute %x1 too, at the first of the two reads, and keep it
// alive until the second: %x1 is kept, and %x2 is recomputed from it.
// CHECK-LABEL: func.func @train_step
// CHECK: %[[X1:.*]] = dist.add %arg0,
// CHECK: %[[B:.*]] = dist.matmul
// CHECK: dist.reduce_sum
// CHECK-NEXT: dist.mul %arg3, %[[X1]] :
// CHECK-NEXT: %[[X1B:.*]] = dist.optimization_barrier %[[X1]] transparent {dist.backward}
// CHECK-NEXT: %[[BB:.*]] = dist.optimization_barrier %[[B]] transparent {dist.backward}
// CHECK-NEXT: %[[BF:.*]] = dist.cast %[[BB]] {dist.backward}
// CHECK-NEXT: %[[X2:.*]] = dist.add %[[X1B]], %[[BF]] {dist.backward}
// CHECK-NEXT: dist.mul %arg3, %[[X2]] :
// EXPLAIN: remat cheap on @train_step: the backward reads 2 forward activations (0.00 MiB); kept 2 (0.00 MiB), recomputed 1 by 2 cloned ops
module {
  func.func @train_step(%x0: tensor<4x8xf32> {dist.input_name = "x"},
                        %p: tensor<4x8xbf16> {dist.input_name = "p"},
                        %w: tensor<8x8xbf16> {dist.input_name = "w"},
                        %dy: tensor<4x8xf32> {dist.input_name = "dy"})
      -> (tensor<f32> {dist.output_name = "loss"}, tensor<4x8xf32>, tensor<4x8xf32>) {
    %a = dist.matmul %p, %w : (tensor<4x8xbf16>, tensor<8x8xbf16>) -> tensor<4x8xbf16>
    %af = dist.cast %a : tensor<4x8xbf16> to tensor<4x8xf32>
    %x1 = dist.add %x0, %af : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
    %x1b = dist.cast %x1 : tensor<4x8xf32> to tensor<4x8xbf16>
    %b = dist.matmul %x1b, %w : (tensor<4x8xbf16>, tensor<8x8xbf16>) -> tensor<4x8xbf16>
    %bf = dist.cast %b : tensor<4x8xbf16> to tensor<4x8xf32>
    %x2 = dist.add %x1, %bf : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
    %l = dist.reduce_sum %x2 axes = [0, 1] : (tensor<4x8xf32>) -> tensor<f32>
    %g1 = dist.mul %dy, %x1 : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
    %g2 = dist.mul %dy, %x2 : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
    return %l, %g2, %g1 : tensor<f32>, tensor<4x8xf32>, tensor<4x8xf32>
  }
}

// -----

// Float32: keeping the relu's result costs what keeping the product's does.
// Of the equal cuts, the one next to the backward: nothing is recomputed.
// CHECK-LABEL: func.func @train_step
// CHECK-NOT: optimization_barrier
// CHECK: return
// EXPLAIN: remat cheap on @train_step: the backward reads 1 forward activations (0.00 MiB); kept 1 (0.00 MiB), recomputed 0 by 0 cloned ops
module {
  func.func @train_step(%x: tensor<4x8xf32> {dist.input_name = "x"},
                        %w: tensor<8x8xf32> {dist.input_name = "w"},
                        %dy: tensor<4x8xf32> {dist.input_name = "dy"})
      -> (tensor<f32> {dist.output_name = "loss"}, tensor<4x8xf32>) {
    %h = dist.matmul %x, %w : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
    %r = dist.relu %h : tensor<4x8xf32>
    %t = dist.tanh %r : tensor<4x8xf32>
    %l = dist.reduce_sum %t axes = [0, 1] : (tensor<4x8xf32>) -> tensor<f32>
    %g = dist.mul %dy, %r : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
    return %l, %g : tensor<f32>, tensor<4x8xf32>
  }
}

// -----

// A softmax of a bf16 input read by the backward in a transpose: the
// transpose reads it from memory, so recomputing it would write it again.
// It is kept, though keeping the input would cost half the bytes. (Read by
// an elementwise op instead, it is recomputed: the next case.)
// CHECK-LABEL: func.func @train_step
// CHECK-NOT: optimization_barrier
// CHECK: return
// CHECK-LABEL: func.func @train_step
// CHECK: %[[Y:.*]] = dist.softmax %{{.*}} {dist.backward}
// CHECK-NEXT: dist.mul %arg1, %[[Y]] :
// EXPLAIN: recomputed 0 by 0 cloned ops
// EXPLAIN: recomputed 1 by 2 cloned ops
module {
  func.func @train_step(%s: tensor<4x8xbf16> {dist.input_name = "s"},
                        %dy: tensor<8x4xf32> {dist.input_name = "dy"})
      -> (tensor<f32> {dist.output_name = "loss"}, tensor<8x4xf32>) {
    %sf = dist.cast %s : tensor<4x8xbf16> to tensor<4x8xf32>
    %y = dist.softmax %sf axis = 1 : tensor<4x8xf32>
    %l = dist.reduce_sum %y axes = [0, 1] : (tensor<4x8xf32>) -> tensor<f32>
    %yt = dist.transpose %y permutation = [1, 0] : (tensor<4x8xf32>) -> tensor<8x4xf32>
    %g = dist.mul %dy, %yt : (tensor<8x4xf32>, tensor<8x4xf32>) -> tensor<8x4xf32>
    return %l, %g : tensor<f32>, tensor<8x4xf32>
  }
}

// -----

module {
  func.func @train_step(%s: tensor<4x8xbf16> {dist.input_name = "s"},
                        %dy: tensor<4x8xf32> {dist.input_name = "dy"})
      -> (tensor<f32> {dist.output_name = "loss"}, tensor<4x8xf32>) {
    %sf = dist.cast %s : tensor<4x8xbf16> to tensor<4x8xf32>
    %y = dist.softmax %sf axis = 1 : tensor<4x8xf32>
    %l = dist.reduce_sum %y axes = [0, 1] : (tensor<4x8xf32>) -> tensor<f32>
    %g = dist.mul %dy, %y : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
    return %l, %g : tensor<f32>, tensor<4x8xf32>
  }
}
