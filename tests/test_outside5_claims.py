"""Outside table 5 (part B), the rows of the claims modules and of mfattn/companion: each hostile call is refused at
the boundary, naming the parameter (or the stored number) it could not use; valid controls still work.

A rule that reads a NaN stored number is "not tested" (:class:`~mfattn.companion.verdicts.Undecidable`, naming the
number), never graded: the shared guard :class:`~mfattn.companion.verdicts.FiniteNumbers`."""

from __future__ import annotations

import functools
import json
import math
from pathlib import Path

import numpy as np
import pytest
import torch

from mfattn.companion import checks, verdicts
from mfattn.companion.verdicts import Undecidable
from mfattn.companion.store_read import RefusedFileError

ROOT = Path(__file__).resolve().parents[1]
NAN = float("nan")


@functools.lru_cache(maxsize=None)
def _stored(chapter: str) -> dict:
    numbers = verdicts._module(chapter).stored_numbers(ROOT, chapter)[0]
    if not numbers:
        pytest.skip(f"no stored full-profile numbers of {chapter} in this checkout")
    return numbers


def S(chapter: str, **changed) -> dict:
    """The stored numbers of ``chapter`` with ``changed`` keys replaced."""
    return {**_stored(chapter), **changed}


def nan1(chapter: str, key: str) -> dict:
    """The stored numbers with the first entry of the list ``key`` NaN."""
    s = dict(_stored(chapter))
    s[key] = [NAN, *list(s[key])[1:]]
    return s


def claim(chapter: str, cid: str):
    return next(c for c in verdicts.declared(chapter) if c.id == cid)


def _ti():
    from mfattn.implicit import claims_transformer_rules as R
    return R


def _ta():
    from mfattn.implicit import claims_transformer_amortised as A
    return A


def _seeds():
    from mfattn.implicit import claims_deq_seeds as D
    return D


def _dn():
    from mfattn.implicit import claims_deq_numbers as N
    return N


def _x():
    from mfattn.structural import claims_designs_expanding as X
    return X


def _m():
    from mfattn.structural import claims_designs_multihop as M
    return M


def _c():
    from mfattn.structural import claims_designs_checks as C
    return C


def _sn():
    from mfattn.structural import claims_designs_numbers as SN
    return SN


def _lam():
    from mfattn.dynamics import claims_lambda as L
    return L


def _st():
    from mfattn.dynamics import claims_stored as ST
    return ST


def _b():
    from mfattn.dynamics import claims_beyond as B
    return B


def _f4():
    from mfattn.dynamics import claims_fig4 as F
    return F


def _cp():
    from mfattn.dynamics import claims_couplings as CP
    return CP


class _Recorder:
    def __init__(self):
        self.got = {}

    def number(self, key, text):
        self.got[key] = text


def _stability_root(tmp):
    folder = tmp / "data" / "full" / "deq"
    folder.mkdir(parents=True)
    (folder / "summary.json").write_text(json.dumps({"rho_blog_median": 0.5}))
    return tmp


def _beyond_root(tmp):
    folder = tmp / "data" / "full" / "dmft"
    folder.mkdir(parents=True)
    (folder / "beyond.json").write_text("[1, 2]")
    return tmp


def _a_file(tmp):
    path = tmp / "a_file.txt"
    path.write_text("x")
    return str(path)


