"""Does the feed-forward block of an attention layer amortise the Onsager correction?

Bal (2021) reads the feed-forward net ``f_θ`` of a mean-field attention layer as a learned
stand-in for the Onsager reaction term ``V_i m_i`` of adaptive TAP. For Gaussian vector spins the
term cancels at the fixed point (Chapter 1), so the hypothesis is tested on binary SK spins, where
adaptive TAP (:func:`mfattn.ising.adaptive_tap`) gives the target correction ``c_i = V_i m_i``:
small site-wise nets are fitted to it from different inputs and then used inside the mean-field
iteration ``m_i = tanh(g_i − f_θ(·))`` on new instances (:func:`amortisation_study`).
"""

from __future__ import annotations

import math
from typing import Any, Optional, Sequence

import numpy as np
import torch
from torch import nn

from ..companion import caches, store
from ..companion.checks import check_choice, check_real, check_tensor, contract
from ..deq import solve
from ..ising import MeanFieldWarning, adaptive_tap, sk_couplings

__all__ = ["ONSAGER_INPUTS", "onsager_dataset", "onsager_features", "OnsagerNet", "fit_onsager_net",
           "amortised_mean_field", "amortisation_study"]


#: The inputs a correction net is given: the naive field, the site's state, the state with the site's coupling
#: strength, and the state with the instance's coupling strength shared by all its sites (the control of
#: "m+s": what the temperature alone gives, without anything that tells the sites apart).
ONSAGER_INPUTS = ("g", "m", "m+s", "m+b2")


@contract(n="int:2", betas="reals:>=0", instances="int:1", field_std="real:>=0", seed="int:0",
          alloc=lambda a: [("instances", 24 * a["instances"] * len(a["betas"]) * a["n"] * (a["n"] + 4))])
def onsager_dataset(n: int, betas: Sequence[float], instances: int, *, field_std: float = 0.3,
                    seed: int = 0) -> dict[str, Any]:
    """Adaptive-TAP solutions of SK models, the targets an amortised correction should learn.

    For each β and instance: ``J = sk_couplings(n, β)``, ``h ~ N(0, field_std²)``, and adaptive TAP
    (:func:`mfattn.ising.adaptive_tap`) gives ``m`` and the cavity variances ``V`` with
    ``m_i = tanh(h_i + Σ_j J_ij m_j − V_i m_i)``; the Onsager correction is ``c_i = V_i m_i``.
    Instances where adaptive TAP did not converge are dropped (counted in ``dropped``).

    Returns a dict of float64 tensors ``J`` (I, n, n), ``h``, ``m``, ``V``, ``c`` (I, n), ``beta`` (I,)
    and the int ``dropped``.
    """
    import warnings as _w

    import numpy as np

    # fields past ~1e6 saturate every spin (m = ±1, no correction to learn), and near 1e308 the iteration overflows
    check_real("field_std", field_std, minimum=0.0, maximum=1e6)
    rng = np.random.default_rng(seed)
    Js, hs, ms, Vs, bs, dropped = [], [], [], [], [], 0
    for beta in betas:
        for _ in range(instances):
            J = sk_couplings(n, float(beta), rng)
            h = field_std * rng.standard_normal(n)
            with _w.catch_warnings():
                _w.simplefilter("ignore", MeanFieldWarning)
                res = adaptive_tap(J, h, on_fail="ignore")
            if not (res.converged and res.chi_positive):
                dropped += 1
                continue
            Js.append(J), hs.append(h), ms.append(res.m), Vs.append(res.V), bs.append(float(beta))
    if not Js:
        raise ValueError("adaptive TAP converged on no instance; lower the betas")
    t = lambda a: torch.as_tensor(np.stack(a), dtype=torch.float64)
    m, V = t(ms), t(Vs)
    return {"J": t(Js), "h": t(hs), "m": m, "V": V, "c": V * m,
            "beta": torch.as_tensor(bs, dtype=torch.float64), "dropped": dropped}


