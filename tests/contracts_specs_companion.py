"""Contract specs of ``mfattn.companion`` (the book's machinery), see contracts_registry.py.

Functions that read or write the output, cache and ledger folders are exempt from generation (a forked child
must not write into the test session's folders); their bad inputs are the rows of tests/test_bad_inputs.py
(``_companion_rows``, the CLI rows) and of tests/test_manifest.py, tests/test_ledger.py.
"""

from __future__ import annotations

from hypothesis import strategies as st

from contracts_registry import Exempt, Spec

K = "mfattn.companion."
FILES = "reads or writes the output/cache/ledger folders: bad inputs in tests/test_bad_inputs.py (_companion_rows)"
CLI = "a command-line entry point: its user errors are the CLI rows of tests/test_bad_inputs.py"
NOARGS = "takes no arguments (reads the environment or the checkout)"
RESULT = "a result container the package builds (its fields are outputs, not inputs)"
CHAPTERS = ["ising", "deq", "transformer", "structural", "designs", "dmft"]


def _entry(d):
    return dict(claim_id="x-claim", source="Someone 2024, Fig. 1", claim="A claim.",
                verdict=d(st.sampled_from(["reproduced", "not reproduced", "reproduced with differences"])),
                evidence=["fig-x"], how="holds if x > 1 (the paper's tolerance)")


