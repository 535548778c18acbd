"""The ELBO's gradient and the CAVI fixed-point residual at the end state of expanding attention (Chapter 5): how far
the paper's accumulating update, and CAVI stopped by the training's tolerance, end from a stationary point of the
ELBO. Importable from :mod:`.analysis` as before.
"""

from __future__ import annotations

from typing import Mapping, Sequence

import numpy as np
import torch

from ..companion.checks import check_alloc, contract
from . import expanding as ex

__all__ = ["elbo_gradient", "elbo_gradients", "cavi_residual"]


def _check_scores(scores: torch.Tensor, dtypes: tuple) -> None:
    """``scores`` (B, T): at least one row of at least two tokens (a query and one key), of a dtype in ``dtypes``,
    and small enough for the end state's buffers (the values, the attention and the softmax's, a few (B, T) each)."""
    if scores.dtype not in dtypes:
        raise TypeError(f"scores must be {' or '.join(str(d).replace('torch.', '') for d in dtypes)} (a fixed point "
                        f"or a gradient compared with 0 at that precision); got {scores.dtype}")
    B, T = scores.shape
    if B < 1 or T < 2:
        raise ValueError(f"scores must hold at least one row of at least 2 tokens (a query and one key); got shape "
                         f"{tuple(scores.shape)}")
    check_alloc("scores", 8 * scores.element_size() * B * T, what="the end state's buffers")


def _forwarded(fn: str, kw: Mapping, fixed: Sequence[str]) -> None:
    """``kw`` goes on to expanding_attention, which ``fn`` already calls with ``fixed``: refused by name (else
    Python's 'got multiple values' error from inside)."""
    clash = [k for k in fixed if k in kw]
    if clash:
        raise TypeError(f"{fn}() sets {', '.join(fixed)} of expanding_attention itself; it cannot also pass "
                        f"{', '.join(map(repr, clash))} on from its keywords")


@contract(scores="tensor:2")
def elbo_gradient(scores: torch.Tensor, alpha0: float, beta0: float, update: str, **kw) -> float:
    """Largest |∂ELBO/∂θ| at the end state of :func:`.expanding.expanding_attention` (scores (B, T), float64):
    θ = the attention logits on the final window and α, β of the final Beta, the ELBO of
    :func:`.expanding.expanding_elbo`. Zero at a stationary point (a fixed point of CAVI); the paper's
    accumulating update ends elsewhere (its α counts the sweeps). :func:`elbo_gradients` gives it per score
    vector."""
    return float(elbo_gradients(scores, alpha0, beta0, update, **kw).max())


@contract(scores="tensor:2", tol="real:>0?")
def elbo_gradients(scores: torch.Tensor, alpha0: float, beta0: float, update: str, tol: float | None = None,
                   **kw) -> np.ndarray:
    """Per score vector (row of ``scores``), the largest |∂ELBO/∂θ| at the end state (see :func:`elbo_gradient`;
    the ELBO is a sum over rows, so each row's gradient is its own). ``tol``: the stopping tolerance on the
    horizon (default 1e-9 for CAVI, run to its fixed point, and 0.01 for the accumulating update, the
    training's); CAVI at 0.01 gives the gradient a VI procedure stopped by the training's rule leaves. ``scores`` must
    be float64; ``kw`` goes on to :func:`.expanding.expanding_attention`, except ``values`` and ``max_iter``, which this
    function sets itself (refused by name)."""
    _check_scores(scores, (torch.float64,))
    _forwarded("elbo_gradients", kw, ("values", "max_iter"))
    if not isinstance(update, (str, list, tuple)):   # None fell through to a TypeError deep inside the run
        raise TypeError(f"update must be one of {ex.UPDATES} or one per row of scores; got "
                        f"{type(update).__name__}")
    B, T = scores.shape
    tol = (1e-9 if update == "cavi" else 0.01) if tol is None else tol
    res = ex.expanding_attention(scores, torch.zeros(B, T, 1, dtype=scores.dtype), alpha0, beta0, update=update,
                                 max_iter=1000, tol=tol, **kw)
    dist = torch.arange(T - 1, -1, -1, dtype=scores.dtype)
    inside = (dist[None, :] >= 1) & (dist[None, :] < torch.clamp(res.window, max=T)[:, None])
    logits = torch.log(res.attention.clamp(min=1e-300)).detach().requires_grad_(True)
    alpha = res.alpha.detach().clone().requires_grad_(True)
    beta = res.beta.detach().clone().requires_grad_(True)
    a = torch.softmax(logits.masked_fill(~inside, float("-inf")), -1)
    elbo = ex.expanding_elbo(scores, a, alpha, beta, alpha0, beta0).sum()
    g_logits, g_alpha, g_beta = torch.autograd.grad(elbo, (logits, alpha, beta))
    per_row = torch.stack([g_logits.abs().amax(-1), g_alpha.abs().reshape(B), g_beta.abs().reshape(B)], -1)
    return per_row.amax(-1).detach().numpy()


@contract(scores="tensor:2")
def cavi_residual(scores: torch.Tensor, alpha0: float, beta0: float, **kw) -> float:
    """Largest violation of the CAVI fixed-point equations after :func:`.expanding.expanding_attention` with
    ``update="cavi"``: |β − β₀ − Σ_t (t − 1) a_t| and |α − α₀ − 1| over the batch (scores (B, T)).
    ``scores`` float32 or float64 (a residual in half precision says nothing about a fixed point at 1e-9). ``kw`` goes
    on to expanding_attention, except ``values``, ``update``, ``max_iter`` and ``tol``, which this function sets
    (refused)."""
    _check_scores(scores, (torch.float32, torch.float64))
    _forwarded("cavi_residual", kw, ("values", "update", "max_iter", "tol"))
    B, T = scores.shape
    res = ex.expanding_attention(scores, torch.zeros(B, T, 1, dtype=scores.dtype), alpha0, beta0, update="cavi",
                                 max_iter=1000, tol=1e-9, **kw)
    dist = torch.arange(T - 1, -1, -1, dtype=scores.dtype)
    # the attention of the last sweep, recomputed from the final prior: a fixed point changes nothing
    q = ex.effective_q(res.alpha, res.beta, "cavi")
    m = torch.clamp(torch.ceil(ex.geometric_horizon(q)), min=2)
    inside = (dist >= 1) & (dist[None, :] < torch.clamp(m, max=T)[:, None])
    a = torch.softmax((scores + dist * torch.log1p(-q)[:, None]).masked_fill(~inside, float("-inf")), -1)
    beta_gap = (res.beta - beta0 - (a * (dist - 1).clamp(min=0)).sum(-1)).abs().max()
    return float(max(beta_gap, (res.alpha - alpha0 - 1).abs().max()))
