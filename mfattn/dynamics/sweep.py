"""Long bifurcation sweeps over a β grid: chunked over β, reduced online over time, resumable.

A sweep never keeps a whole trajectory: each block of saved ``m^o`` steps is reduced on the fly to
the paper's band section, the stroboscopic section (the last states at steps t ≡ 0 mod L: the map is
forced with period L, so these are points of the attractor), fine levels of ``m^o_1`` (2^32 on [−1, 1]: they
give the paper's bin count for any ``max_y`` afterwards, exactly wherever no level straddles a bin edge, and the
few β where one does are re-run and counted value by value), the extent and the period of the last steps. Chunks of β are written atomically
(:mod:`mfattn.companion.store`), so an interrupted sweep resumes where it stopped with the same result
(a β's orbit does not depend on its batch, see :mod:`~mfattn.dynamics.engine`).
:func:`bifurcation_diagram` is the paper's Fig. 3 protocol; :func:`save_diagram` stores what a
figure needs.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

import numpy as np

from ..companion import caches, store
from ..companion.checks import check_int as _check_int, contract
from ..companion.checks import check_array, check_bool, check_real
from .diagnostics import bin_count_bounds, bin_counts, classify, orbit_period, quantize
from .engine import _grid, _progress, _steps, simulate
from .model import MeanFieldModel, load_context, paper_model

__all__ = ["LEVELS", "SweepResult", "sweep", "sweep_many", "bifurcation_diagram", "all_values_image", "save_diagram"]

#: Fine quantisation of m^o_1 on [−1, 1] kept per β (as uint32) to count the paper's bins for any max_y: a level
#: (4.7e-10 wide) straddles one of the 5001 bin edges (bins 3.9e-4 wide at max_y ≈ 0.96) with probability ~1e-6,
#: so the count is exact from the levels at nearly every β and the rest are re-run (:meth:`SweepResult.bin_counts`).
LEVELS = 2 ** 32


@dataclass
class SweepResult:
    """Per-β summaries of a bifurcation sweep (ragged lists have one array per β).

    band : m^o_1 where |m^o_2| <= band width (the paper's section).
    strobe : (B, K, M) float32, the last K saved states m^o_t with t ≡ 0 (mod L), oldest first (the
        stroboscopic section of the period-L forced map; K = ``strobe_points`` or fewer).
    levels : sorted distinct fine levels of m^o_1 (uint32, ``LEVELS`` on [−1, 1]; |m^o| <= 1 always).
    extent : (B, 2) min and max of m^o over all features after the transient.
    period : (B,) period of the orbit (0 = none found); lyapunov : (B,) or None.
    contexts : final contexts, batched.
    """

    betas: np.ndarray
    gamma: np.ndarray
    epsilon: np.ndarray
    band: list
    strobe: np.ndarray
    levels: list
    extent: np.ndarray
    period: np.ndarray
    lyapunov: np.ndarray | None
    contexts: dict
    config: dict
    model: MeanFieldModel | None = None
    _exact: dict = field(default_factory=dict, repr=False)

    def __post_init__(self):
        """A result built by hand (or by ``dataclasses.replace``) must hold one entry per β in every field (cheap:
        shapes and lengths only)."""
        shape = np.shape(self.betas)
        if len(shape) != 1:
            raise ValueError(f"betas must be a 1-d grid; got shape {shape}")
        B = shape[0]
        for name, want in (("gamma", (B,)), ("epsilon", (B,)), ("extent", (B, 2)), ("period", (B,)),
                           ("lyapunov", (B,))):
            value = getattr(self, name)
            if not (value is None and name == "lyapunov") and np.shape(value) != want:
                raise ValueError(f"{name} must have shape {want}, one entry per β of betas; got {np.shape(value)}")
        for name in ("band", "levels"):
            value = getattr(self, name)
            if isinstance(value, (str, bytes)) or not hasattr(value, "__len__") or len(value) != B:
                raise ValueError(f"{name} must be a list of one array per β ({B})")
        if np.ndim(self.strobe) != 3 or np.shape(self.strobe)[0] != B:
            raise ValueError(f"strobe must have shape (B, K, M) with B = {B}; got {np.shape(self.strobe)}")
        for name in ("contexts", "config"):
            if not isinstance(getattr(self, name), dict):
                raise TypeError(f"{name} must be a dict; got {type(getattr(self, name)).__name__}")
            value = getattr(self, name)   # kept as a plain dict of what it holds (a subclass's items() may differ)
            setattr(self, name, {k: dict.__getitem__(value, k) for k in dict.keys(value)})
        if "steps" in self.config or "transient" in self.config:   # the run's protocol, read back by subset and
            _steps(self.config.get("steps"), self.config.get("transient"))   # the figures: whole numbers, t < T
        for key, value in self.contexts.items():
            if np.ndim(value) < 1 or np.shape(value)[0] != B:
                raise ValueError(f"contexts[{key!r}] must have a leading axis of the {B} β; got shape {np.shape(value)}")
        if self.model is not None and not isinstance(self.model, MeanFieldModel):
            raise TypeError(f"model must be None or a MeanFieldModel; got {type(self.model).__name__}")

    def _check_scale(self, max_y) -> None:
        """A given ``max_y`` must cover this sweep's values: the paper's scale is the largest |m^o| of the whole
        diagram, which holds these β (so it is at least :attr:`max_y`)."""
        if max_y is not None:
            check_real("max_y", max_y, minimum=0.0, strict=True)
            if max_y < self.max_y:
                raise ValueError(f"max_y must be at least this sweep's own scale {self.max_y!r} (the largest |m^o| of "
                                 f"the whole diagram, which holds these β; bins over [-max_y, max_y] would miss values); "
                                 f"got {max_y!r}")

    @property
    def max_y(self) -> float:
        """The paper's bin scale, as its plotting code computes it: ``max(|min|, |max|)`` of every saved m^o
        (all features, all β of the diagram; the transient is not saved, so it is not scanned)."""
        return float(max(-self.extent[:, 0].min(), self.extent[:, 1].max()))

    def bin_count_bounds(self, max_y: float | None = None, bins: int = 5001) -> tuple[np.ndarray, np.ndarray]:
        """(lo, hi) bounds of the paper's exact bin count per β (:func:`~.diagnostics.bin_count_bounds`). Any ``bins``
        whose paper bins are wider than a fine level (``2 max_y / bins > 2 / LEVELS``, e.g. 10⁶ bins) is valid; finer
        bins are refused there. ``max_y`` below this sweep's own scale is refused."""
        self._check_scale(max_y)
        return bin_count_bounds(self.levels, self.max_y if max_y is None else max_y, LEVELS, bins)

    def bin_counts(self, max_y: float | None = None, bins: int = 5001) -> np.ndarray:
        """The paper's bin count itself for every β: the distinct ``int(bins (v/max_y + 1)/2)`` over every saved
        m^o_1. Read off the fine levels where both bounds meet (no level straddles a bin edge), counted value by
        value after re-running the β elsewhere (:meth:`exact_counts`, the β of :meth:`undecided`)."""
        lo, hi = self.bin_count_bounds(max_y, bins)
        out = lo.copy()
        idx = np.nonzero(lo != hi)[0]
        if idx.size:
            out[idx] = self.exact_counts(idx, max_y, bins)
        return out

    def undecided(self, max_y: float | None = None, bins: int = 5001) -> np.ndarray:
        """Indices of β whose count the fine levels leave open (lower bound < upper bound: a level straddles a
        bin edge); :meth:`bin_counts` re-runs them and counts every saved value."""
        lo, hi = self.bin_count_bounds(max_y, bins)
        return np.nonzero(lo != hi)[0]

    def exact_counts(self, idx, max_y: float | None = None, bins: int = 5001) -> np.ndarray:
        """The paper's exact bin count for the β at ``idx``, by re-running them from their start (a β's
        orbit does not depend on its batch, so it is the sweep's orbit) and counting every saved value. ``idx``: a
        non-empty 1-d array of indices of β (``-B <= i < B``)."""
        self._check_scale(max_y)
        B = self.betas.size
        where = check_array("idx", idx, ndim=1, integer=True)
        if where.size == 0 or where.min() < -B or where.max() >= B:
            raise ValueError(f"idx must hold indices of this sweep's {B} β, in [{-B}, {B - 1}], at least one; got "
                             f"{where.tolist()!r}"[:200])
        idx = np.asarray(idx, dtype=np.int64)
        key = (tuple(idx.tolist()), max_y, bins)
        if key not in self._exact:
            c = self.config
            init = c["init"]
            if not isinstance(init, str) and np.asarray(init["att_window"]).ndim == 2:
                init = {k: np.asarray(v)[idx] for k, v in init.items()}
            run = simulate(self.betas[idx], c["steps"], c["transient"], init, gamma=self.gamma[idx],
                           epsilon=self.epsilon[idx], model=self.model, backend="numpy")
            self._exact[key] = bin_counts(run.m_o[:, :, 0], self.max_y if max_y is None else max_y, bins)
        return self._exact[key]

    def classes(self, max_y: float | None = None) -> np.ndarray:
        return classify(self.bin_counts(max_y))

    def subset(self, sl: slice) -> "SweepResult":
        """The β in ``sl`` as a sweep of their own (a β's orbit does not depend on its batch, so it is what a sweep of
        those β alone gives); its bin scale ``max_y`` is theirs."""
        if not isinstance(sl, slice):
            raise TypeError(f"sl must be a slice; got {type(sl).__name__}")
        init = self.config["init"]
        if not isinstance(init, str) and np.asarray(init["att_window"]).ndim == 2:
            init = {k: np.asarray(v)[sl] for k, v in init.items()}
        config = {**self.config, "betas": self.betas[sl], "gamma": self.gamma[sl], "epsilon": self.epsilon[sl],
                  "init": init}
        return SweepResult(self.betas[sl], self.gamma[sl], self.epsilon[sl], self.band[sl], self.strobe[sl],
                           self.levels[sl], self.extent[sl], self.period[sl],
                           None if self.lyapunov is None else self.lyapunov[sl],
                           {k: v[sl] for k, v in self.contexts.items()}, config, self.model)

    def periodic_points(self, i: int, bins: int = 5001) -> np.ndarray:
        """What the paper plots for a periodic orbit: the distinct values of its m^o_1 quantised on the ``bins``
        bins of the diagram's scale (the lower edge of each occupied bin, ``(k / bins · 2 − 1) max_y``; fewer
        than 80 points for the periodic class, however slowly the orbit converged in the fine levels). ``i``: the
        index of a β (``-B <= i < B``)."""
        _check_int("i", i, -self.betas.size, self.betas.size - 1)
        v = (self.levels[i].astype(np.float64) + 0.5) / LEVELS * 2 - 1
        k = np.unique(quantize(v, self.max_y, bins))
        return (k / bins * 2 - 1) * self.max_y


def _ragged_pack(arrays, dtype):
    sizes = np.array([a.size for a in arrays], dtype=np.int64)
    flat = np.concatenate([np.asarray(a, dtype=dtype) for a in arrays]) if arrays else np.zeros(0, dtype)
    return flat, sizes


def _ragged_unpack(flat, sizes):
    return np.split(flat, np.cumsum(sizes)[:-1])


def _sweep_chunk(betas, gamma, epsilon, init, steps, transient, model, backend, device, lyapunov,
                 band_width, max_period, period_tol, tangent_seed, progress=False, strobe_points=1000):
    B = betas.size
    M = model.num_features
    band = [[] for _ in range(B)]
    L = model.context_size
    last = steps - 1 - (steps - 1) % L  # the last strobe_points steps t ≡ 0 mod L (no array of every step)
    strobe_t = np.arange(last, max(transient - 1, last - L * strobe_points), -L)[::-1]
    strobe = np.empty((B, strobe_t.size, M), dtype=np.float32)
    n_total = steps - transient
    levels = np.empty((n_total, B), dtype=np.uint32)  # time-major, like the blocks
    lo = np.full(B, np.inf)
    hi = np.full(B, -np.inf)
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
        k = np.nonzero((strobe_t >= t0) & (strobe_t < t0 + nb))[0]
        if k.size:
            strobe[:, k] = blk[strobe_t[k] - t0].transpose(2, 0, 1)
        end = i0 + nb
        first_tail = n_total - tail_len
        if end > first_tail:
            a = max(i0, first_tail)
            tail[:, a - first_tail:end - first_tail] = blk[a - i0:].transpose(2, 0, 1)

    res = simulate(betas, steps, transient, init, gamma=gamma, epsilon=epsilon, model=model, backend=backend,
                   device=device, save=False, lyapunov=lyapunov, tangent_seed=tangent_seed,
                   block_callback=reduce, progress=progress)
    levels.sort(axis=0)  # in place (a full chunk holds 2·10⁴ steps × 4001 β × 4 bytes)
    lv_list = []
    for i in range(B):
        row = levels[:, i]
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
    arrays = [np.concatenate(v) if v else np.zeros(0, np.float32) for v in band]
    out["band"], out["band_sizes"] = _ragged_pack(arrays, np.float32)
    out["strobe"] = strobe
    out["levels"], out["levels_sizes"] = _ragged_pack(lv_list, np.uint32)
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


@contract(betas="reals", steps="int:1", transient="int:0", gamma="realarr", epsilon="realarr", chunk_size="int:1",
          band_width="real:>0", max_period="int:1", period_tol="real:>0", tangent_seed="int:0",
          strobe_points="int:1",
          alloc=lambda a: [("strobe_points", 8 * 12 * np.size(a["betas"]) * a["strobe_points"]),
                           ("chunk_size", 8 * 12 * np.size(a["betas"]) * a["chunk_size"])])
def sweep(betas, steps: int = 120_000, transient: int = 100_000, init: Any = "token", *, gamma=220.0,
          epsilon=0.02, model: MeanFieldModel | None = None, backend: str = "numpy", device=None,
          lyapunov: bool = False, chunk_size: int = 4001, out_dir: str | Path | None = None,
          band_width: float = 1e-3, max_period: int = 500, period_tol: float = 1e-9,
          tangent_seed: int = 0, progress: bool | None = None, strobe_points: int = 1000) -> SweepResult:
    """A bifurcation sweep over a β grid (and γ, ε), summarised per β, resumable.

    The grid is cut into chunks of ``chunk_size`` points; each chunk is simulated as one batch and
    reduced on the fly (the paper's band section, the last ``strobe_points`` states of the stroboscopic
    section, fine levels for bin counting, the extent, the period from the last ``2 max_period + 1``
    steps, λ_max if asked),
    then written atomically to ``out_dir/<config hash>/chunk-XXXXX.npz`` with its record (key, code digest,
    content hash: :mod:`mfattn.companion.caches`). A rerun with the same configuration reads the chunks
    already written and verified and computes only the missing ones (and, with a warning naming it, any
    chunk that is damaged, planted or made by other code); since a β's trajectory does not depend on its
    batch, the result is identical to an uninterrupted run.

    ``init`` is ``"token"`` or a context (unbatched, shared by all β, or batched over the grid).
    """
    _steps(steps, transient)
    if progress is not None:   # None: tqdm decides (a bar on a terminal only)
        check_bool("progress", progress)
    model = model or paper_model()
    b, g, e = _grid(betas, gamma, epsilon)
    _check_int("chunk_size", chunk_size, 1)
    check_real("band_width", band_width, minimum=0.0, strict=True)
    _check_int("max_period", max_period, 1)
    check_real("period_tol", period_tol, minimum=0.0, strict=True)
    _check_int("strobe_points", strobe_points, 1)
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
              "period_tol": period_tol, "tangent_seed": tangent_seed, "chunk_size": chunk_size,
              "strobe_points": strobe_points, "version": 3}
    key = store.config_hash(config)
    folder = _chunk_folder(out_dir, key)
    code = _chunk_code() if folder is not None else None
    chunks = []
    starts = list(range(0, B, chunk_size))
    pbar = _progress(len(starts), progress, "β chunks")
    for ci, s0 in enumerate(starts):
        sl = slice(s0, min(s0 + chunk_size, B))
        path = folder / f"chunk-{ci:05d}.npz" if folder is not None else None
        data = caches.load_cached_npz(path, code=code) if path is not None else None  # verified, else None
        if data is None:
            ini = init
            if batched_init:
                ini = {k: np.asarray(v)[sl] for k, v in init.items()}
            data = _sweep_chunk(b[sl], g[sl], e[sl], ini, steps, transient, model, backend, device, lyapunov,
                                band_width, max_period, period_tol, tangent_seed, progress, strobe_points)
            if path is not None:  # read back, so a resumed and an uninterrupted run hold the same arrays
                caches.save_cached_npz(path, data, code=code)
                data = caches.load_cached_npz(path, code=code)
        chunks.append(data)
        if pbar is not None:
            pbar.update(1)
    if pbar is not None:
        pbar.close()
    cat = lambda k: np.concatenate([c[k] for c in chunks])  # noqa: E731
    ragged = {}
    for name in ("band", "levels"):
        ragged[name] = [a for c in chunks for a in _ragged_unpack(c[name], c[name + "_sizes"])]
    lyap = cat("lyapunov") if lyapunov else None
    ctx = {k[4:]: cat(k) for k in chunks[0] if k.startswith("ctx_")}
    return SweepResult(b, g, e, ragged["band"], cat("strobe"), ragged["levels"], cat("extent"),
                       cat("period"), lyap, ctx, {k: v for k, v in config.items() if k not in ("model",)}, model)


