r"""The public code's Anderson solver, as a control on the book's (a referee's first question: does *the blog's* solver
find the fixed point, or only the book's?).

The blog's code solves its layer with the Anderson acceleration of the deep-equilibrium tutorial it builds on
(Bai, Kolter & Koltun; the public code at commit 6c9687d), which differs from :func:`mfattn.deq.solve` in three ways
that matter here: a history of :math:`m = 5` (the book's 8), an absolute ridge :math:`\lambda = 10^{-4}` on the
Gram matrix of the residuals (the book's is scaled to them), and one relative residual for the whole batch,
:math:`\lVert F - X \rVert / (10^{-5} + \lVert F \rVert)` over every sample at once, so that a batch stops together
(the book's stops each sample on its own). Written here from the published algorithm (type-II Anderson mixing):
with :math:`G = F - X` over the last :math:`n \le m` iterates, the weights :math:`\alpha` solve

.. math:: \min_\alpha \lVert G \alpha \rVert^2 + \lambda \lVert \alpha \rVert^2 \quad \text{s.t.} \quad
          \textstyle\sum_i \alpha_i = 1,

through the bordered system :math:`\begin{pmatrix} 0 & 1^\top \\ 1 & G G^\top + \lambda I \end{pmatrix}
\begin{pmatrix} \nu \\ \alpha \end{pmatrix} = \begin{pmatrix} 1 \\ 0 \end{pmatrix}`, and the next iterate is
:math:`x = \beta \sum_i \alpha_i F_i + (1 - \beta) \sum_i \alpha_i X_i`.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np
import torch

from ..companion.checks import check_int, check_real, check_tensor
from ..deq import SolverDivergedError

__all__ = ["reference_anderson", "reference_converged_over_training"]


@torch.no_grad()
def reference_anderson(f: Callable[[torch.Tensor], torch.Tensor], x0: torch.Tensor, *, m: int = 5, lam: float = 1e-4,
                       max_iter: int = 40, tol: float = 1e-4, beta: float = 1.0) -> tuple[torch.Tensor, list[float]]:
    """Anderson acceleration as the public code runs it, on flat states ``x0`` (B, D) of the map ``f``.

    Evaluates ``f`` at most ``max_iter`` times (two to start, then one per step) and stops when the batch's
    relative residual ``‖f(x) − x‖ / (1e-5 + ‖f(x)‖)`` (norms over the whole batch) falls below ``tol``. Returns the
    last iterate (B, D) and the residual after each step (a list; converged where its last entry is below ``tol``).
    A map that is NaN or inf at every iterate of a sample raises :class:`mfattn.deq.SolverDivergedError`, as
    :func:`mfattn.deq.solve` does. A map that overflows later (finite at the start, NaN or inf after) stops the
    solve there: the residual list ends with that non-finite residual (not converged) and the iterate returned
    may hold NaN or inf (documented: the caller reads convergence from the residuals)."""
    if not isinstance(x0, torch.Tensor) or x0.dim() != 2 or x0.dtype not in (torch.float32, torch.float64):
        got = f"dtype {x0.dtype}, shape {tuple(x0.shape)}" if isinstance(x0, torch.Tensor) else type(x0).__name__
        raise TypeError(f"x0 must be a float32 or float64 tensor (B, D) of flat states; got {got}")
    check_tensor("x0", x0, ndim=2, real=True, finite=False)
    if 0 in x0.shape:
        raise ValueError(f"x0 must hold at least one state of at least one entry (B, D >= 1); got shape "
                         f"{tuple(x0.shape)}")
    if not bool(torch.isfinite(x0).all()):
        raise ValueError("x0 contains NaN or infinite entries")
    m, max_iter = check_int("m", m, 2, 64), check_int("max_iter", max_iter, 3, 10_000)
    lam, tol = check_real("lam", lam, minimum=0.0), check_real("tol", tol, minimum=0.0, strict=True)
    beta = check_real("beta", beta, minimum=0.0, maximum=1.0, strict=True)
    if not callable(f):
        raise TypeError(f"f must be a callable x -> f(x) on (B, D) states; got {type(f).__name__}")
    B, D = x0.shape
    X, F = x0.new_zeros(B, m, D), x0.new_zeros(B, m, D)
    fx0 = f(x0)
    if not isinstance(fx0, torch.Tensor) or fx0.shape != x0.shape:
        got = f"shape {tuple(fx0.shape)}" if isinstance(fx0, torch.Tensor) else type(fx0).__name__
        raise ValueError(f"f must return a tensor of the state's shape {tuple(x0.shape)}; got {got}")
    if fx0.dtype != x0.dtype:
        raise TypeError(f"f must return a tensor of the state's dtype {x0.dtype} (x0's); got dtype {fx0.dtype}")
    X[:, 0], F[:, 0] = x0, fx0
    X[:, 1 % m], F[:, 1 % m] = F[:, 0], f(F[:, 0])
    H = x0.new_zeros(B, m + 1, m + 1)
    H[:, 0, 1:] = H[:, 1:, 0] = 1.0
    y = x0.new_zeros(B, m + 1, 1)
    y[:, 0] = 1.0
    residuals: list[float] = []
    k = 1
    for k in range(2, max_iter):
        n = min(k, m)
        G = F[:, :n] - X[:, :n]
        H[:, 1:n + 1, 1:n + 1] = torch.bmm(G, G.transpose(1, 2)) + lam * torch.eye(n, dtype=x0.dtype, device=x0.device)
        alpha = torch.linalg.solve(H[:, :n + 1, :n + 1], y[:, :n + 1])[:, 1:n + 1, 0]      # (B, n)
        X[:, k % m] = (beta * (alpha[:, None] @ F[:, :n])[:, 0] + (1 - beta) * (alpha[:, None] @ X[:, :n])[:, 0])
        F[:, k % m] = f(X[:, k % m])
        residuals.append(float((F[:, k % m] - X[:, k % m]).norm() / (1e-5 + F[:, k % m].norm())))
        if not np.isfinite(residuals[-1]) or residuals[-1] < tol:
            break
    if k == 2 and not np.isfinite(residuals[-1]):
        # a stop at a later step follows a finite step (every sample finite), so only a stop at the first step can
        # leave a sample with no finite evaluation: f(x0) is kept in X[:, 1], the second in F[:, 1], the third in
        # F[:, 2 % m]. Such a sample is refused, as deq.solve refuses it.
        bad = ~torch.stack([torch.isfinite(e).all(dim=1) for e in (X[:, 1], F[:, 1], F[:, 2 % m])]).any(dim=0)
        if bool(bad.any()):
            raise SolverDivergedError(
                f"f returned NaN or inf at every iterate of {int(bad.sum())} of {B} sample(s) (the first: sample "
                f"{int(bad.int().argmax())}): the map is not defined there; check its inputs and scale")
    return X[:, k % m].clone(), residuals


@torch.no_grad()
def reference_converged_over_training(result: Any, images: torch.Tensor, steps: Sequence[int], batch: int = 60,
                                      **solver: Any) -> dict[str, np.ndarray]:
    """At each kept ``step`` of a trained run, the share of ``batch``-sized batches of ``images`` (B, 1, 28, 28) on
    which :func:`reference_anderson` (the public code's settings unless ``solver`` says otherwise) reaches its
    tolerance, and the median over the batches of the last residual. The map is the trained layer's own mean-field
    update at that step's weights, from the layer's own start. Returns ``step`` (S,), ``converged`` (S,) and
    ``residual`` (S,)."""
    kept = result.weight_steps() if hasattr(result, "weight_steps") else None
    if kept is None:
        raise TypeError(f"result must be a TrainResult; got {type(result).__name__}")
    check_tensor("images", images, shape=(None, 1, 28, 28), real=True)
    if isinstance(steps, (str, bytes)) or not hasattr(steps, "__iter__"):
        raise TypeError(f"steps must be a list of kept steps; got {steps!r}"[:200])
    steps = [check_int("each entry of steps", s, 0) for s in steps]
    missing = sorted(set(steps) - set(kept))
    if not steps or missing:
        raise ValueError(f"steps must name kept steps of result (at least one); got {steps[:5]}, "
                         f"kept: {kept[:3]} ... {kept[-1:]}")
    batch = check_int("batch", batch, 1)
    tol = solver.get("tol", 1e-4)
    conv, last = [], []
    for step in steps:
        model = result.load_model_at(step)
        model.eval()
        layer = model.attention
        ok, res = [], []
        for start in range(0, len(images) - batch + 1, batch):
            x = model.sources(images[start:start + batch])
            cache = layer.prepare(x)
            B, n, d = x.shape
            z0 = torch.zeros_like(x) if layer.init == "zeros" else x

            def f(z: torch.Tensor) -> torch.Tensor:
                return layer.update(z.view(B, n, d), x, cache).reshape(B, n * d)

            _, r = reference_anderson(f, z0.reshape(B, n * d), **solver)
            ok.append(bool(r) and r[-1] < tol)
            res.append(r[-1] if r else float("nan"))
        conv.append(float(np.mean(ok)))
        last.append(float(np.median(res)))
    return {"step": np.asarray(list(steps)), "converged": np.asarray(conv), "residual": np.asarray(last)}
