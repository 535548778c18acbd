"""Slot attention as collapsed inference, and what changes when slots stop competing.

Data points ``x_1..x_N`` (2-D here) and slots ``mu_1..mu_K`` are nodes of a graph with
Gaussian edge potentials ``exp(-|x_i - mu_k|^2 / (2 sigma^2))``. Which edges exist is
unknown, and the prior over edges names the mechanism (Singh & Buckley 2023, Sec. 4):

* ``prior="slots"`` — every *data point* has exactly one parent slot, uniformly. The
  collapsed objective is a Gaussian-mixture log-likelihood,

      L(mu) = sum_i ln sum_k (1/K) N(x_i; mu_k, sigma^2 I),                          (1)

  and the bound-and-maximise step (EM, the same linearise-the-log-sum-exp move as the
  convex-concave procedure) is slot attention: a softmax *over slots* for each point
  (slots compete for points), then a weighted mean per slot,

      A_ik = softmax_k(-|x_i - mu_k|^2 / 2 sigma^2),   mu_k <- sum_i A_ik x_i / sum_i A_ik.   (2)

* ``prior="hopfield"`` — every *slot* has exactly one parent data point, uniformly. The
  objective splits into one modern-Hopfield energy per slot,

      L_k(mu_k) = ln sum_i (1/N) N(mu_k; x_i, sigma^2 I),                           (3)

  and the convex-concave step is a softmax *over points* for each slot,
  ``mu_k <- sum_i softmax_i(-|x_i - mu_k|^2 / 2 sigma^2) x_i``. Slots do not compete:
  nothing stops two of them from settling on the same cluster.

Both updates increase their objective at every step; :func:`run_slots` records it.
Everything is batched over independent trials (a leading dimension).
"""

from __future__ import annotations

import math

import numpy as np
import torch

from ..companion.checks import check_alloc as _check_alloc, check_positive, contract

__all__ = ["PRIORS", "gaussian_mixture_2d", "slot_objective", "slot_update", "run_slots", "assign", "width_study",
           "adjusted_rand_index", "update_forms_study"]

PRIORS = ("slots", "hopfield")


def _check_prior(prior: str) -> str:
    if prior not in PRIORS:
        raise ValueError(f"prior must be one of {', '.join(map(repr, PRIORS))}; got {prior!r}")
    return prior


@contract(n_points="int:1", n_clusters="int:1", trials="int:1", spread="real:>=0", radius="real:>=0",
          generator="generator", alloc=lambda a: [("n_points", 48 * a["trials"] * a["n_points"])])
def gaussian_mixture_2d(n_points: int, n_clusters: int, *, trials: int = 1, spread: float = 0.5,
                        radius: float = 3.0, generator: torch.Generator):
    """Points drawn from ``n_clusters`` isotropic 2-D Gaussians with centres on a circle.

    The centres sit at equal angles on a circle of ``radius`` with a random rotation per
    trial; each point picks its cluster uniformly and gets N(0, spread^2 I) noise.

    Returns
    -------
    points : float64 (trials, n_points, 2);  labels : long (trials, n_points);
    centres : float64 (trials, n_clusters, 2).
    """
    if not isinstance(generator, torch.Generator):
        raise TypeError(f"generator must be a torch.Generator; got {type(generator).__name__}")
    for name, value in (("n_points", n_points), ("n_clusters", n_clusters), ("trials", trials)):
        if not isinstance(value, int) or value < 1:
            raise ValueError(f"{name} must be a positive integer; got {value!r}")
    if spread <= 0 or radius <= 0:
        raise ValueError(f"spread and radius must be positive; got spread={spread!r}, radius={radius!r}")
    _check_alloc("n_clusters", trials * n_clusters * 3 * 8)   # angles and centres (n_clusters = 10**12 asked 8 TB)
    _check_alloc("n_points", trials * n_points * 5 * 8)       # labels, noise, points
    phase = torch.rand(trials, 1, generator=generator, dtype=torch.float64) * 2 * math.pi
    angles = phase + torch.arange(n_clusters, dtype=torch.float64) * (2 * math.pi / n_clusters)
    centres = radius * torch.stack([angles.cos(), angles.sin()], dim=-1)  # (T, K, 2)
    labels = torch.randint(0, n_clusters, (trials, n_points), generator=generator)
    noise = spread * torch.randn(trials, n_points, 2, generator=generator, dtype=torch.float64)
    points = centres.gather(1, labels[..., None].expand(trials, n_points, 2)) + noise
    return points, labels, centres


