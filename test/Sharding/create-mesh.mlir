// RUN: dist-opt %s --split-input-file --verify-diagnostics --dist-create-mesh=shape=2,4 | FileCheck %s

// CHECK: dist.mesh @mesh shape = 2x4
module {
}

// -----

// The same mesh again is fine.
// CHECK: dist.mesh @mesh shape = 2x4
module {
  dist.mesh @mesh shape = 2x4
}

// -----

// expected-error @+1 {{dist-create-mesh: the module already has another device mesh}}
module {
  // expected-note @+1 {{the mesh is defined here}}
  dist.mesh @mesh shape = 4
}

// -----

// A parameter already named @mesh: the mesh takes another name.
// CHECK: dist.mesh @mesh_{{[0-9]+}} shape = 2x4
// CHECK-NEXT: dist.parameter @mesh
module {
  dist.parameter @mesh : tensor<2xf32>
}
