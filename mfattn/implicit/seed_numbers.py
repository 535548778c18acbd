"""Chapter 2's analyses of one trained blog model, so that every seed gets them (not seed 0 alone).

:func:`analyse` reads one finished run (:class:`mfattn.implicit.runs.TrainResult` with kept weights) and returns the
numbers the chapter's verdicts read, under the keys of ``data/full/deq/summary.json``, with the arrays its figures
draw. The chapter calls it for each seed of the profile and stores seed 0's numbers under their own keys (the
figures and the prose are seed 0's) and every seed's under ``<key>_seeds`` (lists in the seeds' order), which the
verdicts read (:func:`per_seed`).

What it measures, on the test digits given:

* stability at the trained fixed point: ``ρ(∂f/∂m)`` per digit (:func:`~.stability.fixed_point_spectral_radius`)
  and the accuracy after k plain steps from ``m = X`` against the fixed point's (:func:`~.stability.accuracy_by_steps`);
  the share of digits damped plain iteration brings to the layer's tolerance in its budget of 40 evaluations
  (:func:`damped_plain_converged`, at each of :data:`PLAIN_DAMPINGS`);
* over training, at the kept weights: median ``ρ`` and median ``‖(I − J_f)⁻¹‖₂`` (:func:`~.stability.resolvent_norm`)
  against the forward Anderson evaluations of the 100 steps before each kept step: the levels' correlation, the
  changes' correlation (:func:`~.stability.change_correlation`) and the out-of-sample R² of the second half of training
  from a line fitted on the first (:func:`~.stability.held_out_r2`);
* the learned correction at the fixed point (:func:`~.correction.correction_report`: the reaction-term cosine, the
  Gaussian and affine fits, the coupling matrix's asymmetry).
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

import numpy as np
import torch

from . import correction, reference_solver, stability
from ..companion.checks import contract

__all__ = ["analyse", "chance_cosine", "damped_plain_converged", "per_seed", "seeds_text", "PLAIN_DAMPINGS",
           "STABILITY_KEYS", "TRAINING_KEYS"]

STABILITY_KEYS = ("rho_blog_median", "rho_blog_max", "rho_blog_unstable", "blog_anderson_converged",
                  "blog_anderson_converged_40",
                  "rho_blog_median_converged", "stability_digits", "acc_fixed", "plain_damped_50_converged",
                  "plain_damped_25_converged")
TRAINING_KEYS = ("rho_train_first", "rho_train_last", "rho_train_cross", "rho_train_stays", "rho_train_corr",
                 "rho_train_change_corr", "rho_train_changes", "fwd_iters_first", "fwd_iters_last", "res_train_first",
                 "res_train_last", "res_train_corr", "res_train_change_corr", "rho_train_heldout_r2",
                 "res_train_heldout_r2")


def _corr(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.corrcoef(a, b)[0, 1]) if len(a) > 2 and np.all(np.isfinite(a)) and np.std(a) > 0 else np.nan


@torch.no_grad()
def _coupling_norm(result: Any, step: int) -> float:
    """‖J‖_F of the learned couplings at a kept step (NaN for a layer without a coupling matrix)."""
    layer = result.load_model_at(step).attention
    return float(layer.coupling_matrix().norm()) if layer.interaction == "linear" else float("nan")


#: Anderson's cap for the uncensored work measure over training (the blog's budget of 40 censors the solver's work:
#: late in training a quarter of the digits of a kept step end at it).
WORK_CAP = 300


@torch.no_grad()
def _work_to_tolerance(result: Any, images: torch.Tensor, steps: Sequence[int], cap: int = WORK_CAP) -> np.ndarray:
    """(S, B): the Anderson evaluations each of the digits ``images`` needs to reach the layer's tolerance (1e-4) at
    each kept step of ``steps``, with up to ``cap`` evaluations (``cap`` where it is not reached): the solver's work
    on the same digits as ρ, not censored at the blog's 40."""
    import copy
    import warnings

    from ..deq import ConvergenceWarning

    out = []
    for step in steps:
        model = result.load_model_at(int(step))
        model.eval()
        x = model.sources(images)
        layer = copy.deepcopy(model.attention)
        layer.solver, layer.max_iter, layer.tol = "anderson", cap, 1e-4
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            layer(x)
        out.append(layer.last_stats["forward"].iterations.cpu().numpy().astype(float))
    return np.stack(out)


