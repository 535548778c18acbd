"""The per-unit values and the measured round-off behind chapter 4's verdicts (issues 40 and 42).

The chapter's summary stores maxima and means; a referee asks what each rests on. This module adds, from the
objects the chapter has already computed (so no stored number changes), the values per instance or mixture, and
measures the noise each tolerance is set against:

- **the round-off of each identity**: the float64 computation against the same formula in numpy ``longdouble``
  (extended precision, 64-bit mantissa on x86), on the chapter's own draws where they are at hand. An identity's
  tolerance is only meaningful a decade or more above this, and its deviation is round-off only if it is of
  this size;
- **the slot comparison per mixture** at every width, and the paper's own (unnormalised) slot update iterated
  to its fixed point: its energy, its slot norms, its clusters, its dead slots; and from the comparison's own start,
  so that the competition the paper's sentence describes is compared on the same mixtures and starts;
- **predictive coding against the task's ceiling**: the Bayes-optimal choice of the active synapse on the same
  instances, gradient descent (the paper's dynamics), and the same at two noisier observation levels.

Every function is deterministic given its inputs (fresh draws come from the generator passed in).
"""

from __future__ import annotations

import math
from typing import Sequence

import numpy as np
import torch

from ..companion.checks import check_array, check_choice, check_tensor, check_work, contract
from . import edges, hopfield, predictive_coding, slots

__all__ = ["enumeration_roundoff", "hopfield_values", "slot_values", "paper_slot_values", "paper_slot_comparison",
           "pc_values", "pc_restarts", "chapter_values"]

LD = np.longdouble


def _lse(z: np.ndarray, axis: int) -> np.ndarray:
    m = z.max(axis, keepdims=True)
    return (m + np.log(np.exp(z - m).sum(axis, keepdims=True))).squeeze(axis)


def _ld(t: torch.Tensor) -> np.ndarray:
    return t.detach().cpu().numpy().astype(LD)


# --- the enumeration ------------------------------------------------------------------------------------------

def _enumerated_ld(q: np.ndarray, k: np.ndarray, v: np.ndarray, structures: np.ndarray, beta: float) -> np.ndarray:
    """The posterior expectation of the value function over the edge sets ``structures`` (S, m), in longdouble
    (the prior is uniform over its support, so it cancels). q (m, d), k and v (n, d); returns (m, d)."""
    s = LD(beta) * q @ k.T
    log_w = s[np.arange(q.shape[0])[None, :], structures].sum(1)
    w = np.exp(log_w - log_w.max())
    w /= w.sum()
    return np.einsum("s,smd->md", w, v[structures])


@contract(enum="mapping:draws|errors", beta="real:>=0")
def enumeration_roundoff(enum: dict, beta: float) -> dict:
    """Per instance and mechanism, the float64 round-off of both sides of the enumeration identity: the book's
    enumeration (:func:`.edges.brute_force_attention`) and masked softmax attention, each against the enumerated
    expectation in longdouble on the same draws (``enum["draws"]``). Returns ``enum_roundoff_<mode>`` (per
    instance: the larger of the two sides' largest deviations), ``enum_roundoff_max`` and the per-instance
    deviations ``enum_errors_<mode>`` (|enumeration − attention|, as stored in the figure)."""
    _check_enum(enum)
    out: dict = {}
    for mode, (q, k, v) in enum["draws"].items():
        allowed = edges.allowed_parents(q.shape[-2], k.shape[-2], mode)
        structures = edges.enumerate_structures(allowed).numpy()
        brute = edges.brute_force_attention(q, k, v, mode, beta).numpy()
        soft = edges.softmax_attention(q, k, v, mode, beta).numpy()
        rows = []
        for t in range(q.shape[0]):
            exact = _enumerated_ld(_ld(q[t]), _ld(k[t]), _ld(v[t]), structures, beta)
            rows.append(float(max(np.abs(brute[t] - exact).max(), np.abs(soft[t] - exact).max())))
        out[f"enum_roundoff_{mode}"] = rows
        out[f"enum_errors_{mode}"] = [float(e) for e in enum["errors"][mode]]
        out[f"enum_sets_{mode}"] = int(structures.shape[0])
    out["enum_roundoff_max"] = max(max(out[f"enum_roundoff_{m}"]) for m in enum["draws"])
    return out


