// RUN: dist-opt %s --split-input-file --verify-diagnostics --dist-host-memory-to-gpu | FileCheck %s

// A contiguous copy becomes mgpuMemcpy on the compute stream (null); a
// constant is copied to a device buffer at its use and freed at the return.
// CHECK: func.func private @mgpuMemcpy(!llvm.ptr, !llvm.ptr, i64, !llvm.ptr)
// CHECK-LABEL: func.func @copies
// CHECK: %[[DEV:.*]] = memref.alloc() {alignment = 64 : i64} : memref<4xf32>
// CHECK: %[[HOST:.*]] = memref.get_global @table : memref<4xf32>
// CHECK: %[[BYTES:.*]] = arith.constant 16 : i64
// CHECK: %[[NULL:.*]] = llvm.mlir.zero : !llvm.ptr
// CHECK: call @mgpuMemcpy(%{{.*}}, %{{.*}}, %[[BYTES]], %[[NULL]])
// CHECK: %[[BYTES2:.*]] = arith.constant 32 : i64
// CHECK: call @mgpuMemcpy(%{{.*}}, %{{.*}}, %[[BYTES2]],
// CHECK-NOT: memref.copy
// CHECK: memref.dealloc %[[DEV]]
// CHECK-NEXT: return
memref.global "private" constant @table : memref<4xf32> = dense<[1.0, 2.0, 3.0, 4.0]>
func.func @copies(%a: memref<8xf32>, %b: memref<8xf32>) -> memref<4xf32> {
  %t = memref.get_global @table : memref<4xf32>
  memref.copy %a, %b : memref<8xf32> to memref<8xf32>
  return %t : memref<4xf32>
}

// -----

// A boolean constant (the causal mask of attention) takes a byte an
// element in memory: 64 x 64 of them are 4096 bytes to copy, not 512 (the
// first GPU run of gpt2-tiny masked only the first 8 rows with 512).
// CHECK-LABEL: func.func @booleans
// CHECK: %[[BYTES:.*]] = arith.constant 4096 : i64
// CHECK: call @mgpuMemcpy(%{{.*}}, %{{.*}}, %[[BYTES]],
memref.global "private" constant @causal : memref<64x64xi1> = dense<true>
func.func @booleans() -> memref<64x64xi1> {
  %t = memref.get_global @causal : memref<64x64xi1>
  return %t : memref<64x64xi1>
}

// -----

func.func @host_read(%a: memref<8xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'memref.load' reads or writes a device buffer on the host}}
  %x = memref.load %a[%c0] : memref<8xf32>
  return %x : f32
}

// -----

func.func @host_stack() {
  // expected-error @+1 {{a stack buffer on the host cannot be read by GPU kernels}}
  %a = memref.alloca() : memref<8xf32>
  return
}

// -----

// Kernels may read and write: nothing to do inside a launch.
// CHECK-LABEL: func.func @in_kernel
// CHECK: gpu.launch
// CHECK: memref.load
// CHECK-NOT: mgpuMemcpy
func.func @in_kernel(%a: memref<8xf32>) {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %x = memref.load %a[%tx] : memref<8xf32>
    memref.store %x, %a[%tx] : memref<8xf32>
    gpu.terminator
  }
  return
}


// -----

// Top-k selection is a host call: refused on device buffers.
func.func private @distrt_sparsify_top_k(!llvm.ptr, i64, i64, i64, !llvm.ptr, !llvm.ptr, !llvm.ptr)
func.func @top_k(%p: !llvm.ptr, %n: i64) {
  // expected-error @+1 {{top-k selection (dist.sparsify_top_k, --grad-compression=topk:F) runs on the host, which cannot read device buffers}}
  call @distrt_sparsify_top_k(%p, %n, %n, %n, %p, %p, %p) : (!llvm.ptr, i64, i64, i64, !llvm.ptr, !llvm.ptr, !llvm.ptr) -> ()
  return
}