def _uncensored(over: Mapping[str, Any], work: np.ndarray, ok: np.ndarray, jnorm: np.ndarray) -> dict[str, float]:
    """ρ against the uncensored work on the same digits: the changes' correlation, the placebo's, their paired
    difference (with its bootstrap SE), the same on each half of the digits (the digit-sampling spread), and the
    share of (step, digit) solves that reached the cap."""
    rho_all, half = over["rho"], work.shape[1] // 2
    rho, w = np.asarray(over["rho_median"])[ok], work.mean(axis=1)[ok]
    out = {"work_train_change_corr": stability.change_correlation(rho, w)[0], "work_capped": float(np.mean(work >= WORK_CAP))}
    if np.all(np.isfinite(jnorm)):
        paired = stability.change_correlation_difference(rho, jnorm, w)
        out.update(placebo_jnorm_work_change_corr=stability.change_correlation(jnorm, w)[0],
                   rho_minus_jnorm_work_change_corr=paired["diff"], rho_minus_jnorm_work_change_se=paired["se"])
    for k, cols in (("1", slice(0, half)), ("2", slice(half, None))):
        r = np.nanmedian(rho_all[:, cols], axis=1)[ok]
        out[f"work_train_change_corr_half{k}"] = stability.change_correlation(r, work[:, cols].mean(axis=1)[ok])[0]
    return out


@contract(f="tensor:3", m="tensor:3", draws="int:1", seed="int:0",
          alloc=lambda a: [("draws", 8 * int(a["draws"]) * int(a["m"].shape[-1]) ** 2)])
def chance_cosine(f: torch.Tensor, m: torch.Tensor, draws: int = 200, seed: int = 0) -> dict[str, float]:
    """How large |cos(f, A m_i)| is for random site-shared linear maps A (d, d) of the means (standard normal entries,
    ``draws`` of them, fixed ``seed``): the chance level of the reaction-term cosine. ``f`` and ``m`` are (B, N, d).
    Returns the median and the 95th percentile over the draws; ``f`` or ``m`` all zero (a cosine of 0/0) is a
    ValueError."""
    if f.shape != m.shape:
        raise ValueError(f"f and m must have the same shape (B, N, d); got f {tuple(f.shape)} and m {tuple(m.shape)}")
    if f.dtype != m.dtype:
        raise TypeError(f"f and m must have one dtype (the fields of one fixed point); got f {f.dtype} and m {m.dtype}")
    for name, t in (("f", f), ("m", m)):
        if not bool(t.any()):
            raise ValueError(f"{name} must not be all zero (a cosine with a zero vector is 0/0); got shape "
                             f"{tuple(t.shape)} of zeros")
    gen = torch.Generator().manual_seed(seed)
    f, m = f.double().reshape(-1, f.shape[-1]), m.double().reshape(-1, m.shape[-1])
    d = m.shape[-1]
    A = torch.randn(draws, d, d, generator=gen, dtype=torch.float64)
    # With r = m Aᵀ over every (digit, site): ⟨r, f⟩ = ⟨A, fᵀm⟩ and ‖r‖² = tr(A mᵀm Aᵀ), so every draw costs O(d³)
    # on two (d, d) Gram matrices instead of a pass over the means.
    cross, gram = f.T @ m, m.T @ m
    inner = (A * cross).sum((1, 2))
    norm_r = ((A @ gram) * A).sum((1, 2)).clamp_min(0).sqrt()
    got = (inner / (norm_r * f.norm())).abs().numpy()
    return {"median": float(np.median(got)), "q95": float(np.quantile(got, 0.95))}


