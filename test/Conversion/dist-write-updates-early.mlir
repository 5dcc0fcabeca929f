// RUN: dist-opt %s --split-input-file --pass-pipeline='builtin.module(dist-write-updates-early{entry=step})' | FileCheck %s

// Result #1 updates argument #0 and is computed from it element by element:
// the op writes it into the argument itself (its out-parameter's memory at
// run time); the temporary and its copy are gone. Result #0 is an output:
// it is computed into its out-parameter.
// CHECK-LABEL: func.func @step
// CHECK-NOT: memref.alloc
// CHECK: linalg.generic {{.*}} ins(%arg0 : memref<4xf32>) outs(%arg0 : memref<4xf32>)
// CHECK: linalg.generic {{.*}} ins(%arg1 : memref<4xf32>) outs(%arg2 : memref<4xf32>)
// CHECK-NOT: memref.copy
// CHECK: return
#id = affine_map<(d0) -> (d0)>
module attributes {dist.model_updates = array<i64: -1, 0>} {
  func.func @step(%p: memref<4xf32>, %x: memref<4xf32>, %out0: memref<4xf32>, %out1: memref<4xf32>) {
    %new = memref.alloc() : memref<4xf32>
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%p : memref<4xf32>) outs(%new : memref<4xf32>) {
    ^bb0(%a: f32, %b: f32):
      %s = arith.addf %a, %a : f32
      linalg.yield %s : f32
    }
    %o = memref.alloc() : memref<4xf32>
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%x : memref<4xf32>) outs(%o : memref<4xf32>) {
    ^bb0(%a: f32, %b: f32):
      linalg.yield %a : f32
    }
    memref.copy %o, %out0 : memref<4xf32> to memref<4xf32>
    memref.copy %new, %out1 : memref<4xf32> to memref<4xf32>
    return
  }
}

// -----

// An optimizer's fused update: one op reads the parameter, its moment and
// the gradient and writes the new parameter and moment. Both are computed
// in place; the new moment is read afterwards from its argument.
// CHECK-LABEL: func.func @step
// CHECK-NOT: memref.alloc
// CHECK: linalg.generic {{.*}} ins(%arg0, %arg1, %arg2 : memref<2x3xf32>, memref<2x3xf32>, memref<2x3xf32>) outs(%arg0, %arg1 : memref<2x3xf32>, memref<2x3xf32>)
// CHECK: linalg.generic {{.*}} ins(%arg1 : memref<2x3xf32>) outs(%arg3 : memref<2x3xf32>)
// CHECK-NOT: memref.copy
// CHECK: return
#id2 = affine_map<(d0, d1) -> (d0, d1)>
module attributes {dist.model_updates = array<i64: -1, 0, 1>} {
  func.func @step(%p: memref<2x3xf32>, %m: memref<2x3xf32>, %g: memref<2x3xf32>, %out: memref<2x3xf32>, %outP: memref<2x3xf32>, %outM: memref<2x3xf32>) {
    %newP = memref.alloc() : memref<2x3xf32>
    %newM = memref.alloc() : memref<2x3xf32>
    linalg.generic {indexing_maps = [#id2, #id2, #id2, #id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%p, %m, %g : memref<2x3xf32>, memref<2x3xf32>, memref<2x3xf32>) outs(%newP, %newM : memref<2x3xf32>, memref<2x3xf32>) {
    ^bb0(%a: f32, %b: f32, %c: f32, %d: f32, %e: f32):
      %mm = arith.addf %b, %c : f32
      %pp = arith.subf %a, %mm : f32
      linalg.yield %pp, %mm : f32, f32
    }
    %o = memref.alloc() : memref<2x3xf32>
    linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%newM : memref<2x3xf32>) outs(%o : memref<2x3xf32>) {
    ^bb0(%a: f32, %b: f32):
      linalg.yield %a : f32
    }
    memref.copy %o, %out : memref<2x3xf32> to memref<2x3xf32>
    memref.copy %newP, %outP : memref<2x3xf32> to memref<2x3xf32>
    memref.copy %newM, %outM : memref<2x3xf32> to memref<2x3xf32>
    return
  }
}

// -----

