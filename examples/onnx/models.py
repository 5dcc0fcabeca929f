"""PyTorch definitions of the example models (run with Debian's /usr/bin/python3).

Each model takes its inputs and labels and returns the loss and the logits, so
the exported ONNX graph holds the loss the trainer differentiates.
"""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class MLP(nn.Module):
    """Two-layer classifier: 32 features, 64 hidden units, 10 classes."""

    def __init__(self, features=32, hidden=64, classes=10):
        super().__init__()
        self.fc1 = nn.Linear(features, hidden)
        self.fc2 = nn.Linear(hidden, classes)

    def forward(self, x, labels):
        logits = self.fc2(F.relu(self.fc1(x)))
        return F.cross_entropy(logits, labels), logits


class CausalSelfAttention(nn.Module):
    def __init__(self, width, heads, context):
        super().__init__()
        self.heads = heads
        self.c_attn = nn.Linear(width, 3 * width)
        self.c_proj = nn.Linear(width, width)
        self.register_buffer("mask", torch.tril(torch.ones(context, context)).bool())

    def forward(self, x):
        b, t, c = x.shape
        q, k, v = self.c_attn(x).split(c, dim=2)
        q = q.view(b, t, self.heads, c // self.heads).transpose(1, 2)
        k = k.view(b, t, self.heads, c // self.heads).transpose(1, 2)
        v = v.view(b, t, self.heads, c // self.heads).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
        att = att.masked_fill(~self.mask[:t, :t], float("-inf"))
        att = F.softmax(att, dim=-1)
        y = (att @ v).transpose(1, 2).contiguous().view(b, t, c)
        return self.c_proj(y)


class Block(nn.Module):
    def __init__(self, width, heads, context):
        super().__init__()
        self.ln_1 = nn.LayerNorm(width)
        self.attn = CausalSelfAttention(width, heads, context)
        self.ln_2 = nn.LayerNorm(width)
        self.mlp = nn.Sequential(nn.Linear(width, 4 * width), nn.GELU(),
                                 nn.Linear(4 * width, width))

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        return x + self.mlp(self.ln_2(x))


class GPT2(nn.Module):
    """GPT-2 with token + position embeddings and a tied output head."""

    block = Block
    tied = True

    def __init__(self, vocab, context, width, layers, heads):
        super().__init__()
        self.wte = nn.Embedding(vocab, width)
        self.wpe = nn.Embedding(context, width)
        self.h = nn.ModuleList(self.block(width, heads, context) for _ in range(layers))
        self.ln_f = nn.LayerNorm(width)
        self.lm_head = nn.Linear(width, vocab, bias=False)
        if self.tied:
            self.lm_head.weight = self.wte.weight

    def loss(self, logits, targets):
        return F.cross_entropy(logits, targets)

    def forward(self, idx, targets):
        t = idx.shape[1]
        pos = torch.arange(0, t, dtype=torch.long, device=idx.device)
        x = self.wte(idx) + self.wpe(pos)
        for block in self.h:
            x = block(x)
        logits = self.lm_head(self.ln_f(x))
        return self.loss(logits.view(-1, logits.size(-1)), targets.view(-1)), logits


class MHABlock(nn.Module):
    """A GPT-2 block on nn.MultiheadAttention with a causal mask, and the tanh
    approximation of GELU."""

    def __init__(self, width, heads, context):
        super().__init__()
        self.ln_1 = nn.LayerNorm(width)
        self.attn = nn.MultiheadAttention(width, heads, batch_first=True)
        self.ln_2 = nn.LayerNorm(width)
        self.mlp = nn.Sequential(nn.Linear(width, 4 * width),
                                 nn.GELU(approximate="tanh"),
                                 nn.Linear(4 * width, width))
        mask = torch.triu(torch.full((context, context), float("-inf")), 1)
        self.register_buffer("mask", mask)

    def forward(self, x):
        t = x.shape[1]
        h = self.ln_1(x)
        a, _ = self.attn(h, h, h, attn_mask=self.mask[:t, :t], need_weights=False)
        x = x + a
        return x + self.mlp(self.ln_2(x))


class GPT2MHA(GPT2):
    """GPT-2 on nn.MultiheadAttention, with an untied head and the loss as
    log(softmax) + nll_loss (NegativeLogLikelihoodLoss in ONNX)."""

    block = MHABlock
    tied = False

    def loss(self, logits, targets):
        # log of softmax, not log_softmax, which the exporter fuses with
        # nll_loss into SoftmaxCrossEntropyLoss.
        return F.nll_loss(torch.log(F.softmax(logits, dim=-1)), targets)


class ResidualBlock(nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.conv1 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(channels)
        self.conv2 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(channels)

    def forward(self, x):
        y = F.relu(self.bn1(self.conv1(x)))
        return F.relu(x + self.bn2(self.conv2(y)))


class CNN(nn.Module):
    """ResNet-style: stem conv + BN + ReLU + max pool, two residual blocks,
    global average pool, linear head."""

    def __init__(self, channels=16, classes=10):
        super().__init__()
        self.conv1 = nn.Conv2d(3, channels, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(channels)
        self.pool = nn.MaxPool2d(2)
        self.layer1 = ResidualBlock(channels)
        self.layer2 = ResidualBlock(channels)
        self.fc = nn.Linear(channels, classes)

    def forward(self, x, labels):
        x = self.pool(F.relu(self.bn1(self.conv1(x))))
        x = self.layer2(self.layer1(x))
        x = torch.flatten(F.adaptive_avg_pool2d(x, 1), 1)
        logits = self.fc(x)
        return F.cross_entropy(logits, labels), logits


# (vocab, context, width, layers, heads, export seq) of the GPT-2 models;
# medium, large and xl are OpenAI's GPT-2 sizes (355M, 774M, 1.5B
# parameters), for the GPU benchmark (bench/gpu-train.sh).
GPT2_SIZES = {
    "gpt2-tiny": (512, 64, 128, 2, 4, 64),
    "gpt2-small": (50257, 1024, 768, 12, 12, 128),
    "gpt2-medium": (50257, 1024, 1024, 24, 16, 128),
    "gpt2-large": (50257, 1024, 1280, 36, 20, 128),
    "gpt2-xl": (50257, 1024, 1600, 48, 25, 128),
    # 3 heads: attention that 2 ranks of tensor parallelism cannot split.
    "gpt2-3heads": (256, 32, 96, 1, 3, 32),
}


def build(name):
    """Returns (module, example inputs, input names, dynamic axes) for `name`."""
    torch.manual_seed(0)
    if name == "mlp":
        return (MLP(), (torch.randn(8, 32), torch.randint(0, 10, (8,))),
                ["x", "labels"], {})
    if name in GPT2_SIZES:
        vocab, context, width, layers, heads, seq = GPT2_SIZES[name]
        batch = 2 if name in ("gpt2-tiny", "gpt2-3heads") else 4
        model = GPT2(vocab, context, width, layers, heads)
        ids = torch.randint(0, vocab, (batch, seq))
        targets = torch.randint(0, vocab, (batch, seq))
        return (model, (ids, targets), ["idx", "targets"],
                {"idx": {0: "batch", 1: "seq"}, "targets": {0: "batch", 1: "seq"}})
    if name == "gpt2-mha":
        model = GPT2MHA(512, 64, 128, 2, 4)
        return (model, (torch.randint(0, 512, (2, 64)), torch.randint(0, 512, (2, 64))),
                ["idx", "targets"], {})
    if name == "cnn-small":
        return (CNN(), (torch.randn(4, 3, 32, 32), torch.randint(0, 10, (4,))),
                ["images", "labels"], {})
    raise SystemExit("unknown model '%s' (mlp, gpt2-tiny, gpt2-3heads, gpt2-mha, gpt2-small, "
                     "gpt2-medium, gpt2-large, gpt2-xl, cnn-small)" % name)
