// RUN: dist-opt %s --symbol-privatize --symbol-dce | FileCheck %s

// Nothing names the mesh, yet it is not dead: symbol-dce (which the
// training-step pipeline runs) keeps it.
// CHECK: dist.mesh @mesh shape = 2
// CHECK-NOT: @unused
module {
  dist.mesh @mesh shape = 2
  dist.parameter @unused : tensor<2xf32>
}
