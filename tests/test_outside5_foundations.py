"""What the fifth outside table of hostile calls (part A) found in the fixed-point solver (mfattn.deq), the Ising
foundation (mfattn.ising) and chapter 1's studies and claims (mfattn.meanfield): each row (its id) refused at the
boundary by one exception whose message names the parameter (before: a result for input outside the documented domain,
an error from inside numpy/torch, a loop without a work budget or an allocation without a check), and the rows whose
behaviour is the documented one (a KeyError for a number a stored summary lacks: the verdicts read "not tested")."""

from __future__ import annotations

import functools
import json
import math
import warnings

import numpy as np
import pytest
import torch

from mfattn import deq, ising
from mfattn.companion import store, verdicts, work
from mfattn.meanfield import accuracy, families, field_width, finite_size, stress
from mfattn.meanfield import claims as mclaims
from mfattn.meanfield import claims_ising_betas as cibetas
from mfattn.meanfield import claims_ising_sizes as cisizes
from mfattn.meanfield import claims_ising_widths as ciwidths


@pytest.fixture(autouse=True)
def _default_budgets(monkeypatch):
    monkeypatch.delenv("MFATTN_MAX_WORK", raising=False)
    warnings.simplefilter("ignore", ising.MeanFieldWarning)


J4 = ising.sk_couplings(4, 0.5, 0)
H4 = np.random.default_rng(1).normal(0, 0.3, 4)
JV = np.random.default_rng(0).normal(size=(4, 4, 2, 2)) * 0.1
JV = (JV + JV.transpose(1, 0, 3, 2)) / 2
JV[np.arange(4), np.arange(4)] = 0
X2, P2 = np.ones((4, 2)), np.eye(2)
Z0 = torch.zeros(2, 4, dtype=torch.float64)
JOSC = np.array([[0.0, -3.0], [-3.0, 0.0]])   # a period-2 cycle of the undamped update


def _contraction_map():
    A = deq.linear_contraction(4, 0.5, generator=torch.Generator().manual_seed(0))
    return lambda z: z @ A.T + 1.0


def _adjoint(vjp):
    """deq_fixed_point's implicit backward with a closed-form adjoint ``vjp`` (the rows' layer)."""
    W = torch.nn.Parameter(deq.linear_contraction(4, 0.5, generator=torch.Generator().manual_seed(1)))
    z, _ = deq.deq_fixed_point(lambda z: z @ W.T + 1.0, Z0, params=[W], vjp=vjp)
    z.sum().backward()
    return W.grad


@functools.lru_cache(maxsize=None)
def _cmp():
    return accuracy.compare_mean_field(4, [0.5, 1.0], 2, max_iter=200)


@functools.lru_cache(maxsize=None)
def _sweep(methods=("naive", "tap", "adaptive_tap")):
    return accuracy.damping_sweep(4, [0.5, 1.0], 2, [0.5], methods=methods, budget=50)


def _cut():
    c = _cmp()
    return accuracy.Comparison(("tap",), *(getattr(c, f) for f in list(c.__dataclass_fields__)[1:]))


def _runs(**fields):
    row = {"stuck_converged": [[True]], "stuck_positive": [[True]], "kicked_converged": [[True]],
           "kicked_positive": [[True]], "kicked_m": [[0.0]]}
    return {"by_method": {"naive": {**row, **fields}}}


def _family(**entry):
    ok = {"rmse_m": [0.1], "converged": [True]}
    return {"families": {"ferro": {"naive": ok, "tap": ok, "tap_site": ok, "adaptive_tap": ok, **entry}}}


def _first(**keys):
    m = {"first_any": 0.5, "first_any_instances": 1}
    for mode in ("relaxing", "stalled", "unstable"):
        m.update({f"first_{mode}": None, f"first_{mode}_instances": 0})
    return {**m, **keys}


