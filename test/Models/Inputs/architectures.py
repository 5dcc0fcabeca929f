"""More Hugging Face architectures than model_zoo.py's, each checked the
short way: a tiny config (random weights, seed 0), PyTorch's training
export, `dist-compile --train --optimizer=sgd --lr=0.05`, 3 steps on one
fixed batch, and the same 3 steps of torch.optim.SGD on the same module:
every step's loss within relative 1e-5.

usage: architectures.py WORKDIR DIST_COMPILE [NAME ...]
       architectures.py WORKDIR DIST_COMPILE --all

Without names, the models of configs() (the lit test's); --all adds those of
more_configs(), checked by hand (docs/models.md says when and with what
result) to keep the test suite's time down.

Prints one line per model: "NAME ok worst E" or "NAME FAIL ..."; exits 1
if any failed. Run with the venv's interpreter (.venv/bin/python3).
"""
import json
import os
import subprocess
import sys

import numpy as np
import torch
import transformers as tf

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "..", "python"))
from dist_export import export_for_training  # noqa: E402

V = 128
# Tiny configs shared by many models: a BERT-like encoder, a causal LM.
DROP = dict(hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0)
BERT_LIKE = dict(vocab_size=V, hidden_size=32, num_hidden_layers=2,
                 num_attention_heads=4, intermediate_size=64, **DROP)
CAUSAL = dict(vocab_size=V, hidden_size=32, num_hidden_layers=2,
              num_attention_heads=4, use_cache=False)


def configs():
    bert_like, causal = BERT_LIKE, CAUSAL
    return {
        "distilbert": (tf.DistilBertForMaskedLM, tf.DistilBertConfig(
            vocab_size=V, dim=32, n_layers=2, n_heads=4, hidden_dim=64,
            dropout=0.0, attention_dropout=0.0)),
        "roberta": (tf.RobertaForMaskedLM, tf.RobertaConfig(
            max_position_embeddings=64, **bert_like)),
        "albert": (tf.AlbertForMaskedLM, tf.AlbertConfig(embedding_size=16, **bert_like)),
        "electra": (tf.ElectraForMaskedLM, tf.ElectraConfig(embedding_size=16, **bert_like)),
        # Disentangled attention: relative positions bucketed with a log,
        # gathered content-to-position and position-to-content scores.
        "deberta-v2": (tf.DebertaV2ForMaskedLM, tf.DebertaV2Config(
            max_position_embeddings=64, relative_attention=True, position_buckets=16,
            pos_att_type=["p2c", "c2p"], **bert_like)),
        "mpnet": (tf.MPNetForMaskedLM, tf.MPNetConfig(**bert_like)),
        "gpt-neox": (tf.GPTNeoXForCausalLM, tf.GPTNeoXConfig(
            intermediate_size=64, max_position_embeddings=64, **causal)),
        "mistral": (tf.MistralForCausalLM, tf.MistralConfig(
            num_key_value_heads=2, intermediate_size=64, max_position_embeddings=64,
            sliding_window=8, attn_implementation="eager", **causal)),
        "phi": (tf.PhiForCausalLM, tf.PhiConfig(
            intermediate_size=64, max_position_embeddings=64, attn_implementation="eager",
            **causal)),
        # Rotary embeddings gathered by position from a sinusoid table.
        "gptj": (tf.GPTJForCausalLM, tf.GPTJConfig(
            vocab_size=V, n_embd=32, n_layer=2, n_head=4, rotary_dim=4, n_positions=64,
            use_cache=False, resid_pdrop=0.0, embd_pdrop=0.0, attn_pdrop=0.0)),
        # ALiBi position biases.
        "bloom": (tf.BloomForCausalLM, tf.BloomConfig(
            vocab_size=V, hidden_size=32, n_layer=2, n_head=4, use_cache=False)),
        "opt": (tf.OPTForCausalLM, tf.OPTConfig(
            vocab_size=V, hidden_size=32, num_hidden_layers=2, num_attention_heads=4,
            ffn_dim=64, max_position_embeddings=64, use_cache=False, dropout=0.0)),
        "falcon": (tf.FalconForCausalLM, tf.FalconConfig(**causal)),
        # Sinusoidal position tables PyTorch keeps frozen, a
        # final_logits_bias buffer (HELPER).
        "pegasus": (tf.PegasusForConditionalGeneration, tf.PegasusConfig(**seq2seq())),
        # Sinusoidal positions from a buffer table at cumsum positions;
        # LayerDrop off (below).
        "m2m100": (tf.M2M100ForConditionalGeneration, tf.M2M100Config(
            encoder_layerdrop=0.0, decoder_layerdrop=0.0, **seq2seq())),
        # State-space and linear-attention recurrences, unrolled over time.
        "mamba": (tf.MambaForCausalLM, tf.MambaConfig(
            vocab_size=V, hidden_size=32, num_hidden_layers=2, state_size=4, expand=2,
            conv_kernel=4, use_cache=False)),
        "rwkv": (tf.RwkvForCausalLM, tf.RwkvConfig(
            vocab_size=V, hidden_size=32, num_hidden_layers=2, attention_hidden_size=32,
            intermediate_size=64, context_length=64, use_cache=False)),
        # Pooling blocks whose relative positions are computed in floating
        # point (a float Slice, Concat, Gather and Sub, then a Cast to int64
        # that bounds a Range): evaluated at import. Its decoder adds the
        # input embeddings back, and with the tied output layer it predicts
        # its own input at a loss of 0.003, where float32 rounding alone is
        # 1e-5 relative: its labels are the ids shifted by one (SHIFTED).
        "funnel": (tf.FunnelForMaskedLM, tf.FunnelConfig(
            vocab_size=V, block_sizes=[1, 1], num_decoder_layers=1, d_model=32,
            n_head=4, d_head=8, d_inner=64, hidden_dropout=0.0, attention_dropout=0.0,
            activation_dropout=0.0, max_position_embeddings=64)),
    }


