// A column sum (a bias's gradient), a transpose and an update in place
// (kernel-shapes.test).
#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>
#t = affine_map<(d0, d1) -> (d1, d0)>
func.func @column_sum(%a: memref<4096x256xf32>, %out: memref<256xf32>) {
  linalg.generic {indexing_maps = [#id, #col], iterator_types = ["reduction", "parallel"]}
      ins(%a : memref<4096x256xf32>) outs(%out : memref<256xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %s = arith.addf %x, %acc : f32
    linalg.yield %s : f32
  }
  return
}
func.func @transpose(%a: memref<1024x1024xf32>, %out: memref<1024x1024xf32>) {
  linalg.generic {indexing_maps = [#id, #t], iterator_types = ["parallel", "parallel"]}
      ins(%a : memref<1024x1024xf32>) outs(%out : memref<1024x1024xf32>) {
  ^bb0(%x: f32, %o: f32):
    linalg.yield %x : f32
  }
  return
}
// An update in place (an optimizer's): each sector is read, then written.
func.func @scale_in_place(%p: memref<1024x1024xf32>) {
  %two = arith.constant 2.0 : f32
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%p : memref<1024x1024xf32>) outs(%p : memref<1024x1024xf32>) {
  ^bb0(%x: f32, %o: f32):
    %y = arith.mulf %x, %two : f32
    linalg.yield %y : f32
  }
  return
}
