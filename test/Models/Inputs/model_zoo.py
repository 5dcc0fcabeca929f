"""Third-party models, small and with random weights, for test/Models.

Built from configs (never downloaded) with torch.manual_seed(0): Hugging Face
transformers 4.40.2 (GPT2LMHeadModel, LlamaForCausalLM, BertForMaskedLM,
ViTForImageClassification, T5ForConditionalGeneration,
BartForConditionalGeneration, XLNetLMHeadModel, ...), torchvision 0.14 (resnet18, mobilenet_v2) and
timm 0.9.16 (convnext_atto). Every model is wrapped so that forward(*inputs)
returns (loss, logits), the loss computed inside the graph the way the model
computes it (Hugging Face's `labels=`, F.cross_entropy for the CNNs).

Dropout is 0 everywhere (dropout masks cannot match PyTorch's), except in
gpt2-dropout and bert-dropout (their configs' default 0.1), which tests
compare with dist's own 1-rank run. The configs
that have dropout by default: GPT2 (resid/embd/attn_pdrop 0.1), BERT
(hidden/attention_probs_dropout_prob 0.1), T5 (dropout_rate 0.1), BART
(dropout 0.1), mobilenet_v2 (classifier dropout 0.2). Llama, ViT, resnet18
and convnext_atto have none by default.

Run with the venv's interpreter (.venv/bin/python3, see scripts/setup.sh).
"""
import os
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F

VOCAB = 128
SEQ = 16
BATCH = 2
IMAGE = 64
IMAGE_BATCH = 8
CLASSES = 10

# name -> kind: "lm" (input_ids, labels: int64 [batch, seq]) or "image"
# (pixel_values / images: float32 [batch, 3, H, W], labels: int64 [batch]).
MODELS = {
    "gpt2": "lm", "llama": "lm", "bert": "lm", "t5": "lm", "bart": "lm",
    "vit": "image", "swin": "image", "resnet18": "image", "mobilenet_v2": "image",
    "convnext_atto": "image", "whisper": "speech", "wav2vec2": "audio",
    "xlnet": "lm", "gpt2-dropout": "lm", "bert-dropout": "lm",
}

# The SGD learning rate the tests train each model with: large enough that
# the loss moves in 5 steps, small enough that float32 rounding differences
# stay below 1e-5 relative over those steps (PyTorch float32 vs float64 on
# the same module, train mode: resnet18 1.3e-06 at 1e-4 but 1.5e-03 at
# 0.01). mobilenet_v2 in train mode is chaotic in float32 at every rate tried
# (1.1e-05 after one step even at 1e-5: at 64x64 its last stages are 2x2, and
# batch norm divides the rounding noise of channels with no variance by
# sqrt(eps)), so its tests run it in float64 (export --float64).
SGD_LR = {"gpt2": 0.05, "llama": 0.05, "bert": 0.05, "t5": 0.05, "bart": 0.05,
          "vit": 0.01, "swin": 0.01, "resnet18": 1e-4, "mobilenet_v2": 1e-3, "convnext_atto": 0.01,
          "whisper": 0.05, "wav2vec2": 0.01, "xlnet": 0.05,
          "gpt2-dropout": 0.05, "bert-dropout": 0.05}


# ONEDNN_CONV1D_NOTE: PyTorch 1.13's oneDNN Conv1d backward on CPU gives
# different weight gradients from run to run on the same inputs (Whisper:
# 11 of 11 repeated backward passes differed from the first, 2 of 5
# training runs reached NaN at step 2; wav2vec2: 11 of 11 differed). With
# oneDNN off, every repetition is bit-identical, so the references of the
# 1-D models are computed without it. (resnet18 and the other 2-D models
# are repeatable with it, and twice as fast.)


class HFWrapper(nn.Module):
    """(input_ids | pixel_values, labels) -> (loss, logits) of a Hugging Face
    model; T5 and BART shift the labels into decoder inputs themselves."""

    def __init__(self, model, input_key):
        super().__init__()
        self.model = model
        self.input_key = input_key

    def forward(self, x, labels):
        out = self.model(**{self.input_key: x}, labels=labels, return_dict=True)
        return out.loss, out.logits


