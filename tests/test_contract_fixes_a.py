"""The boundary checks added where the generated contract tests (issue 44 item 5) found a hostile value accepted
silently or refused by a deep error: each message names the parameter."""

from __future__ import annotations

import pytest

from contracts_strategies_a import onsager_data


def test_onsager_bound_names_its_data_sets_bins_and_steps():
    from mfattn.implicit import onsager_bound as ob

    train, test = onsager_data(0), onsager_data(10)
    with pytest.raises(TypeError, match=r"^data must be a mapping"):
        ob.site_variable(None, "g")
    with pytest.raises(ValueError, match=r"^test lacks the key\(s\) \['J', 'h', 'm', 'c', 'beta'\]"):
        ob.binned_bound(train, {}, "g", 3)
    with pytest.raises(ValueError, match=r"^bins must name at least one integer"):
        ob.range_bounds(train, test, "g", ())
    with pytest.raises(ValueError, match=r"^each entry of bins must be an integer >= 2; got 1"):
        ob.range_bounds(train, test, "g", (1, 5))
    with pytest.raises(ValueError, match=r"^steps must be a positive integer; got 2.5"):
        ob.two_part_stand_in(train, test, steps=2.5)
    with pytest.raises(ValueError, match=r"steps=1e\+15"):
        ob.two_part_stand_in(train, test, steps=10**15)
    with pytest.raises(ValueError, match=r"^seed must be an integer >= 0; got -1"):
        ob.two_part_stand_in(train, test, seed=-1)


def test_chapter_2s_stored_numbers_name_root_chapter_summary_s_and_key(tmp_path):
    from mfattn.implicit import claims_deq_numbers as cn
    from mfattn.implicit.claims_deq_onsager import fixed_effect_interval

    with pytest.raises(TypeError, match=r"^root must be the project folder \(a path\) or None; got int"):
        cn.deq_numbers(3)
    with pytest.raises(TypeError, match=r"^chapter must be a chapter's name .*; got int"):
        cn.full_numbers(tmp_path, 3)
    with pytest.raises(ValueError, match=r"^chapter must be a chapter's name .*; got '\.\./x'"):
        cn.save(tmp_path, "../x", {"a": 1.0})
    with pytest.raises(TypeError, match=r"^root must be a path"):
        cn.save(3, "deq", {"a": 1.0})
    with pytest.raises(TypeError, match=r"^summary must be a mapping"):
        cn.save(tmp_path, "deq", None)
    assert cn.save(str(tmp_path), "deq", {"a": 0.5}) == tmp_path / "data" / "full" / "deq" / "summary.json"
    assert cn.full_numbers(tmp_path, "deq") == {}
    s = {"gain_naive_d": [1.0, 2.0], "gain_naive_v": [1.0, 1.0]}
    effect, lo, hi = fixed_effect_interval(s)
    assert effect == pytest.approx(1.5) and hi - effect == pytest.approx(1.959964 / 2 ** 0.5)
    with pytest.raises(TypeError, match=r"^s must be the stored numbers \(a mapping.*\); got NoneType"):
        fixed_effect_interval(None)
    with pytest.raises(ValueError, match=r"^key 'gain_x' names no stored per-seed gain"):
        fixed_effect_interval(s, "gain_x")


def test_the_variant_table_formatters_name_rows_summary_and_alpha():
    from mfattn.implicit import variants

    for fn in (variants.markdown_table, variants.compare_to_blog, variants.seed_summary):
        with pytest.raises(TypeError, match=r"^rows must be a list of rows \(dicts\); got NoneType"):
            fn(None)
    for fn in (variants.summary_table, variants.compare_paired, variants.seeds_statement):
        with pytest.raises(TypeError, match=r"^summary must be a list of rows \(dicts\); got an entry of type str"):
            fn(["x"])
    with pytest.raises(ValueError, match=r"^alpha must be < 1; got 1.0"):
        variants.compare_paired([], alpha=1.0)
    with pytest.raises(ValueError, match=r"^alpha must be a finite number; got nan"):
        variants.compare_paired([], alpha=float("nan"))
    assert variants.compare_paired([]) == {"same": [], "different": [], "mixed": [], "untested": []}


