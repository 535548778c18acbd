"""The sixth outside table's claims rows (part B) in chapter 4-6's claims modules (mfattn/structural/claims*.py,
mfattn/dynamics/claims*.py): a stored number that cannot decide a rule (an infinity, a null, an empty list) makes
it "not tested" (Undecidable naming the key), a wrong argument is refused naming it, and the documented rows are
documented. The stored numbers are the project's own (data/full), changed one key at a time."""

from __future__ import annotations

import numpy as np
import pytest

from mfattn.companion import store
from mfattn.companion.verdicts import Undecidable
from mfattn.dynamics import claims_beyond, claims_lambda, claims_limit, claims_memory, claims_stored
from mfattn.structural import (claims as sclaims, claims_designs, claims_designs_checks as DC,
                               claims_designs_expanding as DX, claims_designs_fig3 as F3, claims_designs_multihop as MH,
                               claims_designs_numbers as DN, claims_rules)

INF = float("inf")


@pytest.fixture(scope="module")
def root():
    r = store.project_root()
    if r is None or not (r / "data" / "full").is_dir():
        pytest.skip("the stored full-profile numbers (data/full) are not here")
    return r


@pytest.fixture(scope="module")
def dmft(root):
    return claims_stored.stored_numbers(root)[0]


@pytest.fixture(scope="module")
def designs(root):
    return claims_designs.stored_numbers(root, "designs")[0]


def first(s, key, value):
    """A copy of the stored numbers with the first entry of the list under ``key`` set to ``value``."""
    out = dict(s)
    out[key] = [value] + list(s[key])[1:]
    return out


def put(s, key, value):
    out = dict(s)
    out[key] = value
    return out


def _wallclock_rule(s):
    claim = next(c for c in F3.EXPANDING.values() if c.id == "designs-expanding-wallclock")
    return claim.rule(s)


# (row, which numbers, the call on the changed numbers, the key the message must name)
UNDECIDABLE = [
    ("b0035", "dmft", lambda s: claims_beyond.basins_at(9)(put(s, "basin_n_betas", None)), "basin_n_betas"),
    ("b0037", "dmft", lambda s: claims_beyond.neimark_sacker_at(0.01)(put(s, "ns_angle", INF)), "ns_angle"),
    ("b0226", "dmft", lambda s: claims_limit.network_at(0.1, -0.25, 4)(put(s, "network_slope", INF)),
     "network_slope"),
    ("b0231", "dmft", lambda s: claims_memory.first_crossing_at(first(s, "f4_betas", INF)), "f4_betas"),
    ("b0101", "designs", lambda s: DC.code_measure_rule(put(s, "ref_code_ops_10_5", INF)), "ref_code_ops_10_5"),
    ("b0106", "designs", lambda s: DC.lift_se(first(s, "far_lift_runs", INF)), r"far_lift_runs\[0\]"),
    ("b0107", "designs", lambda s: DC.lift_settings_text(put(s, "far_lift_runs", [])), "far_lift_runs"),
    ("b0116", "designs",
     lambda s: DC.stuck_check("loss_ratio")(first(s, "exp_tail_mse_standard_10_2_seeds", INF)),
     "exp_tail_mse_standard_10_2_seeds"),
    ("b0118", "designs", lambda s: DC.vi_larger(first(s, "paper_elbo_grad_vectors", INF)), "paper_elbo_grad_vectors"),
    ("b0121", "designs", lambda s: DC.wall_operations(first(s, "bench_ops_ratios", INF)), "bench_ops_ratios"),
    ("b0122", "designs", lambda s: DC.wall_paper_size(first(s, "bench_cpu_ratios", INF)), "bench_cpu_ratios"),
    ("b0139", "designs", lambda s: DX.ops_steps(put(s, "ops_10_5", INF), "ops_"), "ops_10_5"),
    ("b0157", "designs", lambda s: _wallclock_rule(put(s, "bench_lazy_ms", [])), "bench_lazy_ms"),
    ("b0165", "designs", lambda s: MH.mass_se("mass_x0_one_seeds")(first(s, "mass_x0_one_seeds", INF)),
     "mass_x0_one_seeds"),
    ("b0175", "designs", lambda s: MH.premise_se()(first(s, "premise_nmse_single_seeds", INF)),
     "premise_nmse_single_seeds"),
    ("b0177", "designs", lambda s: MH.replay_clean(put(s, "replay_curve_max_dev", [])), "replay_curve_max_dev"),
    ("b0178", "designs", lambda s: MH.replay_first(put(s, "replay_curve_first_dev", [])), "replay_curve_first_dev"),
    (None, "designs", lambda s: DC.lift_se(put(s, "far_lift_runs", [0.1])), "far_lift_runs"),   # one run: no SE
]


