// RUN: dist-opt %s --split-input-file --verify-diagnostics --pass-pipeline='builtin.module(func.func(dist-gpu-launch-to-loops))' | FileCheck %s

// Two block reductions in two stages, a read before them and a write after
// (what dist-row-kernels makes): each stage folds every thread's value in
// thread order with the earlier stage's total; then every thread's `%old`
// (read before the reductions) is kept in a buffer before any thread
// stores, as the reductions' barriers order it on the GPU.
// CHECK-LABEL: func.func @staged
// CHECK: %[[KEPT:.*]] = memref.alloc() : memref<64xf32>
// CHECK: scf.for %[[B:.*]] = %{{.*}} to %{{.*}} step
// CHECK: %[[FIRST:.*]] = memref.load %arg0[%[[B]], %{{.*}}]
// CHECK: %[[MAX:.*]] = scf.for %{{.*}} = %c1{{.*}} to %c64{{.*}} step %{{.*}} iter_args(%[[ACC:.*]] = %[[FIRST]])
// CHECK: arith.maximumf %[[ACC]]
// CHECK: %[[SUM:.*]] = scf.for {{.*}} iter_args
// CHECK: arith.subf %{{.*}}, %[[MAX]]
// CHECK: arith.addf
// CHECK: scf.for %[[T:.*]] = %c0{{.*}} to %c64
// CHECK: %[[OLD:.*]] = memref.load %arg1[%[[B]]]
// CHECK-NOT: memref.store %{{.*}}, %arg1
// CHECK: memref.store %[[OLD]], %[[KEPT]][%[[T]]]
// CHECK: scf.for %[[T2:.*]] = %c0{{.*}} to %c64
// CHECK-NOT: memref.load %arg1
// CHECK: %[[KEPTOLD:.*]] = memref.load %[[KEPT]][%[[T2]]]
// CHECK: %[[Y:.*]] = arith.addf %[[SUM]], %[[KEPTOLD]]
// CHECK: memref.store %[[Y]], %arg1[%[[B]]]
// CHECK: memref.dealloc %[[KEPT]]
func.func @staged(%x: memref<2x64xf32>, %r: memref<2xf32>) {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  gpu.launch blocks(%b, %by, %bz) in (%gx = %c2, %gy = %c1, %gz = %c1) threads(%t, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1) {
    %old = memref.load %r[%b] : memref<2xf32>
    %v = memref.load %x[%b, %t] : memref<2x64xf32>
    %m = gpu.all_reduce maximumf %v uniform {} : (f32) -> f32
    %d = arith.subf %v, %m : f32
    %s = gpu.all_reduce add %d uniform {} : (f32) -> f32
    %y = arith.addf %s, %old : f32
    memref.store %y, %r[%b] : memref<2xf32>
    gpu.terminator
  }
  return
}

// -----

func.func @write_before_reduction(%x: memref<64xf32>) {
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  gpu.launch blocks(%b, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%t, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1) {
    %v = memref.load %x[%t] : memref<64xf32>
    // expected-error @below {{a kernel that writes memory before a block reduction is not emulated}}
    memref.store %v, %x[%t] : memref<64xf32>
    %s = gpu.all_reduce add %v uniform {} : (f32) -> f32
    gpu.terminator
  }
  return
}

// -----

func.func @two_barriers(%x: memref<64xf32>) {
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  // expected-error @below {{barriers (but one in a kernel without block reductions), shuffles and nested block reductions are not emulated}}
  gpu.launch blocks(%b, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%t, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1) {
    gpu.barrier
    gpu.barrier
    gpu.terminator
  }
  return
}

// -----

func.func @barrier_and_reduction(%x: memref<64xf32>) {
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  // expected-error @below {{barriers (but one in a kernel without block reductions), shuffles and nested block reductions are not emulated}}
  gpu.launch blocks(%b, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%t, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1) {
    %v = memref.load %x[%t] : memref<64xf32>
    %s = gpu.all_reduce add %v uniform {} : (f32) -> f32
    gpu.barrier
    gpu.terminator
  }
  return
}

// -----

// Shared memory and one barrier (dist-linalg-to-gpu's tiled transposes):
// the workgroup buffer is a host buffer; every thread of a block runs what
// precedes the barrier (its store into shared memory), keeping the values
// the rest uses, before any thread runs the rest (a read of what another
// thread stored).
// CHECK-LABEL: func.func @shared
// CHECK: %[[SHARED:.*]] = memref.alloc() : memref<64xf32>
// CHECK: %[[KEPT:.*]] = memref.alloc() : memref<64xindex>
// CHECK: scf.for %[[B:.*]] = %c0{{.*}} to %c2
// CHECK: scf.for %[[T:.*]] = %c0{{.*}} to %c64
// CHECK:   %[[V:.*]] = memref.load %arg0[%[[B]], %[[T]]]
// CHECK:   memref.store %[[V]], %[[SHARED]][%[[T]]]
// CHECK:   memref.store %{{.*}}, %[[KEPT]][%[[T]]]
// CHECK: scf.for %[[T2:.*]] = %c0{{.*}} to %c64
// CHECK:   %[[J:.*]] = memref.load %[[KEPT]][%[[T2]]]
// CHECK:   %[[W:.*]] = memref.load %[[SHARED]][%[[J]]]
// CHECK:   memref.store %[[W]], %arg1[%[[B]], %[[T2]]]
// CHECK-DAG: memref.dealloc %[[KEPT]]
// CHECK-DAG: memref.dealloc %[[SHARED]]
func.func @shared(%x: memref<2x64xf32>, %y: memref<2x64xf32>) {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c63 = arith.constant 63 : index
  %c64 = arith.constant 64 : index
  gpu.launch blocks(%b, %by, %bz) in (%gx = %c2, %gy = %c1, %gz = %c1) threads(%t, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1) workgroup(%tile : memref<64xf32, #gpu.address_space<workgroup>>) {
    %v = memref.load %x[%b, %t] : memref<2x64xf32>
    memref.store %v, %tile[%t] : memref<64xf32, #gpu.address_space<workgroup>>
    %j = arith.subi %c63, %t : index
    gpu.barrier
    %w = memref.load %tile[%j] : memref<64xf32, #gpu.address_space<workgroup>>
    memref.store %w, %y[%b, %t] : memref<2x64xf32>
    gpu.terminator
  }
  return
}
