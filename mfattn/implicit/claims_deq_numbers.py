"""Chapter 2's stored numbers, flattened for its rules (:mod:`.claims` declares the claims that read them).

Chapter 2 reads the full-protocol MNIST runs (``data/full/deq_mnist_progress.json``: three seeds, 20 epochs on all
60,000 digits), their variant table (``data/full/deq_variants.json``, with the test digits each run got right), the
stored CPU run of seed 0 (``data/full/deq_mnist_seed0_cpu.npz``), the initialisation study
(``data/full/deq/init_scale.json``, with its digits) and the chapter's own numbers (``data/full/deq/summary.json``);
Chapter 3 its summary (``data/full/transformer/summary.json``). Everything here reads and derives: every number is
from a stored file, nothing is trained or re-run.

Every comparison of two trained variants is paired on the same 10,000 test digits in each seed; besides the pooled
result (the primary convention, :func:`mfattn.companion.stats.pooled_over_seeds`) the per-seed differences, their
within-seed variances and the discordant digits are stored as lists (``<key>_d``, ``_v``, ``_n10``, ``_n01``), so
that every alternative statistic a referee tries (:func:`mfattn.companion.premises.over_units`) reads them.

The paired comparisons of the trained models are made in :mod:`.claims_deq_variants`, the stored training frames
are read in :mod:`.claims_deq_frames` (both re-exported here); this module gathers their numbers with the
chapter's own and says them in prose.
"""

from __future__ import annotations

import math
import numbers
import os
from pathlib import Path
from typing import Any

import numpy as np

from mfattn.companion import stats, store  # noqa: F401
from mfattn.companion.checks import check_int, check_real

from .claims_deq_frames import _late_convergence, _norm_asymmetry, _organisation_numbers, _organisation_seeds, \
    _pearson  # noqa: F401
from .claims_deq_seeds import seed_values
from .claims_deq_variants import _below_floor, _did_not_learn, _floor_numbers, _gain_text, _init_numbers, \
    _pooled_gain, _variant_numbers, paired_seeds  # noqa: F401


#: The public names (:mod:`.claims` re-exports them); the helpers (``paired_seeds``, ``binomial_se``) and
#: those of :mod:`.claims_deq_seeds` serve the chapter's claim modules only.
__all__ = ["BAL", "BLOG_ACCURACY", "ACCURACY_BAND", "THREE_SE_10K", "REMEDY", "save", "deq_numbers", "full_numbers",
           "stored_numbers", "stored_cost_exponent", "stability_prose"]

BAL = "Bal 2021"
#: The blog's MNIST test accuracy (%) and the band around it within which a model meets that claim (points):
#: three binomial standard errors of a 10,000-digit accuracy near 99.1 % (3 × 0.094 = 0.28 points), the
#: noise of the blog's single run, rounded up to the blog's one decimal.
BLOG_ACCURACY, ACCURACY_BAND = 99.1, 0.3
#: Three binomial standard errors of a 10,000-digit accuracy near 99 % (3 × 0.0995 points), in points.
THREE_SE_10K = 0.3
REMEDY = {"deq": "`python -m mfattn reproduce --profile full --chapter deq` writes data/full/deq/summary.json from the "
                 "cached MNIST runs; the runs themselves: `python -m mfattn.implicit.train --profile full --seed 0 1 2` "
                 "(progress: data/full/deq_mnist_progress.json) and `python -m mfattn.implicit.variants --profile full "
                 "--seeds 0 1 2 --interactions --train`, then `... --out data/full/deq_variants.json` (the variant table)",
          "transformer": "`python -m mfattn reproduce --profile full --chapter transformer` writes "
                         "data/full/transformer/summary.json"}


def binomial_se(accuracy: float, n: int = 10_000) -> float:
    """Binomial standard error (points) of an accuracy ``accuracy`` (%, 0 to 100) measured on ``n`` (>= 1) digits."""
    check_real("accuracy", accuracy, minimum=0.0, maximum=100.0)
    check_int("n", n, 1)
    p = accuracy / 100
    return 100 * math.sqrt(p * (1 - p) / n)


