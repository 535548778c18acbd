"""The finite-N 1-bit transformer, sampled exactly at a cost independent of N.

At finite N each semantic unit of the output token is a ±1 spin drawn with
:math:`P(x_i = +1) = \\tfrac12(1 + \\tanh(\\beta W^o_i\\cdot \\hat A))`, where :math:`\\hat A` is the
attention computed from the sampled statistics. Units whose weight columns are equal are
exchangeable, so the number of +1 spins in column class c is one binomial draw,
:math:`k_c \\sim \\mathrm{Bin}(n_c, \\tfrac12(1+T_c))`, and the statistics are exactly

.. math:: \\hat s^x_b = \\frac{1}{N}\\sum_c W^x_{cb}\\,(2k_c - n_c).

One draw per class and per grid point: the cost does not depend on N. :func:`direct_sampler`
draws every unit instead (cost ∝ N) and serves to validate the binomial sampler at small N.
Both plug into :func:`mfattn.dynamics.engine.simulate` as its ``sampler`` hook, so the finite network
and the mean-field map share every other line of code. As N → ∞ the sampled trajectory converges
to the mean-field one with fluctuations ∝ N^{-1/2} at any fixed time.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Sequence

import numpy as np

from ..companion.checks import check_grid, check_int, check_real, contract
from .engine import SimulationResult, simulate
from .model import MeanFieldModel, check_model, paper_model

__all__ = ["class_sizes", "binomial_sampler", "direct_sampler", "simulate_finite", "error_vs_n", "SAMPLERS",
           "NetworkResult", "network_token_model", "simulate_network", "network_error_vs_n", "lattice_chi2_z"]

SAMPLERS = ("binomial", "direct")


#: The largest network the samplers take (their unit counts are int64).
MAX_N = 2 ** 62


def _check_n(N) -> int:
    # the binomial sampler draws counts as int64: a size past it has no meaning here (and overflowed deep in numpy)
    if isinstance(N, bool) or not isinstance(N, (int, np.integer)) or not 1 <= N <= MAX_N:
        raise ValueError(f"N must be a positive integer number of semantic units, at most {MAX_N:.2e}; got {N!r}")
    return int(N)


@contract(N="int:3")
def class_sizes(model: MeanFieldModel, N: int) -> np.ndarray:
    """Units per column class at size N: ``n_c ≈ N · n_c^{(paper)}/N_SE`` (largest remainders), (C,) int."""
    N = _check_n(N)
    want = N * model.class_fraction
    n = np.floor(want).astype(np.int64)
    short = N - n.sum()
    if short:
        n[np.argsort(-(want - n), kind="stable")[:short]] += 1
    if np.any(n == 0):
        raise ValueError(f"N={N} is too small: every one of the {model.num_classes} column classes needs a unit")
    return n


def _check_T(T, C: int) -> np.ndarray:
    """The hook's argument: ``T (C, B)``, the classes' tanh values, in [−1, 1] (a probability ``(1 + T)/2`` each)."""
    T = np.asarray(T)
    if T.ndim != 2 or T.shape[0] != C or T.dtype.kind not in "iuf":
        raise ValueError(f"T must be the classes' tanh values, a real array of shape (C, B) = ({C}, B); got "
                         f"{T.dtype} of shape {T.shape}")
    if not np.all(np.abs(T) <= 1.0):   # NaN fails this too
        raise ValueError("T must hold values in [-1, 1] (tanh of the class fields; (1 + T)/2 is a probability); got "
                         f"{T[~(np.abs(T) <= 1.0)].flat[0].item()!r}")
    return T


@contract(N="int:1", rng="generator:numpy")
def binomial_sampler(model: MeanFieldModel, N: int, rng: np.random.Generator):
    """Hook ``T (C, B) -> T̂ (C, B)``: one binomial draw per class; ``frac_c T̂_c = (2k_c − n_c)/N``. ``T`` outside
    [−1, 1] (or not of shape (C, B)) is refused."""
    n = class_sizes(model, N)
    scale = 1.0 / (N * model.class_fraction)

    def sample(T):
        p = 0.5 * (1.0 + _check_T(T, n.size))
        k = rng.binomial(n[:, None], np.clip(p, 0.0, 1.0))
        return (2.0 * k - n[:, None]) * scale[:, None]

    return sample


@contract(N="int:1", rng="generator:numpy")
def direct_sampler(model: MeanFieldModel, N: int, rng: np.random.Generator):
    """Hook that draws each of the N units separately (cost ∝ N): the oracle for small N. ``T`` as for
    :func:`binomial_sampler`."""
    n = class_sizes(model, N)
    scale = 1.0 / (N * model.class_fraction)

    def sample(T):
        T = _check_T(T, n.size)
        out = np.empty_like(T)
        for c, nc in enumerate(n):
            spins = np.where(rng.random((nc, T.shape[1])) < 0.5 * (1.0 + T[c]), 1.0, -1.0)
            out[c] = spins.sum(axis=0) * scale[c]
        return out

    return sample


@contract(betas="reals", steps="int:1", transient="int:0", gamma="realarr", epsilon="realarr", N="int:1",
          seed="int:0")
def simulate_finite(betas, N: int, steps: int = 2000, transient: int = 0, init: Any = "token", *,
                    seed: int = 0, sampler: str = "binomial", gamma=220.0, epsilon=0.02,
                    model: MeanFieldModel | None = None, save: bool = True,
                    block_callback=None) -> SimulationResult:
    """Run the finite-N network for a batch of β (one independent realisation per grid point).

    Same arguments and result as :func:`mfattn.dynamics.engine.simulate` (numpy backend), plus ``N`` (semantic
    units), ``seed`` (numpy Generator seed) and ``sampler`` ("binomial", exact and O(1) in N; or
    "direct", per unit). Repeating a β in ``betas`` gives independent realisations.
    """
    N = _check_n(N)
    if sampler not in SAMPLERS:
        raise ValueError(f"sampler must be one of {', '.join(map(repr, SAMPLERS))}; got {sampler!r}")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer; got {seed!r}")
    model = model or paper_model()
    rng = np.random.default_rng(seed)
    hook = (binomial_sampler if sampler == "binomial" else direct_sampler)(model, N, rng)
    return simulate(betas, steps, transient, init, gamma=gamma, epsilon=epsilon, model=model,
                    backend="numpy", save=save, sampler=hook, block_callback=block_callback)


@contract(betas="reals", Ns="ints:1", steps="int:1", reps="int:1", seed="int:0",
          alloc=lambda a: [("reps", 8 * 64 * 16 * a["reps"] * np.size(a["betas"]))])
def error_vs_n(betas: Sequence[float], Ns: Sequence[int], steps: int = 40, reps: int = 200, seed: int = 0,
               init: Any = "token", model: MeanFieldModel | None = None) -> np.ndarray:
    """RMS distance ``sqrt(<|m̂^o_t − m^o_t|²>)`` at ``t = steps − 1`` between finite-N and mean field.

    ``reps`` independent realisations per (β, N). Returns (len(betas), len(Ns)); expected ∝ N^{-1/2}.
    """
    check_int("reps", reps, 1)
    check_int("steps", steps, 1)
    if len(Ns) == 0:
        raise ValueError("Ns must name at least one network size")
    Ns = [_check_n(N) for N in Ns]
    model = model or paper_model()
    betas = check_grid("betas", betas, minimum=0.0)
    mf = simulate(betas, steps, steps - 1, init, model=model).m_o[:, 0]  # (nb, M)
    out = np.empty((betas.size, len(Ns)))
    grid = np.repeat(betas, reps)
    for j, N in enumerate(Ns):
        fin = simulate_finite(grid, N, steps, steps - 1, init, seed=seed + j, model=model).m_o[:, 0]
        d2 = ((fin.reshape(betas.size, reps, -1) - mf[:, None]) ** 2).sum(-1)
        out[:, j] = np.sqrt(d2.mean(1))
    return out


# ----------------------------------------------------------------------------------------------
# The explicit network: N ±1 units per token, no column classes (the oracle of everything above)
# ----------------------------------------------------------------------------------------------
@dataclass
class NetworkResult:
    """Output of :func:`simulate_network`.

    m_o : (B, T, M) semantic ``m^o_t = (1/N) Σ_i W^o_{b,i} x_{t,i}`` for the saved steps t in [transient, steps).
    tokens : (B, L, N + P) int8, the last L tokens (oldest first), semantic units then positional bits.
    betas : (B,); N : semantic units per token; weights : the tiled ``(M, N + P)`` matrices ``o, v, q, k``.
    """

    m_o: np.ndarray
    tokens: np.ndarray
    betas: np.ndarray
    N: int
    steps: int
    transient: int
    weights: dict

    def __post_init__(self):
        # a result built by hand is checked as simulate_network builds it: shapes that agree, whole step counts
        m_o = np.asarray(self.m_o)
        tokens = np.asarray(self.tokens)
        if m_o.ndim != 3 or m_o.dtype.kind != "f" or not np.isfinite(m_o).all():
            raise ValueError(f"m_o must be a finite (B, T, M) float array; got shape {m_o.shape}, dtype {m_o.dtype}")
        if tokens.ndim != 3 or tokens.dtype != np.int8 or tokens.shape[0] != m_o.shape[0]:
            raise ValueError(f"tokens must be a (B, L, N + P) int8 array with B = {m_o.shape[0]} (m_o's); got shape "
                             f"{tokens.shape}, dtype {tokens.dtype}")
        if np.shape(self.betas) != (m_o.shape[0],):
            raise ValueError(f"betas must have shape ({m_o.shape[0]},) (one per row of m_o); got {np.shape(self.betas)}")
        check_int("N", self.N, 1, tokens.shape[2] - 1)
        check_int("steps", self.steps, 1)
        check_int("transient", self.transient, 0, self.steps - 1)
        if m_o.shape[1] != self.steps - self.transient:
            raise ValueError(f"m_o must hold the saved steps [transient, steps): {self.steps - self.transient}; got "
                             f"{m_o.shape[1]}")
        from collections.abc import Mapping

        if not isinstance(self.weights, Mapping) or any(
                np.shape(self.weights.get(x)) != (m_o.shape[2], tokens.shape[2]) for x in ("o", "v", "q", "k")):
            raise ValueError(f"weights must map 'o', 'v', 'q', 'k' to ({m_o.shape[2]}, {tokens.shape[2]}) matrices "
                             f"(M, N + P); got {type(self.weights).__name__}")


def _tiled_weights(model: MeanFieldModel, N: int) -> tuple[dict, int]:
    """The paper's ``(M, N_SE + P)`` matrices with their semantic columns repeated: unit i has column i mod N_SE."""
    W = model.weights
    if not W:
        raise ValueError("model must carry its weight matrices (build it with paper_model)")
    P = _pe_bits(model)
    nse = W["o"].shape[1] - P
    cols = np.arange(N) % nse
    return {x: np.concatenate([W[x][:, cols], W[x][:, nse:]], axis=1) for x in ("o", "v", "q", "k")}, P


