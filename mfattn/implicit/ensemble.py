"""Several MNIST mean-field models trained as one: their solves batched on a leading member axis.

Chapter 2 trains the blog's model (:mod:`mfattn.implicit.models`) many times: seeds, variants,
init scales. On one CPU thread most of a step of that 26k-parameter model is spent dispatching the
small operations of the DEQ layer's solver loop (about 40 per iteration, 10-40 iterations forward
and backward). :class:`EnsembleMNIST` holds ``S`` members of the same shape and runs them as one
batched model, so each of those operations serves ``S`` members at once:

* **Members' weights.** Member ``s`` is the solo model ``build_model(seeds[s], **attention[s])``
  itself (:attr:`EnsembleMNIST.members`); what the solve batches (couplings, correction nets) is
  stacked on a leading member axis at each forward, e.g. the coupling matrices as (S, N·d, N·d).
* **One solve for all.** The S batches of B images are stacked into S·B samples. The solver
  (:func:`mfattn.deq.deq_fixed_point`) treats samples independently (per-sample Anderson, stopping
  and best-iterate pick), and the map applies member ``s``'s couplings and correction net to the
  rows of member ``s`` by batched matrix products over the member axis:

      g_s = X_s + m_s M_sᵀ,      m_s ← g_s − f_θs(g_s or m_s)          (rows of member s),

  with ``M_s`` the (N·d, N·d) symmetrised coupling matrix of member ``s``. The adjoint (backward)
  map is the same closed form as :meth:`MeanFieldAttention.adjoint_vjp`, batched the same way.
* **Equal to solo.** The solver's iterations run batched; everything done once per step (the
  embedding, the one evaluation of the map that builds the graph the weight gradients come from, the
  head) runs member by member with the solo code, and each member keeps its own fused-Adam tensors.
  A member's logits, gradients, solver statistics and training then equal its solo run's to rounding;
  on the CPU where this was written (torch 2.13, one thread) they are bit-equal, because the batched
  products round each row as the single products do (tests/test_ensemble.py checks both). A member
  does not depend on which members share its ensemble.

Cost: the batched solve saves the per-operation overhead of the solver loop, not its arithmetic (the
coupling products and the correction net's GELU are arithmetic-bound at batch 60), and the
convolutions are arithmetic-bound anyway: three members step in about 0.85 of the time of three solo
steps on one thread (benchmarks/bench_ensemble.py).

Members may differ in ``seed`` and in the options that keep the shape (:data:`MEMBER_OPTIONS`:
the correction's input, the couplings' initial scale); every other attention option (solver,
tolerances, gradient mode, symmetry, ``lin_response``) must be the same for all. Only the learned
("linear") couplings of the chapter's model are supported.
"""

from __future__ import annotations

from typing import Any, Optional, Sequence

import torch
import torch.nn.functional as F
from torch import nn

from ..companion.checks import contract
from ..deq import SolverStats, deq_fixed_point
from .meanfield import _linear_step
from .models import ATTENTION_DEFAULTS, build_model

__all__ = ["EnsembleMNIST", "MEMBER_OPTIONS", "member_statistics"]

#: Attention options members may set differently: both keep every parameter's shape.
MEMBER_OPTIONS = ("correction", "weight_init_std")


def _member_options(attention: Any, count: int) -> list[dict[str, Any]]:
    """One attention dict per member from ``attention`` (None, one dict for all, or a list of dicts)."""
    if attention is None:
        attention = {}
    if isinstance(attention, dict):
        return [dict(attention) for _ in range(count)]
    if not isinstance(attention, (list, tuple)) or not all(isinstance(a, dict) for a in attention):
        raise TypeError(f"attention must be None, a dict of options, or a list of one dict per member; "
                        f"got {type(attention).__name__}")
    if len(attention) != count:
        raise ValueError(f"attention must give one dict per member ({count} seeds); got {len(attention)}")
    return [dict(a) for a in attention]


