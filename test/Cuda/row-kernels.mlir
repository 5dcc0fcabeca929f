// RUN: dist-opt %s --pass-pipeline='builtin.module(func.func(dist-row-kernels))' | FileCheck %s
// RUN: dist-opt %s --pass-pipeline='builtin.module(func.func(dist-row-kernels{row-elements=0}))' | FileCheck %s --check-prefix=OFF
// RUN: dist-opt %s --pass-pipeline='builtin.module(func.func(dist-row-kernels{row-elements=1}))' | FileCheck %s --check-prefix=ONE
// RUN: echo 'func.func @f() { return }' | not dist-opt --pass-pipeline='builtin.module(func.func(dist-row-kernels{block-size=48}))' 2>&1 | FileCheck %s --check-prefix=BLOCK
// BLOCK: block-size 48 is not a power of 2 from 32 to 1024
// RUN: echo 'func.func @f() { return }' | not dist-opt --pass-pipeline='builtin.module(func.func(dist-row-kernels{row-elements=65}))' 2>&1 | FileCheck %s --check-prefix=ELEMENTS
// ELEMENTS: row-elements 65 is not from 0 to 64
// OFF-NOT: gpu.launch
// With one column per thread of 256, rows of 300 (softmax) and 768 (layer
// norm) stay one kernel per op; rows of 128 are still fused.
// ONE-LABEL: func.func @softmax
// ONE-NOT: gpu.launch
// ONE-LABEL: func.func @layer_norm
// ONE-NOT: gpu.launch
// ONE-LABEL: func.func @other_column
// ONE: gpu.launch

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
#col = affine_map<(d0, d1) -> (d1)>
#rev = affine_map<(d0, d1) -> (d0, -d1 + 127)>
#r1 = affine_map<(d0) -> (d0)>