def _pe_bits(model: MeanFieldModel) -> int:
    # the positional part of the model's π^x(p) is W^x[:, N_SE:] @ bits / P: recover P from the stored weights
    # as the number of trailing columns whose π reproduces model.positional (P = log2 L for the paper's model).
    W = model.weights["v"]
    for P in range(1, W.shape[1]):
        L = model.context_size
        if L > 2 ** P:
            continue
        ok = True
        for p in range(L):
            bits = np.array([(p >> (P - 1 - i)) & 1 for i in range(P)], dtype=np.float64) * 2 - 1
            if not np.allclose(W[:, -P:] @ bits / P, model.positional[p, model.num_features:2 * model.num_features]):
                ok = False
                break
        if ok:
            return P
    raise ValueError("model: its positional terms do not come from trailing positional bits of its weights")


def _position_bits(p: int, P: int) -> np.ndarray:
    return np.array([(p >> (P - 1 - i)) & 1 for i in range(P)], dtype=np.int8) * 2 - 1


@contract(epsilon="real")
def network_token_model(model: MeanFieldModel, epsilon: float = 0.02) -> MeanFieldModel:
    """The mean-field model started from the statistics the *network* gives its first token.

    The network (as the paper's finite code) weights every statistic as
    ``m^x = (1-ε) (1/N_SE) Σ_{i∈SE} W^x_i x_i + ε (1/P) Σ_{j∈PE} W^x_j x_j``, also at t = 0, while the paper's
    mean-field code starts from the plain average over all ``N_SE + P`` units (``model.token``). The two
    starts differ by O(ε) (about 1e-2 here); comparisons of the network with the map start both from this one.
    """
    check_model(model)
    if not model.weights:
        raise ValueError("model must carry its weight matrices (build it with paper_model)")
    check_real("epsilon", epsilon, minimum=0.0, maximum=1.0)
    P = _pe_bits(model)
    M = model.num_features
    W = model.weights
    nse = W["o"].shape[1] - P
    x0 = W["o"][model_token_index(model)].copy()
    x0[nse:] = -1.0
    stats = [x0[:nse] @ W["o"][:, :nse].T / nse]
    for x in ("v", "k", "q"):
        stats.append((1 - epsilon) * (x0[:nse] @ W[x][:, :nse].T) / nse + epsilon * (x0[nse:] @ W[x][:, nse:].T) / P)
    return replace(model, token=np.concatenate(stats))