def _band_check(s):
    """The band is three binomial SEs of a 10,000-digit accuracy at 99.1 % (0.28, rounded up to the blog's one decimal),
    and the seeds spread less than one such SE: the binomial noise, not the seed spread, is a single run's noise."""
    se = binomial_se(BLOG_ACCURACY)
    per_seed = [binomial_se(a) for a in s["acc_list"]]
    ok = 3 * se <= ACCURACY_BAND < 3 * se + 0.05 and s["acc_sd"] < se
    return ok, (f"3 binomial SEs at 99.1 %: {3 * se:.3f} points (per seed {', '.join(f'{x:.3f}' for x in per_seed)} "
                f"for one SE); seed-to-seed s.d. {s['acc_sd']:.3f}, {'below' if s['acc_sd'] < se else 'not below'} one SE")


def save(root: Path, chapter: str, summary: dict[str, Any]) -> Path:
    """Write a chapter's full-profile numbers to ``data/full/<chapter>/summary.json`` (atomically): numbers, and lists
    of numbers (every seed's ``<key>_seeds``, :mod:`mfattn.implicit.seed_numbers`); a value of another kind (text,
    an object) is a TypeError naming its key."""
    from collections.abc import Mapping

    from mfattn.companion.checks import check_path

    root = check_path("root", root)
    _check_chapter(chapter)
    if not isinstance(summary, Mapping):
        raise TypeError(f"summary must be a mapping of names to numbers; got {type(summary).__name__}")
    path = root / "data" / "full" / chapter / "summary.json"
    for k, v in summary.items():
        for x in (v if isinstance(v, (list, tuple)) else [v]):
            if not (x is None or isinstance(x, (bool, np.bool_, numbers.Real))
                    or (hasattr(x, "shape") and tuple(x.shape) == () and getattr(x, "dtype", None) is not None)):
                raise TypeError(f"summary[{k!r}] must be a number, a flag, None or a list of them; got "
                                f"{type(x).__name__} {x!r}"[:200])
            if isinstance(x, numbers.Real) and not isinstance(x, (bool, np.bool_)) and math.isinf(float(x)):
                # NaN is a missing number (stored as null); an infinity is no number the full profile measures
                raise ValueError(f"summary[{k!r}] must be finite (NaN where missing); got {x!r}")

    def number(v):
        return bool(v) if isinstance(v, (bool, np.bool_)) else None if v is None else float(v)

    store.atomic_write_json(path, store.finite_or_none(  # a missing (NaN) number is stored as null
        {k: ([number(x) for x in v] if isinstance(v, (list, tuple)) else number(v)) for k, v in summary.items()}))
    return path


# --- all of it ----------------------------------------------------------------------------------------------------

def _stored_files(fn):
    """``fn(root, ...)`` with an error from reading its stored files (a string where a number is stored, a list
    where a mapping is, a key a file of another version lacks) raised as a ValueError naming ``root`` and the
    folder: the files are not as the full profile writes them."""
    import functools

    @functools.wraps(fn)
    def reading(root, *args, **kwargs):
        try:
            return fn(root, *args, **kwargs)
        except (TypeError, KeyError, AttributeError, IndexError, ZeroDivisionError) as err:
            if isinstance(root, (str, os.PathLike)) and not type(err).__module__.startswith("mfattn"):
                what = (f"the key {err.args[0]!r:.60} is missing" if isinstance(err, KeyError) and err.args else
                        f"a value of the wrong kind where a number, a list or a mapping is stored "
                        f"({type(err).__name__})")
                raise ValueError(f"root: the stored files under {Path(root) / 'data' / 'full'} are not as the full "
                                 f"profile writes them: {what}; restore them from git or re-run the full profile") \
                    from None
            raise
    return reading


