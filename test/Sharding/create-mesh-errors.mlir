// RUN: not dist-opt %s --dist-create-mesh=shape=2,0 2>&1 | FileCheck %s
// RUN: not dist-opt %s --dist-create-mesh 2>&1 | FileCheck %s
// CHECK: error: dist-create-mesh: the mesh shape is one device count >= 1 per axis, e.g. shape=2,2
module {
}
