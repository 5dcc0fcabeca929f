"""Vision models brought by users (torchvision 0.14, timm 0.9.16,
transformers 4.40.2), each checked the short way of
test/Models/Inputs/architectures.py: a tiny config (random weights, seed 0,
dropout and drop-path 0), PyTorch's training export, `dist-compile --train
--optimizer=sgd --lr=LR`, 3 steps on one fixed batch, and the same 3 steps
of torch.optim.SGD on the same module: every step's loss within relative
1e-5. A float64 copy of the module is trained too, to tell float32 chaos
(batch norm over tiny maps) from wrong numbers: "noise" is PyTorch float32
vs PyTorch float64.

usage: vision_architectures.py WORKDIR DIST_COMPILE [--mode=train|eval|dynamic] [--float64] [NAME ...]
  --float64: module, buffers and float inputs in float64 (for batch-norm nets whose
  float32 losses are chaotic); compared with PyTorch float64
  train:   TrainingMode.TRAINING, no constant folding, static shapes
  eval:    torch.onnx.export defaults (eval mode, constant folding), PyTorch in eval()
  dynamic: train export with dynamic batch axes; dist-compile --input-shape
Prints one JSON line per model; exits 1 if any failed.
Run with the venv's interpreter (.venv/bin/python3). Not all models are in the lit test
(test/Models/vision.test runs the fast ones); docs/models.md has the results
of a full run.
"""
import copy
import json
import os
import subprocess
import sys
import time
import warnings

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "Training", "Inputs"))
from examples_io import read_tensors  # noqa: E402

warnings.filterwarnings("ignore")
C = 10  # classes


def no_dropout(m):
    """Dropout, DropPath and StochasticDepth off (masks cannot match)."""
    for mod in m.modules():
        if isinstance(mod, (nn.Dropout, nn.Dropout2d, nn.Dropout3d, nn.AlphaDropout)):
            mod.p = 0.0
        name = type(mod).__name__
        if name.endswith("DropPath"):
            mod.drop_prob = 0.0
        if name == "StochasticDepth":
            mod.p = 0.0
    return m


class Classifier(nn.Module):
    """(images, labels) -> (mean cross-entropy, logits)."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, images, labels):
        out = self.model(images)
        if isinstance(out, dict):          # torchvision segmentation: {"out": ...}
            out = out["out"]
        if isinstance(out, (tuple, list)):
            out = out[0]
        if hasattr(out, "logits"):
            out = out.logits
        return F.cross_entropy(out, labels), out


class HF(nn.Module):
    """(pixel_values, labels) -> (loss, logits) of a Hugging Face model."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, x, labels):
        out = self.model(pixel_values=x, labels=labels, return_dict=True)
        return out.loss, out.logits


class CLIP(nn.Module):
    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, input_ids, pixel_values):
        out = self.model(input_ids=input_ids, pixel_values=pixel_values,
                         return_loss=True, return_dict=True)
        return out.loss, out.logits_per_image


def img(n, s):
    return torch.randn(n, 3, s, s)


def cls_inputs(n, s):
    return (img(n, s), torch.randint(0, C, (n,))), ["images", "labels"]


def tv(ctor, n=4, s=64, **kw):
    def build():
        import torchvision.models as M
        m = getattr(M, ctor)(weights=None, num_classes=C, **kw) if isinstance(ctor, str) else ctor()
        return Classifier(no_dropout(m)), *cls_inputs(n, s)
    return build


def timm_(name, n=4, s=64, drop_path=True, **kw):
    def build():
        import timm
        if drop_path:
            kw["drop_path_rate"] = 0.0
        m = timm.create_model(name, pretrained=False, num_classes=C, drop_rate=0.0, **kw)
        return Classifier(no_dropout(m)), *cls_inputs(n, s)
    return build


def hf(cls_name, cfg_name, n=4, s=32, **cfg):
    def build():
        import transformers as tf
        config = getattr(tf, cfg_name)(**cfg)
        m = getattr(tf, cls_name)(config)
        return HF(no_dropout(m)), (img(n, s), torch.randint(0, C, (n,))), ["pixel_values", "labels"]
    return build