// Softmax's four ops over rows of 300 columns: one block of 256 threads per
// row, two columns per thread (the second only for threads below 44: its
// column clamped for loads, left out of the reductions and not stored).
// The masked scores and the row's max and sum live in registers: only the
// probabilities are stored, and the scores' buffer is gone.
// CHECK-LABEL: func.func @softmax
// CHECK-COUNT-3: memref.alloc()
// CHECK-NOT: memref.alloc()
// CHECK-DAG: %[[ROWS:.*]] = arith.constant 4 : index
// CHECK-DAG: %[[THREADS:.*]] = arith.constant 256 : index
// CHECK: gpu.launch blocks(%[[B:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %[[ROWS]], {{.*}}) threads(%[[T:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %[[THREADS]], {{.*}}) function(@softmax_r0)
// CHECK: %[[SECOND:.*]] = arith.addi %[[T]], %c256
// CHECK: %[[IN:.*]] = arith.cmpi ult, %[[SECOND]], %c300
// CHECK: %[[CLAMPED:.*]] = arith.select %[[IN]], %[[SECOND]], %c299
// CHECK-NOT: linalg.generic
// CHECK: %[[MAXIN:.*]] = arith.select %[[IN]]
// CHECK: gpu.all_reduce maximumf %[[MAXIN]] uniform
// CHECK: %[[SUMIN:.*]] = arith.select %[[IN]]
// CHECK: gpu.all_reduce add %[[SUMIN]] uniform
// CHECK: memref.store %{{.*}}, %[[P:.*]][{{.*}}] : memref<4x300xf32>
// CHECK-NEXT: scf.if %[[IN]] {
// CHECK: memref.store %{{.*}}, %[[P]][{{.*}}] : memref<4x300xf32>
// CHECK-NOT: memref.store
// CHECK: gpu.terminator
// CHECK-NOT: linalg.generic
// CHECK: return %[[P]]
func.func @softmax(%s: memref<4x300xf32>, %mask: memref<300xi1>) -> memref<4x300xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %scale = arith.constant 0.125 : f32
  %x = memref.alloc() : memref<4x300xf32>
  %p = memref.alloc() : memref<4x300xf32>
  linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%s, %mask : memref<4x300xf32>, memref<300xi1>) outs(%x : memref<4x300xf32>) {
  ^bb0(%in: f32, %m: i1, %out: f32):
    %a = arith.mulf %in, %scale : f32
    %b = arith.select %m, %a, %ninf : f32
    linalg.yield %b : f32
  }
  %max = memref.alloc() : memref<4xf32>
  linalg.fill ins(%ninf : f32) outs(%max : memref<4xf32>)
  linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<4x300xf32>) outs(%max : memref<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.maximumf %in, %out : f32
    linalg.yield %m : f32
  }
  %sum = memref.alloc() : memref<4xf32>
  linalg.fill ins(%zero : f32) outs(%sum : memref<4xf32>)
  linalg.generic {indexing_maps = [#id, #row, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x, %max : memref<4x300xf32>, memref<4xf32>) outs(%sum : memref<4xf32>) {
  ^bb0(%in: f32, %m: f32, %out: f32):
    %d = arith.subf %in, %m : f32
    %e = math.exp %d : f32
    %a = arith.addf %e, %out : f32
    linalg.yield %a : f32
  }
  linalg.generic {indexing_maps = [#id, #row, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %max, %sum : memref<4x300xf32>, memref<4xf32>, memref<4xf32>) outs(%p : memref<4x300xf32>) {
  ^bb0(%in: f32, %m: f32, %z: f32, %out: f32):
    %d = arith.subf %in, %m : f32
    %e = math.exp %d : f32
    %q = arith.divf %e, %z : f32
    linalg.yield %q : f32
  }
  memref.dealloc %x : memref<4x300xf32>
  memref.dealloc %max : memref<4xf32>
  memref.dealloc %sum : memref<4xf32>
  return %p : memref<4x300xf32>
}

// Layer norm: the mean (an op on one value per row), the variance from it,
// then the normalized row; three columns per thread. The mean is returned:
// thread 0 stores it; the variance is not read after.
// CHECK-LABEL: func.func @layer_norm
// CHECK: %[[MEAN:.*]] = memref.alloc() : memref<8xf32>
// CHECK: %[[Y:.*]] = memref.alloc() : memref<8x768xf32>
// CHECK: gpu.launch {{.*}} function(@layer_norm_r0)
// CHECK-COUNT-3: memref.load %arg0
// CHECK: %[[SUM:.*]] = gpu.all_reduce add
// CHECK: %[[TOTAL:.*]] = arith.addf %[[SUM]]
// CHECK: %[[M:.*]] = arith.divf %[[TOTAL]], %cst_0
// CHECK-NOT: memref.load %arg0
// CHECK: arith.subf %{{.*}}, %[[M]]
// CHECK: gpu.all_reduce add
// CHECK-COUNT-3: memref.store %{{.*}}, %[[Y]]
// CHECK: scf.if
// CHECK-NEXT: affine.apply
// CHECK-NEXT: memref.store %[[M]], %[[MEAN]]
// CHECK-NOT: memref.store
// CHECK: gpu.terminator
// CHECK-NOT: linalg.generic
// CHECK: return %[[Y]], %[[MEAN]]
func.func @layer_norm(%x: memref<8x768xf32>, %w: memref<768xf32>) -> (memref<8x768xf32>, memref<8xf32>) {
  %zero = arith.constant 0.0 : f32
  %n = arith.constant 768.0 : f32
  %sum = memref.alloc() : memref<8xf32>
  linalg.fill ins(%zero : f32) outs(%sum : memref<8xf32>)
  linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<8x768xf32>) outs(%sum : memref<8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %a = arith.addf %in, %out : f32
    linalg.yield %a : f32
  }
  %mean = memref.alloc() : memref<8xf32>
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%sum : memref<8xf32>) outs(%mean : memref<8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %d = arith.divf %in, %n : f32
    linalg.yield %d : f32
  }
  memref.dealloc %sum : memref<8xf32>
  %var = memref.alloc() : memref<8xf32>
  linalg.fill ins(%zero : f32) outs(%var : memref<8xf32>)
  linalg.generic {indexing_maps = [#id, #row, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x, %mean : memref<8x768xf32>, memref<8xf32>) outs(%var : memref<8xf32>) {
  ^bb0(%in: f32, %m: f32, %out: f32):
    %d = arith.subf %in, %m : f32
    %q = arith.mulf %d, %d : f32
    %a = arith.addf %q, %out : f32
    linalg.yield %a : f32
  }
  %y = memref.alloc() : memref<8x768xf32>
  linalg.generic {indexing_maps = [#id, #row, #row, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %mean, %var, %w : memref<8x768xf32>, memref<8xf32>, memref<8xf32>, memref<768xf32>) outs(%y : memref<8x768xf32>) {
  ^bb0(%in: f32, %m: f32, %v: f32, %g: f32, %out: f32):
    %d = arith.subf %in, %m : f32
    %s = arith.divf %v, %n : f32
    %r = math.rsqrt %s : f32
    %t = arith.mulf %d, %r : f32
    %u = arith.mulf %t, %g : f32
    linalg.yield %u : f32
  }
  memref.dealloc %var : memref<8xf32>
  return %y, %mean : memref<8x768xf32>, memref<8xf32>
}

// A member reading what the chain wrote at another column: the chain stops
// before it.
// A member reading a column another thread wrote: the chain stops before
// it, and what it reads is stored.
// CHECK-LABEL: func.func @other_column
// CHECK: %[[X:.*]] = memref.alloc() : memref<4x128xf32>
// CHECK: gpu.launch
// CHECK: memref.store %{{.*}}, %[[X]]
// CHECK: gpu.terminator
// CHECK: linalg.generic {{.*}} ins(%[[X]] :
func.func @other_column(%s: memref<4x128xf32>) -> (memref<4xf32>, memref<4x128xf32>) {
  %zero = arith.constant 0.0 : f32
  %x = memref.alloc() : memref<4x128xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%s : memref<4x128xf32>) outs(%x : memref<4x128xf32>) {
  ^bb0(%in: f32, %out: f32):
    %e = math.exp %in : f32
    linalg.yield %e : f32
  }
  %sum = memref.alloc() : memref<4xf32>
  linalg.fill ins(%zero : f32) outs(%sum : memref<4xf32>)
  linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<4x128xf32>) outs(%sum : memref<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %a = arith.addf %in, %out : f32
    linalg.yield %a : f32
  }
  %y = memref.alloc() : memref<4x128xf32>
  linalg.generic {indexing_maps = [#rev, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<4x128xf32>) outs(%y : memref<4x128xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  }
  return %sum, %y : memref<4xf32>, memref<4x128xf32>
}

// An op on one value per row overwriting a value a member read from
// memory, with no block reduction (barrier) between: thread 0's store could
// overtake another thread's read. The chain stops before it.
// CHECK-LABEL: func.func @overwrite_unsafe
// CHECK: gpu.launch
// CHECK: gpu.terminator
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel"]
func.func @overwrite_unsafe(%x: memref<4x128xf32>) -> (memref<4x128xf32>, memref<4xf32>) {
  %zero = arith.constant 0.0 : f32
  %s = memref.alloc() : memref<4xf32>
  linalg.fill ins(%zero : f32) outs(%s : memref<4xf32>)
  linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<4x128xf32>) outs(%s : memref<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %a = arith.addf %in, %out : f32
    linalg.yield %a : f32
  }
  %r = memref.alloc() : memref<4xf32>
  linalg.fill ins(%zero : f32) outs(%r : memref<4xf32>)
  %y = memref.alloc() : memref<4x128xf32>
  linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %r : memref<4x128xf32>, memref<4xf32>) outs(%y : memref<4x128xf32>) {
  ^bb0(%in: f32, %v: f32, %out: f32):
    %a = arith.subf %in, %v : f32
    linalg.yield %a : f32
  }
  linalg.generic {indexing_maps = [#r1, #r1], iterator_types = ["parallel"]}
      ins(%s : memref<4xf32>) outs(%r : memref<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  }
  memref.dealloc %s : memref<4xf32>
  return %y, %r : memref<4x128xf32>, memref<4xf32>
}

// The same with a reduction between the read and the overwrite (layer
// norm's backward reuses the mean's buffer for the variance): fused.
// CHECK-LABEL: func.func @overwrite_after_reduction
// CHECK: %[[R:.*]] = memref.alloc() : memref<4xf32>
// CHECK: gpu.launch
// CHECK: memref.load %[[R]]
// CHECK: gpu.all_reduce add
// CHECK: scf.if
// CHECK: memref.store %{{.*}}, %[[R]]
// CHECK: gpu.terminator
// CHECK-NOT: linalg.generic
func.func @overwrite_after_reduction(%x: memref<4x128xf32>) -> (memref<4x128xf32>, memref<4xf32>) {
  %zero = arith.constant 0.0 : f32
  %r = memref.alloc() : memref<4xf32>
  linalg.fill ins(%zero : f32) outs(%r : memref<4xf32>)
  %y = memref.alloc() : memref<4x128xf32>
  linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %r : memref<4x128xf32>, memref<4xf32>) outs(%y : memref<4x128xf32>) {
  ^bb0(%in: f32, %v: f32, %out: f32):
    %a = arith.subf %in, %v : f32
    linalg.yield %a : f32
  }
  %s = memref.alloc() : memref<4xf32>
  linalg.fill ins(%zero : f32) outs(%s : memref<4xf32>)
  linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%y : memref<4x128xf32>) outs(%s : memref<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %a = arith.addf %in, %out : f32
    linalg.yield %a : f32
  }
  linalg.generic {indexing_maps = [#r1, #r1], iterator_types = ["parallel"]}
      ins(%s : memref<4xf32>) outs(%r : memref<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  }
  memref.dealloc %s : memref<4xf32>
  return %y, %r : memref<4x128xf32>, memref<4xf32>
}

func.func private @use(index)

// A buffer whose address was taken before the chain may be read through
// it later: stored, though only deallocated after.
// CHECK-LABEL: func.func @escaped
// CHECK: %[[E:.*]] = memref.alloc() : memref<4x128xf32>
// CHECK: gpu.launch
// CHECK: memref.store %{{.*}}, %[[E]]
// CHECK: gpu.terminator
func.func @escaped(%x: memref<4x128xf32>) -> memref<4xf32> {
  %zero = arith.constant 0.0 : f32
  %e = memref.alloc() : memref<4x128xf32>
  %p = memref.extract_aligned_pointer_as_index %e : memref<4x128xf32> -> index
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<4x128xf32>) outs(%e : memref<4x128xf32>) {
  ^bb0(%in: f32, %out: f32):
    %a = math.exp %in : f32
    linalg.yield %a : f32
  }
  %s = memref.alloc() : memref<4xf32>
  linalg.fill ins(%zero : f32) outs(%s : memref<4xf32>)
  linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%e : memref<4x128xf32>) outs(%s : memref<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %a = arith.addf %in, %out : f32
    linalg.yield %a : f32
  }
  func.call @use(%p) : (index) -> ()
  memref.dealloc %e : memref<4x128xf32>
  return %s : memref<4xf32>
}