// The update overwrites a buffer used before (bufferization reuses the dead
// gradient's): from that op on, the argument takes the buffer's place;
// the gradient keeps its buffer. In the second function a view of the
// buffer taken before the update is read after it: the copy stays.
// CHECK-LABEL: func.func @step
// CHECK: %[[G:.*]] = memref.alloc
// CHECK: linalg.generic {{.*}} ins(%arg1 : memref<4xf32>) outs(%[[G]] : memref<4xf32>)
// CHECK: linalg.generic {{.*}} ins(%arg0, %[[G]] : memref<4xf32>, memref<4xf32>) outs(%arg0 : memref<4xf32>)
// CHECK-NEXT: ^bb0
// CHECK: }
// CHECK-NEXT: call @read_value(%arg0)
// CHECK-NOT: memref.copy
// CHECK: return
#id = affine_map<(d0) -> (d0)>
module attributes {dist.model_updates = array<i64: 0>} {
  func.func private @read_value(memref<4xf32>)
  func.func @step(%p: memref<4xf32>, %x: memref<4xf32>, %out0: memref<4xf32>) {
    %g = memref.alloc() : memref<4xf32>
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%x : memref<4xf32>) outs(%g : memref<4xf32>) {
    ^bb0(%a: f32, %b: f32):
      linalg.yield %a : f32
    }
    linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]} ins(%p, %g : memref<4xf32>, memref<4xf32>) outs(%g : memref<4xf32>) {
    ^bb0(%a: f32, %b: f32, %c: f32):
      %s = arith.subf %a, %b : f32
      linalg.yield %s : f32
    }
    call @read_value(%g) : (memref<4xf32>) -> ()
    memref.copy %g, %out0 : memref<4xf32> to memref<4xf32>
    return
  }
}

// -----

// CHECK-LABEL: func.func @step
// CHECK: linalg.generic
// CHECK: linalg.generic {{.*}} ins(%arg0, %[[G:.*]] : memref<4xf32>, memref<4xf32>) outs(%[[G]] : memref<4xf32>)
// CHECK: memref.copy %[[G]], %arg2
#id = affine_map<(d0) -> (d0)>
module attributes {dist.model_updates = array<i64: 0>} {
  func.func private @read_view(memref<?xf32>)
  func.func @step(%p: memref<4xf32>, %x: memref<4xf32>, %out0: memref<4xf32>) {
    %g = memref.alloc() : memref<4xf32>
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%x : memref<4xf32>) outs(%g : memref<4xf32>) {
    ^bb0(%a: f32, %b: f32):
      linalg.yield %a : f32
    }
    %view = memref.cast %g : memref<4xf32> to memref<?xf32>
    linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]} ins(%p, %g : memref<4xf32>, memref<4xf32>) outs(%g : memref<4xf32>) {
    ^bb0(%a: f32, %b: f32, %c: f32):
      %s = arith.subf %a, %b : f32
      linalg.yield %s : f32
    }
    call @read_view(%view) : (memref<?xf32>) -> ()
    memref.copy %g, %out0 : memref<4xf32> to memref<4xf32>
    return
  }
}

// -----

// An op after the update still reads the argument the copy overwrites: the
// update keeps its temporary and its copy at the end. The output is computed
// into its out-parameter.
// CHECK-LABEL: func.func @step
// CHECK: %[[NEW:.*]] = memref.alloc
// CHECK: linalg.generic {{.*}} outs(%[[NEW]] : memref<4xf32>)
// CHECK: linalg.generic {{.*}} ins(%arg0 : memref<4xf32>) outs(%arg2 : memref<4xf32>)
// CHECK-NOT: memref.copy
// CHECK: memref.copy %[[NEW]], %arg3
// CHECK-NEXT: return
#id = affine_map<(d0) -> (d0)>
module attributes {dist.model_updates = array<i64: -1, 0>} {
  func.func @step(%p: memref<4xf32>, %x: memref<4xf32>, %out0: memref<4xf32>, %out1: memref<4xf32>) {
    %new = memref.alloc() : memref<4xf32>
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%x : memref<4xf32>) outs(%new : memref<4xf32>) {
    ^bb0(%a: f32, %b: f32):
      linalg.yield %a : f32
    }
    %o = memref.alloc() : memref<4xf32>
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%p : memref<4xf32>) outs(%o : memref<4xf32>) {
    ^bb0(%a: f32, %b: f32):
      linalg.yield %a : f32
    }
    memref.copy %o, %out0 : memref<4xf32> to memref<4xf32>
    memref.copy %new, %out1 : memref<4xf32> to memref<4xf32>
    return
  }
}

// -----