SPECS = {
    K + "profiles:get_profile": Spec(lambda d: {"chapter": d(st.sampled_from(CHAPTERS)), "profile": "quick"}),
    K + "profiles:check_profile": Spec(lambda d: {"profile": d(st.sampled_from(["quick", "full"]))}),
    K + "profiles:chapter_info": Spec(lambda d: {"chapter": d(st.sampled_from(CHAPTERS))}),
    K + "profiles:resolve_device": Spec(lambda d: {"device": "cpu"}),
    K + "profiles:check_override": Spec(lambda d: {"chapter": "dmft", "key": "steps", "value": d(st.integers(1, 9))},
                                        domain={"value": "int>=1"}, names={"key": ("size",), "value": ("steps",)}),
    K + "profiles:Chapter": Exempt(RESULT + ": the fixed table CHAPTERS holds them; chapter_info and get_profile "
                                            "(generated) check a chapter's name"),
    K + "machine:cpu_model": Spec(lambda d: {}),
    K + "citation:figure_citation": Spec(lambda d: {"label": "fig-dmft-bifurcation", "profile": "full"}),
    K + "citation:figures_table": Exempt(FILES),
    K + "citation:build_statement": Spec(lambda d: {}),   # no arguments: the valid call alone
    K + "datasets:dataset_files": Spec(lambda d: {"name": "mnist"}),
    K + "datasets:mirror_env": Spec(lambda d: {"name": "mnist"}),
    K + "datasets:offline": Spec(lambda d: {}),   # no arguments (it reads $MFATTN_OFFLINE): the valid call alone
    K + "datasets:mirror_urls": Spec(lambda d: {"name": "mnist", "file": "train-labels-idx1-ubyte.gz"}),
    K + "datasets:folders": Spec(lambda d: {"name": "mnist"}),
    K + "datasets:DataSet": Exempt("a frozen description of a data set the package declares (DATASETS, package "
                                   "constants, never built from user input); the functions taking a data set's name "
                                   "and file (fetch, locate, check, dataset_files, mirror_urls) are generated"),
    K + "datasets:locate": Exempt(FILES),
    K + "datasets:check": Exempt(FILES),
    K + "datasets:main": Exempt(CLI),
    K + "ledger_entries:make_entry": Spec(_entry, skip=("how", "note", "measured", "source", "claim")),
    K + "ledger_text:anchor": Spec(lambda d: {"claim_id": d(st.sampled_from(["x-claim", "dmft-fig3"]))}),
    K + "ledger_text:citation": Spec(lambda d: {"e": {"claim_id": "x-claim", "verdict": "reproduced"}}),
    K + "ledger_entries:evidence_basis": Spec(lambda d: {"evidence": ["fig-x"], "profile": "quick", "stored_full": []}),

    K + "store:config_hash": Spec(lambda d: {"config": {"beta": d(st.floats(0, 2)), "n": 3}}, domain={"length": "int>=1"}),
    K + "recurring_rules:below": Spec(lambda d: {"key": "x", "holds": d(st.floats(0, 1))}),
    K + "recurring_rules:above": Spec(lambda d: {"key": "x", "holds": d(st.floats(0, 1))}),
    K + "recurring_rules:identity_examples": Spec(lambda d: {}, call=lambda fn, kw: fn("a", "b")),
    K + "recurring_rules:identity": Spec(lambda d: {"tol": 1e-12, "near": 1e-6}, call=lambda fn, kw: fn("a", **kw),
                                         domain={"tol": ">0", "near": ">0"}),
    K + "verdicts:declared": Spec(lambda d: {"chapter": d(st.sampled_from(CHAPTERS))}),
    K + "claim:Decision": Exempt(RESULT + ": Claim.decide builds it; record, decide_chapter and redecide, "
                                          "which make and use them, are generated"),
    K + "reproduce:ChapterOutcome": Exempt(RESULT + ": reproduce/refresh_outputs build it after a notebook ran"),
    # --- the premises of a verdict (issue 40)
    K + "premises:normalise": Spec(lambda d: {"text": d(st.text(max_size=40))}),
    K + "premises:paper_text": Spec(lambda d: {"paper": d(st.sampled_from(["bal2021", "singh2023", "poclopez2024"]))}),
    K + "premises:papers_dir": Spec(lambda d: {}),
    K + "premises:quote_found": Spec(lambda d: {"quote": _quote(d), "chapter": d(st.sampled_from(CHAPTERS))}),
    K + "premises:Quote": Spec(lambda d: {"section": "1. Introduction", "text": d(st.sampled_from(
        ["a fixed point", "mean field theory"])), "translation": "", "code": "", "paper": ""}),
    K + "premises:Threshold": Spec(lambda d: {"name": "tol", "value": d(st.floats(0.1, 2)), "basis": "seed spread",
                                              "reason": "the seed-to-seed spread of the gain is below it",
                                              "check": lambda s: (True, ""), "noise": d(st.floats(0.01, 0.1))},
                                   domain={"noise": ">0"}),
    K + "premises:Alternative": Spec(lambda d: {"name": "t-interval", "kind": d(st.sampled_from(
        ["statistic", "threshold", "reading", "unit"])), "rule": lambda s: "holds"}),
    K + "premises:Spread": Spec(lambda d: {"unit": "seed", "values": lambda s: {"x": [1.0]}, "one_suffices": ""}),
    K + "premises_units:over_units": Spec(lambda d: {"deltas": "d", "decide": lambda s, e, lo, hi: "holds",
                                               "variances": d(st.sampled_from([None, "v"])), "unit": "seed"}),
    K + "premises:sensitivity": Spec(lambda d: {"primary": d(st.sampled_from(GRADES)), "alternatives": _alternatives(d),
                                                "numbers": {"x": d(st.floats(0, 1))}, "verdict_of": lambda g: g}),
    K + "premises:spread_of": Spec(lambda d: {"spread": _spread(d), "numbers": {"x_seeds": [d(st.floats(0, 1)), 0.2,
                                                                                         float("nan")]}}),
    K + "premises:one_unit_cap": Spec(lambda d: {"spread": {"unit": "seed", "n": d(st.integers(1, 9)),
                                                            "one_suffices": d(st.sampled_from(["", "an identity"]))}}),
    K + "stats:t_interval": Spec(lambda d: {"values": [d(st.floats(-1, 1)), 0.1, -0.2]}),
    K + "stats:sign_test": Spec(lambda d: {"values": [d(st.floats(-1, 1)), 0.1, -0.2]}),
    K + "stats:signed_rank_test": Spec(lambda d: {"values": [d(st.floats(-1, 1)), 0.1, -0.2, 0.3]},
                                       sizes={"values": [0.1] * 10**6}),
    K + "stats:exact_paired_test": Spec(lambda d: {"only_a": d(st.integers(0, 300)), "only_b": d(st.integers(0, 300))},
                                        domain={"only_a": "int>=0", "only_b": "int>=0"},
                                        sizes={"only_a": 10**15}),
    K + "recurring_rules:identity_claim": Spec(lambda d: {}, call=lambda fn, kw: fn("a", "b")),
    # --- a rule reads finite numbers only (outside table 5)
    K + "finite_reads:FiniteNumbers": Spec(lambda d: {"numbers": {"x": d(st.floats(0, 1)), "y": [0.1, 0.2]}}),
    K + "finite_reads:finite_numbers": Spec(lambda d: {"numbers": {"x": d(st.floats(0, 1))}}),
    K + "finite_reads:raw_numbers": Spec(lambda d: {"numbers": {"x": d(st.floats(0, 1))}}),
    K + "finite_reads:finite_rule": Spec(lambda d: {"rule": lambda s: "holds"}),
    K + "finite_reads:finite_factory": Spec(lambda d: {"rule_at": lambda tol: (lambda s: "holds")}),
    K + "checks_scalars:check_edges": Spec(lambda d: {"low_name": "lo", "low": d(st.floats(0, 0.4)), "high_name": "hi",
                                                      "high": d(st.floats(0.5, 1))}, skip=("low_name", "high_name"),
                                           names={"low": ("lo",), "high": ("hi",)}),
}