// An op between members that writes memory the chain read: the first member
// would see the new values if it ran before; no chain.
// CHECK-LABEL: func.func @interleaved_write
// CHECK-NOT: gpu.launch
// CHECK: linalg.generic
// CHECK: memref.copy
// CHECK: linalg.generic
func.func @interleaved_write(%x: memref<4x128xf32>, %t: memref<4x128xf32>) -> memref<4xf32> {
  %zero = arith.constant 0.0 : f32
  %e = memref.alloc() : memref<4x128xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<4x128xf32>) outs(%e : memref<4x128xf32>) {
  ^bb0(%in: f32, %out: f32):
    %a = math.exp %in : f32
    linalg.yield %a : f32
  }
  memref.copy %t, %x : memref<4x128xf32> to memref<4x128xf32>
  %s = memref.alloc() : memref<4xf32>
  linalg.fill ins(%zero : f32) outs(%s : memref<4xf32>)
  linalg.generic {indexing_maps = [#id, #id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%e, %x : memref<4x128xf32>, memref<4x128xf32>) outs(%s : memref<4xf32>) {
  ^bb0(%in: f32, %in2: f32, %out: f32):
    %m = arith.mulf %in, %in2 : f32
    %a = arith.addf %m, %out : f32
    linalg.yield %a : f32
  }
  memref.dealloc %e : memref<4x128xf32>
  return %s : memref<4xf32>
}

