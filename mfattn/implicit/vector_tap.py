"""The "slow and explicit" layer of Deep Implicit Attention (Bal 2021): adaptive TAP for vector spins.

Vector spins ``S_i ∈ R^d`` with a Gaussian prior ``p(S_i) ∝ exp(−½ S_iᵀ P_i S_i)``, couplings ``J_ij``
(d×d blocks) and sources ``X_i``. Cavity variances ``V_i`` (d×d, one per site, no batch copy) solve
``V_i = Λ_i − [(Λ − J)⁻¹]_ii⁻¹`` with ``Λ_i = V_i + χ_i⁻¹``, ``χ_i = (P_i − V_i)⁻¹``; magnetisations
solve ``m_i = χ_i(Σ_j J_ij m_j − V_i m_i + X_i)``. For a Gaussian prior ``Λ ≡ P`` and this is exact:
``m = (P − J)⁻¹ X`` (:meth:`VectorSpinTAP.closed_form`), at an ``O((Nd)³)`` cost per linear-response
solve (:func:`explicit_tap_cost` measures it). The float64 numpy reference of the same equations is
:func:`mfattn.ising.gaussian_vector_tap`.
"""

from __future__ import annotations

import math
import time

import numpy as np
from typing import Any, Optional, Sequence

import torch
from torch import nn

from ..companion.checks import check_alloc, check_bool, check_choice, check_int, contract
from ..deq import SOLVERS, deq_fixed_point
from .meanfield import SYMMETRIES, _check_source, _positive_int, couplings_to_matrix, symmetrise_couplings

__all__ = ["VectorSpinTAP", "explicit_tap_cost", "cost_exponent", "explicit_cost_scaling"]


