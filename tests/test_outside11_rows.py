"""Issue 44, outside table 11 rows: each hostile call refused by one error naming the parameter (or the stored key,
the path), and its valid neighbour still computed. Tiny inputs only. The table's new odd objects: an int or float
subclass holding -1 whose comparisons all answer False (range checks let it through), a str subclass whose
``__str__`` names another text, a JSON file holding null, files and containers of no entries."""

from __future__ import annotations

import json
import zipfile
from types import MappingProxyType

import numpy as np
import pytest
import torch


class LieInt(int):
    def __lt__(self, other):
        return False

    __gt__ = __le__ = __ge__ = __lt__


class LieFloat(float):
    def __lt__(self, other):
        return False

    __gt__ = __le__ = __ge__ = __lt__


class StrLie(str):
    def __str__(self):
        return "zz_other"


def test_range_checks_read_the_number_a_subclass_holds():
    # b0004, b0040, b0073, b0079, b0085, b0114, b0180, b0192, b0258, b0291, b0339, b0346, b0364, b0441, b0480, b0490
    from mfattn.companion.checks_scalars import check_int, check_real
    with pytest.raises(ValueError, match="dim must be a positive integer; got -1"):
        check_int("dim", LieInt(-1), 1)
    with pytest.raises(ValueError, match="width must be >= 0; got -1.0"):
        check_real("width", LieFloat(-1.0), minimum=0.0)
    got = check_int("dim", LieInt(3), 1)
    assert got == 3 and type(got) is int
    from mfattn.implicit.meanfield import FeedForward
    with pytest.raises(ValueError, match="dim"):
        FeedForward(dim=LieInt(-1))


def test_paths_are_the_text_a_str_subclass_holds(tmp_path):
    # b0626 (read_idx opened 'zz_other'), b0653, b0671
    from mfattn.companion.checks_scalars import check_path
    assert str(check_path("path", StrLie(str(tmp_path / "a.json")))) == str(tmp_path / "a.json")


def test_stored_numbers_of_a_subclass_or_all_nan_are_not_read():
    # b0488, b0526, b0605 (a LieFloat/LieInt among the stored numbers)
    from mfattn.companion.grades import Undecidable
    from mfattn.companion.stored_views import stored_view
    with pytest.raises(Undecidable, match="acc_sd is a LieFloat"):
        stored_view({"acc_sd": LieFloat(-1.0)})["acc_sd"]
    assert stored_view({"acc_sd": np.float64(0.1)})["acc_sd"] == 0.1


def test_a_json_file_holding_null_is_no_mapping(tmp_path):
    # a0010, a0011, a0012, a0014
    from mfattn.companion.store_read import read_entries, read_object
    p = tmp_path / "p.json"
    p.write_text("null")
    with pytest.raises(ValueError, match="p.json"):
        read_object(p)
    with pytest.raises(ValueError, match="p.json must hold a JSON object"):
        read_entries(p)
    assert read_object(tmp_path / "absent.json") == {} and read_entries(tmp_path / "absent.json") == {}


def test_an_npz_member_that_is_no_array_is_refused(tmp_path):
    # a0130
    from mfattn.companion.store_read import DamagedFileError, load_npz
    p = tmp_path / "p.npz"
    with zipfile.ZipFile(p, "w") as z:
        z.writestr("a.txt", b"hello")
    with pytest.raises(DamagedFileError, match="member 'a.txt' is not an array"):
        load_npz(p)


def test_small_companion_rows():
    # a0953 (a negative RMSE shown), a0966 (' ising' answered as a chapter of no paper), a1054/a1058 (NaN kept in a
    # mapping that is not a dict)
    from mfattn.companion.report_keys import key_text
    from mfattn.companion.report_text import paper_of
    from mfattn.companion.store_json import finite_or_none
    with pytest.raises(ValueError, match="value must be >= 0 for 'naive_m'"):
        key_text("naive_m", -0.1)
    assert key_text("epoch1_corr", -0.2).endswith("-0.2")
    with pytest.raises(ValueError, match="chapter must be a chapter's name"):
        paper_of(" ising")
    assert paper_of("ising") and paper_of("") == ""
    assert finite_or_none(MappingProxyType({"a": [1.0, float("nan")], "b": np.array([np.inf])})) == {
        "a": [1.0, None], "b": [None]}
    with pytest.raises(TypeError, match="set"):
        finite_or_none({1.0, 2.0})


def test_foundation_rows():
    # a0328 (m = 1.5 in ExactResult), a1598/a1583 (beta at the largest float), a1332/a1396 (the sizes named)
    from mfattn.ising_exact import ExactResult
    from mfattn.ising_vector import gaussian_vector_bound
    from mfattn.meanfield.families import family_couplings
    with pytest.raises(ValueError, match=r"magnetisations in \[-1, 1\]"):
        ExactResult(m=np.full(4, 1.5), C=np.eye(4), log_z=0.0)
    for beta in (1.7976931348623157e308, 1.0000001e6):   # past MAX_BETA = 1e6 (every spin long saturated)
        with pytest.raises(ValueError, match="beta must be"):
            family_couplings("ferro", 4, beta, np.random.default_rng(0))
    assert np.isfinite(family_couplings("ferro", 4, 1.0, np.random.default_rng(0))).all()
    with pytest.raises(ValueError, match="n and d"):
        gaussian_vector_bound(3, 10**12, np.random.default_rng(0))


