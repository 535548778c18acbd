"""Verdicts of chapter 6's 'Beyond the paper' section (claims.record_beyond), from full-profile numbers."""

from mfattn.companion import ledger
from mfattn.dynamics import claims

FULL = {"ns_beta": 1.2434, "ns_angle": 1.52, "ns_rotation": 0.242, "rho_birth": 0.242, "tongue_locked": 0.1,
        "plateaus": [{"fraction": "2/7", "beta_lo": 1.267, "beta_hi": 1.2736, "rho": 2 / 7}],
        "basins_multi": ["β = 1.27 (period 28, 88% and period 56, 12%)"], "network_slope": -0.51,
        "network_chi2_z": 0.4}


class _Run:
    def __init__(self, profile):
        self.profile, self.got = profile, {}

    def verdict(self, claim_id, source, claim, verdict, evidence, numbers=None, note=""):
        ledger.make_entry(claim_id, source, claim, verdict, evidence, numbers, note)  # the ledger's own checks
        self.got[claim_id] = verdict


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
