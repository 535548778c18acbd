"""Issue 44, outside table 10 rows: each hostile call refused by one error naming the parameter (or the stored key,
the path, the variable), and its valid neighbour still computed. Tiny inputs only.

Most rows share a few kinds of odd object: a str subclass whose ``__eq__`` answers True to every string (it passed
every ``x in choices`` test and its own text was used), an int subclass whose ``__index__`` says another value than
the one the check read, 0-d arrays and tensors where a number is declared, result containers built by hand with a
field of the wrong kind, and stored summaries of the wrong shape."""

from __future__ import annotations

import argparse
import json
from fractions import Fraction

import numpy as np
import pytest
import torch


class EqStr(str):
    """Equal to every string; its own text is something else."""

    def __eq__(self, other):
        return True

    def __ne__(self, other):
        return False

    __hash__ = str.__hash__


class OddInt(int):
    """An int whose __index__ and __int__ say -1 whatever it holds."""

    def __index__(self):
        return -1

    def __int__(self):
        return -1


# --- str subclasses: compared, and used, as the plain text they hold -------------------------------------------------

def test_check_choice_compares_the_text_and_returns_the_plain_string():
    from mfattn.companion.checks_scalars import check_choice
    with pytest.raises(ValueError, match="mode must be one of 'a', 'b'; got 'zzz'"):
        check_choice("mode", EqStr("zzz"), ("a", "b"))
    got = check_choice("mode", EqStr("a"), ("a", "b"))
    assert got == "a" and type(got) is str


@pytest.mark.parametrize("call, match", [
    (lambda: __import__("mfattn.companion.profiles", fromlist=["x"]).check_profile(EqStr("zzz")), "profile must be"),
    (lambda: __import__("mfattn.companion.profiles", fromlist=["x"]).chapter_info(EqStr("zzz")), "chapter must be"),
    (lambda: __import__("mfattn.companion.profiles", fromlist=["x"]).get_profile("ising", EqStr("zzz")),
     "profile must be"),
    (lambda: __import__("mfattn.deq", fromlist=["x"]).solve(lambda z: 0.5 * z, torch.ones(2, 3, dtype=torch.float64),
                                                           method=EqStr("zzz")), "method must be one of"),
    (lambda: __import__("mfattn.structural.edges", fromlist=["x"]).factorised_edge_marginals(
        torch.ones(1, 1, 1, dtype=torch.float64), torch.ones(1, 1, 1, dtype=torch.float64), mode=EqStr("zzz")),
     "mode must be one of"),
])
def test_an_always_equal_string_is_refused_as_the_text_it_holds(call, match):
    # a0559, a0797, a0819, a0841, a0852, a1159, b0226, b0230 (the contract, check_profile, chapter_info)
    with pytest.raises(ValueError, match=match):
        call()


def test_a_threshold_basis_and_a_claims_argument_are_read_as_their_text(tmp_path):
    # a0787 (Threshold's basis 'zzz' stored), a1596 (converged_share's family named by no check)
    from mfattn.companion.premises import PremiseError, Threshold
    with pytest.raises(PremiseError, match="basis must be one of"):
        Threshold("t", 0.5, EqStr("zzz"), "a reason long enough to be a sentence")
    from mfattn.meanfield.claims_ising_families import converged_share
    with pytest.raises(ValueError, match="family must be one of"):
        converged_share({}, EqStr("zzz"))


# --- int subclasses whose __index__ lies, 0-d arrays and tensors for numbers ----------------------------------------

def test_an_int_whose_index_disagrees_is_refused_by_name():
    # b0037, b0245, b0280, b0436, b0496: range(), numpy and torch read __index__ (-1), the check read 4
    from mfattn.companion.checks_scalars import check_int
    with pytest.raises(ValueError, match="trials must be an integer that reads as one value"):
        check_int("trials", OddInt(4), 1)
    from mfattn.structural.hopfield import relaxation
    with pytest.raises(ValueError, match="trials must be an integer"):
        relaxation(dim=4, n_patterns=2, trials=OddInt(2), betas=[1.0], steps=3, generator=torch.Generator().manual_seed(0),
                   converged_steps=3)


