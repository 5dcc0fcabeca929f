// Every error the dist verifiers and type inference can report, each at the
// op's location.
// RUN: dist-opt %s --split-input-file --verify-diagnostics

//===----------------------------------------------------------------------===//
// Parameters and the dist.parameter argument attribute
//===----------------------------------------------------------------------===//

// expected-error @+1 {{initial value of type 'tensor<2xf32>' does not match the parameter's type 'tensor<4xf32>'}}
dist.parameter @p : tensor<4xf32> = dense<0.0> : tensor<2xf32>

// -----

func.func @nested() {
  // expected-error @+1 {{expects parent op 'builtin.module'}}
  "dist.parameter"() <{sym_name = "p", type = tensor<4xf32>}> : () -> ()
  return
}

// -----

// expected-error @+1 {{'dist.parameter' op attribute 'type' failed to satisfy constraint: type attribute of statically shaped tensor}}
dist.parameter @p : tensor<?xf32>

// -----

// expected-error @+1 {{argument #0 reads parameter @missing, but no dist.parameter of that name is in scope}}
func.func @f(%w: tensor<4xf32> {dist.parameter = @missing}) {
  return
}

// -----

// expected-note @+1 {{parameter declared here}}
dist.parameter @w : tensor<4x8xf32>
// expected-error @+1 {{argument #1 has type 'tensor<8x4xf32>' but reads parameter @w of type 'tensor<4x8xf32>'}}
func.func @f(%x: tensor<2xf32>, %w: tensor<8x4xf32> {dist.parameter = @w}) {
  return
}

// -----

// expected-error @+1 {{'dist.parameter' of argument #0 must name a dist.parameter symbol (@name), got "w"}}
func.func @f(%w: tensor<4xf32> {dist.parameter = "w"}) {
  return
}

// -----

// expected-error @+1 {{unknown dist argument attribute 'dist.weight' on argument #0}}
func.func @f(%w: tensor<4xf32> {dist.weight = @w}) {
  return
}

//===----------------------------------------------------------------------===//
// Types
//===----------------------------------------------------------------------===//

// -----

func.func @dynamic(%x: tensor<?xf32>) {
  // expected-error @+1 {{'dist.exp' op operand #0 must be statically shaped tensor of 32-bit float or 16-bit float or bfloat16 type or 64-bit float values, but got 'tensor<?xf32>'}}
  %0 = dist.exp %x : tensor<?xf32>
  return
}

// -----

func.func @int_exp(%x: tensor<4xi32>) {
  // expected-error @+1 {{'dist.exp' op operand #0 must be statically shaped tensor of 32-bit float}}
  %0 = dist.exp %x : tensor<4xi32>
  return
}

// -----

func.func @unsigned(%x: tensor<4xui8>) {
  // expected-error @+1 {{'dist.neg' op operand #0 must be statically shaped tensor of}}
  %0 = dist.neg %x : tensor<4xui8>
  return
}

// -----

func.func @constant_type() {
  // expected-error @+1 {{'dist.constant' op result #0 must be statically shaped tensor of}}
  %0 = dist.constant dense<1> : tensor<4xi4>
  return
}

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

// -----

func.func @no_broadcast(%x: tensor<4x8xf32>, %y: tensor<4xf32>) {
  // expected-error @+2 {{'dist.add' op operand #1 of shape 4 does not broadcast with the shape of the operands before it (4x8): sizes must be equal or 1 when aligned on the right}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dist.add %x, %y : (tensor<4x8xf32>, tensor<4xf32>) -> tensor<4x8xf32>
  return
}

// -----

func.func @mixed_elements(%x: tensor<4xf32>, %y: tensor<4xbf16>) {
  // expected-error @+2 {{'dist.mul' op operand #1 has element type 'bf16' but operand #0 has 'f32': insert a dist.cast}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dist.mul %x, %y : (tensor<4xf32>, tensor<4xbf16>) -> tensor<4xf32>
  return
}

// -----

func.func @wrong_result(%x: tensor<4x1xf32>, %y: tensor<8xf32>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{'dist.sub' op inferred type(s) 'tensor<4x8xf32>' are incompatible with return type(s) of operation 'tensor<4x1xf32>'}}
  %0 = dist.sub %x, %y : (tensor<4x1xf32>, tensor<8xf32>) -> tensor<4x1xf32>
  return
}

// -----

func.func @compare_elements(%x: tensor<4xf32>, %y: tensor<4xi64>) {
  // expected-error @+2 {{'dist.compare' op operand #1 has element type 'i64' but operand #0 has 'f32'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dist.compare lt, %x, %y : (tensor<4xf32>, tensor<4xi64>) -> tensor<4xi1>
  return
}

// -----

func.func @select_shapes(%c: tensor<3xi1>, %x: tensor<4xf32>) {
  // expected-error @+2 {{'dist.select' op operand #1 of shape 4 does not broadcast with the shape of the operands before it (3)}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dist.select %c, %x, %x : (tensor<3xi1>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @select_elements(%c: tensor<4xi1>, %x: tensor<4xf32>, %y: tensor<4xf16>) {
  // expected-error @+2 {{'dist.select' op true_value has element type 'f32' but false_value has 'f16'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dist.select %c, %x, %y : (tensor<4xi1>, tensor<4xf32>, tensor<4xf16>) -> tensor<4xf32>
  return
}