def _shared_options(options: list[dict[str, Any]]) -> dict[str, Any]:
    """The options every member shares (with the defaults filled in); a clear error when they differ."""
    full = [{**ATTENTION_DEFAULTS, **o} for o in options]
    first = {k: v for k, v in full[0].items() if k not in MEMBER_OPTIONS}
    for i, opts in enumerate(full[1:], 1):
        rest = {k: v for k, v in opts.items() if k not in MEMBER_OPTIONS}
        for key in sorted(set(first) | set(rest)):
            if first.get(key) != rest.get(key):
                raise ValueError(f"attention: members must share {key!r} (only {list(MEMBER_OPTIONS)} may "
                                 f"differ); member 0 has {first.get(key)!r}, member {i} has {rest.get(key)!r}")
    if first.get("interaction", "linear") != "linear":
        raise ValueError(f"attention: the ensemble supports interaction='linear' only (learned couplings); "
                         f"got {first['interaction']!r}")
    return first


def _check_distinct(seeds: list[int], options: list[dict[str, Any]]) -> None:
    """A ValueError naming ``seeds`` when two members would be the same model (one seed, the same member options)."""
    own = [{k: {**ATTENTION_DEFAULTS, **o}.get(k) for k in MEMBER_OPTIONS} for o in options]
    for i in range(len(seeds)):
        for j in range(i):
            if seeds[j] == seeds[i] and own[j] == own[i]:
                raise ValueError(f"seeds: members {j} and {i} would be the same model (seed {seeds[i]}, options "
                                 f"{own[i]}); repeat a seed only with other {list(MEMBER_OPTIONS)}")


