// A one-layer GPT-2 (vocab 64, context 16, width 32, 2 heads, batch 2) with a
// tied output head and its language-model loss: token and position
// embeddings, pre-norm causal self-attention, a GELU MLP, residuals.
//
//   build/bin/dist-opt examples/gpt2-block/gpt2-block.mlir

dist.parameter @wte : tensor<64x32xf32>
dist.parameter @wpe : tensor<16x32xf32>
dist.parameter @h.0.ln_1.weight : tensor<32xf32>
dist.parameter @h.0.ln_1.bias : tensor<32xf32>
dist.parameter @h.0.attn.c_attn.weight : tensor<32x96xf32>
dist.parameter @h.0.attn.c_attn.bias : tensor<96xf32>
dist.parameter @h.0.attn.c_proj.weight : tensor<32x32xf32>
dist.parameter @h.0.attn.c_proj.bias : tensor<32xf32>
dist.parameter @h.0.ln_2.weight : tensor<32xf32>
dist.parameter @h.0.ln_2.bias : tensor<32xf32>
dist.parameter @h.0.mlp.c_fc.weight : tensor<32x128xf32>
dist.parameter @h.0.mlp.c_fc.bias : tensor<128xf32>
dist.parameter @h.0.mlp.c_proj.weight : tensor<128x32xf32>
dist.parameter @h.0.mlp.c_proj.bias : tensor<32xf32>
dist.parameter @ln_f.weight : tensor<32xf32>
dist.parameter @ln_f.bias : tensor<32xf32>