// -----

func.func @cast_shape(%x: tensor<4xf32>) {
  // expected-error @+1 {{'dist.cast' op all non-scalar operands/results must have the same shape and base type}}
  %0 = dist.cast %x : tensor<4xf32> to tensor<8xbf16>
  return
}

// -----

func.func @dropout_ratio(%x: tensor<4xf32>) {
  // expected-error @+1 {{'dist.dropout' op ratio must be in [0, 1), got 1}}
  %0, %1 = dist.dropout %x {ratio = 1.0 : f64, seed = 0 : i64} : tensor<4xf32>
  return
}

// -----

func.func @dropout_type(%x: i32) {
  // expected-error @+1 {{custom op 'dist.dropout' invalid kind of type specified: expected builtin.tensor, but found 'i32'}}
  %0, %1 = dist.dropout %x {ratio = 0.5 : f64, seed = 0 : i64} : i32
  return
}

//===----------------------------------------------------------------------===//
// Contractions
//===----------------------------------------------------------------------===//

// -----

func.func @matmul_rank(%x: tensor<4xf32>, %y: tensor<4x8xf32>) {
  // expected-error @+2 {{'dist.matmul' op operands must have rank >= 2 (reshape vectors to matrices), got ranks 1 and 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dist.matmul %x, %y : (tensor<4xf32>, tensor<4x8xf32>) -> tensor<8xf32>
  return
}

// -----

func.func @attention_causal_sizes(%q: tensor<2x5x8xf32>, %k: tensor<2x7x8xf32>) {
  // expected-error @+2 {{'dist.attention' op causal attention needs as many queries as keys, got 5 and 7}}
  // expected-error @+1 {{failed to infer returned types}}
  %o, %l = dist.attention %q, %k, %k {causal, scale = 1.0 : f64} : (tensor<2x5x8xf32>, tensor<2x7x8xf32>, tensor<2x7x8xf32>) -> (tensor<2x5x8xf32>, tensor<2x5xf32>)
  return
}

// -----

func.func @attention_bf16(%q: tensor<2x5x8xbf16>) {
  // expected-error @+2 {{'dist.attention' op query, key and value must be float32, got 'bf16', 'bf16' and 'bf16'}}
  // expected-error @+1 {{failed to infer returned types}}
  %o, %l = dist.attention %q, %q, %q {scale = 1.0 : f64} : (tensor<2x5x8xbf16>, tensor<2x5x8xbf16>, tensor<2x5x8xbf16>) -> (tensor<2x5x8xbf16>, tensor<2x5xbf16>)
  return
}

// -----

func.func @attention_batch(%q: tensor<2x5x8xf32>, %k: tensor<3x5x8xf32>) {
  // expected-error @+2 {{'dist.attention' op query 2x5x8, key 3x5x8 and value 3x5x8 must have the same batch dimensions}}
  // expected-error @+1 {{failed to infer returned types}}
  %o, %l = dist.attention %q, %k, %k {scale = 1.0 : f64} : (tensor<2x5x8xf32>, tensor<3x5x8xf32>, tensor<3x5x8xf32>) -> (tensor<2x5x8xf32>, tensor<2x5xf32>)
  return
}

// -----

func.func @attention_grad_shapes(%q: tensor<2x5x8xf32>, %l: tensor<2x4xf32>) {
  // expected-error @+2 {{'dist.attention_grad' op result, logsumexp and result_grad must be 'tensor<2x5x8xf32>', 'tensor<2x5xf32>' and 'tensor<2x5x8xf32>', got 'tensor<2x5x8xf32>', 'tensor<2x4xf32>' and 'tensor<2x5x8xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %dq, %dk, %dv = dist.attention_grad %q, %q, %q, %q, %l, %q {scale = 1.0 : f64} : (tensor<2x5x8xf32>, tensor<2x5x8xf32>, tensor<2x5x8xf32>, tensor<2x5x8xf32>, tensor<2x4xf32>, tensor<2x5x8xf32>) -> (tensor<2x5x8xf32>, tensor<2x5x8xf32>, tensor<2x5x8xf32>)
  return
}

// -----

func.func @matmul_elements(%x: tensor<2x4xf32>, %y: tensor<4x8xf16>) {
  // expected-error @+2 {{'dist.matmul' op lhs has element type 'f32' but rhs has 'f16'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dist.matmul %x, %y : (tensor<2x4xf32>, tensor<4x8xf16>) -> tensor<2x8xf32>
  return
}

// -----

func.func @matmul_k(%x: tensor<2x4xf32>, %y: tensor<4x8xf32>) {
  // expected-error @+2 {{'dist.matmul' op contracting sizes differ: lhs 2x4 gives K = 2, rhs 4x8 gives K = 4}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dist.matmul %x, %y {transpose_lhs} : (tensor<2x4xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return
}

// -----

func.func @matmul_batch(%x: tensor<3x2x4xf32>, %y: tensor<2x4x8xf32>) {
  // expected-error @+2 {{'dist.matmul' op batch dimensions of lhs 3x2x4 and rhs 2x4x8 do not broadcast}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dist.matmul %x, %y : (tensor<3x2x4xf32>, tensor<2x4x8xf32>) -> tensor<3x2x8xf32>
  return
}

