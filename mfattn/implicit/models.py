"""The MNIST model of *Deep Implicit Attention* (Bal, 2021): about 26k parameters.

Pipeline (shapes for a batch of B images)::

    image (B, 1, 28, 28)
      -> conv 3x3 (32 ch) -> ReLU -> max-pool 3/2     (B, 32, 12, 12)
      -> conv 3x3 (32 ch) -> ReLU -> max-pool 3/2     (B, 32, 4, 4)
      -> 16 patch tokens, linear 32 -> d              (B, 16, d)
      -> prepend a learnable cls token                (B, 17, d)  = the sources X_i
      -> DEQ mean-field attention, N = 17 sites       (B, 17, d)  = the magnetisations m_i*
      -> linear head on the cls site                  (B, 10)     logits

The attention layer solves the vector-spin mean-field equations
``m_i = sum_j J_ij m_j + X_i - f_theta(.)`` to a fixed point (Anderson, 40 iterations,
tol 1e-4, forward and backward), so the cls site's answer is a collective response of
all 17 spins to the data, not one pass through a stack of layers.
"""

from __future__ import annotations

from typing import Any

import torch
import torch.nn.functional as F
from torch import nn
from ..companion.checks import contract

__all__ = ["ATTENTION_DEFAULTS", "PatchEmbedding", "MeanFieldMNIST", "build_model"]

#: The blog's settings of the attention layer. Options passed to :class:`MeanFieldMNIST`
#: override these (and are checked by :class:`mfattn.implicit.meanfield.MeanFieldAttention`).
ATTENTION_DEFAULTS: dict[str, Any] = {
    "symmetry": "internal",
    "interaction": "linear",
    "lin_response": True,
    "correction": "g",
    "solver": "anderson",
    "max_iter": 40,
    "tol": 1e-4,
    "backward_max_iter": 40,
    "backward_tol": 1e-4,
    "grad": "implicit",
}


class PatchEmbedding(nn.Module):
    """Two conv/ReLU/max-pool stages turn a 28x28 image into a 4x4 grid of ``dim``-vectors.

    (B, 1, 28, 28) -> (B, 16, dim). The 3x3 pools with stride 2 overlap, so neighbouring
    tokens share pixels; the 16 tokens are the sites the mean-field layer couples.
    """

    @contract(dim="int:1", channels="int:1")
    def __init__(self, dim: int = 10, channels: int = 32) -> None:
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, channels, kernel_size=3), nn.ReLU(), nn.MaxPool2d(3, stride=2),
            nn.Conv2d(channels, channels, kernel_size=3), nn.ReLU(), nn.MaxPool2d(3, stride=2),
        )
        self.project = nn.Linear(channels, dim)

    def forward(self, images: torch.Tensor) -> torch.Tensor:
        if images.dim() != 4 or images.shape[1:] != (1, 28, 28):
            raise ValueError(f"images must have shape (B, 1, 28, 28); got {tuple(images.shape)}")
        conv1, conv2 = self.features[0], self.features[3]
        if images.dtype != conv1.weight.dtype:   # shapes and dtypes only: this runs at every training step
            raise TypeError(f"images have dtype {images.dtype} but the model's weights are {conv1.weight.dtype}: "
                            f"cast the images (images.to({conv1.weight.dtype})) or the model")
        if images.device.type != "cpu":
            h = F.max_pool2d(conv1(images), 3, stride=2).relu()
            grid = F.max_pool2d(conv2(h), 3, stride=2).relu()
        else:
            # The numbers of self.features(images), computed faster on CPU: max-pooling
            # commutes with ReLU, so the ReLU runs on the 4x smaller pooled map, and
            # max-pooling is several times faster in channels-last layout
            # (benchmarks/bench_mnist_step.py). _ConvPool3x3 does the first stage without
            # converting the 26x26 feature maps between layouts; its channels-last output
            # keeps the second convolution (and its backward) channels-last too, and the
            # tokens below are then a view. Only what reaches a token is computed: the 4x4 grid
            # pools rows/columns 0..8 of the second convolution's 10x10 map, which read pooled
            # rows 0..10 of the first stage, which pool its rows 0..22, which read pixel rows
            # 0..24 (_USED_PIXELS). The crop leaves every token's sum unchanged and saves about a
            # fifth of both convolutions' arithmetic (and of their backward).
            crop = images[:, :, :_USED_PIXELS, :_USED_PIXELS]
            h = _ConvPool3x3.apply(crop, conv1.weight, conv1.bias).relu()                # (B, C, 11, 11)
            grid = F.max_pool2d(conv2(h).contiguous(memory_format=torch.channels_last), 3, stride=2).relu()
        tokens = grid.flatten(2).transpose(1, 2)         # (B, 16, C), row-major patch order
        return self.project(tokens)


#: Pixel rows (and columns) 0..24 of a 28x28 image reach the 4x4 token grid (conv 3x3 + max-pool 3/2,
#: twice); the last three rows and columns are outside every token.
_USED_PIXELS = 25