def test_chapter_1s_formatters_name_their_result_and_summarise_its_numbers():
    from contracts_strategies_a import comparison, stored

    from mfattn.meanfield import accuracy, claims_ising_betas, claims_ising_sizes, families, finite_size, stress

    with pytest.raises(TypeError, match=r"^result must be a mapping \(dict\); got NoneType"):
        families.table(None)
    with pytest.raises(ValueError, match=r"^result lacks the key\(s\) \['families'\]"):
        families.ratio_text({}, "tap")
    with pytest.raises(ValueError, match=r"^result lacks the key\(s\) \['betas', 'by_n'\]"):
        finite_size.table({"ns": [3]})
    with pytest.raises(TypeError, match=r"^stress must be a mapping \(dict\); got str"):
        stress.table("x")
    for fn in (claims_ising_betas.per_beta_note, claims_ising_betas.ordered_every_beta,
               claims_ising_betas.ordering_beta_note, claims_ising_sizes.at_every_size, claims_ising_sizes.size_rows):
        with pytest.raises(TypeError, match=r"^s must be (a mapping \(dict\)|the stored numbers \(a mapping of names to numbers\)); got NoneType"):
            fn(None)
    with pytest.raises(ValueError, match=r"^s lacks the key\(s\) \['size_scan'\]"):
        claims_ising_sizes.size_rows({})
    assert claims_ising_betas.ordered_every_beta(stored("ising")) in ("holds", "partly", "fails")
    cmp, sweep = comparison()
    with pytest.raises(TypeError, match=r"^cmp must be a Comparison"):
        accuracy.summarise(None, 0.5, sweep)
    with pytest.raises(TypeError, match=r"^sweep must be a DampingSweep"):
        accuracy.summarise(cmp, 0.5, "x")
    with pytest.raises(ValueError, match=r"^beta must be a finite number; got nan"):
        accuracy.summarise(cmp, float("nan"), sweep)
    with pytest.raises(ValueError, match=r"^vector_dev must be >= 0; got -1.0"):
        accuracy.summarise(cmp, 0.5, sweep, vector_dev=-1.0)
    with pytest.raises(ValueError, match=r"^each entry of vector_roundoff must be a finite number; got inf"):
        accuracy.summarise(cmp, 0.5, sweep, vector_roundoff=(1e-12, float("inf")))
    got = accuracy.summarise(cmp, 0.55, sweep, vector_dev=1e-9)
    assert got["beta"] == 0.6 and got["vector_max_dev"] == 1e-9 and got["n"] == 4 and got["instances"] == 2


def test_the_manifest_and_chapter_1s_summary_name_kind_key_entry_modules_notebook_root_and_summary(tmp_path,
                                                                                                    monkeypatch):
    from mfattn.companion import manifest
    from mfattn.meanfield import claims

    monkeypatch.setenv("MFATTN_FIGURES", str(tmp_path / "figures"))
    with pytest.raises(ValueError, match=r"^kind must be one of 'manifest', 'results', 'runs'; got 'x'"):
        manifest.update("quick", 0, "x", "ising", None)
    with pytest.raises(TypeError, match=r"^key must be a string"):
        manifest.update("quick", 0, "runs", 3, None)
    with pytest.raises(TypeError, match=r"^entry must be a mapping"):
        manifest.update("quick", 0, "runs", "ising", "x")
    with pytest.raises(ValueError, match=r"^entry of a runs file lacks the field\(s\) \['status'\]"):
        manifest.update("quick", 0, "runs", "ising", {"time": "now"})
    manifest.update("quick", 0, "runs", "ising", {"status": "started"})
    assert manifest.read_runs("quick") == {"ising": {"status": "started"}}
    with pytest.raises(TypeError, match=r"^modules must be an iterable of module names \(a list, not a single string\); got NoneType"):
        manifest.digest_of(None, None)
    with pytest.raises(TypeError, match=r"^modules must be an iterable of module names \(a list, not a single string\); got str"):
        manifest.digest_of("mfattn.ising", None)
    with pytest.raises(TypeError, match=r"^notebook must be a path"):
        manifest.code_fingerprint(3)
    with pytest.raises(ValueError, match=r"^root must be an existing folder"):
        manifest.tracked_changes(tmp_path / "nowhere")
    with pytest.raises(TypeError, match=r"^root must be a path"):
        claims.save(3, {"n": 18})
    with pytest.raises(TypeError, match=r"^summary must be a mapping"):
        claims.save(tmp_path, None)
    with pytest.raises(TypeError, match=r"^root must be a path"):
        claims.full_numbers(3)
    assert claims.full_numbers(claims.save(str(tmp_path), {"n": 18}).parents[3]) == {"n": 18}