// -----

func.func @gemm_rank(%x: tensor<2x2x4xf32>, %y: tensor<4x8xf32>) {
  // expected-error @+2 {{'dist.gemm' op a and b must be matrices, got ranks 3 and 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dist.gemm %x, %y : (tensor<2x2x4xf32>, tensor<4x8xf32>) -> tensor<2x8xf32>
  return
}

// -----

func.func @gemm_elements(%x: tensor<2x4xbf16>, %y: tensor<4x8xf32>) {
  // expected-error @+2 {{'dist.gemm' op a has element type 'bf16' but b has 'f32'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dist.gemm %x, %y : (tensor<2x4xbf16>, tensor<4x8xf32>) -> tensor<2x8xf32>
  return
}

// -----

func.func @gemm_k(%x: tensor<2x4xf32>, %w: tensor<8x4xf32>) {
  // expected-error @+2 {{'dist.gemm' op contracting sizes differ: a 2x4 gives K = 4, b 8x4 gives K = 8}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dist.gemm %x, %w : (tensor<2x4xf32>, tensor<8x4xf32>) -> tensor<2x4xf32>
  return
}

// -----

func.func @gemm_bias(%x: tensor<2x4xf32>, %w: tensor<8x4xf32>, %b: tensor<4xf32>) {
  // expected-error @+2 {{'dist.gemm' op bias of type 'tensor<4xf32>' does not broadcast to the 2x8 result with element type 'f32'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dist.gemm %x, %w, %b {transpose_b} : (tensor<2x4xf32>, tensor<8x4xf32>, tensor<4xf32>) -> tensor<2x8xf32>
  return
}

//===----------------------------------------------------------------------===//
// Reductions, normalization, losses
//===----------------------------------------------------------------------===//

// -----

func.func @reduce_no_axes(%x: tensor<4x8xf32>) {
  // expected-error @+2 {{'dist.reduce_sum' op axes must name at least one dimension}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dist.reduce_sum %x axes = [] : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return
}

// -----

func.func @reduce_axis_range(%x: tensor<4x8xf32>) {
  // expected-error @+2 {{'dist.reduce_mean' op axis 2 is out of range for rank 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dist.reduce_mean %x axes = [2] : (tensor<4x8xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @reduce_axis_order(%x: tensor<4x8xf32>) {
  // expected-error @+2 {{'dist.reduce_max' op axes [1, 0] must be sorted and distinct}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dist.reduce_max %x axes = [1, 0] : (tensor<4x8xf32>) -> tensor<f32>
  return
}

// -----

func.func @reduce_result(%x: tensor<4x8xi32>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{'dist.reduce_min' op inferred type(s) 'tensor<4x1xi32>' are incompatible with return type(s) of operation 'tensor<4xi32>'}}
  %0 = dist.reduce_min %x axes = [1] {keep_dims} : (tensor<4x8xi32>) -> tensor<4xi32>
  return
}

// -----

func.func @softmax_axis(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'dist.softmax' op axis 2 is out of range for rank 2 (expected 0 <= axis < rank)}}
  %0 = dist.softmax %x axis = 2 : tensor<4x8xf32>
  return
}

// -----

func.func @log_softmax_axis(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'dist.log_softmax' op axis -1 is out of range for rank 2}}
  %0 = dist.log_softmax %x axis = -1 : tensor<4x8xf32>
  return
}

// -----

func.func @layer_norm_axis(%x: tensor<4x8xf32>, %g: tensor<8xf32>) {
  // expected-error @+2 {{'dist.layer_norm' op axis 2 is out of range for rank 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dist.layer_norm %x, %g, %g axis = 2 : (tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  return
}

// -----

func.func @layer_norm_epsilon(%x: tensor<4x8xf32>, %g: tensor<8xf32>) {
  // expected-error @+2 {{'dist.layer_norm' op epsilon must not be negative}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dist.layer_norm %x, %g, %g axis = 1 {epsilon = -1.0 : f64} : (tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  return
}

// -----

func.func @layer_norm_scale(%x: tensor<4x8xf32>, %g: tensor<4x8xf32>, %b: tensor<8xf32>) {
  // expected-error @+2 {{'dist.layer_norm' op scale of type 'tensor<4x8xf32>' must have the normalized shape 8 and element type 'f32'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dist.layer_norm %x, %g, %b axis = 1 : (tensor<4x8xf32>, tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  return
}

// -----

func.func @layer_norm_bias(%x: tensor<4x8xf32>, %g: tensor<8xf32>, %b: tensor<8xf16>) {
  // expected-error @+2 {{'dist.layer_norm' op bias of type 'tensor<8xf16>' must have the normalized shape 8 and element type 'f32'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dist.layer_norm %x, %g, %b axis = 1 : (tensor<4x8xf32>, tensor<8xf32>, tensor<8xf16>) -> tensor<4x8xf32>
  return
}

// -----

func.func @loss_rank(%x: tensor<8xf32>, %y: tensor<8xi64>) {
  // expected-error @+2 {{'dist.cross_entropy' op input must be N x C or N x C x d1 x ..., got rank 1}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dist.cross_entropy mean, %x, %y : (tensor<8xf32>, tensor<8xi64>) -> tensor<f32>
  return
}