def _chunk_folder(out_dir: str | Path | None, key: str) -> Path | None:
    """``out_dir/<key>``, the chunk cache of one sweep configuration (None without ``out_dir``); temporary
    files that killed runs left there are removed (:func:`mfattn.companion.store.clean_stale_temporaries`)."""
    if out_dir is None:
        return None
    folder = store.make_folder(store.inside(store.make_folder(Path(out_dir), "out_dir"), key, "sweep key"), "out_dir")
    store.clean_stale_temporaries(folder, recursive=False)
    return folder


def _chunk_code() -> str:
    """The digest of the code that computes a chunk (this module and the simulation, diagnostics and model
    it calls): each chunk records it, and a chunk made by other code is recomputed, never reused."""
    from . import backends, batched_map, diagnostics, engine, lyapunov, model, tangent_space

    return store.code_digest(__file__, engine, batched_map, backends, diagnostics, lyapunov, model, tangent_space)


def sweep_many(parts: dict, steps: int = 120_000, transient: int = 100_000, **kw) -> dict:
    """Several sweeps in one batched run: ``parts`` maps a name to ``(betas, context)`` (an unbatched context each, a
    mapping or an ``.npz`` path); returns ``{name: SweepResult}``, each the sweep of its β alone
    (:meth:`SweepResult.subset`; a β's orbit does not depend on its batch). One run of many β costs little more than one of few (a step's cost is
    mostly per step), so this is how a chapter runs its diagrams together. ``kw`` as for :func:`sweep`."""
    if not isinstance(parts, dict) or not parts:
        raise ValueError("parts must be a non-empty dict name -> (betas, context)")
    grids, inits = [], []
    for name, part in parts.items():
        if isinstance(part, (str, bytes, Mapping)) or not isinstance(part, (tuple, list)) or len(part) != 2:
            raise ValueError(f"parts[{name!r}] must be a pair (betas, context); got {type(part).__name__}"
                             + (f" of length {len(part)}" if isinstance(part, (tuple, list)) else ""))
        betas, init = part
        b = _grid(betas, 0.0, 0.0)[0]
        if isinstance(init, (str, Path)):
            if str(init) == "token":
                raise ValueError(f"parts[{name!r}]: sweep_many runs contexts (a token start cannot share a batch "
                                 "with them: its context fills up step by step); use sweep for a token start")
            init = load_context(init)
        if not isinstance(init, dict) or "att_window" not in init:
            raise ValueError(f"parts[{name!r}] must be (betas, context) with an unbatched context mapping")
        grids.append(b)
        inits.append({k: np.repeat(np.asarray(v)[None], b.size, axis=0) for k, v in init.items()})
    keys = set.intersection(*(set(i) for i in inits))
    init = {k: np.concatenate([i[k] for i in inits]) for k in keys}
    res = sweep(np.concatenate(grids), steps, transient, init, **kw)
    ends = np.cumsum([g.size for g in grids])
    return {name: res.subset(slice(e - g.size, e)) for name, g, e in zip(parts, grids, ends)}