# (id, call(tmp_path), exception type, regex the message must match: the parameter or the stored number)
ROWS = [
    # --- companion: the shared tensor checks
    ("b0028", lambda t: __import__("mfattn.implicit.stability", fromlist=["x"]).dense_jacobian(
        __import__("mfattn.implicit.meanfield", fromlist=["x"]).MeanFieldAttention(4, 6, interaction="softmax"),
        torch.empty(2, 4, 6, device="meta")), ValueError, r"\bx\b.*meta"),
    ("b0066", lambda t: __import__("mfattn.structural.hopfield", fromlist=["x"]).hopfield_energy(
        torch.empty(1, 8, device="meta"), torch.randn(3, 8), 1.0), ValueError, r"\bxi\b.*meta"),
    ("meta-grid", lambda t: checks.check_grid("betas", torch.empty(3, device="meta")), ValueError, r"betas.*meta"),
    ("meta-real", lambda t: checks.check_real("beta", torch.empty((), device="meta")), ValueError, r"beta.*meta"),
    # --- implicit: thresholds of the rule factories
    ("b0645", lambda t: _ti().value_maps_at(1e-6, 0.5), ValueError, r"broken.*most"),
    ("b0646", lambda t: _ti().collapse_at(0.1, 1e-6, 10.0), ValueError, r"collapsed.*apart"),
    ("b0648", lambda t: _ti().site_feature_at(0.3, 0.2), ValueError, r"tenth.*tap_level"),
    ("b0649", lambda t: _ti().amortised_at("m")(1.0, 0.2), ValueError, r"tap_level.*none"),
    ("b0651", lambda t: _ta().oracle_at(NAN, 1.0), ValueError, r"oracle"),
    ("b0652", lambda t: _ta().two_part_at(2.0, 1.0), ValueError, r"tap_level.*none"),
    ("b0656", lambda t: _ta().two_part_range_at(0), ValueError, r"width"),
    ("b0885", lambda t: _ti().shown("tap_slope", digits=-1), ValueError, r"digits"),
    ("b0877", lambda t: _ta().amortised_alternatives("bogus", "g"), ValueError, r"\btag\b"),
    ("b0878", lambda t: _ta().ffn_alternatives(tag="zz"), ValueError, r"\btag\b"),
    ("b0882", lambda t: _ta().no_better_than([1.0, NAN], [1.5, 1.5]), ValueError, r"\bgot\b"),
    # --- implicit: a NaN stored number read by a rule or a note that compares it
    ("b0711", lambda t: _ta().straddle_at("m")(0.2, 1.0)(nan1("transformer", "corr_mean_m_seeds")), Undecidable,
     r"corr_mean_m_seeds"),
    ("b0712", lambda t: _ta().in_iteration("m")(nan1("transformer", "merr_median_m_seeds")), Undecidable,
     r"merr_median_m_seeds"),
    ("b0713", lambda t: __import__("mfattn.implicit.claims_transformer_cost", fromlist=["x"]).count_at(0.05, 0.5)(
        S("transformer", tap_count_exponent=NAN)), Undecidable, r"tap_count_exponent"),
    ("b0744", lambda t: _ta().blind_stand_in(nan1("transformer", "bound_m_seeds"), "m"), Undecidable,
     r"bound_m_seeds"),
    ("b0749", lambda t: _ta().two_part_range_text(nan1("transformer", "train_betas")), Undecidable, r"train_betas"),
    ("b0755", lambda t: _ti().collapse_every_element(S("transformer", spread_nores_max=NAN)), Undecidable,
     r"spread_nores_max"),
    ("b0763", lambda t: _ti().site_note(nan1("transformer", "corr_median_ms_seeds")), Undecidable,
     r"corr_median_ms_seeds"),
    ("b0765", lambda t: _ti().value_maps_dense(nan1("transformer", "off_block_dense_seeds")), Undecidable,
     r"off_block_dense_seeds"),
    ("b0960", lambda t: _ti().collapse_every_rho(S("transformer", spread_res_by_rho={
        **_stored("transformer")["spread_res_by_rho"], "0.6": NAN})), Undecidable, r"spread_res_by_rho"),
    ("b0735", lambda t: __import__("mfattn.implicit.claims_deq_onsager", fromlist=["x"]).fixed_effect_interval(
        nan1("deq", "gain_naive_d")), Undecidable, r"gain_naive_d"),
    ("b0736", lambda t: __import__("mfattn.implicit.claims_deq_plain", fromlist=["x"]).damped_plain(
        nan1("deq", "blog_anderson_converged_40_seeds")), Undecidable, r"blog_anderson_converged_40_seeds"),
    # --- a declared claim's rule fed one NaN stored number: Claim wraps every rule in the guard
    ("b0805", lambda t: claim("deq", "deq-init-scale").rule(S("deq", init_conv_top=NAN)), Undecidable,
     r"init_conv_top"),
    ("b0807", lambda t: claim("deq", "deq-mnist-accuracy").rule(S("deq", acc_mean=NAN)), Undecidable, r"acc_mean"),
    ("b0808", lambda t: claim("deq", "deq-anderson").rule(nan1("deq", "blog_conv_late_seeds")), Undecidable,
     r"blog_conv_late_seeds"),
    ("b0809", lambda t: claim("deq", "deq-anderson-plain").rule(nan1("deq", "blog_conv_late_seeds")), Undecidable,
     r"blog_conv_late_seeds"),
    ("b0810", lambda t: claim("deq", "deq-implicit-gradient").rule(S("deq", grad_rel_error=NAN)), Undecidable,
     r"grad_rel_error"),
    ("b0812", lambda t: claim("deq", "deq-softmax-couplings").rule(nan1("deq", "var_softmax_acc_list")), Undecidable,
     r"var_softmax_acc_list"),
    ("b0813", lambda t: claim("deq", "deq-mixer-couplings").rule(nan1("deq", "var_mixer_acc_list")), Undecidable,
     r"var_mixer_acc_list"),
    ("b0814", lambda t: claim("deq", "deq-softmax-reliability").rule(nan1("deq", "var_softmax_acc_list")),
     Undecidable, r"var_softmax_acc_list"),
    ("b0815", lambda t: claim("deq", "deq-mixer-reliability").rule(nan1("deq", "var_mixer_acc_list")), Undecidable,
     r"var_mixer_acc_list"),
    ("b0816", lambda t: claim("deq", "deq-anderson-public").rule(nan1("deq", "ref_anderson_conv_last_seeds")),
     Undecidable, r"ref_anderson_conv_last_seeds"),
    ("b0819", lambda t: claim("transformer", "transformer-multihead-value-maps").rule(
        nan1("transformer", "off_block_value_seeds")), Undecidable, r"off_block_value_seeds"),
    ("b0820", lambda t: claim("transformer", "transformer-rank-collapse").rule(
        nan1("transformer", "spread_nores_seeds")), Undecidable, r"spread_nores_seeds"),
    ("b0821", lambda t: claim("transformer", "transformer-amortised-onsager").rule(S(
        "transformer", ratio_mfixed_linfixed_seeds=[[NAN]])), Undecidable, r"ratio_mfixed_linfixed_seeds"),
    ("b0822", lambda t: claim("transformer", "transformer-ffn-amortises").rule(
        nan1("transformer", "two_binned_seeds")), Undecidable, r"two_binned_seeds"),
    ("b0823", lambda t: claim("transformer", "transformer-site-feature-onsager").rule(
        nan1("transformer", "corr_median_ms_seeds")), Undecidable, r"corr_median_ms_seeds"),
    ("b0824", lambda t: claim("transformer", "transformer-explicit-cost").rule(
        S("transformer", tap_count_exponent=NAN)), Undecidable, r"tap_count_exponent"),
    # --- implicit: helpers
    ("b0853", lambda t: __import__("mfattn.implicit.claims_deq_couplings", fromlist=["x"]).interaction_grade(
        0.97, 0.989), ValueError, r"\bacc\b.*\bblog\b"),
    ("b0854", lambda t: _dn().binomial_se(150.0), ValueError, r"accuracy"),
    ("b0858", lambda t: _dn().paired_seeds([{"seed": 0, "correct": b"\x01"}], {0: {"seed": 0, "correct": b"\x01"}}),
     ValueError, r"runs.*test_examples"),
    ("b0860", lambda t: _dn().stability_prose(_stability_root(t)), ValueError, r"stability_digits"),
    ("b0862", lambda t: _seeds().down(0.35, digits=-1), ValueError, r"digits"),
    ("b0863", lambda t: _seeds().up(math.inf), ValueError, r"\bx\b"),
    ("b0865", lambda t: _seeds().one_seed("acc_list")({"acc_list": [99.1, 99.2]}), TypeError, r"acc_list"),
    ("b0867", lambda t: _seeds().shown("acc_list")({"acc_list": [99.1, 99.2]}), TypeError, r"acc_list"),
    ("b0868", lambda t: _seeds().seed_numbers({"a_seeds": [1.0, 2.0, 3.0]}, 7), ValueError, r"\bi\b"),
    ("b0872", lambda t: _seeds().every_seed_at(lambda x: (lambda s: "holds"), "bogus"), ValueError, r"reading"),
    # --- structural
    ("b0657", lambda t: _x().adaptive_rule(NAN), ValueError, r"\brho\b"),
    ("b0658", lambda t: _x().cavi_rule(0.8, paired="yes"), TypeError, r"paired"),
    ("b0659", lambda t: _x().ladder_rule(0.5), ValueError, r"factor"),
    ("b0661", lambda t: _x().one_sided_rule(band=NAN), ValueError, r"band"),
    ("b0662", lambda t: _x().ops_rule(full=0.0), ValueError, r"full"),
    ("b0664", lambda t: _x().vi_rule(exact=0.1, near=0.05), ValueError, r"exact.*near"),
    ("b0665", lambda t: _x().window_rule(-0.1), ValueError, r"lift"),
    ("b0906", lambda t: _x().accuracy_split({(10, 2): 1.2}, 0.5, 10.0), ValueError, r"band"),
    ("b0907", lambda t: _x().benefit_examples("no"), TypeError, r"literal"),
    ("b0666", lambda t: _m().multihop_rule("", statistic="bogus"), ValueError, r"statistic"),
    ("b0668", lambda t: _m().premise_rule(0.1, 0.2), ValueError, r"partly.*holds"),
    ("b0669", lambda t: _m().rationale_rule(holds=0.6, partly=0.5), ValueError, r"holds.*partly"),
    ("b0671", lambda t: _m().replay_rule(holds=0.9, partly=0.99), ValueError, r"partly.*holds"),
    ("b0673", lambda t: _m().two_positions_rule(holds=0.02, partly=0.05), ValueError, r"partly.*holds"),
    ("b0911", lambda t: _m().gap_closed(0.5, 0.4, 0.5), ValueError, r"\bone\b.*\btwo\b"),
    ("b0912", lambda t: _m().t95_one_sided(2.5), ValueError, r"\bdf\b"),
    ("b0913", lambda t: _m().positive_control({"two": np.array([0.1, 0.2])}, "one", lambda d: True, "x"), ValueError,
     r"baseline"),
    ("b0914", lambda t: _m().multihop_alternatives("", None, part="bogus"), ValueError, r"\bpart\b"),
    ("b0915", lambda t: _m().multihop_examples("", part="bogus"), ValueError, r"\bpart\b"),
    ("b0676", lambda t: _c().accuracy_note("bogus", "x"), ValueError, r"\bkey\b"),
    ("b0771", lambda t: _c().lift_settings_text(nan1("designs", "far_lift_runs")), Undecidable, r"far_lift_runs"),
    ("b0902", lambda t: _c().lift_decide({}, NAN, NAN, NAN), ValueError, r"effect"),
    ("b0903", lambda t: _c().rho_decide({}, 0.5, 0.7, 0.6), ValueError, r"\blo\b.*\bhi\b"),
    ("b0904", lambda t: _c().wall_asymptotic({}, clock="gpu"), ValueError, r"clock"),
    ("b0898", lambda t: __import__("mfattn.structural.claims_designs", fromlist=["x"]).uniform_seeds({}, tol=-1.0),
     ValueError, r"\btol\b"),
    ("b0918", lambda t: _sn().bench_numbers({"rows": "x"}), TypeError, r"rows"),
    ("b0920", lambda t: _sn().code_measure_numbers({"ps": [0.5], "stored_code_measure": [0.6],
                                                    "code_measure_per_seed": {"0.5": {"0": "x"}}}), ValueError,
     r"code_measure_per_seed"),
    ("b0921", lambda t: _sn().replay_numbers({"variants": {"batch": {"multihop": {"relative_deviation": [[]]},
                                                                    "one_layer": {"relative_deviation": [[]]}}}}),
     ValueError, r"relative_deviation"),
    ("b0922", lambda t: _sn().designs_derived({}, _a_file(t)), ValueError, r"\broot\b"),
    ("b0931", lambda t: __import__("mfattn.structural.claims_summary", fromlist=["x"]).save(
        t, "structural", {"a": {"b": 1}}), TypeError, r"summary\['a'\]"),
    ("b0896", lambda t: __import__("mfattn.structural.claims", fromlist=["x"]).glue_full(
        _Recorder(), ROOT, "structural", {"hop_trials": "{:.2q}"}), ValueError, r"formats\['hop_trials'\]"),
    # --- dynamics
    ("b0687", lambda t: __import__("mfattn.dynamics.claims", fromlist=["x"]).bin_rule_at(0.001, 0.00013, 0.01, 0.1),
     ValueError, r"\blt\b.*\blc\b"),
    ("b0689", lambda t: __import__("mfattn.dynamics.claims", fromlist=["x"]).route_at(0.00013, 0.001, 0.95, jump=-2),
     ValueError, r"jump"),
    ("b0690", lambda t: _b().spectrum_at(0.01, 0.001), ValueError, r"tol.*hyper"),
    ("b0693", lambda t: _cp().kept_at(NAN), ValueError, r"survive"),
    ("b0694", lambda t: _cp().nonequilibrium_at(0.001, 0.00013), ValueError, r"\blt\b.*\blc\b"),
    ("b0695", lambda t: _cp().per_seed_at(-0.5), ValueError, r"survive"),
    ("b0698", lambda t: _f4().census_planes_at(0.001, 0.00013), ValueError, r"\blt\b.*\blc\b"),
    ("b0700", lambda t: _f4().coexist_at(NAN), ValueError, r"\brun\b"),
    ("b0702", lambda t: _f4().lyapunov_at(0.001, 0.00013), ValueError, r"\blt\b.*\blc\b"),
    ("b0950", lambda t: _f4().runs([1.0, 1.1], step=0.0), ValueError, r"step"),
    ("b0707", lambda t: __import__("mfattn.dynamics.claims_limit", fromlist=["x"]).slope_rule("slope_1", band=-0.1),
     ValueError, r"band"),
    ("b0710", lambda t: __import__("mfattn.dynamics.claims_memory", fromlist=["x"]).low_frequency_at(1.5), ValueError,
     r"share"),
    ("b0729", lambda t: _b().basins_at(9)(S("dmft", n_multi=NAN)), Undecidable, r"n_multi"),
    ("b0731", lambda t: _b().staircase_at(0.002)(S("dmft", rho_birth=NAN)), Undecidable, r"rho_birth"),
    ("b0792", lambda t: _b().torus_betas(S("dmft", ns_beta=NAN)), Undecidable, r"ns_beta"),
    ("b0797", lambda t: _lam().noise_lt(nan1("dmft", "f4_lyapunov")), Undecidable, r"f4_lyapunov"),
    ("b0798", lambda t: _lam().torus_interval(S("dmft", ns_beta=NAN)), KeyError, r"ns_beta"),
    ("b0800", lambda t: __import__("mfattn.dynamics.claims_limit", fromlist=["x"]).horizon_note(
        S("dmft", horizon_beta=NAN)), Undecidable, r"horizon_beta"),
    ("b0942", lambda t: _lam().counts(np.array([0, 1, 7])), ValueError, r"\bc\b"),
    ("b0943", lambda t: _lam().first(np.array([1.0, 1.1]), np.array([True])), ValueError, r"mask"),
    ("b0944", lambda t: _lam().kind(0.1, 0, lt=0.5, lc=0.001), ValueError, r"\blt\b.*\blc\b"),
    ("b0951", lambda t: _st().beyond_full_numbers(_beyond_root(t)), RefusedFileError, r"beyond\.json"),
    ("b0952", lambda t: _st().beyond_numbers({"ns_beta": "x"}, {}), TypeError, r"ns_beta"),
    ("b0954", lambda t: _st().full_numbers(_a_file(t)), ValueError, r"\broot\b"),
    ("b0955", lambda t: _st().glue_values({"summary": "x"}), TypeError, r"summary"),
    ("b0956", lambda t: _st().plateau_summary([{"fraction": "a/b", "beta_lo": 1.0, "beta_hi": 1.1}]), ValueError,
     r"fraction"),
    # --- the shared guard and the shared edge check
    ("guard-list", lambda t: verdicts.FiniteNumbers({"x": [1.0, math.inf]})["x"], Undecidable, r"\bx\b.*inf"),
    ("guard-get", lambda t: verdicts.FiniteNumbers({"x": NAN}).get("x"), Undecidable, r"\bx\b.*NaN"),
    ("guard-array", lambda t: verdicts.FiniteNumbers({"x": np.array([[1.0, NAN]])})["x"], Undecidable,
     r"\bx\b.*NaN at \[0, 1\]"),
    ("guard-type", lambda t: verdicts.FiniteNumbers([1, 2]), TypeError, r"numbers"),
    ("edges-nan", lambda t: checks.check_edges("holds", NAN, "partly", 0.5), ValueError, r"holds"),
    ("edges-order", lambda t: checks.check_edges("holds", 0.5, "partly", 0.4), ValueError, r"holds.*partly"),
    ("edges-strict", lambda t: checks.check_edges("lo", 0.5, "hi", 0.5, strict=True), ValueError, r"lo.*below.*hi"),
    ("edges-flag", lambda t: checks.check_edges("a", 0.1, "b", 0.5, strict="yes"), TypeError, r"strict"),
]


