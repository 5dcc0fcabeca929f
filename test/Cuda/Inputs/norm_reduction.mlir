// The squared norm of a 1024 x 1024 buffer: one output point, 1M values
// (kernel-shapes.test).
#id = affine_map<(d0, d1) -> (d0, d1)>
#scalar = affine_map<(d0, d1) -> ()>
func.func @norm(%a: memref<1024x1024xf32>, %out: memref<f32>) {
  linalg.generic {indexing_maps = [#id, #scalar], iterator_types = ["reduction", "reduction"]}
      ins(%a : memref<1024x1024xf32>) outs(%out : memref<f32>) {
  ^bb0(%x: f32, %acc: f32):
    %sq = arith.mulf %x, %x : f32
    %s = arith.addf %sq, %acc : f32
    linalg.yield %s : f32
  }
  return
}