def model_token_index(model: MeanFieldModel) -> int:
    """Which row of W^o the model's initial token copies (its semantic m^o_0 is that row's correlation)."""
    W, P = model.weights["o"], _pe_bits(model)
    nse = W.shape[1] - P
    mo = W[:, :nse] @ W[:, :nse].T / nse  # row a: m^o_0 of the token copying row a
    hits = np.nonzero(np.all(np.isclose(mo, model.token[:model.num_features]), axis=1))[0]
    if hits.size == 0:
        raise ValueError("model: its initial token is not a row of W^o")
    return int(hits[0])


@contract(betas="reals", N="int:1", steps="int:1", transient="int:0", gamma="realarr", epsilon="real",
          alloc=lambda a: [("N", 104 * np.size(a["betas"]) * (a["N"] + 8)),
                           ("steps", 8 * 4 * np.size(a["betas"]) * (a["steps"] - a["transient"]))])
def simulate_network(betas, N: int, steps: int = 2000, transient: int = 0, *, seed=0, gamma=220.0,
                     epsilon: float = 0.02, model: MeanFieldModel | None = None) -> NetworkResult:
    """The 1-bit transformer itself: explicit ±1 tokens of ``N`` semantic units, sampled one unit at a time.

    No column classes and no binomial trick: the paper's ``(M, N_SE + P)`` weights are tiled to N semantic
    units (unit i reads column ``i mod N_SE``; the P positional bits of token t encode ``t mod L``), and
    each step, for every β of the batch,

    .. math::

        q_t = W^q x_t,\\ k_s = W^k x_s,\\ v_s = W^v x_s \\ \\text{(each (1-ε)-weighted semantic + ε positional,
        scaled to } N), \\quad
        A_t = \\sum_{s=t-L+1}^{t} \\mathrm{softmax}_s\\Big(\\frac{\\gamma\\, q_t\\cdot k_s}{U}\\Big) \\frac{v_s}{N},
        \\ U = N^2\\sqrt{M},

        P(x_{t+1,i} = +1) = \\tfrac12\\big(1 + \\tanh(\\beta\\, W^o_i\\cdot A_t)\\big)
        \\quad (i \\text{ semantic, independently}).

    The first token copies the model's token row of W^o (positional bits −1); attention runs over the
    ``min(t + 1, L)`` tokens so far. Statistics ``m^x = q/N`` etc. are exactly those of the mean-field map;
    as N → ∞ the trajectory converges to the map's started from :func:`network_token_model` (error ∝ N^{-1/2}).
    Cost O(B N M) per step.

    Parameters
    ----------
    betas : (B,) output inverse temperatures (repeat a β for independent realisations).
    N : semantic units per token (a multiple of N_SE = 99 gives exactly the paper's column fractions).
    seed : int or (B,) ints. Grid point i draws from ``np.random.default_rng(SeedSequence(seed).spawn(B)[i])``
        (int) or ``default_rng(seed[i])``: its realisation does not depend on the other grid points.
    Returns :class:`NetworkResult` (``m_o`` (B, steps − transient, M)).
    """
    N = _check_n(N)
    check_int("steps", steps, 1)
    check_int("transient", transient, 0)
    if transient >= steps:
        raise ValueError(f"transient ({transient}) must be smaller than steps ({steps})")
    b = check_grid("betas", betas, minimum=0.0)
    g = check_real("gamma", gamma)
    eps = check_real("epsilon", epsilon, minimum=0.0, maximum=1.0)
    model = model or paper_model()
    B = b.size
    gens = _generators(seed, B)
    W, P = _tiled_weights(model, N)
    M, L = model.num_features, model.context_size
    Wse = np.concatenate([W[x][:, :N] for x in ("o", "v", "k", "q")]).astype(np.float64)  # (4M, N) rows [o; v; k; q]
    Wpe = {x: W[x][:, N:] for x in ("v", "k", "q")}
    row = model_token_index(model)
    x0 = np.concatenate([W["o"][row, :N], -np.ones(P)]).astype(np.int8)
    tokens = np.zeros((B, L, N + P), dtype=np.int8)  # ring buffer of explicit tokens, slot t mod L
    vk = np.zeros((B, L, 2, M))  # each stored token's value and key statistics (computed once, as a KV cache)
    tokens[:, 0] = x0
    out = np.empty((B, steps - transient, M))

    def read(x, t):
        """Statistics of explicit tokens x (B, N + P) at position t mod L: m^o (semantic), m^v, m^k, m^q."""
        se = (x[:, :N].astype(np.float64) @ Wse.T).reshape(-1, 4, M) / N  # (B, 4, M), exact integer sums / N
        pos = {k: x[:, N:].astype(np.float64) @ Wpe[k].T / P for k in Wpe}
        mv = (1 - eps) * se[:, 1] + eps * pos["v"]
        mk = (1 - eps) * se[:, 2] + eps * pos["k"]
        mq = (1 - eps) * se[:, 3] + eps * pos["q"]
        return se[:, 0], mv, mk, mq

    mo, mv, mk, mq = read(tokens[:, 0], 0)
    vk[:, 0, 0], vk[:, 0, 1] = mv, mk
    U = N * N * np.sqrt(M)
    if transient == 0:
        out[:, 0] = mo
    for t in range(steps):
        n = min(t + 1, L)
        # A_t: softmax over the last n tokens of γ q_t·k_s / U, with q = N m^q, k = N m^k (the paper's scaling)
        logit = g * np.einsum("bm,bsm->bs", N * mq, N * vk[:, :n, 1]) / U
        w = np.exp(logit - logit.max(axis=1, keepdims=True))
        w /= w.sum(axis=1, keepdims=True)
        A = np.einsum("bs,bsm->bm", w, vk[:, :n, 0])
        if t + 1 == steps:
            break
        # the next token: each semantic unit independently +1 with probability (1 + tanh(β W^o_i·A))/2
        prob = 0.5 * (1.0 + np.tanh(b[:, None] * (A @ Wse[:M])))  # (B, N)
        u = np.stack([gen.random(N) for gen in gens])
        p = (t + 1) % L
        tokens[:, p, :N] = np.where(u < prob, 1, -1)
        tokens[:, p, N:] = _position_bits(p, P)
        mo, mv, mk, mq = read(tokens[:, p], t + 1)
        vk[:, p, 0], vk[:, p, 1] = mv, mk
        if t + 1 >= transient:
            out[:, t + 1 - transient] = mo
    last = (steps - 1) % L
    order = [(last + 1 + j) % L for j in range(L)]
    return NetworkResult(out, tokens[:, order].copy(), b, N, steps, transient, W)