def test_numbers_given_as_0d_arrays_and_tensors_reach_the_body_as_floats():
    # b0162, b0277, b0318, b0388, b0441, b0442: a 0-d array or a float16 0-d tensor broke numpy arithmetic deep inside
    from mfattn.companion.checks import contract

    @contract(x="real", xs="reals", n="int:1")
    def f(x, xs, n):
        return type(x), [type(v) for v in xs], type(n)

    assert f(np.array(1.5), [np.array(0.5), np.float32(2), Fraction(1, 2)], np.int64(3)) == (float, [float] * 3, int)
    assert f(torch.tensor(1.5, dtype=torch.float16), (1, 2.0), 3)[0] is float
    from mfattn.dynamics.map import trajectory
    from mfattn.dynamics.model import paper_model
    a = trajectory(paper_model(), beta=0.5, steps=20, epsilon=torch.tensor(0.02, dtype=torch.float16))
    b = trajectory(paper_model(), beta=0.5, steps=20, epsilon=float(torch.tensor(0.02, dtype=torch.float16)))
    assert np.array_equal(a, b)


def test_t_quantile_reads_numpy_integers_without_overflow():
    # t_quantile_975(np.int64(2**31)) was inf (96 * df ** 2 overflowed in int64)
    from mfattn.companion.stats import t_quantile_975
    assert t_quantile_975(np.int64(2**31)) == pytest.approx(1.959964, abs=1e-6)
    assert t_quantile_975(np.uint64(2**64 - 1)) == pytest.approx(1.959964, abs=1e-6)
    assert t_quantile_975(np.int32(40)) == t_quantile_975(40)


@pytest.mark.parametrize("ndim", [np.array([1]), {1}, (d for d in [1])])
def test_ndim_is_an_integer_or_a_list_of_them(ndim):
    # a0335, a0388, a0396: an array given as ndim was read as a sequence of allowed ndims
    from mfattn.companion.checks_arrays import check_array, check_tensor
    with pytest.raises(TypeError, match="ndim must be an integer"):
        check_array("x", np.arange(3.0), ndim=ndim)
    with pytest.raises(TypeError, match="ndim must be an integer"):
        check_tensor("x", torch.zeros(2, 3), ndim=ndim)
    assert check_array("x", np.arange(3.0), ndim=[1, 2]).shape == (3,)


# --- paths, variables, the command line ------------------------------------------------------------------------------

def test_folder_variables_name_themselves_for_long_names_and_unknown_home_folders(tmp_path, monkeypatch):
    # a0171 (~nosuchuser: pathlib's RuntimeError), a0187/a0196 (a part of 300 bytes: OSError 36 from the OS)
    from mfattn.companion import store
    from mfattn.companion.datasets import env_folder
    monkeypatch.setenv("MFATTN_CACHE", "~nosuchuser_mfattn/o")
    with pytest.raises(ValueError, match="MFATTN_CACHE.*home folder that does not exist"):
        store.cache_dir("x")
    monkeypatch.setenv("MFATTN_DATA", str(tmp_path / ("a" * 300)))
    with pytest.raises(ValueError, match="MFATTN_DATA has a part longer than 255 bytes"):
        env_folder("MFATTN_DATA")


@pytest.mark.parametrize("url, match", [("https://example.org:99999/", "valid port"),
                                        ("https://:80/", "naming a host")])
def test_a_mirror_with_an_impossible_port_or_no_host_is_refused(url, match, monkeypatch):
    # a0252: port 99999 (read only when the download starts)
    from mfattn.companion import datasets
    monkeypatch.setenv("MFATTN_MIRROR_MNIST", url)
    with pytest.raises(ValueError, match=f"MFATTN_MIRROR_MNIST must be a base URL.*{match}"):
        datasets.mirror_urls("mnist", next(iter(datasets.DATASETS["mnist"].files)))


def test_strip_names_a_file_that_is_not_a_notebook(tmp_path):
    # a0150: an empty file gave nbformat's NotJSONError, no path
    from mfattn.companion.reproduce import strip
    empty = tmp_path / "empty.ipynb"
    empty.write_text("")
    with pytest.raises(ValueError, match="empty.ipynb is not a notebook"):
        strip([], [empty])


@pytest.mark.parametrize("argv, kind", [([__import__("pathlib").Path("figures")], TypeError), ("figures", TypeError)])
def test_the_command_line_takes_a_list_of_strings(argv, kind):
    # a0270 (a Path in argv: argparse's "'PosixPath' object is not subscriptable")
    from mfattn.__main__ import main
    with pytest.raises(kind, match="argv must be a list of strings"):
        main(argv)