def _check_enum(enum: dict) -> None:
    """enum["draws"]: a non-empty mapping mode -> (q, k, v), each (instances, tokens, dim); enum["errors"]: per
    mode, one finite deviation per instance (as :func:`.edges.enumeration_study` returns them)."""
    draws, errors = enum["draws"], enum["errors"]
    if not isinstance(draws, dict) or not draws:
        raise ValueError(f"enum['draws'] must be a non-empty dict mode -> (q, k, v); got {type(draws).__name__} "
                         f"{draws!r:.60}")
    if not isinstance(errors, dict):
        raise TypeError(f"enum['errors'] must be a dict mode -> deviations; got {type(errors).__name__}")
    for mode, draw in draws.items():
        if not isinstance(draw, (tuple, list)) or len(draw) != 3:
            raise TypeError(f"enum['draws'][{mode!r}] must be a tuple (q, k, v); got {type(draw).__name__}")
        for name, t in zip("qkv", draw):
            check_tensor(f"enum['draws'][{mode!r}] {name}", t, ndim=3, real=True)
        if mode not in errors:
            raise ValueError(f"enum['errors'] lacks the mode {mode!r} of enum['draws']; it has {sorted(errors)}")
        dev = check_array(f"enum['errors'][{mode!r}]", errors[mode], ndim=1, allow_int=True)
        if dev.shape[0] != draw[0].shape[0]:
            raise ValueError(f"enum['errors'][{mode!r}] must hold one deviation per instance ({draw[0].shape[0]}); "
                             f"got {dev.shape[0]}")


# --- Hopfield -------------------------------------------------------------------------------------------------

def _hopfield_energy_ld(xi: np.ndarray, patterns: np.ndarray, beta: float) -> np.ndarray:
    """:func:`.hopfield.hopfield_energy` (every pattern active) in longdouble: xi (T, d), patterns (T, P, d)."""
    b = LD(beta)
    lse = _lse(b * np.einsum("tpd,td->tp", patterns, xi), 1)
    return (-lse / b + 0.5 * (xi ** 2).sum(-1) + np.log(LD(patterns.shape[1])) / b
            + 0.5 * (patterns ** 2).sum(-1).max(1))


@contract(dim="int:1", counts="ints:1", betas="reals:>0", trials="int:1", generator="generator",
          alloc=lambda a: [("trials", 8 * a["trials"] * max(a["counts"]) * a["dim"] * 4)])
def hopfield_values(dim: int, counts: Sequence[int], betas: Sequence[float], trials: int,
                    generator: torch.Generator) -> dict:
    """On fresh draws of the retrieval grid's kind (half-erased ±1 patterns, ``trials`` per setting):

    - ``hop_roundoff_max``: the largest relative float64 round-off of the energy, |E64 − E_ld| / max(|E|, 1), at
      the grid's smallest β and largest P (where (ln P)/β, a term of ~1e3 that cancels, is largest), at the start
      and after one update. A relative rise between two steps that is round-off is at most about twice this;
    - ``hop_energy_identity_error``: the largest relative |energy − the collapsed mixture likelihood
      −(1/β) ln (1/P) Σ_j exp(−β/2 ‖ξ − x_j‖²)| over every β of the grid at the largest P (the identity the
      claim's first half states; exact for ±1 patterns, which share one norm)."""
    p_max, b_min = int(max(counts)), float(min(betas))
    patterns = hopfield.random_patterns(p_max, dim, generator=generator, batch=(trials,))
    start = hopfield.erase_entries(patterns[:, 0], 0.5, generator=generator)
    rel = []
    for xi in (start, hopfield.hopfield_update(start, patterns, b_min)):
        e64 = hopfield.hopfield_energy(xi, patterns, b_min).numpy()
        eld = _hopfield_energy_ld(_ld(xi), _ld(patterns), b_min)
        rel.append(float((np.abs(e64 - eld) / np.maximum(np.abs(eld), 1)).max()))
    ident = []
    for beta in betas:
        energy = hopfield.hopfield_energy(start, patterns, beta)
        sq = (start[:, None, :] - patterns).pow(2).sum(-1)
        direct = -(torch.logsumexp(-beta / 2 * sq, -1) - math.log(p_max)) / beta
        ident.append(((energy - direct).abs() / direct.abs().clamp_min(1.0)).max().item())
    return {"hop_roundoff_max": max(rel), "hop_energy_identity_error": max(ident), "hop_roundoff_beta": b_min,
            "hop_roundoff_patterns": p_max}