@_stored_files
def deq_numbers(root: Path | None) -> dict[str, Any]:
    """Numbers of Chapter 2's stored full-protocol results ({} when the MNIST runs, the variant table or the
    seed-0 run are not stored; the chapter's own summary adds its numbers where it is stored)."""
    _check_root(root)
    if root is None:
        return {}
    full = Path(root) / "data" / "full"
    progress = store.read_object(full / "deq_mnist_progress.json")
    table = store.read_object(full / "deq_variants.json")
    npz = full / "deq_mnist_seed0_cpu.npz"
    runs = [r for r in progress.get("runs", {}).values() if r and r.get("finished")]
    if not runs or not table.get("rows") or not npz.is_file():
        return {}
    acc = 100 * np.array([r["evals"]["test_accuracy"][-1] for r in runs])
    summary = store.read_object(full / "deq" / "summary.json")      # this chapter's own full-profile numbers
    if "rho_train_cross" in summary and "rho_train_stays" in summary:
        from .stability import crossing_text

        summary["rho_cross_text"] = "above 1 " + crossing_text(summary["rho_train_cross"], summary["rho_train_stays"])
    if "acc_step_1" in summary and "acc_fixed" in summary:
        summary["step_gap"] = 100 * (summary["acc_fixed"] - summary["acc_step_1"])
        steps = [summary[k] for k in summary if k.startswith("acc_step_") and not k.endswith("_seeds")
                 and summary[k] is not None]     # seed 0's budgets (the per-seed lists are read below)
        summary["step_gap_best"] = 100 * (summary["acc_fixed"] - max(steps))   # the best stored budget of plain steps
    if summary.get("acc_fixed_seeds") and summary.get("acc_step_1_seeds"):           # the same, seed by seed
        budgets = [k for k in summary if k.startswith("acc_step_") and k.endswith("_seeds")]
        per = [dict(zip(budgets, vals)) for vals in zip(*(summary[k] for k in budgets))]
        summary["step_gap_seeds"] = [100 * (f - a) for f, a in zip(summary["acc_fixed_seeds"], summary["acc_step_1_seeds"])]
        summary["step_gap_best_seeds"] = [100 * (f - max(v for v in p.values() if v is not None))
                                          for f, p in zip(summary["acc_fixed_seeds"], per)]
    frames = store.load_npz(npz)
    organisation = _organisation_numbers(frames["coupling_norms"], frames["snapshot_step"])
    if summary.get("analysis_seeds"):   # a chapter run that analysed every seed: their stored runs' frames too
        organisation.update(_organisation_seeds(full / "deq" / "runs"))
        organisation.update(_late_convergence(full / "deq" / "runs", "m"))
        organisation.update(_late_convergence(full / "deq" / "runs", "plain"))
    init = store.read_object(full / "deq" / "init_scale.json")
    out = {**summary, **_init_numbers(init.get("rows", [])), "seeds": len(acc), "acc_mean": acc.mean(),
            "acc_sd": acc.std(ddof=1) if len(acc) > 1 else float("nan"), "acc_min": acc.min(), "acc_max": acc.max(),
            "acc_median": float(np.median(acc)), "acc_list": [float(a) for a in acc],
            "accs": ", ".join(f"{a:.2f} %" for a in acc),
            **_variant_numbers(table["rows"]), **organisation}
    out.update(_did_not_learn(table["rows"], full / "deq" / "runs"))
    on_m = store.read_object(full / "deq" / "correction_on_m.json").get("rows", {}).get("m", [])
    if on_m:   # deq-correction-onsager-form on the models whose f_θ acts on the means (mfattn.implicit.correction_on_m)
        cos = [float(r["reaction_cosine"]) for r in sorted(on_m, key=lambda r: r["seed"])]
        out.update(corr_m_reaction_cosine=cos[0], corr_m_reaction_cosine_seeds=cos,
                   corr_m_chance_q95_seeds=[float(r["chance_q95"]) for r in sorted(on_m, key=lambda r: r["seed"])])
    earlier = store.read_object(full / "deq" / "earlier_runs.json").get("runs", [])
    for key in ("softmax", "mixer"):   # runs on older code, since re-run: a declared reading of the reliability claims
        out[f"earlier_{key}_acc_list"] = [100 * float(r["test_accuracy"]) for r in earlier if r.get("key") == key]
    floor_rows = store.read_object(full / "deq" / "feature_floor.json").get("rows", [])
    out.update(_floor_numbers(floor_rows))
    out.update(_below_floor(table["rows"], floor_rows))
    public = store.read_object(full / "deq" / "public_trained.json")
    if public:   # the blog model trained with the public code's solver in the loop (mfattn.implicit.public_trained)
        out.update(pub_trained_seed=public["seed"], pub_trained_acc=100 * public["test_accuracy"],
                   pub_trained_conv_last=public["book_protocol"]["converged_last_quarter"],
                   pub_trained_conv_all=public["book_protocol"]["converged_all"],
                   pub_trained_residual_final=public["book_protocol"]["residual_final"],
                   pub_trained_fwd_conv_last=public["training"]["forward_converged_last_quarter"],
                   pub_trained_bwd_full=public["training"]["backward_all_evaluations_share"])
    out.update({f"{k}_per_seed": ", ".join(f"{v:.3g}" for v in seed_values(out, k)) if k in out or f"{k}_seeds" in out
                else "not stored" for k in PER_SEED_TEXT})
    return out