// -----

func.func @loss_labels(%x: tensor<8x10x6xf32>, %y: tensor<8xi64>) {
  // expected-error @+2 {{'dist.nll_loss' op labels of shape 8 do not match input of shape 8x10x6: expected labels of shape 8x6}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dist.nll_loss mean, %x, %y : (tensor<8x10x6xf32>, tensor<8xi64>) -> tensor<f32>
  return
}

// -----

func.func @loss_label_type(%x: tensor<8x10xf32>, %y: tensor<8xf32>) {
  // expected-error @+1 {{'dist.cross_entropy' op operand #1 must be statically shaped tensor of 64-bit signless integer or 32-bit signless integer values}}
  %0 = dist.cross_entropy mean, %x, %y : (tensor<8x10xf32>, tensor<8xf32>) -> tensor<f32>
  return
}

//===----------------------------------------------------------------------===//
// Shapes
//===----------------------------------------------------------------------===//

// -----

func.func @transpose_perm(%x: tensor<2x3x4xf32>) {
  // expected-error @+2 {{'dist.transpose' op permutation [0, 2, 2] is not a permutation of the 3 dimensions of the input}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dist.transpose %x permutation = [0, 2, 2] : (tensor<2x3x4xf32>) -> tensor<2x4x4xf32>
  return
}

// -----

func.func @transpose_rank(%x: tensor<2x3x4xf32>) {
  // expected-error @+2 {{'dist.transpose' op permutation [1, 0] is not a permutation of the 3 dimensions of the input}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dist.transpose %x permutation = [1, 0] : (tensor<2x3x4xf32>) -> tensor<3x2x4xf32>
  return
}

// -----

func.func @reshape_size(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'dist.reshape' op input has 6 elements but the result type has 8}}
  %0 = dist.reshape %x : (tensor<2x3xf32>) -> tensor<8xf32>
  return
}

// -----

func.func @reshape_element(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'dist.reshape' op result element type 'f16' differs from the input's 'f32'}}
  %0 = dist.reshape %x : (tensor<2x3xf32>) -> tensor<6xf16>
  return
}

// -----

func.func @broadcast_rank(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'dist.broadcast' op cannot broadcast rank 2 to the lower rank 1}}
  %0 = dist.broadcast %x : (tensor<2x3xf32>) -> tensor<6xf32>
  return
}

// -----

func.func @broadcast_size(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'dist.broadcast' op input dimension 0 of size 2 cannot broadcast to size 4 (input 2x3, result 5x4x3)}}
  %0 = dist.broadcast %x : (tensor<2x3xf32>) -> tensor<5x4x3xf32>
  return
}

// -----

func.func @broadcast_element(%x: tensor<3xf32>) {
  // expected-error @+1 {{'dist.broadcast' op result element type 'i32' differs from the input's 'f32'}}
  %0 = dist.broadcast %x : (tensor<3xf32>) -> tensor<2x3xi32>
  return
}

// -----

func.func @slice_lengths(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'dist.slice' op input rank 2, result rank 2, 1 starts and 2 strides must all be equal}}
  %0 = dist.slice %x starts = [0] strides = [1, 1] : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return
}

// -----

func.func @slice_stride(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'dist.slice' op stride of dimension 1 is zero}}
  %0 = dist.slice %x starts = [0, 0] strides = [1, 0] : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return
}

// -----

func.func @slice_bounds(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'dist.slice' op dimension 1 takes indices 4 to 10 (step 2) outside the input's size 8}}
  %0 = dist.slice %x starts = [0, 4] strides = [1, 2] : (tensor<4x8xf32>) -> tensor<4x4xf32>
  return
}

// -----

func.func @slice_element(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'dist.slice' op result element type 'f64' differs from the input's 'f32'}}
  %0 = dist.slice %x starts = [0, 0] strides = [1, 1] : (tensor<4x8xf32>) -> tensor<4x8xf64>
  return
}

// -----

func.func @concat_empty() {
  // expected-error @+2 {{'dist.concat' op needs at least one input}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dist.concat axis = 0 : () -> tensor<4xf32>
  return
}

// -----

func.func @concat_axis(%x: tensor<4x8xf32>) {
  // expected-error @+2 {{'dist.concat' op axis 2 is out of range for rank 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dist.concat %x, %x axis = 2 : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x16xf32>
  return
}

// -----

func.func @concat_shapes(%x: tensor<4x8xf32>, %y: tensor<5x8xf32>) {
  // expected-error @+2 {{'dist.concat' op input #1 of type 'tensor<5x8xf32>' does not match input #0 of type 'tensor<4x8xf32>' outside the concatenated axis 1}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dist.concat %x, %y axis = 1 : (tensor<4x8xf32>, tensor<5x8xf32>) -> tensor<4x16xf32>
  return
}

// -----

func.func @split_none(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'dist.split' op needs at least one result}}
  dist.split %x axis = 0 : (tensor<4x8xf32>) -> ()
  return
}

// -----

func.func @split_axis(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'dist.split' op axis 2 is out of range for rank 2}}
  %0 = dist.split %x axis = 2 : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return
}