@pytest.mark.parametrize("row, call, kind, pattern", ROWS, ids=[r[0] for r in ROWS])
def test_refused_naming_the_parameter(row, call, kind, pattern, tmp_path):
    with pytest.raises(kind, match=pattern) as got:
        call(tmp_path)
    assert type(got.value) is kind or kind is KeyError, (row, type(got.value))


# --- valid controls -------------------------------------------------------------------------------------------------

def test_numpy_scalars_are_valid_numbers_where_the_contract_asks_for_one():
    """b0393: a numpy int64 step count and a numpy float32 positive number pass a declared contract, and the function
    sees the Python number of the same value; bools, text and 0-d arrays of the wrong kind are still refused."""
    seen = {}

    @checks.contract(steps="int:0", beta="real:>0")
    def f(steps, beta=1.0):
        seen.update(steps=steps, beta=beta)
        return steps

    assert f(np.int64(5), beta=np.float32(2.0)) == 5
    assert type(seen["steps"]) is int and type(seen["beta"]) is float and seen["beta"] == 2.0
    for bad in (True, np.bool_(True), "3", np.array(3.5)):
        with pytest.raises((TypeError, ValueError), match="steps"):
            f(bad)
    with pytest.raises((TypeError, ValueError), match="beta"):
        f(1, beta=np.array("2.0"))
    with pytest.raises((TypeError, ValueError), match="beta"):
        f(1, beta=np.bool_(True))
    from mfattn.structural import hopfield

    gap, rise = hopfield.relaxation(8, 2, 2, [1.0], 3, generator=torch.Generator().manual_seed(0),
                                    converged_steps=np.int64(5))
    gap2, rise2 = hopfield.relaxation(8, 2, 2, [1.0], 3, generator=torch.Generator().manual_seed(0),
                                      converged_steps=5)
    np.testing.assert_array_equal(gap, gap2)
    assert rise == rise2


