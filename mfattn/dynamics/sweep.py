"""Long bifurcation sweeps over a β grid: chunked over β, reduced online over time, resumable.

A sweep never keeps a whole trajectory: each block of saved ``m^o`` steps is reduced on the fly to
the paper's band section, a true Poincaré section, fine levels of ``m^o_1`` (to count bins with any
``max_y`` afterwards), the extent and the period of the last steps. Chunks of β are written atomically
(:mod:`mfattn.companion.store`), so an interrupted sweep resumes where it stopped with the same result
(a β's orbit does not depend on its batch, see :mod:`~mfattn.dynamics.engine`).
:func:`bifurcation_diagram` is the paper's Fig. 3 protocol; :func:`save_diagram` stores what a
figure needs.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ..companion import store
from ..companion.checks import check_int as _check_int
from ..companion.checks import check_real
from .diagnostics import classify, orbit_period, quantize
from .engine import _grid, _progress, _steps, simulate
from .model import MeanFieldModel, load_context, paper_model

__all__ = ["LEVELS", "SweepResult", "sweep", "bifurcation_diagram", "save_diagram"]

LEVELS = 2 ** 16  # fine quantisation of m^o_1 on [-1, 1] kept per β to recount bins with any max_y


@dataclass
class SweepResult:
    """Per-β summaries of a bifurcation sweep (ragged lists have one array per β).

    band : m^o_1 where |m^o_2| <= band width (the paper's section).
    poincare : m^o_1 at upward zero crossings of m^o_2 (interpolated).
    levels : sorted distinct fine levels of m^o_1 (``LEVELS`` on [−1, 1]; |m^o| <= 1 always).
    extent : (B, 2) min and max of m^o over all features (the paper's max_y is max |extent|).
    period : (B,) period of the orbit (0 = none found); lyapunov : (B,) or None.
    contexts : final contexts, batched.
    """

    betas: np.ndarray
    gamma: np.ndarray
    epsilon: np.ndarray
    band: list
    poincare: list
    levels: list
    extent: np.ndarray
    period: np.ndarray
    lyapunov: np.ndarray | None
    contexts: dict
    config: dict

    @property
    def max_y(self) -> float:
        return float(np.abs(self.extent).max())

    def bin_counts(self, max_y: float | None = None, bins: int = 5001) -> np.ndarray:
        """Distinct bins of ``bins`` over [−max_y, max_y] occupied by m^o_1 (paper's rule), per β."""
        my = self.max_y if max_y is None else max_y
        counts = np.empty(len(self.levels), dtype=np.int64)
        for i, lv in enumerate(self.levels):
            centre = (lv.astype(np.float64) + 0.5) / LEVELS * 2 - 1
            counts[i] = np.unique(quantize(centre, my, bins)).size
        return counts

    def classes(self, max_y: float | None = None) -> np.ndarray:
        return classify(self.bin_counts(max_y))

    def periodic_points(self, i: int, bins: int = 5001) -> np.ndarray:
        """The distinct m^o_1 values of β_i (bin centres), what the paper plots for periodic orbits."""
        lv = self.levels[i]
        return (lv.astype(np.float64) + 0.5) / LEVELS * 2 - 1


def _ragged_pack(arrays, dtype):
    sizes = np.array([a.size for a in arrays], dtype=np.int64)
    flat = np.concatenate([np.asarray(a, dtype=dtype) for a in arrays]) if arrays else np.zeros(0, dtype)
    return flat, sizes


def _ragged_unpack(flat, sizes):
    return np.split(flat, np.cumsum(sizes)[:-1])


def _sweep_chunk(betas, gamma, epsilon, init, steps, transient, model, backend, device, lyapunov,
                 band_width, max_period, period_tol, tangent_seed, progress=False):
    B = betas.size
    M = model.num_features
    band = [[] for _ in range(B)]
    cross = [[] for _ in range(B)]
    n_total = steps - transient
    levels = np.empty((n_total, B), dtype=np.uint16)  # time-major, like the blocks
    lo = np.full(B, np.inf)
    hi = np.full(B, -np.inf)
    prev = {"last": None}
    tail_len = min(2 * max_period + 1, steps - transient)
    tail = np.empty((B, tail_len, M))

    def reduce(t0, blk):  # blk (nb, M, B), time-major
        nb = blk.shape[0]
        y, z = blk[:, 0, :], blk[:, 1, :]
        np.minimum(lo, blk.min(axis=(0, 1)), out=lo)
        np.maximum(hi, blk.max(axis=(0, 1)), out=hi)
        i0 = t0 - transient
        levels[i0:i0 + nb] = np.clip(((y + 1) / 2 * LEVELS).astype(np.int64), 0, LEVELS - 1)
        _collect(band, y.T, np.abs(z.T) <= band_width)
        if prev["last"] is not None:
            y = np.concatenate([prev["last"][None, 0], y], axis=0)
            z = np.concatenate([prev["last"][None, 1], z], axis=0)
        yT, zT = y.T, z.T
        up = (zT[:, :-1] < 0) & (zT[:, 1:] >= 0)
        rows, cols = np.nonzero(up)
        frac = -zT[rows, cols] / (zT[rows, cols + 1] - zT[rows, cols])
        vals = yT[rows, cols] + frac * (yT[rows, cols + 1] - yT[rows, cols])
        _split_append(cross, rows, vals, B)
        prev["last"] = blk[-1].copy()
        end = i0 + nb
        first_tail = n_total - tail_len
        if end > first_tail:
            a = max(i0, first_tail)
            tail[:, a - first_tail:end - first_tail] = blk[a - i0:].transpose(2, 0, 1)

    res = simulate(betas, steps, transient, init, gamma=gamma, epsilon=epsilon, model=model, backend=backend,
                   device=device, save=False, lyapunov=lyapunov, tangent_seed=tangent_seed,
                   block_callback=reduce, progress=progress)
    levels = np.sort(levels.T, axis=1)
    lv_list = []
    for row in levels:
        keep = np.concatenate([[True], row[1:] != row[:-1]])
        lv_list.append(row[keep])
    period = np.zeros(B, dtype=np.int64)
    few = [i for i in range(B) if lv_list[i].size <= 4 * max_period]
    if few:
        period[few] = orbit_period(tail[few], max_period, period_tol)
    out = {
        "betas": betas, "gamma": gamma, "epsilon": epsilon,
        "extent": np.stack([lo, hi], axis=1),
        "period": period,
        "lyapunov": res.lyapunov if lyapunov else np.full(B, np.nan),
    }
    for name, lists in (("band", band), ("poincare", cross)):
        arrays = [np.concatenate(v) if v else np.zeros(0, np.float32) for v in lists]
        out[name], out[name + "_sizes"] = _ragged_pack(arrays, np.float32)
    out["levels"], out["levels_sizes"] = _ragged_pack(lv_list, np.uint16)
    for k, v in res.context.items():
        out["ctx_" + k] = v
    return out


def _split_append(lists, rows, vals, B):
    """Append vals (grouped by sorted ``rows``) to ``lists[row]`` as float32 pieces."""
    split = np.searchsorted(rows, np.arange(1, B))
    for i, v in enumerate(np.split(vals, split)):
        if v.size:
            lists[i].append(v.astype(np.float32))


def _collect(lists, y, mask):
    rows, cols = np.nonzero(mask)
    _split_append(lists, rows, y[rows, cols], mask.shape[0])


def sweep(betas, steps: int = 120_000, transient: int = 100_000, init: Any = "token", *, gamma=220.0,
          epsilon=0.02, model: MeanFieldModel | None = None, backend: str = "numpy", device=None,
          lyapunov: bool = False, chunk_size: int = 4001, out_dir: str | Path | None = None,
          band_width: float = 1e-3, max_period: int = 500, period_tol: float = 1e-9,
          tangent_seed: int = 0, progress: bool | None = None) -> SweepResult:
    """A bifurcation sweep over a β grid (and γ, ε), summarised per β, resumable.

    The grid is cut into chunks of ``chunk_size`` points; each chunk is simulated as one batch and
    reduced on the fly (the paper's band section, the Poincaré section, fine levels for bin
    counting, the extent, the period from the last ``2 max_period + 1`` steps, λ_max if asked),
    then written atomically to ``out_dir/chunk-XXXXX.npz``. A rerun with the same configuration
    reads the chunks already written and computes only the missing ones; since a β's trajectory
    does not depend on its batch, the result is identical to an uninterrupted run.

    ``init`` is ``"token"`` or a context (unbatched, shared by all β, or batched over the grid).
    """
    _steps(steps, transient)
    model = model or paper_model()
    b, g, e = _grid(betas, gamma, epsilon)
    _check_int("chunk_size", chunk_size, 1)
    check_real("band_width", band_width, minimum=0.0, strict=True)
    _check_int("max_period", max_period, 1)
    check_real("period_tol", period_tol, minimum=0.0, strict=True)
    B = b.size
    if isinstance(init, (Path,)) or (isinstance(init, str) and init != "token"):
        init = load_context(init)
    if not isinstance(init, str) and "att_window" not in init:
        raise ValueError(f"init: the context lacks 'att_window' (keys given: {sorted(init)})")
    batched_init = (not isinstance(init, str)) and np.asarray(init["att_window"]).ndim == 2
    if batched_init and np.asarray(init["att_window"]).shape[0] != B:
        raise ValueError(f"init: a batched context must hold one context per β: {B} β but "
                         f"{np.asarray(init['att_window']).shape[0]} contexts")
    config = {"betas": b, "gamma": g, "epsilon": e, "steps": steps, "transient": transient,
              "init": init if isinstance(init, str) else {k: np.asarray(v) for k, v in init.items()},
              "model": {"o": model.o_classes, "coef": model.coef, "pe": model.positional, "tok": model.token},
              "backend": backend, "lyapunov": lyapunov, "band_width": band_width, "max_period": max_period,
              "period_tol": period_tol, "tangent_seed": tangent_seed, "chunk_size": chunk_size, "version": 1}
    key = store.config_hash(config)
    folder = store.make_folder(Path(out_dir), "out_dir") / key if out_dir is not None else None
    chunks = []
    starts = list(range(0, B, chunk_size))
    pbar = _progress(len(starts), progress, "β chunks")
    for ci, s0 in enumerate(starts):
        sl = slice(s0, min(s0 + chunk_size, B))
        path = folder / f"chunk-{ci:05d}.npz" if folder is not None else None
        if path is not None and path.exists():
            chunks.append(store.load_npz(path))
        else:
            ini = init
            if batched_init:
                ini = {k: np.asarray(v)[sl] for k, v in init.items()}
            data = _sweep_chunk(b[sl], g[sl], e[sl], ini, steps, transient, model, backend, device, lyapunov,
                                band_width, max_period, period_tol, tangent_seed, progress)
            if path is not None:
                store.atomic_save_npz(path, **data)
                data = store.load_npz(path)
            chunks.append(data)
        if pbar is not None:
            pbar.update(1)
    if pbar is not None:
        pbar.close()
    cat = lambda k: np.concatenate([c[k] for c in chunks])  # noqa: E731
    ragged = {}
    for name in ("band", "poincare", "levels"):
        ragged[name] = [a for c in chunks for a in _ragged_unpack(c[name], c[name + "_sizes"])]
    lyap = cat("lyapunov") if lyapunov else None
    ctx = {k[4:]: cat(k) for k in chunks[0] if k.startswith("ctx_")}
    return SweepResult(b, g, e, ragged["band"], ragged["poincare"], ragged["levels"], cat("extent"),
                       cat("period"), lyap, ctx, {k: v for k, v in config.items() if k not in ("model",)})


def bifurcation_diagram(betas, steps: int = 120_000, transient: int = 100_000, *, context: Any = None,
                        gamma=220.0, epsilon=0.02, model: MeanFieldModel | None = None, backend: str = "numpy",
                        device=None, lyapunov: bool = True, chunk_size: int = 4001,
                        out_dir: str | Path | None = None, progress: bool | None = None):
    """The paper's Fig 3 protocol: run the grid's last β from the token for ``steps`` steps, keep
    its final context, then run every β of the grid from that context (:func:`sweep`).

    ``context`` replaces the first run by a given context. Returns ``(SweepResult, context)``.
    """
    b, g, e = _grid(betas, gamma, epsilon)
    model = model or paper_model()
    if context is None:
        context = simulate(b[-1:], steps, steps - 1, "token", gamma=g[-1], epsilon=e[-1], model=model,
                           backend=backend, device=device).context_of(0)
    res = sweep(b, steps, transient, context, gamma=g, epsilon=e, model=model, backend=backend, device=device,
                lyapunov=lyapunov, chunk_size=chunk_size, out_dir=out_dir, progress=progress)
    return res, context


def save_diagram(path: str | Path, res: SweepResult, levels: int = 2 ** 14) -> Path:
    """Write the small part of a sweep a figure needs, atomically, as a compressed ``.npz``.

    Section points are stored as their distinct levels on a grid of ``levels`` values over [−1, 1]
    (|m^o| <= 1; resolution 1.2e-4, finer than the paper's 5001 bins), which keeps a 4001-β diagram at
    a few MB. Keys: ``betas, gamma, epsilon`` (B,); ``band`` / ``poincare`` (uint16 levels, packed,
    with ``*_sizes`` per β; value = level / (levels − 1) · 2 − 1); ``bin_counts, classes, period``
    (B,); ``lyapunov`` (B,, NaN if not computed); ``max_y``; ``levels``. Unpack a ragged key with
    ``np.split(x, np.cumsum(x_sizes)[:-1])``.
    """
    def distinct(points):
        q = np.clip(np.rint((np.asarray(points, dtype=np.float64) + 1) / 2 * (levels - 1)), 0, levels - 1)
        return np.unique(q.astype(np.uint16))

    band, band_sizes = _ragged_pack([distinct(p) for p in res.band], np.uint16)
    cross, cross_sizes = _ragged_pack([distinct(p) for p in res.poincare], np.uint16)
    counts = res.bin_counts()
    lyap = res.lyapunov if res.lyapunov is not None else np.full(res.betas.size, np.nan)
    return store.atomic_save_npz(path, betas=res.betas, gamma=res.gamma, epsilon=res.epsilon, band=band,
                                 band_sizes=band_sizes, poincare=cross, poincare_sizes=cross_sizes,
                                 bin_counts=counts, classes=classify(counts), period=res.period,
                                 lyapunov=lyap, max_y=np.float64(res.max_y), levels=np.int64(levels))