def _over_training(result: Any, images: torch.Tensor, every: int) -> tuple[dict[str, float], dict[str, np.ndarray]]:
    kept = result.weight_steps()
    steps = [s for s in kept if s % every == 0 or s == kept[-1]]
    over = stability.spectral_radius_over_training(result, images, steps, resolvent=True)
    fwd = np.asarray(result.history["forward_iterations"], float)
    before = np.array([np.mean(fwd[max(0, s - 100):s]) if s else np.nan for s in over["step"]])
    ok = np.isfinite(before) & np.isfinite(over["rho_median"]) & np.isfinite(over["resolvent_median"])
    rho, res, its = over["rho_median"][ok], np.log(over["resolvent_median"][ok]), before[ok]
    first, stays = stability.unit_crossing(over["step"], over["rho_median"])
    rho_change, changes = stability.change_correlation(rho, its)
    res_change, _ = stability.change_correlation(res, its)
    # placebos (a referee's control): quantities that merely grow during training, the couplings' norm and log step
    jnorm = np.array([_coupling_norm(result, int(s)) for s in over["step"]])[ok]
    logstep = np.log1p(np.asarray(over["step"], float))[ok]
    out = {"rho_train_first": over["rho_median"][0], "rho_train_last": over["rho_median"][-1],
           "rho_train_cross": first, "rho_train_stays": stays, "rho_train_corr": np.corrcoef(rho, its)[0, 1],
           "rho_train_change_corr": rho_change, "rho_train_changes": changes, "fwd_iters_first": its[0],
           "fwd_iters_last": its[-1], "res_train_first": over["resolvent_median"][0],
           "res_train_last": over["resolvent_median"][-1], "res_train_corr": np.corrcoef(res, its)[0, 1],
           "res_train_change_corr": res_change,   # a held-out half needs 3 kept steps a side (quick runs keep fewer)
           "rho_train_heldout_r2": stability.held_out_r2(rho, its) if len(its) >= 6 else np.nan,
           "res_train_heldout_r2": stability.held_out_r2(res, its) if len(its) >= 6 else np.nan,
           "placebo_jnorm_corr": _corr(jnorm, its), "placebo_logstep_corr": _corr(logstep, its),
           "placebo_jnorm_change_corr": stability.change_correlation(jnorm, its)[0]
           if np.all(np.isfinite(jnorm)) else np.nan}
    # the paired comparison a referee asks for: does ρ's change track the work's better than ‖J‖_F's does?
    paired = (stability.change_correlation_difference(rho, jnorm, its) if np.all(np.isfinite(jnorm)) and len(its) >= 4
              else {"diff": np.nan, "se": np.nan})
    out.update(rho_minus_jnorm_change_corr=paired["diff"], rho_minus_jnorm_change_se=paired["se"])
    # the solver's work uncensored (cap 300) on ρ's own digits: the blog's 40 censors it late in training
    if len(its) >= 4:
        out.update(_uncensored(over, _work_to_tolerance(result, images, over["step"]), ok, jnorm))
    return out, {**over, "fwd_before": before}


#: Dampings of the plain iteration tried on the trained layer (deq-anderson-plain's control: the undamped plain iteration
#: the variant trains with diverges where ρ(∂f/∂m) > 1, a damped one need not).
PLAIN_DAMPINGS = (0.5, 0.25)


