"""Small models written the way users write them, for the tests of what
PyTorch's exporter does to a model (eval-mode merges, buffers, dropout,
in-place slice assignment, ignored labels, repeated gradients).

usage: user_models.py NAME MODE OUT.onnx
MODE: eval (torch.onnx.export's defaults: eval mode, constant folding),
train (training mode, no constant folding), helper (python/dist_export.py:
training mode plus the dist.trainable list).

Each model returns (loss, logits); build(name) gives (module, inputs, names)
with seed 0, as examples/onnx/models.py does.
"""
import copy
import math
import os
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "..", "..", "python"))


class LNBlocks(nn.Module):
    """Three pre-norm residual MLP blocks on [B, T, D]: six LayerNorms whose
    weights (ones) and biases (zeros) are equal at initialization, which the
    eval-mode exporter merges into one initializer each."""

    def __init__(self, width=32, classes=16, blocks=3):
        super().__init__()
        self.blocks = nn.ModuleList()
        for _ in range(blocks):
            self.blocks.append(nn.ModuleDict(dict(
                ln1=nn.LayerNorm(width), fc=nn.Linear(width, 2 * width),
                ln2=nn.LayerNorm(2 * width), proj=nn.Linear(2 * width, width))))
        self.head = nn.Linear(width, classes)

    def forward(self, x, labels):
        for b in self.blocks:
            x = x + b["proj"](b["ln2"](F.gelu(b["fc"](b["ln1"](x)))))
        logits = self.head(x)
        return F.cross_entropy(logits.flatten(0, 1), labels.flatten()), logits


class TwoDropouts(nn.Module):
    """Two dropouts of one input: their masks must differ, and differ from
    step to step."""

    def __init__(self, features=64, classes=8):
        super().__init__()
        self.fc1 = nn.Linear(features, features)
        self.fc2 = nn.Linear(features, features)
        self.head = nn.Linear(features, classes)
        self.drop1 = nn.Dropout(0.5)
        self.drop2 = nn.Dropout(0.5)

    def forward(self, x, labels):
        h = self.drop1(torch.tanh(self.fc1(x))) + self.drop2(torch.tanh(self.fc2(x)))
        logits = self.head(h)
        return F.cross_entropy(logits, labels), logits


class TwoLinears(nn.Module):
    """y = fc1(x) + fc2(x): the two biases have identical gradients."""

    def __init__(self, features=16, classes=8):
        super().__init__()
        self.fc1 = nn.Linear(features, classes)
        self.fc2 = nn.Linear(features, classes)

    def forward(self, x, labels):
        logits = self.fc1(x) + self.fc2(x)
        return F.cross_entropy(logits, labels), logits


class ShiftRight(nn.Module):
    """Hugging Face's shift_tokens_right (in-place slice assignment, exported
    as ScatterND) feeding an embedding, and a loss whose labels use -100 for
    positions to ignore."""

    def __init__(self, vocab=32, width=16):
        super().__init__()
        self.emb = nn.Embedding(vocab, width)
        self.head = nn.Linear(width, vocab)

    def forward(self, ids, labels):
        shifted = ids.new_zeros(ids.shape)
        shifted[:, 1:] = ids[:, :-1].clone()
        shifted[:, 0] = 3
        logits = self.head(torch.tanh(self.emb(shifted)))
        loss = F.cross_entropy(logits.flatten(0, 1), labels.flatten(),
                               ignore_index=-100)
        return loss, logits


class TiedLM(nn.Module):
    """An embedding whose table is also the output head (GPT-2's tie); the
    eval-mode exporter folds the head into a transposed copy."""

    def __init__(self, vocab=48, width=24):
        super().__init__()
        self.emb = nn.Embedding(vocab, width)
        self.ln = nn.LayerNorm(width)
        self.head = nn.Linear(width, vocab, bias=False)
        self.head.weight = self.emb.weight

    def forward(self, ids, labels):
        logits = self.head(self.ln(torch.tanh(self.emb(ids))))
        return F.cross_entropy(logits.flatten(0, 1), labels.flatten()), logits


