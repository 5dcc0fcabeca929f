// Every dist folder, and the cases each must leave alone.
// RUN: dist-opt %s --split-input-file --canonicalize | FileCheck %s

// CHECK-LABEL: func @add_identity
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>, %[[I:.*]]: tensor<4xi64>)
func.func @add_identity(%x: tensor<4xf32>, %i: tensor<4xi64>)
    -> (tensor<4xf32>, tensor<4xf32>, tensor<4xi64>, tensor<2x4xf32>) {
  %negzero = dist.constant dense<-0.0> : tensor<4xf32>
  %zero = dist.constant dense<0.0> : tensor<4xf32>
  %izero = dist.constant dense<0> : tensor<4xi64>
  %wide = dist.constant dense<-0.0> : tensor<2x4xf32>
  %0 = dist.add %x, %negzero : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  // x + 0.0 is not x when x is -0.0: it stays.
  // CHECK: %[[ZERO:.*]] = dist.constant dense<0.000000e+00>
  // CHECK: %[[KEEP:.*]] = dist.add %[[X]], %[[ZERO]]
  %1 = dist.add %x, %zero : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %2 = dist.add %izero, %i : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi64>
  // Adding a broadcast zero changes the shape: it stays.
  // CHECK: %[[WIDE:.*]] = dist.add %[[X]], %{{.*}} : (tensor<4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  %3 = dist.add %x, %wide : (tensor<4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  // CHECK: return %[[X]], %[[KEEP]], %[[I]], %[[WIDE]]
  return %0, %1, %2, %3 : tensor<4xf32>, tensor<4xf32>, tensor<4xi64>, tensor<2x4xf32>
}

// -----

// CHECK-LABEL: func @neutral_operands
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>, %[[I:.*]]: tensor<4xi32>, %[[B:.*]]: tensor<4xi1>)
func.func @neutral_operands(%x: tensor<4xf32>, %i: tensor<4xi32>, %b: tensor<4xi1>)
    -> (tensor<4xf32>, tensor<4xf32>, tensor<4xi32>, tensor<4xf32>, tensor<4xi32>,
        tensor<4xf32>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>) {
  %zero = dist.constant dense<0.0> : tensor<4xf32>
  %one = dist.constant dense<1.0> : tensor<4xf32>
  %ione = dist.constant dense<1> : tensor<4xi32>
  %true = dist.constant dense<true> : tensor<4xi1>
  %false = dist.constant dense<false> : tensor<4xi1>
  %0 = dist.sub %x, %zero : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  // The constant moves to the right of a commutative op, then folds.
  %1 = dist.mul %one, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %2 = dist.mul %i, %ione : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  %3 = dist.div %x, %one : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %4 = dist.div %i, %ione : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  %5 = dist.pow %x, %one : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %6 = dist.and %b, %true : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  %7 = dist.or %b, %false : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  %8 = dist.xor %false, %b : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  // CHECK-NOT: dist.
  // CHECK: return %[[X]], %[[X]], %[[I]], %[[X]], %[[I]], %[[X]], %[[B]], %[[B]], %[[B]]
  return %0, %1, %2, %3, %4, %5, %6, %7, %8
      : tensor<4xf32>, tensor<4xf32>, tensor<4xi32>, tensor<4xf32>, tensor<4xi32>,
        tensor<4xf32>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>
}

// -----