@torch.no_grad()
@contract(x="tensor:3", damping="real:(0,1]", max_iter="int:1", tol="real:>0")
def damped_plain_converged(layer: Any, x: torch.Tensor, damping: float, max_iter: int = 40,
                           tol: float = 1e-4) -> np.ndarray:
    """(B,) bool: whether damped plain iteration ``m ← (1 − a)·m + a·f(m)`` (``a = damping``) from the layer's own
    start reaches its relative tolerance ``tol`` within ``max_iter`` evaluations on the sources ``x`` (B, N, d): the
    blog's budget (40) and tolerance (1e-4), with the damping the undamped variant lacks."""
    import copy
    import warnings

    from ..deq import ConvergenceWarning

    if not isinstance(layer, torch.nn.Module) or not hasattr(layer, "solver_options"):
        raise TypeError(f"layer must be a mean-field attention layer (mfattn.implicit.meanfield.MeanFieldAttention); "
                        f"got {type(layer).__name__}")
    layer = copy.deepcopy(layer)
    layer.solver, layer.max_iter, layer.tol = "plain", max_iter, float(tol)
    layer.solver_options = {"damping": float(damping), "on_fail": "ignore"}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        layer(x)
    return layer.last_stats["forward"].converged.cpu().numpy()


@contract(sizes="mapping:stability_digits|budget_steps|rho_training_digits|rho_training_every|correction_digits")
def analyse(result: Any, images: torch.Tensor, labels: torch.Tensor, sizes: Mapping[str, Any]) -> dict[str, Any]:
    """The numbers of one trained blog model (see the module docstring) and the arrays behind its figures.

    ``images`` (B, 1, 28, 28) and ``labels`` (B,): test digits; the first ``sizes["stability_digits"]`` serve the
    stability at the fixed point, ``rho_training_digits`` the analysis over training (kept weights every
    ``rho_training_every`` steps), ``correction_digits`` the learned correction; ``budget_steps`` the plain-step budgets.
    Returns ``{"numbers": {key: float}, "rho": (D,), "converged": (D,), "budget": {k: accuracy}, "over": {...},
    "correction": the report}``. ``result`` is a TrainResult with kept weights; the digit counts and
    ``rho_training_every`` are positive integers, ``budget_steps`` a list of them."""
    from ..companion.checks import check_int, check_rule, check_tensor
    from .runs import TrainResult

    if not isinstance(result, TrainResult):
        raise TypeError(f"result must be a TrainResult (a trained blog model); got {type(result).__name__}")
    check_tensor("images", images, shape=(None, 1, 28, 28), real=True)
    check_tensor("labels", labels, shape=(len(images),))
    if labels.is_floating_point() or labels.dtype == torch.bool:
        raise TypeError(f"labels must be an integer tensor of digit labels; got dtype {labels.dtype}")
    if labels.numel() and (int(labels.min()) < 0 or int(labels.max()) > 9):   # MNIST digits: an accuracy otherwise 0
        raise ValueError(f"labels must be digit labels in 0..9; got values from {int(labels.min())} to "
                         f"{int(labels.max())}")
    for key in ("stability_digits", "rho_training_digits", "rho_training_every", "correction_digits"):
        check_int(f"sizes[{key!r}]", sizes[key], 1)
    check_rule("sizes['budget_steps']", sizes["budget_steps"], "ints:1")
    model = result.load_model()
    model.eval()
    with torch.no_grad():
        x = model.sources(images[:sizes["stability_digits"]])
    rho, conv = stability.fixed_point_spectral_radius(model.attention, x)
    # the same solver at the blog's budget (40 evaluations): ρ above is read at Anderson's fixed point found with 100
    conv40 = stability.anderson_fixed_point(model.attention, x, max_iter=40)[1].cpu().numpy()
    budget = stability.accuracy_by_steps(model, images, labels, steps=sizes["budget_steps"])
    numbers: dict[str, Any] = {
        "rho_blog_median": np.nanmedian(rho), "rho_blog_max": np.nanmax(rho), "rho_blog_unstable": np.mean(rho > 1),
        "blog_anderson_converged": conv.mean(), "blog_anderson_converged_40": conv40.mean(), "rho_blog_median_converged": np.nanmedian(rho[conv]) if conv.any()
        else np.nan, "stability_digits": len(rho), "acc_fixed": budget["fixed point"],
        **{f"acc_step_{k}": v for k, v in budget.items() if k != "fixed point"},
        **{f"plain_damped_{round(100 * a)}_converged": damped_plain_converged(model.attention, x, a).mean() for a in PLAIN_DAMPINGS}}
    training, over = _over_training(result, images[:sizes["rho_training_digits"]], sizes["rho_training_every"])
    numbers.update(training)
    corr = correction.correction_report(model, images[:sizes["correction_digits"]])
    fields = correction.fixed_point_fields(model, images[:sizes["correction_digits"]])
    chance = chance_cosine(fields["f"], fields["m"])
    numbers.update(corr_chance_cosine=chance["median"], corr_chance_cosine_q95=chance["q95"])
    # the public code's own solver (history 5, absolute ridge, batch-pooled residual) at the analysed kept steps
    kept = result.weight_steps()
    every = sizes["rho_training_every"]
    ref_steps = [s for s in kept if s % every == 0 or s == kept[-1]]
    ref = reference_solver.reference_converged_over_training(result, images[:sizes["stability_digits"]], ref_steps)
    late = ref["step"] >= 0.75 * ref["step"][-1]
    numbers.update(ref_anderson_conv=float(ref["converged"].mean()), ref_anderson_conv_last=float(
        ref["converged"][late].mean()), ref_anderson_residual_final=float(ref["residual"][-1]),
        ref_anderson_first_miss=float(next((s for s, c in zip(ref["step"], ref["converged"]) if c < 1), np.nan)))
    numbers.update({f"corr_{k}": v for k, v in corr.items() if k not in ("points", "p_eff_eig", "digits")})
    numbers.update(corr_peff_min=min(corr["p_eff_eig"]), corr_peff_max=max(corr["p_eff_eig"]))
    numbers = {k: (float(v) if isinstance(v, (int, float, np.floating, np.integer, np.bool_)) else v)
               for k, v in numbers.items()}
    return {"numbers": numbers, "rho": rho, "converged": conv, "budget": budget, "over": over, "correction": corr}


