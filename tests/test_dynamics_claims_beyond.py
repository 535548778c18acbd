"""Verdicts of chapter 6's 'Beyond the paper' section (claims.record_beyond), from full-profile numbers."""

import json
from pathlib import Path

import pytest

from mfattn.companion import ledger
from mfattn.dynamics import claims

ROOT = Path(__file__).resolve().parents[1]

FULL = {"ns_beta": 1.2434, "ns_angle": 1.52, "ns_rotation": 0.242, "rho_birth": 0.242, "tongue_locked": 0.1,
        "plateaus": [{"fraction": "2/7", "beta_lo": 1.267, "beta_hi": 1.2736, "rho": 2 / 7, "points": 661,
                      "strobe_cycles": [7, 14]}], "spectrum_max": [0.15, -6e-5, -0.08, -0.29],
        "basins_multi": ["β = 1.27 (period 28, 88% and period 56, 12%)"], "network_slope": -0.51,
        "network_chi2_z": 0.4}


class _Run:
    def __init__(self, profile):
        self.profile, self.got, self.entries = profile, {}, {}

    def verdict(self, claim_id, source, claim, verdict, evidence, numbers=None, note=""):
        entry = ledger.make_entry(claim_id, source, claim, verdict, evidence, numbers, note)  # the ledger's checks
        self.got[claim_id], self.entries[claim_id] = verdict, entry


def test_full_numbers_decide_the_verdicts():
    run = _Run("full")
    claims.record_beyond(run, FULL, None)
    assert run.got["dmft-torus-birth-floquet"] == "reproduced" and run.got["dmft-network-limit"] == "reproduced"
    assert run.got["dmft-devils-staircase"] == "extends"
    run = _Run("full")
    claims.record_beyond(run, dict(FULL, ns_beta=1.25, network_slope=-0.3), None)
    assert run.got["dmft-torus-birth-floquet"] == "reproduced with differences"
    assert run.got["dmft-network-limit"] == "not reproduced"


def test_quick_run_without_stored_numbers_says_not_tested(tmp_path):
    run = _Run("quick")
    claims.record_beyond(run, FULL, tmp_path)
    assert run.got["dmft-torus-birth-floquet"] == "not tested" and run.got["dmft-network-limit"] == "not tested"


def _stored_root():
    if not (ROOT / "data" / "full" / "dmft" / "summary.json").is_file():
        pytest.skip("no stored chapter-6 full results (outside a checkout)")
    return ROOT


@pytest.mark.parametrize("profile", ["quick", "full"])
def test_every_chapter6_verdict_has_numbers_and_a_note_from_the_stored_full_results(profile):
    """What the chapter records from the committed data/full/dmft (the quick profile reads beyond.json, the full
    profile passes this run's numbers, here the same file): every verdict with its numbers and a note."""
    root = _stored_root()
    run = _Run(profile)
    claims.record(run, root)
    claims.record_beyond(run, json.loads((root / "data" / "full" / "dmft" / "beyond.json").read_text()), root)
    assert len(run.entries) == len(claims.CLAIMS) + 7
    bare = sorted(c for c, e in run.entries.items() if not e["numbers"] or not e["note"])
    assert not bare, f"verdicts without numbers or note: {bare}"
    assert all(e["verdict"] != "not tested" for e in run.entries.values())
    stair = run.entries["dmft-devils-staircase"]["numbers"]
    # the 2/7 window in a few pieces (lone points of another fraction inside it split it), not 32 fragments;
    # the summary names the widest five and counts the rest
    assert stair["plateaus"].startswith("2/7 on β ∈ [1.26696, ") and len(stair["plateaus"]) < 500
    assert stair["plateau count"] <= 20 and stair["plateaus"].count(" on β ∈ ") <= 5
    spec = run.entries["dmft-lyapunov-spectrum"]
    assert spec["numbers"]["max lambda1 over the grid"] > 0 > spec["numbers"]["max lambda2 over the grid"]


def test_plateau_summary_lists_the_widest_first_and_counts_the_rest():
    p = lambda f, lo, hi: {"fraction": f, "beta_lo": lo, "beta_hi": hi, "points": 2, "runs": 1}  # noqa: E731
    found = [p("1/4", 1.0, 1.002), p("3/11", 1.01, 1.0101), p("2/7", 1.02, 1.03), p("4/15", 1.04, 1.0405),
             p("2/7", 1.05, 1.05001)]
    assert claims.plateau_summary(found, top=2) == (
        "2/7 on β ∈ [1.02000, 1.03000] (width 1.0e-02); 1/4 on β ∈ [1.00000, 1.00200] (width 2.0e-03); "
        "and 3 narrower (each ≤ 5.0e-04 wide: 4/15, 3/11, 2/7)")  # their fractions in increasing order
    assert claims.plateau_summary([]) == "none"
