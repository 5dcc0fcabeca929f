// RUN: dist-opt %s --split-input-file --verify-diagnostics --pass-pipeline='builtin.module(dist-data-parallel{function=step})'

module {
  dist.mesh @mesh shape = 4
  // expected-error @+1 {{data parallelism over 4 ranks needs a batch (dimension 0) of input 'x' that 4 divides, but its type is 'tensor<6x2xf32>'; compile with a global batch that is a multiple of 4}}
  func.func @step(%x: tensor<6x2xf32> {dist.input_name = "x"}) {
    return
  }
}

// -----

// expected-error @+1 {{dist-data-parallel needs a device mesh: run dist-create-mesh first (e.g. --dist-create-mesh=shape=2; dist-compile --mesh)}}
module {
  func.func @step(%x: tensor<6x2xf32>) {
    return
  }
}

// -----

// expected-error @+1 {{dist-data-parallel: no function @step}}
module {
  dist.mesh @mesh shape = 2
}