def per_seed(numbers: Sequence[Mapping[str, Any]]) -> dict[str, list]:
    """``{<key>_seeds: [value of seed 1, seed 2, ...]}`` for every number the seeds' analyses share (in their order;
    None where a value is not finite, as the stored JSON writes it)."""
    if isinstance(numbers, (str, bytes, Mapping)) or not isinstance(numbers, Sequence) or not all(
            isinstance(n, Mapping) for n in numbers):
        raise TypeError(f"numbers must be a sequence of dicts, one per seed; got {type(numbers).__name__}")
    if not numbers:
        raise ValueError("numbers must hold at least one seed's dict; got an empty sequence")
    keys = [k for k in numbers[0] if all(k in n for n in numbers)]
    out = {}
    for k in keys:
        values = [n[k] for n in numbers]
        if all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values):
            out[f"{k}_seeds"] = [float(v) if np.isfinite(v) else None for v in values]
    return out


@contract(numbers="mapping", key="str", fmt="str", scale="real")
def seeds_text(numbers: Mapping[str, Any], key: str, fmt: str = "{:.2f}", scale: float = 1.0) -> str:
    """The seeds' values of ``key`` as prose, "0.71, 0.64, 0.58" (``<key>_seeds``, in the seeds' order; "n/a" for a
    value that is not finite; seed 0's alone where no list is stored)."""
    if key not in numbers and f"{key}_seeds" not in numbers:
        raise ValueError(f"key must name an entry of numbers ({key!r} or {key + '_seeds'!r}); got {key!r}, not among "
                         f"its {len(numbers)} keys")
    values = numbers.get(f"{key}_seeds", [numbers.get(key)])

    def text(v: Any) -> str:
        try:
            return fmt.format(scale * v)
        except (ValueError, TypeError, IndexError, KeyError) as err:
            raise ValueError(f"fmt must format one number (e.g. '{{:.2f}}'); {fmt!r} fails on {scale * v!r}: "
                             f"{err}") from None

    return ", ".join("n/a" if v is None or not np.isfinite(v) else text(v) for v in values)
