// RUN: dist-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(dist-linalg-to-gpu))' | FileCheck %s
// RUN: echo 'func.func @f() { return }' | not dist-opt --pass-pipeline='builtin.module(func.func(dist-linalg-to-gpu{block-size=100}))' 2>&1 | FileCheck %s --check-prefix=BLOCK
// BLOCK: block-size 100 is not a power of 2 from 32 to 1024
// RUN: echo 'func.func @f() { return }' | not dist-opt --pass-pipeline='builtin.module(func.func(dist-linalg-to-gpu{vector-width=3}))' 2>&1 | FileCheck %s --check-prefix=WIDTH
// WIDTH: vector-width 3 is not 1, 2 or 4
// RUN: echo 'func.func @f() { return }' | not dist-opt --pass-pipeline='builtin.module(func.func(dist-linalg-to-gpu{split-blocks=-1}))' 2>&1 | FileCheck %s --check-prefix=SPLIT
// SPLIT: split-blocks -1 is not from 0 to 2^20
// RUN: dist-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(dist-linalg-to-gpu{split-blocks=0}))' | FileCheck %s --check-prefix=NOSPLIT
// RUN: dist-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(dist-linalg-to-gpu{transpose-tiles=false}))' | FileCheck %s --check-prefix=NOTILE

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
#bias = affine_map<(d0, d1) -> (d1)>