#: Numbers whose seed-by-seed values the notes quote (``<key>_per_seed``: "v0, v1, v2", or seed 0's alone).
PER_SEED_TEXT = ("step_gap", "rho_train_change_corr", "res_train_change_corr", "rho_train_heldout_r2",
                 "rho_minus_jnorm_change_corr", "rho_minus_jnorm_change_se",
                 "res_train_heldout_r2", "corr_reaction_cosine", "corr_asymmetry", "epoch1_corr", "epoch1_closed",
                 "cls_row_share", "patch_row_share_max", "epoch1_corr_patch", "blog_conv_late",
                 "epoch1_corr_change", "corr_reaction_cosine_valid", "corr_sym_min_eig", "rho_train_corr",
                 "placebo_jnorm_corr", "placebo_logstep_corr", "placebo_jnorm_change_corr", "corr_chance_cosine",
                 "corr_chance_cosine_q95", "ref_anderson_conv", "ref_anderson_conv_last", "ref_anderson_residual_final",
                 "ref_anderson_first_miss", "row_share_init_spread")


def full_numbers(root: Path | None, chapter: str) -> dict[str, Any]:
    """The stored full-profile numbers of ``chapter`` ({} when absent); Chapter 2 reads its MNIST runs."""
    _check_root(root)
    _check_chapter(chapter)
    if chapter == "deq":
        return deq_numbers(root)
    path = None if root is None else Path(root) / "data" / "full" / chapter / "summary.json"
    return store.read_object(path) if path is not None and path.exists() else {}


def stored_numbers(root: Path | None, chapter: str) -> tuple[dict[str, Any], str]:
    """The numbers the rules of ``chapter`` ("deq" or "transformer") read ({} when not stored) and the commands
    that make them."""
    if not isinstance(chapter, str) or chapter not in REMEDY:
        raise ValueError(f"chapter must be 'deq' or 'transformer'; got {chapter!r}")
    return full_numbers(root, chapter), REMEDY[chapter]


def _check_chapter(chapter: Any) -> None:
    """A chapter's name: a folder name under data/full (letters, digits, '_', '-'), never a path."""
    import re

    if not isinstance(chapter, str):
        raise TypeError(f"chapter must be a chapter's name (a string such as 'deq'); got {type(chapter).__name__}")
    if not re.fullmatch(r"[A-Za-z0-9_-]{1,64}", chapter):   # a folder name: no path, and no name past 64 letters
        raise ValueError(f"chapter must be a chapter's name (1 to 64 letters, digits, '_', '-'); got {chapter!r:.80}")


def _check_root(root: Any) -> None:
    """A project folder (a path) or None (nothing stored)."""
    if root is not None and (isinstance(root, bool) or not isinstance(root, (str, os.PathLike))):
        raise TypeError(f"root must be the project folder (a path) or None; got {type(root).__name__}")
    if root is not None and Path(root).exists() and not Path(root).is_dir():   # /dev/null: no folder, not "nothing"
        raise ValueError(f"root must be the project folder (a folder); {root} is a file or a device")