def _check_points_and_slots(x: torch.Tensor, mu: torch.Tensor) -> None:
    # x (T, N, D) points, mu (T, K, D) slots: one T, one D, at least one slot (broadcasting would hide a mismatch)
    if mu.shape[:-2] != x.shape[:-2] or mu.shape[-1] != x.shape[-1] or mu.shape[-2] < 1:
        raise ValueError(f"mu must have shape (..., K, D) with K >= 1 and the leading dimensions and D of x "
                         f"{tuple(x.shape)}; got {tuple(mu.shape)}")
    if x.shape[-2] < 1:
        raise ValueError(f"x must hold at least one point (..., N >= 1, D); got shape {tuple(x.shape)}")
    if x.dtype != mu.dtype:
        raise TypeError(f"x and mu must have one dtype; got x {x.dtype} and mu {mu.dtype} (cast explicitly)")


def _finite_logits(logits: torch.Tensor, sigma: float) -> torch.Tensor:
    if not bool(torch.isfinite(logits).all()):   # |x - mu|^2 past float64's range (x = 1e200), or / sigma^2
        raise ValueError(f"x, mu and sigma = {sigma!r}: |x_i - mu_k|^2 / (2 sigma^2) overflows float64; give "
                         f"smaller points or a larger sigma")
    return logits


def _sq_dist(x, mu):
    # |x_i - mu_k|^2 by explicit differences: exact (no |x|^2 - 2 x.mu + |mu|^2 cancellation) and,
    # for 2-D points, much faster than torch.cdist's batched kernel.
    return (x[..., :, None, :] - mu[..., None, :, :]).pow(2).sum(-1)


def _check_width(sigma: float) -> None:
    """sigma > 0 whose 2 pi sigma² is a positive finite float64 (the Gaussian's normaliser and the logits'
    denominator): 5e-324 squares to 0 and 1e200 overflows, which would end in log(0) or a NaN inside."""
    try:
        var = 2 * math.pi * float(sigma) ** 2
    except OverflowError:
        var = math.inf
    if not 0.0 < var < math.inf:
        raise ValueError(f"sigma must have 2 pi sigma^2 inside float64's range (positive and finite); got sigma = "
                         f"{sigma!r} (2 pi sigma^2 = {var!r})")


def _logits(x, mu, sigma):
    # -|x_i - mu_k|^2 / (2 sigma^2): (T, N, K)
    return -_sq_dist(x, mu) / (2 * sigma ** 2)


@contract(x="tensor:3", mu="tensor:3", sigma="real:>0")
def slot_objective(x: torch.Tensor, mu: torch.Tensor, sigma: float, prior: str = "slots") -> torch.Tensor:
    """The collapsed log-likelihood per trial: (1) for ``"slots"``, sum_k of (3) for ``"hopfield"``.

    x : (T, N, D) points; mu : (T, K, D) slots; returns (T,) (Gaussian normalisers included).
    """
    _check_prior(prior)
    _check_points_and_slots(x, mu)
    _check_width(sigma)
    logits = _finite_logits(_logits(x, mu, sigma), sigma)
    N, K, D = x.shape[-2], mu.shape[-2], x.shape[-1]
    log_norm = -0.5 * D * math.log(2 * math.pi * sigma ** 2)
    if prior == "slots":
        return (torch.logsumexp(logits, dim=-1) - math.log(K) + log_norm).sum(-1)
    return (torch.logsumexp(logits, dim=-2) - math.log(N) + log_norm).sum(-1)


