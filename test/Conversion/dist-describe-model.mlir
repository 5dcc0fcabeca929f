// RUN: dist-opt %s --split-input-file --verify-diagnostics --dist-describe-model | FileCheck %s

// The description (distrt/model.h) as a dictionary; dist-emit-model-entry
// writes it as JSON.
// CHECK: module attributes {dist.model_interface = {arguments = [{dtype = "float32", name = "x", role = "input", shape = array<i64: 2, 4>}, {dtype = "float32", name = "w", role = "param", shape = array<i64: 4>}, {dtype = "uint8", name = "flag", role = "input", shape = array<i64>}], format = "dist-model", mode = "forward", outputs = [{dtype = "float32", name = "y", shape = array<i64: 2, 4>}], version = 1 : i64}}
// CHECK: func.func @forward(%{{.*}}: tensor<2x4xf32> {bufferization.writable = false}, %{{.*}}: tensor<4xf32> {bufferization.writable = false}, %{{.*}}: tensor<ui8> {bufferization.writable = false}) -> tensor<2x4xf32> attributes {llvm.emit_c_interface}
module {
  dist.parameter @w : tensor<4xf32>
  func.func @forward(%x: tensor<2x4xf32> {dist.input_name = "x"}, %w: tensor<4xf32> {dist.parameter = @w},
                     %f: tensor<ui8> {dist.input_name = "flag"}) -> (tensor<2x4xf32> {dist.output_name = "y"}) {
    return %x : tensor<2x4xf32>
  }
}

// -----

// expected-error @+1 {{no function @forward to compile}}
module {
  func.func @main() {
    return
  }
}

// -----

module {
  // expected-error @+1 {{two outputs are named 'y'}}
  func.func @forward(%x: tensor<2xf32>) -> (tensor<2xf32> {dist.output_name = "y"}, tensor<2xf32> {dist.output_name = "y"}) {
    return %x, %x : tensor<2xf32>, tensor<2xf32>
  }
}

// -----

