// RUN: dist-opt %s --dist-lower-to-llvm | FileCheck %s

// A per-rank program over a mesh of 2: x (4x6 whole) is split along
// dimension 0, so this rank's buffer is 2x6, and the descriptor says so
// (sizes 2, 6; strides 6, 1) while the interface names the whole shape; w
// (6 whole) is strided, 3 groups over the axis: a 3-element buffer.
// CHECK: @dist_model_interface("{{.*}}\22name\22:\22x\22,\22role\22:\22input\22,\22shape\22:[4,6],\22split\22:[{\22axes\22:[0],\22dim\22:0}]}
// CHECK-LABEL: llvm.func @dist_model_forward
// CHECK: llvm.mlir.constant(6 : i64)
// CHECK-NEXT: llvm.insertvalue %{{.*}}[3, 1]
// CHECK-NEXT: llvm.mlir.constant(1 : i64)
// CHECK-NEXT: llvm.insertvalue %{{.*}}[4, 1]
// CHECK-NEXT: llvm.mlir.constant(2 : i64)
// CHECK-NEXT: llvm.insertvalue %{{.*}}[3, 0]
// CHECK-NEXT: llvm.mlir.constant(6 : i64)
// CHECK-NEXT: llvm.insertvalue %{{.*}}[4, 0]
// CHECK: llvm.mlir.constant(3 : i64)
// CHECK-NEXT: llvm.insertvalue %{{.*}}[3, 0]
module {
  dist.mesh @mesh shape = 2
  dist.parameter @w : tensor<6xf32>
  func.func @forward(%x: tensor<2x6xf32> {dist.input_name = "x", dist.sharding = #dist.sharding<[0, -]>},
                     %w: tensor<3xf32> {dist.parameter = @w, dist.sharding = #dist.sharding<[0/3]>})
      -> (tensor<2x6xf32> {dist.output_name = "y", dist.sharding = #dist.sharding<[0, -]>})
      attributes {dist.partitioned} {
    return %x : tensor<2x6xf32>
  }
}
