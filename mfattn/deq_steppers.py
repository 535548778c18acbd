"""The steppers of :func:`mfattn.deq.solve`: one iteration's update of a batch of flattened states (B, n).

Each stepper takes the iterate ``x``, its image ``fx = f(x)`` and residual ``g = fx − x`` and returns the next
iterate; every sample's update reads only its own row (its result does not depend on its batch-mates):

* :class:`_Plain`: damped iteration ``x⁺ = x + β g`` (``fx`` itself at β = 1);
* :class:`_Anderson`: type-II Anderson mixing (Walker & Ni 2011) with a ridge scaled to each sample's Gram matrix;
* :class:`_Broyden`: limited-memory "good" Broyden on ``g``.
"""

from __future__ import annotations

import math
from typing import Optional

import torch


def _bdot(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """Row-wise dot product of (B, n) tensors -> (B,)."""
    return (a * b).sum(dim=1)


class _Anderson:
    """Type-II Anderson mixing on differences: x⁺ = x + βg − (ΔX + βΔG) γ,
    γ = argmin ‖g − ΔG γ‖² + λ‖γ‖², λ = ridge · mean diag(ΔGᵀΔG) per sample.

    The Gram matrix ΔGᵀΔG is updated one row/column per iteration; the per-sample products
    are written as (1×n)·(n×m) batched matmuls, several times faster on CPU than the
    (m×n)·(n×1) layout. The step is a handful of tensor operations, every view it needs
    made once here, because for the small states of a DEQ layer each operation costs more
    in dispatch than in arithmetic.
    """

    def __init__(self, x: torch.Tensor, memory: int, ridge: Optional[float], damping: float):
        B, n = x.shape
        self.m = memory
        self.beta = damping
        # Relative ridge: keeps the normal equations solvable without biasing the
        # extrapolation at tight tolerances (a fixed absolute ridge dominates small residuals).
        self.ridge = ridge if ridge is not None else (1e-10 if x.dtype == torch.float64 else 1e-5)
        self.dG = x.new_zeros(B, memory, n)
        self.dXG = x.new_zeros(B, memory, n)          # ΔX + βΔG, the step's basis
        self.gram = x.new_zeros(B, memory, memory)
        # λ·I = (ridge / filled) · trace(Gram) · I: the scaled identities, one per fill level.
        fill = torch.arange(1, memory + 1, dtype=x.dtype, device=x.device)
        self.eyes = (torch.eye(memory, dtype=x.dtype, device=x.device) * (self.ridge / fill)[:, None, None]).unbind(0)
        # Views into the buffers, made once (a few splits, not one view per slot): the step
        # writes through them in place.
        self.dGT = self.dG.transpose(1, 2)
        self.diag = torch.diagonal(self.gram, dim1=1, dim2=2).unsqueeze(1)   # (B, 1, m)
        G4 = self.gram.unsqueeze(3)                                              # (B, m, m, 1)
        self.slots = list(zip(self.dG.unbind(1), self.dG.unsqueeze(2).unbind(1), self.dXG.unbind(1),
                              self.gram.unsqueeze(2).unbind(1), G4.unbind(2), G4.unbind(1)))
        self.count = 0
        self.prev: Optional[tuple[torch.Tensor, torch.Tensor, torch.Tensor]] = None

    def step(self, x: torch.Tensor, fx: torch.Tensor, g: torch.Tensor) -> torch.Tensor:
        plain = x + self.beta * g if self.beta != 1.0 else fx
        if self.prev is not None:
            dG_col, dG_row, dXG_col, gram_row, gram_col, gram_rowT = self.slots[self.count % self.m]
            torch.sub(g, self.prev[1], out=dG_col)
            if self.beta == 1.0:  # ΔX + ΔG = Δf(x)
                torch.sub(fx, self.prev[2], out=dXG_col)
            else:
                dXG_col.copy_((x - self.prev[0]) + self.beta * dG_col)
            # (bmm's out= into the strided row view is many times slower than this copy)
            gram_row.copy_(torch.bmm(dG_row, self.dGT))                          # (B, 1, m)
            gram_col.copy_(gram_rowT)
            self.count += 1
        self.prev = (x, g, fx)
        if self.count == 0:
            return plain
        # A zero Gram matrix (a sample exactly at its fixed point) makes the system singular:
        # its γ is then non-finite and the sample takes the plain step below.
        A = torch.addcmul(self.gram, self.diag.sum(dim=2, keepdim=True), self.eyes[min(self.count, self.m) - 1])
        rhs = torch.bmm(g.unsqueeze(1), self.dGT).transpose(1, 2)                # (B, m, 1)
        gamma = torch.linalg.solve_ex(A, rhs)[0]                                 # (B, m, 1)
        mixed = torch.baddbmm(plain.unsqueeze(1), gamma.transpose(1, 2), self.dXG, alpha=-1).squeeze(1)
        if math.isfinite(float(gamma.sum())):  # one reduction; NaN/inf propagate into the sum
            return mixed
        # A failed (singular, non-finite) extrapolation falls back to a damped plain step.
        return torch.where(torch.isfinite(gamma).all(dim=1), mixed, plain)


class _Broyden:
    """Good Broyden on g(x) = f(x) − x with H ≈ (∂g/∂x)⁻¹ = −I + Σ u_k v_kᵀ (ring buffer)."""

    def __init__(self, x: torch.Tensor, memory: int, damping: float):
        B, n = x.shape
        self.m = memory
        self.beta = damping
        self.U = x.new_zeros(B, memory, n)
        self.V = x.new_zeros(B, memory, n)
        self.count = 0
        self.prev: Optional[tuple[torch.Tensor, torch.Tensor]] = None

    def _apply(self, A: torch.Tensor, C: torch.Tensor, z: torch.Tensor) -> torch.Tensor:
        """−z + Σ_k a_k (c_k · z) over the filled rank-one terms."""
        k = min(self.count, self.m)
        if k == 0:
            return -z
        A, C = A[:, :k], C[:, :k]
        return -z + torch.bmm(torch.bmm(z[:, None, :], C.transpose(1, 2)), A).squeeze(1)

    def step(self, x: torch.Tensor, fx: torch.Tensor, g: torch.Tensor) -> torch.Tensor:
        if self.prev is not None:
            s = x - self.prev[0]
            y = g - self.prev[1]
            Hy = self._apply(self.U, self.V, y)           # H y
            denom = _bdot(s, Hy)
            vt = self._apply(self.V, self.U, s)           # Hᵀ s
            # Skip the rank-one update where sᵀHy is (numerically) zero.
            ok = denom.abs() > 1e-12 * (s.norm(dim=1) * Hy.norm(dim=1)).clamp_min(torch.finfo(x.dtype).tiny)
            safe = torch.where(ok, denom, torch.ones_like(denom))
            col = self.count % self.m
            self.U[:, col] = torch.where(ok[:, None], (s - Hy) / safe[:, None], torch.zeros_like(s))
            self.V[:, col] = torch.where(ok[:, None], vt, torch.zeros_like(vt))
            self.count += 1
        self.prev = (x, g)
        new = x - self.beta * self._apply(self.U, self.V, g)
        plain = x + self.beta * g
        return torch.where(torch.isfinite(new).all(dim=1)[:, None], new, plain)


class _Plain:
    def __init__(self, damping: float):
        self.beta = damping

    def step(self, x: torch.Tensor, fx: torch.Tensor, g: torch.Tensor) -> torch.Tensor:
        return fx if self.beta == 1.0 else x + self.beta * g


def _check_stats_fields(stats) -> None:
    """:class:`~mfattn.deq.SolverStats`'s statistics as :func:`~mfattn.deq.solve` makes them, else an error naming
    the field: iterations an integer tensor, residual and trace floating, converged and diverged bool; each dense and
    with values (not sparse, not on the meta device), non-empty; (B,) each and trace (K, B)."""
    kinds = {"iterations": "integer", "residual": "floating", "converged": "bool", "diverged": "bool",
             "trace": "floating"}
    for name, kind in kinds.items():
        value = getattr(stats, name)
        if not isinstance(value, torch.Tensor):
            raise TypeError(f"SolverStats.{name} must be a {'(K, B)' if name == 'trace' else '(B,)'} tensor (as "
                            f"solve makes it); got {type(value).__name__}")
        if value.layout != torch.strided or value.is_meta:   # a sparse or meta tensor holds no values to sum
            raise TypeError(f"SolverStats.{name} must be a dense tensor with values (as solve makes it); got "
                            f"layout {value.layout}{' on the meta device' if value.is_meta else ''}")
        got = ("bool" if value.dtype == torch.bool else "floating" if value.is_floating_point() else
               "complex" if value.is_complex() else "integer")
        if got != kind:
            raise TypeError(f"SolverStats.{name} must be a{'n' if kind == 'integer' else ''} {kind} tensor; got "
                            f"dtype {value.dtype}")
        if value.numel() == 0:
            raise ValueError(f"SolverStats.{name} is empty (a batch of no samples): a summary needs B >= 1")
    shapes = {name: tuple(getattr(stats, name).shape) for name in kinds}
    if (len(shapes["residual"]) != 1 or any(shapes[n] != shapes["residual"] for n in ("iterations", "diverged"))
            or shapes["trace"][1:] != shapes["residual"]):
        raise ValueError(f"SolverStats's statistics must be one per sample, (B,), and trace (K, B); got shapes "
                         f"{shapes}")
