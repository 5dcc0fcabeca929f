// dist.random_uniform and dist.random_normal keyed by a seed and a step
// given as inputs, so a forward executable shows their draws
// (test/Training/random-samples.test).
func.func @forward(%seed: tensor<i64> {dist.input_name = "seed"},
                   %step: tensor<i64> {dist.input_name = "step"})
    -> (tensor<128x512xf32> {dist.output_name = "uniform"},
        tensor<128x512xf32> {dist.output_name = "normal"},
        tensor<128x512xbf16> {dist.output_name = "uniform_bf16"}) {
  %u = dist.random_uniform keys(%seed, %step : tensor<i64>, tensor<i64>) {low = -1.0 : f64, high = 3.0 : f64, seed = 21 : i64} : tensor<128x512xf32>
  %n = dist.random_normal keys(%seed, %step : tensor<i64>, tensor<i64>) {mean = 2.0 : f64, scale = 0.5 : f64, seed = 22 : i64} : tensor<128x512xf32>
  %h = dist.random_uniform keys(%seed, %step : tensor<i64>, tensor<i64>) {low = 0.0 : f64, high = 1.0 : f64, seed = 23 : i64} : tensor<128x512xbf16>
  return %u, %n, %h : tensor<128x512xf32>, tensor<128x512xf32>, tensor<128x512xbf16>
}