def test_a_grid_tensor_that_requires_grad_is_read_as_its_values():
    """b0106: β as a tensor requiring grad is read as its values (no gradient flows through a grid of β)."""
    plain = checks.check_grid("betas", torch.tensor([0.1, 0.2], dtype=torch.float64))
    grad = checks.check_grid("betas", torch.tensor([0.1, 0.2], dtype=torch.float64, requires_grad=True))
    np.testing.assert_array_equal(plain, grad)


def test_the_guard_reads_only_what_a_rule_reads():
    """A NaN the rule does not read (a one-seed s.d.) and None (not measured) pass; only a read NaN is refused."""
    rule = verdicts.finite_rule(lambda s: "holds" if s["x"] < 1 and s.get("y") is None else "fails")
    assert rule({"x": 0.5, "y": None, "sd": NAN}) == "holds"
    assert rule({"x": 0.5, "y": None, "sd": [NAN, None]}) == "holds"
    with pytest.raises(Undecidable, match="x"):
        rule({"x": NAN})
    assert math.isnan(verdicts.raw_numbers(verdicts.FiniteNumbers({"x": NAN}))["x"])
    assert math.isnan(verdicts.FiniteNumbers({}).get("x", NAN))    # a caller's default is no stored number
    assert verdicts.finite_rule(rule) is rule


