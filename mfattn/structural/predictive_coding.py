"""Predictive coding with a uniform prior over incoming synapses: precision as attention.

A latent node ``x`` (dimension d) predicts an observation ``y = C x + noise`` (precision
``pi_y``), and it receives predictions ``mu_1..mu_n`` from ``n`` parent nodes through its
incoming synapses. A classical predictive-coding network (PCN) trusts every synapse at
once. Singh & Buckley (2023, Sec. 4) instead put a *uniform prior over which incoming
synapse is active*: exactly one parent explains ``x``, each with probability ``1/n``, and
the prediction error along synapse ``j`` is ``eps_j = x - mu_j`` with precision ``pi``.
Collapsing the synapse gives the free energy (Gaussian normalisers dropped)

    F(x) = pi_y/2 |y - C x|^2 - ln sum_j (1/n) exp(-pi/2 |x - mu_j|^2).                (1)

Its gradient weighs the prediction errors by a softmax over prediction errors,

    dF/dx = -pi_y C^T (y - C x) + pi sum_j a_j (x - mu_j),
    a_j   = softmax_j(-pi/2 |x - mu_j|^2),                                           (2)

so the synapses' effective precisions ``pi * a_j`` are an attention pattern. Two inference
dynamics are compared:

* ``"gradient"``: the usual PCN relaxation ``x <- x - lr * dF/dx``;
* ``"fixed_point"``: the convex-concave procedure. (1) is the convex
  ``pi_y/2 |y - C x|^2 + pi/2 |x|^2`` minus the convex ``lse_j(pi x . mu_j - pi/2 |mu_j|^2)``;
  linearising the second at the current state and minimising gives

      x <- (pi_y C^T C + pi I)^{-1} (pi_y C^T y + pi sum_j a_j(x) mu_j),                 (3)

  which never increases F and needs no step size.

Everything is batched over a leading trial dimension and runs in float64.
"""

from __future__ import annotations

import math

import numpy as np
import torch

from ..companion.checks import check_positive, check_tensor, contract

__all__ = ["METHODS", "make_problem", "synapse_weights", "free_energy", "free_energy_grad", "smoothness", "infer", "step_size_study"]

METHODS = ("fixed_point", "gradient")


class _Diverged(FloatingPointError, ValueError):
    """Gradient descent left float64's range: the step size ``lr`` was too large (a ValueError naming ``lr``)."""


def _check_shapes(x: torch.Tensor, mu: torch.Tensor, y: torch.Tensor | None = None, C: torch.Tensor | None = None,
                  x_name: str = "x"):
    # x (T, d), mu (T, n, d), y (T, o), C (T, o, d): one T, one d, one o (broadcasting would hide a mismatch), one dtype
    for name, t in (("mu", mu), ("y", y), ("C", C)):
        if t is not None and t.dtype != x.dtype:
            raise TypeError(f"{x_name} and {name} must have one dtype; got {x_name} {x.dtype} and {name} {t.dtype} "
                            f"(cast explicitly)")
    T, d = x.shape
    if T < 1 or d < 1:
        raise ValueError(f"{x_name} must have shape (T, d) with T >= 1 trials and d >= 1 dimensions; got "
                         f"{tuple(x.shape)}")
    if mu.shape[0] != T or mu.shape[2] != d or mu.shape[1] < 1:
        raise ValueError(f"mu must have shape (T, n, d) = ({T}, n >= 1, {d}) for x of shape {tuple(x.shape)}; "
                         f"got {tuple(mu.shape)}")
    if C is not None and (C.shape[0] != T or C.shape[2] != d):
        raise ValueError(f"C must have shape (T, o, d) = ({T}, o, {d}) for x of shape {tuple(x.shape)}; "
                         f"got {tuple(C.shape)}")
    if y is not None and y.shape != (T, C.shape[1]):
        raise ValueError(f"y must have shape (T, o) = ({T}, {C.shape[1]}) for C of shape {tuple(C.shape)}; "
                         f"got {tuple(y.shape)}")


@contract(trials="int:1", dim="int:1", n_parents="int:1", obs_dim="int:1", obs_noise="real:>=0",
          parent_scale="real:>=0", generator="generator",
          alloc=lambda a: [("trials", 16 * a["trials"] * (a["n_parents"] + a["obs_dim"] + 2) * a["dim"])])