class PaddedLM(nn.Module):
    """nn.Embedding with padding_idx=1 (Hugging Face's word embeddings have
    one), its table also the output head when `tied`: PyTorch gives row 1
    no gradient from the lookups, but the head's gradient still reaches it."""

    def __init__(self, tied, vocab=32, width=16):
        super().__init__()
        self.emb = nn.Embedding(vocab, width, padding_idx=1)
        self.ln = nn.LayerNorm(width)
        self.head = nn.Linear(width, vocab, bias=False)
        if tied:
            self.head.weight = self.emb.weight

    def forward(self, ids, labels):
        logits = self.head(self.ln(torch.tanh(self.emb(ids))))
        return F.cross_entropy(logits.flatten(0, 1), labels.flatten()), logits


class PadModes(nn.Module):
    """F.pad in every mode ONNX has (constant with a fill, reflect,
    replicate = edge) and a negative pad (a crop), between two
    convolutions, so that the pads' gradient reaches the first."""

    def __init__(self, classes=4):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 4, 3, padding=1)
        self.conv2 = nn.Conv2d(4, 5, 3)
        self.head = nn.Linear(5, classes)

    def forward(self, x, labels):
        h = torch.tanh(self.conv1(x))
        h = F.pad(h, (1, 2, 0, 1), value=0.5)
        h = F.pad(h, (2, 2, 1, 1), mode="reflect")
        h = F.pad(h, (1, 0, 0, 2), mode="replicate")
        h = F.pad(h, (-1, 0, 0, -2))
        logits = self.head(torch.tanh(self.conv2(h)).mean((2, 3)))
        return F.cross_entropy(logits, labels), logits


