// A loss and a gather whose labels and indices come from the caller.
func.func @forward(%x: tensor<2x3xf32> {dist.input_name = "x"},
                   %t: tensor<2xi64> {dist.input_name = "t"},
                   %i: tensor<2xi64> {dist.input_name = "i"})
    -> (tensor<f32> {dist.output_name = "loss"}, tensor<2x3xf32> {dist.output_name = "rows"}) {
  %0 = dist.cross_entropy mean, %x, %t {ignore_index = -100 : i64} : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<f32>
  %1 = dist.gather %x[%i] axis = 0 : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<2x3xf32>
  return %0, %1 : tensor<f32>, tensor<2x3xf32>
}
