"""Outside table 8 (part A)'s rows in chapter 1's claims modules (mfattn/meanfield/claims_ising_*.py): a name that
names no stored quantity is refused naming the argument and the allowed values, and stored numbers of the wrong sign,
infinite, NaN or of mismatched lengths make the claim not tested (Undecidable) or a ValueError naming the key, never
a grade, a count or a note quoting them. Each test names the call it pins; each also checks the valid neighbour.
Small synthetic numbers only (the stored kinds are not loaded: ``_KINDS`` empty checks no kind)."""

from __future__ import annotations

import copy

import numpy as np
import pytest

from mfattn.companion import stored_kinds, verdicts
from mfattn.meanfield import (claims_ising_betas as B, claims_ising_factors as F, claims_ising_families as FA,
                              claims_ising_plefka as P, claims_ising_sizes as Z, claims_ising_widths as W)


@pytest.fixture(autouse=True)
def _no_kinds(monkeypatch):
    monkeypatch.setattr(stored_kinds, "_KINDS", {})


BETAS = {"betas": [0.05, 0.5, 0.9], "atap_by_beta": [0.001, 0.01, 0.05], "tap_by_beta": [0.01, 0.03, 0.06],
         "tsite_by_beta": [0.01, 0.02, 0.05], "atap_c_by_beta": [0.001, 0.002, 0.003],
         "tap_c_by_beta": [0.002, 0.003, 0.004], "naive_c_by_beta": [0.01, 0.02, 0.03]}


def _betas(**change):
    s = copy.deepcopy(BETAS)
    s.update(change)
    return s


# --- claims_ising_betas -------------------------------------------------------------------------------------------

@pytest.mark.parametrize("key", ["atap_c_by_beta", "tap_c_by_beta", "naive_c_by_beta"])
@pytest.mark.parametrize("bad", [-1.0, float("inf")])
def test_ordered_every_beta_refuses_negative_or_infinite_errors(key, bad):   # a1917 a1919 a1923 a1925 a1929 a1931
    # ordered_every_beta(s) with s[key] all -1.0 / inf
    with pytest.raises(verdicts.Undecidable, match=key):
        B.ordered_every_beta(_betas(**{key: [bad] * 3}))
    assert B.ordered_every_beta(_betas()) == "holds"


def test_ordered_every_beta_refuses_negative_betas():   # a1913: ordered_every_beta(s) with s['betas'] negative
    with pytest.raises(verdicts.Undecidable, match="betas"):
        B.ordered_every_beta(_betas(betas=[-0.05, -0.5, -0.9]))


@pytest.mark.parametrize("key,bad", [("betas", [-0.05, -0.5, -0.9]), ("tap_by_beta", [float("inf")] * 3),
                                     ("tsite_by_beta", [float("inf")] * 3), ("atap_by_beta", [-1.0] * 3),
                                     ("tap_by_beta", [-1.0] * 3), ("tsite_by_beta", [-1.0] * 3),
                                     ("atap_by_beta", [float("inf")] * 3)])
def test_per_beta_note_refuses_negative_or_infinite_numbers(key, bad):   # a1886 a1898 a1904 (and a1890-a1902)
    # per_beta_note(s) with s['betas'] negative, or an error list negative / infinite
    with pytest.raises(ValueError, match=key):
        B.per_beta_note(_betas(**{key: bad}))
    assert "factor 2 holds" in B.per_beta_note(_betas())


@pytest.mark.parametrize("key,bad", [("atap_c_by_beta", -1.0), ("atap_c_by_beta", float("inf")),
                                     ("tap_c_by_beta", -1.0), ("tap_c_by_beta", float("inf"))])
def test_ordering_beta_note_refuses_negative_or_infinite_errors(key, bad):   # a1944 a1946 (a1950 a1952)
    # ordering_beta_note(s) with s[key] all -1.0 / inf: never "-47163.13" or "inf" in the note
    with pytest.raises(ValueError, match=key):
        B.ordering_beta_note(_betas(**{key: [bad] * 3}))
    assert "0.50 at β = 0.05" in B.ordering_beta_note(_betas())


# --- claims_ising_factors -----------------------------------------------------------------------------------------

PAIRS = {"atap_m_inst": [0.01, 0.02, None, 0.015], "tap_m_inst": [0.03, 0.05, 0.04, 0.02],
         "atap_c_inst": [0.001, 0.002, 0.003], "tap_c_inst": [0.002, 0.003, 0.004], "naive_m": 0.1, "tap_m": 0.05}


def test_known_refuses_a_key_that_is_no_name():   # a1959: known(s, 5)
    with pytest.raises(TypeError, match="keys"):
        F.known(PAIRS, 5)
    assert F.known(PAIRS, "naive_m", "tap_m") == [0.1, 0.05]