// Updates that would read an element of the argument after writing another
// one in place keep their temporaries. Each copy moves up to right after its
// op, since nothing later reads the arguments:
// - the argument read transposed;
// - the argument read through a view;
// - a reduction (it reads the argument's element at every step);
// - the argument read inside the body, at another element;
// - the temporary first filled, then computed from the argument.
// CHECK-LABEL: func.func @step
// CHECK-COUNT-4: memref.copy %{{.*}}, %arg{{[6-9]}}
// CHECK: linalg.fill
// CHECK: linalg.generic
// CHECK: memref.copy %{{.*}}, %arg10
// CHECK-NEXT: return
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#t2 = affine_map<(d0, d1) -> (d1, d0)>
#row = affine_map<(d0, d1) -> (d0)>
module attributes {dist.model_updates = array<i64: 0, 1, 2, 3, 4>} {
  func.func @step(%a: memref<3x3xf32>, %b: memref<3x3xf32>, %c: memref<3xf32>, %d: memref<3xf32>, %e: memref<3xf32>, %w: memref<3x3xf32>,
                  %outA: memref<3x3xf32>, %outB: memref<3x3xf32>, %outC: memref<3xf32>, %outD: memref<3xf32>, %outE: memref<3xf32>) {
    %newA = memref.alloc() : memref<3x3xf32>
    linalg.generic {indexing_maps = [#t2, #id2], iterator_types = ["parallel", "parallel"]} ins(%a : memref<3x3xf32>) outs(%newA : memref<3x3xf32>) {
    ^bb0(%x: f32, %y: f32):
      linalg.yield %x : f32
    }
    memref.copy %newA, %outA : memref<3x3xf32> to memref<3x3xf32>
    %newB = memref.alloc() : memref<3x3xf32>
    %view = memref.cast %b : memref<3x3xf32> to memref<?x3xf32>
    %bb = memref.cast %view : memref<?x3xf32> to memref<3x3xf32>
    linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%bb : memref<3x3xf32>) outs(%newB : memref<3x3xf32>) {
    ^bb0(%x: f32, %y: f32):
      linalg.yield %x : f32
    }
    memref.copy %newB, %outB : memref<3x3xf32> to memref<3x3xf32>
    %newC = memref.alloc() : memref<3xf32>
    linalg.generic {indexing_maps = [#row, #id2, #row], iterator_types = ["parallel", "reduction"]} ins(%c, %w : memref<3xf32>, memref<3x3xf32>) outs(%newC : memref<3xf32>) {
    ^bb0(%x: f32, %v: f32, %y: f32):
      %p = arith.mulf %x, %v : f32
      %s = arith.addf %p, %y : f32
      linalg.yield %s : f32
    }
    memref.copy %newC, %outC : memref<3xf32> to memref<3xf32>
    %newD = memref.alloc() : memref<3xf32>
    %zero = arith.constant 0 : index
    linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} outs(%newD : memref<3xf32>) {
    ^bb0(%y: f32):
      %first = memref.load %d[%zero] : memref<3xf32>
      linalg.yield %first : f32
    }
    memref.copy %newD, %outD : memref<3xf32> to memref<3xf32>
    %newE = memref.alloc() : memref<3xf32>
    %f0 = arith.constant 0.0 : f32
    linalg.fill ins(%f0 : f32) outs(%newE : memref<3xf32>)
    linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%e : memref<3xf32>) outs(%newE : memref<3xf32>) {
    ^bb0(%x: f32, %y: f32):
      %s = arith.addf %x, %y : f32
      linalg.yield %s : f32
    }
    memref.copy %newE, %outE : memref<3xf32> to memref<3xf32>
    return
  }
}

// -----

// A call after the update reads the argument through a raw pointer (as the
// runtime's gemm does): the copy stays at the end.
// CHECK-LABEL: func.func @step
// CHECK: call @read_pointer
// CHECK: memref.copy %{{.*}}, %arg2
// CHECK-NEXT: return
#id = affine_map<(d0) -> (d0)>
module attributes {dist.model_updates = array<i64: 0>} {
  func.func private @read_pointer(i64)
  func.func @step(%p: memref<4xf32>, %x: memref<4xf32>, %out0: memref<4xf32>) {
    %base = memref.extract_aligned_pointer_as_index %p : memref<4xf32> -> index
    %ptr = arith.index_cast %base : index to i64
    %new = memref.alloc() : memref<4xf32>
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%x : memref<4xf32>) outs(%new : memref<4xf32>) {
    ^bb0(%a: f32, %b: f32):
      linalg.yield %a : f32
    }
    call @read_pointer(%ptr) : (i64) -> ()
    memref.copy %new, %out0 : memref<4xf32> to memref<4xf32>
    return
  }
}

// -----

// The update's buffer is first written by a copy of the argument (not an
// op that reads it in place), then by a runtime call through a raw pointer
// (as distrt's collectives write theirs): it keeps its temporary, and the
// copy moves no earlier than that call.
// CHECK-LABEL: func.func @step
// CHECK: memref.copy %arg0, %[[NEW:.*]] :
// CHECK: call @write_pointer
// CHECK-NEXT: memref.copy %[[NEW]], %arg2
// CHECK: call @other
module attributes {dist.model_updates = array<i64: 0>} {
  func.func private @write_pointer(i64)
  func.func private @other()
  func.func @step(%p: memref<4xf32>, %x: memref<4xf32>, %out0: memref<4xf32>) {
    %new = memref.alloc() : memref<4xf32>
    memref.copy %p, %new : memref<4xf32> to memref<4xf32>
    %base = memref.extract_aligned_pointer_as_index %new : memref<4xf32> -> index
    %ptr = arith.index_cast %base : index to i64
    call @write_pointer(%ptr) : (i64) -> ()
    call @other() : () -> ()
    memref.copy %new, %out0 : memref<4xf32> to memref<4xf32>
    return
  }
}