// CHECK-LABEL: func @constant_folding
func.func @constant_folding()
    -> (tensor<2xf32>, tensor<2xf32>, tensor<2xi64>, tensor<2xf32>, tensor<2xf32>,
        tensor<2xi64>, tensor<2xi1>, tensor<2xi1>, tensor<2xi1>) {
  %a = dist.constant dense<[1.5, -2.0]> : tensor<2xf32>
  %b = dist.constant dense<[0.5, 4.0]> : tensor<2xf32>
  %i = dist.constant dense<[7, -3]> : tensor<2xi64>
  %j = dist.constant dense<[2, 5]> : tensor<2xi64>
  %p = dist.constant dense<[true, false]> : tensor<2xi1>
  %q = dist.constant dense<[true, true]> : tensor<2xi1>
  // CHECK-DAG: dist.constant dense<2.000000e+00> : tensor<2xf32>
  %0 = dist.add %a, %b : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  // CHECK-DAG: dist.constant dense<[1.000000e+00, -6.000000e+00]> : tensor<2xf32>
  %1 = dist.sub %a, %b : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  // CHECK-DAG: dist.constant dense<[14, -15]> : tensor<2xi64>
  %2 = dist.mul %i, %j : (tensor<2xi64>, tensor<2xi64>) -> tensor<2xi64>
  // CHECK-DAG: dist.constant dense<[3.000000e+00, -5.000000e-01]> : tensor<2xf32>
  %3 = dist.div %a, %b : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  // CHECK-DAG: dist.constant dense<[1.500000e+00, 4.000000e+00]> : tensor<2xf32>
  %4 = dist.max %a, %b : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  // CHECK-DAG: dist.constant dense<[2, -3]> : tensor<2xi64>
  %5 = dist.min %i, %j : (tensor<2xi64>, tensor<2xi64>) -> tensor<2xi64>
  // CHECK-DAG: dist.constant dense<[true, false]> : tensor<2xi1>
  %6 = dist.and %p, %q : (tensor<2xi1>, tensor<2xi1>) -> tensor<2xi1>
  // CHECK-DAG: dist.constant dense<true> : tensor<2xi1>
  %7 = dist.or %p, %q : (tensor<2xi1>, tensor<2xi1>) -> tensor<2xi1>
  // CHECK-DAG: dist.constant dense<[false, true]> : tensor<2xi1>
  %8 = dist.xor %p, %q : (tensor<2xi1>, tensor<2xi1>) -> tensor<2xi1>
  // CHECK-NOT: dist.{{add|sub|mul|div|max|min|and|or|xor}}
  return %0, %1, %2, %3, %4, %5, %6, %7, %8
      : tensor<2xf32>, tensor<2xf32>, tensor<2xi64>, tensor<2xf32>, tensor<2xf32>,
        tensor<2xi64>, tensor<2xi1>, tensor<2xi1>, tensor<2xi1>
}

// -----

// Integer division by zero is left for run time.
// CHECK-LABEL: func @no_fold_int_div_by_zero
// CHECK: dist.div
func.func @no_fold_int_div_by_zero() -> tensor<2xi64> {
  %i = dist.constant dense<[7, -3]> : tensor<2xi64>
  %z = dist.constant dense<[1, 0]> : tensor<2xi64>
  %0 = dist.div %i, %z : (tensor<2xi64>, tensor<2xi64>) -> tensor<2xi64>
  return %0 : tensor<2xi64>
}

// -----

// CHECK-LABEL: func @unary_traits
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>, %[[B:.*]]: tensor<4xi1>)
func.func @unary_traits(%x: tensor<4xf32>, %b: tensor<4xi1>)
    -> (tensor<4xf32>, tensor<4xi1>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>,
        tensor<4xf32>, tensor<4xf32>) {
  %0 = dist.neg %x : tensor<4xf32>
  %1 = dist.neg %0 : tensor<4xf32>
  %2 = dist.not %b : tensor<4xi1>
  %3 = dist.not %2 : tensor<4xi1>
  // CHECK: %[[ABS:.*]] = dist.abs %[[X]]
  %4 = dist.abs %x : tensor<4xf32>
  %5 = dist.abs %4 : tensor<4xf32>
  // CHECK: %[[RELU:.*]] = dist.relu %[[X]]
  %6 = dist.relu %x : tensor<4xf32>
  %7 = dist.relu %6 : tensor<4xf32>
  // CHECK: %[[FLOOR:.*]] = dist.floor %[[X]]
  %8 = dist.floor %x : tensor<4xf32>
  %9 = dist.floor %8 : tensor<4xf32>
  // CHECK: %[[CEIL:.*]] = dist.ceil %[[X]]
  %10 = dist.ceil %x : tensor<4xf32>
  %11 = dist.ceil %10 : tensor<4xf32>
  %12 = dist.cast %x : tensor<4xf32> to tensor<4xf32>
  // CHECK: return %[[X]], %[[B]], %[[ABS]], %[[RELU]], %[[FLOOR]], %[[CEIL]], %[[X]]
  return %1, %3, %5, %7, %9, %11, %12
      : tensor<4xf32>, tensor<4xi1>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>,
        tensor<4xf32>, tensor<4xf32>
}

