"""Attention layers read as mean-field fixed points of vector-spin models (Bal, 2021).

A system of ``N`` vector spins ``S_i ∈ R^d`` with couplings ``J_ij`` (d×d blocks, zero on
the diagonal) and sources ``X_i`` (the layer's input) has, at the level of mean field, the
magnetisations ``m_i`` solving

    m_i = Σ_j J_ij m_j + X_i − (Onsager self-correction)_i .

The "fast and neural" layer of the blog post lives here:

* :class:`MeanFieldAttention` ("fast and neural"): the self-correction is a feed-forward
  net ``f_θ`` shared by all sites, applied to the naive update ``g_i = Σ_j J_ij m_j + X_i``
  (``correction="g"``: ``m_i = g_i − f_θ(g_i)``, the published MNIST result) or to the state
  (``correction="m"``: ``m_i = g_i − f_θ(m_i)``, the reference code's later version);
  ``lin_response=False`` drops it (naive mean field). The sum over couplings is linear
  (learned ``J``), softmax-coupled (``J_ij = Σ_h softmax_j(q_i·k_j/√d_h) W_O^h W_V^h`` with
  ``q, k`` computed from the sources, as in a transformer) or an MLP across sites (mixer).
The "slow and explicit" layer, adaptive TAP for vector spins, is :mod:`.vector_tap`; the reading of a
transformer block as one naive step of the softmax-coupled layer is :mod:`.transformer`.

The layer is a DEQ (:func:`mfattn.deq.deq_fixed_point`): forward by a fixed-point solver,
backward by the implicit function theorem (or the phantom gradient).
"""

from __future__ import annotations

import math
from typing import Any, Optional

import torch
import torch.nn.functional as F
from torch import nn

from ..companion.checks import check_bool, check_choice, check_int, contract
from ..deq import SOLVERS, deq_fixed_point
# the update's kernels and the sources' check live in a module of their own; re-exported for the layer's users
from .meanfield_kernels import _check_source, _effective_coupling_count, _feed_forward_t, _linear_step  # noqa: F401

__all__ = ["MeanFieldAttention", "FeedForward", "symmetrise_couplings", "couplings_to_matrix", "SYMMETRIES",
           "INTERACTIONS", "CORRECTIONS"]

SYMMETRIES = (None, "internal", "site", "both", "energy")
INTERACTIONS = ("linear", "softmax", "mixer")
CORRECTIONS = ("g", "m")


def _positive_int(name: str, value: Any) -> int:
    return check_int(name, value, 1)


@contract(weight="tensor:4")
def symmetrise_couplings(weight: torch.Tensor, symmetry: Optional[str]) -> torch.Tensor:
    """Symmetrised couplings with zero diagonal blocks.

    Args:
        weight: (N, N, d, d) raw couplings ``W_ij``.
        symmetry: ``None``; ``"internal"`` ``J_ij = ½(W_ij + W_ijᵀ)``; ``"site"``
            ``J_ij = ½(W_ij + W_ji)``; ``"both"`` (internal then site: ``J_ij = J_ijᵀ = J_ji``);
            ``"energy"`` ``J_ij = ½(W_ij + W_jiᵀ)``, the symmetry an energy
            ``−½ Σ_ij S_iᵀ J_ij S_j`` imposes (the (Nd×Nd) matrix is symmetric).

    Returns:
        (N, N, d, d) couplings ``J`` with ``J_ii = 0``.
    """
    check_choice("symmetry", symmetry, SYMMETRIES)
    if weight.shape[0] != weight.shape[1] or weight.shape[2] != weight.shape[3]:
        raise ValueError(f"weight must have shape (N, N, d, d) (square in sites and in blocks); "
                         f"got {tuple(weight.shape)}")
    w = weight
    if symmetry in ("internal", "both"):
        w = 0.5 * (w + w.transpose(2, 3))
    if symmetry in ("site", "both"):
        w = 0.5 * (w + w.transpose(0, 1))
    if symmetry == "energy":
        w = 0.5 * (w + w.permute(1, 0, 3, 2))
    n = w.shape[0]
    off = 1.0 - torch.eye(n, dtype=w.dtype, device=w.device)
    return w * off[:, :, None, None]