def make_problem(trials: int, dim: int, n_parents: int, obs_dim: int, *, obs_noise: float = 0.3,
                 parent_scale: float = 1.0, generator: torch.Generator) -> dict[str, torch.Tensor]:
    """Random instances: parents' predictions, an observation model and one observation.

    For each trial: predictions ``mu_j ~ N(0, parent_scale^2 I_d)`` (j < n_parents), a true
    active synapse ``j*`` drawn uniformly, ``x* = mu_{j*}``, ``C ~ N(0, 1/d)`` of shape
    (obs_dim, d) and ``y = C x* + obs_noise * N(0, I)``.

    Returns float64 tensors ``mu`` (T, n, d), ``C`` (T, obs_dim, d), ``y`` (T, obs_dim),
    ``x_true`` (T, d) and the long tensor ``active`` (T,).
    """
    if not isinstance(generator, torch.Generator):
        raise TypeError(f"generator must be a torch.Generator; got {type(generator).__name__}")
    for name, value in (("trials", trials), ("dim", dim), ("n_parents", n_parents), ("obs_dim", obs_dim)):
        if not isinstance(value, int) or value < 1:
            raise ValueError(f"{name} must be a positive integer; got {value!r}")
    f64 = torch.float64
    mu = parent_scale * torch.randn(trials, n_parents, dim, generator=generator, dtype=f64)
    active = torch.randint(0, n_parents, (trials,), generator=generator)
    x_true = mu[torch.arange(trials), active]
    C = torch.randn(trials, obs_dim, dim, generator=generator, dtype=f64) / math.sqrt(dim)
    y = torch.einsum("tod,td->to", C, x_true) + obs_noise * torch.randn(trials, obs_dim, generator=generator, dtype=f64)
    if not (bool(torch.isfinite(mu).all()) and bool(torch.isfinite(y).all())):
        raise ValueError(f"parent_scale = {parent_scale:g} and obs_noise = {obs_noise:g} push the predictions or the "
                         f"observation past float64's range; give smaller scales")
    return {"mu": mu, "C": C, "y": y, "x_true": x_true, "active": active}


@contract(x="tensor:2", mu="tensor:3", pi="real:>0")
def synapse_weights(x: torch.Tensor, mu: torch.Tensor, pi: float) -> torch.Tensor:
    """``a_j = softmax_j(-pi/2 |x - mu_j|^2)`` of (2): the posterior over the active synapse, (T, n)."""
    _check_shapes(x, mu)
    a = _weights(x, mu, pi)
    if not bool(torch.isfinite(a).all()):   # every -pi/2 |x - mu_j|^2 of a trial overflowed to -inf: 0/0
        raise ValueError("x and mu: pi/2 |x - mu_j|^2 overflows float64 for every parent of a trial (x or mu too "
                         "large for this pi); the synapse weights would be NaN")
    return a


def _weights(x: torch.Tensor, mu: torch.Tensor, pi: float) -> torch.Tensor:
    """:func:`synapse_weights` without its checks, for the inference loops (their inputs are checked once; a
    diverging gradient descent is reported by :func:`infer` itself)."""
    return torch.softmax(-0.5 * pi * (x[:, None, :] - mu).pow(2).sum(-1), dim=-1)


@contract(x="tensor:2", y="tensor:2", C="tensor:3", mu="tensor:3", pi_y="real:>0", pi="real:>0")
def free_energy(x: torch.Tensor, y: torch.Tensor, C: torch.Tensor, mu: torch.Tensor, pi_y: float = 1.0,
                pi: float = 1.0) -> torch.Tensor:
    """The collapsed free energy (1), shape (T,). x (T, d), y (T, o), C (T, o, d), mu (T, n, d)."""
    _check_shapes(x, mu, y, C)
    return _finite(_free_energy(x, y, C, mu, pi_y, pi), "free energy")


def _finite(out: torch.Tensor, what: str) -> torch.Tensor:
    if not bool(torch.isfinite(out).all()):   # e.g. x = 1e200: |x - mu|^2 overflows float64
        raise ValueError(f"x, y, C, mu with pi_y and pi overflow the {what} (a squared error past float64's range); "
                         f"give smaller states or precisions")
    return out


def _free_energy(x, y, C, mu, pi_y, pi):
    """:func:`free_energy` without its checks, for :func:`infer` (its inputs are checked once)."""
    err_y = y - torch.einsum("tod,td->to", C, x)
    n = mu.shape[-2]
    log_mix = torch.logsumexp(-0.5 * pi * (x[:, None, :] - mu).pow(2).sum(-1), dim=-1) - math.log(n)
    return 0.5 * pi_y * err_y.pow(2).sum(-1) - log_mix


