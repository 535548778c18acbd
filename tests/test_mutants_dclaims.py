"""Rules of :mod:`mfattn.dynamics.claims` (chapter 6's route to chaos and the paper's bin rule) that the other tests
left free to change (found by sampled mutation testing, issue 44 item 6), on small synthetic diagrams whose classes
are counted here by hand: the periodic start at exactly 19 β in 20, the pooled bin-rule share at exactly 1 %, the
'finally' reading above a half, the uniform-grid tolerance, the rounding of the start share, and the zoom's examples.
"""

from __future__ import annotations

import numpy as np

from mfattn.dynamics import claims
from mfattn.dynamics.claims_lambda import LC, LT

BY_ID = {c.id: c for c in claims.CLAIMS}


def _diagram(lams, pers, counts=None):
    return claims._orbits_example(lams, pers, counts=counts)


# the paper's route on 60 β (as the module's _ROUTE, written out here): 20 with period 4, 20 tori (λ 1e-5, no
# period), 8 deep chaos (λ 0.1), a window of 2 with period 28, 10 deep chaos
LAM = [-0.1] * 20 + [1e-5] * 20 + [0.1] * 8 + [-0.05] * 2 + [0.1] * 10
PER = [4] * 20 + [0] * 20 + [0] * 8 + [28] * 2 + [0] * 10


def _undecided_start(k):
    """The route with k of the 20 β before the first torus undecided (no period, λ 5e-4: between LT and LC)."""
    return [5e-4] * k + LAM[k:], [0] * k + PER[k:]


def test_the_route_needs_a_period_at_nineteen_beta_in_twenty_before_the_first_torus():
    """"A periodic start: nineteen β in twenty before the first torus with a period" (threshold start_share = 0.95,
    inclusive): 19 of 20 holds, 18 of 20 (0.9) fails, for the declared rule of dmft-route-to-chaos."""
    claim = BY_ID["dmft-route-to-chaos"]
    assert claim.threshold_values["start_share"] == 0.95
    assert claim.rule(_diagram(LAM, PER)) == "holds"
    assert claim.rule(_diagram(*_undecided_start(1))) == "holds"      # 19/20 = 0.95
    assert claim.rule(_diagram(*_undecided_start(2))) == "fails"      # 18/20 = 0.90
    assert claims.route_at(LT, LC, 0.95)(_diagram(*_undecided_start(2))) == "fails"
    assert claims.route_at(LT, LC, 0.9)(_diagram(*_undecided_start(2))) == "holds"


def test_the_finally_reading_moves_a_holding_route_only_when_more_than_half_the_late_betas_have_a_period():
    """The alternative reading of 'finally' (chaos the last regime): a route that holds becomes "partly" when the
    share of β past 2.5 with a period is above 0.5 (not at 0.5), and stays as it is otherwise."""
    alt = next(a for a in BY_ID["dmft-route-to-chaos"].alternatives if a.name.startswith("'finally'"))
    route = _diagram(LAM, PER)
    assert alt.rule({**route, "a_late_share": 0.7}) == "partly"
    assert alt.rule({**route, "a_late_share": 0.51}) == "partly"
    assert alt.rule({**route, "a_late_share": 0.5}) == "holds"
    assert alt.rule({**route, "a_late_share": 0.1}) == "holds"


def test_the_pooled_bin_rule_share_is_wrong_betas_over_classed_betas():
    """Pooled over both diagrams (the same 100 β twice: 50 with period 4, 50 tori), one torus labelled periodic in
    each: 2 wrong of 200 classed = 1 % exactly, not below 1 %: "partly"; none wrong: "holds"; 10 wrong in each
    (10 %): "fails"."""
    lams, pers = [-0.1] * 50 + [1e-5] * 50, [4] * 50 + [0] * 50
    rule = claims.bin_rule_at(LT, LC, 0.01, 0.1)
    assert rule(_diagram(lams, pers, counts=[10] * 50 + [100] * 50)) == "holds"
    assert rule(_diagram(lams, pers, counts=[10] * 50 + [100] * 49 + [10])) == "partly"
    assert rule(_diagram(lams, pers, counts=[10] * 50 + [100] * 40 + [10] * 10)) == "fails"


def test_a_grid_is_uniform_when_every_step_is_within_a_millionth_of_the_median_step():
    """The jump threshold's check: a grid is uniform if every step differs from the median step by less than 1e-6
    of it; one step longer by 1.5e-6 of it makes the grid not uniform (by 0.5e-6: still uniform)."""
    def grids(rel):
        b = 1.2 + 1e-3 * np.arange(60)
        b[-1] += rel * 1e-3
        return {f"{p}_orbit_arrays": {"betas": b, "lyapunov": np.zeros(60), "period": np.zeros(60, int)}
                for p in ("a", "z")}
    ok, found = claims._grids_check(grids(0.5e-6))
    assert ok and found == ("a count of grid steps is a distance in β: Fig. 3a: step 1.00e-03, uniform; "
                            "zoom: step 1.00e-03, uniform")
    ok, found = claims._grids_check(grids(1.5e-6))
    assert not ok and "Fig. 3a: step 1.00e-03, not uniform" in found


def test_the_route_shows_the_start_share_to_four_decimals():
    """The ledger number "share with a period before the first torus": 2 of the 3 β before the first torus have a
    period, 2/3 shown as 0.6667."""
    lams = [-0.1, -0.1, 5e-4] + [1e-5] * 5 + [0.1] * 5
    pers = [4, 4, 0] + [0] * 5 + [0] * 5
    shown = BY_ID["dmft-route-to-chaos"].numbers({**_diagram(lams, pers), "a_late_share": 0.25})
    assert shown["share with a period before the first torus"] == 0.6667
    assert shown["share with a period, beta > 2.5"] == 0.25


def test_the_zoom_examples_reach_each_grade_for_the_reason_they_are_built():
    """dmft-zoom's examples: "holds" the full route; "partly" the route without its periodic window (the two β of
    period 28 made deep chaos: no periodic β between chaotic ones); "fails" the deep chaos made tori (no chaos)."""
    claim = BY_ID["dmft-zoom"]
    assert set(claim.examples) == {"holds", "partly", "fails"}
    for grade, numbers in claim.examples.items():
        assert claim.rule(numbers) == grade, grade
    partly = claim.examples["partly"]["z_orbit_arrays"]
    assert list(partly["period"]) == [4] * 20 + [0] * 40                      # no window
    assert claims._stages_of(claim.examples["partly"], "z")["windows"] == 0
    assert claims._stages_of(claim.examples["holds"], "z")["windows"] == 2


def test_the_path_probability_examples_have_the_slopes_they_are_built_with():
    """dmft-path-probability's examples: RMS errors at t = 10 over N = 10⁵, 10⁶, 10⁷ falling by 10 (slope −1/2,
    holds), by 5 (log10(0.2)/2 = −0.349, partly) and by 2 (log10(0.5)/2 = −0.151, fails) over the two decades, all
    three N inside the linear regime at λ = 0.14 (10^-2.5 · e^1.4 = 0.013 < 0.05)."""
    import math

    import pytest

    claim = BY_ID["dmft-path-probability"]
    slopes = {"holds": -0.5, "partly": math.log10(0.2) / 2, "fails": math.log10(0.5) / 2}
    for grade, numbers in claim.examples.items():
        assert claim.rule(numbers) == grade, grade
        text = claims._cut_slope(numbers)
        assert float(text.split(" ± ")[0]) == pytest.approx(slopes[grade], abs=1e-3), (grade, text)
    assert 10 ** -2.5 * math.exp(0.14 * 10) < 0.05
