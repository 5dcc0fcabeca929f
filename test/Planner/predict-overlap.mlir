// The cost model's overlap of a started all-reduce with compute
// (dist-explain-plan{device-spec}), against the formulas by hand.
// RUN: dist-opt %s --pass-pipeline='builtin.module(dist-explain-plan{device-spec=a100-80g})' | FileCheck %s --check-prefix=A100
// RUN: dist-opt %s --pass-pipeline='builtin.module(dist-explain-plan{device-spec=a100-80g function=exposed})' | FileCheck %s --check-prefix=EXPOSED
// 8 A100s in one host (NVLink 3: 300 GB/s each way, 4 us). A started
// all-reduce of 4 MiB, 2*7/8*4194304/300e9 + 2*7*4e-6 = 80.467 us, runs
// while a 1024^3 fp32 product computes: 2147483648 FLOPs at 19.5e12 * 0.75
// = 146.84 us. @train_step waits after the product (nothing exposed);
// @exposed waits before it (all 80.467 us exposed).
// A100: predicted step on a100-80g (mesh 8): 0.1468 ms = compute 0.1468 + exposed communication 0 + pipeline bubble 0 (communication 0.08047 ms in all, 0.08047 hidden behind compute)
// A device whose collectives run only half behind compute (overlap 0.5,
// as MPI on CPUs is near 0): the other half, 40.23 us, is paid at the
// wait: max(146.84 + 40.23, 80.467) = 187.07 us.
// RUN: rm -rf %t && mkdir -p %t
// RUN: echo '{"name": "a100-half", "peak_flops": {"fp32": 19.5e12}, "memory_bandwidth": 2.039e12, "memory_bytes": 80e9, "achievable": {"gemm": 0.75, "memory": 0.8}, "devices_per_host": 8, "intra_host": {"bandwidth": 300e9, "latency": 4e-6}, "overlap": 0.5}' > %t/half.json
// RUN: dist-opt %s --pass-pipeline='builtin.module(dist-explain-plan{device-spec=%t/half.json})' | FileCheck %s --check-prefix=HALF
// HALF: predicted step on a100-half (mesh 8): 0.1871 ms = compute 0.1468 + exposed communication 0.04023 + pipeline bubble 0
// EXPOSED: predicted step on a100-80g (mesh 8): 0.2273 ms = compute 0.1468 + exposed communication 0.08047 + pipeline bubble 0 (communication 0.08047 ms in all, 0 hidden behind compute)
module {
  dist.mesh @mesh shape = 8
  func.func @train_step(%g: tensor<1024x1024xf32>, %a: tensor<1024x1024xf32>) -> (tensor<1024x1024xf32>, tensor<1024x1024xf32>) attributes {dist.partitioned} {
    %bucket, %request = dist.all_reduce_start sum, %g axes = [0] : (tensor<1024x1024xf32>) -> (tensor<1048576xf32>, i64)
    %y = dist.matmul %a, %a : (tensor<1024x1024xf32>, tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
    %r = dist.wait %request, %bucket : tensor<1048576xf32> -> tensor<1024x1024xf32>
    return %y, %r : tensor<1024x1024xf32>, tensor<1024x1024xf32>
  }
  func.func @exposed(%g: tensor<1024x1024xf32>, %a: tensor<1024x1024xf32>) -> (tensor<1024x1024xf32>, tensor<1024x1024xf32>) attributes {dist.partitioned} {
    %bucket, %request = dist.all_reduce_start sum, %g axes = [0] : (tensor<1024x1024xf32>) -> (tensor<1048576xf32>, i64)
    %r = dist.wait %request, %bucket : tensor<1048576xf32> -> tensor<1024x1024xf32>
    %y = dist.matmul %a, %a : (tensor<1024x1024xf32>, tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
    return %y, %r : tensor<1024x1024xf32>, tensor<1024x1024xf32>
  }
}
