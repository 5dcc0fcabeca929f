// RUN: dist-opt %s --split-input-file --verify-diagnostics --pass-pipeline='builtin.module(func.func(dist-loops-to-gpu))' | FileCheck %s
// RUN: dist-opt %s --split-input-file --verify-diagnostics --pass-pipeline='builtin.module(func.func(dist-loops-to-gpu{owner-threads=0}))' | FileCheck %s --check-prefix=COLUMNS
// RUN: echo 'func.func @f() { return }' | not dist-opt --pass-pipeline='builtin.module(func.func(dist-loops-to-gpu{owner-threads=-1}))' 2>&1 | FileCheck %s --check-prefix=OWNERS
// OWNERS: owner-threads -1 is not from 0 to 2^24

// An embedding gradient's scatter-add: tokens in order, columns in
// parallel. Every access of the written buffer has the column loop's
// variable last, so the kernel's threads are the columns and each runs
// the token loop in the CPU's order (no atomics, the same sums). With
// owner-threads=0 that is all: 64 threads.
// COLUMNS-LABEL: func.func @scatter_add
// COLUMNS: gpu.launch blocks({{.*}}) in (%{{.*}} = %c1{{[_0-9]*}}, {{.*}}) threads({{.*}}) in (%{{.*}} = %c64{{[_0-9]*}},
// COLUMNS: scf.if
// COLUMNS: %[[J:.*]] = arith.addi %{{.*}}, %{{.*}} : index
// COLUMNS: scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// COLUMNS:   %[[ID:.*]] = memref.load %arg0[%[[I]]]
// COLUMNS:   cf.assert
// COLUMNS-NOT: scf.for
// COLUMNS:   memref.load %arg1[%[[I]], %[[J]]]
// COLUMNS:   memref.load %arg2[%{{.*}}, %[[J]]]
// COLUMNS:   memref.store %{{.*}}, %arg2[%{{.*}}, %[[J]]]
// The written row (%row, from the ids) is the same in every access of
// %acc: by default the threads also split the 512 rows, 512 owners of one
// row x 64 columns = 32768 threads (128 blocks); the owner is the slow
// coordinate, and each thread runs the token loop but adds only into its
// own rows.
// CHECK-LABEL: func.func @scatter_add
// CHECK: gpu.launch blocks({{.*}}) in (%{{.*}} = %c128{{[_0-9]*}}, {{.*}}) threads({{.*}}) in (%{{.*}} = %c256{{[_0-9]*}},
// CHECK: %[[COL:.*]] = arith.remui %[[ID:.*]], %c64
// CHECK: %[[OWNER:.*]] = arith.divui %[[ID]], %c64
// CHECK: %[[LOW:.*]] = arith.muli %[[OWNER]], %[[ROWS:.*]] : index
// CHECK: %[[HIGH:.*]] = arith.addi %[[LOW]], %[[ROWS]] : index
// CHECK: scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK:   memref.load %arg0[%[[I]]]
// CHECK:   cf.assert
// CHECK:   %[[ROW:.*]] = arith.index_cast
// CHECK-DAG: %[[BELOW:.*]] = arith.cmpi slt, %[[ROW]], %[[HIGH]]
// CHECK-DAG: %[[ABOVE:.*]] = arith.cmpi sge, %[[ROW]], %[[LOW]]
// CHECK:   %[[MINE:.*]] = arith.andi %[[ABOVE]], %[[BELOW]]
// CHECK:   scf.if %[[MINE]] {
// CHECK:     memref.load %arg1[%[[I]], %{{.*}}]
// CHECK:     memref.load %arg2[%[[ROW]], %{{.*}}]
// CHECK:     memref.store %{{.*}}, %arg2[%[[ROW]], %{{.*}}]
func.func @scatter_add(%ids: memref<128xi64>, %grad: memref<128x64xf32>, %acc: memref<512x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %c512 = arith.constant 512 : i64
  scf.for %i = %c0 to %c128 step %c1 {
    %id = memref.load %ids[%i] : memref<128xi64>
    %ok = arith.cmpi ult, %id, %c512 : i64
    cf.assert %ok, "index out of range"
    %row = arith.index_cast %id : i64 to index
    scf.for %j = %c0 to %c64 step %c1 {
      %g = memref.load %grad[%i, %j] : memref<128x64xf32>
      %a = memref.load %acc[%row, %j] : memref<512x64xf32>
      %s = arith.addf %a, %g : f32
      memref.store %s, %acc[%row, %j] : memref<512x64xf32>
    }
  }
  return
}

// -----

// Max-pool's backward: the batch and channel loops are parallel (4 x 16
// threads), the window loops run in order. The written position (%p) is
// data-dependent and the same in every access: the 16 rows are split too
// (16 owners x 64 = 1024 threads).
// COLUMNS-LABEL: func.func @pool_backward
// COLUMNS-DAG: %[[THREADS:.*]] = arith.constant 64 : index
// COLUMNS: gpu.launch {{.*}} threads(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %[[THREADS]],
// COLUMNS: arith.remui
// COLUMNS: arith.divui
// COLUMNS: scf.for
// COLUMNS-NOT: scf.for
// COLUMNS: memref.store
// CHECK-LABEL: func.func @pool_backward
// CHECK: gpu.launch blocks({{.*}}) in (%{{.*}} = %c4{{[_0-9]*}}, {{.*}}) threads({{.*}}) in (%{{.*}} = %c256{{[_0-9]*}},
// CHECK: arith.cmpi ult, %{{.*}}, %c1024
// CHECK: scf.for
// CHECK-NOT: scf.for
// CHECK: %[[P:.*]] = memref.load %arg1
// CHECK: arith.cmpi slt, %[[P]]
// CHECK: scf.if
// CHECK: memref.store %{{.*}}, %arg2[%{{.*}}, %{{.*}}, %[[P]], %[[P]]]
func.func @pool_backward(%grad: memref<4x16x8x8xf32>, %pos: memref<4x16x8x8xindex>, %out: memref<4x16x16x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  scf.for %n = %c0 to %c4 step %c1 {
    scf.for %c = %c0 to %c16 step %c1 {
      scf.for %y = %c0 to %c8 step %c1 {
        %p = memref.load %pos[%n, %c, %y, %c0] : memref<4x16x8x8xindex>
        %g = memref.load %grad[%n, %c, %y, %c0] : memref<4x16x8x8xf32>
        %a = memref.load %out[%n, %c, %p, %p] : memref<4x16x16x16xf32>
        %s = arith.addf %a, %g : f32
        memref.store %s, %out[%n, %c, %p, %p] : memref<4x16x16x16xf32>
      }
    }
  }
  return
}

