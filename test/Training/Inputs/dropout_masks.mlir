// Two dropouts of one input, keyed by a seed and a step given as inputs, so
// a forward executable shows their masks (y = mask / (1 - ratio) for x = 1).
func.func @forward(%x: tensor<128x512xf32> {dist.input_name = "x"},
                   %seed: tensor<i64> {dist.input_name = "seed"},
                   %step: tensor<i64> {dist.input_name = "step"})
    -> (tensor<128x512xf32> {dist.output_name = "a"},
        tensor<128x512xf32> {dist.output_name = "b"}) {
  %a, %ma = dist.dropout %x keys(%seed, %step : tensor<i64>, tensor<i64>) {ratio = 0.3 : f64, seed = 11 : i64} : tensor<128x512xf32>
  %b, %mb = dist.dropout %x keys(%seed, %step : tensor<i64>, tensor<i64>) {ratio = 0.3 : f64, seed = 12 : i64} : tensor<128x512xf32>
  return %a, %b : tensor<128x512xf32>, tensor<128x512xf32>
}