ROWS = [
    # mfattn.deq
    pytest.param(lambda: deq.solve(_contraction_map(), Z0, memory=2**40), ValueError,
                 r"^memory makes its buffers need [\d,]+ bytes", id="a0008"),
    pytest.param(lambda: deq.solve(lambda z: 0.5 * z + 1, torch.zeros(2, 4, dtype=torch.bfloat16), method="broyden"),
                 TypeError, r"^z0 must be float16, float32 or float64; got torch.bfloat16", id="a0022"),
    pytest.param(lambda: _adjoint(lambda zs: (lambda v: v.numpy())), TypeError,
                 r"^vjp\(z_star\) must return a function v -> J_fᵀ v returning a tensor; got ndarray", id="a0033"),
    pytest.param(lambda: _adjoint(lambda zs: (lambda v: v[:1])), ValueError,
                 r"^vjp\(z_star\) must return a function v -> J_fᵀ v of v's shape \(2, 4\); got \(1, 4\)", id="a0035"),
    pytest.param(lambda: deq.linear_contraction(4, 1e5, dtype=torch.float16), ValueError,
                 r"^rho must be at most the largest torch.float16 \(65504\); got 100000.0", id="a0041"),
    pytest.param(lambda: deq.linear_contraction(4, 0.5, generator=np.random.default_rng(0)), TypeError,
                 r"^generator must be a torch.Generator", id="a0042"),
    pytest.param(lambda: deq.SolverStats([3], [0.1], [True], [[0.1]]).summary(), TypeError,
                 r"^SolverStats.iterations must be a \(B,\) tensor \(as solve makes it\); got list", id="a0047"),
    pytest.param(lambda: deq.SolverStats(torch.tensor([], dtype=torch.long), torch.tensor([]),
                                         torch.tensor([], dtype=torch.bool), torch.zeros(0, 0),
                                         torch.tensor([], dtype=torch.bool)).summary(), ValueError,
                 r"^SolverStats.iterations is empty", id="a0048"),
    # mfattn.ising
    pytest.param(lambda: ising.exact_marginals(J4, H4, chunk=True), ValueError,
                 r"^chunk must be a positive integer; got True", id="a0070"),
    pytest.param(lambda: ising.naive_mean_field(JOSC, np.zeros(2), damping=1.0, m0=[0.5, 0.5], max_iter=10**15,
                                                on_fail="ignore"), ValueError,
                 r"^max_iter=1e\+15 makes naive_mean_field\(\) do .*MFATTN_MAX_WORK", id="a0087"),
    pytest.param(lambda: ising.tap(JOSC, np.zeros(2), damping=1.0, m0=[0.5, 0.5], max_iter=10**15, on_fail="ignore"),
                 ValueError, r"^max_iter=1e\+15 makes tap\(\) do .*MFATTN_MAX_WORK", id="a0088"),
    pytest.param(lambda: ising.adaptive_tap(JOSC * 0.9, np.zeros(2), damping=1.0, m0=[0.5, 0.5], max_iter=10**15,
                                            on_fail="ignore"), ValueError,
                 r"^max_iter=1e\+15 makes adaptive_tap\(\) do .*MFATTN_MAX_WORK", id="a0089"),
    pytest.param(lambda: ising.gaussian_vector_tap(JV, X2, P2, V=np.tile(np.eye(2), (4, 1, 1)), adapt=False),
                 ValueError, r"^V: Sigma\^-1 - V_i must be invertible at every site .*singular at site 0", id="a0101"),
    pytest.param(lambda: ising.gaussian_vector_tap(np.zeros((2, 2, 0, 0)), np.zeros((2, 0)), np.zeros((0, 0))),
                 ValueError, r"^J must describe at least one site of at least one dimension; got shape \(2, 2, 0, 0\)",
                 id="a0103"),
    pytest.param(lambda: ising.gaussian_vector_tap(np.zeros((0, 0, 2, 2)), np.zeros((0, 2)), P2), ValueError,
                 r"^J must describe at least one site", id="a0104"),
    pytest.param(lambda: ising.gaussian_closed_form(np.zeros((0, 0, 2, 2)), np.zeros((0, 2)), P2), ValueError,
                 r"^J must describe at least one site", id="a0105"),
    pytest.param(lambda: ising.gaussian_closed_form(np.zeros((2, 2, 0, 0)), np.zeros((2, 0)), np.zeros((0, 0))),
                 ValueError, r"^J must describe at least one site", id="a0106"),
    pytest.param(lambda: ising.gaussian_vector_check(3, 2, np.random.default_rng(0), trials=10**7), ValueError,
                 r"^trials=10000000 makes gaussian_vector_check\(\) do .*MFATTN_MAX_WORK", id="a0109"),
    # mfattn.meanfield.accuracy
    pytest.param(lambda: accuracy.compare_mean_field(4, [0.5], 1, methods=(["tap"],)), ValueError,
                 r"^methods must name at least one of .*unknown method\(s\) \[\['tap'\]\]", id="a0121"),
    pytest.param(lambda: accuracy.compare_mean_field(4, [0.5], 1, methods=({"tap"},)), ValueError,
                 r"^methods must name at least one of", id="a0122"),
    pytest.param(lambda: accuracy.damping_sweep(4, [0.5], 1, [0.5], methods=(["naive"],)), ValueError,
                 r"^methods must name at least one of", id="a0127"),
    pytest.param(lambda: accuracy.damping_sweep(4, [0.5], 1, [5e-324], methods=("naive",), budget=1), ValueError,
                 r"^dampings=5e-324 makes damping_sweep\(\) do inf .*MFATTN_MAX_WORK", id="a0128"),
    pytest.param(lambda: accuracy.damping_sweep(4, [0.5], 1, [1e-300], methods=("naive",), budget=1), ValueError,
                 r"^dampings=1e-300 makes damping_sweep\(\) do", id="a0129"),
    pytest.param(lambda: accuracy.damping_sweep(4, [0.5], 10**6, [0.5], methods=("naive",), budget=10**6), ValueError,
                 r"^instances=1000000 makes damping_sweep\(\) do", id="a0132"),
    pytest.param(lambda: accuracy.plefka_parameter(np.array([0.5, 1.0]), np.zeros((3, 4))), ValueError,
                 r"^beta of shape \(2,\) must broadcast against m\[\.\.\., 0\] of shape \(3,\)", id="a0137"),
    pytest.param(lambda: accuracy.plefka_parameter(0.5, np.zeros((2, 0))), ValueError,
                 r"^m must hold at least one spin on its last axis", id="a0138"),
    pytest.param(lambda: accuracy.plefka_parameter(-0.5, np.zeros(3)), ValueError,
                 r"^beta must hold inverse temperatures >= 0; got -0.5", id="a0139"),
    pytest.param(lambda: accuracy.plefka_parameter(1e200, np.zeros(3)), ValueError,
                 r"^beta up to 1e\+200 makes beta² overflow", id="a0140"),
    pytest.param(lambda: _cmp().mean_rmse("x"), ValueError, r"^which must be one of 'm', 'c'; got 'x'", id="a0149"),
    pytest.param(lambda: _cmp().mean_rmse(["m"]), ValueError, r"^which must be one of 'm', 'c'", id="a0150"),
    pytest.param(lambda: accuracy.summarise(_cmp(), 0.5, _sweep(), vector_roundoff={1e-15: 1, 1e-16: 2}), TypeError,
                 r"^vector_roundoff must be a pair of numbers", id="a0162"),
    pytest.param(lambda: accuracy.summarise(_cut(), 0.5, _sweep(("tap",))), ValueError,
                 r"^Comparison\.rmse_m must have shape \(1, 2, 2\)", id="a0164"),   # refused where it is built
    # mfattn.meanfield.families
    pytest.param(lambda: families.compare_families(24, 0.5, 10_000, families=("ferro",), methods=("naive",)),
                 ValueError, r"^instances=10000 makes compare_families\(\) do .*MFATTN_MAX_WORK", id="a0170"),
    pytest.param(lambda: families.compare_families(4, 0.5, 1, families=("ferro",), field_std=1e308, max_iter=50),
                 ValueError, r"^field_std=1e\+308 makes the fields overflow float64", id="a0172"),
    pytest.param(lambda: families.ratio_text({"families": []}, "tap"), TypeError,
                 r"^result\['families'\] must be a mapping", id="a0175"),
    pytest.param(lambda: families.ratio_text({"families": {"ferro": {}}}, "tap"), ValueError,
                 r"^result\['families'\]\['ferro'\] lacks the key\(s\) \['adaptive_tap', 'tap'\]", id="a0176"),
    pytest.param(lambda: families.table({"families": {}, "sk_matched": {}}), ValueError,
                 r"^result\['families'\] names no family", id="a0178"),
    pytest.param(lambda: families.table(_family(tap={"rmse_m": ["x"], "converged": [True]})), TypeError,
                 r"^result\['families'\]\['ferro'\]\['tap'\]\['rmse_m'\] must hold errors \(numbers\) or None; got 'x'",
                 id="a0179"),
    pytest.param(lambda: families.table({"families": 3}), TypeError, r"^result\['families'\] must be a mapping",
                 id="a0180"),
    # mfattn.meanfield.finite_size
    pytest.param(lambda: finite_size.line_by_size({4: "a"}, [0.5], 1, damping=0.5, budget=20), TypeError,
                 r"^ns must be a sequence of numbers of spins; got dict", id="a0183"),
    pytest.param(lambda: finite_size.line_by_size([4, 4], [0.5], 1, damping=5e-324, budget=1), ValueError,
                 r"^damping=5e-324 makes line_by_size\(\) do inf", id="a0184"),
    pytest.param(lambda: finite_size.table({"betas": [0.5], "by_n": {"4": 3}}), TypeError,
                 r"^result\['by_n'\]\['4'\] must be a mapping", id="a0189"),
    pytest.param(lambda: finite_size.table({"betas": "ab", "by_n": {}}), TypeError,
                 r"^result\['betas'\] must be a sequence of inverse temperatures", id="a0190"),
    # mfattn.meanfield.stress
    pytest.param(lambda: stress.breakdown_stress(4096, [0.5], 10, max_iter=20, methods=("adaptive_tap",)),
                 ValueError, r"^n=4096 makes breakdown_stress\(\) do .*MFATTN_MAX_WORK", id="a0192"),
    pytest.param(lambda: stress.breakdown_stress(4, [0.5], 1, max_iter=50, methods=(["naive"],)), ValueError,
                 r"^methods must name theories from .*; got \['naive'\]", id="a0193"),
    pytest.param(lambda: stress.breakdown_stress(4, {0.5: "a"}, 1, max_iter=50, methods=("naive",)), TypeError,
                 r"^betas must be a sequence of inverse temperatures; got dict", id="a0195"),
    pytest.param(lambda: stress.counts({**_runs(), "left": None}, "naive"), TypeError,
                 r"^stress\['left'\] must be a number", id="a0199"),
    pytest.param(lambda: stress.counts(_runs(stuck_converged=[[True], [True]]), "naive"), ValueError,
                 r"^stress\['by_method'\]\['naive'\]: the fields .* must have the same number of β", id="a0200"),
    pytest.param(lambda: stress.table({"by_method": {"naive": 3}}), TypeError,
                 r"^stress\['by_method'\]\['naive'\] must be a mapping", id="a0203"),
    pytest.param(lambda: stress.table({"by_method": ["naive"]}), TypeError, r"^stress\['by_method'\] must be a mapping",
                 id="a0204"),
    # mfattn.meanfield.field_width and figures
    pytest.param(lambda: field_width.field_width_study(3, 1, widths=(1e308,)), ValueError,
                 r"^widths\[0\]=1e\+308 makes the fields overflow float64", id="a0208"),
    pytest.param(lambda: __import__("mfattn.meanfield.figures", fromlist=["stability"]).stability(
        _cmp(), 0.5, _sweep(("tap",))), ValueError, r"^sweep must solve the comparison's methods", id="a0221"),
    # mfattn.meanfield.claims and its rules' helpers
    pytest.param(lambda: mclaims.failure_text(_first(first_any="x"), 3), TypeError,
                 r"^m\['first_any'\] must be a β \(a number\) or None", id="a0228"),
    pytest.param(lambda: mclaims.failure_text(_first(first_any=math.nan), 3), ValueError,
                 r"^m\['first_any'\] must be a finite β or None", id="a0229"),
    pytest.param(lambda: cibetas.per_beta_note({"betas": [0.5], "atap_by_beta": ["x"], "tap_by_beta": [1.0]}),
                 TypeError, r"^numbers\['atap_by_beta'\] must be a list of numbers, as the stored numbers hold it", id="a0245"),
    pytest.param(lambda: cibetas.per_beta_note({"betas": [0.5], "atap_by_beta": [math.nan], "tap_by_beta": [1.0]}),
                 ValueError, r"^s\['atap_by_beta'\] holds NaN", id="a0246"),
    pytest.param(lambda: cibetas.per_beta_note({"betas": "ab", "atap_by_beta": "ab", "tap_by_beta": "ab"}), TypeError,
                 r"^numbers\['betas'\] must be a list of numbers", id="a0247"),
    pytest.param(lambda: cibetas.ordered_every_beta({"betas": [0.5], "atap_c_by_beta": [math.nan],
                                                     "tap_c_by_beta": [2], "naive_c_by_beta": [3]}),
                 verdicts.Undecidable, r"^s\['atap_c_by_beta'\] holds NaN", id="a0249"),
    pytest.param(lambda: cibetas.ordering_beta_note({"betas": [0.5], "atap_c_by_beta": [1.0], "tap_c_by_beta": ["x"],
                                                     "naive_c_by_beta": [3]}), TypeError,
                 r"^numbers\['tap_c_by_beta'\] must be a list of numbers, as the stored numbers hold it", id="a0252"),
    pytest.param(lambda: cisizes.size_rows({"size_scan": []}), TypeError, r"^numbers\['size_scan'\] must be a mapping",
                 id="a0257"),
    pytest.param(lambda: ciwidths.width_text({"fw": [0.1]}, "tap", "naive"), TypeError, r"^numbers\['fw'\] must be a mapping",
                 id="a0260"),
    pytest.param(lambda: ciwidths.width_text({"fw": {"0.1": {"tap_m": "a", "naive_m": "b", "mean_abs_m": 0.3}}}, "tap",
                                             "naive"), TypeError,
                 r"^s\['fw'\]\['0.1'\]\['tap_m'\] must be a mean error \(a number\) or None; got 'a'", id="a0261"),
    pytest.param(lambda: ciwidths.with_widths(lambda s: "n", "tap", "naive")({"fw": {"0.1": 3}}), TypeError,
                 r"^s\['fw'\] must be a mapping", id="a0265"),
    pytest.param(lambda: ciwidths.with_widths(lambda s: 3, "tap", "naive")({}), TypeError,
                 r"^note must return text \(numbers -> str\); got int", id="a0266"),
]