class ClassifierWrapper(nn.Module):
    """(images, labels) -> (mean cross-entropy, logits) of an image classifier."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, images, labels):
        logits = self.model(images)
        return F.cross_entropy(logits, labels), logits


def _hf(name):
    import transformers as tf
    common = dict(vocab_size=VOCAB)
    if name in ("gpt2", "gpt2-dropout"):
        p = 0.1 if name == "gpt2-dropout" else 0.0
        cfg = tf.GPT2Config(n_embd=32, n_layer=2, n_head=4, n_positions=64,
                            resid_pdrop=p, embd_pdrop=p, attn_pdrop=p,
                            use_cache=False, **common)
        return tf.GPT2LMHeadModel(cfg), "input_ids"
    if name == "llama":
        cfg = tf.LlamaConfig(hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                             num_attention_heads=4, num_key_value_heads=2,
                             max_position_embeddings=64, use_cache=False,
                             attn_implementation="eager", **common)
        return tf.LlamaForCausalLM(cfg), "input_ids"
    if name in ("bert", "bert-dropout"):
        p = 0.1 if name == "bert-dropout" else 0.0
        cfg = tf.BertConfig(hidden_size=32, num_hidden_layers=2, num_attention_heads=4,
                            intermediate_size=64, max_position_embeddings=64,
                            hidden_dropout_prob=p, attention_probs_dropout_prob=p,
                            attn_implementation="eager", **common)
        return tf.BertForMaskedLM(cfg), "input_ids"
    if name == "t5":
        cfg = tf.T5Config(d_model=32, d_kv=8, d_ff=64, num_layers=2, num_decoder_layers=2,
                          num_heads=4, relative_attention_num_buckets=8,
                          relative_attention_max_distance=16, dropout_rate=0.0,
                          use_cache=False, decoder_start_token_id=0, pad_token_id=0,
                          **common)
        return tf.T5ForConditionalGeneration(cfg), "input_ids"
    if name == "bart":
        cfg = tf.BartConfig(d_model=32, encoder_layers=2, decoder_layers=2,
                            encoder_attention_heads=4, decoder_attention_heads=4,
                            encoder_ffn_dim=64, decoder_ffn_dim=64,
                            max_position_embeddings=64, dropout=0.0,
                            attention_dropout=0.0, activation_dropout=0.0,
                            use_cache=False, pad_token_id=1, bos_token_id=0,
                            eos_token_id=2, decoder_start_token_id=2, **common)
        return tf.BartForConditionalGeneration(cfg), "input_ids"
    if name == "vit":
        cfg = tf.ViTConfig(image_size=32, patch_size=8, num_channels=3, hidden_size=32,
                           num_hidden_layers=2, num_attention_heads=4,
                           intermediate_size=64, hidden_dropout_prob=0.0,
                           attention_probs_dropout_prob=0.0, num_labels=CLASSES)
        return tf.ViTForImageClassification(cfg), "pixel_values"
    if name == "swin":
        # Windows of 4 on 16x16 patches, 2 stages: the patch merging pads
        # (F.pad to a multiple of the window) and the shifted windows roll.
        cfg = tf.SwinConfig(image_size=32, patch_size=2, embed_dim=16,
                            depths=[1, 1], num_heads=[2, 4], window_size=4,
                            num_labels=CLASSES, hidden_dropout_prob=0.0,
                            attention_probs_dropout_prob=0.0, drop_path_rate=0.0)
        return tf.SwinForImageClassification(cfg), "pixel_values"
    if name == "whisper":
        # Speech to text: two Conv1d (the second strided) and GELU over 8 mel
        # bins of 32 frames, then an encoder-decoder transformer.
        cfg = tf.WhisperConfig(d_model=32, encoder_layers=2, decoder_layers=2,
                               encoder_attention_heads=4, decoder_attention_heads=4,
                               encoder_ffn_dim=64, decoder_ffn_dim=64, num_mel_bins=8,
                               max_source_positions=16, max_target_positions=64,
                               dropout=0.0, attention_dropout=0.0,
                               activation_dropout=0.0, use_cache=False,
                               pad_token_id=1, bos_token_id=0, eos_token_id=2,
                               decoder_start_token_id=0, suppress_tokens=None,
                               begin_suppress_tokens=None, **common)
        return tf.WhisperForConditionalGeneration(cfg), "input_features"
    if name == "wav2vec2":
        # Raw audio: a strided Conv1d feature extractor (GroupNorm on its
        # first layer), a grouped positional Conv1d under weight_norm, a
        # transformer encoder, mean pooling and a classifier. SpecAugment
        # masking and layer drop are random: off.
        cfg = tf.Wav2Vec2Config(hidden_size=32, num_hidden_layers=2,
                                num_attention_heads=4, intermediate_size=64,
                                conv_dim=(16, 16, 16), conv_stride=(5, 2, 2),
                                conv_kernel=(10, 3, 3), num_conv_pos_embeddings=8,
                                num_conv_pos_embedding_groups=4,
                                feat_extract_norm="group", hidden_dropout=0.0,
                                attention_dropout=0.0, activation_dropout=0.0,
                                feat_proj_dropout=0.0, final_dropout=0.0,
                                layerdrop=0.0, mask_time_prob=0.0,
                                mask_feature_prob=0.0, num_labels=CLASSES,
                                classifier_proj_size=16)
        return tf.Wav2Vec2ForSequenceClassification(cfg), "input_values"
    if name == "xlnet":
        # Written with torch.einsum throughout: the projections to heads
        # ('ibh,hnd->ibnd'), content and position scores ('ibnd,jbnd->bnij'),
        # the relative shift, values and output ('ibnd,hnd->ibh'), and the
        # sinusoids of the relative positions ('i,d->id').
        cfg = tf.XLNetConfig(d_model=32, n_layer=2, n_head=4, d_inner=64,
                             dropout=0.0, mem_len=None, use_mems_train=False,
                             use_mems_eval=False, **common)
        return tf.XLNetLMHeadModel(cfg), "input_ids"
    raise KeyError(name)


def _lm_inputs(name):
    ids = torch.randint(3, VOCAB, (BATCH, SEQ))
    if name in ("bert", "bert-dropout"):
        # Masked LM: 15% of the positions (at least one per row) are replaced
        # by a [MASK] id and predicted; the others are labelled -100 (ignored).
        masked = torch.rand(BATCH, SEQ) < 0.15
        masked[:, 0] = True
        labels = torch.where(masked, ids, torch.full_like(ids, -100))
        ids = torch.where(masked, torch.full_like(ids, 4), ids)
        return ids, labels
    if name in ("t5", "bart", "whisper", "xlnet"):
        # (XLNet predicts each position's label at that position.)
        return ids, torch.randint(3, VOCAB, (BATCH, SEQ))
    return ids, ids.clone()  # causal LMs shift the labels inside the model


def build(name, mode="train", float64=False):
    """Returns (module, inputs, input names, dynamic axes) for `name`, seeded
    with 0; the module is in eval() mode for mode "eval", else in train().
    float64: the module's parameters, buffers and float inputs in float64."""
    torch.manual_seed(0)
    kind = MODELS[name]
    # Off for the 1-D models, on for the others (one process may build several).
    torch.backends.mkldnn.enabled = kind not in ("speech", "audio")  # ONEDNN_CONV1D_NOTE

    if name in ("resnet18", "mobilenet_v2"):
        import torchvision
        if name == "resnet18":
            model = torchvision.models.resnet18(num_classes=CLASSES)
        else:
            model = torchvision.models.mobilenet_v2(num_classes=CLASSES, dropout=0.0)
        module = ClassifierWrapper(model)
    elif name == "convnext_atto":
        import timm
        module = ClassifierWrapper(timm.create_model(
            "convnext_atto", pretrained=False, num_classes=CLASSES,
            drop_rate=0.0, drop_path_rate=0.0))
    else:
        model, key = _hf(name)
        module = HFWrapper(model, key)
    if kind == "lm":
        inputs = _lm_inputs(name)
        names = ["input_ids", "labels"]
        dynamic = {n: {0: "batch", 1: "seq"} for n in names}
    elif kind == "speech":
        inputs = (torch.randn(BATCH, 8, 32), _lm_inputs(name)[1])
        names = ["input_features", "labels"]
        dynamic = {"input_features": {0: "batch"}, "labels": {0: "batch", 1: "seq"}}
    elif kind == "audio":
        inputs = (torch.randn(BATCH * 2, 400), torch.randint(0, CLASSES, (BATCH * 2,)))
        names = ["input_values", "labels"]
        dynamic = {"input_values": {0: "batch", 1: "samples"}, "labels": {0: "batch"}}
    else:
        hf = name in ("vit", "swin")
        size = 32 if hf else IMAGE
        batch = BATCH * 2 if hf else IMAGE_BATCH
        inputs = (torch.randn(batch, 3, size, size), torch.randint(0, CLASSES, (batch,)))
        names = ["pixel_values" if hf else "images", "labels"]
        dynamic = {names[0]: {0: "batch"}, "labels": {0: "batch"}}
    if float64:
        module = module.double()
        inputs = tuple(t.double() if t.is_floating_point() else t for t in inputs)
    module.train(mode != "eval")
    return module, inputs, names, dynamic