def _generators(seed, B: int) -> list:
    if isinstance(seed, (int, np.integer)) and not isinstance(seed, bool):
        check_int("seed", seed, 0)
        return [np.random.default_rng(s) for s in np.random.SeedSequence(int(seed)).spawn(B)]
    try:
        seeds = [check_int("seed", s, 0) for s in seed]
    except TypeError:
        raise TypeError(f"seed must be a non-negative integer or a sequence of {B} of them; got {seed!r}") from None
    if len(seeds) != B:
        raise ValueError(f"seed must be one integer or one per β ({B}); got {len(seeds)}")
    return [np.random.default_rng(s) for s in seeds]


@contract(beta="real", Ns="ints:1", steps="int:1", reps="int:1", seed="int:0",
          alloc=lambda a: [("reps", 2 * 8 * a["reps"] * (max(a["Ns"]) + 8))])
def network_error_vs_n(beta: float, Ns: Sequence[int], steps: int = 40, reps: int = 32, seed: int = 0,
                       model: MeanFieldModel | None = None) -> np.ndarray:
    """RMS distance ``sqrt(<|m̂^o_t − m^o_t|²>)`` at ``t = steps − 1`` between the explicit network
    (:func:`simulate_network`, ``reps`` realisations, seed ``seed + j`` for the j-th N) and the mean-field map
    started from the network's own first-token statistics (:func:`network_token_model`). Returns (len(Ns),)."""
    check_real("beta", beta, minimum=0.0)
    check_int("reps", reps, 1)
    check_int("steps", steps, 1)
    if len(Ns) == 0:
        raise ValueError("Ns must name at least one network size")
    Ns = [_check_n(N) for N in Ns]
    start = network_token_model(model or paper_model())
    mf = simulate([beta], steps, steps - 1, model=start).m_o[0, 0]
    out = np.empty(len(Ns))
    for j, N in enumerate(Ns):  # one batched run of reps realisations per size
        net = simulate_network(np.full(reps, beta), N, steps, steps - 1, seed=seed + j, model=model).m_o[:, 0]
        out[j] = np.sqrt(((net - mf) ** 2).sum(-1).mean())
    return out