@pytest.mark.parametrize("row, which, call, key", UNDECIDABLE, ids=[r[0] or "one-run" for r in UNDECIDABLE])
def test_numbers_that_cannot_decide_are_not_tested(request, row, which, call, key):
    s = request.getfixturevalue(which)
    with pytest.raises(Undecidable, match=key):
        call(s)


# (row, the call, the exception, what the message must name)
REFUSED = [
    ("b0167", lambda d, s: MH.multihop_alternatives("", b"abl_"), TypeError, "other_prefix"),
    ("b0167", lambda d, s: MH.multihop_alternatives(b"", "abl_"), TypeError, "prefix"),
    ("b0187", lambda d, s: DN.per_seed({"a": [1.0, float("nan")]}, ["a"]), TypeError, "key"),
    ("b0187", lambda d, s: DN.per_array(s, "far_lift_runs", at_least=-1), ValueError, "at_least"),
    ("b0215", lambda d, s: claims_lambda.gap_edges(d, "a", lc=np.float64("nan")), ValueError, "lc"),
    ("b0227", lambda d, s: claims_limit.slope_rule("slope_1", "slope_3")(put(d, "slope_1", True)), TypeError,
     "slope_1"),
]


@pytest.mark.parametrize("row, call, exc, name", REFUSED, ids=[r[0] for r in REFUSED])
def test_wrong_arguments_are_refused_naming_them(dmft, designs, row, call, exc, name):
    with pytest.raises(exc, match=name):
        call(dmft, designs)


def test_the_documented_rows_say_what_they_do():   # b0033, b0236
    assert "the format\n    of a key the numbers do not hold is not tried" in sclaims.glue_full.__doc__
    assert "The keys\n    are not looked up here" in claims_rules.identity_premises.__doc__


def test_valid_numbers_still_decide(dmft, designs):
    assert claims_beyond.neimark_sacker_at(0.01)(dmft) in ("holds", "partly", "fails")
    assert claims_beyond.basins_at(9)(dmft) in ("holds", "partly", "fails")
    assert claims_limit.network_at(0.1, -0.25, 4)(dmft) in ("holds", "partly", "fails")
    assert claims_limit.slope_rule("slope_1", "slope_3")(put(dmft, "slope_1", float("nan"))) == "fails"  # NaN: fails
    assert claims_memory.first_crossing_at(dmft) in ("holds", "partly", "fails")
    assert claims_lambda.gap_edges(dmft, "a", lc=np.float64(1e-3)) == claims_lambda.gap_edges(dmft, "a")
    assert np.isfinite(DC.lift_se(designs)) and np.isfinite(MH.premise_se()(designs))
    assert DC.wall_operations(designs) in ("holds", "partly", "fails")
    assert DN.per_seed(designs, "far_lift_runs", at_least=np.int64(2)) == DN.per_seed(designs, "far_lift_runs")
    assert len(MH.multihop_alternatives("", "abl_")) == len(MH.multihop_alternatives("", None)) + 2
    ok, text = MH.replay_clean(put(designs, "replay_curve_max_dev", [1e-3, 2e-3]))
    assert ok is False and text.startswith("0 of 2 curves")