class VectorSpinTAP(nn.Module):
    """Adaptive TAP for vector spins with a Gaussian prior ("slow and explicit" attention).

    Model: ``p(S) ∝ exp(½ Σ_ij S_iᵀ J_ij S_j + Σ_i X_i·S_i − ½ Σ_i S_iᵀ P_i S_i)``.
    Adaptive TAP (Opper & Winther 2001) with cavity variances ``V_i`` (d×d):

        χ_i = (P_i − V_i)⁻¹,    m_i = χ_i (Σ_j J_ij m_j − V_i m_i + X_i),
        Λ_i = V_i + χ_i⁻¹,      C = (Λ − J)⁻¹  (linear response, (Nd)×(Nd)),
        V_i = Λ_i − (C_ii)⁻¹.

    The ``V`` equations do not involve the batch: they are solved once per forward (a DEQ on
    a batch of one), then ``m`` for the whole batch (a second DEQ, using ``V*``). Each
    ``V`` update inverts an (Nd)×(Nd) matrix: ``O((Nd)³)``. For a Gaussian prior adaptive TAP
    is exact, ``m* = (P − J)⁻¹ X`` (:meth:`closed_form`) and ``χ_i = C_ii``.

    Args:
        num_spins, dim: N, d. symmetry: of the couplings (default ``"both"``, which makes the
            (Nd×Nd) coupling matrix symmetric, as an energy requires; ``"energy"`` does too).
        prior_precision: P, a scalar or (d, d) or (N, d, d) positive-definite tensor (buffer).
        lin_response: False drops the Onsager term (V = 0, naive mean field).
        solver, max_iter, tol, backward_*, grad: as in :class:`MeanFieldAttention`.
    """

    @contract(num_spins="int:1", dim="int:1", prior_precision="realt", weight_init_std="real:>=0?", max_iter="int:1",
              tol="real:>0", backward_max_iter="int:1", backward_tol="real:>0", generator="generator?",
              alloc=lambda a: [("num_spins", 48 * (a["num_spins"] * a["dim"]) ** 2)])
    def __init__(self, num_spins: int, dim: int, *, symmetry: Optional[str] = "both",
                 prior_precision: Any = 1.0, lin_response: bool = True, weight_init_std: Optional[float] = None,
                 solver: str = "anderson", max_iter: int = 200, tol: float = 1e-8,
                 backward_max_iter: int = 200, backward_tol: float = 1e-8, grad: str = "implicit",
                 solver_options: Optional[dict] = None, generator: Optional[torch.Generator] = None):
        super().__init__()
        n, d = _positive_int("num_spins", num_spins), _positive_int("dim", dim)
        self.num_spins, self.dim = n, d
        self.symmetry = check_choice("symmetry", symmetry, SYMMETRIES)
        self.lin_response = check_bool("lin_response", lin_response)
        self.solver = check_choice("solver", solver, SOLVERS)
        self.grad = check_choice("grad", grad, ("implicit", "phantom"))
        self.max_iter, self.tol = max_iter, tol
        self.backward_max_iter, self.backward_tol = backward_max_iter, backward_tol
        self.solver_options = dict(solver_options or {})
        std = weight_init_std if weight_init_std is not None else 1.0 / math.sqrt(n * d * d)
        self.weight = nn.Parameter(torch.randn(n, n, d, d, generator=generator) * std)
        P = torch.as_tensor(prior_precision, dtype=torch.get_default_dtype())
        if P.dim() == 0:
            P = P * torch.eye(d)
        if P.dim() == 2 and P.shape != (d, d):
            raise ValueError(f"prior_precision must be a scalar, (d, d) = ({d}, {d}) or (N, d, d); got shape "
                             f"{tuple(P.shape)}")
        if P.dim() == 2:
            P = P.expand(n, d, d)
        if P.shape != (n, d, d):
            raise ValueError(f"prior_precision must be a scalar, (d, d) or (N, d, d) = ({n}, {d}, {d}); "
                             f"got shape {tuple(P.shape)}")
        if not bool((torch.linalg.eigvalsh(0.5 * (P + P.transpose(1, 2))) > 0).all()):
            raise ValueError("prior_precision must be positive definite")
        self.register_buffer("prior_precision", P.clone().contiguous())
        self.last_stats: dict = {}

    def couplings(self) -> torch.Tensor:
        """(N, N, d, d) symmetrised couplings with zero diagonal blocks."""
        return symmetrise_couplings(self.weight, self.symmetry)

    def closed_form(self, x: torch.Tensor) -> torch.Tensor:
        """Exact magnetisations of the Gaussian model, ``m = (P − J)⁻¹ X``; (B, N, d)."""
        x = _check_source(x, self.num_spins, self.dim)
        B, n, d = x.shape
        A = torch.block_diag(*self.prior_precision.to(x.dtype)) - couplings_to_matrix(self.couplings().to(x.dtype))
        return torch.linalg.solve(A, x.reshape(B, n * d).T).T.reshape(B, n, d)

    def closed_form_covariance(self) -> torch.Tensor:
        """Exact covariance ``(P − J)⁻¹`` as an (N·d, N·d) matrix; a ValueError when ``P − J`` (its symmetric part)
        is not positive definite: the couplings are then too strong for the prior, and no Gaussian model (no
        covariance) exists."""
        A = torch.block_diag(*self.prior_precision) - couplings_to_matrix(self.couplings())
        with torch.no_grad():
            low = float(torch.linalg.eigvalsh(0.5 * (A + A.T)).min())
        if not low > 0:
            raise ValueError(f"the couplings (weight) make P - J not positive definite (smallest eigenvalue {low:.3g}) "
                             f"for prior_precision: no Gaussian model, so no covariance; use weaker couplings "
                             f"(weight_init_std) or a larger prior_precision")
        return torch.linalg.inv(A)

    def _check_cavity(self, name: str, V: Any) -> None:
        """``V`` must be cavity variances (N, d, d) of this layer, in a floating dtype (cheap: shape and dtype only)."""
        n, d = self.num_spins, self.dim
        if not isinstance(V, torch.Tensor):
            raise TypeError(f"{name} must be a torch.Tensor of cavity variances (N, d, d) = ({n}, {d}, {d}); "
                            f"got {type(V).__name__}")
        if tuple(V.shape) != (n, d, d) or not V.is_floating_point():
            raise ValueError(f"{name} must be cavity variances of shape (N, d, d) = ({n}, {d}, {d}), floating point; "
                             f"got shape {tuple(V.shape)}, dtype {V.dtype}")

    def _check_matrix(self, M: Any, dtype: torch.dtype) -> None:
        """``M`` must be the (Nd, Nd) coupling matrix of this layer in ``dtype`` (cheap: shape and dtype only)."""
        nd = self.num_spins * self.dim
        if not isinstance(M, torch.Tensor):
            raise TypeError(f"M must be a torch.Tensor, the coupling matrix (Nd, Nd) = ({nd}, {nd}); "
                            f"got {type(M).__name__}")
        if tuple(M.shape) != (nd, nd) or M.dtype != dtype:
            raise ValueError(f"M must be the coupling matrix of shape (Nd, Nd) = ({nd}, {nd}) in dtype {dtype}; "
                             f"got shape {tuple(M.shape)}, dtype {M.dtype}")

    def cavity_update(self, V: torch.Tensor, M: torch.Tensor) -> torch.Tensor:
        """One adaptive-TAP update of the cavity variances ``V`` (N, d, d) given the coupling
        matrix ``M`` (Nd, Nd): ``V ← Λ − (C_ii)⁻¹``, ``C = (Λ − J)⁻¹``, ``Λ = V + χ⁻¹``."""
        self._check_cavity("V", V)
        self._check_matrix(M, V.dtype)
        n, d = self.num_spins, self.dim
        P = self.prior_precision.to(V.dtype)
        chi = torch.linalg.inv(P - V)
        lam = V + torch.linalg.inv(chi)       # Λ ≡ P for this Gaussian prior: C below does not depend on V or m,
        C = torch.linalg.inv(torch.block_diag(*lam) - M)                      # so the V iteration settles in two
        # evaluations; the O((Nd)^3) inversion is the cost (a non-Gaussian prior would move Λ with m)
        C_diag = C.view(n, d, n, d).diagonal(dim1=0, dim2=2).permute(2, 0, 1)  # (N, d, d)
        return lam - torch.linalg.inv(C_diag)

    def cavity_variances(self, M: Optional[torch.Tensor] = None) -> torch.Tensor:
        """Self-consistent cavity variances ``V*`` (N, d, d) (zeros without linear response)."""
        n, d = self.num_spins, self.dim
        if M is None:
            M = couplings_to_matrix(self.couplings())
        elif not isinstance(M, torch.Tensor) or not M.is_floating_point():
            raise TypeError(f"M must be None or a floating-point torch.Tensor, the coupling matrix (Nd, Nd); got "
                            f"{type(M).__name__ if not isinstance(M, torch.Tensor) else M.dtype}")
        else:
            self._check_matrix(M, M.dtype)
        if not self.lin_response:
            return M.new_zeros(n, d, d)
        V, st = deq_fixed_point(lambda v: self.cavity_update(v[0], M)[None], M.new_zeros(1, n, d, d),
                                [M], forward={"method": self.solver, "max_iter": self.max_iter,
                                              "tol": self.tol, **self.solver_options},
                                backward={"max_iter": self.backward_max_iter, "tol": self.backward_tol}
                                if self.grad == "implicit" else None, grad=self.grad)
        self.last_stats["cavity"] = st
        return V[0]

    def update(self, m: torch.Tensor, x: torch.Tensor, M: torch.Tensor, V: torch.Tensor) -> torch.Tensor:
        """``m_i ← χ_i(Σ_j J_ij m_j − V_i m_i + X_i)`` for (B, N, d) states."""
        n, d = self.num_spins, self.dim
        if not isinstance(m, torch.Tensor) or not isinstance(x, torch.Tensor):
            raise TypeError(f"m and x must be torch.Tensors (B, N, d); got {type(m).__name__} and {type(x).__name__}")
        if m.dim() != 3 or tuple(m.shape[1:]) != (n, d) or m.shape != x.shape or x.dtype != m.dtype \
                or not m.is_floating_point():
            raise ValueError(f"m and x must be floating-point states of one shape (B, N, d) = (B, {n}, {d}) and dtype; "
                             f"got m {tuple(m.shape)} {m.dtype}, x {tuple(x.shape)} {x.dtype}")
        self._check_matrix(M, m.dtype)
        self._check_cavity("V", V)
        B, n, d = m.shape
        chi = torch.linalg.inv(self.prior_precision.to(m.dtype) - V)
        h = (m.reshape(B, n * d) @ M.T).view(B, n, d) - torch.einsum("ide,bie->bid", V, m) + x
        return torch.einsum("ide,bie->bid", chi, h)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """Adaptive-TAP magnetisations ``m*`` (B, N, d) for the sources ``x`` (B, N, d)."""
        x = _check_source(x, self.num_spins, self.dim)
        self.last_stats = {}
        M = couplings_to_matrix(self.couplings()).to(x.dtype)
        V = self.cavity_variances(M)
        m, st = deq_fixed_point(lambda m: self.update(m, x, M, V), torch.zeros_like(x), [x, M, V],
                                forward={"method": self.solver, "max_iter": self.max_iter, "tol": self.tol,
                                         **self.solver_options},
                                backward={"max_iter": self.backward_max_iter, "tol": self.backward_tol}
                                if self.grad == "implicit" else None, grad=self.grad)
        self.last_stats["magnetisation"] = st
        self.last_cavity = V.detach()
        return m