// Elementwise, 300 a multiple of 4: each thread takes 4 consecutive points
// (8 x 75 threads, 3 blocks), moving both operands and the result with one
// 16-byte vector access each.
// CHECK-LABEL: func.func @elementwise
// CHECK-DAG: %[[BLOCKS:.*]] = arith.constant 3 : index
// CHECK-DAG: %[[THREADS:.*]] = arith.constant 256 : index
// CHECK: gpu.launch blocks({{.*}}) in (%{{.*}} = %[[BLOCKS]], {{.*}}) threads({{.*}}) in (%{{.*}} = %[[THREADS]], {{.*}}) function(@elementwise_k0)
// CHECK: arith.cmpi ult, %{{.*}}, %c600
// CHECK: %[[A:.*]] = vector.load %arg0[{{.*}}] {alignment = 16 : i64} : memref<8x300xf32>, vector<4xf32>
// CHECK: %[[B:.*]] = vector.load %arg1[{{.*}}] {alignment = 16 : i64} : memref<300xf32>, vector<4xf32>
// CHECK-COUNT-4: arith.addf
// CHECK: %[[C:.*]] = vector.from_elements
// CHECK: vector.store %[[C]], %arg2[{{.*}}] {alignment = 16 : i64} : memref<8x300xf32>, vector<4xf32>
func.func @elementwise(%a: memref<8x300xf32>, %b: memref<300xf32>, %c: memref<8x300xf32>) {
  linalg.generic {indexing_maps = [#id, #bias, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a, %b : memref<8x300xf32>, memref<300xf32>) outs(%c : memref<8x300xf32>) {
  ^bb0(%x: f32, %y: f32, %out: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  }
  return
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#bias = affine_map<(d0, d1) -> (d1)>

// Elementwise: the 8x301 space linearized, 256 threads per block, 10 blocks (301 is not a multiple of 4: one point per thread),
// guarded; the coordinates come from the linear id (last dim fastest).
// CHECK-LABEL: func.func @elementwise_scalar
// CHECK-DAG: %[[BLOCKS:.*]] = arith.constant 10 : index
// CHECK-DAG: %[[THREADS:.*]] = arith.constant 256 : index
// CHECK: gpu.launch blocks(%[[BX:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %[[BLOCKS]], {{.*}}) threads(%[[TX:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %[[THREADS]],
// CHECK: %[[BASE:.*]] = arith.muli %[[BX]], %{{.*}} : index
// CHECK: %[[ID:.*]] = arith.addi %[[BASE]], %[[TX]] : index
// CHECK: %[[IN:.*]] = arith.cmpi ult, %[[ID]], %{{.*}} : index
// CHECK: scf.if %[[IN]] {
// CHECK: arith.remui %[[ID]]
// CHECK: arith.divui %[[ID]]
// CHECK: memref.load %arg0
// CHECK: memref.load %arg1
// CHECK: arith.addf
// CHECK: memref.store
// CHECK-NOT: linalg.generic
func.func @elementwise_scalar(%a: memref<8x301xf32>, %b: memref<301xf32>, %c: memref<8x301xf32>) {
  linalg.generic {indexing_maps = [#id, #bias, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a, %b : memref<8x301xf32>, memref<301xf32>) outs(%c : memref<8x301xf32>) {
  ^bb0(%x: f32, %y: f32, %out: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  }
  return
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>

// A row reduction over 300 points: one block per row, 256 threads striding
// the row, a block-wide gpu.all_reduce (no atomics), thread 0 folds the
// total into the output.
// CHECK-LABEL: func.func @row_sum
// CHECK-DAG: %[[ROWS:.*]] = arith.constant 8 : index
// CHECK-DAG: %[[THREADS:.*]] = arith.constant 256 : index
// CHECK: gpu.launch blocks(%[[BX:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %[[ROWS]], {{.*}}) threads(%[[TX:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %[[THREADS]],
// CHECK: %[[PARTIAL:.*]] = scf.for %{{.*}} = %[[TX]] to %{{.*}} step %{{.*}} iter_args(%[[ACC:.*]] = %{{.*}}) -> (f32) {
// CHECK:   %[[X:.*]] = memref.load %arg0
// CHECK:   %[[SQ:.*]] = arith.mulf %[[X]], %[[X]]
// CHECK:   arith.addf %[[SQ]], %[[ACC]]
// CHECK: %[[TOTAL:.*]] = gpu.all_reduce add %[[PARTIAL]] uniform
// CHECK: %[[FIRST:.*]] = arith.cmpi eq, %[[TX]], %{{.*}} : index
// CHECK: scf.if %[[FIRST]] {
// CHECK:   %[[OLD:.*]] = memref.load %arg1
// CHECK:   %[[NEW:.*]] = arith.addf %[[TOTAL]], %[[OLD]]
// CHECK:   memref.store %[[NEW]], %arg1
func.func @row_sum(%a: memref<8x300xf32>, %out: memref<8xf32>) {
  linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%a : memref<8x300xf32>) outs(%out : memref<8xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %sq = arith.mulf %x, %x : f32
    %s = arith.addf %sq, %acc : f32
    linalg.yield %s : f32
  }
  return
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>

// A max over 300 points: gpu.all_reduce maximumf, the -inf identity.
// CHECK-LABEL: func.func @row_max
// CHECK: arith.constant 0xFF800000 : f32
// CHECK: gpu.all_reduce maximumf
func.func @row_max(%a: memref<8x300xf32>, %out: memref<8xf32>) {
  linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%a : memref<8x300xf32>) outs(%out : memref<8xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %m = arith.maximumf %x, %acc : f32
    linalg.yield %m : f32
  }
  return
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>

// A short reduction (10 classes): one thread per row runs the loop in order,
// as the CPU does; no block reduction.
// CHECK-LABEL: func.func @short_rows
// CHECK: gpu.launch
// CHECK: scf.if
// CHECK: scf.for %[[J:.*]] = %{{.*}} to %{{.*}} step
// CHECK:   memref.load %arg0
// CHECK:   memref.load %arg1
// CHECK:   arith.addf
// CHECK:   memref.store
// CHECK-NOT: gpu.all_reduce
func.func @short_rows(%a: memref<8x10xf32>, %out: memref<8xf32>) {
  linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%a : memref<8x10xf32>) outs(%out : memref<8xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %s = arith.addf %x, %acc : f32
    linalg.yield %s : f32
  }
  return
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>

// An argmax (two outputs that read each other) is not a plain combiner:
// serial, one thread per row.
// CHECK-LABEL: func.func @argmax
// CHECK: gpu.launch
// CHECK: scf.for
// CHECK-NOT: gpu.all_reduce
func.func @argmax(%a: memref<8x300xf32>, %max: memref<8xf32>, %arg: memref<8xi64>) {
  linalg.generic {indexing_maps = [#id, #row, #row], iterator_types = ["parallel", "reduction"]}
      ins(%a : memref<8x300xf32>) outs(%max, %arg : memref<8xf32>, memref<8xi64>) {
  ^bb0(%x: f32, %m: f32, %i: i64):
    %j = linalg.index 1 : index
    %ji = arith.index_cast %j : index to i64
    %gt = arith.cmpf ogt, %x, %m : f32
    %nm = arith.select %gt, %x, %m : f32
    %ni = arith.select %gt, %ji, %i : i64
    linalg.yield %nm, %ni : f32, i64
  }
  return
}

// -----

// Named ops are generalized first: a fill becomes an elementwise kernel
// (vectorized: 250 threads of 4, rounded up to 256).
// CHECK-LABEL: func.func @fill
// CHECK: gpu.launch {{.*}} threads({{.*}}) in (%{{.*}} = %c256
// CHECK: vector.store %{{.*}}, %arg0
func.func @fill(%a: memref<1000xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%a : memref<1000xf32>)
  return
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>

// Two rows of 500000 points, a sum and a max: one block per row would run
// 2 blocks. Each row is cut into 122 chunks of 4099 (each of 256 threads
// folds at least 16 values; about 1024 blocks wanted): 244 blocks write
// their totals to one temporary per output, then one block per row folds
// its 122 chunk totals (strided threads, then a block reduction: a
// fixed order) into the outputs.
// CHECK-LABEL: func.func @split_rows
// CHECK-DAG: %[[BLOCKS:.*]] = arith.constant 244 : index
// CHECK-DAG: %[[SUMS:.*]] = memref.alloc() : memref<244xf32>
// CHECK-DAG: %[[MAXES:.*]] = memref.alloc() : memref<244xf32>
// CHECK: gpu.launch blocks(%[[BX:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %[[BLOCKS]], {{.*}}) threads(%[[TX:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %c256{{.*}}, {{.*}}) function(@split_rows_k0)
// CHECK-DAG: %[[ROW:.*]] = arith.divui %[[BX]], %c122
// CHECK-DAG: %[[CHUNK:.*]] = arith.remui %[[BX]], %c122
// CHECK: %[[START:.*]] = arith.muli %[[CHUNK]], %c4099
// CHECK: %[[BEGIN:.*]] = arith.addi %[[START]], %[[TX]]
// CHECK: %[[NEXT:.*]] = arith.addi %[[START]], %c4099
// CHECK: %[[END:.*]] = arith.minui %[[NEXT]], %c500000
// CHECK: %[[PARTS:.*]]:2 = scf.for %{{.*}} = %[[BEGIN]] to %[[END]] step %c256
// CHECK: %[[R:.*]] = affine.apply #{{.*}}(%[[ROW]], %{{.*}})
// CHECK: memref.load %arg0[%[[R]], %{{.*}}]
// CHECK: %[[S:.*]] = gpu.all_reduce add %[[PARTS]]#0 uniform
// CHECK: %[[M:.*]] = gpu.all_reduce maximumf %[[PARTS]]#1 uniform
// CHECK: scf.if
// CHECK:   memref.store %[[S]], %[[SUMS]][%[[BX]]]
// CHECK:   memref.store %[[M]], %[[MAXES]][%[[BX]]]
// CHECK-NOT: %arg1
// CHECK: gpu.launch blocks(%[[BY:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %c2{{.*}}, {{.*}}) threads(%[[TY:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %c128{{.*}}, {{.*}}) function(@split_rows_k0_total)
// CHECK: %[[FIRST:.*]] = arith.muli %[[BY]], %c122
// CHECK: scf.for %[[J:.*]] = %{{.*}} to %{{.*}} step %c128{{.*}} iter_args
// CHECK:   memref.load %[[SUMS]][%[[J]]]
// CHECK:   arith.addf
// CHECK:   memref.load %[[MAXES]][%[[J]]]
// CHECK:   arith.maximumf
// CHECK: gpu.all_reduce add
// CHECK: gpu.all_reduce maximumf
// CHECK: scf.if
// CHECK:   affine.apply #{{.*}}(%[[BY]], %{{.*}})
// CHECK:   memref.load %arg1
// CHECK:   memref.load %arg2
// CHECK:   memref.store %{{.*}}, %arg1
// CHECK:   memref.store %{{.*}}, %arg2
// CHECK-DAG: memref.dealloc %[[SUMS]]
// CHECK-DAG: memref.dealloc %[[MAXES]]
// With split-blocks=0, one block per row.
// NOSPLIT-LABEL: func.func @split_rows
// NOSPLIT: gpu.launch blocks({{.*}}) in (%{{.*}} = %c2,
// NOSPLIT-NOT: gpu.launch
// NOSPLIT-NOT: memref.alloc
func.func @split_rows(%a: memref<2x500000xf32>, %sum: memref<2xf32>, %max: memref<2xf32>) {
  linalg.generic {indexing_maps = [#id, #row, #row], iterator_types = ["parallel", "reduction"]}
      ins(%a : memref<2x500000xf32>) outs(%sum, %max : memref<2xf32>, memref<2xf32>) {
  ^bb0(%x: f32, %s: f32, %m: f32):
    %ns = arith.addf %x, %s : f32
    %nm = arith.maximumf %x, %m : f32
    linalg.yield %ns, %nm : f32, f32
  }
  return
}

// -----

// A sum over the rows of each column (a bias's gradient): the innermost
// loop dimension is an output one, so one thread per column, consecutive
// threads on consecutive columns (a warp reads 32 consecutive floats of a
// row; one block per column would read 32 rows of one column). 4096 rows
// are cut into 256 chunks of 16 (about 1024 blocks x 256 threads wanted,
// each thread folding at least 16 values): 256 x 256 threads write their
// chunk totals, at [chunk * 256 + column], then one thread per column
// folds them in chunk order into the output. The folds keep their order:
// no reassoc on the adds inside the threads' loops.
#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @column_sum
// CHECK: %[[PARTS:.*]] = memref.alloc() : memref<65536xf32>
// CHECK: gpu.launch {{.*}} function(@column_sum_k0)
// CHECK: %[[ID:.*]] = arith.addi
// CHECK: scf.if
// CHECK-DAG: %[[COL:.*]] = arith.remui %[[ID]], %c256
// CHECK-DAG: %[[CHUNK:.*]] = arith.divui %[[ID]], %c256
// CHECK: %[[BEGIN:.*]] = arith.muli %[[CHUNK]], %c16
// CHECK: %[[NEXT:.*]] = arith.addi %[[BEGIN]], %c16
// CHECK: %[[END:.*]] = arith.minui %[[NEXT]], %c4096
// CHECK: %[[SUM:.*]] = scf.for %[[ROW:.*]] = %[[BEGIN]] to %[[END]] step %c1{{.*}} iter_args(%[[ACC:.*]] = %cst)
// CHECK:   %[[R:.*]] = affine.apply #{{.*}}(%[[ROW]], %[[COL]])
// CHECK:   %[[C:.*]] = affine.apply #{{.*}}(%[[ROW]], %[[COL]])
// CHECK:   %[[X:.*]] = memref.load %arg0[%[[R]], %[[C]]]
// CHECK:   arith.addf %[[X]], %[[ACC]] : f32
// CHECK: memref.store %[[SUM]], %[[PARTS]][%[[ID]]]
// CHECK: gpu.launch {{.*}} function(@column_sum_k0_total)
// CHECK: %[[ID2:.*]] = arith.addi
// CHECK: scf.if
// CHECK: %[[INIT:.*]] = memref.load %arg1
// CHECK: %[[TOTAL:.*]] = scf.for %[[K:.*]] = %c0{{.*}} to %c256{{.*}} step %c1{{.*}} iter_args(%[[T:.*]] = %[[INIT]])
// CHECK:   %[[AT0:.*]] = arith.muli %[[K]], %c256
// CHECK:   %[[AT:.*]] = arith.addi %[[AT0]], %[[ID2]]
// CHECK:   %[[P:.*]] = memref.load %[[PARTS]][%[[AT]]]
// CHECK:   arith.addf %[[P]], %[[T]] : f32
// CHECK: memref.store %[[TOTAL]], %arg1
// CHECK: memref.dealloc %[[PARTS]]
// Unsplit (split-blocks=0), each thread folds its column's 4096 rows in
// order straight into the output value, as the CPU does.
// NOSPLIT-LABEL: func.func @column_sum
// NOSPLIT-NOT: memref.alloc
// NOSPLIT: gpu.launch {{.*}} function(@column_sum_k0)
// NOSPLIT: %[[INIT:.*]] = memref.load %arg1
// NOSPLIT: %[[SUM:.*]] = scf.for %{{.*}} = %c0{{.*}} to %c4096{{.*}} step %c1{{.*}} iter_args(%{{.*}} = %[[INIT]])
// NOSPLIT: memref.store %[[SUM]], %arg1
// NOSPLIT-NOT: gpu.launch
// NOSPLIT: return
func.func @column_sum(%a: memref<4096x256xf32>, %out: memref<256xf32>) {
  linalg.generic {indexing_maps = [#id, #col], iterator_types = ["reduction", "parallel"]}
      ins(%a : memref<4096x256xf32>) outs(%out : memref<256xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %s = arith.addf %x, %acc fastmath<reassoc> : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// Fewer than 64 columns: one block per column, as for rows.
#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @few_columns
// CHECK: gpu.all_reduce add
func.func @few_columns(%a: memref<4096x16xf32>, %out: memref<16xf32>) {
  linalg.generic {indexing_maps = [#id, #col], iterator_types = ["reduction", "parallel"]}
      ins(%a : memref<4096x16xf32>) outs(%out : memref<16xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %s = arith.addf %x, %acc : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// The squared norm of a buffer the loops see transposed (d0 runs along
// its columns): the threads stride over the reduction space in the
// buffer's order, d1 outer and d0 inner, so consecutive threads read
// consecutive elements.
#t = affine_map<(d0, d1) -> (d1, d0)>
#scalar = affine_map<(d0, d1) -> ()>
// CHECK-LABEL: func.func @transposed_norm
// CHECK: scf.for %[[I:.*]] = {{.*}} step %c256
// CHECK-DAG: %[[OUTER:.*]] = arith.divui %[[I]], %c768
// CHECK-DAG: %[[INNER:.*]] = arith.remui %[[I]], %c768
// CHECK:   %[[R:.*]] = affine.apply #{{.*}}(%[[INNER]], %[[OUTER]])
// CHECK:   %[[C:.*]] = affine.apply #{{.*}}(%[[INNER]], %[[OUTER]])
// CHECK:   memref.load %arg0[%[[R]], %[[C]]] : memref<3072x768xf32>
func.func @transposed_norm(%a: memref<3072x768xf32>, %out: memref<f32>) {
  linalg.generic {indexing_maps = [#t, #scalar], iterator_types = ["reduction", "reduction"]}
      ins(%a : memref<3072x768xf32>) outs(%out : memref<f32>) {
  ^bb0(%x: f32, %acc: f32):
    %sq = arith.mulf %x, %x : f32
    %s = arith.addf %sq, %acc : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// A bf16 cast of a transposed weight (a product's operand under
// --precision=bf16): the input lies along d0, the output along d1. One
// block per 32 x 32 tile (24 x 96 of them), 256 threads: each stores 4
// elements of the input into the block's shared tile (consecutive threads
// along d0, the input's order), then after a barrier computes 4 points
// from the tile (consecutive threads along d1, the output's order). No
// bounds checks: the sizes are multiples of 32. transpose-tiles=false:
// one thread per point, 4 along d1.
#in = affine_map<(d0, d1) -> (d1, d0)>
#out = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @transposed_cast
// CHECK: gpu.launch blocks({{.*}}) in (%{{.*}} = %c2304, {{.*}}) threads({{.*}}) in (%{{.*}} = %c256{{.*}}) function(@transposed_cast_k0) workgroup(%[[TILE:.*]] : memref<32x33xf32, #gpu.address_space<workgroup>>)
// CHECK-NOT: scf.if
// CHECK: %[[X:.*]] = memref.load %arg0
// CHECK: memref.store %[[X]], %[[TILE]]
// CHECK-COUNT-3: memref.store %{{.*}}, %[[TILE]]
// CHECK: gpu.barrier
// CHECK: %[[V:.*]] = memref.load %[[TILE]]
// CHECK: %[[H:.*]] = arith.truncf %[[V]] : f32 to bf16
// CHECK: memref.store %[[H]], %arg1
// CHECK-COUNT-3: arith.truncf
// NOSPLIT-LABEL: func.func @transposed_cast
// NOSPLIT: gpu.barrier
// NOTILE-LABEL: func.func @transposed_cast
// NOTILE-NOT: gpu.barrier
// NOTILE: return
func.func @transposed_cast(%w: memref<3072x768xf32>, %out: memref<768x3072xbf16>) {
  linalg.generic {indexing_maps = [#in, #out], iterator_types = ["parallel", "parallel"]}
      ins(%w : memref<3072x768xf32>) outs(%out : memref<768x3072xbf16>) {
  ^bb0(%x: f32, %o: bf16):
    %h = arith.truncf %x : f32 to bf16
    linalg.yield %h : bf16
  }
  return
}
