"""A claim's key number in words, for the Reproduction report's table.

Why: the ledger names each number by the variable its claim computes (``tap_m``, ``acc_mean``); a reader of the
report needs what it measures and its unit ("RMSE of m, adaptive TAP", "mean test accuracy ... %"). The ledger's
entries say it in their *measured* sentence, too long for a table cell; this table gives the few words, one per
name the claims used as their key number when it was written. A name not listed (a claim added since) gets a label
derived from the name itself (:func:`key_words`), never the name as it stands; add its words here.
"""

from __future__ import annotations

import math
import re
from typing import Any

import numpy as np

from .checks import contract

__all__ = ["KEY_WORDS", "key_words", "key_text"]

#: name -> (words, unit): the unit follows the value ("%", "points", "×" or "" for a plain number).
KEY_WORDS: dict[str, tuple[str, str]] = {
    # chapter 1: Ising models and adaptive TAP
    "tap_m": ("RMSE of the magnetisations, adaptive TAP", ""),
    "naive_m": ("RMSE of the magnetisations, naive mean field", ""),
    "counterexamples": ("converged points with a χ not positive definite", ""),
    "vec_tight": ("largest deviation from the closed form", ""),
    "rms_c_exact": ("RMSE of the correlations, adaptive TAP", ""),
    "naive_c": ("RMSE of the correlations, naive mean field", ""),
    "tap_beyond_own": ("share of points beyond its own line with a stable solution, TAP", ""),
    # chapter 2: deep implicit attention
    "var_blog_conv_min": ("share of solves that converge, worst seed", ""),
    "plain_conv_max": ("share of solves that converge by plain iteration, best seed", ""),
    "cls_row_share": ("the cls site's share of the coupling weight", ""),
    "corr_reaction_cosine": ("squared cosine of the learned correction with the reaction term", ""),
    "epoch1_corr": ("correlation with the final couplings after epoch 1", ""),
    "corr_asymmetry": ("asymmetry of the couplings ‖M − Mᵀ‖/‖M + Mᵀ‖", ""),
    "grad_rel_error": ("relative error of the implicit gradient", ""),
    "init_conv_blog": ("share of solves that converge at the blog's scale", ""),
    "init_gain_lo": ("accuracy gain of the blog's scale, interval's lower end", "points"),
    "var_naive": ("test accuracy without the correction", "%"),
    "var_mixer_median": ("test accuracy with MLP-mixer couplings, median of seeds", "%"),
    "var_softmax_median": ("test accuracy with softmax couplings, median of seeds", "%"),
    "acc_mean": ("test accuracy, mean of 3 seeds", "%"),
    "acc_step_1": ("test accuracy (fraction) after one plain step", ""),
    "rho_train_first": ("median spectral radius ρ(∂f/∂m) at the first kept step", ""),
    # chapter 3: the transformer as a mean-field model
    "corr_in_m": ("relative error of the fitted correction f(m)", ""),
    "corr_in_ms": ("relative error of the fitted correction f(m, s)", ""),
    "tap_count_exponent": ("exponent of the operation count", ""),
    "off_block_split": ("share of the couplings outside the head blocks", ""),
    "max_dev_step": ("largest deviation from the transformer step", ""),
    "spread_nores": ("token spread without the source term", ""),
    # chapter 4: structural inference
    "bin_gate_error": ("largest deviation from sigmoid gates", ""),
    "bin_ffn_error": ("largest deviation from s σ(s/T)", ""),
    "enum_marginal_error": ("largest deviation of the edge marginals from softmax", ""),
    "ident_grad_error": ("largest deviation of the gradient identity", ""),
    "mask_max_error": ("largest deviation from masked softmax", ""),
    "hop_max_rise": ("largest relative rise of the Hopfield energy", ""),
    "keynorm_gap_equal": ("largest gap to softmax, keys of one norm", ""),
    "enum_error_cross_self": ("largest deviation of enumeration from attention", ""),
    "pc_rise": ("largest rise of the free energy", ""),
    "slot_paper_max_rise": ("largest relative worsening of the objective", ""),
    "slot_ari_slots": ("mean adjusted Rand index, slot attention", ""),
    "slot_forms_relation_error": ("largest relative deviation from the weighted mean", ""),
    "relpos_error": ("largest deviation from softmax with a position bias", ""),
    # chapter 5: new attention designs
    "loss_ratio_10_2": ("MSE ratio expanding / standard, d = 10, p = 1/2", ""),
    "code_loss_ratio_10_25": ("MSE ratio in the code's setting, d = 10, p = 1/25", ""),
    "near_rho_mean": ("mean rank correlation of window and parent's distance", ""),
    "ops_run_10_25": ("operations as run / full attention, d = 10, p = 1/25", ""),
    "ops_run_10_2": ("operations as run / full attention, d = 10, p = 1/2", ""),
    "ops_10_2": ("the paper's relative operations, d = 10, p = 1/2", ""),
    "ladder_estimate": ("MSE ratio of the digamma estimate's step", ""),
    "cavi_ratio_min": ("smallest MSE ratio CAVI / the paper's update", ""),
    "paper_elbo_grad": ("largest |∂ELBO/∂θ| at the paper's end state", ""),
    "bench_time_ratio_min_n": ("CPU time lazy window / full attention, shortest context", "×"),
    "far_lift_mean": ("mean lift of far parents over a blind window", ""),
    "nmse_one": ("held-out MSE / Var(y), one-layer attention", ""),
    "abl_nmse_one": ("held-out MSE / Var(y), one-layer attention, x₀ ~ N(0, 1)", ""),
    "premise_nmse_single_median": ("share of Var(y) one token leaves unexplained, median", ""),
    "mass_x1_multi": ("attention mass on x₁, multi-hop", ""),
    "replay_within": ("share of logged losses the replay matches", ""),
    # chapter 6: dynamical mean-field theory of self-attention
    "rho_birth": ("rotation number ρ where the torus is born", ""),
    "ns_beta": ("β of the Neimark-Sacker crossing", ""),
    "network_slope": ("log-log slope of the network's RMS error against N", ""),
}