// -----

// CHECK-LABEL: func @select
// CHECK-SAME: (%[[C:.*]]: tensor<4xi1>, %[[X:.*]]: tensor<4xf32>, %[[Y:.*]]: tensor<4xf32>, %[[S:.*]]: tensor<f32>)
func.func @select(%c: tensor<4xi1>, %x: tensor<4xf32>, %y: tensor<4xf32>, %s: tensor<f32>)
    -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %true = dist.constant dense<true> : tensor<4xi1>
  %false = dist.constant dense<false> : tensor<4xi1>
  %0 = dist.select %true, %x, %y : (tensor<4xi1>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %1 = dist.select %false, %x, %y : (tensor<4xi1>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %2 = dist.select %c, %x, %x : (tensor<4xi1>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  // The chosen value would need a broadcast: it stays.
  // CHECK: %[[KEEP:.*]] = dist.select %{{.*}}, %[[S]], %[[Y]]
  %3 = dist.select %true, %s, %y : (tensor<4xi1>, tensor<f32>, tensor<4xf32>) -> tensor<4xf32>
  // CHECK: return %[[X]], %[[Y]], %[[X]], %[[KEEP]]
  return %0, %1, %2, %3 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// CHECK-LABEL: func @dropout
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>)
func.func @dropout(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xi1>, tensor<4xf32>) {
  // CHECK-DAG: %[[TRUE:.*]] = dist.constant dense<true> : tensor<4xi1>
  %0, %1 = dist.dropout %x {ratio = 0.0 : f64, seed = 1 : i64} : tensor<4xf32>
  // CHECK-DAG: %[[KEPT:.*]], %{{.*}} = dist.dropout %[[X]] {ratio = 5.000000e-01 : f64
  %2, %3 = dist.dropout %x {ratio = 0.5 : f64, seed = 1 : i64} : tensor<4xf32>
  // CHECK: return %[[X]], %[[TRUE]], %[[KEPT]]
  return %0, %1, %2 : tensor<4xf32>, tensor<4xi1>, tensor<4xf32>
}

// -----

// CHECK-LABEL: func @reductions
// CHECK-SAME: (%[[X:.*]]: tensor<4x1xf32>)
func.func @reductions(%x: tensor<4x1xf32>)
    -> (tensor<4x1xf32>, tensor<4x1xf32>, tensor<4x1xf32>, tensor<4x1xf32>, tensor<4xf32>) {
  %0 = dist.reduce_sum %x axes = [1] {keep_dims} : (tensor<4x1xf32>) -> tensor<4x1xf32>
  %1 = dist.reduce_mean %x axes = [1] {keep_dims} : (tensor<4x1xf32>) -> tensor<4x1xf32>
  %2 = dist.reduce_max %x axes = [1] {keep_dims} : (tensor<4x1xf32>) -> tensor<4x1xf32>
  %3 = dist.reduce_min %x axes = [1] {keep_dims} : (tensor<4x1xf32>) -> tensor<4x1xf32>
  // Dropping the reduced dimension changes the type: it stays.
  // CHECK: %[[DROP:.*]] = dist.reduce_sum %[[X]] axes = [1] : (tensor<4x1xf32>) -> tensor<4xf32>
  %4 = dist.reduce_sum %x axes = [1] : (tensor<4x1xf32>) -> tensor<4xf32>
  // CHECK: return %[[X]], %[[X]], %[[X]], %[[X]], %[[DROP]]
  return %0, %1, %2, %3, %4 : tensor<4x1xf32>, tensor<4x1xf32>, tensor<4x1xf32>, tensor<4x1xf32>, tensor<4xf32>
}

// -----

// CHECK-LABEL: func @transpose
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4xf32>)
func.func @transpose(%x: tensor<2x3x4xf32>)
    -> (tensor<2x3x4xf32>, tensor<3x2x4xf32>, tensor<4x3xf32>) {
  %0 = dist.transpose %x permutation = [0, 1, 2] : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  // Two transposes compose into one.
  // CHECK-DAG: %[[T:.*]] = dist.transpose %[[X]] permutation = [1, 0, 2] : (tensor<2x3x4xf32>) -> tensor<3x2x4xf32>
  %1 = dist.transpose %x permutation = [2, 0, 1] : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
  %2 = dist.transpose %1 permutation = [2, 1, 0] : (tensor<4x2x3xf32>) -> tensor<3x2x4xf32>
  // CHECK-DAG: %[[SPLAT:.*]] = dist.constant dense<2.000000e+00> : tensor<4x3xf32>
  %c = dist.constant dense<2.0> : tensor<3x4xf32>
  %3 = dist.transpose %c permutation = [1, 0] : (tensor<3x4xf32>) -> tensor<4x3xf32>
  // CHECK: return %[[X]], %[[T]], %[[SPLAT]]
  return %0, %2, %3 : tensor<2x3x4xf32>, tensor<3x2x4xf32>, tensor<4x3xf32>
}

// -----

// CHECK-LABEL: func @reshape
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
func.func @reshape(%x: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<3x2xf32>, tensor<3x2xi64>) {
  %0 = dist.reshape %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK-DAG: %[[R:.*]] = dist.reshape %[[X]] : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %1 = dist.reshape %x : (tensor<2x3xf32>) -> tensor<6xf32>
  %2 = dist.reshape %1 : (tensor<6xf32>) -> tensor<3x2xf32>
  // CHECK-DAG: %[[C:.*]] = dist.constant dense<{{\[}}[1, 2], [3, 4], [5, 6]]> : tensor<3x2xi64>
  %c = dist.constant dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi64>
  %3 = dist.reshape %c : (tensor<2x3xi64>) -> tensor<3x2xi64>
  // CHECK: return %[[X]], %[[R]], %[[C]]
  return %0, %2, %3 : tensor<2x3xf32>, tensor<3x2xf32>, tensor<3x2xi64>
}

// -----

// CHECK-LABEL: func @broadcast_slice
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
func.func @broadcast_slice(%x: tensor<2x3xf32>)
    -> (tensor<2x3xf32>, tensor<4x2x3xf32>, tensor<2x3xf32>, tensor<1x2xf32>, tensor<1x3xf32>) {
  %0 = dist.broadcast %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK-DAG: %[[B:.*]] = dist.constant dense<1.000000e+00> : tensor<4x2x3xf32>
  %c = dist.constant dense<1.0> : tensor<3xf32>
  %1 = dist.broadcast %c : (tensor<3xf32>) -> tensor<4x2x3xf32>
  %2 = dist.slice %x starts = [0, 0] strides = [1, 1] : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK-DAG: %[[S:.*]] = dist.constant dense<1.000000e+00> : tensor<1x2xf32>
  %w = dist.constant dense<1.0> : tensor<4x3xf32>
  %3 = dist.slice %w starts = [1, 2] strides = [1, -2] : (tensor<4x3xf32>) -> tensor<1x2xf32>
  // A real slice stays.
  // CHECK-DAG: %[[KEEP:.*]] = dist.slice %[[X]] starts = [1, 0] strides = [1, 1]
  %4 = dist.slice %x starts = [1, 0] strides = [1, 1] : (tensor<2x3xf32>) -> tensor<1x3xf32>
  // CHECK: return %[[X]], %[[B]], %[[X]], %[[S]], %[[KEEP]]
  return %0, %1, %2, %3, %4 : tensor<2x3xf32>, tensor<4x2x3xf32>, tensor<2x3xf32>, tensor<1x2xf32>, tensor<1x3xf32>
}

// -----

// CHECK-LABEL: func @concat_split
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
func.func @concat_split(%x: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>) {
  %0 = dist.concat %x axis = 1 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %1 = dist.split %x axis = 0 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK-NOT: dist.
  // CHECK: return %[[X]], %[[X]]
  return %0, %1 : tensor<2x3xf32>, tensor<2x3xf32>
}

// -----

// rem folds like C fmod: the result takes the dividend's sign.
// CHECK-LABEL: func @fold_rem
// CHECK-DAG: dist.constant dense<[1, -3, 1]> : tensor<3xi64>
// CHECK-DAG: dist.constant dense<[1.500000e+00, -1.000000e+00]> : tensor<2xf32>
// CHECK-NOT: dist.rem
func.func @fold_rem() -> (tensor<3xi64>, tensor<2xf32>) {
  %i = dist.constant dense<[7, -3, 7]> : tensor<3xi64>
  %j = dist.constant dense<[2, 5, -3]> : tensor<3xi64>
  %a = dist.constant dense<[5.5, -7.0]> : tensor<2xf32>
  %b = dist.constant dense<[2.0, 3.0]> : tensor<2xf32>
  %0 = dist.rem %i, %j : (tensor<3xi64>, tensor<3xi64>) -> tensor<3xi64>
  %1 = dist.rem %a, %b : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  return %0, %1 : tensor<3xi64>, tensor<2xf32>
}

// -----

// A zero divisor, and unsigned operands (the folds are signed), are left
// for run time.
// CHECK-LABEL: func @no_fold_rem
// CHECK-COUNT-2: dist.rem
func.func @no_fold_rem() -> (tensor<2xi64>, tensor<2xui8>) {
  %i = dist.constant dense<[7, -3]> : tensor<2xi64>
  %z = dist.constant dense<[1, 0]> : tensor<2xi64>
  %u = dist.constant dense<[200, 7]> : tensor<2xui8>
  %v = dist.constant dense<[3, 2]> : tensor<2xui8>
  %0 = dist.rem %i, %z : (tensor<2xi64>, tensor<2xi64>) -> tensor<2xi64>
  %1 = dist.rem %u, %v : (tensor<2xui8>, tensor<2xui8>) -> tensor<2xui8>
  return %0, %1 : tensor<2xi64>, tensor<2xui8>
}

// -----

// A slice of a constant is computed: GPT-2's causal-mask buffer sliced to the
// sequence length becomes a small constant (rows 1..2, columns 0 and 2).
// CHECK-LABEL: func.func @slice_of_constant
// CHECK: %[[C:.*]] = dist.constant dense<{{\[}}[4, 6], [7, 9]]> : tensor<2x2xi32>
// CHECK: return %[[C]]
func.func @slice_of_constant() -> tensor<2x2xi32> {
  %c = dist.constant dense<[[1, 2, 3], [4, 5, 6], [7, 8, 9]]> : tensor<3x3xi32>
  %s = dist.slice %c starts = [1, 0] strides = [1, 2] : (tensor<3x3xi32>) -> tensor<2x2xi32>
  return %s : tensor<2x2xi32>
}

// -----

// CHECK-LABEL: func.func @slice_of_bool_constant
// CHECK: dist.constant dense<{{\[}}[true, false], [true, true]]> : tensor<2x2xi1>
func.func @slice_of_bool_constant() -> tensor<2x2xi1> {
  %c = dist.constant dense<[[true, false, false], [true, true, false], [true, true, true]]> : tensor<3x3xi1>
  %s = dist.slice %c starts = [0, 0] strides = [1, 1] : (tensor<3x3xi1>) -> tensor<2x2xi1>
  return %s : tensor<2x2xi1>
}