@contract(J="tensor", h="tensor", m="tensor")
def onsager_features(J: torch.Tensor, h: torch.Tensor, m: torch.Tensor, inputs: str) -> torch.Tensor:
    """Per-site inputs of an amortised correction net, (I, n, F):
    ``"g"``: the naive field ``g_i = h_i + Σ_j J_ij m_j`` (the blog's MNIST variant, f_θ(g));
    ``"m"``: the site's own magnetisation (the reference code's later variant, f_θ(m));
    ``"m+s"``: ``m_i`` and the local coupling strength ``s_i = Σ_j J_ij²``;
    ``"m+b2"``: ``m_i`` and the instance's mean coupling strength ``β̂² = Σ_ij J_ij² / n``, the same for every
    site (on SK couplings β²(n − 1)/n in expectation: the temperature, as a global feature; it is the site
    average of ``s_i``, so ``"m+s"`` against ``"m+b2"`` separates what the site-to-site part of s adds)."""
    check_choice("inputs", inputs, ONSAGER_INPUTS)
    dtypes = {"J": J.dtype, "h": h.dtype, "m": m.dtype}
    if len(set(dtypes.values())) != 1 or J.dtype not in (torch.float32, torch.float64):   # einsum refused mixes deep
        raise TypeError(f"J, h and m must share one float dtype (float32 or float64); got "
                        f"{', '.join(f'{k} {v}' for k, v in dtypes.items())}")
    if J.dim() != 3 or J.shape[1] != J.shape[2] or h.shape != J.shape[:2] or m.shape != J.shape[:2]:
        raise ValueError(f"J must be (I, n, n) and h, m (I, n); got J {tuple(J.shape)}, h {tuple(h.shape)}, "
                         f"m {tuple(m.shape)}")
    if inputs == "g":
        return (h + torch.einsum("bij,bj->bi", J, m))[..., None]
    if inputs == "m":
        return m[..., None]
    s = (J ** 2).sum(dim=-1)
    if inputs == "m+b2":
        s = s.mean(dim=-1, keepdim=True).expand_as(m)
    return torch.stack([m, s], dim=-1)


class OnsagerNet(nn.Module):
    """Site-wise MLP ``F → hidden → hidden → 1`` (tanh) predicting the Onsager correction."""

    @contract(features="int:1", hidden="int:1", generator="generator?",
              alloc=lambda a: [("hidden", 16 * a["hidden"] * (a["hidden"] + a["features"] + 2))])
    def __init__(self, features: int, hidden: int = 32, generator: Optional[torch.Generator] = None):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(features, hidden), nn.Tanh(), nn.Linear(hidden, hidden), nn.Tanh(),
                                 nn.Linear(hidden, 1))
        if generator is not None:
            with torch.no_grad():
                for mod in self.net:
                    if isinstance(mod, nn.Linear):
                        bound = 1.0 / math.sqrt(mod.in_features)
                        mod.weight.copy_((torch.rand(mod.weight.shape, generator=generator) * 2 - 1) * bound)
                        mod.bias.copy_((torch.rand(mod.bias.shape, generator=generator) * 2 - 1) * bound)
        # Input/output standardisation, set from the training data by fit_onsager_net.
        self.register_buffer("in_shift", torch.zeros(features))
        self.register_buffer("in_scale", torch.ones(features))
        self.register_buffer("out_scale", torch.ones(()))
        self.double()

    def forward(self, features: torch.Tensor) -> torch.Tensor:
        """(..., F) -> (...) predicted corrections; ``features`` with another last dimension than the net's F is
        a ValueError (it would broadcast, or fail inside torch)."""
        if not isinstance(features, torch.Tensor):
            raise TypeError(f"features must be a torch.Tensor (..., F); got {type(features).__name__}")
        F = self.in_shift.shape[0]
        if features.dim() < 1 or features.shape[-1] != F:
            raise ValueError(f"features must have last dimension F = {F} (the net's input features); got shape "
                             f"{tuple(features.shape)}")
        return self._predict(features)

    def _predict(self, features: torch.Tensor) -> torch.Tensor:
        """:meth:`forward` unchecked, for the package's own loops (fits, solver iterations)."""
        return self.net((features - self.in_shift) / self.in_scale).squeeze(-1) * self.out_scale