def _check_sizes(sizes: Any) -> list[tuple[int, int]]:
    """``sizes`` as a list of ``(N, d)`` pairs of positive integers; a clear error naming ``sizes`` otherwise, and
    before any buffer is made when the largest (Nd)×(Nd) matrix would not fit the memory budget."""
    if isinstance(sizes, (str, bytes)) or not isinstance(sizes, Sequence) or len(sizes) == 0:
        raise ValueError(f"sizes must be a non-empty sequence of (N, d) pairs; got {sizes!r}")
    out = []
    for pair in sizes:
        if isinstance(pair, (str, bytes)) or not isinstance(pair, (Sequence, np.ndarray)) or len(pair) != 2:
            raise ValueError(f"sizes must be a non-empty sequence of (N, d) pairs; got the entry {pair!r}")
        try:
            out.append((check_int("sizes", pair[0], minimum=1), check_int("sizes", pair[1], minimum=1)))
        except ValueError:
            raise ValueError(f"sizes must hold (N, d) pairs of positive integers; got the entry {pair!r}") from None
    nd = max(n * d for n, d in out)
    check_alloc("sizes", 8 * 4 * nd * nd, what="the largest (Nd)x(Nd) coupling matrices")
    return out


@contract(batch="int:1", repeats="int:1", seed="int:0",
          alloc=lambda a: [("sizes", 48 * max((n * d) ** 2 for n, d in _check_sizes(a["sizes"])) * a["batch"])])