def mixer(resmlp):
    from timm.models.mlp_mixer import MlpMixer, ResBlock, Affine
    from functools import partial
    if resmlp:
        return MlpMixer(num_classes=C, img_size=32, patch_size=8, num_blocks=2, embed_dim=64,
                        mlp_ratio=4, block_layer=partial(ResBlock, init_values=0.1),
                        norm_layer=Affine)
    return MlpMixer(num_classes=C, img_size=32, patch_size=8, num_blocks=2, embed_dim=64)


def vgg_small():
    from torchvision.models.vgg import VGG, make_layers
    cfg = [16, "M", 32, "M", 64, 64, "M", 64, 64, "M", 64, 64, "M"]
    m = VGG(make_layers(cfg, batch_norm=False), num_classes=C, init_weights=True, dropout=0.0)
    # 224x224 -> 7x7 after 5 pools (PyTorch's exporter refuses an adaptive pool to a non-factor size)
    m.classifier = nn.Sequential(nn.Linear(64 * 49, 64), nn.ReLU(True), nn.Linear(64, C))
    return m


def alexnet_small():
    import torchvision.models as M
    m = M.alexnet(weights=None, num_classes=C, dropout=0.0)
    m.classifier = nn.Sequential(nn.Linear(256 * 36, 64), nn.ReLU(True), nn.Linear(64, C))
    return m


def densenet_small():
    from torchvision.models.densenet import DenseNet
    return DenseNet(growth_rate=8, block_config=(2, 2, 2, 2), num_init_features=16,
                    bn_size=2, drop_rate=0, num_classes=C)


def seg(ctor, n=2, s=64, **kw):
    def build():
        import torchvision.models.segmentation as S
        m = getattr(S, ctor)(weights=None, weights_backbone=None, num_classes=3, **kw)
        x = img(n, s)
        labels = torch.randint(0, 3, (n, s, s))
        return Classifier(no_dropout(m)), (x, labels), ["images", "labels"]
    return build


def segformer():
    import transformers as tf
    cfg = tf.SegformerConfig(num_channels=3, num_encoder_blocks=2, depths=[1, 1],
                             sr_ratios=[2, 1], hidden_sizes=[8, 16], patch_sizes=[7, 3],
                             strides=[4, 2], num_attention_heads=[1, 2], mlp_ratios=[2, 2],
                             decoder_hidden_size=16, num_labels=3, hidden_dropout_prob=0.0,
                             attention_probs_dropout_prob=0.0, classifier_dropout_prob=0.0,
                             drop_path_rate=0.0)
    m = tf.SegformerForSemanticSegmentation(cfg)
    return HF(no_dropout(m)), (img(2, 32), torch.randint(0, 3, (2, 32, 32))), ["pixel_values", "labels"]


def segformer_ignore():
    m, (x, labels), names = segformer()
    labels[:, :8, :] = 255  # semantic_loss_ignore_index: a quarter of the pixels unlabelled
    return m, (x, labels), names


def clip():
    import transformers as tf
    text = dict(vocab_size=64, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                num_attention_heads=4, max_position_embeddings=16, dropout=0.0,
                attention_dropout=0.0)
    vision = dict(hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                  num_attention_heads=4, image_size=32, patch_size=8, dropout=0.0,
                  attention_dropout=0.0)
    cfg = tf.CLIPConfig(text_config=text, vision_config=vision, projection_dim=16)
    m = tf.CLIPModel(cfg)
    ids = torch.randint(3, 64, (4, 8))
    ids[:, -1] = 2  # eos (argmax pooling in 4.40 when eos_token_id == 2)
    return CLIP(no_dropout(m)), (ids, img(4, 32)), ["input_ids", "pixel_values"]