// A training step: `mode train`, the step and optimizer-state roles, the
// index range of integer inputs (embedding rows, loss classes, through a
// reshape), the hyperparameters as meta entries; results that update an
// argument are not outputs but go to dist.model_updates.
// An input that is both (here) gets the smaller range.
// CHECK: module attributes {dist.model_interface = {arguments = [{dtype = "int64", name = "ids", range = 4 : i64, role = "input", shape = array<i64: 2, 3>}, {dtype = "float32", name = "emb", role = "param", shape = array<i64: 10, 4>}, {dtype = "int64", name = "step", role = "step", shape = array<i64>}, {dtype = "float32", name = "emb.exp_avg", role = "state", shape = array<i64: 10, 4>}], format = "dist-model", meta = {lr = 1.000000e-03 : f64, optimizer = "adamw"}, mode = "train", outputs = [{dtype = "float32", name = "loss", shape = array<i64>}], version = 1 : i64}, dist.model_updates = array<i64: -1, 1, 3>}
module {
  dist.parameter @emb : tensor<10x4xf32>
  func.func @forward(%ids: tensor<2x3xi64> {dist.input_name = "ids"},
                        %emb: tensor<10x4xf32> {dist.parameter = @emb},
                        %step: tensor<i64> {dist.step},
                        %m: tensor<10x4xf32> {dist.optimizer_state = #dist.optimizer_state<@emb, "exp_avg">})
      -> (tensor<f32> {dist.output_name = "loss"},
          tensor<10x4xf32> {dist.updates = 1 : i64},
          tensor<10x4xf32> {dist.updates = 3 : i64})
      attributes {dist.meta = {optimizer = "adamw", lr = 1.000000e-03 : f64}} {
    %e = dist.gather %emb[%ids] axis = 0 : (tensor<10x4xf32>, tensor<2x3xi64>) -> tensor<2x3x4xf32>
    %flat = dist.reshape %ids : (tensor<2x3xi64>) -> tensor<6xi64>
    %x = dist.reshape %e : (tensor<2x3x4xf32>) -> tensor<6x4xf32>
    %l = dist.cross_entropy mean, %x, %flat : (tensor<6x4xf32>, tensor<6xi64>) -> tensor<f32>
    return %l, %emb, %m : tensor<f32>, tensor<10x4xf32>, tensor<10x4xf32>
  }
}

// -----

// A training step's FLOPs: 2 * multiply-adds of its matrix products and
// convolutions, forward and backward, as `flops` (the
// trainer's MFU). Here: the batched matmul 2 * (2*4*8*16) * 32 = 65536
// (k = 32, lhs transposed), the gemm 2 * (8*16) * 32 = 8192, the grouped
// convolution 2 * (1*4*6*6) * (2*3*3) = 5184: 78912.
// CHECK: flops = 78912 : i64
module {
  dist.parameter @w : tensor<16x32xf32>
  dist.parameter @f : tensor<4x2x3x3xf32>
  func.func @forward(%a: tensor<2x4x32x8xf32>, %b: tensor<2x4x32x16xf32>,
                     %x: tensor<8x32xf32>, %img: tensor<1x4x8x8xf32>,
                     %w: tensor<16x32xf32> {dist.parameter = @w},
                     %f: tensor<4x2x3x3xf32> {dist.parameter = @f},
                     %step: tensor<i64> {dist.step})
      -> (tensor<2x4x8x16xf32>, tensor<8x16xf32>, tensor<1x4x6x6xf32>) {
    %p = dist.matmul %a, %b {transpose_lhs} : (tensor<2x4x32x8xf32>, tensor<2x4x32x16xf32>) -> tensor<2x4x8x16xf32>
    %y = dist.gemm %x, %w {transpose_b} : (tensor<8x32xf32>, tensor<16x32xf32>) -> tensor<8x16xf32>
    %c = dist.conv2d %img, %f {groups = 2 : i64} : (tensor<1x4x8x8xf32>, tensor<4x2x3x3xf32>) -> tensor<1x4x6x6xf32>
    return %p, %y, %c : tensor<2x4x8x16xf32>, tensor<8x16xf32>, tensor<1x4x6x6xf32>
  }
}

// -----

// A per-rank program: the description has the mesh, the global shapes and
// how each tensor is split (a strided split with its groups).
// CHECK: dist.model_interface = {arguments = [{dtype = "float32", name = "x", role = "input", shape = array<i64: 8, 6>, split = [{axes = array<i64: 0>, dim = 0 : i64}]}, {dtype = "float32", name = "w", role = "param", shape = array<i64: 6, 12>, split = [{axes = array<i64: 1>, dim = 1 : i64, groups = 3 : i64}]}], format = "dist-model", mesh = array<i64: 2, 2>, mode = "forward", outputs = [{dtype = "float32", name = "y", shape = array<i64: 8, 12>, split = [{axes = array<i64: 0>, dim = 0 : i64}, {axes = array<i64: 1>, dim = 1 : i64}]}], version = 1 : i64}
module {
  dist.mesh @mesh shape = 2x2
  dist.parameter @w : tensor<6x12xf32>
  func.func @forward(%x: tensor<4x6xf32> {dist.input_name = "x", dist.sharding = #dist.sharding<[0, -]>},
                     %w: tensor<6x6xf32> {dist.parameter = @w, dist.sharding = #dist.sharding<[-, 1/3]>})
      -> (tensor<4x6xf32> {dist.output_name = "y", dist.sharding = #dist.sharding<[0, 1]>})
      attributes {dist.partitioned} {
    %y = dist.matmul %x, %w : (tensor<4x6xf32>, tensor<6x6xf32>) -> tensor<4x6xf32>
    return %y : tensor<4x6xf32>
  }
}

// -----

module {
  // expected-error @+1 {{'dist.meta' entry 'betas' must be a string, a float, a signless integer of at most 64 bits or a boolean}}
  func.func @forward(%x: tensor<2xf32>) -> tensor<2xf32> attributes {dist.meta = {betas = [0.9, 0.999]}} {
    return %x : tensor<2xf32>
  }
}

// -----

module {
  // expected-error @+1 {{'dist.meta' entry 'count' must be a string, a float, a signless integer of at most 64 bits or a boolean}}
  func.func @forward(%x: tensor<2xf32>) -> tensor<2xf32> attributes {dist.meta = {count = 3 : ui32}} {
    return %x : tensor<2xf32>
  }
}

// -----

// The driver finds arguments by name: an input may not share one with a
// parameter (or the step, a hyperparameter, optimizer state).
module {
  dist.parameter @w : tensor<2xf32>
  // expected-error @+1 {{two arguments are named 'w' (roles param and input); rename the input (dist.input_name)}}
  func.func @forward(%w: tensor<2xf32> {dist.parameter = @w}, %x: tensor<2xf32> {dist.input_name = "w"}) -> tensor<2xf32> {
    return %x : tensor<2xf32>
  }
}