@contract(J="tensor:4")
def couplings_to_matrix(J: torch.Tensor) -> torch.Tensor:
    """(N, N, d, d) couplings -> (N·d, N·d) matrix ``M[(i,a),(j,b)] = J[i,j,a,b]``."""
    if not isinstance(J, torch.Tensor) or J.dim() != 4 or J.shape[0] != J.shape[1] or J.shape[2] != J.shape[3]:
        got = tuple(J.shape) if isinstance(J, torch.Tensor) else type(J).__name__
        raise ValueError(f"J must be a tensor of couplings of shape (N, N, d, d); got {got}")
    n, _, d, _ = J.shape
    return J.permute(0, 2, 1, 3).reshape(n * d, n * d)


class FeedForward(nn.Sequential):
    """Two-layer perceptron ``Linear(d, mult·d) → GELU → Linear(mult·d, d)`` on the last axis."""

    @contract(dim="int:1", mult="int:1", dim_out="int:1?", alloc=lambda a: [("dim", 16 * a["dim"] ** 2 * a["mult"])])
    def __init__(self, dim: int, mult: int = 4, dim_out: Optional[int] = None):
        inner = int(dim * mult)
        super().__init__(nn.Linear(dim, inner), nn.GELU(), nn.Linear(inner, dim_out or dim))

    def forward(self, input: torch.Tensor) -> torch.Tensor:
        """The net on the last axis of ``input`` (..., dim), checked (the layer's solver loop calls the unchecked
        ``nn.Sequential.forward``)."""
        dim = self[0].in_features
        if not isinstance(input, torch.Tensor):
            raise TypeError(f"input must be a torch.Tensor (..., {dim}); got {type(input).__name__}")
        if input.dim() < 1 or input.shape[-1] != dim:
            raise ValueError(f"input must have the net's dim ({dim}) as its last dimension; "
                             f"got shape {tuple(input.shape)}")
        return super().forward(input)