def test_chapter_1s_figures_name_cmp_sweep_title_b_and_damping_used():
    from contracts_strategies_a import comparison

    from mfattn.meanfield import figures

    cmp, sweep = comparison()
    with pytest.raises(TypeError, match=r"^cmp must be a Comparison \(compare_mean_field's result\); got NoneType"):
        figures.rmse(None, "t")
    with pytest.raises(TypeError, match=r"^title must be a string; got int"):
        figures.rmse(cmp, 3)
    with pytest.raises(ValueError, match=r"^b must be an integer in \[0, 3\]; got 4"):
        figures.scatter(cmp, 4)
    with pytest.raises(ValueError, match=r"^damping_used must be > 0 and <= 1; got 0.0"):
        figures.stability(cmp, 0.0, sweep)
    with pytest.raises(TypeError, match=r"^sweep must be a DampingSweep \(damping_sweep's result\); got str"):
        figures.damping("x")


def test_the_ledger_names_evidence_labels_entry_run_info_keep_decided_and_commit(tmp_path, monkeypatch):
    from mfattn.companion import ledger

    monkeypatch.setenv("MFATTN_FIGURES", str(tmp_path / "figures"))
    with pytest.raises(TypeError, match=r"^evidence must be an iterable of figure labels and test ids \(a list, not a single string\); got NoneType"):
        ledger.check_evidence(None, ["fig-x"])
    with pytest.raises(TypeError, match=r"^figure_labels must hold figure labels \(strings\); got an entry 3"):
        ledger.check_evidence(["fig-x"], [3])
    with pytest.raises(TypeError, match=r"^root must be a path"):
        ledger.check_evidence(["tests/test_x.py::test_y"], [], 3)
    assert ledger.check_evidence(["fig-x", "fig-y"], ["fig-x"]) == ["fig-y"]
    entry = ledger.make_entry("x-claim", "Someone 2024", "A claim.", "reproduced", ["fig-x"], how="holds if x > 1")
    with pytest.raises(TypeError, match=r"^entry must be a mapping \(dict\); got NoneType"):
        ledger.record("quick", None, chapter="ising", run_info={}, figure_labels=["fig-x"])
    with pytest.raises(TypeError, match=r"^run_info must be a mapping \(dict\); got str"):
        ledger.record("quick", entry, chapter="ising", run_info="x", figure_labels=["fig-x"])
    with pytest.raises(TypeError, match=r"^keep must be an iterable of claim ids \(a list, not a single string\); got NoneType"):
        ledger.prune("quick", "ising", None)
    with pytest.raises(TypeError, match=r"^decided must be a mapping \(dict\); got NoneType"):
        ledger.apply_decisions(None, "abc")
    with pytest.raises(ValueError, match=r"^decided\['x'\] lacks the key\(s\) \['chapter'"):
        ledger.apply_decisions({"x": {}}, "abc")
    with pytest.raises(TypeError, match=r"^commit must be the commit whose rules decided \(a string\); got int"):
        ledger.apply_decisions({}, 3)
    assert ledger.record("quick", entry, chapter="ising", run_info={}, figure_labels=["fig-x"])["chapter"] == "ising"
    assert ledger.prune("quick", "ising", []) == ["x-claim"]


