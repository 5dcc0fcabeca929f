// RUN: dist-opt %s --convert-dist-to-linalg --split-input-file | FileCheck %s

// Elementwise ops read broadcast operands through their indexing maps.
// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[ROW:.*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @add_broadcast
// CHECK: linalg.generic {indexing_maps = [#[[ID]], #[[ROW]], #[[ID]]]
// CHECK: arith.addf
func.func @add_broadcast(%x: tensor<4x8xf32>, %b: tensor<8xf32>) -> tensor<4x8xf32> {
  %0 = dist.add %x, %b : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// Unsigned tensors become signless; the op picks the unsigned arith op and
// never divides by zero.
// CHECK-LABEL: func.func @div_unsigned
// CHECK-SAME: (%{{.*}}: tensor<4xi8>, %{{.*}}: tensor<4xi8>) -> tensor<4xi8>
// CHECK: arith.select
// CHECK: arith.divui
func.func @div_unsigned(%x: tensor<4xui8>, %y: tensor<4xui8>) -> tensor<4xui8> {
  %0 = dist.div %x, %y : (tensor<4xui8>, tensor<4xui8>) -> tensor<4xui8>
  return %0 : tensor<4xui8>
}

// -----

// f16 sums accumulate in f32, reassociably (so the loop vectorizes);
// keep_dims re-expands.
// CHECK-LABEL: func.func @sum_keep
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]
// CHECK-SAME: outs(%{{.*}} : tensor<4xf32>)
// CHECK: arith.extf
// CHECK: arith.addf {{.*}} fastmath<reassoc> : f32
// CHECK: arith.truncf
// CHECK: tensor.expand_shape {{.*}} into tensor<4x1xf16>
func.func @sum_keep(%x: tensor<4x8xf16>) -> tensor<4x1xf16> {
  %0 = dist.reduce_sum %x axes = [1] {keep_dims} : (tensor<4x8xf16>) -> tensor<4x1xf16>
  return %0 : tensor<4x1xf16>
}

// -----

// A transposed operand is an indexing map, not a copy.
// CHECK-DAG: #[[A:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
// CHECK-DAG: #[[BT:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>
// CHECK-LABEL: func.func @matmul_transposed
// CHECK: linalg.batch_matmul indexing_maps = [#[[A]], #[[BT]], #{{.*}}]
func.func @matmul_transposed(%q: tensor<2x64x32xf32>, %k: tensor<2x64x32xf32>) -> tensor<2x64x64xf32> {
  %0 = dist.matmul %q, %k {transpose_rhs} : (tensor<2x64x32xf32>, tensor<2x64x32xf32>) -> tensor<2x64x64xf32>
  return %0 : tensor<2x64x64xf32>
}

// -----

// Activations times a 2-D weight: one matmul over all rows.
// CHECK-LABEL: func.func @linear
// CHECK: tensor.collapse_shape {{.*}} into tensor<16x32xf32>
// CHECK: linalg.matmul ins({{.*}} : tensor<16x32xf32>, tensor<32x16xf32>)
// CHECK: tensor.expand_shape {{.*}} into tensor<2x8x16xf32>
func.func @linear(%x: tensor<2x8x32xf32>, %w: tensor<32x16xf32>) -> tensor<2x8x16xf32> {
  %0 = dist.matmul %x, %w : (tensor<2x8x32xf32>, tensor<32x16xf32>) -> tensor<2x8x16xf32>
  return %0 : tensor<2x8x16xf32>
}

// -----

// Gather checks its index at run time and names the op's location.
// CHECK-LABEL: func.func @gather
// CHECK: cf.assert %{{.*}}, "dist.gather: index out of range [-10, 10) at loc(
// CHECK: tensor.extract
func.func @gather(%t: tensor<10x4xf32>, %i: tensor<3xi64>) -> tensor<3x4xf32> {
  %0 = dist.gather %t[%i] axis = 0 : (tensor<10x4xf32>, tensor<3xi64>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

// An empty split piece at the end is a tensor.empty (a slice starting past
// the last row would not verify); concat skips empty operands.
// CHECK-LABEL: func.func @split_empty_piece
// CHECK: %[[A:.*]] = tensor.extract_slice %arg0[0, 0] [4, 3] [1, 1]
// CHECK: %[[B:.*]] = tensor.empty() : tensor<0x3xf32>
// CHECK: tensor.insert_slice %[[A]]
// CHECK-NOT: tensor.insert_slice
func.func @split_empty_piece(%x: tensor<4x3xf32>) -> (tensor<0x3xf32>, tensor<4x3xf32>) {
  %a, %b = dist.split %x axis = 0 : (tensor<4x3xf32>) -> (tensor<4x3xf32>, tensor<0x3xf32>)
  %c = dist.concat %b, %a axis = 0 : (tensor<0x3xf32>, tensor<4x3xf32>) -> tensor<4x3xf32>
  return %b, %c : tensor<0x3xf32>, tensor<4x3xf32>
}