VIT = dict(hidden_size=32, num_hidden_layers=2, num_attention_heads=4, intermediate_size=64,
           image_size=32, patch_size=8, num_labels=C, hidden_dropout_prob=0.0,
           attention_probs_dropout_prob=0.0)

MODELS = {
    # torchvision (lr 1e-4 for batch-norm nets, as resnet18 in model_zoo.py)
    "tv_squeezenet1_0": (tv("squeezenet1_0", dropout=0.0), 1e-3),
    "tv_shufflenet_v2_x0_5": (tv("shufflenet_v2_x0_5"), 1e-4),
    "tv_mnasnet0_5": (tv("mnasnet0_5", dropout=0.0), 1e-4),
    "tv_efficientnet_b0": (tv("efficientnet_b0", s=32), 1e-4),
    "tv_regnet_y_400mf": (tv("regnet_y_400mf"), 1e-4),
    "tv_densenet_small": (tv(densenet_small), 1e-4),
    "tv_vgg_small": (tv(vgg_small, n=2, s=224), 1e-3),
    "tv_googlenet": (tv("googlenet", aux_logits=False, init_weights=True, dropout=0.0), 1e-4),
    "tv_mobilenet_v3_small": (tv("mobilenet_v3_small", dropout=0.0), 1e-4),
    "tv_alexnet_small": (tv(alexnet_small, n=2, s=224), 1e-3),
    "tv_lraspp_mobilenet_v3_large": (seg("lraspp_mobilenet_v3_large"), 1e-4),
    "tv_fcn_resnet50": (seg("fcn_resnet50", n=2, s=32, aux_loss=False), 1e-4),
    # timm
    "timm_vit_tiny": (timm_("vit_tiny_patch16_224", s=32, img_size=32, patch_size=8, depth=2), 1e-2),
    "timm_deit_tiny_distilled": (timm_("deit_tiny_distilled_patch16_224", s=32, img_size=32,
                                       patch_size=8, depth=2), 1e-2),
    "timm_efficientnet_b0": (timm_("efficientnet_b0", s=32), 1e-4),
    "timm_mixer": (tv(lambda: mixer(False), s=32), 1e-2),
    "timm_resmlp": (tv(lambda: mixer(True), s=32), 1e-2),
    "timm_poolformer_s12": (timm_("poolformer_s12", s=64), 1e-2),
    "timm_regnetx_002": (timm_("regnetx_002"), 1e-4),
    "timm_ghostnet_050": (timm_("ghostnet_050", drop_path=False), 1e-4),
    "timm_levit_128s": (timm_("levit_128s", img_size=64), 1e-4),
    "timm_coat_lite_tiny": (timm_("coat_lite_tiny", img_size=64), 1e-2),
    "timm_pvt_v2_b0": (timm_("pvt_v2_b0"), 1e-2),
    "timm_mobilevit_xxs": (timm_("mobilevit_xxs"), 1e-4),
    "timm_edgenext_xx_small": (timm_("edgenext_xx_small"), 1e-2),
    "timm_efficientformer_l1": (timm_("efficientformer_l1", s=224, n=1), 1e-4),
    # Hugging Face
    "hf_segformer": (segformer, 1e-2),
    "hf_segformer_ignore255": (segformer_ignore, 1e-2),
    "hf_convnext": (hf("ConvNextForImageClassification", "ConvNextConfig", num_channels=3,
                       hidden_sizes=[8, 16], depths=[1, 1], num_stages=2, num_labels=C,
                       drop_path_rate=0.0), 1e-2),
    "hf_mobilevit": (hf("MobileViTForImageClassification", "MobileViTConfig", image_size=64,
                        s=64, hidden_sizes=[16, 24, 32], neck_hidden_sizes=[8, 8, 16, 16, 24, 32, 64],
                        num_attention_heads=2, num_labels=C, hidden_dropout_prob=0.0,
                        attention_probs_dropout_prob=0.0, classifier_dropout_prob=0.0), 1e-4),
    "hf_clip": (clip, 1e-2),
    "hf_deit": (hf("DeiTForImageClassification", "DeiTConfig", **VIT), 1e-2),
    "hf_beit": (hf("BeitForImageClassification", "BeitConfig", use_relative_position_bias=True, drop_path_rate=0.0,
                   use_mean_pooling=True, layer_scale_init_value=0.1, **VIT), 1e-2),
    "hf_dinov2": (hf("Dinov2ForImageClassification", "Dinov2Config", **VIT), 1e-2),
    "hf_resnet": (hf("ResNetForImageClassification", "ResNetConfig", embedding_size=16,
                     hidden_sizes=[16, 32], depths=[1, 1], layer_type="bottleneck",
                     num_labels=C), 1e-4),
    "hf_convnextv2": (hf("ConvNextV2ForImageClassification", "ConvNextV2Config", num_channels=3,
                         hidden_sizes=[8, 16], depths=[1, 1], num_stages=2, num_labels=C,
                         drop_path_rate=0.0), 1e-2),
    "hf_swinv2": (hf("Swinv2ForImageClassification", "Swinv2Config", image_size=32, patch_size=2,
                     embed_dim=16, depths=[1, 1], num_heads=[2, 4], window_size=4, num_labels=C,
                     hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0,
                     drop_path_rate=0.0), 1e-2),
    "timm_convmixer": (tv(lambda: __import__("timm").models.convmixer.ConvMixer(
        dim=32, depth=2, kernel_size=5, patch_size=4, num_classes=C)), 1e-4),
    "tv_swin_t_small": (tv(lambda: __import__("torchvision").models.swin_transformer.SwinTransformer(
        patch_size=[2, 2], embed_dim=16, depths=[1, 1], num_heads=[2, 4], window_size=[4, 4],
        stochastic_depth_prob=0.0, num_classes=C), s=32), 1e-2),
}