def seq2seq():
    """A tiny BART-like encoder-decoder config (Pegasus, Marian, MBart, ...).
    M2M100 defaults to LayerDrop 0.05: PyTorch then skips a random layer
    in some training steps, which the export (one traced path) cannot
    express, so its callers turn it off."""
    return dict(vocab_size=V, d_model=32, encoder_layers=2, decoder_layers=2,
                encoder_attention_heads=4, decoder_attention_heads=4,
                encoder_ffn_dim=64, decoder_ffn_dim=64, max_position_embeddings=64,
                use_cache=False, dropout=0.0, attention_dropout=0.0,
                activation_dropout=0.0, pad_token_id=1, decoder_start_token_id=2,
                bos_token_id=0, eos_token_id=2)


def more_configs():
    bert_like, causal = BERT_LIKE, CAUSAL
    t5 = dict(vocab_size=V, d_model=32, d_kv=8, d_ff=64, num_layers=2, num_heads=4,
              relative_attention_num_buckets=8, dropout_rate=0.0, use_cache=False,
              decoder_start_token_id=0)
    gpt2_like = dict(vocab_size=V, n_embd=32, n_layer=2, n_head=4, n_positions=64,
                     use_cache=False, resid_pdrop=0.0, embd_pdrop=0.0)
    return {
        "xlm-roberta": (tf.XLMRobertaForMaskedLM, tf.XLMRobertaConfig(
            max_position_embeddings=64, **bert_like)),
        "ernie": (tf.ErnieForMaskedLM, tf.ErnieConfig(**bert_like)),
        "nezha": (tf.NezhaForMaskedLM, tf.NezhaConfig(**bert_like)),
        "rembert": (tf.RemBertForMaskedLM, tf.RemBertConfig(
            input_embedding_size=16, output_embedding_size=16, **bert_like)),
        "convbert": (tf.ConvBertForMaskedLM, tf.ConvBertConfig(embedding_size=32, **bert_like)),
        "squeezebert": (tf.SqueezeBertForMaskedLM, tf.SqueezeBertConfig(
            embedding_size=32, q_groups=2, k_groups=2, v_groups=2, post_attention_groups=2,
            intermediate_groups=2, output_groups=2, **bert_like)),
        "bigbird": (tf.BigBirdForMaskedLM, tf.BigBirdConfig(
            attention_type="original_full", max_position_embeddings=64, **bert_like)),
        "roformer": (tf.RoFormerForMaskedLM, tf.RoFormerConfig(
            embedding_size=32, max_position_embeddings=64, **bert_like)),
        "data2vec-text": (tf.Data2VecTextForMaskedLM, tf.Data2VecTextConfig(
            max_position_embeddings=64, **bert_like)),
        "megatron-bert": (tf.MegatronBertForMaskedLM, tf.MegatronBertConfig(**bert_like)),
        "gpt-neo": (tf.GPTNeoForCausalLM, tf.GPTNeoConfig(
            vocab_size=V, hidden_size=32, num_layers=2, num_heads=4,
            attention_types=[[["global", "local"], 1]], window_size=4,
            max_position_embeddings=64, use_cache=False, embed_dropout=0.0,
            attention_dropout=0.0, resid_dropout=0.0)),
        "gpt-bigcode": (tf.GPTBigCodeForCausalLM, tf.GPTBigCodeConfig(attn_pdrop=0.0, **gpt2_like)),
        "codegen": (tf.CodeGenForCausalLM, tf.CodeGenConfig(
            rotary_dim=4, n_ctx=64, attn_pdrop=0.0, **gpt2_like)),
        "ctrl": (tf.CTRLLMHeadModel, tf.CTRLConfig(
            vocab_size=V, n_embd=32, n_layer=2, n_head=4, dff=64, n_positions=64,
            use_cache=False, resid_pdrop=0.0, embd_pdrop=0.0)),
        "gemma": (tf.GemmaForCausalLM, tf.GemmaConfig(
            intermediate_size=64, num_key_value_heads=2, head_dim=8,
            max_position_embeddings=64, attn_implementation="eager", **causal)),
        "qwen2": (tf.Qwen2ForCausalLM, tf.Qwen2Config(
            intermediate_size=64, num_key_value_heads=2, max_position_embeddings=64,
            attn_implementation="eager", **causal)),
        "stablelm": (tf.StableLmForCausalLM, tf.StableLmConfig(
            intermediate_size=64, num_key_value_heads=2, max_position_embeddings=64,
            attn_implementation="eager", **causal)),
        "persimmon": (tf.PersimmonForCausalLM, tf.PersimmonConfig(
            intermediate_size=64, max_position_embeddings=64, **causal)),
        "mpt": (tf.MptForCausalLM, tf.MptConfig(
            vocab_size=V, d_model=32, n_layers=2, n_heads=4, max_seq_len=64, use_cache=False)),
        "xglm": (tf.XGLMForCausalLM, tf.XGLMConfig(
            vocab_size=V, d_model=32, num_layers=2, attention_heads=4, ffn_dim=64,
            max_position_embeddings=64, use_cache=False, dropout=0.0,
            attention_dropout=0.0, activation_dropout=0.0)),
        "biogpt": (tf.BioGptForCausalLM, tf.BioGptConfig(
            intermediate_size=64, max_position_embeddings=64, hidden_dropout_prob=0.0,
            attention_probs_dropout_prob=0.0, **causal)),
        "marian": (tf.MarianMTModel, tf.MarianConfig(**seq2seq())),
        "mbart": (tf.MBartForConditionalGeneration, tf.MBartConfig(**seq2seq())),
        "blenderbot": (tf.BlenderbotForConditionalGeneration, tf.BlenderbotConfig(**seq2seq())),
        "mt5": (tf.MT5ForConditionalGeneration, tf.MT5Config(**t5)),
        "umt5": (tf.UMT5ForConditionalGeneration, tf.UMT5Config(**t5)),
    }