// -----

func.func @split_shapes(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'dist.split' op result #1 of type 'tensor<3x4xf32>' does not match the input 'tensor<4x8xf32>' outside the split axis 1}}
  %0:2 = dist.split %x axis = 1 : (tensor<4x8xf32>) -> (tensor<4x4xf32>, tensor<3x4xf32>)
  return
}

// -----

func.func @split_sizes(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'dist.split' op result sizes along axis 1 add up to 6, not the input's 8}}
  %0:2 = dist.split %x axis = 1 : (tensor<4x8xf32>) -> (tensor<4x4xf32>, tensor<4x2xf32>)
  return
}

// -----

func.func @gather_padding_axis(%t: tensor<512x128xf32>, %ids: tensor<4xi64>) {
  // expected-error @+1 {{'dist.gather' op padding_idx needs axis 0 (an embedding lookup)}}
  %0 = dist.gather %t[%ids] axis = 1 {padding_idx = 0 : i64} : (tensor<512x128xf32>, tensor<4xi64>) -> tensor<512x4xf32>
  return
}

// -----

func.func @gather_padding_row(%t: tensor<512x128xf32>, %ids: tensor<4xi64>) {
  // expected-error @+1 {{'dist.gather' op padding_idx 512 is not a row of the 512-row table}}
  %0 = dist.gather %t[%ids] axis = 0 {padding_idx = 512 : i64} : (tensor<512x128xf32>, tensor<4xi64>) -> tensor<4x128xf32>
  return
}

// -----

func.func @gather_axis(%t: tensor<512x128xf32>, %ids: tensor<4xi64>) {
  // expected-error @+2 {{'dist.gather' op axis 2 is out of range for rank 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dist.gather %t[%ids] axis = 2 : (tensor<512x128xf32>, tensor<4xi64>) -> tensor<4x128xf32>
  return
}

// -----

func.func @trilu_rank(%x: tensor<8xf32>) {
  // expected-error @+1 {{'dist.trilu' op input must have rank >= 2 (it masks the last two dimensions), got rank 1}}
  %0 = dist.trilu %x : tensor<8xf32>
  return
}

//===----------------------------------------------------------------------===//
// Convolution, pooling, batch norm
//===----------------------------------------------------------------------===//

// -----

func.func @conv_rank(%x: tensor<8x3x32xf32>, %w: tensor<16x3x3x3xf32>) {
  // expected-error @+2 {{'dist.conv2d' op input must be N x C x H x W and weight F x C/groups x KH x KW}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dist.conv2d %x, %w : (tensor<8x3x32xf32>, tensor<16x3x3x3xf32>) -> tensor<8x16x30x30xf32>
  return
}

// -----

func.func @conv_elements(%x: tensor<8x3x32x32xf32>, %w: tensor<16x3x3x3xf16>) {
  // expected-error @+2 {{'dist.conv2d' op input has element type 'f32' but weight has 'f16'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dist.conv2d %x, %w : (tensor<8x3x32x32xf32>, tensor<16x3x3x3xf16>) -> tensor<8x16x30x30xf32>
  return
}

// -----

func.func @conv_strides(%x: tensor<8x3x32x32xf32>, %w: tensor<16x3x3x3xf32>) {
  // expected-error @+2 {{'dist.conv2d' op strides [0, 1] must be two positive integers}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dist.conv2d %x, %w {strides = array<i64: 0, 1>} : (tensor<8x3x32x32xf32>, tensor<16x3x3x3xf32>) -> tensor<8x16x30x30xf32>
  return
}

// -----

func.func @conv_dilations(%x: tensor<8x3x32x32xf32>, %w: tensor<16x3x3x3xf32>) {
  // expected-error @+2 {{'dist.conv2d' op dilations [1] must be two positive integers}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dist.conv2d %x, %w {dilations = array<i64: 1>} : (tensor<8x3x32x32xf32>, tensor<16x3x3x3xf32>) -> tensor<8x16x30x30xf32>
  return
}

// -----

func.func @conv_pads(%x: tensor<8x3x32x32xf32>, %w: tensor<16x3x3x3xf32>) {
  // expected-error @+2 {{'dist.conv2d' op pads [1, 1] must be four non-negative integers [top, left, bottom, right]}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dist.conv2d %x, %w {pads = array<i64: 1, 1>} : (tensor<8x3x32x32xf32>, tensor<16x3x3x3xf32>) -> tensor<8x16x32x32xf32>
  return
}

// -----

func.func @conv_groups(%x: tensor<8x6x32x32xf32>, %w: tensor<16x3x3x3xf32>) {
  // expected-error @+2 {{'dist.conv2d' op groups = 4 must be positive and divide both the 6 input channels and the 16 filters}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dist.conv2d %x, %w {groups = 4 : i64} : (tensor<8x6x32x32xf32>, tensor<16x3x3x3xf32>) -> tensor<8x16x30x30xf32>
  return
}

// -----

func.func @conv_channels(%x: tensor<8x4x32x32xf32>, %w: tensor<16x3x3x3xf32>) {
  // expected-error @+2 {{'dist.conv2d' op weight expects 3 input channels (3 per group x 1 groups), input has 4}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dist.conv2d %x, %w : (tensor<8x4x32x32xf32>, tensor<16x3x3x3xf32>) -> tensor<8x16x30x30xf32>
  return
}

