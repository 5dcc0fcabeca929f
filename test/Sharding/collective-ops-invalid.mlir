// RUN: dist-opt %s --split-input-file --verify-diagnostics

func.func @no_mesh(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{needs a device mesh: no enclosing module has a 'dist.mesh' attribute}}
  %0 = dist.all_reduce sum, %x axes = [0] : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

module attributes {dist.mesh = array<i64: 2>} {
  func.func @bad_axis(%x: tensor<4xf32>) -> tensor<4xf32> {
    // expected-error @+1 {{axis 1 is not an axis of the mesh (it has 1)}}
    %0 = dist.all_reduce sum, %x axes = [1] : tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}

// -----

module attributes {dist.mesh = array<i64: 2, 2>} {
  func.func @unsorted(%x: tensor<4xf32>) -> tensor<4xf32> {
    // expected-error @+1 {{axes must be strictly increasing}}
    %0 = dist.all_reduce sum, %x axes = [1, 0] : tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}

// -----

module attributes {dist.mesh = array<i64: 2>} {
  func.func @mean_int(%x: tensor<4xi64>) -> tensor<4xi64> {
    // expected-error @+1 {{mean needs a float tensor}}
    %0 = dist.all_reduce mean, %x axes = [0] : tensor<4xi64>
    return %0 : tensor<4xi64>
  }
}

// -----

module attributes {dist.mesh = array<i64: 4>} {
  func.func @gather_type(%x: tensor<4xf32>) -> tensor<8xf32> {
    // expected-error @+1 {{result type 'tensor<8xf32>' should be 'tensor<16xf32>' for a group of 4}}
    %0 = dist.all_gather %x dim = 0 axes = [0] : (tensor<4xf32>) -> tensor<8xf32>
    return %0 : tensor<8xf32>
  }
}

// -----

module attributes {dist.mesh = array<i64: 4>} {
  func.func @uneven(%x: tensor<6xf32>) -> tensor<1xf32> {
    // expected-error @+1 {{dimension 0 of size 6 does not split into 4 equal blocks}}
    %0 = dist.shard_slice %x dim = 0 axes = [0] : (tensor<6xf32>) -> tensor<1xf32>
    return %0 : tensor<1xf32>
  }
}

// -----

module attributes {dist.mesh = array<i64: 4>} {
  func.func @dim_range(%x: tensor<8xf32>) -> tensor<2xf32> {
    // expected-error @+1 {{dimension 1 is out of range for rank 1}}
    %0 = dist.reduce_scatter sum, %x dim = 1 axes = [0] : (tensor<8xf32>) -> tensor<2xf32>
    return %0 : tensor<2xf32>
  }
}

// -----

module attributes {dist.mesh = array<i64: 4>} {
  // expected-error @+1 {{the sharding of argument #0 splits dimension 0 of size 6 over mesh axis 0 of size 4, which does not divide it}}
  func.func @arg_uneven(%x: tensor<6xf32> {dist.sharding = array<i64: 0>}) {
    return
  }
}

// -----

// A strided split (300: axis 0 in 3 groups) needs each group to divide.
module attributes {dist.mesh = array<i64: 2>} {
  // expected-error @+1 {{the sharding of argument #0 splits dimension 0 of size 9 over mesh axis 0 of size 2 in 3 groups, which does not divide it}}
  func.func @strided_uneven(%x: tensor<9xf32> {dist.sharding = array<i64: 300>}) {
    return
  }
}

// -----

module attributes {dist.mesh = array<i64: 2>} {
  // expected-error @+1 {{the sharding of argument #0 splits dimension 0 over axis 1, but the mesh has 1 axes}}
  func.func @strided_axis(%x: tensor<12xf32> {dist.sharding = array<i64: 301>}) {
    return
  }
}

// -----

// 100 would be axis 0 "in 1 group": a block split is spelled 0.
module attributes {dist.mesh = array<i64: 2>} {
  // expected-error @+1 {{the sharding of argument #0 has entry 100 for dimension 0: expected -1, a mesh axis, or groups * 100 + axis with at least 2 groups}}
  func.func @one_group(%x: tensor<12xf32> {dist.sharding = array<i64: 100>}) {
    return
  }
}

// -----

module attributes {dist.mesh = array<i64: 2, 2>} {
  // expected-error @+1 {{the sharding of argument #0 uses mesh axis 1 twice}}
  func.func @axis_twice(%x: tensor<4x4xf32> {dist.sharding = array<i64: 1, 1>}) {
    return
  }
}

// -----

// expected-error @+1 {{'dist.sharding' of argument #0 needs a device mesh: the module has no 'dist.mesh' attribute}}
func.func @arg_no_mesh(%x: tensor<4xf32> {dist.sharding = array<i64: 0>}) {
  return
}

// -----

module attributes {dist.mesh = array<i64: 2>} {
  func.func @bucket_size(%x: tensor<4xf32>) -> tensor<4xf32> {
    // expected-error @+1 {{bucket type 'tensor<5xf32>' should be 1-D with the inputs' 4 elements}}
    %b = dist.all_reduce_start sum, %x axes = [0] : (tensor<4xf32>) -> tensor<5xf32>
    %r = dist.wait %b : tensor<5xf32> -> tensor<4xf32>
    return %r : tensor<4xf32>
  }
}

// -----

module attributes {dist.mesh = array<i64: 2>} {
  func.func @two_uses(%x: tensor<4xf32>) -> tensor<4xf32> {
    // expected-error @+1 {{bucket must have exactly one use, a dist.wait}}
    %b = dist.all_reduce_start sum, %x axes = [0] : (tensor<4xf32>) -> tensor<4xf32>
    %r = dist.wait %b : tensor<4xf32> -> tensor<4xf32>
    %s = dist.add %b, %r : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    return %s : tensor<4xf32>
  }
}

// -----

func.func @no_start(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{waits for a bucket no dist.all_reduce_start made}}
  %r = dist.wait %x : tensor<4xf32> -> tensor<4xf32>
  return %r : tensor<4xf32>
}
