// RUN: dist-opt %s --split-input-file --verify-diagnostics --pass-pipeline='builtin.module(func.func(dist-loops-to-gpu))' | FileCheck %s

// An embedding gradient's scatter-add: tokens in order, columns in
// parallel. Every access of the written buffer has the column loop's
// variable last, so the kernel's 64 threads are the columns and each runs
// the token loop in the CPU's order (no atomics, the same sums).
// CHECK-LABEL: func.func @scatter_add
// CHECK: gpu.launch blocks({{.*}}) in (%{{.*}} = %c1{{[_0-9]*}}, {{.*}}) threads({{.*}}) in (%{{.*}} = %c64{{[_0-9]*}},
// CHECK: scf.if
// CHECK: %[[J:.*]] = arith.addi %{{.*}}, %{{.*}} : index
// CHECK: scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK:   %[[ID:.*]] = memref.load %arg0[%[[I]]]
// CHECK:   cf.assert
// CHECK-NOT: scf.for
// CHECK:   memref.load %arg1[%[[I]], %[[J]]]
// CHECK:   memref.load %arg2[%{{.*}}, %[[J]]]
// CHECK:   memref.store %{{.*}}, %arg2[%{{.*}}, %[[J]]]
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
// threads), the window loops run in order.
// CHECK-LABEL: func.func @pool_backward
// CHECK-DAG: %[[THREADS:.*]] = arith.constant 64 : index
// CHECK: gpu.launch {{.*}} threads(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %[[THREADS]],
// CHECK: arith.remui
// CHECK: arith.divui
// CHECK: scf.for
// CHECK-NOT: scf.for
// CHECK: memref.store
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

// No loop whose iterations touch disjoint elements (a running prefix sum):
// the nest runs in order on one thread.
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
