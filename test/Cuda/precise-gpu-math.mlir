// RUN: dist-opt %s --pass-pipeline='builtin.module(gpu.module(dist-precise-gpu-math))' | FileCheck %s
// RUN: dist-opt %s --pass-pipeline='builtin.module(gpu.module(dist-precise-gpu-math,convert-gpu-to-nvvm))' | FileCheck %s --check-prefix=NVVM

// Square roots in kernels are the correctly rounded sqrt.rn (libdevice's
// __nv_sqrtf is sqrt.approx under LLVM 22's NVVMReflect), and rsqrt is 1
// over it, as on the CPU.
// CHECK-LABEL: gpu.func @roots
// CHECK: llvm.call_intrinsic "llvm.nvvm.sqrt.rn.f"(%{{.*}}) : (f32) -> f32
// CHECK: %[[R:.*]] = llvm.call_intrinsic "llvm.nvvm.sqrt.rn.f"(%{{.*}}) : (f32) -> f32
// CHECK: arith.divf %{{.*}}, %[[R]] : f32
// CHECK: llvm.call_intrinsic "llvm.nvvm.sqrt.rn.d"(%{{.*}}) : (f64) -> f64
// CHECK-NOT: math.sqrt
// CHECK-NOT: math.rsqrt
// NVVM-NOT: __nv_sqrt
// NVVM-NOT: __nv_rsqrt
gpu.module @kernels {
  gpu.func @roots(%x: f32, %y: f64, %out: memref<3xf32>, %out64: memref<1xf64>) kernel {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %s = math.sqrt %x : f32
    %r = math.rsqrt %x : f32
    %d = math.sqrt %y : f64
    memref.store %s, %out[%c0] : memref<3xf32>
    memref.store %r, %out[%c1] : memref<3xf32>
    memref.store %d, %out64[%c0] : memref<1xf64>
    gpu.return
  }
}
