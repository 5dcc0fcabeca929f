// A column sum (a bias's gradient) and a transpose (kernel-shapes.test).
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