GRADES = ("holds", "partly", "fails")


def _alternatives(d):
    from mfattn.companion.premises import Alternative

    return [Alternative("t-interval", "statistic", lambda s: "holds"),
            Alternative("tol up", "threshold", lambda s: d(st.sampled_from(GRADES)))]


def _spread(d):
    from mfattn.companion.premises import Spread

    return Spread("seed", lambda s: {"x": s["x_seeds"]})


def _quote(d):
    from mfattn.companion.premises import Quote

    return Quote("1. Introduction", d(st.sampled_from(["a fixed point", "mean field theory"])))


for _name in ("quote_text", "robustness_text", "thresholds_text", "alternatives_text", "spread_text"):
    SPECS[K + "ledger_text:" + _name] = Spec(lambda d: {"e": {
        "quote": {"paper": "bal2021", "section": "1", "text": "a fixed point"}, "robustness": "fragile",
        "moved_by": ["t"], "alternatives": [{"name": "t", "kind": "statistic", "verdict": "reproduced"}],
        "thresholds": [{"name": "tol", "value": d(st.floats(0, 1)), "basis": "seed spread", "reason": "r"}],
        "spread": {"unit": "seed", "n": 2, "values": {"x": [0.1, 0.2]}}}})
SPECS[K + "ledger_entries:clean_premises"] = Spec(lambda d: {"claim_id": "x-claim", "premises": {
    "robustness": d(st.sampled_from(["robust", "fragile"])), "moved_by": [], "alternatives": []}})
for _key in ("reproduce:reproduce", "reproduce:refresh_outputs"):
    SPECS.setdefault(K + _key, Exempt("runs the chapter notebooks (papermill: minutes per chapter) and writes their "
                                      "outputs; its profile, chapters, seed and overrides are checked before any "
                                      "run (tests/test_bad_inputs.py, the reproduce rows and the CLI rows)"))

def _method_entry(d):
    """A method's entry of chapter 1's stored summary (summary["methods"][name]): where it first failed, and how."""
    first = d(st.sampled_from([None, 0.8, 1.2]))
    stalled = d(st.sampled_from([None, first, 1.5]))
    return {"first_any": first, "first_any_instances": d(st.integers(1, 8)), "first_relaxing": first,
            "first_relaxing_instances": 2, "first_stalled": stalled, "first_stalled_instances": 1,
            "first_unstable": d(st.sampled_from([None, first])), "first_unstable_instances": 3}


SPECS["mfattn.meanfield.claims:failure_text"] = Spec(lambda d: {"m": _method_entry(d), "instances": d(st.integers(8, 64))},
                                                     domain={"instances": "int>=1"})
for _key in ("manifest:package_versions", "manifest:git_commit", "store:output_dir", "store:project_root"):
    SPECS[K + _key] = Spec(lambda d: {})   # no arguments (the environment, the checkout): the valid call alone


# --- the output folders' readers and writers, in temporary folders (issue 44 item 5) -------------------------------
from contracts_strategies_a import empty_dir, in_output, in_tmp, is_type, project_root, root_choice, tmpdir  # noqa: E402

PROFILE = dict(domain={"seed": "int>=0"}, call=in_output)


def _profile(d, **extra):
    return {"profile": d(st.sampled_from(["quick", "full"])), "seed": d(st.sampled_from([0, 1])), **extra}


SPECS.update({
    K + "manifest:figures_dir": Spec(_profile, **PROFILE),
    K + "manifest:read_manifest": Spec(_profile, check=is_type(dict), **PROFILE),
    K + "manifest:read_results": Spec(_profile, check=is_type(dict), **PROFILE),
    K + "manifest:read_runs": Spec(_profile, check=is_type(dict), **PROFILE),
    K + "manifest:check": Spec(_profile, check=is_type(list), **PROFILE),
    K + "manifest:update": Spec(lambda d: _profile(d, kind="runs", key=d(st.sampled_from(["ising", "deq"])),
                                                   entry=d(st.sampled_from([None, {"status": "started"}]))),
                                **PROFILE),
    K + "manifest:mark_run": Spec(lambda d: _profile(d, chapter=d(st.sampled_from(["ising", "deq"])),
                                                     status=d(st.sampled_from(["started", "finished"]))),
                                  **PROFILE),
    K + "manifest:digest_of": Spec(lambda d: {"modules": d(st.sampled_from([["mfattn.ising"], ["mfattn.ising",
                                                                                              "mfattn.deq"]])),
                                              "notebook": d(st.sampled_from([None, "book/01_ising_tap.ipynb"]))}),
    K + "manifest:code_fingerprint": Spec(lambda d: {"notebook": d(st.sampled_from([None, "book/01_ising_tap.ipynb"]))}),
    K + "manifest:tracked_changes": Spec(lambda d: {"root": project_root()}, check=is_type(str)),
    "mfattn.meanfield.claims:full_numbers": Spec(lambda d: {"root": root_choice(d)}, check=is_type(dict)),
    "mfattn.meanfield.claims:stored_numbers": Spec(lambda d: {"root": root_choice(d)}),
    "mfattn.meanfield.claims:save": Spec(lambda d: {"root": tmpdir(), "summary": {"beta": d(st.floats(0, 1)),
                                                                                  "betas": [0.1, 0.2], "n": 18}},
                                         call=in_tmp),
})