@_stored_files
def stored_cost_exponent(root: Path | None) -> str:
    """The explicit layer's cost exponent of the stored full profile of Chapter 3, as prose (both chapters
    quote this one measurement); says so when it is not stored."""
    _check_root(root)
    s = full_numbers(root, "transformer")
    if "tap_slope" not in s:
        return "not stored yet (run the full profile of Chapter 3)"
    for k in ("tap_slope", "tap_fit_min_nd", "tap_fit_max_nd"):
        if k in s and (isinstance(s[k], bool) or not isinstance(s[k], (int, float))):
            raise ValueError(f"root: the stored {k} must be a number; got {s[k]!r:.60}")
    window = (f" over Nd = {s['tap_fit_min_nd']:.0f} to {s['tap_fit_max_nd']:.0f}" if "tap_fit_min_nd" in s
              else " over its three largest sizes")
    return f"exponent {s['tap_slope']:.2f}{window}"


def _share(x: float) -> str:
    """A fraction as a percentage that never reads 0 % or 100 % unless it is (99.8 %, not 100 %)."""
    text = f"{100 * x:.0f}%"
    return f"{math.floor(1000 * x) / 10:.1f}%" if text == "100%" and x < 1 else \
        f"{math.ceil(1000 * x) / 10:.1f}%" if text == "0%" and x > 0 else text


@_stored_files
def stability_prose(root: Path | None) -> str:
    """The stored full-profile stability numbers of Chapter 2 (``data/full/deq/summary.json``) as prose."""
    _check_root(root)
    s = {} if root is None else store.read_object(Path(root) / "data" / "full" / "deq" / "summary.json")
    if "rho_blog_median" not in s:
        return "not stored yet (data/full/deq/summary.json is written by the full profile of this chapter)"
    needed = ("stability_digits", "rho_blog_median", "rho_blog_max", "rho_blog_unstable", "rho_plain_median",
              "rho_plain_unstable", "acc_step_1", "acc_fixed")
    missing = [k for k in needed if k not in s]
    if missing:
        raise ValueError(f"root: {Path(root) / 'data' / 'full' / 'deq' / 'summary.json'} lacks {missing}, which the "
                         "stability prose quotes (a summary of another version: re-run the full profile)")
    for k in needed:
        x = s[k]
        if isinstance(x, bool) or not isinstance(x, (int, float)) or not math.isfinite(x):
            raise ValueError(f"root: the stored {k} must be a finite number; got {x!r:.60}")
        fraction = k.startswith(("acc_", "rho_blog_unstable", "rho_plain_unstable"))   # accuracies and shares
        if x < 0 or (fraction and x > 1):   # spectral radii and counts are >= 0, fractions in [0, 1]
            raise ValueError(f"root: the stored {k} must be {'in [0, 1]' if fraction else '>= 0'}; got {x!r:.60}")
    conv = (f"; Anderson reached the tolerance on {_share(s['blog_anderson_converged'])} of them with 100 evaluations"
            + (f" ({_share(s['blog_anderson_converged_40'])} within the blog's 40)" if "blog_anderson_converged_40" in s
               else "") + ", and over those "
            f"alone the median is {s['rho_blog_median_converged']:.2f}" if s.get("rho_blog_median_converged") is not None
            else "; over all of them, whether or not Anderson reached the tolerance: the stored run does not say which did")
    return (f"for seed 0 after 20 epochs, on {s['stability_digits']:.0f} test digits, the median is "
            f"{s['rho_blog_median']:.2f} (largest {s['rho_blog_max']:.2f}, {_share(s['rho_blog_unstable'])} above 1{conv}), and "
            f"for the model trained with plain iteration {s['rho_plain_median']:.2f} ({_share(s['rho_plain_unstable'])} "
            f"not below 1); one plain step from m = X classifies {100 * s['acc_step_1']:.1f}% of the test digits, "
            f"the fixed point {100 * s['acc_fixed']:.1f}%")


from ..companion.stored_views import guard_claims  # noqa: E402  (last: it wraps what this module defines)

guard_claims(globals())   # public functions read the stored numbers through a checked view
