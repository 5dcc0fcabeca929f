// RUN: dist-opt %s -dist-dedupe-gpu-kernels | FileCheck %s

// Two identical kernels (the same body under different names, as two
// layers of a model make them) become one; a kernel that differs (its
// constant) stays, and so does a kernel of another gpu.module.
// CHECK-LABEL: gpu.module @dist_kernels
// CHECK: gpu.func @step_k0__h_0_Scale
// CHECK-NOT: gpu.func @step_k1__h_1_Scale
// CHECK: gpu.func @step_k2__h_0_Other
// Device functions that are not kernels keep their names (calls name them).
// CHECK: gpu.func @helper_a
// CHECK: gpu.func @helper_b
// CHECK-LABEL: gpu.module @other
// CHECK: gpu.func @step_k1__h_1_Scale
// CHECK-LABEL: func.func @step
// CHECK: gpu.launch_func @dist_kernels::@step_k0__h_0_Scale
// CHECK: gpu.launch_func @dist_kernels::@step_k0__h_0_Scale
// CHECK: gpu.launch_func @dist_kernels::@step_k2__h_0_Other
// CHECK: gpu.launch_func @other::@step_k1__h_1_Scale
module attributes {gpu.container_module} {
  gpu.module @dist_kernels {
    gpu.func @step_k0__h_0_Scale(%a: memref<16xf32>) kernel {
      %i = gpu.thread_id x
      %v = memref.load %a[%i] : memref<16xf32>
      %c = arith.constant 2.0 : f32
      %m = arith.mulf %v, %c : f32
      memref.store %m, %a[%i] : memref<16xf32>
      gpu.return
    }
    gpu.func @step_k1__h_1_Scale(%b: memref<16xf32>) kernel {
      %i = gpu.thread_id x
      %v = memref.load %b[%i] : memref<16xf32>
      %c = arith.constant 2.0 : f32
      %m = arith.mulf %v, %c : f32
      memref.store %m, %b[%i] : memref<16xf32>
      gpu.return
    }
    gpu.func @step_k2__h_0_Other(%a: memref<16xf32>) kernel {
      %i = gpu.thread_id x
      %v = memref.load %a[%i] : memref<16xf32>
      %c = arith.constant 3.0 : f32
      %m = arith.mulf %v, %c : f32
      memref.store %m, %a[%i] : memref<16xf32>
      gpu.return
    }
    gpu.func @helper_a(%x: f32) -> f32 {
      gpu.return %x : f32
    }
    gpu.func @helper_b(%x: f32) -> f32 {
      gpu.return %x : f32
    }
  }
  gpu.module @other {
    gpu.func @step_k1__h_1_Scale(%b: memref<16xf32>) kernel {
      %i = gpu.thread_id x
      %v = memref.load %b[%i] : memref<16xf32>
      %c = arith.constant 2.0 : f32
      %m = arith.mulf %v, %c : f32
      memref.store %m, %b[%i] : memref<16xf32>
      gpu.return
    }
  }
  func.func @step(%x: memref<16xf32>, %y: memref<16xf32>) {
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    gpu.launch_func @dist_kernels::@step_k0__h_0_Scale blocks in (%c1, %c1, %c1) threads in (%c16, %c1, %c1) args(%x : memref<16xf32>)
    gpu.launch_func @dist_kernels::@step_k1__h_1_Scale blocks in (%c1, %c1, %c1) threads in (%c16, %c1, %c1) args(%y : memref<16xf32>)
    gpu.launch_func @dist_kernels::@step_k2__h_0_Other blocks in (%c1, %c1, %c1) threads in (%c16, %c1, %c1) args(%y : memref<16xf32>)
    gpu.launch_func @other::@step_k1__h_1_Scale blocks in (%c1, %c1, %c1) threads in (%c16, %c1, %c1) args(%y : memref<16xf32>)
    return
  }
}