#: How a fit weighs its training instances: ``plain``, the mean squared error of c (each instance weighs as ‖V m‖²,
#: which grows like β⁴, so the largest training β decide the fit); ``beta``, the squared error relative to the mean
#: ‖c‖² of the instance's β, every training β weighted alike (the statistic the chapter's verdicts read).
FIT_WEIGHTS = ("plain", "beta")


def _beta_weights(beta: torch.Tensor, y: torch.Tensor, sites: int) -> torch.Tensor:
    """Per-sample weights that make ``Σ w (f − y)²`` the mean over the distinct β of each β's mean squared error over
    its mean y² (so ``f = 0`` has loss exactly 1): beta (I,) per instance, y (I·sites,) -> (I·sites,)."""
    _, group = torch.unique(beta, return_inverse=True)
    group = group.repeat_interleave(sites)
    count = torch.bincount(group).to(y.dtype)
    power = torch.zeros_like(count).index_add_(0, group, y * y) / count
    return 1.0 / (count.numel() * count[group] * power[group].clamp_min(1e-300))


@contract(data="mapping:J|h|m|c", inputs="choice:g|m|m+s|m+b2", hidden="int:1", steps="int:1", lr="real:>0", seed="int:0",
          weight="choice:plain|beta")
def fit_onsager_net(data: dict[str, Any], inputs: str, *, hidden: int = 32, steps: int = 1500,
                    lr: float = 1e-2, seed: int = 0, weight: str = "plain") -> tuple[OnsagerNet, list[float]]:
    """Fit an :class:`OnsagerNet` to the adaptive-TAP corrections ``c`` of ``data``
    (:func:`onsager_dataset`), from features at the adaptive-TAP fixed point; full-batch Adam
    on the mean squared error (``weight="plain"``) or on the mean over the training β of each β's relative squared
    error Σ_β (1/B) Σ_{i∈β}(f_i − c_i)² / Σ_{i∈β} c_i² (``weight="beta"``, :data:`FIT_WEIGHTS`). Returns the net and
    its loss curve; ``lr`` above 1 (Adam moves every weight by about ``lr`` a step) is refused, and a fit that ends
    with non-finite weights or losses is a ValueError naming ``lr``."""
    check_real("lr", lr, minimum=0.0, maximum=1.0, strict=True)
    for key in ("J", "h", "m", "c") + (("beta",) if weight == "beta" else ()):
        check_tensor(f"data[{key!r}]", data[key])
    feats = onsager_features(data["J"], data["h"], data["m"], inputs)   # checks J (I, n, n), h and m (I, n)
    sites = tuple(data["J"].shape[:2])
    if tuple(data["c"].shape) != sites:
        raise ValueError(f"data['c'] must have shape (I, n) = {sites} of data['J'] (one correction per instance and "
                         f"site); got {tuple(data['c'].shape)}")
    if weight == "beta" and tuple(data["beta"].shape) != sites[:1]:
        raise ValueError(f"data['beta'] must have shape (I,) = {sites[:1]} of data['J'] (one β per instance); got "
                         f"{tuple(data['beta'].shape)}")
    X = feats.reshape(-1, feats.shape[-1])
    y = data["c"].reshape(-1)
    w = _beta_weights(data["beta"], y, data["c"].shape[-1]) if weight == "beta" else None
    gen = torch.Generator().manual_seed(seed)
    net = OnsagerNet(X.shape[1], hidden, generator=gen)
    with torch.no_grad():
        net.in_shift.copy_(X.mean(dim=0))
        net.in_scale.copy_(X.std(dim=0).clamp_min(1e-12))
        net.out_scale.copy_(y.std().clamp_min(1e-12))
    opt = torch.optim.Adam(net.parameters(), lr=lr)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=steps)
    losses = []
    for _ in range(steps):
        opt.zero_grad()
        loss = torch.mean((net._predict(X) - y) ** 2) if w is None else torch.sum(w * (net._predict(X) - y) ** 2)
        loss.backward()
        opt.step()
        sched.step()
        losses.append(float(loss.detach()))
    if not (all(math.isfinite(v) for v in losses) and all(bool(torch.isfinite(p).all()) for p in net.parameters())):
        raise ValueError(f"lr = {lr!r} let the fit diverge: non-finite weights or losses after {steps} steps (lower "
                         f"lr, default 1e-2, or rescale data's corrections)")
    return net, losses


