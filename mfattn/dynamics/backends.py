"""Array backends of the batched mean-field map: the operations one step of
:class:`mfattn.dynamics.batched_map._MeanFieldEngine` is written with, as a tiny table per backend.

Each operation takes its inputs and then ``out`` (written in place, nothing allocated per step):
``"numpy"`` binds numpy's ufuncs directly (float64, the CPU reference), ``"torch"`` wraps the torch
functions of the same names (float64 by default; CPU or GPU). ``sum_rows(a, out)`` adds the rows of
``a (rows, B)`` left to right, the order of explicit adds (and of numpy's sum over so few terms).
"""

from __future__ import annotations

import numpy as np

from ..companion.checks import check_device

__all__ = ["BACKENDS", "ops_for"]

BACKENDS = ("numpy", "torch")


def _sum_rows_numpy(a, out):
    """``out = ((a[0] + a[1]) + a[2]) + ...``: one reduction call, rows added in order.

    ``np.add.reduce`` over the leading axis of a C-contiguous ``(rows, B)`` array loops over the rows
    outside and over B inside, so each column is summed row after row, as explicit adds would do
    (tested). With one column the reduced axis would become the inner loop, which numpy sums
    pairwise: there, and for a non-contiguous ``a``, the rows are added one by one instead.
    """
    if a.shape[-1] > 1 and a.flags.c_contiguous:
        return np.add.reduce(a, axis=0, out=out)
    np.add(a[0], a[1], out=out)
    for r in range(2, a.shape[0]):
        np.add(out, a[r], out=out)
    return out


class _NumpyOps:
    name = "numpy"

    def __init__(self, dtype=np.float64, device=None):
        self.dtype = np.dtype(dtype)

    def asarray(self, x):
        return np.ascontiguousarray(np.asarray(x, dtype=self.dtype))

    def zeros(self, shape):
        return np.zeros(shape, dtype=self.dtype)

    # ufuncs take ``out`` as their last positional argument: op(*inputs, out), no wrapper per call
    mul, add, sub, div = np.multiply, np.add, np.subtract, np.divide
    tanh, exp, log, sqrt = np.tanh, np.exp, np.log, np.sqrt
    matmul = np.matmul
    maximum = staticmethod(lambda a, b, out: np.maximum(a, b, out=out))  # np.maximum refuses a positional out
    amax = staticmethod(lambda a, out: np.maximum.reduce(a, axis=0, out=out))
    sum_rows = staticmethod(_sum_rows_numpy)

    def to_numpy(self, x):
        return np.asarray(x)


class _TorchOps:
    name = "torch"

    def __init__(self, dtype=None, device=None):
        import torch

        self.torch = torch
        self.dtype = dtype or torch.float64
        self.device = check_device("device", device if device is not None else "cpu")

    def asarray(self, x):
        if isinstance(x, self.torch.Tensor):
            return x.to(device=self.device, dtype=self.dtype).contiguous()
        return self.torch.as_tensor(np.array(x, dtype=np.float64), dtype=self.dtype,
                                    device=self.device).contiguous()

    def zeros(self, shape):
        return self.torch.zeros(shape, dtype=self.dtype, device=self.device)

    def _call(name, **fixed):  # op(*inputs, out) -> torch.<name>(*inputs, out=out): the numpy table's calls
        return lambda self, *args: getattr(self.torch, name)(*args[:-1], out=args[-1], **fixed)

    mul, add, sub, div = _call("mul"), _call("add"), _call("sub"), _call("div")
    tanh, exp, log, sqrt = _call("tanh"), _call("exp"), _call("log"), _call("sqrt")
    maximum, amax = _call("maximum"), _call("amax", dim=0)
    del _call

    def matmul(self, w, x, out):
        """``out (R, B) = w (R, K) @ x (K, B)`` as K multiply-adds in order, not a BLAS product.

        The engine's ``w`` are exact ±1 sign matrices: each product is exact and only the order of the K terms
        decides the rounding. cuBLAS chooses its kernel, and with it that order, by the shape, so a β's orbit
        depended on its batch on the GPU (an H200: β = 1.2 alone and among 257 β differed in the last bit within
        3000 steps, which chaos then amplifies; ``tests/test_cuda.py``). Here the order is fixed: bit for bit the
        same whatever B is, on any device. (``addcmul`` adds the exact product ``w_k x_k`` once rounded, as a
        multiply and an add would.)
        """
        self.torch.mul(w[:, :1], x[:1], out=out)
        for k in range(1, w.shape[1]):
            self.torch.addcmul(out, w[:, k:k + 1], x[k:k + 1], out=out)
        return out

    def sum_rows(self, a, out):  # rows added one by one, in order (as the numpy table)
        self.torch.add(a[0], a[1], out=out)
        for r in range(2, a.shape[0]):
            self.torch.add(out, a[r], out=out)
        return out

    def to_numpy(self, x):
        return x.detach().cpu().numpy()


def ops_for(backend: str, device=None):
    """The op table of ``backend`` ("numpy" or "torch"; ``device`` for torch: with numpy only None or a CPU device,
    numpy running on the CPU)."""
    if backend == "numpy":
        if device is not None and check_device("device", device).type != "cpu":
            raise ValueError(f"device must be None or the CPU with backend 'numpy' (numpy runs on the CPU; use "
                             f"backend='torch' for {device!r}); got {device!r}")
        return _NumpyOps()
    if backend == "torch":
        return _TorchOps(device=device)
    raise ValueError(f"backend must be one of {', '.join(map(repr, BACKENDS))}; got {backend!r}")
