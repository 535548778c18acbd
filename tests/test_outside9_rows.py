"""Issue 44, outside table 9 (part B) rows: each hostile call refused by one error naming the parameter or the stored
key, and its valid neighbour still computed. Tiny inputs only."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from mfattn.companion.grades import Undecidable
from mfattn.companion.stored_views import stored_view


def test_amortisation_fixed_fit_reads_a_float32_beta_as_the_same_beta():
    # b0094: train_betas=[np.float32(0.3)] no longer equalled the test β 0.3: every *_fixed error NaN (silent)
    from mfattn.implicit.onsager import amortisation_study
    kw = dict(train_instances=2, test_betas=[0.3], test_instances=2, hidden=2, fit_steps=2, cache=False,
              inputs=("g",), ranges=False, balanced=())
    out = amortisation_study(3, [np.float32(0.3)], **kw)
    assert np.isfinite(out["corr_err_m_fixed"]).all()
    assert np.allclose(out["corr_err_m_fixed"], amortisation_study(3, [0.3], **kw)["corr_err_m_fixed"], rtol=1e-4)


def test_column_shares_names_frame_and_its_shape():
    # b0106: a (5, 4) frame was reported as "norms ... got (2, 5, 4)" (unnamed)
    from mfattn.implicit.organisation import column_shares
    with pytest.raises(ValueError, match=r"frame must be one frame .* got shape \(5, 4\)"):
        column_shares(np.ones((5, 4)))
    assert np.allclose(column_shares(np.ones((3, 3))), 1 / 3)


def test_resolvent_norm_names_x_where_the_layer_has_no_fixed_point():
    # b0129: x at float max gave SolverDivergedError naming no argument
    from mfattn.implicit.meanfield import MeanFieldAttention
    from mfattn.implicit.stability import resolvent_norm
    layer = MeanFieldAttention(3, 2, interaction="linear").double()
    with pytest.raises(ValueError, match="x: the layer has no fixed point"):
        resolvent_norm(layer, torch.full((2, 3, 2), torch.finfo(torch.float64).max, dtype=torch.float64))


@pytest.mark.parametrize("key, value, match", [
    ("corr_above_m_seeds", [0.5, 0.6, float("nan")], r"corr_above_m_seeds\[2\] is NaN"),
    ("far_lift_runs", [0.1, 1e308], r"far_lift_runs\[1\] is a number past 1e150"),
])
def test_stored_view_refuses_a_nan_unit_and_a_huge_number(key, value, match):
    # b0604/b0609/b0618 (a NaN unit among measured ones) and b0656/b0564 (1e308: t-interval -inf to +inf)
    s = stored_view({key: value})
    with pytest.raises(Undecidable, match=match):
        s[key]
    assert stored_view({key: [float("nan")] * 3})[key] is not None   # every unit NaN: a statistic not defined


def test_key_names_refuse_control_characters():
    # b0588: plain='g\x00' matched no stored number and the note left the fit out (silent)
    from mfattn.companion.stored_views import check_key
    with pytest.raises(ValueError, match="control characters"):
        check_key("plain", "g\x00")
    assert check_key("plain", "g") == "g"


def test_identity_and_refuses_a_general_reading_that_is_not_a_bool():
    # b0232: exact_in_general returning 'x' graded "holds" (silent)
    from mfattn.structural.claims_rules import identity_and
    s = {"a": 0.0, "b": 1e-15}
    with pytest.raises(TypeError, match="exact_in_general must return True or False"):
        identity_and(("a", "b"), lambda s: "x", tol=1e-14, near=1e-8)(s)
    assert identity_and(("a", "b"), lambda s: True, tol=1e-14, near=1e-8)(s) == "holds"
    assert identity_and(("a", "b"), lambda s: False, tol=1e-14, near=1e-8)(s) == "partly"


def test_a_rule_must_take_the_numbers_as_its_one_argument():
    # b0649: rule=lambda *, zz=0: 0 failed deep inside the capped rule
    from mfattn.structural.claims_designs_checks import one_seed_cap
    with pytest.raises(TypeError, match="rule must take the stored numbers"):
        one_seed_cap(lambda *, zz=0: 0)
    assert one_seed_cap(lambda s: "holds")({}) == "partly"


def test_cavi_start_dependence_reads_a_0d_tensor_tol_as_its_number():
    # b0217: tol as a 0-d tensor with requires_grad failed a comparison deep in expanding_core
    from mfattn.structural.cavi_starts import cavi_start_dependence
    scores = torch.linspace(-1, 1, 20, dtype=torch.float64).reshape(2, 10)
    a = cavi_start_dependence(scores, first_windows=[2, 5], tol=torch.tensor(1e-9, dtype=torch.float64,
                                                                              requires_grad=True))
    assert a == cavi_start_dependence(scores, first_windows=[2, 5], tol=1e-9)


def test_expanding_forward_names_a_slope_that_is_not_a_name():
    # b0280: slope=Path('paper') gave "'PosixPath' object is not iterable" (deep)
    from pathlib import Path

    from mfattn.structural.expanding_task import expanding_forward
    W, X = torch.zeros(1, 5, 2), torch.zeros(1, 2, 6, 2)
    with pytest.raises(TypeError, match="slope must be a name"):
        expanding_forward(W, X, 0.1, 0.9, slope=Path("paper"))
    assert expanding_forward(W, X, 0.1, 0.9).shape == (1, 2)


def test_task_weights_refuse_a_sparse_tensor():
    # b0682: a sparse W_r reached torch's NotImplementedError (deep)
    from mfattn.structural.multihop_task import TaskWeights
    with pytest.raises(TypeError, match="W_r must be a dense tensor"):
        TaskWeights(torch.ones(1, 2), torch.eye(2).to_sparse())
    TaskWeights(torch.ones(1, 2), torch.eye(2))


def test_arrays_refuse_masked_arrays_and_figures_read_long_doubles():
    # b0465 (a masked array's hidden values read as numbers) and b0475 (float128 errs: numpy's fit refused them)
    import matplotlib.pyplot as plt

    from mfattn.companion.checks import check_array
    from mfattn.dynamics.figures import network_oracle
    with pytest.raises(TypeError, match="masked array"):
        check_array("betas", np.ma.masked_array([1.0, 2.0], mask=[0, 1]))
    fig = network_oracle({"net": np.array([0.1, 0.2])}, 10, 5, [10, 20, 40],
                         np.array([0.3, 0.2, 0.15], dtype=np.longdouble), 1.0)
    plt.close(fig)


def test_paths_past_path_max_are_refused_by_name():
    # b0727/b0728: a 6,400-byte folder reached the OS's "File name too long" (deep)
    from mfattn.companion.checks import check_path
    with pytest.raises(ValueError, match="folder must be a path shorter than 4096 bytes"):
        check_path("folder", "/tmp/a" * 1000)
    assert str(check_path("folder", "/tmp/a")) == "/tmp/a"


def test_feature_floor_checks_out_before_training(tmp_path):
    # b0714: --out an existing folder was found only at the write, after training (hang)
    from mfattn.implicit.feature_floor import main
    with pytest.raises(IsADirectoryError, match="--out"):
        main(["--seeds", "0", "--epochs", "1", "--out", str(tmp_path)])


# --- part A's rows in modules that key chapters 1-3 and the training code ---------------------------------------
def test_mean_field_overflow_names_j_and_h_and_stays_a_floating_point_error():
    # a1235/a1250: J × 1e200 gave FloatingPointError "mean-field update produced NaN/inf" (no name)
    from mfattn.ising import adaptive_tap, sk_couplings, tap
    J, h = sk_couplings(6, 0.5, np.random.default_rng(0)) * 1e200, np.full(6, 0.1)
    for solver in (tap, adaptive_tap):
        with pytest.raises(ValueError, match="J and h overflow") as err:
            solver(J, h)
        assert isinstance(err.value, FloatingPointError)   # the studies catch it as before


def test_still_relaxing_refuses_negative_residuals():
    # a1293: a negative residual was read as a run still relaxing (silent)
    from mfattn.meanfield.accuracy_comparison import still_relaxing
    with pytest.raises(ValueError, match="residuals"):
        still_relaxing([1.0, -0.5, 0.2, 0.1])
    assert still_relaxing([1.0, 0.5, 0.25, 0.12, 0.06, 0.03, 0.015, 0.008]) in (True, False)


def test_clearly_crosses_names_x():
    # a1451: a word among the numbers gave numpy's "could not convert string to float" (unnamed)
    from mfattn.meanfield.figures import clearly_crosses
    with pytest.raises(TypeError, match="x must be an array"):
        clearly_crosses([[0.5, "a"]])
    assert clearly_crosses([[1.5, 1.6, 1.55, 1.52]]) is True


def test_solver_refuses_a_map_of_no_argument_and_stats_negative_counts():
    # a1173 (deq.solve(lambda: 0, z0): "<lambda>() takes 0 positional arguments", f unnamed), a1200 (iterations -1)
    from mfattn.deq import SolverStats, solve
    with pytest.raises(TypeError, match="f must take the state"):
        solve(lambda: 0, torch.zeros(2, 3))
    for iterations in ([-1, 2], [50, 50]):   # a1200 (a negative count), a1205 (past max_iter = 10)
        with pytest.raises(ValueError, match="iterations must be counts"):
            SolverStats(torch.tensor(iterations), torch.tensor([1e-5, 1e-5]), torch.tensor([True, True]),
                        torch.zeros(1, 2), torch.tensor([False, False]), max_iter=10).summary()
    z, stats = solve(lambda z: 0.5 * z, torch.ones(2, 3))
    assert stats.all_converged


# --- part A's rows in the companion (no chapter keys them) --------------------------------------------------------
def test_choices_refuse_a_dict():
    # a0304: a dict's keys were read as the choices
    from mfattn.companion.checks import check_choice
    with pytest.raises(TypeError, match="choices must be a tuple or list"):
        check_choice("mode", "a", {"a": 1})


@pytest.mark.parametrize("loader", ["load_cached_json", "load_cached_npz"])
def test_cache_loaders_warn_about_an_entry_that_is_no_regular_file(tmp_path, loader):
    # a0362...a0417: a link to a device read as "no entry", without the CacheWarning the docstring promises
    from mfattn.companion import caches
    link = tmp_path / "entry"
    link.symlink_to("/dev/zero")
    with pytest.warns(caches.CacheWarning, match="not a regular file"):
        assert getattr(caches, loader)(link) is None
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert getattr(caches, loader)(tmp_path / "absent") is None   # no entry: silent, as before


def _npz(path, members):
    import io
    import zipfile
    with zipfile.ZipFile(path, "w") as z:
        for name, array in members:
            buf = io.BytesIO()
            np.save(buf, array)
            z.writestr(name, buf.getvalue())


def test_load_npz_refuses_twin_members_and_a_header_of_bools(tmp_path):
    # a0494 (two members named a.npy: the second read silently) and a0477 (shape (True,): numpy's TypeError)
    from mfattn.companion.store_read import DamagedFileError, load_npz
    _npz(tmp_path / "twin.npz", [("a.npy", np.zeros(1)), ("a.npy", np.zeros(2))])
    with pytest.raises(DamagedFileError, match="two members are named 'a.npy'"):
        load_npz(tmp_path / "twin.npz")
    _npz(tmp_path / "ok.npz", [("a.npy", np.zeros(3))])
    assert load_npz(tmp_path / "ok.npz")["a"].shape == (3,)


def test_finite_numbers_read_a_decimal_nan_as_nan():
    # a0682: Decimal('NaN') passed as a number
    from decimal import Decimal

    from mfattn.companion.finite_reads import FiniteNumbers
    with pytest.raises(Undecidable, match="x is NaN"):
        FiniteNumbers({"x": Decimal("NaN")})["x"]
    assert FiniteNumbers({"x": Decimal("1.5")})["x"] == Decimal("1.5")


def test_ledger_record_checks_the_commit_it_writes(tmp_path, monkeypatch):
    # a0810: run_info={'git_commit': 5} was written, refused only when the report cited it
    from mfattn.companion import ledger
    monkeypatch.setenv("MFATTN_OUTPUT", str(tmp_path))
    with pytest.raises(TypeError, match=r"run_info\['git_commit'\] must be a git commit"):
        ledger.record("quick", {"claim_id": "a-b", "verdict": "reproduced", "evidence": ["fig-x"]}, chapter="ising",
                      run_info={"git_commit": 5}, figure_labels=["fig-x"])


def test_small_companion_checks():
    # a0860 (check_run(None)), a0881/a0883 (a key with a space), a1107 (a format without a field)
    from mfattn.companion import recurring_rules
    from mfattn.companion.chapter import ChapterRun
    from mfattn.companion.verdicts import check_run
    with pytest.raises(TypeError, match="run must be a ChapterRun"):
        check_run(None)
    with pytest.raises(ValueError, match="key must name a stored number"):
        recurring_rules.above("a b", 0.5)
    with pytest.raises(ValueError, match="must name a stored number"):
        recurring_rules.identity_examples("a b")
    with pytest.raises(ValueError, match="fmt must be a format string with a field"):
        ChapterRun("ising", instances=2).number("x", 1, fmt="no braces")


@pytest.mark.parametrize("env, value", [("MFATTN_MIRROR_MNIST", "https://example.org/\nx"),
                                        ("MFATTN_MIRROR", "file:relative")])
def test_mirror_urls_refuse_control_characters_and_relative_file_urls(monkeypatch, env, value):
    # a0984, a0986
    from mfattn.companion import datasets
    monkeypatch.setenv(env, value)
    with pytest.raises(ValueError, match=rf"\${env} must be a base URL"):
        datasets.mirror_urls("mnist", "train-images-idx3-ubyte.gz")


def test_a_failed_fetch_leaves_no_empty_folder(tmp_path, monkeypatch):
    # a0989: a refused download left an empty data/mnist folder (the download folder, in the checkout)
    from mfattn.companion import datasets
    target = tmp_path / "data" / "mnist"
    monkeypatch.setattr(datasets, "folders", lambda name: [("download folder", target)])
    monkeypatch.setattr(datasets, "locate", lambda name, file: None)
    monkeypatch.setenv("MFATTN_MIRROR", f"file://{tmp_path}/nothing")
    monkeypatch.setitem(datasets.DATASETS, "mnist", datasets.DATASETS["mnist"]._replace(
        urls={f: () for f in datasets.DATASETS["mnist"].files}) if hasattr(datasets.DATASETS["mnist"], "_replace")
        else __import__("dataclasses").replace(datasets.DATASETS["mnist"],
                                               urls={f: () for f in datasets.DATASETS["mnist"].files}))
    with pytest.raises(datasets.MissingDataError, match="Download failed"):
        datasets.fetch("mnist", "t10k-labels-idx1-ubyte.gz", download=True)
    assert not target.exists()


def test_strip_refuses_a_notebook_that_is_a_device(tmp_path):
    # a1136: a link to /dev/zero filled memory inside nbformat (huge)
    from mfattn.companion.reproduce import strip
    from mfattn.companion.store_read import RefusedFileError
    link = tmp_path / "l.ipynb"
    link.symlink_to("/dev/zero")
    with pytest.raises(RefusedFileError, match="regular notebook"):
        strip([], [link])


def test_a_contract_naming_an_unknown_parameter_is_a_type_error_naming_it():
    # a0115: an AssertionError (read as an internal failure) at decoration time
    from mfattn.companion.checks import contract
    with pytest.raises(TypeError, match=r"names unknown parameter\(s\) \['x'\]; its parameters are \['n'\]"):
        contract(x="int:1")(lambda n: n)