@contract(J="tensor:3", h="tensor:2", inputs="choice:g|m|m+s|m+b2", max_iter="int:1", tol="real:>0", damping="real:(0,1]")
def amortised_mean_field(J: torch.Tensor, h: torch.Tensor, net: Optional[OnsagerNet], inputs: str = "g", *,
                         max_iter: int = 500, tol: float = 1e-10, damping: float = 0.5) -> tuple[torch.Tensor, Any]:
    """Magnetisations of ``m_i = tanh(g_i − f_θ(·))``, ``g = h + J m`` (naive mean field when
    ``net`` is None), batched over instances: J (I, n, n), h (I, n) -> m (I, n) and the
    :class:`~mfattn.deq.SolverStats` of the Anderson solve. ``h`` must be (I, n) for ``J`` (I, n, n), and ``net``
    take the features of ``inputs`` (1 for ``"g"``, ``"m"``; 2 for ``"m+s"``, ``"m+b2"``)."""
    check_choice("inputs", inputs, ONSAGER_INPUTS)
    if J.shape[1] != J.shape[2]:
        raise ValueError(f"J must have shape (I, n, n); got {tuple(J.shape)}")
    if h.shape != J.shape[:2]:
        raise ValueError(f"h must have shape (I, n) = {tuple(J.shape[:2])} for J (I, n, n); got h {tuple(h.shape)}, "
                         f"J {tuple(J.shape)}")
    if net is not None:
        if not isinstance(net, OnsagerNet):
            raise TypeError(f"net must be an OnsagerNet or None; got {type(net).__name__}")
        want = 1 if inputs in ("g", "m") else 2
        if net.in_shift.shape[0] != want:
            raise ValueError(f"net must take {want} input feature(s) for inputs={inputs!r}; got an OnsagerNet of "
                             f"{net.in_shift.shape[0]}")
    # the loop below predicts unchecked (the feature count is checked once here), unless a subclass has its own forward
    predict = None if net is None else net._predict if type(net).forward is OnsagerNet.forward else net

    def f(m: torch.Tensor) -> torch.Tensor:
        g = h + torch.einsum("bij,bj->bi", J, m)
        if net is None:
            return torch.tanh(g)
        feats = g[..., None] if inputs == "g" else onsager_features(J, h, m, inputs)
        return torch.tanh(g - predict(feats))

    with torch.no_grad():
        return solve(f, torch.zeros_like(h), method="anderson", max_iter=max_iter, tol=tol, damping=damping,
                     on_fail="ignore")


@contract(n="int:2", train_betas="reals:>=0", train_instances="int:1", test_betas="reals:>=0",
          test_instances="int:1", field_std="real:>=0", hidden="int:1", fit_steps="int:1", seed="int:0",
          alloc=lambda a: [("train_instances", 24 * a["train_instances"] * len(a["train_betas"]) * a["n"] ** 2),
                           ("test_instances", 24 * a["test_instances"] * len(a["test_betas"]) * a["n"] ** 2)])
