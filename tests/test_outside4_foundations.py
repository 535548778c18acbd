"""What the fourth outside table of hostile calls (issue 44) found in the Ising foundation, chapter 1's accuracy study
and the book's machinery (manifest, ledger, work budgets, cache keys), each refused at the boundary with a message
naming the parameter (before: a result for input outside the documented domain)."""

from __future__ import annotations

import pathlib
import subprocess

import numpy as np
import pytest

from mfattn import ising
from mfattn.companion import checks, ledger, manifest, store, work
from mfattn.meanfield import accuracy


@pytest.mark.parametrize("betas", [[True, False], np.array([True]), True])
def test_true_and_false_are_not_inverse_temperatures(betas):
    J = ising.sk_couplings(4, 1.0, np.random.default_rng(0)) if hasattr(ising, "sk_couplings") else None
    h = np.zeros(4)
    with pytest.raises(TypeError, match=r"^betas must be an array of numbers; got dtype bool"):
        ising.exact_marginals_sweep(J, h, betas)
    with pytest.raises(TypeError, match=r"^x must be an array of numbers; got dtype bool"):
        checks.check_array("x", betas)
    assert ising.exact_marginals_sweep(J, h, [1.0, 0.0]).m.shape == (2, 4)   # the same grid as numbers


@pytest.mark.parametrize("flag", ["yes", 1, None])
def test_adapt_and_progress_are_true_or_false(flag):
    Jv = np.zeros((4, 4, 2, 2))
    with pytest.raises(TypeError, match=r"^adapt must be True or False"):
        ising.gaussian_vector_tap(Jv, np.ones((4, 2)), np.eye(2), adapt=flag)
    with pytest.raises(TypeError, match=r"^progress must be True or False"):
        accuracy.compare_mean_field(4, [0.5], 2, progress=flag)


def test_compare_mean_field_refuses_a_negative_inverse_temperature():
    with pytest.raises(ValueError, match=r"^betas must be inverse temperatures >= 0; got -0.5"):
        accuracy.compare_mean_field(4, [0.5, -0.5], 2)
    assert accuracy.compare_mean_field(4, [0.0, 0.5], 2).rmse_m.shape[1] == 2


def test_manifest_keys_do_not_climb_and_seeds_stay_64_bit(tmp_path, monkeypatch):
    monkeypatch.setenv("MFATTN_FIGURES", str(tmp_path))
    for key in ("../x", "a/../../b", "..", "a\\..\\b", ""):
        with pytest.raises(ValueError, match=r"^key must be a figure label, a chapter or a result's path"):
            manifest.update("quick", 0, "manifest", key, None)
    with pytest.raises(ValueError, match=r"^seed must be at most 2\*\*62"):
        manifest.figures_dir("quick", seed=2**64)
    assert manifest.figures_dir("quick", seed=2**62).name == f"seed-{2**62}"


def test_tracked_changes_outside_git_is_an_error_not_a_clean_tree(tmp_path):
    with pytest.raises(subprocess.SubprocessError, match=r"^root '.*' is not a git work tree"):
        manifest.tracked_changes(pathlib.Path(tmp_path))


def test_a_basis_comes_from_the_entry_not_from_a_default():
    with pytest.raises(ValueError, match=r"^e must name its basis or its profile"):
        ledger.basis({})
    with pytest.raises(ValueError, match=r"^e\['basis'\] must be one of"):
        ledger.basis({"basis": "a hunch"})
    with pytest.raises(TypeError, match=r"^e must be a mapping"):
        ledger.basis([])
    assert ledger.basis({"profile": "full"}) == "full profile"
    assert ledger.basis({"profile": "quick"}) == "quick run"
    assert ledger.basis({"basis": "tests", "profile": "full"}) == "tests"


def test_the_work_check_needs_the_bound_arguments():
    with pytest.raises(ValueError, match=r"^arguments must hold 'steps'"):
        work.check_call_work("mfattn.dynamics.engine:simulate", {})
    with pytest.raises(TypeError, match=r"^arguments must be the call's bound arguments"):
        work.check_call_work("mfattn.dynamics.engine:simulate", [("steps", 10)])
    assert work.check_call_work("no.such:thing", {}) is None                 # not declared: nothing to check


@pytest.mark.parametrize("key", [(1, 2), frozenset({1}), object])
def test_a_cache_key_of_no_json_form_is_refused(key):
    with pytest.raises(TypeError, match=r"a key .* has no JSON form"):
        store.config_hash({key: 1})
    assert store.config_hash({1: 1, "a": 2}) == store.config_hash({"a": 2, 1: 1})


def test_a_slow_kernel_is_waited_for_not_failed(monkeypatch, tmp_path):
    """A full run's kernel on a loaded machine can be silent for more than nbclient's 4 s: papermill must wait."""
    import papermill

    from mfattn.companion import reproduce as rep

    seen = []

    def fake_execute(source, target, **kwargs):
        seen.append(kwargs.get("iopub_timeout"))
        pathlib.Path(target).write_text("{}")

    monkeypatch.setattr(papermill, "execute_notebook", fake_execute)
    monkeypatch.setattr(rep, "_check_parameters", lambda source, params: None)
    monkeypatch.setenv("MFATTN_OUTPUT", str(tmp_path))
    monkeypatch.delenv("MFATTN_CACHE", raising=False)
    monkeypatch.setenv("MFATTN_FIGURES", str(tmp_path / "figures"))
    rep.reproduce(profile="quick", chapters=["ising"], progress=False)
    assert seen == [rep.IOPUB_TIMEOUT] and rep.IOPUB_TIMEOUT >= 60