// Arguments may be the same memory: a member writing one and another member
// reading another (not at the same element of the same buffer) would race.
// CHECK-LABEL: func.func @arguments_may_alias
// CHECK-NOT: gpu.launch
func.func @arguments_may_alias(%x: memref<4x128xf32>, %y: memref<4x128xf32>, %s: memref<4xf32>) {
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<4x128xf32>) outs(%y : memref<4x128xf32>) {
  ^bb0(%in: f32, %out: f32):
    %a = math.exp %in : f32
    linalg.yield %a : f32
  }
  linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%y : memref<4x128xf32>) outs(%s : memref<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %a = arith.addf %in, %out : f32
    linalg.yield %a : f32
  }
  return
}

// The chain's first member writes %x, which the next op after the chain
// overwrites whole without reading it (buffer reuse): %x is not stored.
// CHECK-LABEL: func.func @overwritten_after
// CHECK: %[[X:.*]] = memref.alloc() : memref<4x128xf32>
// CHECK: gpu.launch
// CHECK-NOT: memref.store %{{.*}}, %[[X]][
// CHECK: gpu.terminator
// CHECK: %[[FLAT:.*]] = memref.collapse_shape %[[X]]
// CHECK: linalg.generic {{.*}} outs(%[[FLAT]] :
func.func @overwritten_after(%s: memref<4x128xf32>, %t: memref<512xf32>) -> (memref<4xf32>, memref<4x128xf32>) {
  %zero = arith.constant 0.0 : f32
  %x = memref.alloc() : memref<4x128xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%s : memref<4x128xf32>) outs(%x : memref<4x128xf32>) {
  ^bb0(%in: f32, %out: f32):
    %e = math.exp %in : f32
    linalg.yield %e : f32
  }
  %sum = memref.alloc() : memref<4xf32>
  linalg.fill ins(%zero : f32) outs(%sum : memref<4xf32>)
  linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<4x128xf32>) outs(%sum : memref<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %a = arith.addf %in, %out : f32
    linalg.yield %a : f32
  }
  %flat = memref.collapse_shape %x [[0, 1]] : memref<4x128xf32> into memref<512xf32>
  linalg.generic {indexing_maps = [#r1, #r1], iterator_types = ["parallel"]}
      ins(%t : memref<512xf32>) outs(%flat : memref<512xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  }
  return %sum, %x : memref<4xf32>, memref<4x128xf32>
}

// A view this pass does not follow (reinterpret_cast) may be any memory:
// the reduction reading it would otherwise read %a before the chain's
// deferred stores. No chain.
// CHECK-LABEL: func.func @unknown_view
// CHECK-NOT: gpu.launch
// CHECK: return
func.func @unknown_view(%x: memref<4x128xf32>, %s: memref<4xf32>) -> memref<4x128xf32> {
  %a = memref.alloc() : memref<4x128xf32>
  %v = memref.reinterpret_cast %a to offset: [0], sizes: [4, 128], strides: [128, 1] : memref<4x128xf32> to memref<4x128xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<4x128xf32>) outs(%a : memref<4x128xf32>) {
  ^bb0(%in: f32, %out: f32):
    %e = math.exp %in : f32
    linalg.yield %e : f32
  }
  linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%v : memref<4x128xf32>) outs(%s : memref<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.addf %in, %out : f32
    linalg.yield %r : f32
  }
  return %a : memref<4x128xf32>
}

// Rows of an empty space: left to dist-linalg-to-gpu (which erases them).
// CHECK-LABEL: func.func @no_rows
// CHECK-NOT: gpu.launch
// CHECK: return
func.func @no_rows(%x: memref<0x128xf32>, %s: memref<0xf32>) -> memref<0x128xf32> {
  %a = memref.alloc() : memref<0x128xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<0x128xf32>) outs(%a : memref<0x128xf32>) {
  ^bb0(%in: f32, %out: f32):
    %e = math.exp %in : f32
    linalg.yield %e : f32
  }
  linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%a : memref<0x128xf32>) outs(%s : memref<0xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.addf %in, %out : f32
    linalg.yield %r : f32
  }
  return %a : memref<0x128xf32>
}
