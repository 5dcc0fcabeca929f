// RUN: dist-opt %s --split-input-file --verify-diagnostics --dist-describe-model | FileCheck %s

// CHECK: module attributes {dist.model_interface = "dist-model 1\0Ainput float32 2x4 x\0Aparam float32 4 w\0Ainput uint8 scalar flag\0Aoutput float32 2x4 y\0A"}
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
