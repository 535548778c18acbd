"""What the trained MNIST layer's correction ``f_θ`` is, compared with the Gaussian adaptive-TAP correction.

The "fast and neural" layer solves ``m_i = g_i − f_θ(g_i)`` with ``g_i = Σ_j J_ij m_j + X_i``
(:class:`~mfattn.implicit.meanfield.MeanFieldAttention`, ``correction="g"``); the "slow and explicit" layer
for Gaussian spins of prior precision ``P`` solves ``m_i = χ_i(g_i − V_i m_i)`` with ``χ_i = (P − V_i)⁻¹`` and
cavity variances ``V_i = P − [(P − J)⁻¹]_ii⁻¹`` (adaptive TAP with ``Λ ≡ P``, :mod:`.vector_tap`).

Two exact facts frame the comparison:

* For a Gaussian prior the reaction term cancels in the means: ``m_i = χ_i g_i − χ_i V_i m_i`` gives
  ``(χ_i⁻¹ + V_i) m_i = g_i``, i.e. ``m_i = P⁻¹ g_i`` (:func:`gaussian_correction`). Written as
  ``m_i = g_i − c_i``, the Gaussian correction is ``c_i = (I − P⁻¹) g_i``: linear, and the same map at
  every site. The site-dependent ``V_i`` only enter the local covariances ``χ_i``, which the neural layer
  does not output. A site-shared ``f_θ`` can therefore represent the Gaussian correction of the means; it
  could not represent the reaction term ``V_i m_i`` on its own (a different linear map at each site).
* Couplings with only the blog's "internal" symmetry ``J_ij = J_ijᵀ`` do not make the (Nd × Nd) matrix
  symmetric (``J_ji ≠ J_ij``): no energy ``−½ Sᵀ J S`` and no Boltzmann measure stand behind them
  (:func:`coupling_asymmetry`), so the TAP equations are then used as a parametrised update, not derived.

:func:`fixed_point_fields` evaluates a trained model at its fixed point; :func:`affine_fit` measures how
linear ``f_θ`` is there (and the effective prior precision ``P_eff = (I − A)⁻¹`` of its best site-shared
linear part); :func:`gaussian_fit` measures how close ``f_θ`` comes to the correction the Gaussian model derives,
``(I − P⁻¹) g`` for some prior precision ``P`` (symmetric positive definite); :func:`correction_report` gathers the numbers the chapter quotes.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

from ..companion.checks import check_array, check_tensor, contract

__all__ = ["fixed_point_fields", "affine_fit", "gaussian_fit", "gaussian_cavity", "gaussian_correction", "coupling_asymmetry",
           "correction_report"]


@torch.no_grad()
@contract(images="tensor:4")
def fixed_point_fields(model: Any, images: torch.Tensor) -> dict[str, torch.Tensor]:
    """``{"x", "g", "m", "f"}``, each (B, N, d), of a trained :class:`~mfattn.implicit.models.MeanFieldMNIST`
    with learned couplings at its fixed point: sources ``X``, naive fields ``g_i = Σ_j J_ij m*_j + X_i``,
    magnetisations ``m*`` and the correction ``f = g − m*`` (``= f_θ(g)`` at a converged fixed point)."""
    layer = getattr(model, "attention", None)
    if layer is None or getattr(layer, "interaction", None) != "linear":
        raise ValueError("model must be a MeanFieldMNIST with learned couplings (interaction='linear')")
    check_tensor("images", images, ndim=4)
    was_training = model.training
    model.eval()
    try:
        x = model.sources(images)
        m = layer(x)
        g = x + torch.einsum("ijab,zjb->zia", layer.couplings(), m)
    finally:
        model.train(was_training)
    return {"x": x, "g": g, "m": m, "f": g - m}


def affine_fit(inputs: Any, outputs: Any) -> dict[str, Any]:
    """Least-squares site-shared affine map ``y ≈ A u + b`` over all leading axes.

    ``inputs`` (..., d_in), ``outputs`` (..., d_out), same leading shape. Returns ``A`` (d_out, d_in), ``b``
    (d_out,) and ``r2`` = 1 − Σ‖y − ŷ‖² / Σ‖y − ȳ‖², the fraction of the outputs' variance (about their
    mean) the map explains: 1 for an exactly affine relation."""
    u, y = check_array("inputs", inputs), check_array("outputs", outputs)
    if u.ndim < 2 or y.ndim < 2 or u.shape[:-1] != y.shape[:-1]:
        raise ValueError(f"inputs and outputs must be (..., d_in) and (..., d_out) with one leading shape; "
                         f"got {u.shape} and {y.shape}")
    if u.shape[-1] == 0 or y.shape[-1] == 0:   # no feature to fit from or to
        raise ValueError(f"inputs and outputs must have at least one feature each; got {u.shape} and {y.shape}")
    u2, y2 = u.reshape(-1, u.shape[-1]), y.reshape(-1, y.shape[-1])
    if len(u2) <= u2.shape[1] + 1:
        raise ValueError(f"affine_fit needs more rows ({len(u2)}) than d_in + 1 = {u2.shape[1] + 1}")
    if not (np.isfinite(u2).all() and np.isfinite(y2).all()):
        raise ValueError("inputs and outputs must be finite (a fixed point that diverged?)")
    design = np.hstack([u2, np.ones((len(u2), 1))])
    coef, *_ = np.linalg.lstsq(design, y2, rcond=None)
    resid = y2 - design @ coef
    total = ((y2 - y2.mean(axis=0)) ** 2).sum()
    return {"A": coef[:-1].T, "b": coef[-1], "r2": float(1.0 - (resid ** 2).sum() / total) if total > 0 else 1.0}


@contract(g="array", f="array", max_iter="int:1", tol="real:>0")
def gaussian_fit(g: Any, f: Any, max_iter: int = 20000, tol: float = 1e-13) -> dict[str, Any]:
    """The best fit of ``f`` by the chapter's Gaussian correction of the means, ``c = (I − P⁻¹) g`` with ``P`` a
    prior precision (symmetric positive definite), shared by all sites.

    ``g``, ``f`` (..., d) with one leading shape. With ``S = P⁻¹`` the problem
    ``min_{S ⪰ 0} Σ‖f − (I − S) g‖²`` is a least-squares problem over the cone of symmetric positive
    semi-definite matrices (its closure: ``S`` singular is the limit of infinitely stiff directions): convex,
    solved by accelerated projected gradient (FISTA; the projection clips eigenvalues at 0) to a relative change
    of the objective below ``tol``. Returns ``P_inv`` (d, d), ``r2`` = 1 − Σ‖f − f̂‖² / Σ‖f − f̄‖² (the variance
    measure of :func:`affine_fit`, so ``r2 ≤`` its affine ``r2``: the Gaussian family is linear, symmetric and
    constrained), ``iterations`` and ``kkt`` (the largest violation of the optimality conditions, relative to
    the gradient's scale; small at the optimum)."""
    u = np.asarray(g.detach().cpu() if isinstance(g, torch.Tensor) else g, dtype=np.float64)
    y = np.asarray(f.detach().cpu() if isinstance(f, torch.Tensor) else f, dtype=np.float64)
    if u.ndim < 2 or u.shape != y.shape:
        raise ValueError(f"g and f must be (..., d) arrays of one shape; got {u.shape} and {y.shape}")
    if isinstance(max_iter, bool) or not isinstance(max_iter, (int, np.integer)) or max_iter < 1:
        raise ValueError(f"max_iter must be a positive integer; got {max_iter!r}")
    u2, y2 = u.reshape(-1, u.shape[-1]), y.reshape(-1, u.shape[-1])
    if len(u2) <= u2.shape[1] or not (np.isfinite(u2).all() and np.isfinite(y2).all()):
        raise ValueError(f"g and f must be finite with more rows than d = {u2.shape[1]}; got {len(u2)} rows")
    r = u2 - y2                                          # f = g − S g  ⇔  g − f = S g
    gram, cross = u2.T @ u2, u2.T @ r                    # objective ‖r − g Sᵀ‖² = tr(S gram S) − 2 tr(S cross) + const
    top = np.linalg.eigvalsh(gram)[-1]
    if not top > 0:   # g all zeros: S is not determined (the step 1 / (2 λ_max) would be infinite)
        raise ValueError("g must not be all zeros: the correction (I − P⁻¹) g is 0 whatever P, no prior is fitted")
    step = 1.0 / (2.0 * top)

    def project(m):
        w, v = np.linalg.eigh(0.5 * (m + m.T))
        return (v * np.clip(w, 0.0, None)) @ v.T

    def grad(m):
        q = gram @ m - cross
        return q + q.T                                   # gradient over symmetric S

    def objective(m):
        return float(np.trace(m @ gram @ m) - 2 * np.trace(m @ cross))

    S = project(np.linalg.lstsq(u2, r, rcond=None)[0].T)
    Z, t, last, it = S.copy(), 1.0, objective(S), 0
    for it in range(1, max_iter + 1):
        S_new = project(Z - step * grad(Z))
        t_new = 0.5 * (1 + np.sqrt(1 + 4 * t * t))
        Z, S, t = S_new + ((t - 1) / t_new) * (S_new - S), S_new, t_new
        now = objective(S)
        if abs(last - now) <= tol * (abs(now) + float(np.sum(r * r))):
            break
        last = now
    G = grad(S)
    w, v = np.linalg.eigh(G)
    scale = np.abs(G).max() + np.abs(cross).max()
    kkt = max(-w.min(), abs(float(np.sum(G * S)))) / scale if scale > 0 else 0.0   # G ⪰ 0 and ⟨G, S⟩ = 0
    resid = y2 - (u2 - u2 @ S.T)
    total = ((y2 - y2.mean(axis=0)) ** 2).sum()
    return {"P_inv": S, "r2": float(1.0 - (resid ** 2).sum() / total) if total > 0 else 1.0, "iterations": it,
            "kkt": float(kkt)}


def _check_couplings(J: Any) -> torch.Tensor:
    J = check_tensor("J", J, ndim=4, real=True)
    n, n2, d, d2 = J.shape
    if n != n2 or d != d2:
        raise ValueError(f"J must have shape (N, N, d, d); got {tuple(J.shape)}")
    return J.double()


def _prior_precision(P: Any, d: int, dtype: torch.dtype) -> torch.Tensor:
    """The prior precision ``P`` (a positive scalar, meaning ``P·I``, or an invertible (d, d) matrix) as a (d, d) tensor."""
    Pd = torch.as_tensor(P, dtype=dtype)
    if Pd.dim() == 0:
        if not float(Pd) > 0:
            raise ValueError(f"P must be a positive scalar or an invertible ({d}, {d}) matrix; got {float(Pd)!r}")
        return float(Pd) * torch.eye(d, dtype=dtype)
    if Pd.shape != (d, d):
        raise ValueError(f"P must be a positive scalar or an invertible ({d}, {d}) matrix; got shape {tuple(Pd.shape)}")
    if not bool(torch.isfinite(Pd).all()) or int(torch.linalg.matrix_rank(Pd.double())) < d:
        raise ValueError("P must be a positive scalar or an invertible, finite (d, d) matrix; got a singular one")
    return Pd


@contract(J="tensor:4", P="realt")
def gaussian_cavity(J: Any, P: Any = 1.0) -> torch.Tensor:
    """(N, d, d) adaptive-TAP cavity variances ``V_i = P − [(P − J)⁻¹]_ii⁻¹`` of Gaussian spins (``Λ ≡ P``).

    ``J`` (N, N, d, d) couplings (any symmetry: for non-symmetric ``J`` these are the formal linear-response
    equations); ``P`` a positive scalar or (d, d) prior precision (symmetric positive definite). Raises if ``P − J``
    is singular."""
    from .meanfield import couplings_to_matrix

    J = _check_couplings(J)
    n, _, d, _ = J.shape
    Pd = _prior_precision(P, d, torch.float64)
    asym = float((Pd - Pd.T).abs().max())
    if asym > 1e-10 * float(Pd.abs().max()):
        raise ValueError(f"P must be a symmetric positive definite (d, d) prior precision; got an asymmetric one "
                         f"(max |P − Pᵀ| = {asym:.3g})")
    if float(torch.linalg.eigvalsh(Pd)[0]) <= 0:
        raise ValueError(f"P must be a symmetric positive definite (d, d) prior precision; got smallest eigenvalue "
                         f"{float(torch.linalg.eigvalsh(Pd)[0]):.3g}")
    A = torch.block_diag(*([Pd] * n)) - couplings_to_matrix(J)
    if torch.linalg.matrix_rank(A) < n * d:
        raise ValueError("P − J is singular: the Gaussian model has no linear response at this P")
    C = torch.linalg.inv(A).view(n, d, n, d).diagonal(dim1=0, dim2=2).permute(2, 0, 1)   # (N, d, d) C_ii
    return Pd - torch.linalg.inv(C)


@contract(P="realt", g="tensor")
def gaussian_correction(P: Any, g: torch.Tensor) -> torch.Tensor:
    """The Gaussian adaptive-TAP correction of the means in the neural layer's form ``m = g − c``:
    ``c_i = (I − P⁻¹) g_i`` for ``g`` (..., d) and prior precision ``P`` (scalar or (d, d)); see the module
    docstring (the reaction term ``V_i m_i`` cancels against ``χ_i``)."""
    g = check_tensor("g", g)
    Pd = _prior_precision(P, g.shape[-1], g.dtype)
    return g - torch.linalg.solve(Pd, g.unsqueeze(-1)).squeeze(-1)


@contract(J="tensor:>=4")
def coupling_asymmetry(J: Any) -> float:
    """How far couplings are from symmetric: ``‖M − Mᵀ‖_F / ‖M + Mᵀ‖_F``, the Frobenius norm of the antisymmetric
    part of the (Nd × Nd) coupling matrix ``M[(i,a),(j,b)] = J[i,j,a,b]`` over that of its symmetric part.

    ``J`` (N, N, d, d), or (..., N, N, d, d) with leading (batch) axes: then ``M`` is built per leading index and
    each norm is taken over all of them together (one number for the batch). Returns a float in ``[0, inf]``:
    0 for any symmetric ``M`` (an energy ``−½ Sᵀ M S`` exists; also for ``M = 0``), 1 when the two parts have
    equal norms (as for independent ``J_ij`` and ``J_ji``), and ``inf`` for a non-zero antisymmetric ``M``
    (``M + Mᵀ = 0``). The one definition for Chapters 2 and 3 (:mod:`mfattn.implicit.transformer` re-exports
    it); the stored ``corr_asymmetry`` of the full profile was computed with it."""
    J = check_tensor("J", J)
    if J.dim() < 4 or J.shape[-4] != J.shape[-3] or J.shape[-2] != J.shape[-1]:
        raise ValueError(f"J must have shape (..., N, N, d, d); got {tuple(J.shape)}")
    *lead, n, _, d, _ = J.shape
    M = J.double().movedim(-3, -2).reshape(*lead, n * d, n * d)        # M[(i,a),(j,b)] = J[i,j,a,b]
    Mt = M.transpose(-1, -2)
    anti, sym = float(torch.linalg.norm(M - Mt)), float(torch.linalg.norm(M + Mt))
    if anti == 0.0:
        return 0.0                                                       # symmetric, M = 0 included
    return anti / sym if sym > 0 else float("inf")


@contract(images="tensor:4")
def correction_report(model: Any, images: torch.Tensor) -> dict[str, Any]:
    """Numbers on a trained model's correction at its fixed point on ``images`` (B, 1, 28, 28).

    ``r2_affine``: how much of ``f_θ(g)``'s variance one site-shared affine map of ``g`` explains;
    ``r2_gaussian``: how much of it the chapter's Gaussian correction ``(I − P⁻¹) g`` explains at its best prior
    precision (:func:`gaussian_fit`); ``r2_per_site_gain``: what separate affine maps per site add to it; ``p_eff_eig``: eigenvalues (real parts,
    sorted) of ``P_eff = (I − A)⁻¹`` of that affine map's linear part (a Gaussian prior whose correction it
    would be); ``reaction_cosine``: cosine between ``f`` and the reaction term ``V_i m*_i`` of the learned
    couplings at ``P = I`` (nan when ``I − J`` is singular); ``sym_min_eig``: the smallest eigenvalue of
    ``sym(I − J)`` (negative: no Gaussian model at ``P = I``); ``reaction_cosine_valid``: the same cosine at
    ``P = prior_valid``, the smallest scalar prior precision ``λ_max(sym J) + 0.1`` (at least 1) at which the Gaussian
    model exists; ``v_site_spread``: mean ``‖V_i − V̄‖_F / ‖V̄‖_F``;
    ``asymmetry``: :func:`coupling_asymmetry`; ``f_to_g``: ``‖f‖/‖g‖``; ``residual``: max over digits of
    ``‖f − f_θ(g)‖/‖m‖``, the fixed-point residual (small when the solver converged, so ``f`` is ``f_θ(g)``).
    ``points`` holds (B, N, d) arrays for plots: ``f``, its affine fit ``f_affine``, the fitted Gaussian correction
    ``f_gaussian`` = ``(I − P⁻¹) g`` and the ``reaction`` term."""
    fields = fixed_point_fields(model, images)
    g, m, f = (fields[k].double() for k in ("g", "m", "f"))
    with torch.no_grad():
        net = model.attention.correction
        f_theta = net(fields["g"]).double() if net is not None else torch.zeros_like(g)
    fit = affine_fit(g, f)
    gauss = gaussian_fit(g, f)
    per_site = [affine_fit(g[:, i], f[:, i])["r2"] for i in range(g.shape[1])]
    var_site = ((f - f.mean(dim=0)) ** 2).sum(dim=(0, 2))
    if not float(var_site.sum()) > 0:   # every image gives one correction: no variance for any fit to explain
        raise ValueError("images must differ: the correction f at the fixed point is the same for every image, so "
                         "no share of its variance can be explained")
    r2_sites = float(1 - sum((1 - r) * v for r, v in zip(per_site, var_site.tolist())) / float(var_site.sum()))
    d = g.shape[-1]
    p_eff = np.linalg.eigvals(np.linalg.inv(np.eye(d) - fit["A"]))
    J = model.attention.couplings().detach()
    reaction = torch.full_like(f, float("nan"))
    try:
        V = gaussian_cavity(J, 1.0)
        reaction = torch.einsum("iab,zib->zia", V, m)
        cosine = float((reaction * f).sum() / (reaction.norm() * f.norm()))
        Vbar = V.mean(dim=0)
        spread = float(((V - Vbar).flatten(1).norm(dim=1) / Vbar.norm()).mean())
    except ValueError:
        cosine, spread = float("nan"), float("nan")
    # the blog's prior Σ = 1 need not make a Gaussian model of the learned couplings (sym(I − J) may be indefinite):
    # the reaction term again at the smallest scalar prior precision P that does, P = λ_max(sym J) + 0.1
    from .meanfield import couplings_to_matrix
    M = couplings_to_matrix(J.double())
    top = float(torch.linalg.eigvalsh(0.5 * (M + M.T))[-1])
    prior_valid = max(1.0, top + 0.1)
    try:
        Vv = gaussian_cavity(J, prior_valid)
        react_v = torch.einsum("iab,zib->zia", Vv, m)
        cosine_valid = float((react_v * f).sum() / (react_v.norm() * f.norm()))
    except ValueError:
        cosine_valid = float("nan")
    return {"r2_affine": fit["r2"], "reaction_cosine_valid": cosine_valid, "prior_valid": prior_valid,
            "sym_min_eig": 1.0 - top, "r2_gaussian": gauss["r2"], "r2_per_site": r2_sites, "r2_per_site_gain": r2_sites - fit["r2"],
            "p_eff_eig": np.sort(p_eff.real).tolist(), "reaction_cosine": cosine, "v_site_spread": spread,
            "asymmetry": coupling_asymmetry(J), "f_to_g": float(f.norm() / g.norm()),
            "residual": float(((f - f_theta).flatten(1).norm(dim=1) / m.flatten(1).norm(dim=1)).max()),
            "digits": int(len(images)),
            "points": {"f": f.numpy(), "f_affine": (g.numpy() @ fit["A"].T + fit["b"]),
                       "f_gaussian": g.numpy() - g.numpy() @ gauss["P_inv"],     # (I − S) g with S = P⁻¹ symmetric
                       "reaction": reaction.numpy()}}