# --- slots ----------------------------------------------------------------------------------------------------

def _slot_objective_ld(x: np.ndarray, mu: np.ndarray, sigma: float, prior: str) -> np.ndarray:
    """:func:`.slots.slot_objective` in longdouble (x (T, N, D), mu (T, K, D))."""
    s = LD(sigma)
    logits = -((x[:, :, None, :] - mu[:, None, :, :]) ** 2).sum(-1) / (2 * s * s)
    N, K, D = x.shape[1], mu.shape[1], x.shape[2]
    log_norm = -LD(0.5) * D * np.log(2 * LD(math.pi) * s * s)
    if prior == "slots":
        return (_lse(logits, 2) - np.log(LD(K)) + log_norm).sum(-1)
    return (_lse(logits, 1) - np.log(LD(N)) + log_norm).sum(-1)


@contract(sl="mapping:x|ari", sigmas="reals:>0", sigma="real:>0", mu_start="tensor:3")
def slot_values(sl: dict, sigmas: Sequence[float], sigma: float, mu_start: torch.Tensor) -> dict:
    """The width study per mixture: ``slot_sigmas``, the ARI of each prior per (σ, mixture)
    (``slot_ari_slots_all``, ``slot_ari_hopfield_all``: len(sigmas) rows of ``trials``), the paired sd of the gap
    at ``sigma`` over the mixtures (``slot_ari_gap_sd``); and ``slot_roundoff_max``, the largest relative float64
    round-off of both collapsed objectives over every σ (against longdouble) at ``mu_start``, a start drawn like the
    width study's (the data mean plus the data's spread times a standard normal)."""
    ari = sl["ari"]
    check_tensor("sl['x']", sl["x"], ndim=3, real=True)
    if not isinstance(ari, dict) or set(slots.PRIORS) - set(ari):
        raise ValueError(f"sl['ari'] must be a dict with the priors {list(slots.PRIORS)}; got "
                         f"{sorted(ari) if isinstance(ari, dict) else type(ari).__name__}")
    for prior in slots.PRIORS:
        rows = check_array(f"sl['ari'][{prior!r}]", ari[prior], ndim=2)
        if rows.shape[0] != len(list(sigmas)) or rows.shape[1] < 2:
            raise ValueError(f"sl['ari'][{prior!r}] must hold one row per sigma ({len(list(sigmas))}) of at least two "
                             f"mixtures (the paired sd); got shape {rows.shape}")
    if sigma not in list(sigmas):
        raise ValueError(f"sigma must be one of the study's sigmas {list(sigmas)}; got {sigma!r}")
    i = list(sigmas).index(sigma)
    gap = ari["slots"][i] - ari["hopfield"][i]
    x64, xld, mld = sl["x"], _ld(sl["x"]), _ld(mu_start)
    rel = []
    for s in sigmas:
        for prior in slots.PRIORS:
            o64 = slots.slot_objective(x64, mu_start, s, prior).numpy()
            old = _slot_objective_ld(xld, mld, s, prior)
            rel.append(float((np.abs(o64 - old) / np.abs(old)).max()))
    return {"slot_sigmas": [float(s) for s in sigmas],
            "slot_ari_slots_all": [[float(a) for a in row] for row in ari["slots"]],
            "slot_ari_hopfield_all": [[float(a) for a in row] for row in ari["hopfield"]],
            "slot_ari_gap_sd": float(np.std(gap, ddof=1)), "slot_roundoff_max": max(rel)}


def _paper_energy(x: torch.Tensor, mu: torch.Tensor, sigma: float) -> torch.Tensor:
    """The energy the paper's slot update descends (Eq. 8 with node potential −½‖μ‖² and edge potential
    μ_k · W x_i, W = W_Qᵀ W_K = I/σ²; one parent slot per point): ½ Σ_k ‖μ_k‖² − Σ_i lse_k(μ_k · x_i / σ²), (T,)."""
    return 0.5 * mu.pow(2).sum((-1, -2)) - torch.logsumexp(x @ mu.transpose(-1, -2) / sigma ** 2, -1).sum(-1)


def _paper_energy_ld(x: np.ndarray, mu: np.ndarray, sigma: float) -> np.ndarray:
    s2 = LD(sigma) ** 2
    return LD(0.5) * (mu ** 2).sum((-1, -2)) - _lse(x @ mu.transpose(0, 2, 1) / s2, 2).sum(-1)