#: Parts of a name that stand for a word (the fallback label of a name that :data:`KEY_WORDS` lacks).
_PARTS = {"abl": "ablation", "acc": "accuracy", "corr": "correlation", "err": "error", "max": "largest",
          "min": "smallest",
          "conv": "converged share", "rel": "relative", "nmse": "normalised MSE", "ops": "relative operations",
          "rho": "ρ", "beta": "β", "sd": "s.d.", "lo": "lower end", "hi": "upper end", "n": "count"}


#: Symbols spelled out in names that are otherwise words ("lambda_max at beta = 1.255").
_SYMBOLS = {"lambda_max": "λ_max", "lambda1": "λ₁", "betas": "β values", "beta": "β", "epsilon": "ε",
            "fig3a": "Fig. 3a"}
_SYMBOL = re.compile(r"\b(%s)\b" % "|".join(_SYMBOLS))


@contract(name="str")
def key_words(name: str) -> tuple[str, str]:
    """``(words, unit)`` of a key number's name: :data:`KEY_WORDS`, else a name already in words with its
    symbols written as symbols (``"first torus beta"`` -> ``"first torus β"``), else words derived from the
    name's parts (``"acc_seed_sd"`` -> ``"accuracy seed s.d."``)."""
    if not isinstance(name, str) or not name.strip():
        raise ValueError(f"name must be a key number's non-empty name; got {name!r}")
    if name in KEY_WORDS:
        return KEY_WORDS[name]
    if " " in name or "_" not in name and not re.search(r"\d", name):
        return _SYMBOL.sub(lambda m: _SYMBOLS[m.group(1)], name), ""
    parts = [p for p in re.split(r"_+", name) if p]
    return " ".join(_PARTS.get(p.lower(), p) for p in parts), ""


#: Key numbers whose words say they cannot be negative: an RMS or a largest deviation, a share, a ratio of MSEs or
#: operations, an accuracy, a squared cosine, a time.
_NON_NEGATIVE = re.compile(r"(RMSE|share of|largest (relative )?(deviation|gap)|relative error|(smallest )?MSE "
                           r"ratio|held-out MSE|test accuracy|operations|the paper's relative operations|CPU time|"
                           r"squared cosine|largest \|)")


@contract(name="str")
def key_text(name: str, value: Any) -> str:
    """The key number as a reader reads it: ``"words: value unit"``, floats to four significant digits. A NaN or
    infinity, a Python float or a numpy / torch number alike, is a ValueError naming ``value``; anything but a text or
    a real number (a ledger's numbers are one or the other: True/False, None, a list, an object) a TypeError."""
    if isinstance(value, (bool, np.bool_)) or hasattr(value, "dtype") and getattr(value.dtype, "kind", "") in ("b", "m", "M") \
            or getattr(value, "dtype", None) is not None and str(value.dtype) == "torch.bool":
        raise TypeError(f"value must be a real number or a text; got {type(value).__name__} {value!r:.60}")
    if not isinstance(value, (str, int, float)) and not hasattr(value, "dtype"):
        raise TypeError(f"value must be a real number or a text; got {type(value).__name__} {value!r:.60}")
    if isinstance(value, complex) or hasattr(value, "dtype") and getattr(value.dtype, "kind", "") == "c":
        raise TypeError(f"value must be a real number or a text; got the complex {value!r}")
    if isinstance(value, float) and not math.isfinite(value):
        raise ValueError(f"value must be finite (a ledger's numbers are); got {value!r}")
    if hasattr(value, "dtype") and not isinstance(value, (str, float)):   # numpy scalars and arrays, torch tensors
        if getattr(value, "ndim", 0) != 0:
            raise TypeError(f"value must be one number or a text; got {type(value).__name__} of shape "
                            f"{tuple(getattr(value, 'shape', ()))}")
        try:
            finite = math.isfinite(float(value))
        except (TypeError, ValueError, RuntimeError, OverflowError):   # a meta tensor, a date: not a number
            raise TypeError(f"value must be a real number or a text; got {type(value).__name__} {value!r:.60}") from None
        if not finite:
            raise ValueError(f"value must be finite (a ledger's numbers are); got {value!r:.60}")
        if not isinstance(value, (int, float)):   # a numpy or torch number as its value ('tensor(2.)' is no text)
            value = value.item()
    words, unit = key_words(name)
    if not isinstance(value, str) and value < 0 and _NON_NEGATIVE.match(words):
        raise ValueError(f"value must be >= 0 for {name!r} ({words}: an error, share, ratio, count or time); got "
                         f"{value!r:.60}")
    shown = f"{value:.4g}" if isinstance(value, float) else str(value)
    if unit == "%":
        shown += " %"
    elif unit == "×":
        shown += "×"
    elif unit:
        shown += f" {unit}"
    return f"{words}: {shown}"