def test_known_refuses_a_negative_error():   # a1958: known(s, 'naive_m') with s['naive_m'] = -0.5
    with pytest.raises(verdicts.Undecidable, match="naive_m"):
        F.known({**PAIRS, "naive_m": -0.5}, "naive_m")
    assert F.known({**PAIRS, "naive_m": 0.0}, "naive_m") == [0.0]


def test_paired_refuses_an_unknown_which_or_theory():   # a1962 a1963: paired(s, 'atap', 'tap', 'q'), paired(s, 'nope', 'tap')
    with pytest.raises(ValueError, match="which must be 'm'"):
        F.paired(PAIRS, "atap", "tap", "q")
    with pytest.raises(ValueError, match=r"better must name a theory .*atap.*'nope'"):
        F.paired(PAIRS, "nope", "tap")
    with pytest.raises(TypeError, match="worse"):
        F.paired(PAIRS, "atap", 5)
    b, w = F.paired(PAIRS, "atap", "tap")
    assert b.tolist() == [0.01, 0.02, 0.015] and w.tolist() == [0.03, 0.05, 0.02]
    with pytest.raises(KeyError, match="tsite_m_inst"):   # a theory the summary does not hold: not tested
        F.paired(PAIRS, "atap", "tsite")


def test_paired_refuses_mismatched_negative_or_infinite_lists():   # a1961 (and paired negative errors)
    with pytest.raises(verdicts.Undecidable, match="different lengths"):
        F.paired({**PAIRS, "atap_m_inst": PAIRS["atap_m_inst"][:3]}, "atap", "tap")
    for bad in (-1.0, float("inf")):
        with pytest.raises(verdicts.Undecidable, match=r"atap_m_inst'\]\[1\]"):
            F.paired({**PAIRS, "atap_m_inst": [0.01, bad, 0.02, 0.015]}, "atap", "tap")
    assert F.paired(PAIRS, "atap", "tap", "c")[0].size == 3


def test_bootstrap_sd_never_returns_nan_from_zero_errors():   # a1978: bootstrap_sd([0.0, 0.1], [0.1, 0.2])
    with pytest.raises(ValueError, match="b and w"):
        F.bootstrap_sd(np.array([0.0, 0.1]), np.array([0.1, 0.2]), resamples=50)
    assert np.isfinite(F.bootstrap_sd(np.array([0.1, 0.2, 0.3]), np.array([0.2, 0.3, 0.5]), resamples=50))


# --- claims_ising_families ----------------------------------------------------------------------------------------

def test_converged_share_refuses_an_unknown_family_and_empty_or_bad_runs():   # a2000 a2001 a2002 (a2004)
    s = {"fam_ferro_atap_m_inst": [0.1, None, 0.2, 0.3]}
    with pytest.raises(ValueError, match="family must be one of diluted"):
        FA.converged_share(s, "nofamily")   # converged_share(s, 'nofamily')
    with pytest.raises(TypeError, match="family"):
        FA.converged_share(s, 5)   # converged_share(s, 5)
    with pytest.raises(verdicts.Undecidable, match="fam_ferro_atap_m_inst"):
        FA.converged_share({"fam_ferro_atap_m_inst": []}, "ferro")   # empty runs: was ZeroDivisionError
    with pytest.raises(verdicts.Undecidable, match="fam_ferro_atap_m_inst"):
        FA.converged_share({"fam_ferro_atap_m_inst": [float("nan")] * 3}, "ferro")   # NaN counted as converged
    assert FA.converged_share(s, "ferro") == 0.75


# --- claims_ising_plefka ------------------------------------------------------------------------------------------

def _sweep(n=4, betas=(0.5, 1.0, 1.5)):
    rows = len(betas)
    s = {"damping_betas": list(betas), "instances": n}
    for k, scale in (("naive", 0.2), ("tap", 0.05), ("atap", 0.02), ("zero", 0.3), ("field", 0.25)):
        s[f"{k}_strong_inst"] = [[scale * (1 + j) for _ in range(n)] for j in range(rows)]
    for k in ("tap", "atap"):
        s[f"{k}_at_strong_inst"] = [[0.5 * (1 + j) for _ in range(n)] for j in range(rows)]
        s[f"{k}_at_strong"] = [0.5 * (1 + j) for j in range(rows)]
    return s


def test_instance_crossings_refuses_an_unknown_theory():   # a2020 (a2018): instance_crossings(s, 5), (s, 'bogus')
    with pytest.raises(TypeError, match="^k must be (one of naive|a string)"):
        P.instance_crossings(_sweep(), 5)
    with pytest.raises(ValueError, match="k must be one of naive.*'bogus'"):
        P.instance_crossings(_sweep(), "bogus")
    assert P.instance_crossings(_sweep(), "tap") == {"cross": 4, "lost": 0, "kept": 4}


