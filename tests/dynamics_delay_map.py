"""An independent oracle for the tangent analyses: the mean-field map in delay coordinates, built from the
one-β reference map (:mod:`mfattn.dynamics.map`) and differentiated by central finite differences.

The state of the dynamics is the last L attentions ``z = (A_{t-1}, …, A_{t-L})``: each window slot s is
written from ``A_{s-1}`` and ``A_t`` is the softmax average over the slots s = t-L+1 … t.
"""

import numpy as np

from mfattn.dynamics import map as mf_map


def next_attention(model, beta, z, t):
    """A_t from z = (A_{t-1}, …, A_{t-L}) (L, M), by writing the L slots with map.step (t >= L - 1)."""
    L, M = model.context_size, model.num_features
    st = {"mv": np.zeros((L, M)), "mk": np.zeros((L, M)), "mq": np.zeros(M), "A": None}
    for s in range(t - L + 1, t + 1):
        st = dict(st, A=z[t - s])  # slot s is written from A_{s-1} = z[t - s]
        st, _ = mf_map.step(model, st, s, beta)
    return st["A"]


def state_after(model, beta, z, t):
    """map.step's state after step t (keys mv, mk (L, M) with slot s at s mod L, mq, A) as a function of
    z = (A_{t-1}, …, A_{t-L}) (L, M): the slots s = t-L+1 … t written from A_{s-1}, then A_t."""
    L, M = model.context_size, model.num_features
    st = {"mv": np.zeros((L, M)), "mk": np.zeros((L, M)), "mq": np.zeros(M), "A": None}
    for s in range(t - L + 1, t + 1):
        st = dict(st, A=z[t - s])
        st, _ = mf_map.step(model, st, s, beta)
    return st


def stored_state(model, beta, z, t):
    """The engine's stored state after step t as a function of z: A_t and the window's L pairs (m^v_s, m^k_s),
    (M + 2LM,) in the order [A; m^v; m^k] (the engine orders the same numbers otherwise: a permutation, which
    changes no volume)."""
    st = state_after(model, beta, z, t)
    return np.concatenate([st["A"], st["mv"].ravel(), st["mk"].ravel()])


def advance(model, beta, z, t, n):
    """n steps of the delay map from z at time t; returns the new z (L, M)."""
    z = np.array(z, dtype=np.float64)
    for u in range(t, t + n):
        z = np.concatenate([next_attention(model, beta, z, u)[None], z[:-1]])
    return z


def attentions(model, beta, steps):
    """A_t for t = 0 … steps-1 from the token, by the reference map; (steps, M)."""
    st = mf_map.initial_state(model)
    out = [st["A"]]
    for t in range(1, steps):
        st, _ = mf_map.step(model, st, t, beta)
        out.append(st["A"])
    return np.array(out)


def jacobian(model, beta, z, t, n, h=1e-6):
    """∂(n-step delay map)/∂z by central differences, (LM, LM) in the flattened z."""
    z = np.asarray(z, dtype=np.float64)
    d = z.size
    J = np.empty((d, d))
    for j in range(d):
        e = np.zeros(d)
        e[j] = h
        plus = advance(model, beta, (z.ravel() + e).reshape(z.shape), t, n)
        minus = advance(model, beta, (z.ravel() - e).reshape(z.shape), t, n)
        J[:, j] = (plus - minus).ravel() / (2 * h)
    return J