def explicit_tap_cost(sizes: Sequence[tuple[int, int]], *, batch: int = 1, repeats: int = 3,
                      seed: int = 0, dtype: torch.dtype = torch.float64) -> list[dict]:
    """Wall time of one :meth:`VectorSpinTAP.cavity_update` (the O((Nd)³) linear-response step)
    for each ``(N, d)`` in ``sizes``; the best of ``repeats`` runs.

    Returns a list of ``{"N", "d", "Nd", "seconds"}`` dicts (for a log-log plot against N·d). ``dtype``:
    ``torch.float64`` or ``torch.float32``.
    """
    if not isinstance(dtype, torch.dtype):
        raise TypeError(f"dtype must be a torch.dtype (torch.float64 or torch.float32); got {type(dtype).__name__}")
    if dtype not in (torch.float64, torch.float32):
        raise ValueError(f"dtype must be torch.float64 or torch.float32 (the update inverts matrices); got {dtype}")
    sizes = _check_sizes(sizes)
    out = []
    gen = torch.Generator().manual_seed(seed)
    for n, d in sizes:
        layer = VectorSpinTAP(n, d, generator=gen).to(dtype)
        with torch.no_grad():
            M = couplings_to_matrix(layer.couplings())
            V = torch.zeros(n, d, d, dtype=dtype)
            best = math.inf
            for _ in range(max(1, repeats)):
                t0 = time.perf_counter()
                for _ in range(batch):
                    layer.cavity_update(V, M)
                best = min(best, time.perf_counter() - t0)
        out.append({"N": n, "d": d, "Nd": n * d, "seconds": best / batch})
    return out


