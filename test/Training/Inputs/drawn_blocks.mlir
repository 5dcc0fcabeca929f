// Split draws (what dist-partition builds for a rank or a micro-batch):
// blocks of a 6x10 dropout mask, uniform and normal sample at run-time
// offsets, beside the whole ops (test/Training/drawn-blocks.test; x is
// all ones, like the dropout block's input).
func.func @forward(%x: tensor<6x10xf32> {dist.input_name = "x"},
                   %row: tensor<i64> {dist.input_name = "row"},
                   %col: tensor<i64> {dist.input_name = "col"})
    -> (tensor<6x10xf32> {dist.output_name = "dropout"},
        tensor<3x4xf32> {dist.output_name = "dropout_block"},
        tensor<6x10xf32> {dist.output_name = "uniform"},
        tensor<3x4xf32> {dist.output_name = "uniform_block"},
        tensor<6x10xf32> {dist.output_name = "normal"},
        tensor<3x4xf32> {dist.output_name = "normal_block"}) {
  %step = dist.constant dense<5> : tensor<i64>
  %d, %m = dist.dropout %x keys(%step : tensor<i64>) {ratio = 0.5 : f64, seed = 11 : i64} : tensor<6x10xf32>
  %xb = dist.constant dense<1.0> : tensor<3x4xf32>
  %db, %mb = dist.dropout %xb keys(%step : tensor<i64>) offsets(%row, %col : tensor<i64>, tensor<i64>) {ratio = 0.5 : f64, seed = 11 : i64, whole_shape = array<i64: 6, 10>} : tensor<3x4xf32>
  %u = dist.random_uniform keys(%step : tensor<i64>) {low = -1.0 : f64, high = 1.0 : f64, seed = 12 : i64} : tensor<6x10xf32>
  %ub = dist.random_uniform keys(%step : tensor<i64>) offsets(%row, %col : tensor<i64>, tensor<i64>) {low = -1.0 : f64, high = 1.0 : f64, seed = 12 : i64, whole_shape = array<i64: 6, 10>} : tensor<3x4xf32>
  %n = dist.random_normal keys(%step : tensor<i64>) {mean = 0.0 : f64, scale = 1.0 : f64, seed = 13 : i64} : tensor<6x10xf32>
  %nb = dist.random_normal keys(%step : tensor<i64>) offsets(%row, %col : tensor<i64>, tensor<i64>) {mean = 0.0 : f64, scale = 1.0 : f64, seed = 13 : i64, whole_shape = array<i64: 6, 10>} : tensor<3x4xf32>
  return %d, %db, %u, %ub, %n, %nb : tensor<6x10xf32>, tensor<3x4xf32>, tensor<6x10xf32>, tensor<3x4xf32>, tensor<6x10xf32>, tensor<3x4xf32>
}