def test_identity_keeps_its_documented_nan_fails():
    """verdicts.identity documents "else (or NaN) fails": read past the guard, also inside a declared claim."""
    c = claim("structural", "structural-hopfield")
    assert c.rule(S("structural", hop_max_rise=NAN)) == "fails"
    assert verdicts.identity("a")(verdicts.FiniteNumbers({"a": NAN})) == "fails"


def test_valid_factories_and_helpers_still_decide_as_before():
    from mfattn.implicit import claims_transformer_cost as cost

    s = _stored("transformer")
    assert _ti().value_maps_at(0.5, 1e-6)(s) == _ti().value_maps_at(0.5, 1e-6)(dict(s))
    assert cost.count_at(0.05, 0.5)(s) in verdicts.GRADES
    assert _ta().oracle_at(0.0, 1.0)(s) in verdicts.GRADES      # oracle 0: never 'holds' (an alternative's device)
    assert _seeds().down(0.35) == "0.3" and _seeds().up(0.31) == "0.4"
    assert _dn().binomial_se(99.1) == pytest.approx(100 * math.sqrt(0.991 * 0.009 / 10_000))
    assert _m().gap_closed(1.0, 0.5, 0.0) == 0.5 and _m().t95_one_sided(np.int64(2)) == 2.92
    assert _lam().kind(0.5, 0) == "chaotic" and _lam().counts(np.array([0, 2, 2])) == {
        "periodic": 1, "periodic (period not found)": 0, "torus": 2, "chaotic": 0, "undecided": 0}
    assert _f4().runs([1.0, 1.00025, 1.1]) == [2, 1]
    assert _st().plateau_summary([{"fraction": "1/4", "beta_lo": 1.0, "beta_hi": 1.1}]).startswith("1/4")
    assert _st().full_numbers(None) == {} and _st().beyond_full_numbers(None) == {}
    from mfattn.implicit import claims_deq_prose

    glue = claims_deq_prose.variant_glue(S("deq", var_naive_loss=NAN))
    assert glue["full-naive-loss-ratio"] == "n/a"     # a NaN loss is not stored: no ratio, no comparison
    assert _seeds().seeds_of({"a_seeds": [1.0, 2.0], "b_seeds": 3}) == 2   # an int ending _seeds is a count