@contract(x="tensor:3", mu="tensor:3", sigma="real:>0")
def slot_update(x: torch.Tensor, mu: torch.Tensor, sigma: float, prior: str = "slots") -> tuple[torch.Tensor, torch.Tensor]:
    """One step of (2) (``"slots"``) or of the per-slot Hopfield update (``"hopfield"``).

    Returns the new slots (T, K, D) and the attention used, (T, N, K): normalised over
    slots (dim -1) for ``"slots"`` and over points (dim -2) for ``"hopfield"``.
    """
    _check_prior(prior)
    _check_points_and_slots(x, mu)
    _check_width(sigma)
    logits = _finite_logits(_logits(x, mu, sigma), sigma)
    if prior == "slots":
        attn = torch.softmax(logits, dim=-1)
        mass = attn.sum(-2)  # (T, K)
        weighted = torch.einsum("tnk,tnd->tkd", attn, x)
        # A slot that no point claims (mass underflows to 0) has no update: it stays put.
        new = torch.where(mass[..., None] > 0, weighted / mass.clamp_min(1e-300)[..., None], mu)
    else:
        attn = torch.softmax(logits, dim=-2)
        new = torch.einsum("tnk,tnd->tkd", attn, x)
    return new, attn


@contract(x="tensor:3", n_slots="int:1", sigma="real:>0", iters="int:0", init_scale="real:>=0",
          generator="generator?", init="tensor?",
          alloc=lambda a: [("n_slots", 32 * a["n_slots"] * a["x"].shape[0] * a["x"].shape[1])])
def run_slots(x: torch.Tensor, n_slots: int, *, prior: str = "slots", sigma: float = 1.0, iters: int = 20,
              init_scale: float = 1.0, generator: torch.Generator | None = None,
              init: torch.Tensor | None = None) -> dict[str, torch.Tensor]:
    """Iterate the slot update from a random start.

    Slots start at ``mean(x) + init_scale * std(x) * N(0, I)`` per trial (as slot attention
    samples its initial slots), unless ``init`` (T, K, D) is given.

    Returns ``slots`` (iters + 1, T, K, D), ``objective`` (iters + 1, T) and ``labels`` (T, N):
    each point's most probable slot (nearest slot) at the end.
    """
    _check_prior(prior)
    if x.dim() != 3:
        raise ValueError(f"x must have shape (trials, points, dim); got {tuple(x.shape)}")
    if not isinstance(iters, int) or iters < 0:
        raise ValueError(f"iters must be a non-negative integer; got {iters!r}")
    check_positive("sigma", sigma)
    _check_width(sigma)
    T, N, D = x.shape
    if D == 0:   # points of no coordinate: every slot would be an empty vector
        raise ValueError(f"x must have points of at least one coordinate; got shape {tuple(x.shape)}")
    if init is None:
        if not isinstance(generator, torch.Generator):
            raise TypeError("run_slots needs generator= (a torch.Generator) when init is not given")
        if not isinstance(n_slots, int) or n_slots < 1:
            raise ValueError(f"n_slots must be a positive integer; got {n_slots!r}")
        if N < 2:
            raise ValueError(f"x must hold at least two points per trial to draw the start from their spread "
                             f"(or give init); got shape {tuple(x.shape)}")
        noise = torch.randn(T, n_slots, D, generator=generator, dtype=x.dtype)
        mu = x.mean(1, keepdim=True) + init_scale * x.std(1, keepdim=True) * noise
        if not bool(torch.isfinite(mu).all()):
            raise ValueError(f"init_scale = {init_scale!r} times the spread of x overflows the start; give a "
                             f"smaller init_scale or smaller points")
    else:
        if init.shape != (T, n_slots, D):
            raise ValueError(f"init must have shape {(T, n_slots, D)}; got {tuple(init.shape)}")
        if init.dtype != x.dtype:
            raise TypeError(f"x and init must have one dtype; got x {x.dtype} and init {init.dtype} (cast "
                            f"explicitly)")
        mu = init.to(x)
    history, objective = [mu], [slot_objective(x, mu, sigma, prior)]
    for _ in range(iters):
        mu, _ = slot_update(x, mu, sigma, prior)
        history.append(mu)
        objective.append(slot_objective(x, mu, sigma, prior))
    return {"slots": torch.stack(history), "objective": torch.stack(objective), "labels": assign(x, mu)}


