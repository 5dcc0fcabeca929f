// dist-estimate-memory{device=cuda}: a CUDA step's device memory, by the
// caching allocator's size classes (distrt_cuda_block_bytes: 512-byte
// granules below 1 MiB, 2 MiB granules from 1 MiB on), with the cuBLASLt
// workspace held throughout when the step has a product (the first
// step's first product allocates it for the run) and constants' device
// copies held to the end. The figures below are worked out by hand:
//   parameter w, 512x512xf32 = 1 MiB          -> a 2 MiB block
//   input x, 8x512xf32 = 16384 B               -> 16384
//   output loss, 4 B                            -> 512
//   update w' writes into w                     -> nothing
//   %a, 512x1024xf32 = 2 MiB, asked + 64 B      -> 4 MiB (activation: before
//                                                  the loss is written)
//   constant @c, 100xf32 = 400 B + 64           -> 512 (workspace)
//   %b, 400 B + 64                              -> 512 (activation)
//   the step calls distrt_cuda_gemm: 32 MiB     -> 32 MiB (workspace)
//   peak = 2 + 4 + 32 MiB + 16384 + 512 + 512 + 512 B = 39863808 B
//        = 38.017 MiB
// RUN: dist-opt %s -dist-estimate-memory="device=cuda explain=true" -o /dev/null | FileCheck %s
// CHECK: memory of @train_step per rank (CUDA device memory): peak 38.017 MiB = parameters 2.000 + optimizer state 0.000 + inputs and outputs 0.016 + activations 4.000 + gradients 0.000 + workspace 32.000

// The workspace option: 512 KiB is a 512 KiB block (6.517 MiB in all); 1 MiB
// gets a 2 MiB block (8.017 MiB).
// RUN: dist-opt %s -dist-estimate-memory="device=cuda explain=true gemm-workspace=524288" -o /dev/null | FileCheck %s --check-prefix=SMALL
// SMALL: peak 6.517 MiB = {{.*}} workspace 0.500
// RUN: dist-opt %s -dist-estimate-memory="device=cuda explain=true gemm-workspace=1048576" -o /dev/null | FileCheck %s --check-prefix=MIB
// MIB: peak 8.017 MiB = {{.*}} workspace 2.000

// On the host (glibc's blocks, no workspace): w 1048584, x 16392, loss 72,
// %a 2097224, %b 472 = 3162744 B = 3.016 MiB.
// RUN: dist-opt %s -dist-estimate-memory="explain=true" -o /dev/null | FileCheck %s --check-prefix=HOST
// HOST: memory of @train_step per rank (host tensors): peak 3.016 MiB = parameters 1.000 + optimizer state 0.000 + inputs and outputs 0.016 + activations 2.001 + gradients 0.000 + workspace 0.000

// RUN: not dist-opt %s -dist-estimate-memory="device=tpu" -o /dev/null 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: error: dist-estimate-memory: device=tpu is neither host nor cuda

module attributes {
  dist.model_interface = {
    arguments = [{name = "w", role = "param"}, {name = "x", role = "input"}],
    outputs = [{name = "loss", role = "output"}, {name = "w", role = "param"}]
  },
  dist.model_updates = array<i64: -1, 0>
} {
  memref.global "private" constant @c : memref<100xf32> = dense<1.0>
  func.func private @distrt_cuda_gemm()
  func.func @train_step(%w: memref<512x512xf32>, %x: memref<8x512xf32>,
                        %loss: memref<f32>, %w2: memref<512x512xf32>) {
    %a = memref.alloc() {alignment = 64 : i64} : memref<512x1024xf32>
    %c = memref.get_global @c : memref<100xf32>
    %b = memref.alloc() {alignment = 64 : i64} : memref<100xf32>
    %zero = arith.constant 0.0 : f32
    memref.store %zero, %loss[] : memref<f32>
    func.call @distrt_cuda_gemm() : () -> ()
    memref.dealloc %a : memref<512x1024xf32>
    memref.dealloc %b : memref<100xf32>
    return
  }
}
