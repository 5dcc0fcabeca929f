// RUN: dist-opt %s --dist-outline-kernels | FileCheck %s

// Each linalg op on buffers moves into its own function, called without
// inlining; values its body reads from outside become arguments.
// CHECK-LABEL: func.func @forward
// CHECK: call @forward_kernel_0(%arg0, %arg1) {no_inline}
// CHECK: call @forward_kernel_1(%arg1, %arg2, %[[T:.*]]) {no_inline}
// CHECK: func.func private @forward_kernel_1(%{{.*}}: memref<8xf32>, %{{.*}}: memref<8xf32>, %[[TK:.*]]: memref<4xf32>)
// CHECK: memref.load %[[TK]]
// CHECK: func.func private @forward_kernel_0(%{{.*}}: memref<8xf32>, %{{.*}}: memref<8xf32>)
// CHECK: linalg.generic
func.func @forward(%a: memref<8xf32>, %b: memref<8xf32>, %c: memref<8xf32>, %t: memref<4xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                  iterator_types = ["parallel"]}
      ins(%a : memref<8xf32>) outs(%b : memref<8xf32>) {
  ^bb0(%x: f32, %y: f32):
    %e = math.exp %x : f32
    linalg.yield %e : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                  iterator_types = ["parallel"]}
      ins(%b : memref<8xf32>) outs(%c : memref<8xf32>) {
  ^bb0(%x: f32, %y: f32):
    %i = arith.constant 1 : index
    %v = memref.load %t[%i] : memref<4xf32>
    %s = arith.addf %x, %v : f32
    linalg.yield %s : f32
  }
  return
}

// Identical kernels (the layers of a model) are outlined once and called
// from each place, so LLVM compiles each distinct kernel once; here the exp
// kernel of @forward serves both exp loops.
// CHECK-LABEL: func.func @repeated
// CHECK: call @forward_kernel_0(%arg0, %arg1) {no_inline}
// CHECK: call @forward_kernel_0(%arg1, %arg2) {no_inline}
// CHECK: call @repeated_kernel_2(%arg2, %arg0) {no_inline}
// CHECK-NOT: @repeated_kernel_0
// CHECK-NOT: @repeated_kernel_1
func.func @repeated(%a: memref<8xf32>, %b: memref<8xf32>, %c: memref<8xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                  iterator_types = ["parallel"]}
      ins(%a : memref<8xf32>) outs(%b : memref<8xf32>) {
  ^bb0(%x: f32, %y: f32):
    %e = math.exp %x : f32
    linalg.yield %e : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                  iterator_types = ["parallel"]}
      ins(%b : memref<8xf32>) outs(%c : memref<8xf32>) {
  ^bb0(%x: f32, %y: f32):
    %e = math.exp %x : f32
    linalg.yield %e : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                  iterator_types = ["parallel"]}
      ins(%c : memref<8xf32>) outs(%a : memref<8xf32>) {
  ^bb0(%x: f32, %y: f32):
    %e = math.log %x : f32
    linalg.yield %e : f32
  }
  return
}