def _figure(d, **which):
    from contracts_strategies_a import comparison

    cmp, sweep = comparison()
    parts = {"cmp": cmp, "sweep": sweep, "title": "SK, n = 4", "b": d(st.integers(0, len(cmp.betas) - 1)),
             "damping_used": d(st.sampled_from([0.5, 1.0]))}
    return {k: parts[k] for k in which["names"]}


def _closing(fn, kwargs):
    import matplotlib.pyplot as plt

    fig = fn(**kwargs)
    plt.close(fig)
    return type(fig).__name__


# chapter 1's figures on a tiny comparison and damping sweep (contracts_strategies_a.comparison)
SPECS.update({
    "mfattn.meanfield.figures:rmse": Spec(lambda d: _figure(d, names=("cmp", "title")), call=_closing),
    "mfattn.meanfield.figures:scatter": Spec(lambda d: _figure(d, names=("cmp", "b")), domain={"b": "int>=0"},
                                             sizes={"b": 10**9}, call=_closing),
    "mfattn.meanfield.figures:stability": Spec(lambda d: _figure(d, names=("cmp", "damping_used", "sweep")),
                                               domain={"damping_used": "(0,1]"}, call=_closing),
    "mfattn.meanfield.figures:damping": Spec(lambda d: _figure(d, names=("sweep",)), call=_closing),
})


# the ledger's writers (in temporary output folders: $MFATTN_FIGURES moves the ledger there too)
def _ledger_entry(d):
    from mfattn.companion.ledger import make_entry

    return make_entry("x-claim", "Someone 2024, Fig. 1", "A claim.", d(st.sampled_from(["reproduced", "not reproduced"])),
                      ["fig-x"], how="holds if x > 1 (the paper's tolerance)")


#: A test id that exists (apply_decisions refuses evidence that is neither a stored full-profile figure nor a test).
_TEST_ID = "tests/test_contract_fixes_a.py::test_onsager_bound_names_its_data_sets_bins_and_steps"


def _decided(d):
    return {"x-claim": {"chapter": "ising", "source": "Someone 2024, Fig. 1", "claim": "A claim.",
                        "evidence": [_TEST_ID], "note": "",
                        "verdict": d(st.sampled_from(["confirmed", "refuted"])), "numbers": {"x": 1.5},
                        "how": "holds if x > 1 (the paper's tolerance)", "measured": "x", "origin": "ours"}}


SPECS.update({
    K + "ledger_entries:check_evidence": Spec(lambda d: {"evidence": ["fig-x", d(st.sampled_from(
        ["tests/test_ledger.py::test_nothing_here", "fig-y"]))], "figure_labels": ["fig-x"], "root": root_choice(d)},
        check=is_type(list)),
    K + "ledger:record": Spec(lambda d: _profile(d, entry=_ledger_entry(d), chapter="ising", run_info={"seed": 0},
                                                 figure_labels=["fig-x"], shown=d(st.sampled_from([(), ["fig-x"]]))),
                              **PROFILE),
    K + "ledger:prune": Spec(lambda d: _profile(d, chapter="ising", keep=d(st.sampled_from([[], ["x-claim"]]))),
                             **PROFILE),
    K + "ledger:apply_decisions": Spec(lambda d: {"decided": _decided(d), "commit": "abc123",
                                                  "profile": d(st.sampled_from(["quick", "full"]))},
                                       call=in_output),
})


# --- the book's pages, notebooks, data sets and verdicts (read from the checkout, written under /tmp) --------------
def _cell(d):
    import nbformat

    make = d(st.sampled_from(["code", "tagged", "markdown"]))
    if make == "markdown":
        return nbformat.v4.new_markdown_cell("# x")
    cell = nbformat.v4.new_code_cell("x = 1", outputs=[nbformat.v4.new_output("stream", text="1\n")])
    if make == "tagged":
        cell.metadata["tags"] = ["nbval-check-output"]
    return cell