class MeanFieldAttention(nn.Module):
    """Deep implicit attention: the fixed point ``m*`` of a parametrised mean-field update.

    ``m_i = g_i − f_θ(·)``, ``g_i = Σ_j J_ij m_j + X_i`` (see the module docstring), solved as
    a DEQ. Shapes: input ``x`` (B, N, d) is the source term; output (B, N, d) is ``m*``.

    Args:
        num_spins: N. dim: d.
        symmetry: for ``interaction="linear"``: one of :data:`SYMMETRIES` (default
            ``"internal"``, via ``"auto"``); the other interactions have no coupling tensor,
            so only ``None``/``"auto"`` are accepted there.
        interaction: ``"linear"`` (learned J, N²d² raw parameters), ``"softmax"``
            (transformer-style couplings from the sources; ``heads``, ``dim_head``,
            ``values``), ``"mixer"`` (MLP across the site axis).
        lin_response: include the feed-forward self-correction (False: naive mean field).
        correction: ``"g"`` (applied to the naive update) or ``"m"`` (applied to the state).
        solver, max_iter, tol: forward solve (``solver`` in :data:`mfattn.deq.SOLVERS`).
        backward_solver (default: ``solver``), backward_max_iter, backward_tol: adjoint solve.
        grad: ``"implicit"`` or ``"phantom"`` (``phantom_steps``, ``phantom_tau``).
        solver_options / backward_options: extra :func:`mfattn.deq.solve` options
            (``memory``, ``damping``, ``ridge``, ``on_fail``, ...).
        weight_init_std: std of the raw couplings (default ``1/√(N d²)``, so ‖J‖ = O(1)).
        ff_mult: hidden width multiplier of ``f_θ``. init: ``"zeros"`` or ``"source"`` (z0 = x).

    Attributes:
        last_stats: ``{"forward": SolverStats, "backward": SolverStats | None}`` of the latest
            call; ``"backward"`` is filled in when its backward pass runs.
    """

    @contract(num_spins="int:1", dim="int:1", max_iter="int:1", tol="real:>0", backward_max_iter="int:1",
              backward_tol="real:>0", phantom_steps="int:1", phantom_tau="real:(0,1]", weight_init_std="real:>=0?",
              ff_mult="int:1", heads="int:1", dim_head="int:1?", generator="generator?",
              alloc=lambda a: [("num_spins", 16 * a["heads"] * (a["num_spins"] * a["dim"]) ** 2)])
    def __init__(self, num_spins: int, dim: int, *, symmetry: Optional[str] = "auto",
                 interaction: str = "linear", lin_response: bool = True, correction: str = "g",
                 solver: str = "anderson", max_iter: int = 40, tol: float = 1e-4,
                 backward_solver: Optional[str] = None, backward_max_iter: int = 40,
                 backward_tol: float = 1e-4, grad: str = "implicit",
                 solver_options: Optional[dict] = None, backward_options: Optional[dict] = None,
                 phantom_steps: int = 1, phantom_tau: float = 1.0,
                 weight_init_std: Optional[float] = None, ff_mult: int = 4, heads: int = 1,
                 dim_head: Optional[int] = None, values: bool = True, init: str = "zeros",
                 generator: Optional[torch.Generator] = None):
        super().__init__()
        self.num_spins = _positive_int("num_spins", num_spins)
        self.dim = _positive_int("dim", dim)
        self.interaction = check_choice("interaction", interaction, INTERACTIONS)
        if symmetry == "auto":
            symmetry = "internal" if interaction == "linear" else None
        check_choice("symmetry", symmetry, SYMMETRIES)
        if interaction != "linear" and symmetry is not None:
            raise ValueError(f"symmetry={symmetry!r} needs interaction='linear' (the {interaction!r} "
                             f"interaction has no coupling tensor to symmetrise); use symmetry=None")
        self.symmetry = symmetry
        if not isinstance(lin_response, bool):
            raise TypeError(f"lin_response must be True or False (the Onsager correction on or off); "
                            f"got {lin_response!r}")
        self.lin_response = lin_response
        self.correction_on = check_choice("correction", correction, CORRECTIONS)
        self.solver = check_choice("solver", solver, SOLVERS)
        self.backward_solver = check_choice("backward_solver", backward_solver or solver, SOLVERS)
        self.grad = check_choice("grad", grad, ("implicit", "phantom"))
        self.init = check_choice("init", init, ("zeros", "source"))
        self.max_iter, self.tol = max_iter, tol
        self.backward_max_iter, self.backward_tol = backward_max_iter, backward_tol
        for name, given in (("solver_options", solver_options), ("backward_options", backward_options)):
            if given is not None and not isinstance(given, dict):
                raise TypeError(f"{name} must be None or a dict of solver options; got {type(given).__name__}")
        self.solver_options = dict(solver_options or {})
        self.backward_options = dict(backward_options or {})
        self.phantom_steps, self.phantom_tau = phantom_steps, phantom_tau
        # Fail now, not at the first forward, on a bad solver setting.
        from ..deq import _resolve_options
        _resolve_options(self.solver, max_iter, tol, self.solver_options)
        _resolve_options(self.backward_solver, backward_max_iter, backward_tol, self.backward_options)

        n, d = self.num_spins, self.dim
        if interaction == "linear":
            std = weight_init_std if weight_init_std is not None else 1.0 / math.sqrt(n * d * d)
            self.weight = nn.Parameter(torch.randn(n, n, d, d, generator=generator) * std)
        elif interaction == "softmax":
            self.heads = _positive_int("heads", heads)
            self.dim_head = _positive_int("dim_head", dim_head if dim_head is not None else max(d // heads, 1))
            inner = self.heads * self.dim_head
            self.values = bool(values)
            self.to_q = nn.Linear(d, inner, bias=False)
            self.to_k = nn.Linear(d, inner, bias=False)
            self.to_v = nn.Linear(d, inner, bias=False) if values else None
            if not values and inner != d:
                raise ValueError(f"values=False needs heads*dim_head == dim ({d}); got {inner}")
            self.to_out = nn.Linear(inner, d, bias=False)
        else:
            self.sites = FeedForward(n, mult=ff_mult)
        self.correction = FeedForward(d, mult=ff_mult) if self.lin_response else None
        if generator is not None:
            # Draw every other parameter from the same generator: construction is reproducible.
            with torch.no_grad():
                for mod in self.modules():
                    if isinstance(mod, nn.Linear):
                        bound = 1.0 / math.sqrt(mod.in_features)  # torch's default range
                        for p in (mod.weight, mod.bias):
                            if p is not None:
                                p.copy_((torch.rand(p.shape, generator=generator) * 2 - 1) * bound)
        self.last_stats: dict = {"forward": None, "backward": None}

    # -- couplings -------------------------------------------------------------------------
    def couplings(self) -> torch.Tensor:
        """(N, N, d, d) symmetrised couplings ``J`` with zero diagonal (linear interaction)."""
        if self.interaction != "linear":
            raise ValueError(f"couplings() needs interaction='linear'; this layer is {self.interaction!r} "
                             f"(use attention_matrix(x) for 'softmax')")
        return symmetrise_couplings(self.weight, self.symmetry)

    def coupling_matrix(self) -> torch.Tensor:
        """(N·d, N·d) matrix of :meth:`couplings` (rows (i,a), columns (j,b))."""
        return couplings_to_matrix(self.couplings())

    def attention_matrix(self, x: torch.Tensor) -> torch.Tensor:
        """(B, heads, N, N) couplings ``softmax_j(q_i·k_j / √d_h)`` of the softmax interaction."""
        if self.interaction != "softmax":
            raise ValueError(f"attention_matrix() needs interaction='softmax'; this layer is {self.interaction!r}")
        self._check_state("x", x)
        B, n, _ = x.shape
        q = self.to_q(x).view(B, n, self.heads, self.dim_head).transpose(1, 2)
        k = self.to_k(x).view(B, n, self.heads, self.dim_head).transpose(1, 2)
        return torch.softmax(q @ k.transpose(-1, -2) / math.sqrt(self.dim_head), dim=-1)

    def coupling_norms(self, x: Optional[torch.Tensor] = None) -> torch.Tensor:
        """Frobenius norms ``‖J_ij‖_F``: (N, N) for 'linear' (zero diagonal);
        (B, N, N) for 'softmax' given the sources ``x`` (``‖Σ_h A^h_ij W_O^h W_V^h‖_F``)."""
        if self.interaction == "linear":
            return self.couplings().norm(dim=(2, 3))
        if self.interaction == "softmax":
            if x is None:
                raise ValueError("coupling_norms() of a softmax layer needs the sources x (B, N, d)")
            x = _check_source(x, self.num_spins, self.dim)
            A = self.attention_matrix(x)                                   # (B, h, N, N)
            blocks = self._head_maps()                                      # (h, d, d)
            J = torch.einsum("bhij,hcd->bijcd", A, blocks)
            return J.norm(dim=(3, 4))
        raise ValueError("coupling_norms() is not defined for the 'mixer' interaction (no pairwise couplings)")

    def _head_maps(self) -> torch.Tensor:
        """(h, d, d) per-head value-output maps ``W_O^h W_V^h``."""
        d, h, dh = self.dim, self.heads, self.dim_head
        Wo = self.to_out.weight.view(d, h, dh).permute(1, 0, 2)             # (h, d, dh)
        if self.to_v is None:
            return Wo @ torch.eye(d, dtype=Wo.dtype, device=Wo.device).view(h, dh, d)
        Wv = self.to_v.weight.view(h, dh, d)                                # (h, dh, d)
        return Wo @ Wv

    def parameter_counts(self) -> dict:
        """``raw``: trainable numbers stored; ``effective``: free ones (couplings counted after
        symmetry and the zero diagonal). Also ``couplings_raw``, ``couplings_effective`` and
        ``correction`` (the feed-forward net)."""
        raw = sum(p.numel() for p in self.parameters() if p.requires_grad)
        corr = sum(p.numel() for p in self.correction.parameters()) if self.correction is not None else 0
        if self.interaction == "linear":
            c_raw = self.weight.numel()
            c_eff = _effective_coupling_count(self.num_spins, self.dim, self.symmetry)
        else:
            c_raw = c_eff = raw - corr
        return {"raw": raw, "effective": raw - c_raw + c_eff, "couplings_raw": c_raw,
                "couplings_effective": c_eff, "correction": corr}

    # -- the mean-field update ---------------------------------------------------------------
    def _check_state(self, name: str, t: Any, like: Optional[torch.Tensor] = None) -> None:
        """``t`` must be sources or a state (B, N, d) of this layer in its parameters' dtype (and of ``like``'s shape
        when given): shapes and dtypes only, no pass over the values (the public methods' boundary)."""
        n, d = self.num_spins, self.dim
        if not isinstance(t, torch.Tensor):
            raise TypeError(f"{name} must be a torch.Tensor of shape (B, num_spins={n}, dim={d}); "
                            f"got {type(t).__name__}")
        if t.dim() != 3 or t.shape[1] != n or t.shape[2] != d or (like is not None and t.shape != like.shape):
            want = f"x's {tuple(like.shape)}" if like is not None else f"(B, num_spins={n}, dim={d})"
            raise ValueError(f"{name} must have shape {want}; got {tuple(t.shape)}")
        dtype = next(self.parameters()).dtype
        if t.dtype != dtype:
            raise TypeError(f"{name} has dtype {t.dtype} but the layer's parameters are {dtype}: cast {name}, or the "
                            f"layer (layer.double() / layer.float())")

    def _check_cache(self, cache: Any, m: torch.Tensor) -> None:
        """``cache`` must be what :meth:`prepare` gives for states like ``m`` (B, N, d): the (Nd, Nd) coupling matrix
        (linear) or the (B, h, N, N) attention matrix (softmax; its batch 1 or B); the mixer reads none."""
        n, d = self.num_spins, self.dim
        if self.interaction == "mixer":
            return
        if self.interaction == "linear":
            want = f"({n * d}, {n * d}), the coupling matrix"
            fits = isinstance(cache, torch.Tensor) and tuple(cache.shape) == (n * d, n * d)
        else:
            want = f"(B, heads, N, N) = ({m.shape[0]}, {self.heads}, {n}, {n}), the attention matrix"
            fits = (isinstance(cache, torch.Tensor) and cache.dim() == 4
                    and tuple(cache.shape[1:]) == (self.heads, n, n) and cache.shape[0] in (1, m.shape[0]))
        if not isinstance(cache, torch.Tensor):
            raise TypeError(f"cache must be prepare(x): a torch.Tensor of shape {want}; got {type(cache).__name__}")
        if not fits or cache.dtype != m.dtype:
            raise ValueError(f"cache must be prepare(x): shape {want}, dtype {m.dtype}; got {tuple(cache.shape)}, "
                             f"{cache.dtype}")

    def prepare(self, x: torch.Tensor) -> Any:
        """What the update reuses at every iteration of one forward: the (Nd, Nd) coupling
        matrix (linear) or the (B, h, N, N) attention matrix (softmax)."""
        self._check_state("x", x)
        if self.interaction == "linear":
            return self.coupling_matrix()
        if self.interaction == "softmax":
            return self.attention_matrix(x)
        return None

    def sum_over_couplings(self, m: torch.Tensor, cache: Any) -> torch.Tensor:
        """``Σ_j J_ij m_j`` for the state ``m`` (B, N, d) -> (B, N, d); ``cache`` is :meth:`prepare` (x)."""
        self._check_state("m", m)
        self._check_cache(cache, m)
        out = self._sum_over_couplings(m, cache)
        if not bool(torch.isfinite(out).all()):   # one pass over the result (not the solver's loop): no silent NaN
            raise ValueError("m or cache holds NaN/inf, or their product overflows: sum_over_couplings gave "
                             f"{int((~torch.isfinite(out)).sum())} non-finite entries")
        return out

    def _sum_over_couplings(self, m: torch.Tensor, cache: Any) -> torch.Tensor:
        """:meth:`sum_over_couplings` unchecked (the solver's loop)."""
        B, n, d = m.shape
        if self.interaction == "linear":
            return (m.reshape(B, n * d) @ cache.T).view(B, n, d)
        if self.interaction == "softmax":
            v = self.to_v(m) if self.to_v is not None else m
            v = v.view(B, n, self.heads, self.dim_head).transpose(1, 2)     # (B, h, N, dh)
            out = (cache @ v).transpose(1, 2).reshape(B, n, self.heads * self.dim_head)
            return self.to_out(out)
        return nn.Sequential.forward(self.sites, m.transpose(1, 2)).transpose(1, 2)   # unchecked: the solver's loop

    def update(self, m: torch.Tensor, x: torch.Tensor, cache: Any = None, *,
               lin_response: Optional[bool] = None) -> torch.Tensor:
        """One mean-field step ``m -> g − f_θ(g or m)`` with ``g = Σ_j J_ij m_j + x``.

        ``cache`` is :meth:`prepare` (x) (computed here when None); ``lin_response=False``
        gives the naive step ``m -> g`` (None: the layer's own; else True or False, never a string).
        ``x`` (B, N, d) in the layer's dtype, ``m`` of its shape.
        """
        if lin_response is not None:
            lin_response = check_bool("lin_response", lin_response)
        self._check_state("x", x)
        self._check_state("m", m, like=x)
        if cache is not None:
            self._check_cache(cache, m)
        return self._update(m, x, cache, lin_response=lin_response)

    def _update(self, m: torch.Tensor, x: torch.Tensor, cache: Any = None, *,
                lin_response: Optional[bool] = None) -> torch.Tensor:
        """:meth:`update` unchecked (the solver's loop)."""
        if cache is None:
            cache = self.prepare(x)
        weights = self._step_weights(lin_response)
        if self.interaction == "linear":
            B, n, d = m.shape
            return _linear_step(m.reshape(B, n * d), x.reshape(B, n * d), cache.T, weights).view(B, n, d)
        g = self._sum_over_couplings(m, cache) + x
        if weights is None:
            return g
        W1, b1, W2, b2col, on_g = weights
        h = g if on_g else m
        return g - _feed_forward_t(h.reshape(-1, self.dim), W1, b1, W2, b2col).t().reshape(h.shape)

    def _step_weights(self, lin_response: Optional[bool] = None) -> Optional[tuple]:
        """``(W1, b1, W2, b2 as a (d, 1) column, on_g)`` of the correction net, or ``None`` for
        the naive step (``lin_response`` False here or, when None, in the layer)."""
        use = self.lin_response if lin_response is None else lin_response
        if not use:
            return None
        if self.correction is None:
            raise ValueError("this layer was built with lin_response=False; it has no correction net")
        first, _, last = self.correction
        return first.weight, first.bias, last.weight, last.bias[:, None], self.correction_on == "g"

    def adjoint_vjp(self, m_star: torch.Tensor, x: torch.Tensor, cache: Any):
        """Closed-form ``v -> J_fᵀ v`` of the update at ``m_star`` (linear interaction).

        With ``M`` the (Nd, Nd) coupling matrix and ``D = f_θ'`` (site-wise,
        ``W2 diag(gelu'(W1 h + b1)) W1``) evaluated at ``h = g*`` or ``h = m*``:

            correction on g:  J_f = (I − D) M    ->  J_fᵀ v = Mᵀ (v − Dᵀ v)
            correction on m:  J_f = M − D        ->  J_fᵀ v = Mᵀ v − Dᵀ v
            naive:            J_f = M            ->  J_fᵀ v = Mᵀ v

        (rows: ``Mᵀ v`` is ``v_flat @ M``). Returns a function ``v -> J_fᵀ v`` for ``v`` of shape
        (B, N, d) or flat (B, N·d), keeping the shape, or ``None`` for the softmax and mixer
        interactions (autograd does those).
        """
        if self.interaction != "linear":
            return None
        self._check_state("x", x)
        self._check_state("m_star", m_star, like=x)
        self._check_cache(cache, m_star)
        B, n, d = m_star.shape
        M = cache
        weights = self._step_weights()
        if weights is None:
            return lambda v: torch.mm(v.reshape(B, n * d), M).view(v.shape)
        W1, b1, W2, _, on_g = weights                       # W1 (k, d), W2 (d, k)
        h = self._update(m_star, x, cache, lin_response=False) if on_g else m_star
        a = F.linear(h.reshape(B * n, d), W1, b1)            # (B·N, k) pre-activations
        # gelu'(a) = Φ(a) + a φ(a), by the kernel autograd itself uses for nn.GELU().
        slope = torch.ops.aten.gelu_backward(torch.ones_like(a), a)
        W1T = W1.t()

        def dt(v2: torch.Tensor) -> torch.Tensor:
            """``Dᵀ v`` on (B·N, d) rows, as a transposed view: the narrow (B·N, d) output
            is several times faster computed as its (d, B·N) transpose."""
            return torch.mm(W1T, torch.mm(v2, W2).mul_(slope).t()).t()

        if on_g:
            def vjp(v: torch.Tensor) -> torch.Tensor:
                v2 = v.reshape(B * n, d)
                return torch.mm(torch.sub(v2, dt(v2)).view(B, n * d), M).view(v.shape)
        else:
            def vjp(v: torch.Tensor) -> torch.Tensor:
                Mv = torch.mm(v.reshape(B, n * d), M).view(B * n, d)
                return torch.sub(Mv, dt(v.reshape(B * n, d))).view(v.shape)
        return vjp

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """Fixed point ``m*`` (B, N, d) of :meth:`update` for the sources ``x`` (B, N, d)."""
        x = _check_source(x, self.num_spins, self.dim, next(self.parameters()).dtype)
        B, n, d = x.shape
        cache = self.prepare(x)  # symmetrised couplings built once per forward
        fwd = {"method": self.solver, "max_iter": self.max_iter, "tol": self.tol, **self.solver_options}
        if self.grad == "implicit":
            bwd = {"method": self.backward_solver, "max_iter": self.backward_max_iter,
                   "tol": self.backward_tol, **self.backward_options}
        else:
            bwd = {"steps": self.phantom_steps, "tau": self.phantom_tau}
        params = [x, *self.parameters()]
        z0 = torch.zeros_like(x) if self.init == "zeros" else x.detach()
        if self.interaction != "linear":
            def f(m: torch.Tensor) -> torch.Tensor:
                return self._update(m, x, cache)

            z, self.last_stats = deq_fixed_point(f, z0, params, forward=fwd, backward=bwd, grad=self.grad)
            return z

        # Learned couplings: the solver iterates flat (B, N·d) states through _linear_step,
        # with the coupling matrix and the correction's weights fetched once here.
        x2, MT, weights = x.reshape(B, n * d), cache.T, self._step_weights()

        def f2(m2: torch.Tensor) -> torch.Tensor:
            return _linear_step(m2, x2, MT, weights)

        def closed_adjoint(z_star: torch.Tensor):
            return self.adjoint_vjp(z_star.view(B, n, d), x.detach(), cache.detach())

        z2, self.last_stats = deq_fixed_point(f2, z0.reshape(B, n * d), params, forward=fwd, backward=bwd,
                                              grad=self.grad, vjp=closed_adjoint if self.grad == "implicit" else None)
        return z2.view(B, n, d)
