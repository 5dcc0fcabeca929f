// A scatter-add (an embedding gradient) into 5000 rows of 96: 8000 updates,
// every third one into row 7, ids from -5000 to 4999 (scatter-add-order.test).
func.func @forward(%dest: tensor<5000x96xf32>, %ids: tensor<4x2000xi64>, %upd: tensor<4x2000x96xf32>) -> tensor<5000x96xf32> {
  %g = dist.scatter_add %dest[%ids] = %upd axis = 0
      : (tensor<5000x96xf32>, tensor<4x2000xi64>, tensor<4x2000x96xf32>) -> tensor<5000x96xf32>
  return %g : tensor<5000x96xf32>
}