def amortisation_study(n: int, train_betas: Sequence[float], train_instances: int, test_betas: Sequence[float],
                       test_instances: int, *, field_std: float = 0.3, hidden: int = 32, fit_steps: int = 1500,
                       seed: int = 0, inputs: Sequence[str] = ONSAGER_INPUTS, fixed_inputs: Sequence[str] = ("m",),
                       balanced: Sequence[str] = ("g", "m"), ranges: bool = True,
                       cache: bool = True) -> dict[str, np.ndarray]:
    """Fit one site-wise net per input choice on SK instances at ``train_betas``; test at ``test_betas``.

    Returns arrays indexed by test beta: ``corr_err_<inputs>`` (relative error of the predicted
    correction at the adaptive-TAP solution), ``m_err_<inputs>`` (RMSE of the magnetisations when
    the net replaces the Onsager term inside the iteration, against adaptive TAP), ``converged_<inputs>``
    (fraction of instances whose amortised iteration converged), ``m_err_naive`` (naive mean field),
    ``r2_<inputs>`` (the fit's R² on the training set) and ``dropped`` (instances adaptive TAP failed on,
    [train, test]).

    Beside the nets, two corrections that treat every site of an instance alike, as references: ``shared``, the
    best such correction ``a m_i`` (one least-squares ``a`` per instance, knowing its cavity variances), and
    ``sktap``, SK-TAP's ``β̂²(1 − q) m_i`` (``β̂² = Σ_ij J_ij² / n``, ``q`` the instance's mean m²); and one that
    tells the sites apart without learning, ``sitetap``, the per-site TAP term of Thouless, Anderson and Palmer
    ``Σ_j J_ij²(1 − m_j²) m_i`` (the control of the ``"m+s"`` net: the closed form its input allows); and the best
    single coefficient for every instance and β, ``global_g`` (a·g_i) and ``global_m`` (a·m_i), each a fitted on the
    training set with every β weighted alike (what a net of one site's state gains over a global constant). Their
    ``corr_err_<name>`` per test β.

    Every training β weighted alike: for each name in ``balanced`` a net fitted with ``weight="beta"``
    (:func:`fit_onsager_net`), its arrays under ``<name>_bal`` (``corr_err_g_bal``, ``m_err_g_bal``, ...): the plain
    squared error weighs each instance as ‖V m‖² ∝ β⁴, while the per-β errors are relative, so the plain fit is
    judged on a statistic it was not fitted to.

    How the range of coupling strengths sets the error (``ranges``): ``range_err_g_bal`` (R,), for each training β
    from the largest down (``range_low``, the range's lower end), f_θ(g) fitted with every β weighted alike on the
    training β from that one up to the largest and tested on the same β (the mean over them of each β's pooled error):
    a single β first, the whole training range last.

    Couplings of one strength (a layer whose couplings are fixed): for each name in ``fixed_inputs`` one net per
    training β, fitted on that β's training instances alone and tested on the test instances at the same β
    (``corr_err_<name>_fixed``; NaN at a test β that is not a training β), and ``lin_fixed``, the same with the
    best single ``a m_i`` per training β (least squares on its training instances).

    Per test instance (the units a spread is read over): ``test_beta``, ``c_norm`` (‖V m‖) and
    ``corr_diff_<name>`` for every net and reference above (‖prediction − V m‖; NaN where a fixed-β net has no
    training β), so that an error pooled over any set of instances is ``sqrt(Σ diff²) / sqrt(Σ c_norm²)``.

    Cached under ``cache_dir("onsager")`` by configuration and by the code of this module, of :mod:`mfattn.deq`
    and of :mod:`mfattn.ising`, so a code change never reuses a stale result.
    """
    from .. import deq, ising

    for name in fixed_inputs:
        check_choice("fixed_inputs", name, ONSAGER_INPUTS)
    for name in balanced:
        check_choice("balanced", name, ONSAGER_INPUTS)
    config = {"n": n, "train_betas": list(train_betas), "train_instances": train_instances,
              "test_betas": list(test_betas), "test_instances": test_instances, "field_std": field_std,
              "hidden": hidden, "fit_steps": fit_steps, "seed": seed, "inputs": list(inputs),
              "fixed_inputs": list(fixed_inputs), "balanced": list(balanced), "ranges": bool(ranges),
              "code": [store.sha256_file(f) for f in (__file__, deq.__file__, ising.__file__)]}
    path = store.cache_dir("onsager") / f"study-{store.config_hash(config)}.npz"
    # verified (key, content hash): a damaged, planted or copied entry is recomputed with a CacheWarning
    found = caches.load_cached_npz(path) if cache else None
    if found is not None:
        return found
    train = onsager_dataset(n, train_betas, train_instances, field_std=field_std, seed=seed)
    test = onsager_dataset(n, test_betas, test_instances, field_std=field_std, seed=seed + 1)
    select = [test["beta"] == b for b in test_betas]

    def rmse(a, b, sel):
        return float((a[sel] - b[sel]).square().mean().sqrt())

    def per_beta(pred):        # the relative error pooled over each test β's instances and sites
        return np.array([float((pred[s] - test["c"][s]).norm() / test["c"][s].norm()) for s in select])

    def per_instance(pred):
        return (pred - test["c"]).norm(dim=1).numpy()

    m_naive, _ = amortised_mean_field(test["J"], test["h"], None)
    res = {"dropped": np.array([train["dropped"], test["dropped"]]),
           "m_err_naive": np.array([rmse(m_naive, test["m"], s) for s in select]),
           "test_beta": test["beta"].numpy(), "c_norm": test["c"].norm(dim=1).numpy()}
    m, c = test["m"], test["c"]
    shared = ((c * m).sum(dim=1, keepdim=True) / (m * m).sum(dim=1, keepdim=True).clamp_min(1e-300)) * m
    b2 = (test["J"] ** 2).sum(dim=(1, 2))[:, None] / n
    sktap = b2 * (1 - (m * m).mean(dim=1, keepdim=True)) * m
    sitetap = torch.einsum("bij,bj->bi", test["J"] ** 2, 1 - m * m) * m
    # one coefficient for every instance and β, fitted on the training set with every β weighted alike: a·g and a·m
    w = _beta_weights(train["beta"], train["c"].reshape(-1), train["c"].shape[-1])
    g_train = _local_field(train)
    a_g = float((w * g_train.reshape(-1) * train["c"].reshape(-1)).sum() / (w * g_train.reshape(-1) ** 2).sum())
    a_m = float((w * train["m"].reshape(-1) * train["c"].reshape(-1)).sum() / (w * train["m"].reshape(-1) ** 2).sum())
    global_g, global_m = a_g * _local_field(test), a_m * m
    for name, pred in (("shared", shared), ("sktap", sktap), ("sitetap", sitetap), ("global_g", global_g),
                       ("global_m", global_m)):
        res[f"corr_err_{name}"], res[f"corr_diff_{name}"] = per_beta(pred), per_instance(pred)
    fits = [(name, name, "plain") for name in inputs] + [(name, f"{name}_bal", "beta") for name in balanced]
    for name, key, weight in fits:
        net, _ = fit_onsager_net(train, name, hidden=hidden, steps=fit_steps, seed=seed, weight=weight)
        with torch.no_grad():
            pred = net(onsager_features(test["J"], test["h"], test["m"], name))
            fitted = net(onsager_features(train["J"], train["h"], train["m"], name))
        m_amort, stats = amortised_mean_field(test["J"], test["h"], net, name)
        res[f"corr_err_{key}"], res[f"corr_diff_{key}"] = per_beta(pred), per_instance(pred)
        res[f"m_err_{key}"] = np.array([rmse(m_amort, test["m"], s) for s in select])
        res[f"converged_{key}"] = np.array([float(stats.converged[s].double().mean()) for s in select])
        # R² of the fit on its training set, unweighted for either weighting
        res[f"r2_{key}"] = np.array(1 - float((fitted - train["c"]).square().mean()) / float(train["c"].var()))
    for name, pred in _fixed_coupling_predictions(train, test, fixed_inputs, hidden=hidden, fit_steps=fit_steps,
                                                  seed=seed).items():
        res[f"corr_err_{name}"], res[f"corr_diff_{name}"] = per_beta(pred), per_instance(pred)
    if ranges:
        res["range_low"], res["range_err_g_bal"] = _range_widths(train, test, hidden=hidden, fit_steps=fit_steps,
                                                                 seed=seed)
    if cache:
        caches.save_cached_npz(path, res)
    return res