def test_the_books_pages_notebooks_and_claims_name_chapters_cell_nb_path_claims_and_table_id(tmp_path):
    import nbformat

    from mfattn.companion import report_table, report_text, reproduce, verdicts

    with pytest.raises(TypeError, match=r"^chapters must be an iterable of chapter names \(a list, not a single string\); got NoneType"):
        report_text.report_markdown(None)
    with pytest.raises(TypeError, match=r"^chapters must be an iterable of chapter names \(a list, not a single string\); got str"):
        report_text.report_entries("ising")
    with pytest.raises(TypeError, match=r"^cell must be a notebook cell .*; got str"):
        reproduce.is_check_cell("x")
    with pytest.raises(TypeError, match=r"^nb must be a notebook .*; got NoneType"):
        reproduce.strip_notebook(None)
    with pytest.raises(ValueError, match=r"^path must be a notebook file; '.*nowhere.ipynb' does not exist"):
        reproduce.notebook_parameters(tmp_path / "nowhere.ipynb")
    with pytest.raises(TypeError, match=r"^claims must be a list of Claim objects; got an entry of type str"):
        verdicts.check_claims(["x"])
    with pytest.raises(TypeError, match=r"^table_id must be an HTML id .*; got 3"):
        report_table.table_html([], table_id=3)
    with pytest.raises(ValueError, match=r"^table_id must be an HTML id .*; got 'a b'"):
        report_table.table_html([], table_id="a b")
    cell = nbformat.v4.new_code_cell("x = 1")
    cell.metadata["tags"] = ["nbval-check-output"]
    assert reproduce.is_check_cell(cell) and not reproduce.is_check_cell(nbformat.v4.new_code_cell("y = 2"))


def test_what_records_into_a_chapter_run_names_run_claims_numbers_remedy_and_s():
    from mfattn.companion import verdicts
    from mfattn.implicit.claims_deq_prose import glue
    from mfattn.meanfield import claims

    with pytest.raises(TypeError, match=r"^run must be a ChapterRun \(an object with \.verdict\(\)\); got NoneType"):
        verdicts.record(None, [], None)
    with pytest.raises(TypeError, match=r"^run must be a ChapterRun \(an object with \.verdict\(\)\); got str"):
        verdicts.record_chapter("x", None, "ising")
    with pytest.raises(TypeError, match=r"^run must be a ChapterRun \(an object with \.number\(\)\); got NoneType"):
        claims.glue_full(None, None)
    with pytest.raises(TypeError, match=r"^run must be a ChapterRun \(an object with \.number\(\)\); got NoneType"):
        glue(None, {})

    class Run:
        def __init__(self):
            self.seen = {}

        def verdict(self, cid, *args, **kw):
            self.seen[cid] = args[2]

        def number(self, key, text):
            self.seen[key] = text

    with pytest.raises(TypeError, match=r"^claims must be a list of Claim objects; got str"):
        verdicts.record(Run(), "x", None)
    with pytest.raises(TypeError, match=r"^numbers must be the stored numbers \(a mapping\) or None; got str"):
        verdicts.record(Run(), [], "x")
    with pytest.raises(TypeError, match=r"^remedy must be a string"):
        verdicts.record(Run(), [], None, 3)
    with pytest.raises(TypeError, match=r"^s must be the stored numbers \(a mapping.*\); got NoneType"):
        glue(Run(), None)
    with pytest.raises(ValueError, match=r"^chapter must be one of .*; got 3"):
        verdicts.record_chapter(Run(), None, 3)
    run = Run()
    verdicts.record(run, verdicts.declared("ising"), None)
    assert set(run.seen.values()) == {"not tested"}


def test_redecide_and_decide_chapter_take_a_root_of_any_path_kind(tmp_path):
    from mfattn.companion import verdicts

    with pytest.raises(TypeError, match=r"^root must be a path \(a string or os.PathLike\); got int 3"):
        verdicts.redecide(3)
    with pytest.raises(TypeError, match=r"^root must be a path"):
        verdicts.decide_chapter(3, "ising")
    as_str, as_path = verdicts.redecide(str(tmp_path)), verdicts.redecide(tmp_path)   # str roots broke chapter 4
    assert as_str.keys() == as_path.keys() and {v["verdict"] for v in as_str.values()} == {"not tested"}


def test_deq_anderson_plains_readings_name_s():
    from mfattn.implicit.claims_deq_plain import damped_plain, damped_text

    with pytest.raises(TypeError, match=r"^s must be (a mapping \(dict\)|the stored numbers \(a mapping of names to numbers\)); got NoneType"):
        damped_plain(None)
    with pytest.raises(TypeError, match=r"^s must be (a mapping \(dict\)|the stored numbers \(a mapping of names to numbers\)); got str"):
        damped_text("x")
    assert damped_text({}) == ""


