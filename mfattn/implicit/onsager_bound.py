r"""What any correction of one site's scalar state can do in Chapter 3's stand-in for §4.3 (a referee's control).

transformer-ffn-amortises asks a site-wise net f_θ(g_i) to learn the adaptive-TAP correction c_i = V_i m_i of SK models
over a range of coupling strengths. Its input is one number per site, so no net can do better than the best function
of that number: the conditional mean E[c | g] under the loss the net is fitted with (every training β weighted alike,
:func:`mfattn.implicit.onsager._beta_weights`). If that bound is no better than the best single coefficient a·g_i, the
stand-in cannot show the net amortising anything that depends on its input, whatever the net learns: the claim is then
not decidable in this stand-in (the transformer's X'_i is a d-vector that may carry more).

The bound is estimated by binning: the training values of x (g_i or m_i) are cut at K quantiles, the β-weighted mean of
c in each bin is the prediction for every test value falling in it (a piecewise-constant E[c | x]), and its error is the
chapter's statistic on the held-out test instances (the mean over the training β of each β's relative error pooled
over its instances and sites). Several K are tried (coarse bins bias it up, fine ones add variance); the smallest
error is the estimate. The same for the best single coefficient a·x, beside it. Each over the whole training range and
over the two narrowest ranges (β = 0.6 alone; 0.5 and 0.6), per draw of SK data (the chapter's seeds)::

    python -m mfattn.implicit.onsager_bound --out data/full/transformer/onsager_bound.json
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Any, Optional, Sequence

import numpy as np
import torch

from ..companion import store
from ..companion.checks import check_choice, contract
from ..companion.profiles import get_profile
from .onsager import _beta_weights, _local_field, onsager_dataset

__all__ = ["BINS", "site_variable", "binned_bound", "range_bounds", "main"]

#: The bin counts tried for the piecewise-constant conditional mean.
BINS = (10, 20, 50, 100)


def site_variable(data: dict[str, Any], inputs: str) -> torch.Tensor:
    """The scalar a site-wise net of ``inputs`` sees: g = h + J m (``"g"``) or m (``"m"``); (I, n)."""
    check_choice("inputs", inputs, ("g", "m"))
    return _local_field(data) if inputs == "g" else data["m"]


def _per_beta_error(pred: torch.Tensor, test: dict[str, Any], betas: Sequence[float]) -> float:
    """The chapter's statistic: the mean over ``betas`` of each β's relative error pooled over instances and sites."""
    out = []
    for b in betas:
        sel = (test["beta"] - b).abs() < 1e-12
        out.append(float((pred[sel] - test["c"][sel]).norm() / test["c"][sel].norm()))
    return float(np.mean(out))


@contract(bins="int:2")
def binned_bound(train: dict[str, Any], test: dict[str, Any], inputs: str = "g", bins: int = 50) -> dict[str, float]:
    """The β-weighted piecewise-constant E[c | x] (``bins`` training quantiles of x, :func:`site_variable`) and the
    β-weighted least-squares a·x, both fitted on ``train`` and scored on ``test`` at the training β: ``{"binned",
    "linear"}`` errors (1: no correction)."""
    x_tr, x_te = site_variable(train, inputs).reshape(-1), site_variable(test, inputs)
    c_tr = train["c"].reshape(-1)
    w = _beta_weights(train["beta"], c_tr, train["c"].shape[-1])
    edges = torch.quantile(x_tr, torch.linspace(0, 1, bins + 1, dtype=x_tr.dtype)[1:-1])
    k_tr = torch.bucketize(x_tr, edges)
    wsum = torch.zeros(bins, dtype=c_tr.dtype).index_add_(0, k_tr, w)
    mean = torch.zeros(bins, dtype=c_tr.dtype).index_add_(0, k_tr, w * c_tr) / wsum.clamp_min(1e-300)
    pred_binned = mean[torch.bucketize(x_te.reshape(-1), edges)].reshape(x_te.shape)
    a = float((w * x_tr * c_tr).sum() / (w * x_tr * x_tr).sum())
    betas = sorted(set(train["beta"].tolist()) & set(test["beta"].tolist()))
    return {"binned": _per_beta_error(pred_binned, test, betas), "linear": _per_beta_error(a * x_te, test, betas)}


def _restrict(data: dict[str, Any], low: float) -> dict[str, Any]:
    keep = data["beta"] >= low - 1e-12
    return {k: data[k][keep] for k in ("J", "h", "m", "c", "beta")}


def range_bounds(train: dict[str, Any], test: dict[str, Any], inputs: str = "g",
                 bins: Sequence[int] = BINS) -> list[dict[str, Any]]:
    """For each training range from the largest β down (a single β first, the whole range last): its lower end, the
    best binned error over ``bins`` (and each), and the single coefficient's error."""
    rows = []
    for low in sorted(set(train["beta"].tolist()), reverse=True):
        tr, te = _restrict(train, low), _restrict(test, low)
        got = {k: binned_bound(tr, te, inputs, k) for k in bins}
        rows.append({"low": float(low), "binned": min(g["binned"] for g in got.values()),
                     "binned_by_bins": {str(k): g["binned"] for k, g in got.items()},
                     "linear": got[bins[0]]["linear"]})
    return rows


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Draw each of the chapter's full-profile SK data sets again (seed + offset, as the chapter does), estimate the
    bound for g and m over every range, and write ``--out`` atomically."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--profile", default="full", choices=("quick", "full"))
    ap.add_argument("--seed", type=int, default=0, help="the chapter run's seed")
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args(argv)
    torch.set_num_threads(1)
    store.check_file_target(args.out, "--out")
    sizes = get_profile("transformer", args.profile)
    t0, draws = time.perf_counter(), []
    for k in sizes["seed_offsets"]:
        seed = args.seed + k
        train = onsager_dataset(sizes["onsager_n"], sizes["train_betas"], sizes["train_instances"],
                                field_std=sizes["field_std"], seed=seed)
        test = onsager_dataset(sizes["onsager_n"], sizes["test_betas"], sizes["test_instances"],
                               field_std=sizes["field_std"], seed=seed + 1)
        draws.append({"offset": int(k), "seed": seed, "dropped": [int(train["dropped"]), int(test["dropped"])],
                      **{inputs: range_bounds(train, test, inputs) for inputs in ("g", "m")}})
        print(f"draw {k}: g over the whole range: best function {draws[-1]['g'][-1]['binned']:.3f}, a·g "
              f"{draws[-1]['g'][-1]['linear']:.3f}", flush=True)
    store.atomic_write_json(args.out, {"profile": args.profile, "bins": list(BINS), "draws": draws,
                                       "train_betas": sizes["train_betas"], "seconds": time.perf_counter() - t0})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
