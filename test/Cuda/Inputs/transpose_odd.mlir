// A transpose whose tiles overhang both sizes (40 and 50 are not multiples
// of 32), in float32 and cast to bf16 (transpose-tiles.test).
func.func @forward(%x: tensor<3x40x50xf32>) -> (tensor<3x50x40xf32>, tensor<3x50x40xbf16>) {
  %t = dist.transpose %x permutation = [0, 2, 1] : (tensor<3x40x50xf32>) -> tensor<3x50x40xf32>
  %e = dist.exp %t : tensor<3x50x40xf32>
  %h = dist.cast %t : tensor<3x50x40xf32> to tensor<3x50x40xbf16>
  return %e, %h : tensor<3x50x40xf32>, tensor<3x50x40xbf16>
}