def test_the_chance_cosine_and_the_public_anderson_name_f_m_draws_seed_and_x0():
    import torch

    from mfattn.implicit.reference_solver import reference_anderson
    from mfattn.implicit.seed_numbers import chance_cosine

    f = torch.randn(2, 3, 4, generator=torch.Generator().manual_seed(0), dtype=torch.float64)
    with pytest.raises(ValueError, match=r"^f contains NaN or infinite entries"):
        chance_cosine(f.clone().fill_(float("nan")), f)
    with pytest.raises(TypeError, match=r"^m must be a real floating-point tensor; got dtype torch.int64"):
        chance_cosine(f, f.long())
    with pytest.raises(ValueError, match=r"^f and m must have the same shape"):
        chance_cosine(f, f[:1])
    with pytest.raises(ValueError, match=r"^draws must be a positive integer; got 0"):
        chance_cosine(f, f, draws=0)
    with pytest.raises(ValueError, match=r"^draws"):
        chance_cosine(f, f, draws=10**12)
    with pytest.raises(ValueError, match=r"^seed must be an integer >= 0; got 2.5"):
        chance_cosine(f, f, seed=2.5)
    got = chance_cosine(f, f, draws=20)
    assert 0 <= got["median"] <= got["q95"] <= 1
    with pytest.raises(ValueError, match=r"^x0 contains NaN or infinite entries"):
        reference_anderson(lambda z: 0.5 * z, torch.full((2, 3), float("inf")))
    x, res = reference_anderson(lambda z: 0.5 * torch.tanh(z) + 1.0, torch.zeros(2, 3, dtype=torch.float64), tol=1e-10)
    assert res[-1] < 1e-10 and torch.allclose(x, 0.5 * torch.tanh(x) + 1.0, atol=1e-8)


def test_check_grid_refuses_complex_values_instead_of_dropping_their_imaginary_part():
    import numpy as np

    from mfattn.companion.checks import check_grid

    with pytest.raises(TypeError, match=r"^test_betas must hold real numbers; got complex values"):
        check_grid("test_betas", np.array([0.2, 0.4]) + 1j)
    with pytest.raises(TypeError, match=r"^rhos must hold real numbers; got complex values"):
        check_grid("rhos", [0.5, 1 + 1j])
    assert check_grid("rhos", [0.5, 2]).tolist() == [0.5, 2.0]