@pytest.mark.parametrize("key,table", [("tap_strong_inst", [[-1.0] * 4] * 3), ("naive_strong_inst", [[float("inf")] * 4] * 3),
                                       ("tap_at_strong_inst", [[float("nan")] * 4] * 3),
                                       ("tap_at_strong_inst", [[1.0] * 4]), ("tap_strong_inst", [[0.1] * 4] * 2)])
def test_instance_crossings_refuses_bad_or_mismatched_tables(key, table):   # a2027 (a2023 a2025 a2028 a2029)
    # instance_crossings(s, 'tap') with s[key] negative / infinite / NaN, or a table one row short
    with pytest.raises(verdicts.Undecidable, match=key):
        P.instance_crossings({**_sweep(), key: table}, "tap")


@pytest.mark.parametrize("key,value", [("tap_strong_inst", "short"), ("damping_betas", [0.5, 1.0]), ("instances", -1),
                                       ("instances", 0), ("field_strong_inst", [[-0.1] * 4] * 3)])
def test_baseline_note_refuses_a_sweep_that_does_not_hang_together(key, value):   # a2009 (a2007 a2011 a2012)
    # baseline_note(s) with s['tap_strong_inst'] two rows long, damping_betas short, instances -1 / 0, negative errors
    s = _sweep()
    s[key] = s[key][:2] if value == "short" else value
    with pytest.raises(verdicts.Undecidable, match=key):
        P.baseline_note(s)
    assert "Naive mean field" in P.baseline_note(_sweep(betas=(0.5, 1.0, 1.5)) | {"zero_strong_inst": [[0.1] * 4] * 3})


# --- claims_ising_sizes and claims_ising_widths -------------------------------------------------------------------

def _scan():
    t = _sweep()
    by_n = {k: v for k, v in t.items() if k not in ("damping_betas", "instances", "zero_strong_inst",
                                                      "field_strong_inst")}
    return {"size_scan": {"betas": t["damping_betas"], "instances": t["instances"], "by_n": {"12": by_n}}}


def test_size_numbers_refuses_an_unknown_size_and_bad_numbers():   # a2057 a2058 a2068 a2069 (a2038 a2047 a2056 a2067)
    with pytest.raises(ValueError, match="n must be one of the stored sizes '12'; got '999'"):
        Z.size_numbers(_scan(), "999")
    with pytest.raises(TypeError, match="^n must be (a stored size|a string)"):
        Z.size_outcome(_scan(), 10)
    bad = _scan()
    bad["size_scan"]["by_n"]["12"]["tap_strong_inst"] = [[-1.0] * 4] * 3
    with pytest.raises(verdicts.Undecidable, match="size_scan.*tap_strong_inst"):
        Z.size_outcome(bad, "12")
    with pytest.raises(verdicts.Undecidable, match="size_scan.*tap_strong_inst"):
        Z.at_every_size(bad)
    assert Z.size_numbers(_scan(), "12")["damping_betas"] == [0.5, 1.0, 1.5]


def test_width_text_refuses_negative_or_nan_errors():   # a2076 a2080: width_text(s, 'atap', 'tap') with fw errors bad
    for bad in (-0.1, float("nan"), float("inf")):
        with pytest.raises(ValueError, match=r"s\['fw'\]\['0.1'\]\['atap_m'\]"):
            W.width_text({"fw": {"0.1": {"atap_m": bad, "tap_m": 0.1, "mean_abs_m": 0.3}}}, "atap", "tap")
    with pytest.raises(ValueError, match="mean_abs_m"):
        W.width_text({"fw": {"0.1": {"atap_m": 0.05, "tap_m": 0.1, "mean_abs_m": -0.3}}}, "atap", "tap")
    assert "0.500" in W.width_text({"fw": {"0.1": {"atap_m": 0.05, "tap_m": 0.1, "mean_abs_m": 0.3}}}, "atap", "tap")


def test_width_text_refuses_a_width_that_is_no_number():   # width_text(s, 'atap', 'tap') with s['fw'] keyed 'abc' / 'nan'
    for key in ("abc", "nan", "-0.1"):
        with pytest.raises(ValueError, match=r"s\['fw'\] must map widths"):
            W.width_text({"fw": {key: {"atap_m": 0.05, "tap_m": 0.1, "mean_abs_m": 0.3}}}, "atap", "tap")
    assert "σ_h = 1" in W.width_text({"fw": {"1": {"atap_m": 0.05, "tap_m": 0.1, "mean_abs_m": 0.3}}}, "atap", "tap")


def test_paired_refuses_one_theory_twice_and_known_no_keys():   # paired(s, 'atap', 'atap'); known(s)
    with pytest.raises(ValueError, match="better and worse must be two different theories"):
        F.paired(PAIRS, "atap", "atap")
    with pytest.raises(ValueError, match="keys must name at least one"):
        F.known(PAIRS)
    assert F.known(PAIRS, "tap_m") == [0.05]
