// RUN: dist-opt %s --pass-pipeline='builtin.module(dist-tensor-parallel{function=step},dist-propagate-sharding,dist-partition)' | FileCheck %s
// RUN: dist-opt %s --pass-pipeline='builtin.module(dist-tensor-parallel{function=step vocab=false},dist-propagate-sharding,dist-partition)' | FileCheck %s --check-prefix=OFF

// Vocabulary parallelism (dist-tensor-parallel{vocab}, on by default): a tied embedding
// table split by rows over 2 ranks. The lookup takes the indices in this
// rank's block of rows (its first row from the sliced list of block starts)
// and gives zeros elsewhere, a partial sum all-reduced once; the
// cross-entropy over split classes all-reduces each position's maximum, sum
// of exponentials and picked log-probability.
module {
  dist.mesh @mesh shape = 2
  dist.parameter @wte : tensor<8x4xf32> = dense<0.5> : tensor<8x4xf32>
  // CHECK-LABEL: func.func @step
  // CHECK-SAME: %[[IDS:[^:]*]]: tensor<6xi64> {dist.index_range = 8 : i64}
  // CHECK-SAME: %[[LABELS:[^:]*]]: tensor<6xi64> {dist.index_range = 8 : i64}
  // CHECK-SAME: %[[E:[^:]*]]: tensor<4x4xf32> {dist.parameter = @wte, dist.sharding = #dist.sharding<[0, -]>{{(, dist.split_reason = "[^"]*")?}}}
  // CHECK: %[[STARTS:.*]] = dist.constant dense<[0, 4]> : tensor<2xi64>
  // CHECK: %[[START:.*]] = dist.shard_slice %[[STARTS]] dim = 0 axes = [0] : (tensor<2xi64>) -> tensor<1xi64>
  // CHECK: %[[SHIFTED:.*]] = dist.sub %[[IDS]], %[[START]]
  // CHECK: %[[INSIDE:.*]] = dist.and
  // CHECK: %[[SAFE:.*]] = dist.select %[[INSIDE]], %[[SHIFTED]]
  // CHECK: %[[ROWS:.*]] = dist.gather %[[E]][%[[SAFE]]] axis = 0 : (tensor<4x4xf32>, tensor<6xi64>) -> tensor<6x4xf32>
  // CHECK: %[[MASK:.*]] = dist.reshape %[[INSIDE]] : (tensor<6xi1>) -> tensor<6x1xi1>
  // CHECK: %[[LOOKED:.*]] = dist.select %[[MASK]], %[[ROWS]]
  // CHECK: %[[X:.*]] = dist.all_reduce sum, %[[LOOKED]] axes = [0]
  // CHECK: %[[LOGITS:.*]] = dist.matmul %{{.*}}, %[[E]] {transpose_rhs} : (tensor<6x4xf32>, tensor<4x4xf32>) -> tensor<6x4xf32>
  // CHECK: %[[MAX:.*]] = dist.reduce_max %[[LOGITS]] axes = [1] {keep_dims}
  // CHECK: dist.all_reduce max, %[[MAX]] axes = [0]
  // CHECK: dist.all_reduce sum, %{{.*}} axes = [0] : tensor<6x1xf32>
  // CHECK: dist.all_reduce sum, %{{.*}} axes = [0] : tensor<6xf32>
  // CHECK-NOT: dist.all_gather
  // With vocab=false nothing here is split: no collective at all.
  // OFF-LABEL: func.func @step
  // OFF-SAME: %{{[^:]*}}: tensor<8x4xf32> {dist.parameter = @wte, dist.sharding = #dist.sharding<[-, -]>}
  // OFF-NOT: dist.all_reduce
  // OFF-NOT: dist.shard_slice
  func.func @step(%ids: tensor<6xi64>, %labels: tensor<6xi64>,
                  %e: tensor<8x4xf32> {dist.parameter = @wte}) -> tensor<f32> {
    %x = dist.gather %e[%ids] axis = 0 : (tensor<8x4xf32>, tensor<6xi64>) -> tensor<6x4xf32>
    %t = dist.tanh %x : tensor<6x4xf32>
    %logits = dist.matmul %t, %e {transpose_rhs} : (tensor<6x4xf32>, tensor<8x4xf32>) -> tensor<6x8xf32>
    %loss = dist.cross_entropy mean, %logits, %labels : (tensor<6x8xf32>, tensor<6xi64>) -> tensor<f32>
    return %loss : tensor<f32>
  }
}