def test_chapter_2_and_3s_figures_name_their_inputs():
    import numpy as np

    from mfattn.implicit import figures, figures_controls

    norms = np.ones((2, 17, 17))
    with pytest.raises(ValueError, match=r"^norms must have shape \(S, 17, 17\) .*; got \(2, 4, 4\)"):
        figures.couplings(np.ones((2, 4, 4)), [0, 1])
    with pytest.raises(ValueError, match=r"^norms must hold norms \(>= 0\); got a negative entry"):
        figures.early_frames(-norms, [0, 1])
    with pytest.raises(ValueError, match=r"^snap_steps must have one entry per frame of norms \(2\); got 3"):
        figures.coupling_animation(norms, [0, 1, 2])
    import matplotlib.pyplot as plt

    fig = plt.figure()
    with pytest.raises(ValueError, match=r"^vmax must be at least the largest norm"):
        figures.coupling_graph(fig.add_subplot(), norms[0], 0.5)
    plt.close(fig)
    with pytest.raises(TypeError, match=r"^ax must be a matplotlib Axes; got object"):
        figures.coupling_graph(object(), norms[0], 1.0)
    with pytest.raises(ValueError, match=r"^cm must be a \(10, 10\) matrix of counts"):
        figures.confusion(np.ones((3, 3), dtype=int))
    with pytest.raises(ValueError, match=r"^cm must hold whole numbers"):
        figures.confusion(np.full((10, 10), 2.5))
    with pytest.raises(ValueError, match=r"^settle contains NaN or infinite entries"):
        figures.settling([0, 1], [np.nan, 1.0])
    with pytest.raises(ValueError, match=r"^w must be a positive integer; got 0"):
        figures.running_mean(np.ones(4), 0)
    with pytest.raises(ValueError, match=r"^h lacks the key\(s\) \['loss'"):
        figures.mnist_training({}, 10)
    with pytest.raises(ValueError, match=r"^each entry of methods must be one of"):
        figures.solver_race({}, [0.5], ["newton"], 1e-4)
    with pytest.raises(ValueError, match=r"^race lacks the \(rho, method\) entries \[\(0.5, 'plain'\)\]"):
        figures.solver_race({}, [0.5], ["plain"], 1e-4)
    with pytest.raises(ValueError, match=r"^rho_show 0.7 is not in the study"):
        figures.transformer_steps({"distance": {0.5: np.ones((3, 2))}, "spread": {0.5: {}}}, [0.5], 0.7, 2, "t")
    with pytest.raises(ValueError, match=r"^steps must be the study's number of steps \(2\); got 5"):
        figures.transformer_steps({"distance": {0.5: np.ones((3, 2))}, "spread": {0.5: {}}}, [0.5], 0.5, 5, "t")
    with pytest.raises(ValueError, match=r"^each entry of inputs must be one of"):
        figures.onsager({"m_err_naive": [1.0]}, ["x"], [0.2], [0.2], "t")
    with pytest.raises(TypeError, match=r"^test_betas must be a floating-point array; got dtype int64"):
        figures.onsager({"m_err_naive": [1.0]}, [], np.array([1, 2]), [0.2], "t")
    with pytest.raises(ValueError, match=r"^res lacks corr_err_g or m_err_g"):
        figures.onsager({"m_err_naive": [1.0]}, ["g"], [0.2], [0.2], "t")
    with pytest.raises(TypeError, match=r"^inputs must be a list of net inputs; got None"):
        figures_controls.onsager_with_controls({"m_err_naive": [1.0]}, None, [0.2], [0.2], "t")
    with pytest.raises(ValueError, match=r"^count lacks the key\(s\) \['flops'\]"):
        figures_controls.tap_cost_with_count({"Nd": [], "seconds": [], "fit": [], "exponent": 3.0}, {"Nd": []})
    assert figures.running_mean(np.arange(5.0), 2).tolist() == [0.5, 1.5, 2.5, 3.5]


def test_a_claim_names_its_evidence_and_examples():
    from mfattn.companion.verdicts import Claim, ClaimError

    fields = dict(id="x-claim", source="S 2024", claim="A claim.", measured="x", how="holds if x > 1",
                  rule=lambda s: "holds" if s["x"] > 1 else "fails", examples={"holds": {"x": 2}, "fails": {"x": 0}})
    with pytest.raises(ClaimError, match=r"^claim 'x-claim': evidence must be a tuple of figure labels and test ids; "
                                         r"got None"):
        Claim(evidence=None, **fields)
    with pytest.raises(ClaimError, match=r"^claim 'x-claim': examples must be a mapping of grade -> numbers; got str"):
        Claim(evidence=("fig-x",), **{**fields, "examples": "x"})
    assert Claim(evidence=["fig-x"], **fields).evidence == ("fig-x",)


def test_damped_plain_converged_names_layer_x_damping_max_iter_and_tol():
    import torch

    from mfattn.implicit.meanfield import MeanFieldAttention
    from mfattn.implicit.seed_numbers import damped_plain_converged

    layer = MeanFieldAttention(3, 2, generator=torch.Generator().manual_seed(0)).double()
    x = torch.randn(2, 3, 2, generator=torch.Generator().manual_seed(1), dtype=torch.float64)
    with pytest.raises(TypeError, match=r"^layer must be a mean-field attention layer"):
        damped_plain_converged(None, x, 0.5)
    with pytest.raises(ValueError, match=r"^damping must be > 0 and <= 1; got 1.5"):
        damped_plain_converged(layer, x, 1.5)
    with pytest.raises(ValueError, match=r"^x contains NaN or infinite entries"):
        damped_plain_converged(layer, x.clone().fill_(float("nan")), 0.5)
    with pytest.raises(ValueError, match=r"^tol must be > 0; got 0.0"):
        damped_plain_converged(layer, x, 0.5, tol=0.0)
    assert damped_plain_converged(layer, x, 0.5, max_iter=200).dtype == bool