def test_seed_options_name_themselves_before_torch_overflows(capsys):
    # b0643: --seed 99999999999999999999 reached torch.manual_seed ("Overflow when unpacking long long")
    from mfattn.implicit.onsager_bound import main
    with pytest.raises(SystemExit) as got:
        main(["--profile", "quick", "--seed", "99999999999999999999", "--out", "never.json"])
    assert got.value.code == 2 and "argument --seed: a seed must be in [0, 2**62]" in capsys.readouterr().err
    from mfattn.companion.checks_scalars import _seed_option
    assert _seed_option("7") == 7
    with pytest.raises(argparse.ArgumentTypeError, match="whole number"):
        _seed_option("seven")


def test_replay_names_its_options():
    # b0656: --eval-images 0 was refused as "n_eval must be ..."
    from mfattn.implicit.replay import main
    with pytest.raises(ValueError, match="--eval-images must be an integer in"):
        main(["--certify", "zz", "--change", "a sentence long enough to say what changed", "--eval-images", "0"])


def test_ledger_run_info_keys_are_strings():
    # a0638: run_info={1: 2} was copied into the stored entry
    from mfattn.companion.ledger import record
    with pytest.raises(TypeError, match="run_info must have non-empty printable string keys"):
        record("quick", {"claim_id": "a-b", "verdict": "reproduced", "evidence": ["fig-x"]}, chapter="ising",
               run_info={1: 2}, figure_labels=["fig-x"])


# --- result containers built by hand ---------------------------------------------------------------------------------

def _mfr(**change):
    from mfattn.ising import MeanFieldResult
    kw = dict(method="naive", m=np.zeros(2), chi=np.eye(2), iterations=3, converged=True, residual=0.0)
    return MeanFieldResult(**{**kw, **change})


@pytest.mark.parametrize("change, match", [
    ({"method": "tap\x00"}, "method must be one of"), ({"m": np.zeros((2, 1))}, "m must be a 1-d real"),
    ({"chi": np.eye(2).astype(complex)}, "chi must be a 2-d real"), ({"chi": np.eye(3)}, "chi must be"),
    ({"iterations": np.float64(3.5)}, "iterations must be a count"), ({"converged": "False"}, "converged must be"),
    ({"converged": np.array([True])}, "converged must be"), ({"residual": float("nan")}, "finite residual"),
    ({"residual": np.longdouble("1e400")}, "finite residual"), ({"residual": np.complex128(0)}, "residual must be"),
])
def test_a_mean_field_result_checks_its_fields(change, match):
    # a1183-a1205
    with pytest.raises((TypeError, ValueError), match=match):
        _mfr(**change)
    assert _mfr(iterations=np.int64(3), converged=np.bool_(False), residual=float("inf")).iterations == 3


def _stats(**change):
    from mfattn.deq import SolverStats
    kw = dict(iterations=torch.ones(2, dtype=torch.int64), residual=torch.full((2,), 1e-6),
              converged=torch.ones(2, dtype=torch.bool), trace=torch.ones(1, 2), diverged=torch.zeros(2, dtype=torch.bool))
    return SolverStats(**{**kw, **change})


@pytest.mark.parametrize("change, match", [
    ({"iterations": torch.ones(2).to(torch.complex64)}, "iterations must be an integer tensor"),
    ({"residual": torch.empty(2, device="meta")}, "residual must be a dense tensor with values"),
    ({"trace": torch.ones(1, 2).to(torch.complex64)}, "trace must be a floating tensor"),
    ({"trace": torch.ones(1, 2).to_sparse()}, "trace must be a dense tensor"),
    ({"diverged": torch.zeros(2).to(torch.complex64)}, "diverged must be a bool tensor"),
    ({"trace": torch.ones(1, 3)}, r"one per sample, \(B,\), and trace \(K, B\)"),
])
def test_solver_stats_check_every_statistic_before_the_summary(change, match):
    # a1103, a1107, a1112, a1118, a1120, a1123, a1125
    with pytest.raises((TypeError, ValueError), match=match):
        _stats(**change).summary()
    assert _stats().summary()["converged_fraction"] == 1.0


def test_dynamics_results_refuse_a_complex_orbit_and_an_infinite_orbit_point():
    # b0612 (SimulationResult with a complex m_o), b0615 (FloquetResult with an inf state)
    from mfattn.dynamics.engine import simulate
    from mfattn.dynamics.floquet import floquet_multipliers
    run = simulate([1.2, 1.26], steps=40, transient=10)
    with pytest.raises(TypeError, match="m_o must hold real numbers"):
        type(run)(**{**vars(run), "m_o": run.m_o.astype(np.complex128)})
    fl = floquet_multipliers([1.2, 1.26], steps=60)
    state = fl.state.copy()
    state[0, 0] = np.inf
    with pytest.raises(ValueError, match="state must hold the finite real orbit point"):
        type(fl)(fl.betas, fl.period, fl.multipliers, fl.residual, fl.periodic, state)