@contract(x="tensor:2", y="tensor:2", C="tensor:3", mu="tensor:3", pi_y="real:>0", pi="real:>0")
def free_energy_grad(x, y, C, mu, pi_y: float = 1.0, pi: float = 1.0) -> torch.Tensor:
    """The gradient (2) of (1): precision-weighted prediction errors, shape (T, d)."""
    _check_shapes(x, mu, y, C)
    return _finite(_free_energy_grad(x, y, C, mu, pi_y, pi), "free energy's gradient")


def _free_energy_grad(x, y, C, mu, pi_y, pi):
    """:func:`free_energy_grad` without its checks, for :func:`infer`."""
    err_y = y - torch.einsum("tod,td->to", C, x)
    a = _weights(x, mu, pi)
    return -pi_y * torch.einsum("tod,to->td", C, err_y) + pi * torch.einsum("tn,tnd->td", a, x[:, None, :] - mu)


@contract(problem="mapping:C", pi_y="real:>0", pi="real:>0")
def smoothness(problem: dict[str, torch.Tensor], pi_y: float = 1.0, pi: float = 1.0) -> torch.Tensor:
    """``L = lambda_max(pi_y C^T C + pi I)`` per trial, shape (T,).

    The Hessian of (1) is this convex part's Hessian minus a positive semi-definite one, so it
    is bounded above by ``L``: gradient descent with ``lr <= 1/L`` cannot increase F (descent
    lemma) and ``lr > 2/L`` can diverge.
    """
    C = check_tensor("problem['C']", problem["C"], ndim=3, real=True)
    hess = pi_y * C.transpose(-1, -2) @ C + pi * torch.eye(C.shape[-1], dtype=C.dtype)
    if not bool(torch.isfinite(hess).all()):
        raise ValueError(f"pi_y = {pi_y:g} times C^T C plus pi = {pi:g} overflows the Hessian; give smaller "
                         f"precisions")
    return torch.linalg.eigvalsh(hess)[..., -1]


@contract(problem="mapping:mu|C|y", steps="int:0", lr="realt", pi_y="real", pi="real", x0="tensor?")
def infer(problem: dict[str, torch.Tensor], *, method: str = "fixed_point", steps: int = 30, lr=0.1,
          pi_y: float = 1.0, pi: float = 1.0, x0: torch.Tensor | None = None) -> dict[str, torch.Tensor]:
    """Relax the latent node with (3) (``"fixed_point"``) or gradient descent on (1) (``"gradient"``).

    ``lr`` is a float or a tensor (T,) of per-trial step sizes (e.g. ``0.5 / smoothness(...)``).
    Starts from ``x0`` (default: zero, no commitment to any parent). Returns ``x`` (steps + 1, T, d),
    ``free_energy`` (steps + 1, T) and the final synapse weights ``weights`` (T, n).
    """
    if method not in METHODS:
        raise ValueError(f"method must be one of {', '.join(map(repr, METHODS))}; got {method!r}")
    if not isinstance(steps, int) or steps < 0:
        raise ValueError(f"steps must be a non-negative integer; got {steps!r}")
    check_positive("pi (precision of the parents' predictions)", pi)
    check_positive("pi_y (precision of the observation)", pi_y)
    mu = check_tensor("problem['mu']", problem["mu"], ndim=3, real=True)
    C = check_tensor("problem['C']", problem["C"], ndim=3, real=True)
    y = check_tensor("problem['y']", problem["y"], ndim=2, real=True)
    T, n, d = mu.shape
    _check_shapes(mu[:, 0], mu, y, C, x_name="problem['mu']")
    if x0 is not None:
        if x0.dtype != mu.dtype or tuple(x0.shape) != (T, d):
            raise (TypeError if x0.dtype != mu.dtype else ValueError)(
                f"x0 must have the shape (T, d) = {(T, d)} and dtype {mu.dtype} of problem['mu']; got shape "
                f"{tuple(x0.shape)} and dtype {x0.dtype}")
    lr_dtype = lr.dtype if isinstance(lr, torch.Tensor) else mu.dtype
    lr = torch.as_tensor(lr, dtype=mu.dtype)
    if lr.dim() > 1 or (lr.dim() == 1 and lr.shape[0] != T):
        raise ValueError(f"lr must be a number or a tensor of one step size per trial, shape ({T},); "
                         f"got shape {tuple(lr.shape)}")
    if lr_dtype != mu.dtype:
        raise TypeError(f"lr and problem['mu'] must have one dtype; got lr {lr_dtype} and mu {mu.dtype} (cast "
                        f"explicitly)")
    if method == "gradient" and not bool(torch.all(lr > 0)):
        raise ValueError(f"lr must be positive for method='gradient'; got {lr!r}")
    if lr.dim() == 1:
        lr = lr[:, None]
    x = torch.zeros(T, d, dtype=mu.dtype) if x0 is None else x0.to(mu)
    if method == "fixed_point":
        # The convex part's Hessian does not depend on x: factor it once.
        hess = pi_y * C.transpose(-1, -2) @ C + pi * torch.eye(d, dtype=mu.dtype)
        if not bool(torch.isfinite(hess).all()):
            raise ValueError(f"pi_y = {pi_y:g} times C^T C plus pi = {pi:g} overflows the Hessian; give smaller "
                             f"precisions")
        try:
            chol = torch.linalg.cholesky(hess)
        except torch.linalg.LinAlgError:   # pi_y C^T C swamps pi I: positive definite, but not in float64
            raise ValueError(f"pi_y = {pi_y:g} and pi = {pi:g}: pi_y C^T C + pi I is not positive definite in "
                             f"float64 (pi_y / pi too large); give a smaller pi_y or a larger pi") from None
        data_term = pi_y * torch.einsum("tod,to->td", C, y)
    xs, fs = [x], [_finite(_free_energy(x, y, C, mu, pi_y, pi), "free energy")]
    for _ in range(steps):
        if method == "fixed_point":
            a = _weights(x, mu, pi)
            rhs = data_term + pi * torch.einsum("tn,tnd->td", a, mu)
            x = torch.cholesky_solve(rhs[..., None], chol).squeeze(-1)
        else:
            x = x - lr * _free_energy_grad(x, y, C, mu, pi_y, pi)
        if not torch.isfinite(x).all():
            raise _Diverged(f"predictive-coding inference diverged (method={method!r}, lr={lr}); "
                                     f"use a smaller lr or method='fixed_point'")
        xs.append(x)
        fs.append(_free_energy(x, y, C, mu, pi_y, pi))
    return {"x": torch.stack(xs), "free_energy": torch.stack(fs), "weights": synapse_weights(x, mu, pi)}