@contract(betas="reals", steps="int:1", transient="int:0", gamma="realarr", epsilon="realarr", chunk_size="int:1",
          alloc=lambda a: [("chunk_size", 8 * 12 * np.size(a["betas"]) * a["chunk_size"])])
def bifurcation_diagram(betas, steps: int = 120_000, transient: int = 100_000, *, context: Any = None,
                        gamma=220.0, epsilon=0.02, model: MeanFieldModel | None = None, backend: str = "numpy",
                        device=None, lyapunov: bool = True, chunk_size: int = 4001,
                        out_dir: str | Path | None = None, progress: bool | None = None):
    """The paper's Fig 3 protocol: run the grid's last β from the token for ``steps`` steps, keep
    its final context, then run every β of the grid from that context (:func:`sweep`).

    ``context`` replaces the first run by a given context. Returns ``(SweepResult, context)``.
    """
    b, g, e = _grid(betas, gamma, epsilon)
    if progress is not None:
        check_bool("progress", progress)
    model = model or paper_model()
    if context is None:
        context = simulate(b[-1:], steps, steps - 1, "token", gamma=g[-1], epsilon=e[-1], model=model,
                           backend=backend, device=device).context_of(0)
    res = sweep(b, steps, transient, context, gamma=g, epsilon=e, model=model, backend=backend, device=device,
                lyapunov=lyapunov, chunk_size=chunk_size, out_dir=out_dir, progress=progress)
    return res, context


