// RUN: dist-opt %s --pass-pipeline='builtin.module(func.func(dist-approximate-math))' | FileCheck %s

// f32 exp, log, tanh and erf become inline polynomials (no libm call); f64
// keeps the math op, which lowers to libm.
// CHECK-LABEL: func.func @f32_math
// CHECK-NOT: math.exp
// CHECK-NOT: math.erf
// CHECK-NOT: math.tanh
// CHECK-NOT: math.log
// CHECK: return
func.func @f32_math(%x: f32) -> f32 {
  %0 = math.exp %x : f32
  %1 = math.erf %0 : f32
  %2 = math.tanh %1 : f32
  %3 = math.log %2 : f32
  return %3 : f32
}

// CHECK-LABEL: func.func @f64_math
// CHECK: math.exp
func.func @f64_math(%x: f64) -> f64 {
  %0 = math.exp %x : f64
  return %0 : f64
}