@contract(problem="mapping:mu|C|y|active", steps="int:1", pi="real:>0", pi_y="real:>0", lr_fractions="reals:>0")
def step_size_study(problem: dict[str, torch.Tensor], steps: int, pi: float, pi_y: float, lr_fractions) -> dict:
    """The fixed point (CCCP) against gradient descent with step sizes ``lr_fractions / L`` on one set of
    problems: per method, the path (:func:`infer`) and the fraction of instances whose largest synapse
    weight is the active synapse at each step; the lowest free energy any method reached per instance;
    and the largest relative rise of the fixed point's free energy (≤ 0 up to rounding)."""
    active, mu = problem["active"], problem["mu"]
    check_tensor("problem['active']", active, ndim=1)
    if active.is_floating_point() or active.dtype == torch.bool:
        raise TypeError(f"problem['active'] must be an integer tensor (T,) of parent indices; got dtype {active.dtype}")
    if isinstance(mu, torch.Tensor) and mu.dim() == 3 and (active.shape[0] != mu.shape[0] or bool(
            (active < 0).any()) or bool((active >= mu.shape[1]).any())):
        raise ValueError(f"problem['active'] must hold one parent index in [0, {mu.shape[1]}) per trial "
                         f"({mu.shape[0]}); got shape {tuple(active.shape)} with values "
                         f"[{int(active.min()) if active.numel() else '-'}, {int(active.max()) if active.numel() else '-'}]")
    kw = dict(steps=steps, pi=pi, pi_y=pi_y)
    L = smoothness(problem, pi_y, pi)
    runs = {"fixed point (CCCP)": infer(problem, method="fixed_point", **kw)}
    for frac in lr_fractions:
        runs[f"gradient, lr = {frac:g}/L"] = infer(problem, method="gradient", lr=frac / L, **kw)

    def found(res):
        return np.array([(synapse_weights(x, problem["mu"], pi).argmax(-1) == problem["active"]).double().mean().item()
                         for x in res["x"]])

    f_fixed = runs["fixed point (CCCP)"]["free_energy"].numpy()
    f_best = np.minimum.reduce([r["free_energy"].numpy().min(0) for r in runs.values()])  # (trials,)
    rise = float((np.diff(f_fixed, axis=0) / np.maximum(np.abs(f_fixed).max(0), 1.0)).max())
    return {"runs": runs, "f_best": f_best, "rise": rise, "accuracy": {n: found(r) for n, r in runs.items()}}