@contract(x="tensor:3", mu_start="tensor:3", labels="inttensor", sigma="real:>0", steps="int:1")
def paper_slot_values(x: torch.Tensor, mu_start: torch.Tensor, labels: torch.Tensor, sigma: float,
                      steps: int = 40) -> dict:
    """The paper's slot update (:func:`.slots.paper_slot_update`, W_Q = W_K = I/σ as in
    :func:`.slots.update_forms_study`) iterated ``steps`` times from ``mu_start``: the largest relative rise of
    its energy (:func:`_paper_energy`, normalised by max(|F|, 1) per mixture; a CCCP step never raises it), the
    median slot norm after each step (``slot_paper_norm_by_step``, steps + 1 values), the relative change of the
    median norm over the last step, the mean ARI of each point's most probable slot (argmax_k A_ik) at the end,
    the relative float64 round-off of the energy at the end (against longdouble), and per mixture the median slot
    norm at the end over the data's median radius (``slot_paper_outside_all``)."""
    check_work(f"steps={steps}", steps * x.numel() * mu_start.shape[-2], what="paper_slot_values()")
    _check_paper_inputs(x, mu_start, labels, sigma, "mu_start", "labels")
    eye = torch.eye(x.shape[-1], dtype=x.dtype) / sigma
    mu, energies, norms = mu_start, [_paper_energy(x, mu_start, sigma)], [mu_start.norm(dim=-1).median().item()]
    for _ in range(steps):
        mu, attn = slots.paper_slot_update(x, mu, eye, eye)
        energies.append(_paper_energy(x, mu, sigma))
        norms.append(mu.norm(dim=-1).median().item())
    f = torch.stack(energies).numpy()
    rise = float((np.diff(f, axis=0) / np.maximum(np.abs(f).max(0), 1.0)).max())
    _, attn = slots.paper_slot_update(x, mu, eye, eye)
    ari = slots.adjusted_rand_index(attn.argmax(-1), labels)
    if not norms[-1] > 0:   # every slot at the origin (x all zero): the relative change is 0 / 0
        raise ValueError("x and mu_start: the paper's update sent every slot to the origin (x is zero); the relative "
                         "change of the median slot norm is undefined")
    f_ld = _paper_energy_ld(_ld(x), _ld(mu), sigma)
    roundoff = float((np.abs(f[-1] - f_ld) / np.maximum(np.abs(f_ld), 1)).max())
    ratio = mu.norm(dim=-1).median(-1).values / x.norm(dim=-1).median(-1).values
    return {"slot_paper_steps": steps, "slot_paper_max_rise": rise, "slot_paper_norm_by_step": norms,
            "slot_paper_last_change": abs(norms[-1] - norms[-2]) / norms[-1], "slot_paper_ari": ari.mean().item(),
            "slot_paper_roundoff": roundoff, "slot_paper_outside_all": [float(r) for r in ratio],
            "slot_paper_dead_all": [int(k) for k in _dead_slots(attn)]}


def _check_paper_inputs(x, mu, labels, sigma, mu_name: str, labels_name: str, x_name: str = "x") -> None:
    """The paper's update's inputs agree: mu (T, K, D) and labels (T, N) of x (T, N, D), one dtype, 1/sigma^2 finite."""
    check_tensor(x_name, x, ndim=3, real=True)
    check_tensor(mu_name, mu, ndim=3, real=True)
    check_tensor(labels_name, labels, ndim=2)
    if mu.dtype != x.dtype:
        raise TypeError(f"x and {mu_name} must have one dtype; got x {x.dtype} and {mu_name} {mu.dtype} (cast "
                        f"explicitly)")
    if mu.shape[0] != x.shape[0] or mu.shape[2] != x.shape[2] or tuple(labels.shape) != tuple(x.shape[:2]):
        raise ValueError(f"{mu_name} must have shape (T, K, D) and {labels_name} (T, N) for x of shape (T, N, D) = "
                         f"{tuple(x.shape)}; got {tuple(mu.shape)} and {tuple(labels.shape)}")
    if not math.isfinite((1.0 / sigma) * (1.0 / sigma)):
        raise ValueError(f"sigma must have 1 / sigma^2 inside float64's range; got sigma = {sigma!r}")