func.func @forward(
    %ids: tensor<2x16xi64>, %targets: tensor<2x16xi64>,
    %wte: tensor<64x32xf32> {dist.parameter = @wte},
    %wpe: tensor<16x32xf32> {dist.parameter = @wpe},
    %ln1_g: tensor<32xf32> {dist.parameter = @h.0.ln_1.weight},
    %ln1_b: tensor<32xf32> {dist.parameter = @h.0.ln_1.bias},
    %attn_w: tensor<32x96xf32> {dist.parameter = @h.0.attn.c_attn.weight},
    %attn_b: tensor<96xf32> {dist.parameter = @h.0.attn.c_attn.bias},
    %proj_w: tensor<32x32xf32> {dist.parameter = @h.0.attn.c_proj.weight},
    %proj_b: tensor<32xf32> {dist.parameter = @h.0.attn.c_proj.bias},
    %ln2_g: tensor<32xf32> {dist.parameter = @h.0.ln_2.weight},
    %ln2_b: tensor<32xf32> {dist.parameter = @h.0.ln_2.bias},
    %fc_w: tensor<32x128xf32> {dist.parameter = @h.0.mlp.c_fc.weight},
    %fc_b: tensor<128xf32> {dist.parameter = @h.0.mlp.c_fc.bias},
    %mlp_w: tensor<128x32xf32> {dist.parameter = @h.0.mlp.c_proj.weight},
    %mlp_b: tensor<32xf32> {dist.parameter = @h.0.mlp.c_proj.bias},
    %lnf_g: tensor<32xf32> {dist.parameter = @ln_f.weight},
    %lnf_b: tensor<32xf32> {dist.parameter = @ln_f.bias}) -> tensor<f32> {
  // Embeddings.
  %positions = dist.constant dense<[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]> : tensor<16xi64>
  %tok = dist.gather %wte[%ids] axis = 0 : (tensor<64x32xf32>, tensor<2x16xi64>) -> tensor<2x16x32xf32>
  %pos = dist.gather %wpe[%positions] axis = 0 : (tensor<16x32xf32>, tensor<16xi64>) -> tensor<16x32xf32>
  %x0 = dist.add %tok, %pos : (tensor<2x16x32xf32>, tensor<16x32xf32>) -> tensor<2x16x32xf32>

  // Causal self-attention.
  %h1 = dist.layer_norm %x0, %ln1_g, %ln1_b axis = 2 : (tensor<2x16x32xf32>, tensor<32xf32>, tensor<32xf32>) -> tensor<2x16x32xf32>
  %h1m = dist.reshape %h1 : (tensor<2x16x32xf32>) -> tensor<32x32xf32>
  %qkv = dist.gemm %h1m, %attn_w, %attn_b : (tensor<32x32xf32>, tensor<32x96xf32>, tensor<96xf32>) -> tensor<32x96xf32>
  %qkv3 = dist.reshape %qkv : (tensor<32x96xf32>) -> tensor<2x16x96xf32>
  %q, %k, %v = dist.split %qkv3 axis = 2 : (tensor<2x16x96xf32>) -> (tensor<2x16x32xf32>, tensor<2x16x32xf32>, tensor<2x16x32xf32>)
  %q4 = dist.reshape %q : (tensor<2x16x32xf32>) -> tensor<2x16x2x16xf32>
  %k4 = dist.reshape %k : (tensor<2x16x32xf32>) -> tensor<2x16x2x16xf32>
  %v4 = dist.reshape %v : (tensor<2x16x32xf32>) -> tensor<2x16x2x16xf32>
  %qh = dist.transpose %q4 permutation = [0, 2, 1, 3] : (tensor<2x16x2x16xf32>) -> tensor<2x2x16x16xf32>
  %kh = dist.transpose %k4 permutation = [0, 2, 1, 3] : (tensor<2x16x2x16xf32>) -> tensor<2x2x16x16xf32>
  %vh = dist.transpose %v4 permutation = [0, 2, 1, 3] : (tensor<2x16x2x16xf32>) -> tensor<2x2x16x16xf32>
  %scores = dist.matmul %qh, %kh {transpose_rhs} : (tensor<2x2x16x16xf32>, tensor<2x2x16x16xf32>) -> tensor<2x2x16x16xf32>
  %scale = dist.constant dense<0.25> : tensor<f32>
  %scaled = dist.mul %scores, %scale : (tensor<2x2x16x16xf32>, tensor<f32>) -> tensor<2x2x16x16xf32>
  %ones = dist.constant dense<true> : tensor<16x16xi1>
  %causal = dist.trilu %ones : tensor<16x16xi1>
  %neg_inf = dist.constant dense<0xFF800000> : tensor<f32>
  %masked = dist.select %causal, %scaled, %neg_inf : (tensor<16x16xi1>, tensor<2x2x16x16xf32>, tensor<f32>) -> tensor<2x2x16x16xf32>
  %probs = dist.softmax %masked axis = 3 : tensor<2x2x16x16xf32>
  %dropped, %keep = dist.dropout %probs {ratio = 0.1 : f64, seed = 0 : i64} : tensor<2x2x16x16xf32>
  %yh = dist.matmul %dropped, %vh : (tensor<2x2x16x16xf32>, tensor<2x2x16x16xf32>) -> tensor<2x2x16x16xf32>
  %yt = dist.transpose %yh permutation = [0, 2, 1, 3] : (tensor<2x2x16x16xf32>) -> tensor<2x16x2x16xf32>
  %ym = dist.reshape %yt : (tensor<2x16x2x16xf32>) -> tensor<32x32xf32>
  %proj = dist.gemm %ym, %proj_w, %proj_b : (tensor<32x32xf32>, tensor<32x32xf32>, tensor<32xf32>) -> tensor<32x32xf32>
  %proj3 = dist.reshape %proj : (tensor<32x32xf32>) -> tensor<2x16x32xf32>
  %x1 = dist.add %x0, %proj3 : (tensor<2x16x32xf32>, tensor<2x16x32xf32>) -> tensor<2x16x32xf32>

  // MLP.
  %h2 = dist.layer_norm %x1, %ln2_g, %ln2_b axis = 2 : (tensor<2x16x32xf32>, tensor<32xf32>, tensor<32xf32>) -> tensor<2x16x32xf32>
  %h2m = dist.reshape %h2 : (tensor<2x16x32xf32>) -> tensor<32x32xf32>
  %fc = dist.gemm %h2m, %fc_w, %fc_b : (tensor<32x32xf32>, tensor<32x128xf32>, tensor<128xf32>) -> tensor<32x128xf32>
  %act = dist.gelu %fc {approximate_tanh} : tensor<32x128xf32>
  %out = dist.gemm %act, %mlp_w, %mlp_b : (tensor<32x128xf32>, tensor<128x32xf32>, tensor<32xf32>) -> tensor<32x32xf32>
  %out3 = dist.reshape %out : (tensor<32x32xf32>) -> tensor<2x16x32xf32>
  %x2 = dist.add %x1, %out3 : (tensor<2x16x32xf32>, tensor<2x16x32xf32>) -> tensor<2x16x32xf32>

  // Tied head and loss.
  %hf = dist.layer_norm %x2, %lnf_g, %lnf_b axis = 2 : (tensor<2x16x32xf32>, tensor<32xf32>, tensor<32xf32>) -> tensor<2x16x32xf32>
  %hfm = dist.reshape %hf : (tensor<2x16x32xf32>) -> tensor<32x32xf32>
  %logits = dist.matmul %hfm, %wte {transpose_rhs} : (tensor<32x32xf32>, tensor<64x32xf32>) -> tensor<32x64xf32>
  %labels = dist.reshape %targets : (tensor<2x16xi64>) -> tensor<32xi64>
  %loss = dist.cross_entropy mean, %logits, %labels : (tensor<32x64xf32>, tensor<32xi64>) -> tensor<f32>
  return %loss : tensor<f32>
}