def test_implicit_and_structural_rows(tmp_path):
    # b0007 (ref_broke named), b0211 (a rule of no argument), b0310 (half_width named), b0024/b0142/b0328 (no
    # feature), b0026 (g all zeros)
    from mfattn.implicit.claims_deq_couplings import breakdown_p
    from mfattn.implicit.correction import affine_fit, gaussian_fit
    from mfattn.implicit.transformer import token_spread
    from mfattn.structural.claims_rules import identity_and
    with pytest.raises(ValueError, match="ref_broke must not exceed ref_runs"):
        breakdown_p(1, 3, 4, 3)
    assert 0 < breakdown_p(2, 3, 0, 3) <= 1
    with pytest.raises(TypeError, match="exact_in_general must take the stored numbers"):
        identity_and(("a", "b"), lambda: True)
    with pytest.raises(ValueError, match="at least one feature"):
        affine_fit(np.random.default_rng(0).normal(size=(12, 0)), np.ones((12, 2)))
    with pytest.raises(ValueError, match="g must not be all zeros"):
        gaussian_fit(np.zeros((12, 2)), np.random.default_rng(0).normal(size=(12, 2)), max_iter=50)
    with pytest.raises(ValueError, match="at least one token of at least one feature"):
        token_spread(torch.zeros(2, 3, 0, dtype=torch.float64))


def test_an_export_never_drops_a_stored_run(tmp_path, monkeypatch):
    # b0669: `trained --export` on a machine without the runs' caches emptied the stored index of 36 runs
    from mfattn.implicit import trained
    monkeypatch.setattr(trained, "finished_result", lambda config, device: None)   # no run trained here
    from mfattn.companion import store
    from mfattn.companion.profiles import get_profile
    from mfattn.implicit.prepare import run_names
    from mfattn.implicit.trained import export_finished
    sizes = get_profile("deq", "quick")
    name = next(iter(run_names(sizes)))
    (tmp_path / f"{name}.npz").write_bytes(b"stored run")
    entry = {"file": f"{name}.npz", "sha256": store.sha256_file(tmp_path / f"{name}.npz"), "code": "old"}
    (tmp_path / "index.json").write_text(json.dumps({"runs": {name: entry}, "missing": []}))
    index = export_finished(sizes, tmp_path)
    assert index["runs"][name] == entry and name not in index["missing"]


def test_notes_and_prose_refuse_numbers_they_cannot_quote(tmp_path):
    # b0542 ('nan, nan, nan' in multihead_note), b0553 (corr_worst_ms NaN), b0683 (a negative median spectral radius)
    from mfattn.companion import store
    from mfattn.companion.grades import Undecidable
    from mfattn.implicit import claims_deq_numbers as D
    from mfattn.implicit.claims_transformer_numbers import stored_numbers
    from mfattn.implicit.claims_transformer_rules import multihead_note, site_numbers
    root = store.project_root()
    s = stored_numbers(root)[0] if root is not None else {}
    if "corr_worst_ms_seeds" not in s:
        pytest.skip("no stored full-profile numbers of chapter 3")
    assert "0.87" in multihead_note(s) and site_numbers(s)["corr_worst_ms"] >= 0
    with pytest.raises(Undecidable, match="off_block_dense_seeds"):
        multihead_note({**s, "off_block_dense_seeds": [float("nan")] * len(s["off_block_dense_seeds"])})
    with pytest.raises(Undecidable, match="corr_worst_ms_seeds"):
        site_numbers({**s, "corr_worst_ms_seeds": [float("nan")] * len(s["corr_worst_ms_seeds"])})
    deq = store.read_json(root / "data" / "full" / "deq" / "summary.json")
    folder = tmp_path / "data" / "full" / "deq"
    folder.mkdir(parents=True)
    (folder / "summary.json").write_text(json.dumps({**deq, "rho_blog_median": -2.17}))
    with pytest.raises(ValueError, match="root: the stored rho_blog_median must be >= 0"):
        D.stability_prose(tmp_path)
    (folder / "summary.json").write_text(json.dumps({**deq, "acc_fixed": 99.14}))
    with pytest.raises(ValueError, match=r"acc_fixed must be in \[0, 1\]"):
        D.stability_prose(tmp_path)


def test_sweep_results_keep_their_protocol_and_mnist_images_have_pixels():
    # b0623 (a config whose items() give NaN, steps NaN kept)
    import dataclasses

    from mfattn.dynamics.sweep import SweepResult, sweep
    from mfattn.implicit.mnist import normalize
    r = sweep([1.2, 1.26], steps=60, transient=20)
    f = {k.name: getattr(r, k.name) for k in dataclasses.fields(r)}
    with pytest.raises(ValueError, match="steps must be a positive integer"):
        SweepResult(**{**f, "config": {**f["config"], "steps": float("nan")}})

    class LieDict(dict):
        def items(self):
            return [(k, float("nan")) for k in dict.keys(self)]

    kept = SweepResult(**{**f, "config": LieDict(f["config"])})
    assert type(kept.config) is dict and kept.config["steps"] == 60 and dict(kept.config.items())["steps"] == 60
    assert normalize(torch.zeros(2, 28, 28, dtype=torch.uint8)).shape == (2, 1, 28, 28)
    # b0078 (images of no column) is left: mnist.py is hashed into the training digest, and its fix waits for the
    # next certified replay of the stored runs