def _dead_slots(attn: torch.Tensor) -> torch.Tensor:
    """Per mixture, the slots whose mass Σ_i A_ik is below one point: at the paper's fixed point a slot's norm is its
    mass times its weighted mean over σ², an inverse temperature, so the heavier slots win the points and the
    lighter ones lose them all (winner-take-all by mass)."""
    return (attn.sum(-2) < 1).sum(-1)


@contract(sl="mapping:x|mu0|labels", sigma="real:>0", steps="int:1")
def paper_slot_comparison(sl: dict, sigma: float, steps: int = 40) -> dict:
    """The paper's slot update (W_Q = W_K = I/σ) from the width study's own start ``sl["mu0"]``, on its mixtures,
    ``steps`` times: the ARI of each point's most probable slot per mixture (``slot_paper_same_ari_all``), paired with
    the Hopfield prior's and slot attention's of the same start, and the dead slots per mixture
    (``slot_paper_same_dead_all``, mass below one point)."""
    _check_paper_inputs(sl["x"], sl["mu0"], sl["labels"], sigma, "sl['mu0']", "sl['labels']", "sl['x']")
    x, eye = sl["x"], torch.eye(sl["x"].shape[-1], dtype=sl["x"].dtype) / sigma
    mu = sl["mu0"]
    check_work(f"steps={steps}", steps * x.numel() * mu.shape[-2], what="paper_slot_comparison()")
    for _ in range(steps):
        mu, _ = slots.paper_slot_update(x, mu, eye, eye)
    _, attn = slots.paper_slot_update(x, mu, eye, eye)
    ari = slots.adjusted_rand_index(attn.argmax(-1), sl["labels"])
    return {"slot_paper_same_ari_all": [float(a) for a in ari], "slot_paper_same_dead_all": [int(k) for k in
                                                                                             _dead_slots(attn)]}


# --- predictive coding ----------------------------------------------------------------------------------------

def _free_energy_ld(x, y, C, mu, pi_y, pi):
    """:func:`.predictive_coding.free_energy` in longdouble."""
    err = y - np.einsum("tod,td->to", C, x)
    log_mix = _lse(-LD(0.5) * LD(pi) * ((x[:, None, :] - mu) ** 2).sum(-1), 1) - np.log(LD(mu.shape[1]))
    return LD(0.5) * LD(pi_y) * (err ** 2).sum(-1) - log_mix


def _check_problem(problem: dict) -> None:
    """problem as :func:`.predictive_coding.make_problem` returns it: mu (T, n, d), C (T, o, d), y (T, o),
    x_true (T, d) of one dtype, and active (T,) integer parent indices in [0, n)."""
    mu = check_tensor("problem['mu']", problem["mu"], ndim=3, real=True)
    check_tensor("problem['C']", problem["C"], ndim=3, real=True)
    check_tensor("problem['y']", problem["y"], ndim=2, real=True)
    x_true = check_tensor("problem['x_true']", problem["x_true"], ndim=2, real=True)
    predictive_coding._check_shapes(x_true, mu, problem["y"], problem["C"], x_name="problem['x_true']")
    active = check_tensor("problem['active']", problem["active"], ndim=1)
    if active.is_floating_point() or active.dtype == torch.bool:
        raise TypeError(f"problem['active'] must be an integer tensor (T,) of parent indices; got dtype {active.dtype}")
    if active.shape[0] != mu.shape[0] or bool((active < 0).any()) or bool((active >= mu.shape[1]).any()):
        raise ValueError(f"problem['active'] must hold one parent index in [0, {mu.shape[1]}) per trial "
                         f"({mu.shape[0]}); got shape {tuple(active.shape)}")


def _oracle(problem: dict) -> torch.Tensor:
    """Per instance, whether the Bayes-optimal choice of the active synapse is right: the instances are drawn with
    x* = μ_j* exactly and isotropic observation noise, so the most probable synapse is argmin_j ‖y − C μ_j‖."""
    pred = torch.einsum("tod,tnd->tno", problem["C"], problem["mu"])
    return (problem["y"][:, None, :] - pred).pow(2).sum(-1).argmin(-1) == problem["active"]


@contract(problem="mapping:active|mu|y|C|x_true", pcs="mapping:runs", steps="int:1", pi="real:>0", pi_y="real:>0", grad_name="str",
          noise_levels="reals:>=0", base_noise="real:>=0", generator="generator")
