// RUN: dist-opt %s --split-input-file --verify-diagnostics --dist-create-mesh=shape=2,4 | FileCheck %s

// CHECK: module attributes {dist.mesh = array<i64: 2, 4>}
module {
}

// -----

// The same mesh again is fine.
// CHECK: module attributes {dist.mesh = array<i64: 2, 4>}
module attributes {dist.mesh = array<i64: 2, 4>} {
}

// -----

// expected-error @+1 {{dist-create-mesh: the module already has another device mesh (array<i64: 4>)}}
module attributes {dist.mesh = array<i64: 4>} {
}