class Wrapper(torch.nn.Module):
    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, ids, labels):
        out = self.model(input_ids=ids, labels=labels, return_dict=True)
        return out.loss, out.logits


SHIFTED = {"funnel"}
# Models with float tensors PyTorch does not train (sinusoidal position
# tables registered as frozen parameters, final_logits_bias buffers):
# exported with python/dist_export.py, whose trainable list keeps them
# frozen. PyTorch's plain export cannot tell them from parameters, so
# dist-compile trains them (its remark says so) and the losses part from
# step 2 on (3e-4 relative).
HELPER = {"pegasus", "m2m100", "marian", "mbart", "blenderbot"}


def check(name, cls, cfg, work, dist_compile):
    torch.manual_seed(0)
    module = Wrapper(cls(cfg)).train()
    ids = torch.randint(3, V, (2, 16))
    labels = torch.roll(ids, 1, dims=1) if name in SHIFTED else ids.clone()
    onnx_path = os.path.join(work, name + ".onnx")
    names = dict(input_names=["input_ids", "labels"], output_names=["loss", "logits"])
    if name in HELPER:
        export_for_training(module, (ids, labels), onnx_path, **names)
    else:
        torch.onnx.export(module, (ids, labels), onnx_path, **names,
                          opset_version=14, training=torch.onnx.TrainingMode.TRAINING,
                          do_constant_folding=False)
    trainer = os.path.join(work, name + "-trainer")
    done = subprocess.run([dist_compile, onnx_path, "--train", "--optimizer=sgd",
                           "--lr=0.05", "-o", trainer], capture_output=True, text=True)
    if done.returncode != 0:
        errors = [l for l in done.stderr.splitlines() if "error" in l]
        return "FAIL compile: " + (errors[0] if errors else done.stderr[-300:])
    ids_file = os.path.join(work, name + "-ids.npy")
    labels_file = os.path.join(work, name + "-labels.npy")
    np.save(ids_file, ids.numpy())
    np.save(labels_file, labels.numpy())
    log = os.path.join(work, name + ".jsonl")
    run = subprocess.run([trainer, "--steps", "3", "--input", "input_ids=" + ids_file,
                          "--input", "labels=" + labels_file, "--log-json", log],
                         capture_output=True, text=True)
    if run.returncode != 0:
        return "FAIL run: " + run.stderr[-300:]
    ours = [json.loads(line)["loss"] for line in open(log)]
    optimizer = torch.optim.SGD(module.parameters(), lr=0.05)
    theirs = []
    for _ in range(3):
        optimizer.zero_grad()
        loss = module(ids, labels)[0]
        loss.backward()
        optimizer.step()
        theirs.append(loss.item())
    errors = [abs(a - b) / abs(b) for a, b in zip(ours, theirs)]
    worst = max(e if e == e else float("inf") for e in errors)
    if len(ours) != 3 or worst > 1e-5:
        return "FAIL losses %s vs PyTorch %s" % (ours, theirs)
    return "ok worst %.1e" % worst


def main():
    work, dist_compile = sys.argv[1:3]
    os.makedirs(work, exist_ok=True)
    table = configs()
    names = [a for a in sys.argv[3:] if a != "--all"] or list(table)
    if "--all" in sys.argv[3:]:
        table.update(more_configs())
        names = list(table)
    elif set(names) - set(table):
        table.update(more_configs())
    failed = False
    for name in names:
        cls, cfg = table[name]
        try:
            result = check(name, cls, cfg, work, dist_compile)
        except Exception as e:  # an export failure is reported, not fatal
            result = "FAIL %s: %s" % (type(e).__name__, str(e)[:300])
        failed |= result.startswith("FAIL")
        print(name, result, flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
