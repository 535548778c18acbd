"""Rows of the eighth outside table in chapter 2's run machinery (mfattn.implicit: prepare, public_trained, replay,
replay_runner, trained, variants, init_scale, reference_solver, seed_numbers, onsager_bound, organisation,
feature_floor), each refused at the boundary with one message naming the parameter (before: a result for input to
refuse, an error from deep inside torch or numpy, or a call that ran on); each with a valid neighbour that still
works."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from mfattn.companion import profiles
from mfattn.implicit import (feature_floor, init_scale, onsager_bound, organisation, prepare, public_trained,
                             reference_solver, replay_runner, seed_numbers, trained, variants)
from test_outside6_implicit import _finished, _images  # noqa: E402  (an untrained run kept at step 0; two digits)


@pytest.fixture(autouse=True)
def _own_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("MFATTN_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("MFATTN_OFFLINE", "1")


QUICK = profiles.get_profile("deq", "quick")
BAD_DEVICES = ["", "meta", "cpu\n", "cuda:99", torch.device("meta")]
LABELS = torch.tensor([1, 2])


# --- devices: a run is keyed by 'cpu', 'cuda' or 'cuda:N' only ---------------------------------------------------
@pytest.mark.parametrize("device", BAD_DEVICES, ids=repr)
def test_device_taking_functions_refuse_devices_that_name_no_run(device, tmp_path):
    # prepare.jobs(device=...): the table was built for '', 'meta', 'cpu\n', 'cuda:99' (silent)
    with pytest.raises(ValueError, match="device"):
        prepare.jobs(QUICK, device=device)
    # public_trained.public_run_dir(device='meta' / 'cuda:99'): a folder named (silent)
    with pytest.raises(ValueError, match="device"):
        public_trained.public_run_dir(public_trained.public_config(profile="quick"), device)
    # public_trained.train_public(device=''): torch's "Device string must not be empty" (deep)
    with pytest.raises(ValueError, match="device"):
        public_trained.train_public(public_trained.public_config(profile="quick"), device=device,
                                    folder=tmp_path / "public")
    # trained.restore / trained.export_finished (device='meta' / 'cuda:99'): {} and an index (silent)
    with pytest.raises(ValueError, match="device"):
        trained.restore(tmp_path, device=device)
    with pytest.raises(ValueError, match="device"):
        trained.export_finished(QUICK, tmp_path / "export", device=device)
    # variants.cached_variant_results(device='meta'): {} (silent); train_variants(device=''): deep
    with pytest.raises(ValueError, match="device"):
        variants.cached_variant_results(QUICK, 0, device)
    with pytest.raises(ValueError, match="device"):
        variants.train_variants("quick", [0], device)
    # init_scale.train_runs(device='meta'): refused late, by the weights' message (names no device)
    with pytest.raises(ValueError, match="device"):
        init_scale.train_runs(QUICK, [0], device=device)


def test_valid_devices_still_name_runs(tmp_path):
    assert len(prepare.jobs(QUICK, device="cpu")) == len(prepare.jobs(QUICK))
    config = public_trained.public_config(profile="quick")
    assert public_trained.public_run_dir(config, "cpu") == public_trained.public_run_dir(config, torch.device("cpu"))
    assert public_trained.public_run_dir(config, "cuda") != public_trained.public_run_dir(config, "cpu")
    assert trained.restore(tmp_path, device="cpu") == {}
    assert variants.cached_variant_results(QUICK, 0, "cpu") == {}


def test_prepare_jobs_refuses_a_data_root_that_is_no_path():
    # prepare.jobs(data_root=3): accepted (silent), failing only when a job trained
    with pytest.raises(TypeError, match="data_root"):
        prepare.jobs(QUICK, data_root=3)


# --- seeds and factors: each once ---------------------------------------------------------------------------------
def test_seed_lists_must_name_each_seed_once():
    # variants.train_variants(seeds=[0, 0]): trained the same runs twice (ran on: hang)
    with pytest.raises(ValueError, match="seeds must name each seed once"):
        variants.train_variants("quick", [0, 0])
    # variants.train_variants(seeds=[]): returned None having trained nothing (silent)
    with pytest.raises(ValueError, match="seeds"):
        variants.train_variants("quick", [])
    # variants.export_variants(seed=[0, 0]): rows and missing listed twice (silent)
    with pytest.raises(ValueError, match="seed must name each seed once"):
        variants.export_variants("quick", seed=[0, 0])
    # init_scale.train_runs(factors=[]): {} (silent); factors=[1.0, 1.0]: the same ensemble twice
    with pytest.raises(ValueError, match="factors"):
        init_scale.train_runs(QUICK, [0], factors=[])
    with pytest.raises(ValueError, match="factors must name each scale once"):
        init_scale.train_runs(QUICK, [0], factors=[1.0, 1.0])
    with pytest.raises(ValueError, match="factors"):
        init_scale.train_runs(QUICK, [0], factors=[float("nan")])
    assert variants.export_variants("quick", seed=[0, 1])["seeds"] == [0, 1]


# --- public_trained.analyse and seed_numbers.analyse --------------------------------------------------------------
def test_analyses_refuse_bad_arguments_before_reading_the_run(tmp_path):
    # public_trained.analyse(every=0): steps % 0 (silent in the table: the referee's stand-in run)
    with pytest.raises(ValueError, match="every"):
        public_trained.analyse(None, _images(), LABELS, every=0)
    # public_trained.analyse(result=None): AttributeError 'weight_steps' (deep)
    with pytest.raises(TypeError, match="result must be a TrainResult"):
        public_trained.analyse(None, _images(), LABELS)
    run = _finished(tmp_path / "run")
    # public_trained.analyse(digits < batch): no whole batch, a mean over none (NaN, silent)
    with pytest.raises(ValueError, match="digits"):
        public_trained.analyse(run, _images(), LABELS, batch=2, digits=1)
    with pytest.raises(ValueError, match="labels"):
        public_trained.analyse(run, _images(), torch.tensor([1, 2, 3]), batch=2, digits=2)
    # seed_numbers.analyse(result=None): AttributeError 'load_model' (deep); rho_training_every=0
    sizes = {"stability_digits": 2, "budget_steps": [1], "rho_training_digits": 2, "rho_training_every": 1,
             "correction_digits": 2}
    with pytest.raises(TypeError, match="result must be a TrainResult"):
        seed_numbers.analyse(None, _images(), LABELS, sizes)
    with pytest.raises(ValueError, match="rho_training_every"):
        seed_numbers.analyse(run, _images(), LABELS, {**sizes, "rho_training_every": 0})
    with pytest.raises(ValueError, match="budget_steps"):
        seed_numbers.analyse(run, _images(), LABELS, {**sizes, "budget_steps": []})


# --- replay_runner.compare_logs -----------------------------------------------------------------------------------
def _logs(n=3):
    return {f"r/{k}": np.linspace(0.1, 1.0, n) for k in replay_runner.LOG_KEYS}


def test_compare_logs_refuses_logs_that_are_no_replay():
    # compare_logs(new with per-step logs of different shapes within one run): inf, "not identical" (silent)
    bad = {**_logs(), "r/loss": np.zeros((3, 2))}
    with pytest.raises(ValueError, match="new: the per-step logs of run 'r'"):
        replay_runner.compare_logs(_logs(), bad, ["r"])
    with pytest.raises(ValueError, match="old: the per-step logs"):
        replay_runner.compare_logs({**_logs(), "r/batch_accuracy": np.zeros(4)}, _logs(), ["r"])
    # compare_logs(names=[]) {} and names=['r', 'r'] (silent)
    with pytest.raises(ValueError, match="names"):
        replay_runner.compare_logs(_logs(), _logs(), [])
    with pytest.raises(ValueError, match="names"):
        replay_runner.compare_logs(_logs(), _logs(), ["r", "r"])
    assert replay_runner.compare_logs(_logs(), _logs(), ["r"])["r"]["identical"]
    # documented: a shorter replay (every log one length, other than old's) is a difference, not a refusal
    assert replay_runner.compare_logs(_logs(3), _logs(4), ["r"])["r"]["max_abs_difference"] == float("inf")


# --- the public solver --------------------------------------------------------------------------------------------
def test_reference_anderson_refuses_what_its_solve_cannot_take():
    # reference_anderson(x0 float16 / bfloat16): "lu_cpu" not implemented (deep)
    for dtype in (torch.float16, torch.bfloat16):
        with pytest.raises(TypeError, match="x0 must be a float32 or float64"):
            reference_solver.reference_anderson(lambda x: 0.5 * x, torch.ones(2, 3, dtype=dtype))
    # reference_anderson(x0 on 'meta'): Tensor.item() on meta tensors (deep)
    with pytest.raises(ValueError, match="x0"):
        reference_solver.reference_anderson(lambda x: 0.5 * x, torch.ones(2, 3, device="meta"))
    # reference_anderson(x0 (0, 3) or (2, 0)): an empty solve "converged" (silent)
    for shape in ((0, 3), (2, 0)):
        with pytest.raises(ValueError, match="x0"):
            reference_solver.reference_anderson(lambda x: 0.5 * x, torch.ones(shape))
    # reference_anderson(f returning float64 for float32 x0): cast silently in the ring buffers
    with pytest.raises(TypeError, match="f must return a tensor of the state's dtype"):
        reference_solver.reference_anderson(lambda x: 0.5 * x.double(), torch.ones(2, 3))
    x, res = reference_solver.reference_anderson(lambda x: 0.5 * x + 1.0, torch.ones(2, 3))
    assert x.dtype == torch.float32 and res[-1] < 1e-4


def test_public_solve_refuses_maps_and_states_it_cannot_solve():
    # public_solve(f not callable): "'int' object is not callable" (deep)
    with pytest.raises(TypeError, match="f must be a callable"):
        public_trained.public_solve(3, torch.ones(3))
    # public_solve(f returning another shape): "shape '[3, -1]' is invalid" (deep)
    with pytest.raises(ValueError, match="f must return a tensor of z0's shape"):
        public_trained.public_solve(lambda z: z[:1], torch.ones(3))
    # public_solve(f returning float64 for a float32 z0): solved in float64 (silent)
    with pytest.raises(TypeError, match="f must return a tensor of z0's dtype"):
        public_trained.public_solve(lambda z: z.double(), torch.ones(3))
    # public_solve(z0 float16): "lu_cpu" not implemented for 'Half' (deep)
    with pytest.raises(TypeError, match="z0 must be a float32 or float64"):
        public_trained.public_solve(lambda z: 0.5 * z, torch.ones(3, dtype=torch.float16))
    out, stats = public_trained.public_solve(lambda z: 0.5 * z + 1.0, torch.zeros(2, 3), max_iter=40)
    assert out.shape == (2, 3) and bool(stats.converged.all())


# --- variants' rows, mcnemar ---------------------------------------------------------------------------------------
ROW = {"key": "blog", "variant": "b", "test_accuracy": 0.9, "test_examples": 100, "final_loss": 0.1,
       "forward_iterations": 3.0, "forward_converged": 1.0, "backward_iterations": None, "ms_per_step": 1.0}
SUMMARY = {"key": "m", "variant": "m", "n_seeds": 1, "seeds": [0], "acc_mean": 0.9, "acc_std": None, "delta": None,
           "mcnemar_p": [0.5], "loss_mean": 0.1, "forward_iterations": 1.0, "forward_converged": 1.0}


@pytest.mark.parametrize("call, match", [
    # markdown_table / seed_summary (test_accuracy NaN or inf): a table of "nan%" (silent)
    (lambda: variants.markdown_table([{**ROW, "test_accuracy": float("nan")}]), r"rows\[0\]\['test_accuracy'\]"),
    (lambda: variants.seed_summary([{**ROW, "test_accuracy": float("inf")}]), r"rows\[0\]\['test_accuracy'\]"),
    (lambda: variants.markdown_table([{**ROW, "final_loss": "low"}]), r"rows\[0\]\['final_loss'\]"),
    # summary_table (acc_mean NaN), compare_paired (p NaN or 2.0): "mixed", "same" (silent)
    (lambda: variants.summary_table([{**SUMMARY, "acc_mean": float("nan")}]), r"summary\[0\]\['acc_mean'\]"),
    (lambda: variants.compare_paired([{**SUMMARY, "mcnemar_p": [float("nan")]}]), "mcnemar_p"),
    (lambda: variants.compare_paired([{**SUMMARY, "mcnemar_p": [2.0]}]), "mcnemar_p"),
    # seeds_statement (n_seeds -1, NaN, other than len(seeds); seeds a string): "-1 seed per variant" (silent)
    (lambda: variants.seeds_statement([{**SUMMARY, "n_seeds": -1}]), "n_seeds"),
    (lambda: variants.seeds_statement([{**SUMMARY, "n_seeds": float("nan")}]), "n_seeds"),
    (lambda: variants.seeds_statement([{**SUMMARY, "n_seeds": 2}]), "n_seeds"),
    (lambda: variants.seeds_statement([{**SUMMARY, "seeds": "ab"}]), "seeds"),
    # mcnemar of no test examples: p = 1 (silent); of 10**6 discordant pairs: an exact tail of 10**12 bit operations
    (lambda: variants.mcnemar(np.ones(0, bool), np.ones(0, bool)), "correct_a and correct_b"),
    (lambda: variants.mcnemar(np.arange(20_000) % 2 == 0, np.arange(20_000) % 2 == 1), "correct_a and correct_b"),
], ids=lambda v: v if isinstance(v, str) else "")
def test_variant_rows_with_numbers_that_are_none_are_refused(call, match):
    with pytest.raises((ValueError, TypeError), match=match):
        call()


def test_valid_rows_still_format():
    assert "90.00%" in variants.markdown_table([ROW])
    assert "nan" in variants.markdown_table([{**ROW, "final_loss": float("nan")}])   # documented: a diverged loss
    assert variants.compare_to_blog([ROW, {**ROW, "key": "m", "variant": "m"}])[1] == ["m"]
    # documented: rows of several seeds compare against the first blog row (the stored table's seed 0)
    _, close, far = variants.compare_to_blog([ROW, {**ROW, "test_accuracy": 0.5}, {**ROW, "key": "m", "variant": "m"}])
    assert close == ["m"] and far == ["b"]
    assert variants.compare_paired([SUMMARY])["same"] == ["m"]
    assert variants.seeds_statement([{**SUMMARY, "n_seeds": 3, "seeds": [0, 1, 2]}]).startswith("3 seeds")
    assert variants.mcnemar(np.array([1, 1, 0], bool), np.array([0, 1, 0], bool))["b"] == 1.0


# --- seed_numbers.chance_cosine, onsager_bound, organisation, feature_floor --------------------------------------
def test_chance_cosine_refuses_mixed_dtypes():
    # chance_cosine(f float32, m float64): cast silently
    f = torch.randn(2, 3, 4, generator=torch.Generator().manual_seed(0))
    with pytest.raises(TypeError, match="f and m must have one dtype"):
        seed_numbers.chance_cosine(f, f.double())
    assert 0 <= seed_numbers.chance_cosine(f, f, draws=5)["median"] <= 1


def _onsager(I=2, n=3, seed=0):
    g = torch.Generator().manual_seed(seed)
    return {"J": torch.randn(I, n, n, generator=g, dtype=torch.float64),
            "h": torch.randn(I, n, generator=g, dtype=torch.float64),
            "m": torch.randn(I, n, generator=g, dtype=torch.float64),
            "c": torch.randn(I, n, generator=g, dtype=torch.float64), "beta": torch.tensor([0.5, 0.5], dtype=torch.float64)}


@pytest.mark.parametrize("test, match", [
    # binned_bound(test m with 4 sites): einsum's "subscript j has size 4" (deep)
    (lambda d: {**d, "m": torch.zeros(2, 4, dtype=torch.float64)}, r"test\['m'\] must have shape"),
    # binned_bound(test m float32): "expected scalar type Float but found Double" (deep)
    (lambda d: {**d, "m": d["m"].float()}, r"test\['m'\] must have test\['h'\]'s dtype"),
    # binned_bound(test J NaN): {'binned': nan, 'linear': nan} (silent)
    (lambda d: {**d, "J": torch.full((2, 3, 3), float("nan"), dtype=torch.float64)}, r"test\['J'\]"),
    # binned_bound(test c zero at its β): a relative error of 0/0 (NaN, silent)
    (lambda d: {**d, "c": torch.zeros(2, 3, dtype=torch.float64)}, r"test\['c'\] must not be all zero"),
    # binned_bound(test of 4 sites, like train of 3): refused only by einsum (deep)
    (lambda d: _onsager(n=4), "test must have train's sites"),
])
def test_onsager_bounds_refuse_data_sets_that_are_none(test, match):
    train = _onsager()
    with pytest.raises((ValueError, TypeError), match=match):
        onsager_bound.binned_bound(train, test(_onsager(seed=1)), bins=2)
    with pytest.raises((ValueError, TypeError), match=match):
        onsager_bound.range_bounds(train, test(_onsager(seed=1)), bins=[2])


def test_onsager_bound_valid_and_site_variable_checked():
    # site_variable(data with J float64 and m float32): deep dtype error of einsum
    with pytest.raises(TypeError, match=r"data\['m'\]"):
        onsager_bound.site_variable({**_onsager(), "m": _onsager()["m"].float()}, "g")
    # binned_bound(train whose m is zero everywhere, inputs='m'): a = 0/0 (NaN, silent)
    with pytest.raises(ValueError, match="train: its site variable 'm' is zero"):
        onsager_bound.binned_bound({**_onsager(), "m": torch.zeros(2, 3, dtype=torch.float64)}, _onsager(seed=1),
                                   "m", bins=2)
    got = onsager_bound.binned_bound(_onsager(), _onsager(seed=1), bins=2)
    assert np.isfinite(got["binned"]) and np.isfinite(got["linear"])


def test_organisation_refuses_norms_whose_sums_overflow():
    # column_shares(1e308 everywhere): [nan, nan, nan] from finite input (silent)
    with pytest.raises(ValueError, match="norms must be small enough"):
        organisation.column_shares(np.full((3, 3), 1e308))
    with pytest.raises(ValueError, match="norms must be small enough"):
        organisation.organisation_curves(np.full((2, 3, 3), 1e200))
    assert organisation.column_shares(np.ones((3, 3))).tolist() == pytest.approx([1 / 3] * 3)


def test_feature_floor_refuses_a_model_too_large_to_allocate():
    # FeatureFloor('flat', dim=10**9): DefaultCPUAllocator "can't allocate memory" (deep)
    with pytest.raises(ValueError, match="^dim makes its buffers need"):
        feature_floor.FeatureFloor("flat", 10**9, 32)
    with pytest.raises(ValueError, match="^channels makes its buffers need"):
        feature_floor.FeatureFloor("mean", 10, 10**6)
    assert feature_floor.FeatureFloor("flat", 10, 32)(torch.zeros(2, 1, 28, 28)).shape == (2, 10)


def test_export_run_and_reaction_cosines_check_before_looking_up_runs():
    from mfattn.implicit import correction_on_m, export

    # export.export_run(device='meta' / ''): looked the run up under a device that names none (silent until missing)
    for device in ("meta", ""):
        with pytest.raises(ValueError, match="device"):
            export.export_run("quick", 0, device=device)
    # export.export_run(path=3): refused only after the run was found
    with pytest.raises(TypeError, match="path"):
        export.export_run("quick", 0, path=3)
    with pytest.raises(FileNotFoundError, match="not finished"):   # the valid neighbour: no run in a fresh cache
        export.export_run("quick", 0)
    # correction_on_m.reaction_cosines(runs={'m-seed0': 3}): AttributeError 'load_model' (deep)
    with pytest.raises(TypeError, match=r"runs\['m-seed0'\] must be a TrainResult"):
        correction_on_m.reaction_cosines(12, "m", runs={"m-seed0": 3})
