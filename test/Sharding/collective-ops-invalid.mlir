// RUN: dist-opt %s --split-input-file --verify-diagnostics

func.func @no_mesh(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{needs a device mesh: no enclosing module has a dist.mesh op}}
  %0 = dist.all_reduce sum, %x axes = [0] : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

module {
  dist.mesh @mesh shape = 2
  func.func @bad_axis(%x: tensor<4xf32>) -> tensor<4xf32> {
    // expected-error @+1 {{axis 1 is not an axis of the mesh (it has 1)}}
    %0 = dist.all_reduce sum, %x axes = [1] : tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}

// -----

module {
  dist.mesh @mesh shape = 2x2
  func.func @unsorted(%x: tensor<4xf32>) -> tensor<4xf32> {
    // expected-error @+1 {{axes must be strictly increasing}}
    %0 = dist.all_reduce sum, %x axes = [1, 0] : tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}

// -----

module {
  dist.mesh @mesh shape = 2
  func.func @mean_int(%x: tensor<4xi64>) -> tensor<4xi64> {
    // expected-error @+1 {{mean needs a float tensor}}
    %0 = dist.all_reduce mean, %x axes = [0] : tensor<4xi64>
    return %0 : tensor<4xi64>
  }
}

// -----

module {
  dist.mesh @mesh shape = 4
  func.func @gather_type(%x: tensor<4xf32>) -> tensor<8xf32> {
    // expected-error @+1 {{result type 'tensor<8xf32>' should be 'tensor<16xf32>' for a group of 4}}
    %0 = dist.all_gather %x dim = 0 axes = [0] : (tensor<4xf32>) -> tensor<8xf32>
    return %0 : tensor<8xf32>
  }
}

// -----

module {
  dist.mesh @mesh shape = 4
  func.func @uneven(%x: tensor<6xf32>) -> tensor<1xf32> {
    // expected-error @+1 {{dimension 0 of size 6 does not split into 4 equal blocks}}
    %0 = dist.shard_slice %x dim = 0 axes = [0] : (tensor<6xf32>) -> tensor<1xf32>
    return %0 : tensor<1xf32>
  }
}

// -----

module {
  dist.mesh @mesh shape = 4
  func.func @dim_range(%x: tensor<8xf32>) -> tensor<2xf32> {
    // expected-error @+1 {{dimension 1 is out of range for rank 1}}
    %0 = dist.reduce_scatter sum, %x dim = 1 axes = [0] : (tensor<8xf32>) -> tensor<2xf32>
    return %0 : tensor<2xf32>
  }
}

// -----

module {
  dist.mesh @mesh shape = 4
  // expected-error @+1 {{the sharding of argument #0 splits dimension 0 of size 6 over mesh axis 0 of size 4, which does not divide it}}
  func.func @arg_uneven(%x: tensor<6xf32> {dist.sharding = #dist.sharding<[0]>}) {
    return
  }
}

// -----

// A strided split ([0]/3: axis 0 in 3 groups) needs each group to divide.
module {
  dist.mesh @mesh shape = 2
  // expected-error @+1 {{the sharding of argument #0 splits dimension 0 of size 9 over mesh axis 0 of size 2 in 3 groups, which does not divide it}}
  func.func @strided_uneven(%x: tensor<9xf32> {dist.sharding = #dist.sharding<[0/3]>}) {
    return
  }
}

// -----

module {
  dist.mesh @mesh shape = 2
  // expected-error @+1 {{the sharding of argument #0 splits dimension 0 over axis 1, but the mesh has 1 axes}}
  func.func @strided_axis(%x: tensor<12xf32> {dist.sharding = #dist.sharding<[1/3]>}) {
    return
  }
}

// -----

module {
  dist.mesh @mesh shape = 2
  // expected-error @+1 {{#dist.sharding splits dimension 0 in 0 groups: expected at least 1, and more than 1 only for a dimension split over mesh axes}}
  func.func @no_groups(%x: tensor<12xf32> {dist.sharding = #dist.sharding<[0/0]>}) {
    return
  }
}

// -----

module {
  dist.mesh @mesh shape = 2x2
  // expected-error @+1 {{#dist.sharding uses mesh axis 1 twice}}
  func.func @axis_twice(%x: tensor<4x4xf32> {dist.sharding = #dist.sharding<[1, 1]>}) {
    return
  }
}

// -----

// expected-error @+1 {{'dist.sharding' of argument #0 needs a device mesh: the module has no dist.mesh op}}
func.func @arg_no_mesh(%x: tensor<4xf32> {dist.sharding = #dist.sharding<[0]>}) {
  return
}

// -----

module {
  dist.mesh @mesh shape = 2
  func.func @bucket_size(%x: tensor<4xf32>) -> tensor<4xf32> {
    // expected-error @+1 {{bucket type 'tensor<5xf32>' should be 1-D with the inputs' 4 elements}}
    %b, %q = dist.all_reduce_start sum, %x axes = [0] : (tensor<4xf32>) -> (tensor<5xf32>, i64)
    %r = dist.wait %q, %b : tensor<5xf32> -> tensor<4xf32>
    return %r : tensor<4xf32>
  }
}

// -----

module {
  dist.mesh @mesh shape = 2
  func.func @two_uses(%x: tensor<4xf32>) -> tensor<4xf32> {
    // expected-error @+1 {{bucket must have exactly one use, a dist.wait}}
    %b, %q = dist.all_reduce_start sum, %x axes = [0] : (tensor<4xf32>) -> (tensor<4xf32>, i64)
    %r = dist.wait %q, %b : tensor<4xf32> -> tensor<4xf32>
    %s = dist.add %b, %r : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    return %s : tensor<4xf32>
  }
}

// -----

module {
  dist.mesh @mesh shape = 2
  func.func @crossed_requests(%x: tensor<4xf32>, %y: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
    // expected-error @+1 {{request must have exactly one use, the dist.wait of the bucket}}
    %b0, %q0 = dist.all_reduce_start sum, %x axes = [0] : (tensor<4xf32>) -> (tensor<4xf32>, i64)
    %b1, %q1 = dist.all_reduce_start sum, %y axes = [0] : (tensor<4xf32>) -> (tensor<4xf32>, i64)
    %r0 = dist.wait %q1, %b0 : tensor<4xf32> -> tensor<4xf32>
    %r1 = dist.wait %q0, %b1 : tensor<4xf32> -> tensor<4xf32>
    return %r0, %r1 : tensor<4xf32>, tensor<4xf32>
  }
}

// -----

func.func @no_start(%x: tensor<4xf32>) -> tensor<4xf32> {
  %q = arith.constant 0 : i64
  // expected-error @+1 {{waits for a bucket no dist.all_reduce_start made}}
  %r = dist.wait %q, %x : tensor<4xf32> -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// Several axes on one dimension: the ranks of both divide it.
module {
  dist.mesh @mesh shape = 2x3
  // expected-error @+1 {{the sharding of argument #0 splits dimension 0 of size 4 over mesh axes 0, 1 of sizes 6, which does not divide it}}
  func.func @two_axes_uneven(%x: tensor<4xf32> {dist.sharding = #dist.sharding<[(0, 1)]>}) {
    return
  }
}

// -----

module {
  dist.mesh @mesh shape = 2
  // expected-error @+1 {{the sharding of argument #0 is partial over axis 1, but the mesh has 1 axes}}
  func.func @partial_axis(%x: tensor<4xf32> {dist.sharding = #dist.sharding<[-], partial = [1]>}) {
    return
  }
}

// -----

module {
  dist.mesh @mesh shape = 2
  // expected-error @+1 {{#dist.sharding uses mesh axis 0 twice}}
  func.func @partial_and_split(%x: tensor<4xf32> {dist.sharding = #dist.sharding<[0], partial = [0]>}) {
    return
  }
}

// -----

// expected-error @+1 {{the device mesh is a 'dist.mesh @mesh shape = ...' op in the module, not an attribute}}
module attributes {dist.mesh = array<i64: 2>} {
}

// -----

module {
  dist.mesh @mesh shape = 2
  // expected-error @+1 {{'dist.mesh' op is a second mesh; a module has at most one}}
  dist.mesh @other shape = 4
}

// -----

module {
  // expected-error @+1 {{'dist.mesh' op axis 1 has size 0; every axis needs at least 1 device}}
  dist.mesh @mesh shape = 2x0
}

// -----

// expected-error @+1 {{unknown dist attribute 'dist.typo'}}
func.func @typo() attributes {dist.typo} {
  return
}

// -----

// expected-error @+1 {{'dist.optimizer_state' of argument #0 must be a #dist.optimizer_state<@parameter, "slot">}}
func.func @state(%m: tensor<4xf32> {dist.optimizer_state = "w.m"}) {
  return
}

// -----

module {
  dist.mesh @mesh shape = 2x4
  func.func @send_peer(%x: tensor<4xf32>) {
    // expected-error @+1 {{peer 2 is not a coordinate of mesh axis 0 (size 2)}}
    dist.send %x to 2 axis = 0 tag = 0 : tensor<4xf32>
    return
  }
}

// -----

module {
  dist.mesh @mesh shape = 2
  func.func @recv_axis() -> tensor<4xf32> {
    // expected-error @+1 {{axis 1 is not an axis of the mesh (it has 1)}}
    %0 = dist.recv from 0 axis = 1 tag = 0 : tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}