// -----

func.func @conv_bias(%x: tensor<8x3x32x32xf32>, %w: tensor<16x3x3x3xf32>, %b: tensor<8xf32>) {
  // expected-error @+2 {{'dist.conv2d' op bias of type 'tensor<8xf32>' must have one element per filter (16)}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dist.conv2d %x, %w, %b : (tensor<8x3x32x32xf32>, tensor<16x3x3x3xf32>, tensor<8xf32>) -> tensor<8x16x30x30xf32>
  return
}

// -----

func.func @conv_window(%x: tensor<8x3x2x32xf32>, %w: tensor<16x3x3x3xf32>) {
  // expected-error @+2 {{'dist.conv2d' op window of extent 3 does not fit spatial dimension 2 of size 2 with padding 0 + 0}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dist.conv2d %x, %w : (tensor<8x3x2x32xf32>, tensor<16x3x3x3xf32>) -> tensor<8x16x1x30xf32>
  return
}

// -----

func.func @pool_rank(%x: tensor<8x32x32xf32>) {
  // expected-error @+2 {{'dist.max_pool2d' op input must be N x C x H x W, got 'tensor<8x32x32xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dist.max_pool2d %x {kernel = array<i64: 2, 2>} : (tensor<8x32x32xf32>) -> tensor<8x16x16xf32>
  return
}

// -----

func.func @pool_kernel(%x: tensor<8x3x32x32xf32>) {
  // expected-error @+2 {{'dist.avg_pool2d' op kernel [2, 0] must be two positive integers}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dist.avg_pool2d %x {kernel = array<i64: 2, 0>} : (tensor<8x3x32x32xf32>) -> tensor<8x3x31x32xf32>
  return
}

// -----

func.func @pool_strides(%x: tensor<8x3x32x32xf32>) {
  // expected-error @+2 {{'dist.avg_pool2d' op strides [2, -2] must be two positive integers}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dist.avg_pool2d %x {kernel = array<i64: 2, 2>, strides = array<i64: 2, -2>} : (tensor<8x3x32x32xf32>) -> tensor<8x3x16x16xf32>
  return
}

// -----

func.func @pool_pads(%x: tensor<8x3x32x32xf32>) {
  // expected-error @+2 {{'dist.max_pool2d' op pads [0, 0, 2, 0] must be smaller than the kernel [2, 2]}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dist.max_pool2d %x {kernel = array<i64: 2, 2>, pads = array<i64: 0, 0, 2, 0>} : (tensor<8x3x32x32xf32>) -> tensor<8x3x33x31xf32>
  return
}

// -----

func.func @pool_window(%x: tensor<8x3x1x32xf32>) {
  // expected-error @+2 {{'dist.max_pool2d' op window of extent 3 does not fit spatial dimension 2 of size 1 with padding 0 + 0}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dist.max_pool2d %x {kernel = array<i64: 3, 3>} : (tensor<8x3x1x32xf32>) -> tensor<8x3x1x30xf32>
  return
}

// -----

func.func @global_pool_rank(%x: tensor<8x3xf32>) {
  // expected-error @+2 {{'dist.global_avg_pool' op input must be N x C x d1 x ..., got 'tensor<8x3xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dist.global_avg_pool %x : (tensor<8x3xf32>) -> tensor<8x3xf32>
  return
}

// -----

func.func @batch_norm_rank(%x: tensor<8xf32>, %c: tensor<8xf32>) {
  // expected-error @+2 {{'dist.batch_norm' op input must be N x C x ..., got 'tensor<8xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dist.batch_norm %x, %c, %c, %c, %c : (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  return
}

// -----

func.func @batch_norm_epsilon(%x: tensor<8x4xf32>, %c: tensor<4xf32>) {
  // expected-error @+2 {{'dist.batch_norm' op epsilon must not be negative}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dist.batch_norm %x, %c, %c, %c, %c {epsilon = -1.0 : f64} : (tensor<8x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<8x4xf32>
  return
}

// -----

func.func @batch_norm_channels(%x: tensor<8x4xf32>, %c: tensor<4xf32>, %v: tensor<8xf32>) {
  // expected-error @+2 {{'dist.batch_norm' op variance of type 'tensor<8xf32>' must be a vector of 4 'f32' (one per channel)}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dist.batch_norm %x, %c, %c, %c, %v : (tensor<8x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<8xf32>) -> tensor<8x4xf32>
  return
}

//===----------------------------------------------------------------------===//
// Input and output names
//===----------------------------------------------------------------------===//

// -----

// expected-error @+1 {{'dist.input_name' of argument #0 must be a string}}
func.func @f(%x: tensor<4xf32> {dist.input_name = 3 : i64}) {
  return
}

// -----

// expected-error @+1 {{'dist.output_name' of result #0 must be a string}}
func.func @f(%x: tensor<4xf32>) -> (tensor<4xf32> {dist.output_name = 1 : i64}) {
  return %x : tensor<4xf32>
}

// -----

// expected-error @+1 {{unknown dist result attribute 'dist.name' on result #0}}
func.func @f(%x: tensor<4xf32>) -> (tensor<4xf32> {dist.name = "y"}) {
  return %x : tensor<4xf32>
}