@pytest.mark.parametrize("call, error, message", ROWS)
def test_the_row_is_refused_naming_its_parameter(call, error, message):
    with pytest.raises(error, match=message):
        call()


def test_a_family_of_30000_spins_is_refused_before_its_couplings_are_drawn(monkeypatch):   # a0169
    monkeypatch.setenv("MFATTN_MAX_BYTES", "2e9")
    with pytest.raises(ValueError, match=r"^n makes its buffers need 28,800,000,000 bytes .*MFATTN_MAX_BYTES"):
        families.family_couplings("ferro", 30000, 0.5, np.random.default_rng(0))
    assert families.family_couplings("ferro", 5, 0.5, np.random.default_rng(0)).shape == (5, 5)


def _planted(tmp_path, text: str):
    folder = tmp_path / "data" / "full" / "ising"
    folder.mkdir(parents=True)
    (folder / "summary.json").write_text(text)
    return tmp_path


@pytest.mark.parametrize("text, error, message", [
    pytest.param('{"n": 4}', ValueError, r"^the stored summary data/full/ising/summary.json lacks \['instances'",
                 id="a0233"),
    pytest.param("[1, 2]", store.RefusedFileError, r"summary.json: expected chapter 1's summary .*JSON list",
                 id="a0234"),
    pytest.param("[]", store.RefusedFileError, r"summary.json: expected chapter 1's summary .*JSON list", id="a0723"),
    pytest.param('"x"', store.RefusedFileError, r"summary.json: expected chapter 1's summary .*JSON str", id="a0724"),
])
def test_a_planted_summary_that_is_not_one_is_refused_naming_the_file(tmp_path, text, error, message):
    root = _planted(tmp_path, text)
    with pytest.raises(error, match=message):
        mclaims.stored_numbers(root)
    with pytest.raises(error, match=message):
        verdicts.decide_chapter(root, "ising")