def pc_values(problem: dict, pcs: dict, steps: int, pi: float, pi_y: float, grad_name: str,
              noise_levels: Sequence[float], base_noise: float, generator: torch.Generator) -> dict:
    """Predictive coding's accuracy beside what the task allows, on the chapter's instances ``problem``:

    - ``pc_found_fixed``: per instance, 1 if the fixed point's largest synapse weight is the active synapse;
    - ``pc_win_weights``: per instance, that largest weight (winner-takes-all: near 1);
    - ``pc_acc_grad``: the same fraction for gradient descent (``grad_name``, step 1/L) after ``steps`` steps;
    - ``pc_acc_oracle``: the Bayes-optimal choice's fraction (:func:`_oracle`): the task's ceiling;
    - ``pc_noise_levels`` with ``pc_acc_fixed_by_noise`` and ``pc_acc_oracle_by_noise``: the fixed point and the
      ceiling with the observation noise raised (the same μ, C and active synapses, a fresh noise draw from
      ``generator``; the first level is ``base_noise``, the chapter's own instances);
    - ``pc_roundoff``: the largest relative float64 round-off of F at the fixed point's end (against longdouble),
      normalised by max(|F|, 1) as the rise is."""
    _check_problem(problem)
    runs = pcs["runs"]
    if not isinstance(runs, dict) or "fixed point (CCCP)" not in runs:
        raise ValueError(f"pcs['runs'] must be a dict holding the run 'fixed point (CCCP)' (and the gradient runs), "
                         f"as step_size_study returns it; got {sorted(runs) if isinstance(runs, dict) else type(runs).__name__}")
    levels = list(noise_levels)
    if levels[0] != base_noise:   # the first level is the chapter's own instances: its accuracy is the found one
        raise ValueError(f"noise_levels must start with base_noise ({base_noise!r}), the noise of problem's own "
                         f"observation; got {levels!r}")
    active, mu = problem["active"], problem["mu"]
    check_choice("grad_name", grad_name, tuple(k for k in pcs["runs"] if k != "fixed point (CCCP)"))
    fixed = pcs["runs"]["fixed point (CCCP)"]
    found = (predictive_coding.synapse_weights(fixed["x"][-1], mu, pi).argmax(-1) == active)
    grad_x = pcs["runs"][grad_name]["x"][-1]
    acc_grad = (predictive_coding.synapse_weights(grad_x, mu, pi).argmax(-1) == active).double().mean().item()
    x_end = fixed["x"][-1]
    f64 = predictive_coding.free_energy(x_end, problem["y"], problem["C"], mu, pi_y, pi).numpy()
    fld = _free_energy_ld(_ld(x_end), _ld(problem["y"]), _ld(problem["C"]), _ld(mu), pi_y, pi)
    by_noise, ceiling = [], []
    for level in noise_levels:
        if level == base_noise:
            pb = problem
            acc = found.double().mean().item()
        else:
            noise = torch.randn(problem["y"].shape, generator=generator, dtype=problem["y"].dtype)
            y = torch.einsum("tod,td->to", problem["C"], problem["x_true"]) + level * noise
            pb = {**problem, "y": y}
            res = predictive_coding.infer(pb, method="fixed_point", steps=steps, pi=pi, pi_y=pi_y)
            acc = (res["weights"].argmax(-1) == active).double().mean().item()
        by_noise.append(acc)
        ceiling.append(_oracle(pb).double().mean().item())
    win = predictive_coding.synapse_weights(fixed["x"][-1], mu, pi).max(-1).values   # the winner's weight
    return {"pc_found_fixed": [int(b) for b in found], "pc_acc_grad": acc_grad, "pc_acc_oracle": ceiling[0],
            "pc_win_weights": [round(float(w), 6) for w in win],
            "pc_noise_levels": [float(v) for v in noise_levels], "pc_acc_fixed_by_noise": by_noise,
            "pc_acc_oracle_by_noise": ceiling,
            "pc_roundoff": float((np.abs(f64 - fld) / np.maximum(np.abs(fld), 1)).max()),
            **pc_restarts(problem, fixed, steps, pi, pi_y, generator)}


@contract(problem="mapping:active|mu|y|C|x_true", fixed="mapping:x|free_energy", steps="int:1", pi="real:>0", pi_y="real:>0",
          generator="generator", starts="int:1", alloc=lambda a: [("starts", 64 * a["starts"])])  # two lists per start