@contract(xa="numbers:1", xb="numbers:1", N="int:1")
def lattice_chi2_z(xa, xb, N: int) -> float:
    """Two-sample χ² of two samples of a statistic on the lattice ``k/N`` (cells with more than 10 counts),
    as ``z = (χ² − dof)/√(2 dof)``: |z| below about 4 is agreement at level ~1e-4. Values off the lattice (more than
    a thousandth of a cell from a multiple of 1/N) are refused."""
    N = _check_n(N)
    for name, x in (("xa", xa), ("xb", xb)):
        cells = np.asarray(x, dtype=np.float64) * N
        if cells.size == 0:
            raise ValueError(f"{name} must hold at least one sample")
        off = np.abs(cells - np.rint(cells))
        if off.max() > 1e-3 + 4 * np.finfo(np.float64).eps * max(1.0, np.abs(cells).max()):
            bad = np.asarray(x, dtype=np.float64)[int(off.argmax())].item()
            raise ValueError(f"{name} must hold values on the lattice k/N (N = {N}); got {bad!r} ({off.max():.3g} of a "
                             f"cell off)")
    ia, ib = np.rint(np.asarray(xa) * N).astype(np.int64), np.rint(np.asarray(xb) * N).astype(np.int64)
    lo, hi = min(ia.min(), ib.min()), max(ia.max(), ib.max())
    ha, hb = np.bincount(ia - lo, minlength=hi - lo + 1), np.bincount(ib - lo, minlength=hi - lo + 1)
    keep = (ha + hb) > 10
    dof = int(keep.sum()) - 1
    if dof < 1:
        raise ValueError("xa and xb must spread over at least two lattice cells with more than 10 counts")
    chi2 = float((((ha - hb)[keep] ** 2) / (ha + hb)[keep]).sum())
    return (chi2 - dof) / np.sqrt(2 * dof)