@contract(rows="int:1", alloc=lambda a: [("rows", 8 * a["rows"] * max(1, len(a["res"].betas) if isinstance(
          a["res"], SweepResult) else 1))])
def all_values_image(res: SweepResult, rows: int = 1000) -> np.ndarray:
    """The paper's Fig. 3 first form as an image: (rows, B) bool, True where some saved m^o_1 of β falls
    in that row of ``rows`` equal bins over [−1, 1] (from the fine levels; every saved value, not a section)."""
    if not isinstance(res, SweepResult):
        raise TypeError(f"res must be a SweepResult (sweep's output); got {type(res).__name__}")
    _check_int("rows", rows, 2)
    img = np.zeros((rows, res.betas.size), dtype=bool)
    for i, lv in enumerate(res.levels):
        img[np.unique(lv.astype(np.int64) * rows // LEVELS), i] = True
    return img


@contract(levels="int:2", rows="int:1")
def save_diagram(path: str | Path, res: SweepResult, levels: int = 2 ** 14, rows: int = 1000) -> Path:
    """Write the small part of a sweep a figure and the verdicts need, atomically, as a compressed ``.npz``.

    Section points are stored as their distinct levels on a grid of ``levels`` values over [−1, 1]
    (|m^o| <= 1; resolution 1.2e-4, finer than the paper's 5001 bins), which keeps a 4001-β diagram at
    a few MB. Keys: ``betas, gamma, epsilon`` (B,); ``band`` / ``strobe`` (uint16 levels of m^o_1 on the
    band section and on the last 300 states of the stroboscopic section, packed, with ``*_sizes`` per β; value =
    level / (levels − 1) · 2 − 1); ``paper_counts`` (B,) the paper's bin count itself (distinct bins of every
    saved m^o_1, :meth:`SweepResult.bin_counts`) and ``classes = classify(paper_counts)``; ``bin_counts`` the same
    counts (files written before 0.3 stored the lower bound there, and no ``paper_counts``); ``bin_lo, bin_hi``
    (B,) the bounds the fine levels give, ``undecided`` the β re-run to count exactly; ``period`` (B,);
    ``lyapunov`` (B,, NaN if not computed); ``max_y`` (the paper's scale, ``max(|min|, |max|)``); ``levels``;
    ``all_values`` (rows, B) packed bits of :func:`all_values_image` (``np.unpackbits(x, axis=0)[:rows]``),
    ``rows``. Unpack a ragged key with ``np.split(x, np.cumsum(x_sizes)[:-1])``.
    """
    if not isinstance(res, SweepResult):
        raise TypeError(f"res must be a SweepResult (from sweep); got {type(res).__name__}")
    _check_int("levels", levels, 2, 2 ** 16)   # stored as uint16 levels
    def distinct(points):
        q = np.clip(np.rint((np.asarray(points, dtype=np.float64) + 1) / 2 * (levels - 1)), 0, levels - 1)
        return np.unique(q.astype(np.uint16))

    band, band_sizes = _ragged_pack([distinct(p) for p in res.band], np.uint16)
    strobe, strobe_sizes = _ragged_pack([distinct(p[-300:, 0]) for p in res.strobe], np.uint16)  # last 300 states
    lo, hi = res.bin_count_bounds()
    counts = res.bin_counts()
    lyap = res.lyapunov if res.lyapunov is not None else np.full(res.betas.size, np.nan)
    return store.atomic_save_npz(path, betas=res.betas, gamma=res.gamma, epsilon=res.epsilon, band=band,
                                 band_sizes=band_sizes, strobe=strobe, strobe_sizes=strobe_sizes,
                                 bin_lo=lo, bin_hi=hi, bin_counts=counts, paper_counts=counts,
                                 classes=classify(counts),
                                 undecided=res.undecided(), period=res.period, lyapunov=lyap,
                                 max_y=np.float64(res.max_y), levels=np.int64(levels),
                                 all_values=np.packbits(all_values_image(res, rows), axis=0), rows=np.int64(rows))