@contract(x="tensor:>=2", mu="tensor:>=2")
def assign(x: torch.Tensor, mu: torch.Tensor) -> torch.Tensor:
    """Each point's nearest slot, i.e. its most probable parent under prior ``"slots"``: (T, N)."""
    _check_points_and_slots(x, mu)
    return _sq_dist(x, mu).argmin(-1)


@contract(labels_a="anytensor:>=1", labels_b="anytensor:>=1")
def adjusted_rand_index(labels_a: torch.Tensor, labels_b: torch.Tensor) -> torch.Tensor:
    """Adjusted Rand index (Hubert & Arabie 1985) between two labelings, per trial.

    ``ARI = (sum_ij C(n_ij, 2) - E) / (0.5 (sum_i C(a_i, 2) + sum_j C(b_j, 2)) - E)`` with
    ``E = sum_i C(a_i, 2) sum_j C(b_j, 2) / C(n, 2)``, ``n_ij`` the contingency table. 1 for
    identical partitions (up to renaming), about 0 for independent ones.

    labels_a, labels_b : long (..., N) with values >= 0. Returns float64 (...). When both
    partitions are trivial (a single cluster each) the index is defined as 1.
    """
    if labels_a.shape != labels_b.shape:
        raise ValueError(f"labels_a and labels_b must have the same shape; got {tuple(labels_a.shape)} "
                         f"and {tuple(labels_b.shape)}")
    if labels_a.dtype.is_floating_point or labels_b.dtype.is_floating_point:
        raise TypeError("labels_a and labels_b must be integer tensors")
    if labels_a.shape[-1] < 2:
        raise ValueError(f"labels_a and labels_b must label at least two points (..., N >= 2): the index counts "
                         f"pairs; got shape {tuple(labels_a.shape)}")
    if labels_a.numel() == 0:
        raise ValueError(f"labels_a and labels_b must hold at least one labelling; got shape {tuple(labels_a.shape)}")
    for name, labels in (("labels_a", labels_a), ("labels_b", labels_b)):
        if labels.numel() and labels.min() < 0:
            raise ValueError(f"{name} must hold non-negative integer labels; got a minimum of {int(labels.min())}")
    # the labels renamed 0, 1, ... in order (the partitions are unchanged): the contingency table then has a column
    # per pair of labels that occur, not per pair of values up to the largest (a label of 10**9 asked for 16 GB);
    # its entries, hence the index, are the same integers
    labels_a, labels_b = (torch.unique(x, return_inverse=True)[1] if x.numel() else x for x in (labels_a, labels_b))
    ka, kb = int(labels_a.max()) + 1, int(labels_b.max()) + 1
    lead, n = labels_a.shape[:-1], labels_a.shape[-1]
    _check_alloc("labels_a, labels_b (the contingency table)", max(1, labels_a.numel() // max(n, 1)) * ka * kb * 8)
    flat = (labels_a * kb + labels_b).reshape(-1, n)
    table = torch.zeros(flat.shape[0], ka * kb, dtype=torch.float64)
    table.scatter_add_(1, flat, torch.ones_like(flat, dtype=torch.float64))
    table = table.reshape(-1, ka, kb)

    def pairs(c):
        return c * (c - 1) / 2

    sum_ij = pairs(table).sum((-1, -2))
    sum_a = pairs(table.sum(-1)).sum(-1)
    sum_b = pairs(table.sum(-2)).sum(-1)
    expected = sum_a * sum_b / pairs(torch.tensor(float(n), dtype=torch.float64))
    max_index = 0.5 * (sum_a + sum_b)
    denom = max_index - expected
    ari = torch.where(denom != 0, (sum_ij - expected) / torch.where(denom != 0, denom, 1.0),
                      torch.ones_like(denom))
    return ari.reshape(lead)


@contract(points="int:1", clusters="int:1", trials="int:1", spread="real:>=0", sigmas="reals:>0", iters="int:1",
          example_sigma="real:>0", data_generator="generator", init_generator="generator",
          alloc=lambda a: [("trials", 48 * a["trials"] * a["points"])])
def width_study(points: int, clusters: int, trials: int, spread: float, sigmas, iters: int, example_sigma: float,
                *, data_generator: torch.Generator, init_generator: torch.Generator) -> dict:
    """Chapter 4's comparison of the two priors over potential widths ``sigmas`` on the same mixtures and
    the same random start: ARI per prior (len(sigmas), trials), the smallest relative step of the
    objective (≥ 0 up to rounding: the updates are CCCP steps), the data and each prior's run at
    ``example_sigma``, and the start ``mu0`` (T, K, 2) every run shares. ``iters >= 1``: the smallest step needs one."""
    if not any(sigma == example_sigma for sigma in sigmas):   # the example is one of the runs, not an extra one
        raise ValueError(f"example_sigma must be one of sigmas {list(sigmas)!r}; got {example_sigma!r}")
    x, labels, _ = gaussian_mixture_2d(points, clusters, trials=trials, spread=spread, generator=data_generator)
    mu0 = x.mean(1, keepdim=True) + x.std(1, keepdim=True) * torch.randn(x.shape[0], clusters, 2,
                                                                         generator=init_generator)
    ari = {p: [] for p in PRIORS}
    min_step, examples = float("inf"), {}
    for sigma in sigmas:
        for p in PRIORS:
            res = run_slots(x, clusters, prior=p, sigma=sigma, iters=iters, init=mu0)
            ari[p].append(adjusted_rand_index(res["labels"], labels).numpy())
            obj = res["objective"].numpy()
            min_step = min(min_step, float((np.diff(obj, axis=0) / np.abs(obj).max(0)).min()))
            if sigma == example_sigma:
                examples[p] = res
    return {"x": x, "labels": labels, "ari": {p: np.array(v) for p, v in ari.items()}, "min_step": min_step,
            "examples": examples, "mu0": mu0}


# ---------------------------------------------------------------- the paper's update beside Locatello's
def _projections(x, mu, w_q, w_k, w_v=None):
    for name, w in (("w_q", w_q), ("w_k", w_k), ("w_v", w_v)):
        if w is not None and (not isinstance(w, torch.Tensor) or w.dim() != 2):
            raise ValueError(f"{name} must be a 2-D torch.Tensor (a projection matrix); got "
                             f"{tuple(w.shape) if isinstance(w, torch.Tensor) else type(w).__name__}")
    if x.dim() != 3 or mu.dim() != 3 or x.shape[0] != mu.shape[0]:
        raise ValueError(f"x must be (trials, points, dim) and mu (trials, slots, slot_dim); got {tuple(x.shape)} "
                         f"and {tuple(mu.shape)}")
    if w_q.shape[1] != mu.shape[-1] or w_k.shape[1] != x.shape[-1] or w_q.shape[0] != w_k.shape[0]:
        raise ValueError(f"w_q must be (h, slot_dim = {mu.shape[-1]}) and w_k (h, dim = {x.shape[-1]}) with one h; "
                         f"got {tuple(w_q.shape)} and {tuple(w_k.shape)}")
    if w_v is not None and tuple(w_v.shape) != (mu.shape[-1], x.shape[-1]):
        raise ValueError(f"w_v must have shape (slot_dim, dim) = {(mu.shape[-1], x.shape[-1])}; got {tuple(w_v.shape)}")
    for name, t in (("mu", mu), ("w_q", w_q), ("w_k", w_k), ("w_v", w_v)):
        if t is not None and t.dtype != x.dtype:
            raise TypeError(f"x and {name} must have one dtype; got x {x.dtype} and {name} {t.dtype} (cast explicitly)")
    if x.shape[1] < 1 or mu.shape[1] < 1:
        raise ValueError(f"x and mu must hold at least one point and one slot; got shapes {tuple(x.shape)} and "
                         f"{tuple(mu.shape)}")
    # A_ik = softmax over slots of (W_K x_i) . (W_Q mu_k): each point has one parent slot
    return torch.softmax((x @ w_k.T) @ (mu @ w_q.T).transpose(-1, -2), dim=-1)  # (T, N, K)


@contract(x="tensor:3", mu="tensor:3", w_q="tensor:2", w_k="tensor:2")
def paper_slot_update(x: torch.Tensor, mu: torch.Tensor, w_q: torch.Tensor, w_k: torch.Tensor):
    """Singh & Buckley's slot update (Sec. 4): the gradient of the collapsed objective with the dot-product
    potential ``s_ik = (W_K x_i) . (W_Q mu_k)`` and one parent slot per point,

        mu_k <- sum_i A_ik W_Q^T W_K x_i,   A_ik = softmax_k(s_ik)                          (no 1 / sum_i A_ik)

    x : (T, N, D); mu : (T, K, D_s); w_q : (h, D_s); w_k : (h, D). Returns the new slots (T, K, D_s) and A.
    """
    attn = _projections(x, mu, w_q, w_k)
    return torch.einsum("tnk,tnd->tkd", attn, x @ (w_q.T @ w_k).T), attn


@contract(x="tensor:3", mu="tensor:3", w_q="tensor:2", w_k="tensor:2", w_v="tensor:2")
def weighted_mean_slot_update(x: torch.Tensor, mu: torch.Tensor, w_q: torch.Tensor, w_k: torch.Tensor,
                              w_v: torch.Tensor):
    """Locatello et al.'s slot update without its GRU and MLP: the same attention, then a weighted mean of the
    values, ``mu_k <- sum_i A_ik W_V x_i / sum_i A_ik``. w_v : (D_s, D). Returns the new slots and A.

    With ``W_V = W_Q^T W_K`` it is :func:`paper_slot_update` divided by each slot's mass ``sum_i A_ik``; with
    Gaussian potentials (the ``|mu_k|^2`` term kept) it is the fixed point of the collapsed mixture
    likelihood, i.e. :func:`slot_update`.
    """
    attn = _projections(x, mu, w_q, w_k, w_v)
    return torch.einsum("tnk,tnd->tkd", attn, x @ w_v.T) / attn.sum(-2)[..., None], attn


@contract(x="tensor:3", mu="tensor:3", sigma="real:>0", steps="int:0",
          alloc=lambda a: [("steps", 2 * 32 * (a["steps"] + 1))])   # the two lists of median norms
def update_forms_study(x: torch.Tensor, mu: torch.Tensor, sigma: float, steps: int = 3) -> dict:
    """The two updates on data: projections ``W_Q = W_K = I / sigma`` (the dot-product part of the Gaussian
    potential of width sigma); x (T, N, D), mu (T, K, D). Returns the largest relative
    |paper - mass x weighted mean| with ``W_V = W_Q^T W_K`` (the closed-form relation), the slot masses
    ``sum_i A_ik`` of the first step, and the median slot norm over ``steps`` iterations of the paper's update
    and of the weighted mean of the data (``W_V = I``), with the data's median radius."""
    check_positive("sigma", sigma)
    if not math.isfinite((1.0 / sigma) * (1.0 / sigma)):   # W_V = W_Q^T W_K = I / sigma^2 would be inf
        raise ValueError(f"sigma must have 1 / sigma^2 inside float64's range; got sigma = {sigma!r}")
    eye = torch.eye(x.shape[-1], dtype=x.dtype) / sigma
    paper, attn = paper_slot_update(x, mu, eye, eye)
    mean, _ = weighted_mean_slot_update(x, mu, eye, eye, eye.T @ eye)
    mass = attn.sum(-2)
    relation = ((paper - mass[..., None] * mean).abs().max() / paper.abs().max()).item()
    if not math.isfinite(relation):   # x all zero (0 / 0), or sigma so small that x / sigma^2 overflows
        raise ValueError(f"x, mu and sigma = {sigma!r} leave the relation between the updates undefined (the paper's "
                         f"update is zero or overflows); give points that are not all zero, or a larger sigma")
    norms = {"paper": [mu.norm(dim=-1).median().item()], "mean": [mu.norm(dim=-1).median().item()]}
    a, b = mu, mu
    for _ in range(steps):
        a, _ = paper_slot_update(x, a, eye, eye)
        b, _ = weighted_mean_slot_update(x, b, eye, eye, torch.eye(x.shape[-1], dtype=x.dtype))
        norms["paper"].append(a.norm(dim=-1).median().item())
        norms["mean"].append(b.norm(dim=-1).median().item())
    return {"relation_error": relation, "mass": mass,
            "norms": norms, "data_radius": x.norm(dim=-1).median().item()}
