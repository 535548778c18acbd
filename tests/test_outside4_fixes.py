"""What the fourth outside table of hostile calls (issue 44; twelfth session) found in the book's machinery, each
refused at the boundary with a message naming the parameter (before: returned a result, or failed deep inside)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from mfattn.companion import caches, checks, citation, ledger, manifest, report_table, report_text, stats, store
from mfattn.companion import store_read, store_write, verdicts


@pytest.mark.parametrize("value", ["no", "yes", 1, 0, None, 1.0])
def test_bool_parameters_take_true_or_false_only(value, tmp_path):
    with pytest.raises(TypeError, match=r"^truncate must be True or False"):
        stats.pooled_over_seeds([0.1, 0.2], [0.01, 0.02], truncate=value)
    with pytest.raises(TypeError, match=r"^recursive must be True or False"):
        store_write.clean_stale_temporaries(tmp_path, recursive=value)
    with pytest.raises(TypeError, match=r"^use_cache must be True or False"):
        caches.cached_npz(tmp_path / "c.npz", lambda: {"a": np.zeros(2)}, key="k", use_cache=value)
    assert checks.check_bool("flag", np.bool_(True)) is True


@pytest.mark.parametrize("bound", ["minimum", "maximum"])
def test_a_nan_bound_is_not_a_bound(bound):
    with pytest.raises(ValueError, match=rf"check_real's {bound} \(for x\) must be None or a number, not NaN"):
        checks.check_real("x", 1.0, **{bound: float("nan")})
    assert checks.check_real("x", 1.0, **{bound: 1.0}) == 1.0


@pytest.mark.parametrize("text", ["1e-300", "0.5"])
def test_a_byte_budget_below_one_byte_is_refused(text, monkeypatch):
    monkeypatch.setenv("MFATTN_MAX_JSON_BYTES", text)
    with pytest.raises(ValueError, match=r"MFATTN_MAX_JSON_BYTES must be a positive number of bytes \(at least 1\)"):
        store_read.max_json_bytes()
    monkeypatch.setenv("MFATTN_MAX_BYTES", text)
    with pytest.raises(ValueError, match=r"MFATTN_MAX_BYTES must be a positive number of bytes \(at least 1\)"):
        checks.max_bytes()
    monkeypatch.setenv("MFATTN_MAX_JSON_BYTES", "1")
    assert store_read.max_json_bytes() == 1


def test_digests_and_records_check_their_arguments():
    with pytest.raises(ValueError, match=r"^length must be"):
        store.code_digest(checks, length=10**6)
    assert len(store.code_digest(checks, length=64)) == 64
    with pytest.raises(TypeError, match=r"^key must be a non-empty string"):
        caches.cache_record({"a": 1}, 3)
    with pytest.raises(TypeError, match=r"^code must be None or a code digest"):
        caches.cache_record({"a": 1}, "k", code=3)


def test_cached_npz_names_a_compute_that_returns_no_mapping(tmp_path):
    with pytest.raises(TypeError, match=r"^compute must return a mapping \{name: array\}; it returned list"):
        caches.cached_npz(tmp_path / "c.npz", lambda: [1, 2], key="k")
    assert not list(tmp_path.iterdir())                      # nothing written


def test_paths_where_a_path_goes(tmp_path):
    with pytest.raises(TypeError, match=r"^start must be None or a path"):
        store.project_root(3)
    with pytest.raises(ValueError, match=r"t\.txt: text is not valid Unicode .*position 1\); nothing written"):
        store_write.atomic_write_text(tmp_path / "t.txt", "a\udcff")
    assert not list(tmp_path.iterdir())
    from mfattn.companion import datasets
    with pytest.raises(TypeError, match=r"^folder must be a path"):
        datasets.fetch("mnist", "train-images-idx3-ubyte.gz", download=False, folder=3)


@pytest.mark.parametrize("root", ["/nonexistent-mfattn-root", "/etc/hostname"])
def test_decisions_refuse_a_root_that_is_not_a_folder(root):
    with pytest.raises(ValueError, match=r"^root must be an existing folder"):
        verdicts.redecide(root)
    with pytest.raises(ValueError, match=r"^root must be an existing folder"):
        verdicts.decide_chapter(root, "ising")


def test_unknown_chapters_are_refused():
    with pytest.raises(ValueError, match=r"^chapter must be one of"):
        ledger.prune("quick", "../x", [])
    with pytest.raises(ValueError, match=r"^chapter must be one of"):
        manifest.mark_run("quick", 0, "bogus", "started")
    with pytest.raises(ValueError, match=r"^chapter must be one of .*got 'bogus'"):
        report_text.report_entries(["bogus"])
    with pytest.raises(ValueError, match=r"^chapter must be one of .*got 'bogus'"):
        report_text.report_markdown(["ising", "bogus"])


def test_evidence_is_a_figure_label_or_a_test_id_inside_tests():
    for item in ("tests/../../../etc/passwd::test_x", "data/full/x.json", "fig-X"):
        with pytest.raises(ledger.LedgerError, match=r"neither a figure label .* nor a test id"):
            ledger.check_evidence([item], [], root=store.project_root())
    assert ledger.check_evidence(["fig-x", "tests/test_no_such_file.py::test_y"], ["fig-x"],
                                 root=store.project_root()) == ["tests/test_no_such_file.py::test_y"]


def test_report_entries_must_be_ledger_entries():
    with pytest.raises(ValueError, match=r"^entries must hold ledger entries; one lacks the key\(s\) \['claim_id', "
                                         r"'verdict'\]"):
        report_text.report_summary([{}])
    with pytest.raises(ValueError, match=r"^entries must hold ledger entries; one lacks the key\(s\) \['claim_id', "
                                         r"'source', 'claim', 'verdict'\]"):
        report_table.table_html([{}])


def test_figures_table_base_is_a_relative_url():
    with pytest.raises(TypeError, match=r"^base must be a relative URL"):
        citation.figures_table(base=3)
    with pytest.raises(TypeError, match=r"^base must be a relative URL"):
        citation.figures_table(base='"><script>')


def test_claim_helpers_refuse_out_of_domain_numbers():
    from mfattn.dynamics import claims_limit
    from mfattn.implicit import claims_deq_couplings as cc

    for acc, blog in ((150.0, 93.0), (-1.0, 93.0), (92.0, 101.0)):
        with pytest.raises(ValueError, match=r"must be an accuracy in % \(0 to 100\)"):
            cc.interaction_grade(acc, blog)
    with pytest.raises(ValueError, match=r"^margin must be >= 0"):
        cc.interaction_grade(92.5, 93.0, margin=-1.0)
    with pytest.raises(ValueError, match=r"^floor must be"):
        cc.interaction_grade(92.5, 93.0, floor=120.0)
    assert cc.interaction_grade(93.0, 93.0, margin=0.0) == "partly"   # the edge: within 0 points is not within
    with pytest.raises(ValueError, match=r"^runs \+ ref_runs must be at most 100,000"):
        cc.breakdown_p(10**9, 10**9, 0, 10**9)
    assert cc.breakdown_p(0, 3, 0, 3) == 1.0
    with pytest.raises(ValueError, match=r"^band must be >= 0"):
        claims_limit.horizon_at(band=-1.0)


def test_identity_rules_need_keys_and_ordered_thresholds():
    for make in (verdicts.identity, verdicts.identity_claim, verdicts.identity_examples):
        with pytest.raises(TypeError, match=r"needs the names of the stored deviations"):
            make()
    with pytest.raises(ValueError, match=r"^near must be >= tol"):
        verdicts.identity("x", tol=1e-3, near=1e-6)
    assert verdicts.identity("x", tol=1e-6, near=1e-6)({"x": 5e-7}) == "holds"


def test_evidence_basis_names_a_profile_and_overrides_take_no_negative_list_entries():
    from mfattn.companion import profiles

    with pytest.raises(ValueError, match=r"^profile must be one of"):
        ledger.evidence_basis(["fig-x"], "bogus", [])
    with pytest.raises(ValueError, match=r"size 'betas' of chapter 'ising' must be a non-empty list of finite numbers >= 0"):
        profiles.get_profile("ising", "quick", betas=[0.5, -1.0])
    assert profiles.get_profile("ising", "quick", betas=[0.0, 0.5])["betas"] == [0.0, 0.5]


def test_per_unit_numbers_read_back_from_a_file_can_be_saved_again():
    """A count stored as null (NaN on the way out) comes back as None; saving it again keeps null (the mutation
    round found a bare TypeError there)."""
    from mfattn.implicit.claims_transformer_numbers import _plain

    assert _plain({"counted": [None, 1.0, np.float64(2.0)], "n": np.int64(3)}) == {"counted": [None, 1.0, 2.0], "n": 3}


def test_finite_or_none_reads_arrays_and_tensors_as_numbers():
    assert store_write.finite_or_none({"a": np.array([1.0, np.nan]), "b": torch.tensor([np.inf, 2.0]),
                                       "c": np.float64(np.nan), "d": np.int64(3)}) == {"a": [1.0, None],
                                                                                      "b": [None, 2.0], "c": None, "d": 3}
    with pytest.raises(TypeError, match=r"^claim_id must be a claim's id"):
        ledger.clean_premises(3, {})
