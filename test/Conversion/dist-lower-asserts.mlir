// RUN: dist-opt %s --dist-lower-asserts | FileCheck %s

// CHECK-DAG: func.func private @distrt_fail(!llvm.ptr)
// CHECK-DAG: llvm.mlir.global internal constant @dist_check_0("index out of range\00")
// CHECK-LABEL: func.func @check
// CHECK: %[[BAD:.*]] = arith.xori %arg0, %{{.*}} : i1
// CHECK: scf.if %[[BAD]] {
// CHECK:   %[[M:.*]] = llvm.mlir.addressof @dist_check_0 : !llvm.ptr
// CHECK:   func.call @distrt_fail(%[[M]]) : (!llvm.ptr) -> ()
// CHECK-NOT: cf.assert
func.func @check(%ok: i1) {
  cf.assert %ok, "index out of range"
  return
}
