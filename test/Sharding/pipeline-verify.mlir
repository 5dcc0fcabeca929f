// RUN: dist-opt %s --split-input-file --verify-diagnostics --dist-pipeline-verify | FileCheck %s

// Buffered sends: both stages send first, then receive: fine (1F1B's
// neighbours do this). Received out of order: fine too (tags match).
// CHECK-LABEL: func.func @ok0
module attributes {dist.pipeline = {axis = 0 : i64, functions = [@ok0, @ok1]}} {
  dist.mesh @mesh shape = 2
  func.func @ok0(%x: tensor<4xf32>) -> tensor<4xf32> {
    dist.send %x to 1 axis = 0 tag = 0 : tensor<4xf32>
    dist.send %x to 1 axis = 0 tag = 2 : tensor<4xf32>
    %0 = dist.recv from 1 axis = 0 tag = 1 : tensor<4xf32>
    return %0 : tensor<4xf32>
  }
  func.func @ok1(%x: tensor<4xf32>) -> tensor<4xf32> {
    dist.send %x to 0 axis = 0 tag = 1 : tensor<4xf32>
    %0 = dist.recv from 0 axis = 0 tag = 2 : tensor<4xf32>
    %1 = dist.recv from 0 axis = 0 tag = 0 : tensor<4xf32>
    return %1 : tensor<4xf32>
  }
}

// -----

// Each stage waits for what the other sends only after its own receive.
module attributes {dist.pipeline = {axis = 0 : i64, functions = [@a, @b]}} {
  dist.mesh @mesh shape = 2
  func.func @a(%x: tensor<4xf32>) -> tensor<4xf32> {
    // expected-error @+1 {{the pipeline schedule deadlocks: stage 0 waits forever for tag 1 from stage 1 (mesh axis 0)}}
    %0 = dist.recv from 1 axis = 0 tag = 1 : tensor<4xf32>
    dist.send %x to 1 axis = 0 tag = 0 : tensor<4xf32>
    return %0 : tensor<4xf32>
  }
  func.func @b(%x: tensor<4xf32>) -> tensor<4xf32> {
    // expected-error @+1 {{the pipeline schedule deadlocks: stage 1 waits forever for tag 0 from stage 0 (mesh axis 0)}}
    %0 = dist.recv from 0 axis = 0 tag = 0 : tensor<4xf32>
    dist.send %x to 0 axis = 0 tag = 1 : tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}

// -----

// A receive whose type differs from its send's.
module attributes {dist.pipeline = {axis = 0 : i64, functions = [@c, @d]}} {
  dist.mesh @mesh shape = 2
  func.func @c(%x: tensor<4xf32>) {
    dist.send %x to 1 axis = 0 tag = 3 : tensor<4xf32>
    return
  }
  func.func @d() -> tensor<8xf32> {
    // expected-error @+1 {{pipeline tag 3 is sent by stage 0 to stage 1 as 'tensor<4xf32>', received by stage 1 from stage 0}}
    %0 = dist.recv from 0 axis = 0 tag = 3 : tensor<8xf32>
    return %0 : tensor<8xf32>
  }
}

// -----

// A send nobody receives.
module attributes {dist.pipeline = {axis = 0 : i64, functions = [@e, @f]}} {
  dist.mesh @mesh shape = 2
  // expected-error @+1 {{pipeline tag 4 sent by stage 0 is received 0 times}}
  func.func @e(%x: tensor<4xf32>) {
    dist.send %x to 1 axis = 0 tag = 4 : tensor<4xf32>
    return
  }
  func.func @f() {
    return
  }
}