def _local_field(data: dict[str, Any]) -> torch.Tensor:
    """The naive update's local field g = h + J m at the stored magnetisations: (I, n)."""
    return data["h"] + torch.einsum("bij,bj->bi", data["J"], data["m"])


def _range_widths(train: dict[str, Any], test: dict[str, Any], *, hidden: int, fit_steps: int,
                  seed: int) -> tuple[np.ndarray, np.ndarray]:
    """f_θ(g) fitted with every β weighted alike on the training β from each one up to the largest, tested on the
    test instances at those β: (lower ends (R,), mean over the range's β of each β's pooled relative error (R,))."""
    betas = sorted(set(train["beta"].tolist()), reverse=True)
    lows, errs = [], []
    for low in betas:
        tr, te = train["beta"] >= low - 1e-12, test["beta"] >= low - 1e-12
        te_betas = sorted(set(test["beta"][te].tolist()) & set(betas))
        if not te_betas:
            continue
        net, _ = fit_onsager_net({k: train[k][tr] for k in ("J", "h", "m", "c", "beta")}, "g", hidden=hidden,
                                 steps=fit_steps, seed=seed, weight="beta")
        with torch.no_grad():
            pred = net(onsager_features(test["J"][te], test["h"][te], test["m"][te], "g"))
        c, b = test["c"][te], test["beta"][te]
        errs.append(float(np.mean([float((pred[b == x] - c[b == x]).norm() / c[b == x].norm()) for x in te_betas])))
        lows.append(low)
    return np.array(lows), np.array(errs)