def test_reaction_cosines_names_digits_variant_and_runs():
    from mfattn.implicit.correction_on_m import reaction_cosines

    with pytest.raises(ValueError, match=r"^digits must be an integer in \[12, 10000\]; got 5"):
        reaction_cosines(5, "m", {})
    with pytest.raises(ValueError, match=r"^digits must be an integer in \[12, 10000\]; got 1000000000000"):
        reaction_cosines(10**12, "m", {})
    with pytest.raises(ValueError, match=r"^variant must be one of 'm', 'blog'; got 'g'"):
        reaction_cosines(20, "g", {})
    with pytest.raises(TypeError, match=r"^runs must be the restored runs"):
        reaction_cosines(20, "m", "x")


def test_the_over_training_readings_name_result_images_and_steps():
    import torch

    from mfattn.implicit.reference_solver import reference_converged_over_training
    from mfattn.implicit.stability import spectral_radius_over_training

    class Kept:
        def weight_steps(self):
            return [0, 5]

    images = torch.zeros(2, 1, 28, 28)
    for fn in (spectral_radius_over_training, reference_converged_over_training):
        with pytest.raises(TypeError, match=r"^result must be a TrainResult; got NoneType"):
            fn(None, images, [0])
        with pytest.raises(ValueError, match=r"^images contains NaN or infinite entries"):
            fn(Kept(), images.clone().fill_(float("nan")), [0])
        with pytest.raises(TypeError, match=r"^images must be a real floating-point tensor; got dtype torch.int64"):
            fn(Kept(), images.long(), [0])
        with pytest.raises(ValueError, match=r"^images must have shape \(\*, 1, 28, 28\); got \(1, 2, 1, 28, 28\)"):
            fn(Kept(), images[None], [0])
        with pytest.raises(ValueError, match=r"^steps must name"):
            fn(Kept(), images, [])


def test_variant_rows_names_its_results():
    from mfattn.implicit.variants import variant_rows

    with pytest.raises(TypeError, match=r"^results must be a mapping of variant name -> TrainResult; got NoneType"):
        variant_rows(None)
    with pytest.raises(TypeError, match=r"^results must map each variant to a TrainResult; 'blog' maps to str"):
        variant_rows({"blog": "x"})
    assert variant_rows({}) == []


def test_save_per_unit_names_root_seed_offsets_and_its_mappings(tmp_path):
    from mfattn.implicit.claims_transformer_numbers import save_per_unit

    good = dict(seed=0, seed_offsets=[0], draws={0: {}}, spread_by_rho={}, train_betas=[0.3], test_betas=[0.3],
                scaling={"Nd": [8.0], "seconds": [1.0], "fit_min_nd": 8.0, "exponent": 3.0})
    with pytest.raises(TypeError, match=r"^root must be a path"):
        save_per_unit(3, **good)
    with pytest.raises(ValueError, match=r"^seed must be an integer >= 0; got nan"):
        save_per_unit(tmp_path, **{**good, "seed": float("nan")})
    with pytest.raises(ValueError, match=r"^draws must be keyed by seed_offsets \[1\]; got \[0\]"):
        save_per_unit(tmp_path, **{**good, "seed_offsets": [1]})
    with pytest.raises(TypeError, match=r"^spread_by_rho must be a mapping \(dict\); got NoneType"):
        save_per_unit(tmp_path, **{**good, "spread_by_rho": None})
    with pytest.raises(ValueError, match=r"^test_betas must contain only finite numbers"):
        save_per_unit(tmp_path, **{**good, "test_betas": [float("nan")]})


def test_train_floor_names_seed_epochs_lr_and_limits_before_reading_mnist():
    from mfattn.implicit.feature_floor import train_floor

    with pytest.raises(ValueError, match=r"^seed must be an integer >= 0; got 2.5"):
        train_floor("mean", 2.5)
    with pytest.raises(ValueError, match=r"^lr must be a finite number; got nan"):
        train_floor("mean", lr=float("nan"))
    with pytest.raises(ValueError, match=r"^train_limit must be a positive integer; got 0"):
        train_floor("mean", train_limit=0)
    with pytest.raises(ValueError, match=r"epochs=1e\+15"):
        train_floor("mean", epochs=10**15, train_limit=8)