def test_a_nan_crossing_is_no_crossing_as_documented():
    """b0730, b0732 (documented): the beyond section stores "no crossing" as NaN (beyond_numbers reads it as None);
    the Neimark-Sacker and torus-birth rules read a NaN crossing as none found: fails, as for None."""
    from mfattn.dynamics import claims_birth

    for ns in (NAN, None):
        assert _b().neimark_sacker_at(0.01)(S("dmft", ns_beta=ns)) == "fails"
        assert claims_birth.birth_at(10, 0.1)(S("dmft", ns_beta=ns)) == "fails"
    assert _b().neimark_sacker_at(0.01)(_stored("dmft")) == "holds"


def test_a_threshold_moved_past_its_range_is_an_alternative_that_cannot_decide():
    """A threshold moved by its noise past the rule's range (a band below 1) is listed as 'cannot decide', never an
    error that stops the chapter's verdicts."""
    from mfattn.companion.premises import Threshold, threshold_alternatives

    alts = threshold_alternatives(lambda band: _x().one_sided_rule(band=band),
                                  (Threshold("band", 1.5, "convention", "a factor of 1.5 either way is roughly equivalent",
                                            noise=1.0),), {})
    with pytest.raises(Undecidable, match="band moved to 0.5"):
        alts[0].rule({})
    assert alts[1].rule({**{f"loss_ratio_{d}_{p}": 1.2 for d in (10, 50) for p in (2, 5, 10, 25)}}) == "holds"


def test_every_claim_still_decides_the_stored_numbers_as_the_ledger_says():
    """The guard, the checked thresholds and the exemptions leave every stored verdict as it is (verdicts --check)."""
    from mfattn.companion import ledger

    stored = ledger.read_ledger("full")
    if not stored:
        pytest.skip("no stored ledger")
    decided = verdicts.redecide(ROOT)
    differ = [cid for cid, d in decided.items() if stored.get(cid, {}).get("verdict") != d["verdict"]]
    assert not differ, differ