// -----

func.func @argmax_axis(%x: tensor<4x8xf32>) {
  // expected-error @+2 {{'dist.argmax' op axis 2 is out of range for rank 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dist.argmax %x axis = 2 : (tensor<4x8xf32>) -> tensor<4xi64>
  return
}

// -----

func.func @argmin_result(%x: tensor<4x8xf32>) {
  // expected-error @+2 {{'dist.argmin' op inferred type(s) 'tensor<4x1xi64>' are incompatible with return type(s) of operation 'tensor<4xi64>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dist.argmin %x axis = 1 {keep_dims} : (tensor<4x8xf32>) -> tensor<4xi64>
  return
}

// -----

func.func @cumsum_axis(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'dist.cumsum' op axis 3 is out of range for rank 2 (expected 0 <= axis < rank)}}
  %0 = dist.cumsum %x axis = 3 : tensor<4x8xf32>
  return
}

// -----

func.func @gather_elements_rank(%x: tensor<4x8xf32>, %i: tensor<4xi64>) {
  // expected-error @+2 {{'dist.gather_elements' op indices of rank 1 must have the rank of the input (2)}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dist.gather_elements %x[%i] axis = 1 : (tensor<4x8xf32>, tensor<4xi64>) -> tensor<4xf32>
  return
}

// -----

func.func @gather_elements_size(%x: tensor<4x8xf32>, %i: tensor<5x2xi64>) {
  // expected-error @+2 {{'dist.gather_elements' op indices of shape 5x2 exceed input of shape 4x8 on dimension 0}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dist.gather_elements %x[%i] axis = 1 : (tensor<4x8xf32>, tensor<5x2xi64>) -> tensor<5x2xf32>
  return
}

// -----

func.func @gather_elements_axis(%x: tensor<4x8xf32>, %i: tensor<4x2xi64>) {
  // expected-error @+2 {{'dist.gather_elements' op axis 2 is out of range for rank 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dist.gather_elements %x[%i] axis = 2 : (tensor<4x8xf32>, tensor<4x2xi64>) -> tensor<4x2xf32>
  return
}

// -----

func.func @loss_weight(%x: tensor<8x10xf32>, %y: tensor<8xi64>, %w: tensor<8xf32>) {
  // expected-error @+2 {{'dist.nll_loss' op weight must be a vector of one 'f32' per class (10), got 'tensor<8xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dist.nll_loss mean, %x, %y weight %w : (tensor<8x10xf32>, tensor<8xi64>, tensor<8xf32>) -> tensor<f32>
  return
}

// -----

func.func @sqrt_unsigned(%x: tensor<4xui8>) {
  // expected-error @+1 {{'dist.sqrt' op operand #0 must be statically shaped tensor of 32-bit float}}
  %0 = dist.sqrt %x : tensor<4xui8>
  return
}

// -----

func.func @insert_slice_outside(%x: tensor<4x8xf32>, %s: tensor<4x4xf32>) -> tensor<4x8xf32> {
  // expected-error @below {{dimension 1 takes indices 6 to 9 (step 1) outside the dest's size 8}}
  %0 = dist.insert_slice %s into %x starts = [0, 6] strides = [1, 1] : tensor<4x4xf32> into tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

func.func @scatter_add_bad_updates(%e: tensor<16x4xf32>, %i: tensor<3xi64>, %u: tensor<2x4xf32>) -> tensor<16x4xf32> {
  // expected-error @below {{updates must have the shape of gathering dest with indices along axis 0, [3, 4], got 'tensor<2x4xf32>'}}
  %0 = dist.scatter_add %e[%i] = %u axis = 0 : (tensor<16x4xf32>, tensor<3xi64>, tensor<2x4xf32>) -> tensor<16x4xf32>
  return %0 : tensor<16x4xf32>
}

// -----

func.func @max_pool_grad_bad(%x: tensor<1x1x4x4xf32>, %dy: tensor<1x1x3x3xf32>) -> tensor<1x1x4x4xf32> {
  // expected-error @below {{grad_output must have the pooled type 'tensor<1x1x2x2xf32>', got 'tensor<1x1x3x3xf32>'}}
  %0 = dist.max_pool2d_grad %x, %dy {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x1x4x4xf32>, tensor<1x1x3x3xf32>) -> tensor<1x1x4x4xf32>
  return %0 : tensor<1x1x4x4xf32>
}

// -----

// PowerSGD's markers (dist-optimizer{grad-compression=powersgd:R}).
func.func @rank_parts_not_stacking(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'dist.rank_parts' must be a unit attribute on a dist.broadcast adding one leading dimension, got unit}}
  %0 = dist.broadcast %x {dist.rank_parts} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

func.func @rank_sum_kept(%x: tensor<2x4xf32>) -> tensor<1x4xf32> {
  // expected-error @+1 {{'dist.rank_sum' must be an i64 >= 0 on a dist.reduce_sum over dimension 0 (not kept), got 16 : i64}}
  %0 = dist.reduce_sum %x axes = [0] {keep_dims, dist.rank_sum = 16 : i64} : (tensor<2x4xf32>) -> tensor<1x4xf32>
  return %0 : tensor<1x4xf32>
}

