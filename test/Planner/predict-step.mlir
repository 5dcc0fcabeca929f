// The cost model's predicted step time (dist-explain-plan{device-spec}),
// against the formulas worked out by hand from the device files' figures.
// RUN: dist-opt %s --pass-pipeline='builtin.module(dist-explain-plan{device-spec=h100-sxm})' | FileCheck %s --check-prefix=H100
// RUN: not dist-opt %s --pass-pipeline='builtin.module(dist-explain-plan{device-spec=b300})' 2>&1 | FileCheck %s --check-prefix=UNKNOWN

// A 2x8 mesh of H100s, 8 per host: axis 1 stays in a host (NVLink, 450
// GB/s each way, 3 us), axis 0 crosses hosts (InfiniBand, 50 GB/s, 10 us).
//  - matmul 128x256 by 256x512, fp32: 2*128*256*512 = 33554432 FLOPs at
//    66.9e12 * 0.70 = 0.7165 us (its 917504 bytes at 3.35e12 * 0.8 take
//    0.3424 us: compute-bound);
//  - all-reduce of 262144 bytes over axis 1 (8 ranks):
//    2*7/8*262144/450e9 + 2*7*3e-6 = 43.019 us;
//  - then over axis 0 (2 ranks): 2*1/2*262144/50e9 + 2*1*10e-6 = 25.243 us.
// Total 0.7165 + 43.019 + 25.243 = 68.98 us, none of it overlapped.
// Each collective's line carries its own time.
// H100: all_reduce sum {{.*}} axis 1 {{.*}} ~43 us on h100-sxm
// H100: all_reduce sum {{.*}} axis 0 {{.*}} ~25.2 us on h100-sxm
// H100: predicted step on h100-sxm (mesh 2x8): 0.06898 ms = compute 0.0007165 + exposed communication 0.06826 + pipeline bubble 0 (communication 0.06826 ms in all, 0 hidden behind compute)
module {
  dist.mesh @mesh shape = 2x8
  func.func @train_step(%a: tensor<128x256xf32>, %b: tensor<256x512xf32>) -> tensor<128x512xf32> attributes {dist.partitioned} {
    %y = dist.matmul %a, %b : (tensor<128x256xf32>, tensor<256x512xf32>) -> tensor<128x512xf32>
    %r0 = dist.all_reduce sum, %y axes = [1] : tensor<128x512xf32>
    %r1 = dist.all_reduce sum, %r0 axes = [0] : tensor<128x512xf32>
    return %r1 : tensor<128x512xf32>
  }
}
// UNKNOWN: error: --device-spec=b300: neither a built-in device (a100-80g, cpu-here, h100-sxm, h200) nor a readable file