class _ConvPool3x3(torch.autograd.Function):
    """``max_pool2d(conv2d(x, w, b), 3, stride=2)`` for one input channel, on CPU.

    Forward: the 3x3 convolution as an im2col product ``cols (B·H·W, 9) @ wᵀ (9, C)``, whose
    result *is* the channels-last feature map, so the pooling runs in its fast layout with
    no copy (the bias, which commutes with the max, is added after pooling). Backward: the
    pooling gradient is scattered in that layout too; the weight gradient is the transposed
    im2col product ``colsᵀ (9, B·H·W) @ ∂fmap (B·H·W, C)`` and the bias gradient the sum of
    the pooled gradient (each pooled output passes its gradient to exactly one position of
    the feature map). Values and gradients are those of the plain layers up to the order of
    the sums (tested against them).
    """

    @staticmethod
    def forward(ctx, x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
        B, _, H, W = x.shape
        C = weight.shape[0]
        Ho, Wo = H - 2, W - 2
        # The 3x3 patches as a strided view of the image, gathered by one copy (about twice
        # as fast as F.unfold followed by the transpose the product needs).
        cols = x[:, 0].unfold(1, 3, 1).unfold(2, 3, 1).reshape(B * Ho * Wo, 9)
        fmap = torch.mm(cols, weight.reshape(C, 9).t()).view(B, Ho, Wo, C).permute(0, 3, 1, 2)
        out, index = torch.ops.aten.max_pool2d_with_indices(fmap, [3, 3], [2, 2])
        ctx.save_for_backward(x, weight, cols, index)
        # A per-channel constant commutes with the max: the bias is added to the pooled map,
        # not written into the 4x larger feature map first.
        return out.add_(bias[:, None, None])

    @staticmethod
    @torch.autograd.function.once_differentiable
    def backward(ctx, grad_out: torch.Tensor):
        x, weight, cols, index = ctx.saved_tensors
        B, _, H, W = x.shape
        C = weight.shape[0]
        Ho, Wo = H - 2, W - 2
        cl = torch.channels_last
        grad_fmap = torch.ops.aten.max_pool2d_with_indices_backward(
            grad_out.contiguous(memory_format=cl), x.new_empty(B, Ho, Wo, C).permute(0, 3, 1, 2),
            [3, 3], [2, 2], [0, 0], [1, 1], False, index.contiguous(memory_format=cl))   # (B, C, Ho, Wo), channels-last
        need_x, need_w, need_b = ctx.needs_input_grad
        grad_x = grad_w = grad_b = None
        if need_w:
            rows = grad_fmap.permute(0, 2, 3, 1).reshape(B * Ho * Wo, C)              # a view
            grad_w = torch.mm(cols.t(), rows).t().reshape(weight.shape)
        if need_b:
            grad_b = grad_out.sum(dim=(0, 2, 3))
        if need_x:
            grad_x = torch.ops.aten.convolution_backward(
                grad_fmap, x, weight, [C], [1, 1], [0, 0], [1, 1], False, [0, 0], 1, [True, False, False])[0]
        return grad_x, grad_w, grad_b


class MeanFieldMNIST(nn.Module):
    """Patch embedding + cls token -> DEQ mean-field attention (N = 17) -> linear classifier.

    Parameters
    ----------
    dim : spin dimension d (10 in the blog).
    channels : conv channels of the embedding (32).
    **attention : options of :class:`mfattn.implicit.meanfield.MeanFieldAttention` overriding
        :data:`ATTENTION_DEFAULTS` (``correction``, ``lin_response``, ``solver``, ``grad``, ...).
    """

    num_patches = 16

    @contract(dim="int:1", channels="int:1")
    def __init__(self, dim: int = 10, channels: int = 32, **attention: Any) -> None:
        super().__init__()
        from .meanfield import MeanFieldAttention

        if not isinstance(dim, int) or dim < 1:
            raise ValueError(f"dim must be a positive integer; got {dim!r}")
        self.options = {**ATTENTION_DEFAULTS, **attention}
        self.embed = PatchEmbedding(dim, channels)
        self.cls_token = nn.Parameter(torch.randn(1, 1, dim))
        self.attention = MeanFieldAttention(self.num_patches + 1, dim, **self.options)
        self.head = nn.Linear(dim, 10)

    @property
    def num_spins(self) -> int:
        return self.num_patches + 1

    def sources(self, images: torch.Tensor) -> torch.Tensor:
        """The external fields X: (B, 1, 28, 28) -> (B, 17, d), cls site first."""
        tokens = self.embed(images)
        return torch.cat([self.cls_token.expand(tokens.shape[0], -1, -1), tokens], dim=1)

    def forward(self, images: torch.Tensor) -> torch.Tensor:
        """Logits (B, 10) read from the cls site's fixed-point magnetisation."""
        m = self.attention(self.sources(images))
        return self.head(m[:, 0])

    def parameter_counts(self) -> dict[str, int]:
        """``raw``: stored numbers; ``effective``: independent ones (symmetric, zero-diagonal J counted once)."""
        attention_ids = {id(p) for p in self.attention.parameters()}
        rest = sum(p.numel() for p in self.parameters() if id(p) not in attention_ids)
        inner = self.attention.parameter_counts()
        return {"raw": rest + int(inner["raw"]), "effective": rest + int(inner["effective"])}


@contract(dim="int:1", channels="int:1")
def build_model(seed: int = 0, *, dim: int = 10, channels: int = 32, device=None, dtype=None,
                **attention: Any) -> MeanFieldMNIST:
    """A :class:`MeanFieldMNIST` whose initial weights depend only on ``seed``.

    The global torch RNG is forked, so building a model neither depends on nor disturbs
    the caller's random state.
    """
    if not isinstance(seed, int) or isinstance(seed, bool) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer; got {seed!r}")
    if dtype is not None and (not isinstance(dtype, torch.dtype) or not dtype.is_floating_point):
        raise TypeError(f"dtype must be None or a floating-point torch.dtype (e.g. torch.float64); got {dtype!r}")
    if device is not None:
        try:
            device = torch.device(device)
        except (RuntimeError, TypeError) as err:
            raise ValueError(f"device must be None, a torch.device or a name such as 'cpu' or 'cuda:0'; "
                             f"got {device!r} ({err})") from None
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        model = MeanFieldMNIST(dim, channels, **attention)
    return model.to(device=device, dtype=dtype)
