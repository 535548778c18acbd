"""Rows of the fifth outside table (outside5b) in chapter 2-3's machinery outside the claims modules (mfattn.implicit:
evaluation, vector_tap, onsager_bound, onsager, runs, export, prepare, trained, variants, seed_numbers, mnist, train,
meanfield, models, public_trained, figures, figures_controls), each refused at the boundary with one message naming
the parameter (before: a result for input to refuse, or an error from deep inside torch/numpy/matplotlib/the stdlib);
with valid controls that still work (and give what they gave)."""

from __future__ import annotations

import io
import pathlib

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
import torch  # noqa: E402

from mfattn.companion import caches, profiles, store  # noqa: E402
from mfattn.implicit import (correction, ensemble, evaluation, export, figures_controls, mnist,  # noqa: E402
                             models, onsager, onsager_bound, prepare, public_trained, runs, seed_numbers, trained,
                             variants, vector_tap)
from mfattn.implicit import figures as ifig  # noqa: E402
from mfattn.implicit import meanfield as imf  # noqa: E402
from mfattn.implicit import train as itrain  # noqa: E402


@pytest.fixture(autouse=True)
def _own_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("MFATTN_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("MFATTN_OFFLINE", "1")


def _gen(seed=0):
    return torch.Generator().manual_seed(seed)


def _x(dtype=torch.float32):
    return torch.randn(2, 4, 6, generator=_gen(5), dtype=dtype)


def _softmax():
    return imf.MeanFieldAttention(4, 6, interaction="softmax", generator=_gen(0))


def _linear():
    return imf.MeanFieldAttention(4, 6, generator=_gen(1))


def _tap():
    return vector_tap.VectorSpinTAP(3, 2, generator=_gen(0)).double()


def _ons(betas=(0.3, 0.5), seed=1):
    return onsager.onsager_dataset(4, list(betas), 3, seed=seed)


CONFIG = runs.TrainConfig(epochs=1, batch_size=4, train_limit=8, test_limit=4, steps_per_epoch=2, dim=2, channels=2,
                          snapshot_every=1, weights_every=1)


def _history(steps=4, evals=2, digits=4):
    r = np.random.default_rng(0)
    return {"loss": r.uniform(0.5, 2.0, steps), "batch_accuracy": r.uniform(0, 1, steps),
            "forward_iterations": r.uniform(5, 40, steps), "backward_iterations": r.uniform(5, 40, steps),
            "forward_residual": r.uniform(0, 1e-4, steps), "forward_converged": np.ones(steps),
            "eval_step": np.arange(evals) * 2, "eval_epoch": np.arange(evals, dtype=float),
            "test_loss": r.uniform(0.5, 2.0, evals), "test_accuracy": r.uniform(0.1, 0.9, evals),
            "snapshot_step": np.arange(3), "coupling_norms": np.abs(r.normal(size=(3, 17, 17))).astype(np.float32),
            "test_labels": np.arange(digits) % 10, "test_pred": (np.arange(digits) + 1) % 10}


def _finished(folder: pathlib.Path, config=CONFIG, model_dim=None) -> runs.TrainResult:
    """A run folder as train_mnist leaves it, written by the package's helpers (no training; weights of a model of
    ``model_dim``, default the config's)."""
    model = models.build_model(config.seed, dim=model_dim or config.dim, channels=config.channels)
    folder.mkdir(parents=True)
    buf = io.BytesIO()
    torch.save(model.state_dict(), buf)
    store.atomic_write_bytes(folder / "model.pt", buf.getvalue())
    (folder / "weights").mkdir()
    store.atomic_write_bytes(folder / "weights" / "step_000000.pt", buf.getvalue())
    store.atomic_save_npz(folder / "history.npz", **_history())
    parts = ["history.npz", "model.pt", "weights/step_000000.pt"]
    caches.save_cached_json(folder / "result.json", {"config": config.to_dict(), "test_accuracy": 0.5},
                            key=f"{folder.name}/result.json", code=runs.code_version(),
                            files={p: folder / p for p in parts})
    return runs.finished_result(config, folder=folder)


def _other_run(t):
    return runs.finished_result(runs.TrainConfig(), folder=_finished(t / "run").folder)


def _wrong_weights(t):
    res = _finished(t / "run", model_dim=3)
    return runs.TrainResult(CONFIG, res.history, res.summary, res.folder).load_model()


def _short_loss(t):
    res = runs.TrainResult(CONFIG, _history(), {}, None)      # TrainResult refuses logs of two lengths itself:
    res.history["loss"] = res.history["loss"][:2]             # cut one after construction, as export reads it
    return export.condensed_run(res)


def _frames():
    return np.abs(np.random.default_rng(0).normal(size=(5, 17, 17))) + 0.01


def _scaling():
    nd = np.array([4.0, 8.0, 16.0, 32.0])
    return {"Nd": nd, "seconds": 1e-6 * nd ** 2.7, "fit": np.array([False, True, True, True]), "exponent": 2.7}


def _train_history():
    r = np.random.default_rng(0)
    return {"loss": np.abs(r.normal(2.0, 0.3, 30)), "eval_step": np.array([0, 10, 20, 29]),
            "test_accuracy": r.uniform(0.1, 0.99, 4), "forward_iterations": r.uniform(5, 40, 30),
            "backward_iterations": r.uniform(5, 40, 30)}


def _full_run():
    r = np.random.default_rng(0)
    return {"eval_step": np.array([0, 500, 1000]), "test_accuracy": r.uniform(0.97, 0.995, 3),
            "forward_iterations_per_100": r.uniform(5, 40, 10), "backward_iterations_per_100": r.uniform(5, 40, 10),
            "coupling_norms": np.abs(r.normal(size=(3, 17, 17))) + 0.01, "snapshot_step": np.arange(3) * 50}


def _points():
    r = np.random.default_rng(0)
    f = r.normal(size=60)
    return {"f": f, "f_affine": f + 0.1, "f_gaussian": r.normal(size=60), "reaction": r.normal(size=60)}


def _onsager_res(inputs=("g", "m")):
    r = np.random.default_rng(0)
    res = {f"{k}_err_{n}": r.uniform(0.01, 1.0, 4) for k in ("corr", "m") for n in inputs}
    res["m_err_naive"] = r.uniform(0.01, 1.0, 4)
    return res


QUICK = profiles.get_profile("deq", "quick")
TB = np.array([0.2, 0.4, 0.6, 0.8])

# (row, exception, regex naming the parameter, call(tmp_path))
ROWS = [
    # evaluation, runs, mnist, train, meanfield, models (the training code: shapes and dtypes at the boundary)
    ("b0174", ValueError, r"^norms must hold Frobenius norms",
     lambda t: evaluation.settling_curve(-np.ones((3, 2, 2)))),
    ("b0174-zero", ValueError, r"^norms' final snapshot must hold a positive norm",
     lambda t: evaluation.settling_curve(np.stack([np.ones((2, 2)), np.zeros((2, 2))]))),
    ("b0250", TypeError, r"^config must be a TrainConfig; got str", lambda t: runs.TrainResult("x", {}, {}, t)),
    ("b0250-history", TypeError, r"^history must be a mapping", lambda t: runs.TrainResult(CONFIG, [1], {}, t)),
    ("b0250-folder", TypeError, r"^folder must be a path", lambda t: runs.TrainResult(CONFIG, {}, {}, 3)),
    ("b0251", ValueError, r"^history holds no final test predictions",
     lambda t: runs.TrainResult(runs.TrainConfig(), {}, {}, t).confusion()),
    ("b0254", ValueError, r"^step must be an integer >= 0; got 500.0",
     lambda t: _finished(t / "run").load_model_at(500.0)),
    ("b0255", ValueError, r"^the weights in .*model.pt do not fit config \(dim=2", _wrong_weights),
    ("b0255-memory", ValueError, r"^folder is None", lambda t: runs.TrainResult(CONFIG, {}, {}, None).load_model()),
    ("b0257", ValueError, r"^folder .* holds the run of another config", _other_run),
    ("b0311", ValueError, r"^labels must hold one label per image: 3 labels for 2 images",
     lambda t: mnist.MNIST(np.zeros((2, 28, 28), np.uint8), np.array([1, 2, 3]), "train", t)),
    ("b0311-range", ValueError, r"^labels must be digits 0-9",
     lambda t: mnist.MNIST(np.zeros((2, 28, 28), np.uint8), np.array([1, 12]), "train", t)),
    ("b0311-dtype", TypeError, r"^images must be a uint8 numpy array",
     lambda t: mnist.MNIST(np.zeros((2, 28, 28)), np.array([1, 2]), "train", t)),
    ("b0311-split", ValueError, r"^split must be one of", lambda t: mnist.MNIST(
        np.zeros((2, 28, 28), np.uint8), np.array([1, 2]), "val", t)),
    ("b0144", ValueError, r"^x must have shape \(B, num_spins=4, dim=6\); got \(2, 4, 5\)",
     lambda t: _softmax().attention_matrix(_x()[..., :5])),
    ("b0147", TypeError, r"^x has dtype torch.float64 but the layer's parameters are torch.float32",
     lambda t: _softmax().prepare(_x(torch.float64))),
    ("b0148", ValueError, r"^m must have shape x's \(2, 4, 6\); got \(2, 4, 5\)",
     lambda t: _linear().update(torch.zeros(2, 4, 5), _x(), _linear().prepare(_x()))),
    ("b0148-cache", ValueError, r"^cache must be prepare\(x\)",
     lambda t: _linear().update(torch.zeros(2, 4, 6), _x(), torch.zeros(3, 3))),
    ("b0149", ValueError, r"^m must have shape \(B, num_spins=4, dim=6\); got \(2, 3, 6\)",
     lambda t: _softmax().sum_over_couplings(torch.zeros(2, 3, 6), _softmax().prepare(_x()))),
    ("b0149-cache", ValueError, r"^cache must be prepare\(x\)",
     lambda t: _softmax().sum_over_couplings(torch.zeros(2, 4, 6), torch.zeros(2, 1, 3, 3))),
    ("b0150", ValueError, r"^m_star must have shape x's \(2, 4, 6\); got \(2, 4, 5\)",
     lambda t: _linear().adjoint_vjp(torch.zeros(2, 4, 5), _x(), _linear().prepare(_x()))),
    ("b0165", TypeError, r"^images have dtype torch.float64 but the model's weights are torch.float32",
     lambda t: ensemble.EnsembleMNIST([0, 7], dim=2, channels=2).sources(torch.randn(2, 3, 1, 28, 28).double())),
    ("b0188", TypeError, r"^images have dtype torch.float64",
     lambda t: correction.fixed_point_fields(models.build_model(0, dim=4, channels=4),
                                             torch.randn(2, 1, 28, 28, dtype=torch.float64))),
    # vector_tap, onsager, onsager_bound, seed_numbers
    ("b0183", ValueError, r"^the couplings \(weight\) make P - J not positive definite .*prior_precision",
     lambda t: vector_tap.VectorSpinTAP(3, 2, weight_init_std=10.0, generator=_gen(0)).double()
     .closed_form_covariance()),
    ("b0179", ValueError, r"^V must be cavity variances of shape \(N, d, d\) = \(3, 2, 2\)",
     lambda t: _tap().cavity_update(torch.zeros(3, 3, 3, dtype=torch.float64), _tap().couplings())),
    ("b0181", ValueError, r"^M must be the coupling matrix of shape \(Nd, Nd\) = \(6, 6\)",
     lambda t: _tap().cavity_variances(torch.zeros(2, 2, dtype=torch.float64))),
    ("b0182", ValueError, r"^m and x must be floating-point states of one shape",
     lambda t: _tap().update(torch.zeros(2, 3, 2, dtype=torch.float64), torch.zeros(1, 3, 2, dtype=torch.float64),
                             imf.couplings_to_matrix(_tap().couplings()), _tap().cavity_variances())),
    ("b0199", ValueError, r"^data\['c'\] must have shape \(I, n\) = \(6, 4\)",
     lambda t: onsager.fit_onsager_net({**_ons(), "c": _ons()["c"][:1]}, "g", steps=2, hidden=4)),
    ("b0199-beta", ValueError, r"^data\['beta'\] must have shape \(I,\) = \(6,\)",
     lambda t: onsager.fit_onsager_net({**_ons(), "beta": _ons()["beta"][:2]}, "g", steps=2, hidden=4,
                                       weight="beta")),
    ("b0203", ValueError, r"^test must hold instances at a training β",
     lambda t: onsager_bound.binned_bound(_ons(), _ons([0.9], seed=2), bins=3)),
    ("b0203-two", ValueError, r"^test must hold instances at a training β",
     lambda t: onsager_bound.two_part_stand_in(_ons(), _ons([0.9], seed=2), hidden=2, steps=1)),
    ("b0298", ValueError, r"^f must not be all zero",
     lambda t: seed_numbers.chance_cosine(torch.zeros(2, 3, 4), torch.randn(2, 3, 4), draws=5)),
    ("b0298-m", ValueError, r"^m must not be all zero",
     lambda t: seed_numbers.chance_cosine(torch.randn(2, 3, 4), torch.zeros(2, 3, 4), draws=5)),
    # export, prepare, trained, variants, public_trained
    ("b0265", ValueError, r"^result.history's logs \['loss', 'forward_iterations', 'backward_iterations'\] must have "
     r"one length", _short_loss),
    ("b0265-type", TypeError, r"^result must be a TrainResult", lambda t: export.condensed_run({})),
    ("b0284", ValueError, r"^sizes\['seeds'\] must name at least one integer",
     lambda t: prepare.run_names({**QUICK, "seeds": []})),
    ("b0282", ValueError, r"^sizes lacks \['seeds', 'init_seeds', 'variant_seeds', 'init_epochs'\]",
     lambda t: prepare.jobs({})),
    ("b0282-type", TypeError, r"^sizes must be chapter 2's profile sizes", lambda t: prepare.jobs("quick")),
    ("b0269", ValueError, r"^sizes lacks \['seeds'",
     lambda t: trained.export_finished(profiles.get_profile("dmft", "quick"), t / "out")),
    ("b0294", TypeError, r"^interactions must be True or False; got str 'yes'",
     lambda t: variants.cached_variant_results(QUICK, interactions="yes")),
    ("b0295", ValueError, r"^seed must name at least one integer",
     lambda t: variants.export_variants("quick", path=t / "v.json", seed=[])),
    ("b0295-neg", ValueError, r"^seed must be an integer >= 0", lambda t: variants.export_variants("quick", seed=-1)),
    ("b0290", ValueError, r"^summary\[0\] lacks \['n_seeds', 'seeds'\]: expected the rows of seed_summary",
     lambda t: variants.seeds_statement([{"variant": "blog"}])),
    ("b0243", TypeError, r"^overrides names unknown TrainConfig field\(s\) \['bogus'\]",
     lambda t: public_trained.public_config(0, "quick", bogus=1)),
    ("b0244", ValueError, r"^device must be 'cpu', 'cuda', 'cuda:N' or a torch.device; got 'tpu'",
     lambda t: public_trained.public_run_dir(runs.TrainConfig(), device="tpu")),
    ("b0244-config", TypeError, r"^config must be a TrainConfig", lambda t: public_trained.public_run_dir("x")),
    # figures (refused before matplotlib draws anything)
    ("b0336", ValueError, r"^show_epochs must lie inside the first epoch",
     lambda t: ifig.early_frames(_frames(), np.array([0, 100, 250, 500, 2000]), show_epochs=(0, 5.0))),
    ("b0337", ValueError, r"^rho\['blog'\] must hold values >= 0",
     lambda t: ifig.fixed_point_stability({"1": 0.3, "fixed point": 0.99}, {"blog": np.array([-1.0, 0.5, 2.0])})),
    ("b0337-key", ValueError, r"^budget's keys must be step counts",
     lambda t: ifig.fixed_point_stability({"one": 0.3, "fixed point": 0.99}, {"blog": np.array([0.5])})),
    ("b0337-acc", ValueError, r"^budget\['1'\] must be >= 0 and <= 1",
     lambda t: ifig.fixed_point_stability({"1": 30.0, "fixed point": 0.99}, {"blog": np.array([0.5])})),
    ("b0339", ValueError, r"^r2 must be <= 1; got 1.5", lambda t: ifig.learned_correction(_points(), 1.5, 0.3, 0.5)),
    ("b0339-cos", ValueError, r"^cosine must be a cosine", lambda t: ifig.learned_correction(_points(), 0.5, 0.3, 2.0)),
    ("b0339-points", ValueError, r"^points\['reaction'\] must hold one value per value of points\['f'\]",
     lambda t: ifig.learned_correction({**_points(), "reaction": np.ones(3)}, 0.5, 0.3, 0.5)),
    ("b0347", ValueError, r"^scaling\['seconds'\] must hold values > 0",
     lambda t: ifig.tap_cost({**_scaling(), "seconds": -_scaling()["seconds"]})),
    ("b0347-fit", ValueError, r"^scaling\['fit'\] must be a bool mask",
     lambda t: ifig.tap_cost({**_scaling(), "fit": np.zeros(4, bool)})),
    ("b0351", ValueError, r"^count\['Nd'\] must be the sizes of scaling\['Nd'\]",
     lambda t: figures_controls.tap_cost_with_count(_scaling(), {"Nd": [5.0, 9.0, 17.0, 33.0],
                                                                 "flops": [1.0, 8.0, 27.0, 64.0]})),
    ("b0338", ValueError, r"^settle must have one entry per entry of fr\['snapshot_step'\] \(3\); got 2",
     lambda t: ifig.full_cpu(_full_run(), np.array([0.5, 0.1]) + 1e-3)),
    ("b0340", ValueError, r"^h\['test_accuracy'\] must have one entry per entry of h\['eval_step'\] \(2\); got 4",
     lambda t: ifig.mnist_training({**_train_history(), "eval_step": np.array([0, 10])}, 100)),
    ("b0346", ValueError, r"^ot\['rho_median'\] must have one entry per entry of ot\['step'\] \(3\); got 2",
     lambda t: ifig.stability_over_training({"step": np.arange(3) * 50, "rho_median": np.array([0.8, 0.9]),
                                             "rho_q25": np.array([0.7, 0.8, 1.0]),
                                             "rho_q75": np.array([0.9, 1.0, 1.2])}, _train_history())),
    ("b0349", ValueError, r"^res lacks \['corr_err_m\+b2', 'm_err_m\+b2'\]",
     lambda t: figures_controls.onsager_with_controls(_onsager_res(), ["g", "m+b2"], TB, [0.2, 0.4], "x")),
    ("b0349-length", ValueError, r"^res\['corr_err_g'\] must have one entry per entry of test_betas \(4\); got 2",
     lambda t: figures_controls.onsager_with_controls({**_onsager_res(), "corr_err_g": np.ones(2)}, ["g", "m"], TB,
                                                      [0.2, 0.4], "x")),
]


@pytest.mark.parametrize("row, exc, pattern, call", ROWS, ids=[r[0] for r in ROWS])
def test_row_is_refused_naming_the_parameter(row, exc, pattern, call, tmp_path):
    plt.close("all")
    with pytest.raises(exc, match=pattern):
        call(tmp_path)
    assert not plt.get_fignums(), f"{row}: a figure was drawn before the refusal"


def test_export_finished_refuses_before_making_the_folder(tmp_path):
    with pytest.raises(ValueError, match="sizes"):
        trained.export_finished(profiles.get_profile("dmft", "quick"), tmp_path / "out")
    assert not (tmp_path / "out").exists()


# ---------------------------------------------------------------------------------------------- valid controls
def test_training_code_valid_calls(tmp_path):
    assert evaluation.settling_curve(np.stack([2 * np.ones((2, 2)), np.ones((2, 2))])).tolist() == [1.0, 0.0]
    assert torch.equal(itrain.epoch_order(10, np.int64(3), np.uint16(2)), itrain.epoch_order(10, 3, 2))   # b0043
    res = _finished(tmp_path / "run")
    assert res.config == CONFIG and isinstance(res.folder, pathlib.Path)
    assert runs.finished_result(CONFIG, folder=str(res.folder)).config == CONFIG
    assert res.weight_steps() == [0]
    a, b = res.load_model(), res.load_model_at(np.int64(0))
    assert all(torch.equal(a.state_dict()[k], b.state_dict()[k]) for k in a.state_dict())
    assert res.confusion().sum() == 4
    assert runs.TrainResult(CONFIG, {}, {}, str(tmp_path)).folder == tmp_path              # a string read as a path
    assert runs.TrainResult(CONFIG, {}, {}, None).folder is None                          # held in memory only
    data = mnist.MNIST(np.zeros((2, 28, 28), np.uint8), np.array([1, 2]), "test", tmp_path)
    x, y = data.tensors()
    assert x.shape == (2, 1, 28, 28) and y.tolist() == [1, 2] and len(data) == 2


def test_layer_public_methods_give_what_the_solver_loop_computes():
    for layer in (_softmax(), _linear(), imf.MeanFieldAttention(4, 6, interaction="mixer", generator=_gen(2))):
        x = _x()
        m = torch.randn(2, 4, 6, generator=_gen(7))
        cache = layer.prepare(x)
        assert torch.equal(layer.update(m, x, cache), layer._update(m, x, cache))
        assert torch.equal(layer.update(m, x), layer._update(m, x, cache))
        assert torch.equal(layer.sum_over_couplings(m, cache), layer._sum_over_couplings(m, cache))
        assert layer(x).shape == (2, 4, 6)
    layer = _linear()
    x = _x()
    vjp = layer.adjoint_vjp(layer(x).detach(), x, layer.prepare(x))
    assert vjp(torch.ones(2, 4, 6)).shape == (2, 4, 6)
    assert _softmax().attention_matrix(x).shape == (2, 1, 4, 4)
    model = models.build_model(0, dim=4, channels=4)
    assert model(torch.randn(2, 1, 28, 28)).shape == (2, 10)
    assert models.build_model(0, dim=4, channels=4, dtype=torch.float64)(torch.randn(2, 1, 28, 28).double()).shape \
        == (2, 10)


def test_vector_tap_valid_calls():
    layer = _tap()
    C = layer.closed_form_covariance()
    assert C.shape == (6, 6) and bool((torch.linalg.eigvalsh(C) > 0).all())
    M = imf.couplings_to_matrix(layer.couplings())
    V = layer.cavity_variances(M)
    assert torch.equal(V, layer.cavity_variances())
    assert layer.cavity_update(V, M).shape == (3, 2, 2)
    x = torch.randn(2, 3, 2, generator=_gen(3), dtype=torch.float64)
    assert layer.update(torch.zeros_like(x), x, M, V).shape == (2, 3, 2)
    assert torch.allclose(layer(x), layer.closed_form(x), atol=1e-6)


def test_onsager_and_seed_numbers_valid_calls():
    train, test = _ons(), _ons(seed=2)
    net, losses = onsager.fit_onsager_net(train, "g", steps=2, hidden=4, weight="beta")
    assert len(losses) == 2 and np.isfinite(losses).all()
    got = onsager_bound.binned_bound(train, test, bins=3)
    assert set(got) == {"binned", "linear"} and np.isfinite(list(got.values())).all()
    part = onsager_bound.binned_bound(train, _ons([0.5, 0.9], seed=2), bins=3)     # scored at the shared β 0.5
    assert np.isfinite(list(part.values())).all()
    cc = seed_numbers.chance_cosine(torch.randn(2, 3, 4, generator=_gen(1)), torch.randn(2, 3, 4, generator=_gen(2)),
                                    draws=5)
    assert 0 <= cc["median"] <= cc["q95"] <= 1


def test_export_prepare_variants_public_valid_calls(tmp_path):
    h = _history()
    out = export.condensed_run(runs.TrainResult(CONFIG, h, {}, None))
    assert tuple(out) == export.KEYS and out["test_pred"].tolist() == h["test_pred"].tolist()
    names = prepare.run_names(QUICK)
    assert "blog-seed0" in names and names == prepare.run_names(dict(QUICK))
    assert variants.cached_variant_results(QUICK, interactions=np.bool_(False)) == {}
    table = variants.export_variants("quick", path=tmp_path / "v.json", seed=(s for s in [0]))
    assert table["seeds"] == [0] and table["rows"] == [] and table["missing"]
    assert variants.export_variants("quick", seed=np.int64(1))["seeds"] == [1]
    assert variants.seeds_statement([{"n_seeds": 3, "seeds": [0, 1, 2]}]) == "3 seeds per variant (seeds 0, 1, 2)"
    cfg = public_trained.public_config(0, "quick", train_limit=60)
    assert cfg.train_limit == 60 and cfg.eval_every == 1000
    assert public_trained.public_run_dir(cfg) == public_trained.public_run_dir(cfg, torch.device("cpu"))
    assert trained.export_finished(QUICK, tmp_path / "out")["runs"] == {}                  # nothing trained here


@pytest.mark.parametrize("draw", [
    lambda: ifig.early_frames(_frames(), np.array([0, 100, 250, 500, 2000])),
    lambda: ifig.fixed_point_stability({"1": 0.3, "4": 0.8, "fixed point": 0.99},
                                       {"blog": np.array([0.5, np.nan, 2.0]), "plain": np.array([3.0])}),
    lambda: ifig.learned_correction({**_points(), "reaction": np.full(60, np.nan)}, 0.9, -0.2, -1.0),
    lambda: ifig.tap_cost(_scaling()),
    lambda: figures_controls.tap_cost_with_count(_scaling(), {"Nd": [4, 8, 16, 32], "flops": [1.0, 8.0, 27.0, 64.0]}),
    lambda: ifig.full_cpu(_full_run(), np.array([0.5, 0.1, 0.0])),
    lambda: ifig.mnist_training({**_train_history(), "backward_iterations": np.full(30, np.nan)}, 100),
    lambda: ifig.stability_over_training({"step": np.arange(3) * 50, "rho_median": np.array([0.8, np.nan, 1.1]),
                                          "rho_q25": np.array([0.7, 0.8, 1.0]), "rho_q75": np.array([0.9, 1.0, 1.2])},
                                         _train_history()),
    lambda: figures_controls.onsager_with_controls({**_onsager_res(("g", "m", "m+b2")), "corr_err_shared": np.ones(4)},
                                                   ["g", "m", "m+b2"], TB, [0.2, 0.4], "x"),
], ids=["early_frames", "fixed_point_stability", "learned_correction", "tap_cost", "tap_cost_with_count", "full_cpu",
        "mnist_training", "stability_over_training", "onsager_with_controls"])
def test_figures_valid_calls(draw):
    try:
        assert isinstance(draw(), plt.Figure)
    finally:
        plt.close("all")