def _fixed_coupling_predictions(train: dict[str, Any], test: dict[str, Any], fixed_inputs: Sequence[str], *,
                                hidden: int, fit_steps: int, seed: int) -> dict[str, torch.Tensor]:
    """Corrections fitted at one coupling strength: for each training β, a net per input of ``fixed_inputs``
    (``<input>_fixed``) and the least-squares ``a m_i`` (``lin_fixed``) fitted on that β's training instances,
    predicting the test instances at the same β; NaN for test instances at a β not trained on.

    This is the case of a layer whose couplings are learned once and then fixed (Chapter 2's MNIST model): the
    coupling statistics never change, so a net of one site's state need not know them."""
    preds = {f"{name}_fixed": torch.full_like(test["c"], math.nan) for name in fixed_inputs}
    preds["lin_fixed"] = torch.full_like(test["c"], math.nan)
    for beta in sorted(set(train["beta"].tolist())):
        # the same β within float32's rounding: a β given as np.float32(0.3) is the training β 0.3, not another one
        at_train = torch.isclose(train["beta"], torch.tensor(beta, dtype=train["beta"].dtype), rtol=1e-6, atol=0.0)
        at_test = torch.isclose(test["beta"], torch.tensor(beta, dtype=test["beta"].dtype), rtol=1e-6, atol=0.0)
        if not bool(at_test.any()):
            continue
        sub = {k: train[k][at_train] for k in ("J", "h", "m", "c")}
        m, c = sub["m"], sub["c"]
        preds["lin_fixed"][at_test] = float((c * m).sum() / (m * m).sum().clamp_min(1e-300)) * test["m"][at_test]
        for name in fixed_inputs:
            net, _ = fit_onsager_net(sub, name, hidden=hidden, steps=fit_steps, seed=seed)
            with torch.no_grad():
                preds[f"{name}_fixed"][at_test] = net(onsager_features(test["J"][at_test], test["h"][at_test],
                                                                       test["m"][at_test], name))
    return preds
