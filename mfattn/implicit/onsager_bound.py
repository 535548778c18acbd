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
over each narrower range (β = 0.6 alone; 0.5 and 0.6; ...), per draw of SK data (the chapter's seeds)::

    python -m mfattn.implicit.onsager_bound --out data/full/transformer/onsager_bound.json
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Any, Optional, Sequence

import numpy as np
import torch

from ..companion.checks_scalars import _seed_option
from ..companion import store
from ..companion.checks import check_choice, contract
from ..companion.profiles import get_profile
from .onsager import OnsagerNet, _beta_weights, _local_field, onsager_dataset

__all__ = ["BINS", "site_variable", "binned_bound", "range_bounds", "two_part_stand_in", "main"]

#: The bin counts tried for the piecewise-constant conditional mean.
BINS = (10, 20, 50, 100)


_DATA = "mapping:J|h|m|c|beta"   # an Onsager data set (onsager_dataset's dict of tensors)


def _check_data(name: str, data: dict[str, Any], like: dict[str, Any] | None = None) -> None:
    """A ValueError (TypeError for a wrong type) naming ``name[key]`` unless ``data`` holds an Onsager data set as
    :func:`~mfattn.implicit.onsager.onsager_dataset` returns it: finite real tensors of one dtype, ``J`` (I, n, n),
    ``h``, ``m``, ``c`` (I, n), ``beta`` (I,), I, n >= 1; with ``like``, the same n and dtype as it."""
    from ..companion.checks import check_tensor

    for key in ("J", "h", "m", "c", "beta"):
        check_tensor(f"{name}[{key!r}]", data[key], ndim=3 if key == "J" else 1 if key == "beta" else 2, real=True)
    I, n = data["h"].shape
    want = {"J": (I, n, n), "h": (I, n), "m": (I, n), "c": (I, n), "beta": (I,)}
    for key, shape in want.items():
        if tuple(data[key].shape) != shape:
            raise ValueError(f"{name}[{key!r}] must have shape {shape} (I instances of n sites, as {name}['h']); got "
                             f"{tuple(data[key].shape)}")
        if data[key].dtype != data["h"].dtype:
            raise TypeError(f"{name}[{key!r}] must have {name}['h']'s dtype {data['h'].dtype}; got {data[key].dtype}")
    if I == 0 or n == 0:
        raise ValueError(f"{name} must hold at least one instance of at least one site; got I={I}, n={n}")
    if like is not None and (like["h"].shape[1] != n or like["h"].dtype != data["h"].dtype):
        raise ValueError(f"{name} must have train's sites and dtype (n={like['h'].shape[1]}, {like['h'].dtype}); got "
                         f"n={n}, {data['h'].dtype}")


def _check_pair(train: dict[str, Any], test: dict[str, Any]) -> list[float]:
    """Both data sets checked (:func:`_check_data`), the β they share (:func:`_shared_betas`); a ValueError naming
    ``test`` when its correction c is zero at one of them (a relative error of 0/0)."""
    _check_data("train", train)
    _check_data("test", test, like=train)
    betas = _shared_betas(train, test)
    for b in betas:
        if not bool(test["c"][(test["beta"] - b).abs() < 1e-12].any()):
            raise ValueError(f"test['c'] must not be all zero at β={b} (its relative error would be 0/0)")
    return betas


@contract(data=_DATA, inputs="choice:g|m")
def site_variable(data: dict[str, Any], inputs: str) -> torch.Tensor:
    """The scalar a site-wise net of ``inputs`` sees: g = h + J m (``"g"``) or m (``"m"``); (I, n)."""
    check_choice("inputs", inputs, ("g", "m"))
    _check_data("data", data)
    return _local_field(data) if inputs == "g" else data["m"]


def _shared_betas(train: dict[str, Any], test: dict[str, Any]) -> list[float]:
    """The β of both sets (the statistic's β), sorted; a ValueError naming ``test`` when they share none (the mean
    over no β would be NaN)."""
    betas = sorted(set(train["beta"].tolist()) & set(test["beta"].tolist()))
    if not betas:
        raise ValueError(f"test must hold instances at a training β (it is scored at the training β); train's β are "
                         f"{sorted(set(train['beta'].tolist()))}, test's {sorted(set(test['beta'].tolist()))}"[:300])
    return betas


def _per_beta_error(pred: torch.Tensor, test: dict[str, Any], betas: Sequence[float]) -> float:
    """The chapter's statistic: the mean over ``betas`` of each β's relative error pooled over instances and sites."""
    out = []
    for b in betas:
        sel = (test["beta"] - b).abs() < 1e-12
        out.append(float((pred[sel] - test["c"][sel]).norm() / test["c"][sel].norm()))
    return float(np.mean(out))


@contract(train=_DATA, test=_DATA, inputs="choice:g|m", bins="int:2",
          alloc=lambda a: [("bins", 64 * (a["bins"] + 1))])   # the quantile grid, its edges and the per-bin sums
def binned_bound(train: dict[str, Any], test: dict[str, Any], inputs: str = "g", bins: int = 50) -> dict[str, float]:
    """The β-weighted piecewise-constant E[c | x] (``bins`` training quantiles of x, :func:`site_variable`) and the
    β-weighted least-squares a·x, both fitted on ``train`` and scored on ``test`` at the training β: ``{"binned",
    "linear"}`` errors (1: no correction). ``test`` must share at least one β with ``train`` (else a ValueError)."""
    _check_pair(train, test)
    x_tr, x_te = site_variable(train, inputs).reshape(-1), site_variable(test, inputs)
    if not bool(x_tr.any()):
        raise ValueError(f"train: its site variable {inputs!r} is zero at every site (no coefficient a·x can be fitted)")
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


@contract(train=_DATA, test=_DATA, inputs="choice:g|m", bins="ints:2")
def range_bounds(train: dict[str, Any], test: dict[str, Any], inputs: str = "g",
                 bins: Sequence[int] = BINS) -> list[dict[str, Any]]:
    """For each training range from the largest β down (a single β first, the whole range last): its lower end, the
    best binned error over ``bins`` (and each), and the single coefficient's error."""
    _check_pair(train, test)
    rows = []
    for low in sorted(set(train["beta"].tolist()), reverse=True):
        tr, te = _restrict(train, low), _restrict(test, low)
        got = {k: binned_bound(tr, te, inputs, k) for k in bins}
        rows.append({"low": float(low), "binned": min(g["binned"] for g in got.values()),
                     "binned_by_bins": {str(k): g["binned"] for k, g in got.items()},
                     "linear": got[bins[0]]["linear"]})
    return rows


def _two_parts(data: dict[str, Any]) -> torch.Tensor:
    """The naive update kept in its two parts, the source h_i and the field of the other sites Σ_j J_ij m_j: (I, n, 2)
    (a transformer's X'_i is a d-vector, which can carry its parts apart; g_i is their sum)."""
    return torch.stack([data["h"], torch.einsum("bij,bj->bi", data["J"], data["m"])], dim=-1)


#: The 2-d bins tried per axis for the two-part conditional mean.
BINS_2D = (6, 10, 16)


@contract(train=_DATA, test=_DATA, hidden="int:1", steps="int:1", seed="int:0", bins="ints:2")
def two_part_stand_in(train: dict[str, Any], test: dict[str, Any], *, hidden: int = 32, steps: int = 3000,
                      seed: int = 0, bins: Sequence[int] = BINS_2D) -> dict[str, Any]:
    """transformer-ffn-amortises on a site state of two parts u_i = (h_i, Σ_j J_ij m_j) (the minimal vector stand-in):
    the β-weighted least-squares linear map a·u_i + b (its floor), the best function of u_i (a piecewise-constant
    conditional mean on ``bins`` × ``bins`` quantile cells, the best over ``bins``; an empty cell falls back to the
    linear map) and a site-wise net f_θ(u_i) (:class:`~mfattn.implicit.onsager.OnsagerNet`, ``hidden`` units, full-batch
    Adam with a cosine schedule for ``steps``, every training β weighted alike, ``seed``), each scored on ``test`` at
    the training β with the chapter's statistic: ``{"linear", "binned", "binned_by_bins", "net"}``. ``test`` must share
    at least one β with ``train`` (else a ValueError)."""
    _check_pair(train, test)
    u_tr, u_te = _two_parts(train).reshape(-1, 2), _two_parts(test)
    c = train["c"].reshape(-1)
    w = _beta_weights(train["beta"], c, train["c"].shape[-1])
    betas = sorted(set(train["beta"].tolist()) & set(test["beta"].tolist()))
    X = torch.cat([u_tr, torch.ones(len(u_tr), 1, dtype=u_tr.dtype)], dim=1)
    coef = torch.linalg.solve(X.T @ (w[:, None] * X), X.T @ (w * c))
    linear = lambda u: u @ coef[:2] + coef[2]   # noqa: E731
    out: dict[str, Any] = {"linear": _per_beta_error(linear(u_te), test, betas), "binned_by_bins": {}}
    for k in bins:
        edges = [torch.quantile(u_tr[:, j], torch.linspace(0, 1, k + 1, dtype=u_tr.dtype)[1:-1]) for j in range(2)]
        cell = lambda u: (torch.bucketize(u[..., 0].contiguous(), edges[0]) * k  # noqa: E731
                          + torch.bucketize(u[..., 1].contiguous(), edges[1]))
        ct = cell(u_tr)
        wsum = torch.zeros(k * k, dtype=c.dtype).index_add_(0, ct, w)
        mean = torch.zeros(k * k, dtype=c.dtype).index_add_(0, ct, w * c) / wsum.clamp_min(1e-300)
        ce = cell(u_te)
        pred = torch.where(wsum[ce] > 0, mean[ce], linear(u_te))
        out["binned_by_bins"][str(k)] = _per_beta_error(pred, test, betas)
    out["binned"] = min(out["binned_by_bins"].values())
    net = OnsagerNet(2, hidden, generator=torch.Generator().manual_seed(seed))
    with torch.no_grad():
        net.in_shift.copy_(u_tr.mean(dim=0)), net.in_scale.copy_(u_tr.std(dim=0).clamp_min(1e-12))
        net.out_scale.copy_(c.std().clamp_min(1e-12))
    opt = torch.optim.Adam(net.parameters(), lr=1e-2)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=steps)
    for _ in range(steps):      # the chapter's fit (onsager.fit_onsager_net, weight="beta") on the two-part input
        opt.zero_grad()
        loss = torch.sum(w * (net._predict(u_tr) - c) ** 2)   # forward unchecked: the two features are ours
        loss.backward()
        opt.step()
        sched.step()
    with torch.no_grad():
        out["net"] = _per_beta_error(net(u_te), test, betas)
    return out


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Draw each of the chapter's full-profile SK data sets again (seed + offset, as the chapter does), estimate the
    bound for g and m over every range, and write ``--out`` atomically."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--profile", default="full", choices=("quick", "full"))
    ap.add_argument("--seed", type=_seed_option, default=0, help="the chapter run's seed")
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
                      **{inputs: range_bounds(train, test, inputs) for inputs in ("g", "m")},
                      "two_part": two_part_stand_in(train, test, hidden=sizes["hidden"], steps=sizes["fit_steps"],
                                                    seed=seed),
                      # the same on each narrower range of coupling strengths, from the largest β down
                      "two_part_ranges": [{"low": float(low), **two_part_stand_in(
                          _restrict(train, low), _restrict(test, low), hidden=sizes["hidden"],
                          steps=sizes["fit_steps"], seed=seed)}
                          for low in sorted(set(train["beta"].tolist()), reverse=True)[:-1]]})
        two = draws[-1]["two_part"]
        print(f"draw {k}: g over the whole range: best function {draws[-1]['g'][-1]['binned']:.3f}, a·g "
              f"{draws[-1]['g'][-1]['linear']:.3f}; two parts: linear {two['linear']:.3f}, best function "
              f"{two['binned']:.3f}, net {two['net']:.3f}", flush=True)
    store.atomic_write_json(args.out, {"profile": args.profile, "bins": list(BINS), "draws": draws,
                                       "train_betas": sizes["train_betas"], "seconds": time.perf_counter() - t0})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