@contract(nd="reals:>0", seconds="reals:>0", fit_min_nd="real:>=0")
def cost_exponent(nd: Sequence[float], seconds: Sequence[float], fit_min_nd: float) -> float:
    """Least-squares slope of ``log seconds`` against ``log Nd`` over the sizes with ``Nd >= fit_min_nd``.

    For ``seconds = a + b (Nd)^p`` the slope tends to ``p`` once ``b (Nd)^p`` dominates the fixed
    overhead ``a``; below that it is smaller, so the window must start where the cubic term dominates.
    Needs at least two sizes in the window.
    """
    nd, seconds = np.asarray(nd, dtype=float), np.asarray(seconds, dtype=float)
    if nd.shape != seconds.shape or nd.ndim != 1:
        raise ValueError(f"nd and seconds must be 1-d arrays of one length; got {nd.shape}, {seconds.shape}")
    if not (np.all(nd > 0) and np.all(seconds > 0)):
        raise ValueError("nd and seconds must be positive (a log-log fit)")
    window = nd >= fit_min_nd
    if np.unique(nd[window]).size < 2:
        raise ValueError(f"fit_min_nd={fit_min_nd!r} leaves fewer than two sizes to fit (largest Nd: {nd.max():g})")
    return float(np.polyfit(np.log(nd[window]), np.log(seconds[window]), 1)[0])


@contract(fit_min_nd="real:>0", repeats="int:1", seed="int:0",
          alloc=lambda a: [("sizes", 48 * max((n * d) ** 2 for n, d in _check_sizes(a["sizes"])))])
def explicit_cost_scaling(sizes: Sequence[tuple[int, int]], fit_min_nd: int, *, repeats: int = 3,
                          seed: int = 0) -> dict[str, Any]:
    """The book's one measurement of the explicit layer's cost (Chapters 2 and 3 quote it).

    Times one linear-response update (:func:`explicit_tap_cost`, float64, best of ``repeats``) for every
    ``(N, d)`` in ``sizes`` and fits the exponent ``p`` of ``seconds ∝ (Nd)^p`` over ``Nd >= fit_min_nd``
    (:func:`cost_exponent`). The update's arithmetic is an (Nd)×(Nd) inversion, ``O((Nd)³)`` operations;
    wall time grows a little slower over any finite window, because the BLAS kernels run closer to peak
    speed on larger matrices.

    Returns ``{"Nd": (S,), "seconds": (S,), "fit": (S,) bool, "exponent": p, "fit_min_nd", "fit_max_nd"}``.
    """
    cost = explicit_tap_cost(_check_sizes(sizes), repeats=repeats, seed=seed)
    nd = np.array([c["Nd"] for c in cost], dtype=float)
    sec = np.array([c["seconds"] for c in cost])
    return {"Nd": nd, "seconds": sec, "fit": nd >= fit_min_nd, "exponent": cost_exponent(nd, sec, fit_min_nd),
            "fit_min_nd": float(fit_min_nd), "fit_max_nd": float(nd.max())}
