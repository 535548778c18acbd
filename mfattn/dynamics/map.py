"""The mean-field map of Poc-López & Aguilera (2024) for one β, written like its equations.

This is the reference a reader checks against the paper line by line; :mod:`~mfattn.dynamics.engine`
computes the same map for a whole grid of β at once and is tested against :func:`step` step by step.
With ``M`` features, the column classes ``c`` of the weights (multiplicity ``n_c`` of ``N_SE``
semantic units, :class:`~mfattn.dynamics.model.MeanFieldModel`) and the attention ``A_{t-1}``:

.. math::

    s^x_b = \\sum_c \\frac{n_c}{N_{SE}} W^x_{cb} \\tanh(\\beta\\, W^o_c\\cdot A_{t-1}), \\qquad
    m^x_t = (1-\\epsilon)\\, s^x + \\epsilon\\, \\pi^x(t \\bmod L) \\quad (x = v, k, q), \\qquad m^o_t = s^o,

    A_t = \\sum_{s} \\mathrm{softmax}_s\\big(g\\, m^q_t\\cdot m^k_s\\big)\\, m^v_s, \\qquad g = \\gamma/\\sqrt{M},

where ``s`` runs over the context: the last ``L`` pairs ``(m^v, m^k)``, the current one included
(fewer while the context fills up after the initial token).
"""

from __future__ import annotations

import numpy as np

from ..companion.checks import check_array, check_int, check_real, contract
from .model import MeanFieldModel

__all__ = ["initial_state", "step", "trajectory"]


def initial_state(model: MeanFieldModel) -> dict[str, np.ndarray]:
    """t = 0: the token's ``(m^v_0, m^k_0)`` in slot 0 of the context, ``m^q_0``, and ``A_0 = m^v_0``.

    Keys: ``mv (L, M)``, ``mk (L, M)`` (slot ``t mod L`` holds step t), ``mq (M,)``, ``A (M,)``.
    """
    if not isinstance(model, MeanFieldModel):
        raise TypeError(f"model must be a MeanFieldModel (mfattn.dynamics.model); got {type(model).__name__}")
    M, L = model.num_features, model.context_size
    o, v, k, q = (model.token[i * M:(i + 1) * M] for i in range(4))  # rows [o; v; k; q]
    mv, mk = np.zeros((L, M)), np.zeros((L, M))
    mv[0], mk[0] = v, k
    return {"mv": mv, "mk": mk, "mq": q.copy(), "A": v.copy()}


@contract(t="int:0", beta="real:>=0", gamma="real", epsilon="real")
def step(model: MeanFieldModel, state: dict, t: int, beta: float, gamma: float = 220.0,
         epsilon: float = 0.02) -> tuple[dict, np.ndarray]:
    """One step from ``A_{t-1}`` (in ``state``) to ``A_t``. Returns ``(new state, m^o_t (M,))``.

    The context holds ``min(t + 1, L)`` valid slots: fewer after the token start, all L from a saved
    context (whose next step is t = L, as in the paper's code).
    """
    if not isinstance(model, MeanFieldModel):
        raise TypeError(f"model must be a MeanFieldModel (mfattn.dynamics.model); got {type(model).__name__}")
    if not isinstance(state, dict) or not {"A", "mv", "mk"} <= state.keys():
        raise ValueError("state must be a map state: a dict with 'A', 'mv' and 'mk' (initial_state or a previous "
                         f"step's); got {type(state).__name__}" + (f" with keys {sorted(state)}" if isinstance(state, dict)
                                                                   else ""))
    M, L = model.num_features, model.context_size
    for key, shape in (("A", (M,)), ("mv", (L, M)), ("mk", (L, M))):
        arr = check_array(f"state[{key!r}]", state[key], allow_int=True)   # finite reals: NaN would step to NaN
        if arr.shape != shape:
            raise ValueError(f"state[{key!r}] must have shape {shape} (M = {M} features, L = {L} slots); "
                             f"got {arr.shape}")
    return _step(model, state, t, beta, gamma, epsilon)


def _step(model: MeanFieldModel, state: dict, t: int, beta: float, gamma: float = 220.0,
          epsilon: float = 0.02) -> tuple[dict, np.ndarray]:
    """:func:`step` without its checks (the loop of :func:`trajectory`, whose arguments are checked once)."""
    M, L = model.num_features, model.context_size
    # s^x_b = Σ_c (n_c/N_SE) W^x_cb tanh(β W^o_c·A): rows of class_sign are [o; v; k; q], (4M, C).
    T = np.tanh(model.o_classes @ state["A"] * beta)  # (C,)
    s = model.class_sign @ (T * model.class_fraction)  # (4M,)
    s_o, s_v, s_k, s_q = (s[i * M:(i + 1) * M] for i in range(4))
    # m^x_t = (1-ε) s^x + ε π^x(t mod L); ε is written 1 - (1 - ε) as in the paper's code (same last digit).
    p = t % L
    keep = 1.0 - epsilon
    pi = model.positional[p]  # (4M,), rows [o; v; k; q]
    mv, mk = state["mv"].copy(), state["mk"].copy()
    mv[p] = s_v * keep + (1.0 - keep) * pi[M:2 * M]
    mk[p] = s_k * keep + (1.0 - keep) * pi[2 * M:3 * M]
    mq = s_q * keep + (1.0 - keep) * pi[3 * M:]
    # A_t = Σ_s softmax_s(g m^q_t·m^k_s) m^v_s over the valid slots (max subtracted for overflow).
    n = min(t + 1, L)  # from a saved context t starts at L, so all L slots count
    logit = (mk[:n] * mq).sum(axis=1) * (gamma / np.sqrt(M))
    w = np.exp(logit - logit.max())
    w = w / w.sum()
    A = (mv[:n] * w[:, None]).sum(axis=0)
    return {"mv": mv, "mk": mk, "mq": mq, "A": A}, s_o


@contract(beta="real:>=0", steps="int:1", gamma="real", epsilon="real",
          alloc=lambda a: [("steps", 8 * 16 * a["steps"])])
def trajectory(model: MeanFieldModel, beta: float, steps: int, gamma: float = 220.0,
               epsilon: float = 0.02) -> np.ndarray:
    """``m^o_t`` for t = 0 .. steps-1 from the initial token (``m^o_0`` is the token's own). (steps, M)."""
    check_real("beta", beta, minimum=0.0), check_int("steps", steps, 1)
    state = initial_state(model)
    out = [model.token[:model.num_features]]
    for t in range(1, steps):
        state, m_o = _step(model, state, t, beta, gamma, epsilon)
        out.append(m_o)
    return np.array(out)