def pc_restarts(problem: dict, fixed: dict, steps: int, pi: float, pi_y: float, generator: torch.Generator,
                starts: int = 8) -> dict:
    """The fixed point (CCCP) from ``starts`` other starts than zero: each instance starts at a parent's prediction
    drawn at random (a start committed to a synapse, right with chance 1/n) plus Gaussian noise of the predictions'
    own spread. Per start: ``pc_starts_acc`` (active synapse found), ``pc_starts_same`` (share of instances whose
    final F lies within 1e-9 (relative to max(|F|, 1)) of the zero start's: the same fixed point) and
    ``pc_starts_rise`` (the largest rise of F along any path, relative as above). One start selecting the synapse
    does not show that the dynamics do, wherever they start."""
    _check_problem(problem)
    mu, active = problem["mu"], problem["active"]
    T, n, d = mu.shape
    check_tensor("fixed['free_energy']", fixed["free_energy"], ndim=2, real=True)
    if fixed["free_energy"].shape[1] != T:
        raise ValueError(f"fixed['free_energy'] must have shape (steps + 1, T = {T}); got "
                         f"{tuple(fixed['free_energy'].shape)}")
    if len(fixed["free_energy"]) != steps + 1:
        raise ValueError(f"steps must be the zero start's steps: fixed holds {len(fixed['free_energy']) - 1} steps; "
                         f"got steps = {steps}")
    f_zero = fixed["free_energy"][-1]
    acc, same, rise = [], [], 0.0
    scale = float(mu.std())
    for _ in range(starts):
        pick = torch.randint(n, (T,), generator=generator)
        x0 = mu[torch.arange(T), pick] + scale * torch.randn(T, d, generator=generator, dtype=mu.dtype)
        res = predictive_coding.infer(problem, method="fixed_point", steps=steps, pi=pi, pi_y=pi_y, x0=x0)
        f = res["free_energy"]
        norm = torch.clamp(f.abs(), min=1.0)
        rise = max(rise, float(((f[1:] - f[:-1]) / norm[:-1]).max()))
        acc.append((res["weights"].argmax(-1) == active).double().mean().item())
        same.append(((f[-1] - f_zero).abs() / torch.clamp(f_zero.abs(), min=1.0) < 1e-9).double().mean().item())
    return {"pc_starts_acc": acc, "pc_starts_same": same, "pc_starts_rise": rise}


@contract(enum="mapping:draws|errors", enum_beta="real:>=0", hop_sizes="mapping:dim|counts|betas|trials",
          sl="mapping:x|ari|labels", slot_sizes="mapping:sigmas|sigma", mu_forms="tensor:3", problem="mapping:active|mu|y|C|x_true",
          pcs="mapping:runs", pc_sizes="mapping:steps|pi|pi_y", grad_name="str", gap_raw="array:1", generator="generator")
def chapter_values(enum: dict, enum_beta: float, hop_sizes: dict, sl: dict, slot_sizes: dict, mu_forms: torch.Tensor,
                   problem: dict, pcs: dict, pc_sizes: dict, grad_name: str, gap_raw: np.ndarray,
                   generator: torch.Generator) -> dict:
    """Everything above for the chapter's summary (new keys only: no stored number changes). ``hop_sizes``: dim,
    counts, betas and trials (at most 100 fresh trials are drawn); ``slot_sizes``: sigmas and sigma;
    ``mu_forms``: the start of the update-forms study, from which the slot objectives' round-off is measured and
    the paper's slot update is iterated; ``pc_sizes``: steps, pi, pi_y; ``gap_raw``: the key-norm gap per
    instance."""
    out = enumeration_roundoff(enum, enum_beta)
    out.update(hopfield_values(hop_sizes["dim"], hop_sizes["counts"], hop_sizes["betas"],
                               min(int(hop_sizes["trials"]), 100), generator))
    out.update(slot_values(sl, slot_sizes["sigmas"], slot_sizes["sigma"], mu_forms))
    out.update(paper_slot_values(sl["x"], mu_forms, sl["labels"], slot_sizes["sigma"]))
    if "mu0" in sl:   # the paper's update from the comparison's own start (a width study that returns it)
        out.update(paper_slot_comparison(sl, slot_sizes["sigma"]))
    out.update(pc_values(problem, pcs, pc_sizes["steps"], pc_sizes["pi"], pc_sizes["pi_y"], grad_name,
                         (0.3, 1.0, 2.0), 0.3, generator))
    out["keynorm_gaps_raw"] = [float(g) for g in gap_raw]
    return out