// -----

func.func @rank_sum_negative(%x: tensor<2x4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'dist.rank_sum' must be an i64 >= 0 on a dist.reduce_sum over dimension 0 (not kept), got -1 : i64}}
  %0 = dist.reduce_sum %x axes = [0] {dist.rank_sum = -1 : i64} : (tensor<2x4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// expected-error @+1 {{'dist.per_rank' of argument #0 takes no value and marks a tensor of rank >= 1 (stacked over the data-parallel ranks on dimension 0)}}
func.func @per_rank_scalar(%x: tensor<f32> {dist.per_rank}) -> tensor<f32> {
  return %x : tensor<f32>
}

// -----

func.func @sparsify_top_k_zero(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  // expected-error @+1 {{'dist.sparsify_top_k' op k = 0 must be in [1, 8] (the last dimension)}}
  %v, %i, %r = dist.sparsify_top_k %x k = 0 : (tensor<2x8xf32>) -> (tensor<2x0xf32>, tensor<2x0xi64>, tensor<2x8xf32>)
  return %r : tensor<2x8xf32>
}

// -----

func.func @sparsify_top_k_shapes(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  // expected-error @+1 {{'dist.sparsify_top_k' op values and indices must be shaped like the input with k as the last dimension}}
  %v, %i, %r = dist.sparsify_top_k %x k = 2 : (tensor<2x8xf32>) -> (tensor<2x3xf32>, tensor<2x2xi64>, tensor<2x8xf32>)
  return %r : tensor<2x8xf32>
}

// -----

func.func @sparsify_top_k_rest(%x: tensor<2x8xf32>) -> tensor<2x4xf32> {
  // expected-error @+1 {{'dist.sparsify_top_k' op rest must have the input's type}}
  %v, %i, %r = dist.sparsify_top_k %x k = 2 : (tensor<2x8xf32>) -> (tensor<2x2xf32>, tensor<2x2xi64>, tensor<2x4xf32>)
  return %r : tensor<2x4xf32>
}

// -----

func.func @random_uniform_bounds() -> tensor<4xf32> {
  // expected-error @+1 {{'dist.random_uniform' op needs finite low <= high, got [2.000000e+00, 1.000000e+00)}}
  %u = dist.random_uniform {low = 2.0 : f64, high = 1.0 : f64, seed = 1 : i64} : tensor<4xf32>
  return %u : tensor<4xf32>
}

// -----

func.func @random_normal_scale() -> tensor<4xf32> {
  // expected-error @+1 {{'dist.random_normal' op needs a finite mean and a finite scale >= 0, got 0.000000e+00 and -1.000000e+00}}
  %n = dist.random_normal {mean = 0.0 : f64, scale = -1.0 : f64, seed = 1 : i64} : tensor<4xf32>
  return %n : tensor<4xf32>
}

// -----

func.func @random_integer() -> tensor<4xi64> {
  // expected-error @+1 {{'dist.random_uniform' op result #0 must be statically shaped tensor of 32-bit float or 16-bit float or bfloat16 type or 64-bit float values}}
  %u = dist.random_uniform {low = 0.0 : f64, high = 1.0 : f64, seed = 1 : i64} : tensor<4xi64>
  return %u : tensor<4xi64>
}

// -----

func.func @draw_offsets_without_shape(%o: tensor<i64>) -> tensor<4xf32> {
  // expected-error @+1 {{'dist.random_normal' op a split draw needs 'whole_shape' and one offset per dimension (1), got 1 offsets and no 'whole_shape'}}
  %n = dist.random_normal offsets(%o : tensor<i64>) {mean = 0.0 : f64, scale = 1.0 : f64, seed = 1 : i64} : tensor<4xf32>
  return %n : tensor<4xf32>
}

// -----

func.func @draw_offsets_count(%x: tensor<4x8xf32>, %o: tensor<i64>) {
  // expected-error @+1 {{'dist.dropout' op a split draw needs 'whole_shape' and one offset per dimension (2), got 1 offsets}}
  %y, %k = dist.dropout %x offsets(%o : tensor<i64>) {ratio = 0.5 : f64, seed = 0 : i64, whole_shape = array<i64: 8, 8>} : tensor<4x8xf32>
  return
}

// -----

func.func @draw_whole_rank(%x: tensor<4x8xf32>, %o: tensor<i64>) {
  // expected-error @+1 {{'dist.dropout' op 'whole_shape' has 1 dimensions, the result 2}}
  %y, %k = dist.dropout %x offsets(%o, %o : tensor<i64>, tensor<i64>) {ratio = 0.5 : f64, seed = 0 : i64, whole_shape = array<i64: 8>} : tensor<4x8xf32>
  return
}

// -----

func.func @draw_block_too_large(%o: tensor<i64>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'dist.random_uniform' op dimension 1 (8) does not fit in 'whole_shape' (4)}}
  %u = dist.random_uniform offsets(%o, %o : tensor<i64>, tensor<i64>) {low = 0.0 : f64, high = 1.0 : f64, seed = 1 : i64, whole_shape = array<i64: 8, 4>} : tensor<4x8xf32>
  return %u : tensor<4x8xf32>
}