def test_a_number_a_stored_summary_lacks_stays_a_key_error_naming_it():
    """Documented (a0227, a0248, a0254, a0256, a0258): the verdicts read a KeyError as "the stored numbers predate
    this claim's rule: not tested", and glue_full skips a summary entry written by older code."""
    for call, key in ((lambda: mclaims.failure_text({"first_any": 0.5}, 3), "first_relaxing"),
                      (lambda: cibetas.ordered_every_beta({"atap_c_by_beta": [1], "tap_c_by_beta": [2],
                                                           "naive_c_by_beta": [3]}), "betas"),
                      (lambda: cisizes.at_every_size({"size_scan": {"by_n": {"10": {}}, "betas": [0.5],
                                                                    "instances": 2}}), "tap_at_strong"),
                      (lambda: cisizes.size_rows({"size_scan": {"by_n": {"10": {}}}}), "betas"),
                      (lambda: ciwidths.width_text({"fw": {"0.1": {"tap_m": 1.0, "naive_m": 2.0}}}, "tap", "naive"),
                       "mean_abs_m")):
        with pytest.raises(KeyError, match=key):
            call()
    for doc in (mclaims.failure_text, cibetas.ordered_every_beta, cisizes.at_every_size, cisizes.size_rows,
                ciwidths.width_text):
        assert "KeyError" in doc.__doc__, doc.__name__


