"""ising-at-accuracy at other numbers of spins: the size scan's numbers (mfattn.meanfield.finite_size) against an
independent solve and enumeration, and its alternative rule (claims_ising_sizes) at every outcome."""

import warnings

import numpy as np
import pytest

from mfattn import ising
from mfattn.companion import verdicts
from mfattn.meanfield import accuracy, finite_size
from mfattn.meanfield.claims_ising_plefka import _at_example
from mfattn.meanfield.claims_ising_sizes import at_every_size, size_rows


@pytest.fixture(scope="module")
def scan():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ising.MeanFieldWarning)
        return finite_size.line_by_size([5, 6], [0.5, 1.5], 3, budget=200, seed=4)


def test_one_error_recomputed_by_an_independent_solve_and_enumeration(scan):
    """Instance 2 at n = 6, β = 0.5: naive mean field by a plain damped loop, the exact state by brute force."""
    G, h = accuracy._disorder(6, 3, 0.3, 4)[2]
    J = 0.5 * G
    states = np.array([[1 - 2 * ((k >> i) & 1) for i in range(6)] for k in range(64)], float)
    logw = 0.5 * np.einsum("si,ij,sj->s", states, J, states) + states @ h
    w = np.exp(logw - logw.max())
    exact = (w[:, None] * states).sum(0) / w.sum()
    m = np.zeros(6)
    for _ in range(20000):
        m = 0.95 * m + 0.05 * np.tanh(h + J @ m)
    got = scan["by_n"]["6"]["naive_strong_inst"][0][2]
    assert got == pytest.approx(np.sqrt(np.mean((m - exact) ** 2)), rel=1e-6)
    x = 0.5 ** 2 * np.mean((1 - m ** 2) ** 2)
    assert scan["by_n"]["6"]["naive_at_strong_inst"][0][2] == pytest.approx(x, rel=1e-6)


def test_a_size_does_not_depend_on_the_others_run(scan):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ising.MeanFieldWarning)
        alone = finite_size.line_by_size([6], [0.5, 1.5], 3, budget=200, seed=4)
    assert alone["by_n"]["6"] == scan["by_n"]["6"]
    assert set(scan["by_n"]["5"]) == {f"{k}_{f}" for k, _ in finite_size.KEYS
                                       for f in ("strong_inst", "at_strong_inst", "at_strong")}
    assert "| 5 |" in finite_size.table(scan) and "| 6 |" in finite_size.table(scan)


def _sized(**per_n):
    """A stored summary with a size scan whose sizes carry the n = 18 rule's example numbers."""
    by_n = {}
    for n, kw in per_n.items():
        e = _at_example(**kw)
        by_n[n.lstrip("n")] = {k: v for k, v in e.items() if k.endswith(("_inst", "_at_strong"))}
    return {"size_scan": {"betas": [0.8, 1.0, 1.2, 1.4], "instances": 4, "by_n": by_n}}


def test_the_size_alternative_reaches_every_outcome():
    lost, kept = {"tap": [0.2, 0.3, 0.6, 0.7]}, {"tap": [0.2, 0.3, 0.4, 0.7]}
    assert at_every_size(_sized(n12=lost, n15=lost)) == "holds"
    assert at_every_size(_sized(n12=kept, n15=kept)) == "fails"
    assert at_every_size(_sized(n12=lost, n15=kept)) == "partly"
    none = {"tap": [0.2, 0.3, 0.6, 0.7], "x_tap": (0.6, 0.8, 0.9, 0.95)}     # no theory crosses at that size
    assert at_every_size(_sized(n12=lost, n15=none)) == "holds"
    with pytest.raises(verdicts.Undecidable, match="no stored size"):
        at_every_size(_sized(n12=none))
    with pytest.raises(verdicts.Undecidable, match="no size scan"):
        at_every_size({})
    rows = size_rows(_sized(n12=lost, n15=none))
    assert rows[0].startswith("n = 12: TAP's line at β = 1.2") and "0.30 before it, 0.60 at β = 1.2" in rows[0]
    assert rows[1] == "n = 15: no theory crosses its own line on the grid"


@pytest.mark.parametrize("kwargs, match", [({"ns": [1]}, "ns"), ({"ns": [30]}, "ns"), ({"ns": []}, "ns"),
                                           ({"ns": "12"}, "ns"), ({"betas": []}, "betas"),
                                           ({"damping": 0.0}, "damping"), ({"budget": 10**9}, "budget")])
def test_bad_scan_input_is_named(kwargs, match):
    args = {"ns": [4], "betas": [0.5], "instances": 1, **kwargs}
    with pytest.raises((ValueError, TypeError), match=match):
        finite_size.line_by_size(**args)