def test_an_expanding_result_refuses_a_complex_horizon():
    # b0607
    from mfattn.structural.expanding_core import ExpandingResult
    B = 2
    kw = dict(output=torch.zeros(B, 3), attention=torch.zeros(B, 4), window=torch.ones(B, dtype=torch.long),
              horizon=torch.ones(B), iterations=torch.ones(B, dtype=torch.long), alpha=torch.ones(B), beta=torch.ones(B),
              history=None)
    assert ExpandingResult(**kw).horizon.shape == (B,)
    with pytest.raises(TypeError, match="horizon must be a real floating-point tensor"):
        ExpandingResult(**{**kw, "horizon": torch.ones(B).to(torch.complex64)})
    with pytest.raises(TypeError, match="window must be an integer tensor"):
        ExpandingResult(**{**kw, "window": torch.ones(B)})


# --- stored numbers: files of the wrong shape, numbers of the wrong kind ---------------------------------------------

def test_summaries_are_json_objects_with_bounded_integers(tmp_path):
    # b0676, b0682, b0688, b0694, b0700, b0706, b0712, b0718 (a list at the top); b0680, b0686, b0698 (400 digits)
    from mfattn.companion.store_read import RefusedFileError, read_json, read_object
    listed = tmp_path / "list.json"
    listed.write_text("[1, 2]")
    with pytest.raises(RefusedFileError, match="list.json: expected a JSON object"):
        read_object(listed)
    huge = tmp_path / "huge.json"
    huge.write_text(json.dumps({"x": 10**400}))
    with pytest.raises(RefusedFileError, match="past 1e150"):
        read_json(huge)
    assert read_object(tmp_path / "absent.json") == {}
    fine = tmp_path / "fine.json"
    fine.write_text(json.dumps({"x": 2**62}))
    assert read_object(fine) == {"x": 2**62}


def test_a_stored_fraction_is_not_a_stored_number():
    # b0535, b0537, b0565: a Fraction reached a format string ("unsupported format string")
    from mfattn.companion.grades import Undecidable
    from mfattn.companion.stored_views import stored_view
    with pytest.raises(Undecidable, match="Fraction"):
        stored_view({"tap_slope": Fraction(1, 2)})["tap_slope"]


def test_the_chapter_two_readers_name_root_for_a_value_of_the_wrong_kind(tmp_path):
    # b0687, b0699 (a string where a number is stored), b0006 (a chapter name of 100 000 letters)
    from mfattn.implicit import claims_deq_numbers as D
    folder = tmp_path / "data" / "full" / "transformer"
    folder.mkdir(parents=True)
    (folder / "summary.json").write_text(json.dumps({"tap_slope": "0.5"}))
    with pytest.raises(ValueError, match="root: the stored tap_slope must be a number"):
        D.stored_cost_exponent(tmp_path)
    with pytest.raises(ValueError, match="chapter must be a chapter's name"):
        D.save(tmp_path, "deq" * 33334, {"x": 1.0})


def test_one_seed_cap_refuses_a_rule_that_gives_no_grade():
    # b0577: a rule returning None was passed on as the grade
    from mfattn.structural.claims_designs_checks import one_seed_cap
    with pytest.raises(ValueError, match="rule must give 'holds', 'partly' or 'fails'"):
        one_seed_cap(lambda s: None)({})
    assert one_seed_cap(lambda s: "holds")({}) == "partly"


def test_small_new_checks(monkeypatch):
    # a path that only the expansion of ~ takes past PATH_MAX; an integer past 1e150 among the stored numbers; a
    # work-registry entry built by hand
    from mfattn.companion import store
    from mfattn.companion.grades import Undecidable
    from mfattn.companion.stored_views import stored_view
    from mfattn.companion.work_units import Entry
    monkeypatch.setenv("MFATTN_CACHE", "~/" + "a/" * 2046)
    with pytest.raises(ValueError, match="MFATTN_CACHE must be a path shorter than 4096 bytes"):
        store.cache_dir("x")
    with pytest.raises(Undecidable, match="tap_slope is a number past 1e150"):
        stored_view({"tap_slope": 10**200})["tap_slope"]
    assert stored_view({"tap_slope": 10**100})["tap_slope"] == 10**100
    with pytest.raises(TypeError, match="Entry.work must be a function"):
        Entry("n", 5)
    with pytest.raises(ValueError, match="Entry.parameter must name a parameter"):
        Entry("a b", len)