// -----

// Rows are not split (64 threads, one per column) when a check follows the
// row (a row no thread owns would skip it), ...
// CHECK-LABEL: func.func @assert_after_row
// CHECK: gpu.launch blocks({{.*}}) in (%{{.*}} = %c1{{[_0-9]*}}, {{.*}}) threads({{.*}}) in (%{{.*}} = %c64{{[_0-9]*}},
func.func @assert_after_row(%ids: memref<128xindex>, %grad: memref<128x64xf32>, %acc: memref<512x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %c512 = arith.constant 512 : index
  scf.for %i = %c0 to %c128 step %c1 {
    %row = memref.load %ids[%i] : memref<128xindex>
    %ok = arith.cmpi ult, %row, %c512 : index
    cf.assert %ok, "index out of range"
    scf.for %j = %c0 to %c64 step %c1 {
      %g = memref.load %grad[%i, %j] : memref<128x64xf32>
      %a = memref.load %acc[%row, %j] : memref<512x64xf32>
      %s = arith.addf %a, %g : f32
      memref.store %s, %acc[%row, %j] : memref<512x64xf32>
    }
  }
  return
}

// -----

// ... when the written view changes from one token to the next (another
// row of the buffer under the same row index) ...
// CHECK-LABEL: func.func @view_per_token
// CHECK: gpu.launch blocks({{.*}}) in (%{{.*}} = %c1{{[_0-9]*}}, {{.*}}) threads({{.*}}) in (%{{.*}} = %c64{{[_0-9]*}},
func.func @view_per_token(%ids: memref<128xindex>, %grad: memref<128x64xf32>, %acc: memref<640x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  scf.for %i = %c0 to %c128 step %c1 {
    %view = memref.subview %acc[%i, 0] [512, 64] [1, 1] : memref<640x64xf32> to memref<512x64xf32, strided<[64, 1], offset: ?>>
    %row = memref.load %ids[%i] : memref<128xindex>
    scf.for %j = %c0 to %c64 step %c1 {
      %g = memref.load %grad[%i, %j] : memref<128x64xf32>
      %a = memref.load %view[%row, %j] : memref<512x64xf32, strided<[64, 1], offset: ?>>
      %s = arith.addf %a, %g : f32
      memref.store %s, %view[%row, %j] : memref<512x64xf32, strided<[64, 1], offset: ?>>
    }
  }
  return
}

// -----

// ... or when the nest touches memory in another way than element loads
// and stores (here a copy, which every owner would repeat).
// CHECK-LABEL: func.func @other_write
// CHECK: gpu.launch blocks({{.*}}) in (%{{.*}} = %c1{{[_0-9]*}}, {{.*}}) threads({{.*}}) in (%{{.*}} = %c1{{[_0-9]*}},
func.func @other_write(%ids: memref<128xindex>, %grad: memref<128xf32>, %acc: memref<512xf32>, %log: memref<4xf32>, %last: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c128 = arith.constant 128 : index
  scf.for %i = %c0 to %c128 step %c1 {
    memref.copy %log, %last : memref<4xf32> to memref<4xf32>
    %row = memref.load %ids[%i] : memref<128xindex>
    %g = memref.load %grad[%i] : memref<128xf32>
    %a = memref.load %acc[%row] : memref<512xf32>
    %s = arith.addf %a, %g : f32
    memref.store %s, %acc[%row] : memref<512xf32>
  }
  return
}

// -----

// No loop whose iterations touch disjoint elements (a running prefix sum):
// the nest runs in order on one thread.
// COLUMNS-LABEL: func.func @prefix_sum
// CHECK-LABEL: func.func @prefix_sum
// CHECK: gpu.launch blocks({{.*}}) in (%{{.*}} = %c1{{[_0-9]*}}, {{.*}}) threads({{.*}}) in (%{{.*}} = %c1{{[_0-9]*}},
// CHECK: scf.for
func.func @prefix_sum(%a: memref<100xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c100 = arith.constant 100 : index
  scf.for %i = %c1 to %c100 step %c1 {
    %prev = arith.subi %i, %c1 : index
    %x = memref.load %a[%prev] : memref<100xf32>
    %y = memref.load %a[%i] : memref<100xf32>
    %s = arith.addf %x, %y : f32
    memref.store %s, %a[%i] : memref<100xf32>
  }
  return
}

// -----

func.func private @host_function(memref<4xf32>)

func.func @around_call(%a: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  // expected-error @+1 {{a host loop around kernels or runtime calls cannot become one kernel}}
  scf.for %i = %c0 to %c4 step %c1 {
    func.call @host_function(%a) : (memref<4xf32>) -> ()
  }
  return
}