def export(name, mode, path, float64=False, opset=14):
    """Exports `name` to `path`: mode "train" is torch.onnx.export with
    TrainingMode.TRAINING, no constant folding and static shapes; mode "eval"
    is torch.onnx.export's defaults (eval mode, constant folding) with
    dynamic batch (and sequence) axes, as most users export; mode "helper" is
    the project's python/dist_export.py (mode "train" plus the list of
    trainable parameters, so buffers stay frozen). Opset 14 unless `opset`.
    Returns (module, inputs, input names) as built before the export.
    float64: the whole model in float64 (see build)."""
    module, inputs, names, dynamic = build(name, "eval" if mode == "eval" else "train", float64)
    kwargs = dict(input_names=names, output_names=["loss", "logits"], opset_version=opset)
    if mode == "helper":
        sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                        "..", "..", "..", "python"))
        from dist_export import export_for_training
        export_for_training(module, inputs, path, **kwargs)
        return module, inputs, names
    if mode == "train":
        kwargs.update(training=torch.onnx.TrainingMode.TRAINING, do_constant_folding=False)
    else:
        kwargs.update(dynamic_axes=dynamic)
    tmp = path + ".tmp"
    torch.onnx.export(module, inputs, tmp, **kwargs)
    os.replace(tmp, path)
    module.train(mode != "eval")
    return module, inputs, names