def train_ref(module, inputs, lr, steps=3):
    opt = torch.optim.SGD([p for p in module.parameters() if p.requires_grad], lr=lr)
    out = []
    for _ in range(steps):
        opt.zero_grad()
        loss = module(*inputs)[0]
        loss.backward()
        opt.step()
        out.append(loss.item())
    return out


def rel(a, b):
    e = [abs(x - y) / max(abs(y), 1e-30) for x, y in zip(a, b)]
    return max([v if v == v else float("inf") for v in e] + [0.0]) if len(a) == len(b) else float("inf")


def check(name, mode, work, dist_compile, timeout=600, float64=False):
    build, lr = MODELS[name]
    torch.manual_seed(0)
    module, inputs, names = build()
    if float64:
        module = module.double()
        inputs = tuple(t.double() if t.is_floating_point() else t for t in inputs)
        # ONNX stores normalization epsilons as float32 attributes: give
        # PyTorch the same value (efficientnet_b0 float64 else differs by 9e-9
        # at step 0, amplified to 4e-3 by step 3: the net is chaotic at 32x32).
        for m in module.modules():
            if isinstance(getattr(m, "eps", None), float):
                m.eps = float(np.float32(m.eps))
    module.train(mode != "eval")
    tag = name + "-" + mode + ("-f64" if float64 else "")
    onnx_path = os.path.join(work, tag + ".onnx")
    kw = dict(input_names=names, output_names=["loss", "logits"], opset_version=14)
    if mode == "eval":
        kw["dynamic_axes"] = None
    else:
        kw.update(training=torch.onnx.TrainingMode.TRAINING, do_constant_folding=False)
    if mode == "dynamic":
        kw["dynamic_axes"] = {n: {0: "batch"} for n in names}
    r = dict(name=name, mode=mode + ("-f64" if float64 else ""), lr=lr)
    try:
        torch.onnx.export(module, inputs, onnx_path, **kw)
    except Exception as e:
        r.update(status="export-fail", error="%s: %s" % (type(e).__name__, str(e)[:400]))
        return r
    module.train(mode != "eval")
    trainer = os.path.join(work, tag + "-trainer")
    cmd = [dist_compile, onnx_path, "--train", "--optimizer=sgd", "--lr=%g" % lr, "-o", trainer]
    if mode == "dynamic":
        cmd += ["--input-shape=%s=%s" % (n, "x".join(map(str, t.shape))) for n, t in zip(names, inputs)]
    r["cmd"] = " ".join(cmd)
    t0 = time.time()
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        r.update(status="compile-timeout", compile_s=timeout)
        return r
    r["compile_s"] = round(time.time() - t0, 1)
    r["rc"] = done.returncode
    warn = [l for l in done.stderr.splitlines() if "warning" in l or "remark" in l]
    if warn:
        r["warnings"] = [w[:300] for w in warn[:4]]
    if done.returncode != 0:
        lines = [l for l in done.stderr.splitlines() if "error" in l.lower()]
        r.update(status="compile-fail", error=(lines[0] if lines else done.stderr[-600:])[:600],
                 stderr_tail=done.stderr[-1500:])
        return r
    args = []
    for n, t in zip(names, inputs):
        p = os.path.join(work, "%s-%s.npy" % (tag, n))
        np.save(p, t.numpy())
        args += ["--input", "%s=%s" % (n, p)]
    log = os.path.join(work, tag + ".jsonl")
    if os.path.exists(log):
        os.remove(log)
    try:
        run = subprocess.run([trainer, "--steps", "3", "--log-json", log] + args,
                             capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        r.update(status="run-timeout")
        return r
    if run.returncode != 0:
        r.update(status="run-fail", rc_run=run.returncode, error=run.stderr[-600:])
        return r
    ours = [json.loads(l)["loss"] for l in open(log)]
    # The export ran the module (batch norm statistics moved): start the
    # module's buffers where the executable starts.
    try:
        initial = read_tensors(trainer + ".safetensors")
        with torch.no_grad():
            for key, buf in module.named_buffers():
                if key in initial and tuple(initial[key].shape) == tuple(buf.shape):
                    buf.copy_(torch.from_numpy(initial[key].copy()))
    except Exception as e:  # noqa
        r["buffer_sync"] = str(e)[:200]
    m64 = copy.deepcopy(module).double()
    in64 = tuple(t.double() if t.is_floating_point() else t for t in inputs)
    theirs = train_ref(module, inputs, lr)
    try:
        theirs64 = train_ref(m64, in64, lr)
    except Exception as e:  # noqa
        theirs64 = None
        r["fp64_error"] = str(e)[:200]
    r.update(ours=ours, torch32=theirs, torch64=theirs64)
    r["err_vs_torch32"] = rel(ours, theirs)
    if theirs64:
        r["err_vs_torch64"] = rel(ours, theirs64)
        r["noise_torch32_vs_64"] = rel(theirs, theirs64)
    if float64:
        r["err_vs_torch32"] = r["err_vs_torch64"]  # the module is float64 already
    ok = len(ours) == 3 and r["err_vs_torch32"] <= 1e-5
    if ok:
        r["status"] = "ok"
    elif theirs64 and r["noise_torch32_vs_64"] > 1e-5 and r["err_vs_torch64"] <= 3 * r["noise_torch32_vs_64"]:
        r["status"] = "chaotic"
    else:
        r["status"] = "WRONG"
    return r


def main():
    argv = sys.argv[1:]
    mode = "train"
    float64 = "--float64" in argv
    if float64:
        argv.remove("--float64")
    for a in list(argv):
        if a.startswith("--mode="):
            mode = a.split("=", 1)[1]
            argv.remove(a)
    work, dist_compile = argv[:2]
    os.makedirs(work, exist_ok=True)
    names = argv[2:] or list(MODELS)
    failed = False
    for name in names:
        try:
            r = check(name, mode, work, dist_compile, float64=float64)
        except Exception as e:  # noqa
            r = dict(name=name, mode=mode, status="script-error", error="%s: %s" % (type(e).__name__, str(e)[:400]))
        failed |= r["status"] != "ok"
        print(json.dumps(r), flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