class EnsembleMNIST(nn.Module):
    """``S`` :class:`mfattn.implicit.models.MeanFieldMNIST` members as one batched model.

    Parameters
    ----------
    seeds : one seed per member (a seed may repeat with other :data:`MEMBER_OPTIONS`: e.g. one seed with two
        corrections; two identical members, the same seed and options, are refused).
    dim, channels : the members' spin dimension d and conv channels C (as :func:`build_model`).
    attention : None, one dict of attention options for all members, or a list of one dict per member;
        members may differ only in :data:`MEMBER_OPTIONS`.
    device, dtype : where and in which precision the weights live.

    The members are the solo models themselves (``members[s]`` is ``build_model(seeds[s], ...)``): each
    parameter is stored once per member with its solo shape and stacked on the member axis inside
    :meth:`forward` where the solve batches the members (couplings, correction net: S·(N·d)² + small
    numbers copied per step). Keeping the solo tensors as the leaves is what makes training bit-equal to
    the solo runs: fused Adam rounds an element differently in its vectorised body and in a tensor's tail,
    so an update of one (S, ...) tensor is not always bit-equal to S updates of the solo tensors.

    Shapes: :meth:`forward` maps images (S, B, 1, 28, 28) (member ``s`` reads row ``s``), or one batch
    (B, 1, 28, 28) shown to every member, to logits (S, B, 10). ``last_stats`` holds the latest
    forward/backward :class:`mfattn.deq.SolverStats` over the S·B samples, member-major
    (:func:`member_statistics` splits them).
    """

    @contract(seeds="ints:0", dim="int:1", channels="int:1",
              alloc=lambda a: [("seeds", 64 * len(a["seeds"]) * (a["channels"] ** 2 * 9 + (17 * a["dim"]) ** 2))])
    def __init__(self, seeds: Sequence[int], *, dim: int = 10, channels: int = 32, attention: Any = None,
                 device=None, dtype=None) -> None:
        super().__init__()
        self.seeds = [int(s) for s in seeds]
        self.dim, self.channels = dim, channels
        self.member_attention = _member_options(attention, len(self.seeds))
        _check_distinct(self.seeds, self.member_attention)
        self.options = _shared_options(self.member_attention)
        self.members = nn.ModuleList(build_model(s, dim=dim, channels=channels, device=device, dtype=dtype, **a)
                                     for s, a in zip(self.seeds, self.member_attention))
        layer = self.members[0].attention
        # The solve's settings, as the solo layer resolved them (defaults, backward solver, init).
        self.lin_response, self.grad, self.init = layer.lin_response, layer.grad, layer.init
        self.forward_options = {"method": layer.solver, "max_iter": layer.max_iter, "tol": layer.tol,
                                **layer.solver_options}
        if layer.grad == "implicit":
            self.backward_options = {"method": layer.backward_solver, "max_iter": layer.backward_max_iter,
                                     "tol": layer.backward_tol, **layer.backward_options}
        else:
            self.backward_options = {"steps": layer.phantom_steps, "tau": layer.phantom_tau}
        on_g = [m.attention.correction_on == "g" for m in self.members]
        self.register_buffer("_on_g", torch.tensor(on_g, device=device).view(-1, 1, 1), persistent=False)
        self._all_g, self._all_m = all(on_g), not any(on_g)
        self.last_stats: dict = {"forward": None, "backward": None}

    @property
    def size(self) -> int:
        """S, the number of members."""
        return len(self.seeds)

    # -- members -----------------------------------------------------------------------------
    def member_state_dict(self, member: int) -> dict[str, torch.Tensor]:
        """The weights of ``member`` under the solo model's names (detached copies)."""
        return {k: v.detach().clone() for k, v in self.members[self._member(member)].state_dict().items()}

    def member_model(self, member: int):
        """A solo :class:`MeanFieldMNIST` holding a copy of ``member``'s current weights (same device and dtype)."""
        i = self._member(member)
        p = next(self.parameters())
        model = build_model(self.seeds[i], dim=self.dim, channels=self.channels, device=p.device, dtype=p.dtype,
                            **self.member_attention[i])
        model.load_state_dict(self.member_state_dict(i))
        return model

    def coupling_norms(self) -> torch.Tensor:
        """(S, N, N) Frobenius norms ``‖J_ij‖_F`` of each member's symmetrised couplings."""
        return torch.stack([m.attention.coupling_norms() for m in self.members])

    def _member(self, member: Any) -> int:
        if isinstance(member, bool) or not isinstance(member, int) or not 0 <= member < self.size:
            raise ValueError(f"member must be an integer in [0, {self.size}); got {member!r}")
        return member

    # -- forward -----------------------------------------------------------------------------
    def _images(self, images: Any) -> torch.Tensor:
        if not isinstance(images, torch.Tensor) or not images.is_floating_point():
            raise TypeError(f"images must be a floating-point tensor (S, B, 1, 28, 28) or (B, 1, 28, 28); "
                            f"got {type(images).__name__ if not isinstance(images, torch.Tensor) else images.dtype}")
        if images.dim() == 4 and images.shape[1:] == (1, 28, 28) and images.shape[0] >= 1:
            return images.unsqueeze(0).expand(self.size, *images.shape)
        if images.dim() != 5 or images.shape[0] != self.size or images.shape[2:] != (1, 28, 28) or images.shape[1] < 1:
            raise ValueError(f"images must have shape (S={self.size}, B, 1, 28, 28) or (B, 1, 28, 28); "
                             f"got {tuple(images.shape)}")
        return images

    def sources(self, images: torch.Tensor) -> torch.Tensor:
        """The external fields X of every member: images -> (S, B, 17, d), cls site first.

        Member by member with the solo model's own embedding: the convolutions are arithmetic-bound
        (a few ms per member at batch 60), so batching them would save only a handful of dispatches,
        and the solo operations keep each member's numbers and gradients bit-equal to its solo run's.
        """
        images = self._images(images)
        return torch.stack([m.sources(images[s]) for s, m in enumerate(self.members)])

    def forward(self, images: torch.Tensor) -> torch.Tensor:
        """Logits (S, B, 10) of every member, read from its cls site's fixed point."""
        m = self._attention(self.sources(images))                                # (S, B, N, d)
        # Member by member, as the solo head (a batched product rounds the weight gradient differently).
        return torch.stack([member.head(m[s, :, 0]) for s, member in enumerate(self.members)])

    def _step_weights(self) -> Optional[tuple]:
        """``(W1ᵀ (S, d, k), b1 (S, 1, k), W2 (S, d, k), b2 (S, d, 1))`` of the correction nets, stacked, or None."""
        if not self.lin_response:
            return None
        nets = [m.attention.correction for m in self.members]
        first, last = [c[0] for c in nets], [c[2] for c in nets]
        return (torch.stack([f.weight for f in first]).transpose(1, 2), torch.stack([f.bias for f in first]).unsqueeze(1),
                torch.stack([f.weight for f in last]), torch.stack([f.bias for f in last]).unsqueeze(2))

    def _choose(self, g: torch.Tensor, m: torch.Tensor) -> torch.Tensor:
        """Each member's correction input: ``g`` (correction 'g') or ``m`` (correction 'm'), (S, ...)."""
        if self._all_g:
            return g
        if self._all_m:
            return m
        return torch.where(self._on_g.view(-1, *([1] * (g.dim() - 1))), g, m)

    def _attention(self, x: torch.Tensor) -> torch.Tensor:
        """Fixed points m* (S, B, N, d) of every member's mean-field map for the sources x (S, B, N, d)."""
        S, B, n, d = x.shape
        nd = n * d
        # Each member's (N·d, N·d) coupling matrix M[s, (i,a), (j,b)] = J_s[i, j, a, b], by the solo code.
        M = torch.stack([m.attention.coupling_matrix() for m in self.members])
        MT, x3, weights = M.transpose(1, 2), x.reshape(S, B, nd), self._step_weights()
        solo_weights = [m.attention._step_weights() for m in self.members]
        choose = self._choose

        def step(m2: torch.Tensor) -> torch.Tensor:
            """The solver's map on flat states (S·B, N·d): per member ``g = X + m Mᵀ``, then
            ``g − f_θ(g or m)`` site by site (f_θ computed transposed, (S, d, B·N): the narrow
            (B·N, d) product is several times slower in CPU GEMM kernels)."""
            if torch.is_grad_enabled():
                return solo_step(m2)
            m3 = m2.view(S, B, nd)
            g3 = torch.baddbmm(x3, m3, MT)
            if weights is None:
                return g3.view(S * B, nd)
            W1T, b1, W2, b2 = weights
            h = choose(g3, m3).reshape(S, B * n, d)
            hidden = F.gelu(torch.baddbmm(b1, h, W1T))                            # (S, B·N, k)
            fT = torch.baddbmm(b2, W2, hidden.transpose(1, 2))                    # (S, d, B·N)
            return torch.sub(g3.view(S, B * n, d), fT.transpose(1, 2)).view(S * B, nd)

        def solo_step(m2: torch.Tensor) -> torch.Tensor:
            """The same map, member by member with the solo layer's operations (meanfield._linear_step).
            The solver iterates without a graph; the one evaluation that builds the graph the parameter
            gradients come from (once per step, at the fixed point) runs this way so that each member's
            gradient is rounded exactly as its solo model's (batched products round the weight gradients'
            sums in another order)."""
            rows = m2.view(S, B, nd).unbind(0)
            return torch.cat([_linear_step(rows[s], x3[s], MT[s], solo_weights[s]) for s in range(S)])

        def closed_adjoint(z_star: torch.Tensor):
            return self._adjoint(z_star.detach(), x3.detach(), M.detach(), weights, B, n, d)

        params = [x, M, *(weights or ())]
        z0 = torch.zeros_like(x3) if self.init == "zeros" else x3.detach()
        z2, self.last_stats = deq_fixed_point(step, z0.reshape(S * B, nd), params, forward=self.forward_options,
                                              backward=self.backward_options, grad=self.grad,
                                              vjp=closed_adjoint if self.grad == "implicit" else None)
        return z2.view(S, B, n, d)

    def _adjoint(self, z_star: torch.Tensor, x3: torch.Tensor, M: torch.Tensor, weights: Optional[tuple],
                 B: int, n: int, d: int):
        """Closed-form ``v -> J_fᵀ v`` at the fixed points, every member at once (v: (S·B, N·d)).

        As :meth:`MeanFieldAttention.adjoint_vjp` per member, with ``D_s = W2 diag(gelu'(a)) W1`` at
        ``a = W1 h* + b1`` (``h* = g*`` or ``m*``): correction on g ``J_fᵀ v = Mᵀ (v − Dᵀ v)``, on m
        ``Mᵀ v − Dᵀ v``, naive ``Mᵀ v`` (rows: ``Mᵀ v`` is ``v M``).
        """
        S = M.shape[0]
        nd = n * d
        if weights is None:
            return lambda v: torch.bmm(v.view(S, B, nd), M).view(v.shape)
        W1T, b1, W2, _ = (w.detach() for w in weights)
        m3 = z_star.view(S, B, nd)
        h = self._choose(torch.baddbmm(x3, m3, M.transpose(1, 2)), m3).reshape(S, B * n, d)
        a = torch.baddbmm(b1, h, W1T)                                              # (S, B·N, k)
        slope = torch.ops.aten.gelu_backward(torch.ones_like(a), a)               # gelu'(a), autograd's kernel

        def dt(v3: torch.Tensor) -> torch.Tensor:
            """``Dᵀ v`` on (S, B·N, d) rows, computed as its (S, d, B·N) transpose (see step)."""
            return torch.bmm(W1T, torch.bmm(v3, W2).mul_(slope).transpose(1, 2)).transpose(1, 2)

        if self._all_g:
            def vjp(v: torch.Tensor) -> torch.Tensor:
                v3 = v.view(S, B * n, d)
                return torch.bmm(torch.sub(v3, dt(v3)).view(S, B, nd), M).view(v.shape)
        elif self._all_m:
            def vjp(v: torch.Tensor) -> torch.Tensor:
                Mv = torch.bmm(v.view(S, B, nd), M).view(S, B * n, d)
                return torch.sub(Mv, dt(v.view(S, B * n, d))).view(v.shape)
        else:
            on_g = self._on_g

            def vjp(v: torch.Tensor) -> torch.Tensor:
                v3 = v.view(S, B * n, d)
                Dv = dt(v3)
                Mv = torch.bmm(torch.where(on_g, v3 - Dv, v3).view(S, B, nd), M).view(S, B * n, d)
                return torch.where(on_g, Mv, Mv - Dv).view(v.shape)
        return vjp


@contract(size="int:1")
def member_statistics(stats: Any, size: int) -> list[dict[str, float]]:
    """Per-member summaries of one :class:`mfattn.deq.SolverStats` over ``size`` members' S·B samples
    (member-major): ``iterations`` (mean over the member's samples), ``residual`` (max),
    ``converged`` (fraction): the numbers a solo run logs for its batch."""
    if not isinstance(stats, SolverStats):
        raise TypeError(f"stats must be a SolverStats (EnsembleMNIST.last_stats['forward'|'backward']); "
                        f"got {type(stats).__name__}")
    total = stats.iterations.numel()
    if total % size:
        raise ValueError(f"size must divide the {total} samples of stats; got {size}")
    it = stats.iterations.view(size, -1).double()
    res = stats.residual.view(size, -1).double()
    conv = stats.converged.view(size, -1).double()
    return [{"iterations": float(it[s].mean()), "residual": float(res[s].max()), "converged": float(conv[s].mean())}
            for s in range(size)]
