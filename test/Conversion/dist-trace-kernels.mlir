// RUN: dist-opt %s --pass-pipeline='builtin.module(dist-trace-kernels)' | FileCheck %s

// Each kernel call is wrapped: begin before, end after with the span's
// name, "/mlp/Gelu (f_kernel_0)", a constant NUL-terminated string.
// CHECK-DAG: memref.global "private" constant @__dist_span_0 : memref<23xi8> = dense<[47, 109, 108, 112, 47, 71, 101, 108, 117, 32, 40, 102, 95, 107, 101, 114, 110, 101, 108, 95, 48, 41, 0]>
// CHECK-DAG: func.func private @distrt_trace_kernel_begin() -> i64
// CHECK-DAG: func.func private @distrt_trace_kernel_end(i64, !llvm.ptr)
// CHECK-LABEL: func.func @f
// CHECK: %[[T:.*]] = call @distrt_trace_kernel_begin() : () -> i64
// CHECK-NEXT: call @f_kernel_0(%arg0) {no_inline}
// CHECK: memref.get_global @__dist_span_0
// CHECK: call @distrt_trace_kernel_end(%[[T]], %{{.*}}) : (i64, !llvm.ptr) -> ()
// Other calls are left alone.
// CHECK: call @helper(%arg0) : (memref<4xf32>) -> ()
// CHECK-NOT: distrt_trace_kernel
// CHECK: return
func.func private @f_kernel_0(%a: memref<4xf32>) {
  return
}
func.func private @helper(%a: memref<4xf32>) {
  return
}
func.func @f(%a: memref<4xf32>) {
  func.call @f_kernel_0(%a) {no_inline} : (memref<4xf32>) -> () loc("/mlp/Gelu")
  func.call @helper(%a) : (memref<4xf32>) -> ()
  return
}