def test_the_ratio_of_a_family_without_a_pair_reads_nan_as_documented():   # a0174
    result = _family(tap={"rmse_m": [0.0], "converged": [True]})
    assert families.ratio_text(result, "tap") == "nan"
    assert 'reads "nan"' in families.ratio_text.__doc__


def test_the_loops_are_counted_as_they_cost():
    """The work registry counts n² per iteration of naive mean field and TAP, n³ of adaptive TAP (a0192: the stress
    study counted n² for both), each iteration at least its Python overhead (MIN_UNITS_PER_ITERATION), and every
    solve of a sweep at ceil(budget / damping) iterations; a max_iter of 10**8 on two spins (a0087-a0089: 5e12 units,
    some tens of minutes) is refused at the budget of a call made on its own (1e10), and so is 10**10."""
    least = work.MIN_UNITS_PER_ITERATION
    one = lambda key, **a: work.work_of(key, a)[1]  # noqa: E731
    assert one("mfattn.ising:naive_mean_field", J=np.zeros((2, 2)), max_iter=10**8) == 10**8 * least + 3 * least
    assert one("mfattn.ising:adaptive_tap", J=np.zeros((100, 100)), max_iter=10) == 13 * 100**3
    stuck = one("mfattn.meanfield.stress:breakdown_stress", n=4096, betas=[0.5], instances=1, max_iter=20,
                methods=("adaptive_tap",))
    assert stuck == (2 * 23 + 1) * 4096**3   # two runs of 20 inverses and the susceptibility, and the kick
    for solve in (ising.naive_mean_field, ising.tap, ising.adaptive_tap):
        for max_iter in (10**8, 10**10):
            with pytest.raises(ValueError, match=rf"^max_iter={max_iter} makes .*MFATTN_MAX_WORK"):
                solve(JOSC, np.zeros(2), max_iter=max_iter)