def _notebook(d):
    import nbformat

    nb = nbformat.v4.new_notebook(cells=[_cell(d), _cell(d)])
    nb.metadata["papermill"] = {"duration": 1.0}
    return nb


def _claims(d):
    from mfattn.companion.verdicts import declared

    return list(declared(d(st.sampled_from(["ising", "transformer"]))))


SPECS.update({
    K + "citation:figures_table": Spec(lambda d: {"profile": d(st.sampled_from(["quick", "full"])), "base": ".."},
                                       check=is_type(str), call=in_output),
    K + "datasets:locate": Spec(lambda d: {"name": "mnist", "file": d(st.sampled_from(["t10k-labels-idx1-ubyte.gz",
                                                                                        "train-labels-idx1-ubyte.gz"]))}),
    K + "datasets:check": Spec(lambda d: {"name": "mnist"}, check=is_type(dict)),
    K + "reproduce:is_check_cell": Spec(lambda d: {"cell": _cell(d)}, check=is_type(bool)),
    K + "reproduce:strip_notebook": Spec(lambda d: {"nb": _notebook(d)}, check=is_type(bool)),
    K + "reproduce:notebook_parameters": Spec(lambda d: {"path": project_root() / d(st.sampled_from(
        ["book/01_ising_tap.ipynb", "book/03_transformer_mean_field.ipynb"]))}, check=is_type(dict)),
    K + "verdicts:check_claims": Spec(lambda d: {"claims": _claims(d)}),
    K + "verdicts:decide_chapter": Spec(lambda d: {"root": root_choice(d),
                                                   "chapter": d(st.sampled_from(["ising", "transformer"]))},
                                        check=is_type(list)),
    K + "report_text:report_markdown": Spec(lambda d: {"chapters": d(st.sampled_from([["ising"], ["ising", "deq"]]))},
                                            check=is_type(str), call=in_output),
})


# chapter runs (made in the child, under temporary output folders) and what records into them
from contracts_strategies_a import RunPlaceholder, with_run  # noqa: E402

SPECS.update({
    K + "chapter:ChapterRun": Spec(lambda d: {"chapter": d(st.sampled_from(["ising", "dmft"])), "profile": "quick",
                                              "device": "cpu", "seed": d(st.integers(0, 3)), "threads": 1},
                                   domain={"seed": "int>=0", "threads": "int>=1"}, call=in_output),
    K + "verdicts:record": Spec(lambda d: {"run": RunPlaceholder(), "claims": _claims(d),
                                           "numbers": d(st.sampled_from([None, {}])), "remedy": "run it"},
                                call=with_run("ising")),
    K + "verdicts:record_chapter": Spec(lambda d: {"run": RunPlaceholder(), "root": root_choice(d),
                                                   "chapter": d(st.sampled_from(["ising", "transformer"]))},
                                        call=with_run("ising")),
    "mfattn.meanfield.claims:record": Spec(lambda d: {"run": RunPlaceholder(), "root": root_choice(d)},
                                           call=with_run("ising")),
    "mfattn.meanfield.claims:glue_full": Spec(lambda d: {"run": RunPlaceholder(), "root": root_choice(d)},
                                              call=with_run("ising")),
})
SPECS[K + "verdicts:redecide"] = Spec(lambda d: {"root": d(st.sampled_from([None, empty_dir()]))}, check=is_type(dict))


def _claim(d):
    return {"id": "x-claim", "source": "Someone 2024, Fig. 1", "claim": "A claim.", "measured": "x",
            "how": "holds if x > 1 (the paper's tolerance)", "evidence": ("fig-x",),
            "rule": lambda s: "holds" if s["x"] > 1 else "fails",
            "examples": {"holds": {"x": d(st.floats(1.5, 3))}, "fails": {"x": 0.5}},
            "origin": d(st.sampled_from(["paper", "ours"]))}


SPECS.update({
    K + "claim:Claim": Spec(_claim),
})
from contracts_strategies_a import mnist_present  # noqa: E402

SPECS[K + "datasets:fetch"] = Spec(lambda d: {"name": "mnist", "file": d(st.sampled_from(
    ["t10k-labels-idx1-ubyte.gz", "train-labels-idx1-ubyte.gz"])), "download": False}) if mnist_present() else Exempt(
    "finds or downloads the MNIST files, not on this machine (offline here); its name and file are checked at its "
    "boundary, its errors by tests/test_datasets.py")
