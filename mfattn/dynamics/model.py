"""The paper's model (Poc-López & Aguilera, 2024): ±1 weights, column classes, initial token, contexts.

A token has ``N = N_SE + P`` ±1 units (``N_SE`` semantic, ``P`` positional bits). Four weight matrices
``W^o, W^v, W^q, W^k`` (each ``(M, N)``) read it. The mean-field map (:mod:`~mfattn.dynamics.map`)
only needs the *distinct* semantic columns ``c`` of the stacked weights (their multiplicities ``n_c``),
the positional terms ``π^x(p)`` and the initial token's statistics: :class:`MeanFieldModel` holds them.
Contexts (the last ``L`` token statistics) are stored as ``.npz`` files (:func:`load_context`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

import numpy as np

from ..companion import store
from ..companion.checks import check_array as _check_array, check_int as _check_int, check_path as _check_path
from ..companion.checks import check_choice as _check_choice, contract

__all__ = ["PAPER", "PROTOCOLS", "SYMMETRISATIONS", "paper_weights", "MeanFieldModel", "paper_model", "symmetrised_model",
           "token_context", "load_context"]

#: The paper configuration (seed-1 weights, Fig 3 run lengths).
PAPER: dict[str, Any] = {
    "seed": 1, "num_features": 3, "semantic_size": 99, "pe_bits": 2, "segments": 3,
    "gamma": 220.0, "epsilon": 0.02, "steps": 120_000, "transient": 100_000,
}

#: Step protocols of a bifurcation diagram, (steps, transient): the paper-era code ran 1.2e5 steps and discarded
#: 1e5; the paper's text (and its seed script) states 1.2e6 and 1e6. The profile key ``protocol`` picks one
#: (any other value keeps the profile's own ``steps`` and ``transient``).
PROTOCOLS: dict[str, tuple[int, int]] = {"paper-code": (120_000, 100_000), "seed-text": (1_200_000, 1_000_000)}


#: The most positional bits a model takes: 2**pe_bits rows of positional codes are built (2**24: 16.8 million).
MAX_PE_BITS = 24


@contract(seed="int:0", num_features="int:1", semantic_size="int:1", pe_bits="int:1", segments="int:1",
          alloc=lambda a: [("semantic_size", 8 * 16 * a["num_features"] * (a["semantic_size"] + a["pe_bits"]) ** 2)])
def paper_weights(seed: int = 1, num_features: int = 3, semantic_size: int = 99, pe_bits: int = 2,
                  segments: int = 3) -> dict[str, np.ndarray]:
    """The ±1 weight matrices ``W^o, W^v, W^q, W^k``, each ``(M, N_SE + P)``, drawn as in the paper.

    Draw order of the legacy numpy RNG (this is what makes the seed-1 model the paper's model):
    ``seed(seed)``; one unused ``(M, N_SE)`` draw; four ``(M, N_SE)`` draws for o, v, q, k, each
    also giving its matrix's ``P`` positional columns (the last ``P`` columns of its own draw);
    then for x in (o, v, q, k), row a, segment s: one scalar draw sets the whole segment of
    ``N_SE/segments`` semantic units to ±1. (The paper's script also seeds 0 and draws ten
    candidate tokens first; ``seed(seed)`` resets the stream, so that draw does not matter.) ``segments`` may not
    exceed ``semantic_size``.
    """
    _check_int("seed", seed, 0, 2 ** 32 - 1)   # numpy's legacy RandomState takes 32-bit seeds
    _check_int("num_features", num_features, 1)
    _check_int("semantic_size", semantic_size, 1)
    _check_int("pe_bits", pe_bits, 1, MAX_PE_BITS)
    _check_int("segments", segments, 1)
    if segments > semantic_size:   # a segment of less than one unit would set no unit (or split none)
        raise ValueError(f"segments must be at most semantic_size = {semantic_size} (each segment at least one unit); "
                         f"got {segments}")
    rs = np.random.RandomState(seed)  # the legacy generator, isolated from the global one
    M, nse, P = num_features, semantic_size, pe_bits
    rs.randint(2, size=(M, nse))  # unused draw, kept for the stream position
    mats = {}
    for name in ("o", "v", "q", "k"):
        raw = rs.randint(2, size=(M, nse)) * 2 - 1
        W = np.zeros((M, nse + P))
        W[:, :nse] = raw
        W[:, -P:] = raw[:, -P:]
        mats[name] = W
    seg = nse / segments
    for name in ("o", "v", "q", "k"):
        W = mats[name]
        for a in range(M):
            for s in range(segments):
                value = rs.randint(2, size=1)[0] * 2 - 1
                W[a, int(s * seg):int(s * seg + seg)] = value
    return mats


@dataclass(frozen=True)
class MeanFieldModel:
    """The infinite-N map's constants, from the weights.

    Attributes
    ----------
    o_classes : (C, M) the W^o columns of the C distinct semantic column classes.
    coef : (4M, C) rows ``[o; v; k; q]``: ``(n_c / N_SE) W^x_{cb}``; ``s = coef @ tanh(β o_classes @ A)``.
    class_fraction : (C,) ``n_c / N_SE``.
    class_sign : (4M, C) ``W^x_{cb}`` (±1), rows ``[o; v; k; q]``.
    positional : (L, 4M) ``π^x(p)`` for p = 0..L-1, rows ``[o; v; k; q]`` (o is never used by the map).
    token : (4M,) the initial token's statistics ``[m^o (semantic only); m^v; m^k; m^q]``.
    context_size : L (a power of two, ``2**pe_bits``).
    """

    o_classes: np.ndarray
    coef: np.ndarray
    class_fraction: np.ndarray
    class_sign: np.ndarray
    positional: np.ndarray
    token: np.ndarray
    context_size: int
    weights: dict = field(repr=False, compare=False, default_factory=dict)

    def __post_init__(self):
        """The shapes must agree (C classes, M features, L positions) and the numbers be finite; else a ValueError
        naming the field (cheap: a model's arrays are small)."""
        shape = np.shape(self.o_classes)
        if len(shape) != 2 or 0 in shape:
            raise ValueError(f"o_classes must be a non-empty (C, M) array; got shape {shape}")
        C, M = shape
        L = _check_int("context_size", self.context_size, 1)
        for name, want, what in (("coef", (4 * M, C), "(4M, C)"), ("class_fraction", (C,), "(C,)"),
                                 ("class_sign", (4 * M, C), "(4M, C)"), ("token", (4 * M,), "(4M,)"),
                                 ("positional", (L, 4 * M), "(context_size, 4M), one row per position")):
            if np.shape(getattr(self, name)) != want:
                raise ValueError(f"{name} must have shape {what} = {want} (C = {C} classes, M = {M} features from "
                                 f"o_classes, context_size = {L}); got {np.shape(getattr(self, name))}")
        for name in ("o_classes", "coef", "class_fraction", "class_sign", "positional", "token"):
            _check_array(name, getattr(self, name), allow_int=True)
        if not isinstance(self.weights, Mapping):
            raise TypeError(f"weights must be a dict of the weight matrices (or empty); got {type(self.weights).__name__}")

    @property
    def num_features(self) -> int:
        return self.o_classes.shape[1]

    @property
    def num_classes(self) -> int:
        return self.o_classes.shape[0]

    def correlation(self, x: str = "o") -> np.ndarray:
        """``C^{ox}_{ab} = <W^o_a W^x_b>`` over semantic units, (M, M); ``x`` one of "o", "v", "k", "q"."""
        _check_choice("x", x, ("o", "v", "k", "q"))
        M = self.num_features
        row = {"o": 0, "v": 1, "k": 2, "q": 3}[x] * M
        sx = self.class_sign[row:row + M]  # (M, C)
        return (self.o_classes.T * self.class_fraction) @ sx.T


@contract(seed="int:0", num_features="int:1", semantic_size="int:1", pe_bits="int:1", segments="int:1",
          context_size="int:1?", token_index="int:0",
          alloc=lambda a: [("semantic_size", 8 * 16 * a["num_features"] * (a["semantic_size"] + a["pe_bits"]) ** 2)])
def paper_model(seed: int = 1, num_features: int = 3, semantic_size: int = 99, pe_bits: int = 2,
                segments: int = 3, context_size: int | None = None, token_index: int = 0,
                weights: Mapping[str, np.ndarray] | None = None) -> MeanFieldModel:
    """Build the :class:`MeanFieldModel` of the paper configuration (or of given ``weights``).

    ``context_size`` defaults to ``2**pe_bits``; it must be a power of two (positions are
    ``pe_bits``-bit codes). The initial token is row ``token_index`` of ``W^o`` with its
    positional bits set to −1, and ``m^x_0 = (1/N) Σ_i W^x_{bi} x0_i`` over all N units.
    """
    _check_int("pe_bits", pe_bits, 1, MAX_PE_BITS)   # 2**pe_bits positional rows are built below
    L = 2 ** pe_bits if context_size is None else context_size
    if isinstance(L, bool) or not isinstance(L, (int, np.integer)) or L < 1 or (L & (L - 1)) != 0:
        raise ValueError(f"context_size L must be a power of two (1, 2, 4, ...); got {L!r}")
    if L > 2 ** pe_bits:
        raise ValueError(f"context_size L={L} needs at least log2(L) positional bits; pe_bits={pe_bits}")
    if weights is not None and not isinstance(weights, Mapping):
        raise TypeError(f"weights must be a mapping of 'o', 'v', 'q', 'k' to (M, N) arrays; "
                        f"got {type(weights).__name__}")
    W = dict(weights) if weights is not None else paper_weights(seed, num_features, semantic_size, pe_bits, segments)
    for name in ("o", "v", "q", "k"):
        if name not in W:
            raise ValueError(f"weights must hold 'o', 'v', 'q', 'k'; missing {name!r}")
    if weights is not None:   # finite (M, N) matrices of one shape, with N > pe_bits (semantic and positional units)
        shape = _check_array("weights['o']", W["o"], ndim=2, allow_int=True).shape
        for name in ("v", "q", "k"):
            if _check_array(f"weights[{name!r}]", W[name], ndim=2, allow_int=True).shape != shape:
                raise ValueError(f"weights[{name!r}] must have the shape of weights['o'] {shape}; "
                                 f"got {np.shape(W[name])}")
        if shape[1] <= pe_bits:
            raise ValueError(f"weights must have more than pe_bits = {pe_bits} columns (semantic units, then the "
                             f"positional bits); got shape {shape}")
    M, N = W["o"].shape
    nse = N - pe_bits
    if not 0 <= token_index < M:
        raise ValueError(f"token_index must be in [0, {M}); got {token_index!r}")
    order = ("o", "v", "k", "q")
    stacked = np.concatenate([W[x][:, :nse] for x in order], axis=0)  # (4M, N_SE)
    cols, counts = np.unique(stacked.T, axis=0, return_counts=True)  # distinct columns (C, 4M)
    fraction = counts / nse
    sign = cols.T.astype(np.float64)  # (4M, C)
    coef = sign * fraction[None, :]
    o_classes = cols[:, :M].astype(np.float64)
    positional = np.zeros((L, 4 * M))
    for p in range(L):
        bits = np.array([(p >> (pe_bits - 1 - i)) & 1 for i in range(pe_bits)], dtype=np.float64) * 2 - 1
        for j, x in enumerate(order):
            positional[p, j * M:(j + 1) * M] = W[x][:, nse:] @ bits / pe_bits
    x0 = W["o"][token_index].copy()
    x0[nse:] = -1.0
    token = np.concatenate([x0[:nse] @ W["o"][:, :nse].T / nse] + [x0 @ W[x].T / N for x in order[1:]])
    return MeanFieldModel(o_classes, coef, fraction, sign, positional, token, int(L),
                          weights={k: np.asarray(v) for k, v in W.items()})


#: The controls of the asymmetric-couplings claim: which weight is set equal to which on the semantic units.
SYMMETRISATIONS: dict[str, tuple[str, str]] = {"output-value": ("o", "v"), "query-key": ("q", "k")}


def symmetrised_model(which: str, seed: int = 1, **kw) -> MeanFieldModel:
    """The paper's model with one pair of weights made equal on the semantic units (positional columns kept, so the
    forcing is the paper's), a control of the asymmetric-couplings claim.

    ``"output-value"``: W^v := W^o, so the units' effective couplings J_ij ∝ Σ_a W^o_ai W^v_aj are symmetric (the
    Hopfield case, with a Lyapunov function: parallel dynamics reaches fixed points and 2-cycles only, here periods
    dividing lcm(2, L) under the period-L forcing). ``"query-key"``: W^k := W^q, so the attention logits q_t·k_s
    are a symmetric form of the two tokens. Other keywords go to :func:`paper_weights`.
    """
    if which not in SYMMETRISATIONS:
        raise ValueError(f"which must be one of {', '.join(map(repr, SYMMETRISATIONS))}; got {which!r}")
    src, dst = SYMMETRISATIONS[which]
    W = paper_weights(seed, **kw)
    nse = W["o"].shape[1] - kw.get("pe_bits", 2)
    W[dst][:, :nse] = W[src][:, :nse]
    return paper_model(seed, weights=W, **{k: v for k, v in kw.items() if k in ("pe_bits",)})


def check_model(model: Any, name: str = "model") -> "MeanFieldModel":
    """``model`` if it is a :class:`MeanFieldModel`, else a TypeError naming ``name``."""
    if not isinstance(model, MeanFieldModel):
        raise TypeError(f"{name} must be a MeanFieldModel (e.g. paper_model()); got {type(model).__name__}")
    return model


def token_context(model: MeanFieldModel) -> dict[str, np.ndarray]:
    """The initial token's statistics as a one-slot context (used by ``init="token"``)."""
    check_model(model)
    M = model.num_features
    return {"mo": model.token[:M].copy(), "mv": model.token[M:2 * M].copy(),
            "mk": model.token[2 * M:3 * M].copy(), "mq": model.token[3 * M:].copy()}


def load_context(path: str | Path) -> dict[str, np.ndarray]:
    """Read a saved context (keys ``mv_window (L, M)``, ``mk_window (L, M)``, ``mq_window (M,)``,
    ``att_window (M,)``; batched files add a leading B axis). Oldest slot first, newest last."""
    path = _check_path("path", path)
    if not path.exists():
        raise FileNotFoundError(f"context file {path} does not exist")
    data = store.load_npz(path)
    missing = {"mv_window", "mk_window", "att_window"} - set(data)
    if missing:
        raise ValueError(f"context file {path} lacks {sorted(missing)}")
    for key, value in data.items():   # a context is a state of the map: finite real numbers
        if value.dtype.kind not in "fiu" or not np.all(np.isfinite(value)):
            raise ValueError(f"context file {path}: {key} must hold finite real numbers")
    mv = data["mv_window"]   # (L, M), or (B, L, M) for a batch; the others agree with it
    if mv.ndim not in (2, 3):
        raise ValueError(f"path: the context's mv_window must have shape (L, M) or (B, L, M); got {mv.shape} "
                         f"in {path}")
    vec = mv.shape[:-2] + mv.shape[-1:]
    for key, shape in (("mk_window", mv.shape), ("att_window", vec), ("mq_window", vec)):
        if key in data and data[key].shape != shape:
            raise ValueError(f"path: the context's {key} must have shape {shape} (from mv_window {mv.shape}); got "
                             f"{data[key].shape} in {path}")
    return data