class GemmAttention(nn.Module):
    """Attention over flattened tokens: every projection, the output one
    included, is a 2-D nn.Linear (an ONNX Gemm with its bias), then a
    classifier whose classes tensor parallelism splits."""

    def __init__(self, width=16, heads=4, classes=6):
        super().__init__()
        self.heads = heads
        self.q = nn.Linear(width, width)
        self.k = nn.Linear(width, width)
        self.v = nn.Linear(width, width)
        self.o = nn.Linear(width, width)
        self.head = nn.Linear(width, classes)

    def forward(self, x, labels):
        b, t, c = x.shape
        flat = x.reshape(b * t, c)
        q, k, v = (p(flat).reshape(b, t, self.heads, c // self.heads)
                   .transpose(1, 2) for p in (self.q, self.k, self.v))
        att = (q @ k.transpose(-2, -1)) / math.sqrt(c // self.heads)
        out = (att.softmax(-1) @ v).transpose(1, 2).reshape(b * t, c)
        logits = self.head(torch.tanh(self.o(out)))
        return F.cross_entropy(logits, labels.flatten()), logits


class SharedLayer(nn.Module):
    """One Linear applied twice (ALBERT shares its layers so): on a 3-D
    input each use is a MatMul whose transposed weight the eval-mode
    exporter folds into a copy of its own, then merges the equal copies."""

    def __init__(self, features=8, width=16, classes=4):
        super().__init__()
        self.inp = nn.Linear(features, width)
        self.shared = nn.Linear(width, width)
        self.second = self.shared  # the same module: one weight
        self.head = nn.Linear(width, classes)

    def forward(self, x, labels):
        h = torch.tanh(self.inp(x))
        h = torch.tanh(self.shared(h))
        h = torch.tanh(self.second(h))
        logits = self.head(h)
        return F.cross_entropy(logits.flatten(0, 1), labels.flatten()), logits


class ClonedLayers(SharedLayer):
    """Two layers, the second a copy.deepcopy of the first (as
    nn.TransformerEncoder clones its layer): separate weights, equal at
    the start; the same export as SharedLayer's."""

    def __init__(self):
        super().__init__()
        self.second = copy.deepcopy(self.shared)


class CrossAttention(nn.Module):
    """Attention written by hand with unusual sizes and no mask: 3 heads, 5
    queries against 7 keys (cross-attention to a second input), key size 6,
    value size 5, the scale a division."""

    def __init__(self, width=12, heads=3, dk=6, dv=5, classes=8):
        super().__init__()
        self.heads, self.dk, self.dv = heads, dk, dv
        self.q = nn.Linear(width, heads * dk)
        # (A key bias adds q.b to every score of a row, which softmax
        # ignores: its gradient is zero, compared by noise alone.)
        self.k = nn.Linear(width, heads * dk, bias=False)
        self.v = nn.Linear(width, heads * dv)
        self.head = nn.Linear(heads * dv, classes)

    def forward(self, x, memory, labels):
        b, t, _ = x.shape
        s = memory.shape[1]
        q = self.q(x).view(b, t, self.heads, self.dk).transpose(1, 2)
        k = self.k(memory).view(b, s, self.heads, self.dk).transpose(1, 2)
        v = self.v(memory).view(b, s, self.heads, self.dv).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) / math.sqrt(self.dk)
        out = (att.softmax(-1) @ v).transpose(1, 2).reshape(b, t, -1)
        logits = self.head(out)
        return F.cross_entropy(logits.flatten(0, 1), labels.flatten()), logits


class MaskedAttention(nn.Module):
    """Causal attention as Hugging Face's GPT-2 writes it: a tril buffer
    sliced to the length, torch.finfo.min as the fill; here the mask comes
    before the scale, a product, and the length (9) is not the buffer's."""

    def __init__(self, width=16, heads=2, positions=12, classes=8):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(width, 3 * width)
        self.head = nn.Linear(width, classes)
        self.register_buffer("bias", torch.tril(torch.ones(positions, positions,
                                                           dtype=torch.bool)))

    def forward(self, x, labels):
        b, t, c = x.shape
        q, k, v = self.qkv(x).split(c, dim=2)
        shape = (b, t, self.heads, c // self.heads)
        q, k, v = (y.view(shape).transpose(1, 2) for y in (q, k, v))
        att = q @ k.transpose(-2, -1)
        att = torch.where(self.bias[:t, :t], att,
                          torch.tensor(torch.finfo(att.dtype).min))
        att = att * (1.0 / math.sqrt(c // self.heads))
        out = (att.softmax(-1) @ v).transpose(1, 2).reshape(b, t, c)
        logits = self.head(out)
        return F.cross_entropy(logits.flatten(0, 1), labels.flatten()), logits


class ConvBlock(nn.Sequential):
    """3x3 convolution, GroupNorm and SiLU: a diffusion or segmentation
    U-Net's block."""

    def __init__(self, cin, cout, groups=4):
        super().__init__(nn.Conv2d(cin, cout, 3, padding=1),
                         nn.GroupNorm(groups, cout), nn.SiLU())


class TinyUNet(nn.Module):
    """A segmentation U-Net as users write one: GroupNorm blocks, max-pool
    and strided-convolution downsampling, ConvTranspose2d and bilinear
    nn.Upsample upsampling with skip concatenations, an InstanceNorm2d, a
    nearest resize to a size 1.5 times larger (not a whole factor), a
    bicubic one with align_corners, and per-pixel cross-entropy."""

    def __init__(self, classes=3, c=8):
        super().__init__()
        self.inc = ConvBlock(3, c)
        self.pool = nn.MaxPool2d(2)
        self.enc1 = ConvBlock(c, 2 * c)
        self.down = nn.Conv2d(2 * c, 2 * c, 3, stride=2, padding=1)
        self.mid = ConvBlock(2 * c, 4 * c)
        self.up1 = nn.ConvTranspose2d(4 * c, 2 * c, 2, stride=2)
        self.dec1 = ConvBlock(4 * c, 2 * c)
        self.up2 = nn.Upsample(scale_factor=2, mode="bilinear",
                               align_corners=False)
        # No bias before a per-channel normalization: its gradient is 0 in
        # exact arithmetic, rounding noise in PyTorch's and ours.
        self.dec2 = nn.Sequential(nn.Conv2d(3 * c, c, 3, padding=1, bias=False),
                                  nn.InstanceNorm2d(c, affine=True), nn.SiLU())
        self.aux = nn.Conv2d(2 * c, classes, 1)
        self.head = nn.Conv2d(c, classes, 1)

    def forward(self, x, labels):
        x1 = self.inc(x)                          # 16 x 16
        x2 = self.enc1(self.pool(x1))             # 8 x 8
        x3 = self.mid(self.down(x2))              # 4 x 4
        d1 = self.dec1(torch.cat([self.up1(x3), x2], 1))
        d2 = self.dec2(torch.cat([self.up2(d1), x1], 1))
        aux = F.interpolate(self.aux(d1), size=(12, 12), mode="nearest")
        aux = F.interpolate(aux, size=(16, 16), mode="bicubic",
                            align_corners=True)
        logits = self.head(d2) + aux
        return F.cross_entropy(logits, labels), logits


class AudioCNN(nn.Module):
    """A 1-D convolutional sequence classifier (keyword spotting, ECG):
    Conv1d with stride, dilation and groups, BatchNorm1d, MaxPool1d,
    AvgPool1d with padding, GroupNorm over channels of a sequence,
    ConvTranspose1d and linear nn.Upsample."""

    def __init__(self, classes=5):
        super().__init__()
        self.conv1 = nn.Conv1d(2, 8, 5, stride=2, padding=2, bias=False)
        self.bn1 = nn.BatchNorm1d(8)
        self.pool = nn.MaxPool1d(2)
        self.conv2 = nn.Conv1d(8, 8, 3, padding=2, dilation=2, groups=2)
        self.gn = nn.GroupNorm(2, 8)
        self.avg = nn.AvgPool1d(3, stride=1, padding=1)
        self.convt = nn.ConvTranspose1d(8, 6, 4, stride=2, padding=1)
        self.up = nn.Upsample(scale_factor=2, mode="linear")
        self.head = nn.Linear(6, classes)

    def forward(self, x, labels):
        h = self.pool(F.gelu(self.bn1(self.conv1(x))))
        h = self.avg(F.gelu(self.gn(self.conv2(h))))
        h = self.up(torch.tanh(self.convt(h)))
        logits = self.head(h.mean(2))
        return F.cross_entropy(logits, labels), logits


class LstmTagger(nn.Module):
    """A sequence tagger: embeddings, a 2-layer bidirectional LSTM
    (batch_first), a linear head and per-token cross-entropy."""

    def __init__(self, vocab=24, classes=5):
        super().__init__()
        self.emb = nn.Embedding(vocab, 8)
        self.lstm = nn.LSTM(8, 6, num_layers=2, bidirectional=True,
                            batch_first=True)
        self.head = nn.Linear(12, classes)

    def forward(self, ids, labels):
        out, _ = self.lstm(self.emb(ids))
        logits = self.head(out)
        return F.cross_entropy(logits.flatten(0, 1), labels.flatten()), logits


class GruClassifier(nn.Module):
    """A sequence classifier over float features: a GRU (sequence first),
    an Elman RNN with ReLU over its outputs, the last hidden states of
    both into a linear head."""

    def __init__(self, features=5, classes=4):
        super().__init__()
        self.gru = nn.GRU(features, 7)
        self.rnn = nn.RNN(7, 6, nonlinearity="relu")
        self.head = nn.Linear(13, classes)

    def forward(self, x, labels):
        out, h_gru = self.gru(x)
        _, h_rnn = self.rnn(out)
        logits = self.head(torch.cat([h_gru[-1], h_rnn[-1]], 1))
        return F.cross_entropy(logits, labels), logits


class EinsumBlock(nn.Module):
    """Attention, a feed-forward layer and a bilinear head written with
    torch.einsum, as papers' reference code often is: a packed QKV weight
    ('btd,shde->sbhte'), scores and values per head, the heads' output
    projection, an ellipsis linear ('...d,df->...f'), per-feature gains read
    off a matrix's diagonal ('ii->i') and a three-operand bilinear head
    ('bd,cde,be->bc')."""

    def __init__(self, width=16, heads=2, classes=5):
        super().__init__()
        head = width // heads
        self.qkv = nn.Parameter(torch.randn(3, heads, width, head) / math.sqrt(width))
        self.out = nn.Parameter(torch.randn(heads, head, width) / math.sqrt(width))
        self.ff = nn.Parameter(torch.randn(width, 2 * width) / math.sqrt(width))
        self.ff_out = nn.Parameter(torch.randn(2 * width, width) / math.sqrt(2 * width))
        self.gains = nn.Parameter(torch.eye(width) + 0.1 * torch.randn(width, width))
        self.bilinear = nn.Parameter(0.1 * torch.randn(classes, width, width))
        self.ln = nn.LayerNorm(width)

    def forward(self, x, labels):
        q, k, v = torch.einsum("btd,shde->sbhte", x, self.qkv)
        scores = torch.einsum("bhqe,bhke->bhqk", q, k) / math.sqrt(q.shape[-1])
        h = torch.einsum("bhqk,bhke->bhqe", scores.softmax(-1), v)
        x = x + torch.einsum("bhte,hed->btd", h, self.out)
        x = x + torch.einsum("...f,fd->...d",
                             F.gelu(torch.einsum("...d,df->...f", x, self.ff)),
                             self.ff_out)
        x = self.ln(x) * torch.einsum("ii->i", self.gains)
        pooled = x.mean(1)
        logits = torch.einsum("bd,cde,be->bc", pooled, self.bilinear, pooled)
        return F.cross_entropy(logits, labels), logits


class ScatterOps(nn.Module):
    """Scatters as users write them, at indices that are model inputs:
    features routed to slots with scatter_add (a mixture-of-experts
    dispatch), a multi-hot encoding with zeros.scatter_ whose rows repeat a
    tag, scatter (replace) of a computed source, a segment sum of rows
    (scatter_add along dimension 0), and an in-place row assignment at a
    permutation (index_put: ScatterND)."""

    def __init__(self, features=8, slots=6, classes=5):
        super().__init__()
        self.fc = nn.Linear(features, slots)
        self.tag_emb = nn.Linear(slots, slots)
        self.rows = nn.Linear(features, features)
        self.head = nn.Linear(4 * slots + features, classes)

    def forward(self, x, idx, tags, perm, labels):
        h = self.fc(x)
        routed = torch.zeros_like(h).scatter_add(1, idx, h[:, :2])
        hot = torch.zeros_like(h).scatter_(1, tags, 1.0)
        replaced = h.scatter(1, idx, torch.tanh(h[:, 2:4]))
        moved = h.clone()
        moved[perm] = 2 * h
        # A segment sum: rows added into 4 groups.
        group = (idx[:, :1] % 4).expand(-1, x.shape[1])
        pooled = torch.zeros(4, x.shape[1]).scatter_add(0, group, self.rows(x))
        feats = torch.cat([routed, self.tag_emb(hot), replaced, moved,
                           pooled[idx[:, 1] % 4]], 1)
        logits = self.head(torch.tanh(feats))
        return F.cross_entropy(logits, labels), logits


class Volume3D(nn.Module):
    """A 3-D encoder-decoder written as medical-imaging and video models
    are (MONAI-style blocks): Conv3d with padding, BatchNorm3d, MaxPool3d in
    ceil mode over an odd depth, a strided, dilated and grouped Conv3d,
    AvgPool3d with padding not counted, a strided ConvTranspose3d with
    output_padding back up, a skip connection, and per-voxel labels."""

    def __init__(self, classes=3):
        super().__init__()
        self.conv1 = nn.Conv3d(2, 8, 3, padding=1, bias=False)  # BatchNorm follows
        self.bn = nn.BatchNorm3d(8)
        self.pool = nn.MaxPool3d(2, ceil_mode=True)
        self.conv2 = nn.Conv3d(8, 8, (3, 3, 1), stride=(2, 1, 1),
                               dilation=(1, 2, 1), padding=(1, 2, 0), groups=2)
        self.avg = nn.AvgPool3d(3, stride=1, padding=1, count_include_pad=False)
        self.up = nn.ConvTranspose3d(8, 8, (3, 2, 2), stride=(2, 2, 2),
                                     padding=(1, 0, 0), output_padding=(0, 0, 1))
        self.head = nn.Conv3d(16, classes, 1)

    def forward(self, x, labels):
        skip = F.relu(self.bn(self.conv1(x)))                 # 9 x 8 x 7
        h = self.pool(skip)                                   # 5 x 4 x 4
        h = self.avg(F.relu(self.conv2(h)))                   # 3 x 4 x 4
        h = self.up(h)                                        # 5 x 8 x 9
        h = F.pad(h[:, :, :, :, :7], (0, 0, 0, 0, 0, 4))      # 9 x 8 x 7
        logits = self.head(torch.cat([h, skip], 1))
        return F.cross_entropy(logits, labels), logits


class DilatedPools(nn.Module):
    """Dilated max pooling, which dist builds from strided slices: a 2-D
    one with padding and ceil mode after a convolution, and a 1-D one over
    the rows of the result."""

    def __init__(self, classes=4):
        super().__init__()
        self.conv = nn.Conv2d(3, 6, 3, padding=1)
        self.pool2d = nn.MaxPool2d(3, stride=2, dilation=2, padding=1, ceil_mode=True)
        self.pool1d = nn.MaxPool1d(2, stride=1, dilation=3)
        self.head = nn.Linear(6 * 4 * 2, classes)

    def forward(self, x, labels):
        h = self.pool2d(torch.tanh(self.conv(x)))            # 6 x 4 x 5
        h = self.pool1d(h.flatten(1, 2)).flatten(1)           # 24 x 2
        logits = self.head(h)
        return F.cross_entropy(logits, labels), logits


class DropPathBlocks(nn.Module):
    """Pre-norm residual MLP blocks with stochastic depth written as Hugging
    Face's drop_path (BEiT, ConvNeXt, Swin): each sample's branch is kept
    with probability `keep`, `floor(keep + torch.rand(batch, 1, 1))`, and
    scaled by 1 / keep. (timm's drop_path uses bernoulli_, which PyTorch
    1.13 cannot export.) With keep = 1 every branch is kept."""

    def __init__(self, keep):
        super().__init__()
        self.keep = keep
        self.norms = nn.ModuleList(nn.LayerNorm(16) for _ in range(2))
        self.mlps = nn.ModuleList(
            nn.Sequential(nn.Linear(16, 32), nn.GELU(), nn.Linear(32, 16)) for _ in range(2))
        self.head = nn.Linear(16, 8)

    def forward(self, x, labels):
        for norm, mlp in zip(self.norms, self.mlps):
            mask = (self.keep + torch.rand(x.shape[0], 1, 1, dtype=x.dtype)).floor()
            x = x + mlp(norm(x)) * mask / self.keep
        logits = self.head(x)
        return F.cross_entropy(logits.reshape(-1, 8), labels.reshape(-1)), logits


class Vae(nn.Module):
    """A variational autoencoder: the reparameterization z = mu + sigma *
    torch.randn_like(mu), a reconstruction error and the KL divergence to
    the unit normal."""

    def __init__(self):
        super().__init__()
        self.enc = nn.Linear(24, 32)
        self.mu = nn.Linear(32, 6)
        self.logvar = nn.Linear(32, 6)
        self.dec = nn.Sequential(nn.Linear(6, 32), nn.Tanh(), nn.Linear(32, 24))

    def forward(self, x):
        h = torch.tanh(self.enc(x))
        mu, logvar = self.mu(h), self.logvar(h)
        z = mu + torch.exp(0.5 * logvar) * torch.randn_like(mu)
        recon = self.dec(z)
        error = ((recon - x) ** 2).sum(dim=1).mean()
        kl = -0.5 * (1 + logvar - mu ** 2 - logvar.exp()).sum(dim=1).mean()
        return error + kl, recon


def build(name):
    torch.manual_seed(0)
    if name == "ln-blocks":
        return (LNBlocks(), (torch.randn(4, 8, 32), torch.randint(0, 16, (4, 8))),
                ["x", "labels"])
    if name == "two-dropouts":
        return (TwoDropouts(), (torch.randn(16, 64), torch.randint(0, 8, (16,))),
                ["x", "labels"])
    if name in ("drop-path", "drop-path-keep1"):
        keep = 0.5 if name == "drop-path" else 1.0
        return (DropPathBlocks(keep), (torch.randn(8, 6, 16), torch.randint(0, 8, (8, 6))),
                ["x", "labels"])
    if name == "vae":
        return (Vae(), (torch.randn(16, 24),), ["x"])
    if name == "two-linears":
        return (TwoLinears(), (torch.randn(8, 16), torch.randint(0, 8, (8,))),
                ["x", "labels"])
    if name == "shift-right":
        labels = torch.randint(0, 32, (4, 12))
        labels[:, ::3] = -100  # ignored positions, as masked-LM labels
        return (ShiftRight(), (torch.randint(0, 32, (4, 12)), labels),
                ["ids", "labels"])
    if name == "tied-lm":
        return (TiedLM(), (torch.randint(0, 48, (4, 10)), torch.randint(0, 48, (4, 10))),
                ["ids", "labels"])
    if name == "gemm-attention":
        return (GemmAttention(), (torch.randn(2, 5, 16), torch.randint(0, 6, (2, 5))),
                ["x", "labels"])
    if name == "pad-modes":
        return (PadModes(), (torch.randn(2, 3, 6, 7), torch.randint(0, 4, (2,))),
                ["x", "labels"])
    if name == "tiny-unet":
        return (TinyUNet(), (torch.randn(2, 3, 16, 16), torch.randint(0, 3, (2, 16, 16))),
                ["x", "labels"])
    if name == "audio-cnn":
        # PyTorch 1.13's oneDNN Conv1d backward is not repeatable
        # (test/Models/Inputs/model_zoo.py, ONEDNN_CONV1D_NOTE).
        torch.backends.mkldnn.enabled = False
        return (AudioCNN(), (torch.randn(4, 2, 40), torch.randint(0, 5, (4,))),
                ["x", "labels"])
    if name == "lstm-tagger":
        return (LstmTagger(), (torch.randint(0, 24, (4, 7)), torch.randint(0, 5, (4, 7))),
                ["ids", "labels"])
    if name == "gru-classifier":
        # Sequence first: dimension 0 is time (8 steps), the batch is 4.
        return (GruClassifier(), (torch.randn(8, 4, 5), torch.randint(0, 4, (4,))),
                ["x", "labels"])
    if name in ("padded-lm", "padded-tied-lm"):
        ids = torch.randint(0, 32, (4, 10))
        ids[:, 7:] = 1  # padding at the end of each row
        return (PaddedLM(tied=name == "padded-tied-lm"),
                (ids, torch.randint(0, 32, (4, 10))), ["ids", "labels"])
    if name in ("shared-layer", "cloned-layers"):
        module = SharedLayer() if name == "shared-layer" else ClonedLayers()
        return (module, (torch.randn(2, 8, 8), torch.randint(0, 4, (2, 8))),
                ["x", "labels"])
    if name == "cross-attention":
        return (CrossAttention(), (torch.randn(2, 5, 12), torch.randn(2, 7, 12),
                                   torch.randint(0, 8, (2, 5))),
                ["x", "memory", "labels"])
    if name == "einsum-block":
        return (EinsumBlock(), (torch.randn(4, 6, 16), torch.randint(0, 5, (4,))),
                ["x", "labels"])
    if name == "scatter-ops":
        g = torch.Generator().manual_seed(1)
        # Two distinct slots per row; tags repeat within rows; a permutation.
        idx = torch.stack([torch.randperm(6, generator=g)[:2] for _ in range(6)])
        tags = torch.tensor([[0, 0, 3], [1, 5, 5], [2, 2, 2], [4, 1, 0],
                             [3, 3, 1], [5, 4, 4]])
        perm = torch.randperm(6, generator=g)
        return (ScatterOps(), (torch.randn(6, 8), idx, tags, perm,
                               torch.randint(0, 5, (6,))),
                ["x", "idx", "tags", "perm", "labels"])
    if name == "volume-3d":
        return (Volume3D(), (torch.randn(2, 2, 9, 8, 7), torch.randint(0, 3, (2, 9, 8, 7))),
                ["x", "labels"])
    if name == "dilated-pools":
        return (DilatedPools(), (torch.randn(3, 3, 9, 10), torch.randint(0, 4, (3,))),
                ["x", "labels"])
    if name == "masked-attention":
        return (MaskedAttention(), (torch.randn(3, 9, 16), torch.randint(0, 8, (3, 9))),
                ["x", "labels"])
    raise SystemExit("unknown model '%s'" % name)


NAMES = ("ln-blocks", "two-dropouts", "two-linears", "shift-right", "tied-lm",
         "cross-attention", "masked-attention", "shared-layer", "cloned-layers",
         "padded-lm", "padded-tied-lm", "pad-modes", "gemm-attention",
         "tiny-unet", "audio-cnn", "lstm-tagger", "gru-classifier",
         "einsum-block", "scatter-ops", "volume-3d", "dilated-pools",
         "drop-path", "drop-path-keep1", "vae")


def export(name, mode, out):
    module, inputs, names = build(name)
    kwargs = dict(input_names=names, output_names=["loss", "logits"])
    if mode == "eval":  # what a user gets from torch.onnx.export(m, args, f)
        module.eval()
        torch.onnx.export(module, inputs, out, opset_version=14, **kwargs)
    elif mode == "train":
        module.train()
        torch.onnx.export(module, inputs, out, opset_version=14,
                          training=torch.onnx.TrainingMode.TRAINING,
                          do_constant_folding=False, **kwargs)
    elif mode == "helper":
        from dist_export import export_for_training
        export_for_training(module, inputs, out, **kwargs)
    else:
        raise SystemExit("unknown mode '%s' (eval, train, helper)" % mode)


if __name__ == "__main__":
    export(*sys.argv[1:4])