def test_valid_calls_still_work_and_give_the_same_numbers():
    r = deq.solve(_contraction_map(), Z0, memory=4)[1]
    assert r.summary()["converged_fraction"] == 1.0
    g = _adjoint(lambda zs: (lambda v: v @ deq.linear_contraction(4, 0.5, generator=torch.Generator().manual_seed(1))))
    assert g.shape == (4, 4) and torch.isfinite(g).all()
    assert deq.linear_contraction(4, 65504.0, dtype=torch.float16).isfinite().all()
    assert ising.exact_marginals(J4, H4, chunk=3).m.shape == (4,)
    assert ising.gaussian_vector_tap(JV, X2, P2, adapt=False).converged
    x = accuracy.plefka_parameter(np.array([[0.5], [1.0]]), np.full((2, 3, 4), 0.5))
    assert x.shape == (2, 3) and np.allclose(x[1], 0.5625)
    assert accuracy.summarise(_cmp(), 0.5, _sweep(), vector_roundoff=(1e-15, 1e-14))["vector_bound"] == 1e-14
    assert _cmp().mean_rmse("c").shape == (3, 2)
    sizes = finite_size.line_by_size([4], [0.5, 1.0], 1, damping=0.5, budget=20)   # a0187: a valid table, no crash
    assert finite_size.table(sizes).splitlines()[-1].endswith("| none |")
    run = stress.breakdown_stress(4, [0.5], 1, max_iter=50, methods=("naive",))
    assert stress.counts(run, "naive")["control"] + stress.counts(run, "naive")["met"] == 1
    fam = families.compare_families(4, 0.5, 1, families=("ferro",), max_iter=100)
    assert families.table(fam).count("\n") == 2 and families.ratio_text(fam, "tap") != "nan"
    stored = mclaims.stored_numbers(store.project_root())[0]
    assert cibetas.ordered_every_beta(stored) in verdicts.GRADES
    assert cibetas.per_beta_note(stored) and cisizes.size_rows(stored)
    assert json.dumps(mclaims.failure_text(_first(), 3))
