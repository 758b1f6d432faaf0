"""ResNet-50 (v1.5) and MobileNetV2 in plain torch.nn, so that the H200 benchmark needs neither
torchvision nor downloaded weights. Layouts follow the papers (He et al. 2015, "Deep Residual
Learning", bottleneck [3, 4, 6, 3] with the stride on the 3x3 conv as in v1.5; Sandler et al.
2018, "MobileNetV2", Table 2), width 1.0, 1000 classes, 224x224 inputs; and a BERT-base-like
encoder (Devlin et al. 2018: 12 layers, hidden 768, 12 heads, FFN 3072, GELU, post-LayerNorm)
over token ids, sequence 128, whose attention is written out in MatMul/Softmax so that the
export is the plain ONNX a torch user gets."""
import math

import numpy as np
import torch
from torch import nn


class Bottleneck(nn.Module):
    expansion = 4

    def __init__(self, cin, width, stride):
        super().__init__()
        cout = width * self.expansion
        self.conv1 = nn.Conv2d(cin, width, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(width)
        self.conv2 = nn.Conv2d(width, width, 3, stride=stride, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(width)
        self.conv3 = nn.Conv2d(width, cout, 1, bias=False)
        self.bn3 = nn.BatchNorm2d(cout)
        self.relu = nn.ReLU(inplace=True)
        self.shortcut = None
        if stride != 1 or cin != cout:
            self.shortcut = nn.Sequential(nn.Conv2d(cin, cout, 1, stride=stride, bias=False),
                                          nn.BatchNorm2d(cout))

    def forward(self, x):
        y = self.relu(self.bn1(self.conv1(x)))
        y = self.relu(self.bn2(self.conv2(y)))
        y = self.bn3(self.conv3(y))
        return self.relu(y + (x if self.shortcut is None else self.shortcut(x)))


class ResNet50(nn.Module):
    def __init__(self, classes=1000):
        super().__init__()
        self.stem = nn.Sequential(
            nn.Conv2d(3, 64, 7, stride=2, padding=3, bias=False), nn.BatchNorm2d(64),
            nn.ReLU(inplace=True), nn.MaxPool2d(3, stride=2, padding=1))
        layers, cin = [], 64
        for width, blocks, stride in [(64, 3, 1), (128, 4, 2), (256, 6, 2), (512, 3, 2)]:
            for i in range(blocks):
                layers.append(Bottleneck(cin, width, stride if i == 0 else 1))
                cin = width * Bottleneck.expansion
        self.layers = nn.Sequential(*layers)
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(cin, classes)

    def forward(self, x):
        x = self.pool(self.layers(self.stem(x)))
        return self.fc(torch.flatten(x, 1))


def conv_bn_relu6(cin, cout, k, stride, groups=1):
    return nn.Sequential(nn.Conv2d(cin, cout, k, stride=stride, padding=k // 2, groups=groups, bias=False),
                         nn.BatchNorm2d(cout), nn.ReLU6(inplace=True))


class InvertedResidual(nn.Module):
    def __init__(self, cin, cout, stride, expand):
        super().__init__()
        hidden = cin * expand
        layers = [] if expand == 1 else [conv_bn_relu6(cin, hidden, 1, 1)]
        layers += [conv_bn_relu6(hidden, hidden, 3, stride, groups=hidden),   # depthwise
                   nn.Conv2d(hidden, cout, 1, bias=False), nn.BatchNorm2d(cout)]  # linear bottleneck
        self.block = nn.Sequential(*layers)
        self.residual = stride == 1 and cin == cout

    def forward(self, x):
        y = self.block(x)
        return x + y if self.residual else y


class MobileNetV2(nn.Module):
    # (expansion t, channels c, repeats n, stride s), MobileNetV2 paper Table 2
    SETTINGS = [(1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2), (6, 64, 4, 2),
                (6, 96, 3, 1), (6, 160, 3, 2), (6, 320, 1, 1)]

    def __init__(self, classes=1000):
        super().__init__()
        layers, cin = [conv_bn_relu6(3, 32, 3, 2)], 32
        for t, c, n, s in self.SETTINGS:
            for i in range(n):
                layers.append(InvertedResidual(cin, c, s if i == 0 else 1, t))
                cin = c
        layers.append(conv_bn_relu6(cin, 1280, 1, 1))
        self.features = nn.Sequential(*layers)
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.classifier = nn.Sequential(nn.Dropout(0.2), nn.Linear(1280, classes))

    def forward(self, x):
        return self.classifier(torch.flatten(self.pool(self.features(x)), 1))


class EncoderLayer(nn.Module):
    def __init__(self, hidden, heads, ffn):
        super().__init__()
        self.heads, self.head_dim = heads, hidden // heads
        self.qkv = nn.ModuleList(nn.Linear(hidden, hidden) for _ in range(3))
        self.out = nn.Linear(hidden, hidden)
        self.norm1 = nn.LayerNorm(hidden, eps=1e-12)
        self.ff1 = nn.Linear(hidden, ffn)
        self.ff2 = nn.Linear(ffn, hidden)
        self.norm2 = nn.LayerNorm(hidden, eps=1e-12)

    def forward(self, x):
        # Constant shapes (-1 for the batch): the export then has no Shape/Gather/Concat chains.
        s, h = Bert.SEQ, self.heads * self.head_dim
        q, k, v = (lin(x).view(-1, s, self.heads, self.head_dim).transpose(1, 2) for lin in self.qkv)
        att = torch.softmax(q @ k.transpose(-1, -2) / math.sqrt(self.head_dim), dim=-1)
        ctx = (att @ v).transpose(1, 2).reshape(-1, s, h)
        x = self.norm1(x + self.out(ctx))
        return self.norm2(x + self.ff2(nn.functional.gelu(self.ff1(x))))


class Bert(nn.Module):
    """BERT-base-like: token + position embeddings, LayerNorm, 12 post-norm encoder layers; the
    output is the last hidden state [batch, seq, 768]."""
    SEQ = 128

    def __init__(self, vocab=30522, hidden=768, layers=12, heads=12, ffn=3072):
        super().__init__()
        self.tokens = nn.Embedding(vocab, hidden)
        self.positions = nn.Parameter(torch.randn(self.SEQ, hidden) * 0.02)
        self.norm = nn.LayerNorm(hidden, eps=1e-12)
        self.layers = nn.Sequential(*(EncoderLayer(hidden, heads, ffn) for _ in range(layers)))

    def forward(self, ids):
        return self.layers(self.norm(self.tokens(ids) + self.positions))


MODELS = {"resnet50": ResNet50, "mobilenetv2": MobileNetV2, "bert": Bert}


def example_input(name, batch, rng):
    """The benchmark input of `name` at `batch`, as a numpy array (images: float32 NCHW
    224x224; BERT: int64 token ids [batch, 128])."""
    if name == "bert":
        return rng.integers(0, 30522, size=(batch, Bert.SEQ), dtype=np.int64)
    return rng.standard_normal((batch, 3, 224, 224)).astype(np.float32)


def build(name, seed=0):
    """The model in eval mode with random weights and non-trivial BatchNorm statistics."""
    torch.manual_seed(seed)
    model = MODELS[name]()
    for m in model.modules():
        if isinstance(m, nn.BatchNorm2d):
            # Fresh BatchNorm layers are the identity (mean 0, var 1, weight 1, bias 0); random
            # statistics make the folded weights (and any mistake in them) visible.
            with torch.no_grad():
                m.running_mean.uniform_(-0.1, 0.1)
                m.running_var.uniform_(0.5, 1.5)
                m.weight.uniform_(0.5, 1.5)
                m.bias.uniform_(-0.1, 0.1)
    return model.eval()
