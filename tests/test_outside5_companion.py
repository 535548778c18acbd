"""What the fifth outside table of hostile calls (part A, /work/notes/outside5a) found in the book's machinery outside
checks.py, verdicts.py and work.py: the readers, the writers, the ledger and the report, the manifest, the chapter
run, the premises, the statistics and the MFATTN_* folders. Each row is refused at the boundary with one message
naming the parameter, the variable or the field (before: a result for refused input, an error from deep inside the
standard library, numpy or torch, or memory exhausted); the valid controls at the end still give what they gave."""

from __future__ import annotations

import decimal
import json
import os
import types
import zipfile

import numpy as np
import pytest
import torch

from mfattn.companion import (caches, chapter, citation, ledger, manifest, premises, profiles, report_keys,
                              report_table, report_text, reproduce, stats, store, store_read, store_write)
from mfattn.companion import datasets

ENT = dict(claim_id="x-claim", verdict="reproduced", source="src", claim="a claim", evidence=["fig-x"],
           numbers={"a": 1.0}, how="h", note="", origin="paper", profile="quick")


class Ctx:
    """Fixtures of a row: planted files, FIFOs, symbolic-link loops and MFATTN_* variables, all under tmp_path."""

    def __init__(self, tmp_path, monkeypatch):
        self.tmp, self.mp = tmp_path, monkeypatch

    def path(self, name):
        return str(self.tmp / name)

    def planted(self, name, data):
        path = self.tmp / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data.encode() if isinstance(data, str) else data)
        return str(path)

    def loop(self, name):
        path = self.path(name)
        os.symlink(path + ".b", path)
        os.symlink(path, path + ".b")
        return path

    def fifo(self, name):
        path = self.path(name)
        os.mkfifo(path)
        return path

    def folder(self, name):
        (self.tmp / name).mkdir(parents=True, exist_ok=True)
        return self.path(name)

    def env(self, name, value):
        self.mp.setenv(name, value)

    def figures(self, name, files):
        """MFATTN_FIGURES at a planted folder holding ``{relative name: text}`` and a PNG ``full/x.png``."""
        root = self.folder(name)
        self.planted(f"{name}/full/x.png", b"x")
        for rel, text in files.items():
            self.planted(f"{name}/{rel}", text)
        self.env("MFATTN_FIGURES", root)
        return root

    def run(self):
        return chapter.ChapterRun("ising", seed=5)


def _npy_member(shape):
    """The bytes of a format-1.0 .npy whose header claims ``shape`` of float64 (and holds nothing)."""
    header = ("{'descr': '<f8', 'fortran_order': False, 'shape': %r, }" % (tuple(shape),)).encode()
    header = header + b" " * (118 - len(header)) + b"\n"
    return b"\x93NUMPY\x01\x00" + len(header).to_bytes(2, "little") + header


def _npz_without_suffix(c):
    path = c.path("nosuffix.npz")
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("a", _npy_member((10**10,)))
    return store_read.load_npz(path)


def _figure(c, **kwargs):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig = plt.figure(figsize=(1, 1))
    try:
        return c.run().figure(fig, "fig-x5", **kwargs)
    finally:
        plt.close(fig)


GOOD_SHA = "2d711642b726b04401627ca9fbac32f5c8530fb1903cc4db02258717921a4881"   # sha256 of b"x"
FIG = "full/manifest.json"

# (row id, call, exception, what the message must name)
ROWS = [
    # huge and deep rows of the readers: a limit is a bound on what is read, never an allocation
    ("a0374", lambda c: store_read.read_text_file(c.planted("rt.txt", "abc"), limit=2**100), ValueError, r"^limit must"),
    ("a0797", _npz_without_suffix, ValueError, r"member a to hold what its header claims"),
    ("a0879", lambda c: (c.env("MFATTN_MAX_JSON_BYTES", "1e15"), store_read.read_json(c.planted("m.json", "{}"))),
     ValueError, r"^MFATTN_MAX_JSON_BYTES must be .* at most"),
    ("a0880", lambda c: (c.env("MFATTN_MAX_JSON_BYTES", "1e15"), store_read.read_text_file(c.planted("m.txt", "a"))),
     ValueError, r"^MFATTN_MAX_JSON_BYTES"),
    ("a0883", lambda c: (c.env("MFATTN_MAX_JSON_BYTES", "1e19"), store_read.read_json(c.planted("m.json", "{}"))),
     ValueError, r"^MFATTN_MAX_JSON_BYTES"),
    ("a0884", lambda c: (c.env("MFATTN_MAX_JSON_BYTES", "1e19"), store_read.read_text_file(c.planted("m.txt", "a"))),
     ValueError, r"^MFATTN_MAX_JSON_BYTES"),
    # the report's HTML and MyST: nothing a ledger entry holds leaves its cell, attribute or dropdown
    ("a0645", lambda c: report_table.table_html([dict(ENT, chapter="ising", verdict="<script>alert(1)</script>")]),
     ValueError, r"^e\['verdict'\] must be one of"),
    ("a0646", lambda c: report_table.table_html([dict(ENT, chapter="ising", robustness="<script>x</script>")]),
     ValueError, r"^e\['robustness'\]"),
    ("a0647", lambda c: report_table.table_html([dict(ENT, chapter="ising", claim_id='x" onmouseover="alert(1)')]),
     ValueError, r"^claim_id must be a claim id"),
    ("a0648", lambda c: report_table.rows([dict(ENT, chapter="ising", verdict="<b>x</b>")]), ValueError,
     r"^e\['verdict'\]"),
    ("a0643", lambda c: report_table.rows([dict(ENT, chapter=3)]), TypeError, r"^e\['chapter'\]"),
    ("a0615", lambda c: citation.figures_table(base="javascript:alert(1)"), ValueError, r"^base must be a relative URL"),
    ("a0616", lambda c: citation.figures_table(base="//evil.example"), ValueError, r"^base must be a relative URL"),
    ("a0582", lambda c: ledger.claim_block(dict(ENT, claim="a | b\n:::\nraw")), ValueError, r"^e\['claim'\] holds ':::'"),
    ("a0560", lambda c: ledger.anchor(None), TypeError, r"^claim_id must be a claim id"),
    ("a0561", lambda c: ledger.anchor('a"b'), ValueError, r"^claim_id must be a claim id"),
    ("a0525", lambda c: ledger.make_entry("x5-claim\n", "src", "c", "reproduced", "fig-x", how="h"), ValueError,
     r"^claim_id must be"),
    ("a0602", lambda c: manifest.update("quick", 5, "manifest", "fig-x5", {"file": "../x5", "sha256": "a"}),
     ValueError, r"file '\.\./x5' climbs out"),
    ("a0604", lambda c: manifest.update("quick", 6, "runs", "x\x00y", {"status": "started"}), ValueError,
     r"^key must be .*NUL"),
    ("a0811", lambda c: (c.figures("f", {FIG: '{"fig-x5": {"file": "x.png", "sha256": "a", "vector": "../../x.pdf"}}'}),
                         citation.figures_table("full")), ValueError, r"vector '\.\./\.\./x\.pdf' climbs out"),
    # symbolic-link loops, named as such
    ("a0342", lambda c: store.project_root(c.loop("root")), ValueError, r"^start: .* is a symlink loop"),
    ("a0413", lambda c: store_write.check_target_folder(c.loop("ctf")), ValueError, r"symlink loop"),
    ("a0486", lambda c: c.run().result(c.loop("res"), "d"), ValueError, r"^path: .* is a symlink loop"),
    ("a0764", lambda c: datasets.fetch("mnist", datasets.dataset_files("mnist")[0], download=False,
                                       folder=c.loop("fetch")), ValueError, r"^folder: .* is a symlink loop"),
    ("a0822", lambda c: (c.env("MFATTN_OUTPUT", c.loop("out")), store.output_dir()), ValueError,
     r"^MFATTN_OUTPUT: .* symlink loop"),
    ("a0823", lambda c: (c.env("MFATTN_OUTPUT", c.loop("out")), store.cache_dir("x5")), ValueError, r"^MFATTN_OUTPUT"),
    ("a0824", lambda c: (c.env("MFATTN_OUTPUT", c.loop("out")), manifest.figures_dir("quick")), ValueError,
     r"^MFATTN_OUTPUT"),
    ("a0840", lambda c: (c.env("MFATTN_CACHE", c.loop("cache")), store.cache_dir("x5")), ValueError, r"^MFATTN_CACHE"),
    ("a0845", lambda c: (c.env("MFATTN_FIGURES", c.loop("fig")), manifest.figures_dir("full")), ValueError,
     r"^MFATTN_FIGURES"),
    ("a0846", lambda c: (c.env("MFATTN_FIGURES", c.loop("fig")), ledger.read_ledger("full")), ValueError,
     r"^MFATTN_FIGURES"),
    ("a0851", lambda c: (c.env("MFATTN_DATA", c.loop("data")), datasets.folders("mnist")), ValueError, r"^MFATTN_DATA"),
    ("a0852", lambda c: (c.env("MFATTN_DATA", c.loop("data")), datasets.locate("mnist", datasets.dataset_files("mnist")[0])),
     ValueError, r"^MFATTN_DATA"),
    ("a0857", lambda c: (c.env("MFATTN_ASI_REFERENCE", c.loop("asi")), datasets.check("asi-reference")), ValueError,
     r"^MFATTN_ASI_REFERENCE"),
    ("a0861", lambda c: (c.env("MFATTN_PAPERS", c.loop("pap")), premises.papers_dir()), ValueError, r"^MFATTN_PAPERS"),
    ("a0862", lambda c: (c.env("MFATTN_PAPERS", c.loop("pap")), premises.paper_text("bal2021")), ValueError,
     r"^MFATTN_PAPERS"),
    ("a0855", lambda c: (c.env("MFATTN_DATA", c.planted("afile", "") + "/sub"), datasets.folders("mnist")), ValueError,
     r"^MFATTN_DATA=.* must name a folder"),
    ("a0856", lambda c: (c.env("MFATTN_DATA", c.planted("afile", "") + "/sub"),
                         datasets.locate("mnist", datasets.dataset_files("mnist")[0])), ValueError, r"^MFATTN_DATA="),
    ("a0343", lambda c: store.project_root(_PathLike(b"/tmp")), TypeError, r"^start must be None or a path"),
    # settings checked one by one before, now together and within range
    ("a0460", lambda c: profiles.get_profile("ising", "quick", n=1), ValueError, r"size 'n' of chapter 'ising' .* >= 2"),
    ("a0463", lambda c: profiles.get_profile("dmft", "quick", transient=30000), ValueError,
     r"size 'transient' = 30000 .* below 'steps'"),
    ("a0483", lambda c: _figure(c, paper_figure=3), TypeError, r"^paper_figure must be text"),
    ("a0485", lambda c: _figure(c, paper_figure="new", caption=3), TypeError, r"^caption must be None or text"),
    ("a0490", lambda c: c.run().number("x5", 3.5, fmt="{:d}"), ValueError, r"^fmt '\{:d\}' cannot format value"),
    ("a0491", lambda c: c.run().number("x5", 1, fmt="{0[1]}"), ValueError, r"^fmt"),
    ("a0492", lambda c: c.run().number(3, 1), TypeError, r"^name must be a glue name"),
    ("a0493", lambda c: c.run().generator(offset=2**64), ValueError, r"^offset must be an integer in"),
    ("a0494", lambda c: c.run().generator(offset=-6), ValueError, r"^offset must be"),
    ("a0495", lambda c: c.run().rng(offset=-6), ValueError, r"^offset must be"),
    ("a0496", lambda c: c.run().rng(offset=0.5), ValueError, r"^offset must be"),
    ("a0497", lambda c: c.run().generator(offset=1, device="meta"), ValueError, r"^device must be"),
    ("a0533", lambda c: ledger.ledger_path("quick", seed=2**62 + 1), ValueError, r"^seed must be at most 2\*\*62"),
    ("a0535", lambda c: ledger.check_evidence(["tests/test_x.py::test_y"], [], root=c.fifo("ce.fifo")),
     NotADirectoryError, r"^root must be the checkout's folder"),
    ("a0537", lambda c: (c.planted("ce/tests/x5.py", b"\xff\xfe def test_y("),
                         ledger.check_evidence(["tests/x5.py::test_y"], [], root=c.tmp / "ce")), ValueError,
     r"^evidence 'tests/x5\.py::test_y': .* not a UTF-8"),
    ("a0542", lambda c: ledger.record("quick", dict(ENT, claim_id="x5-rec2"), chapter="bogus", run_info={},
                                      figure_labels=["fig-x"], seed=5), ValueError, r"^chapter must be one of"),
    ("a0543", lambda c: ledger.record("quick", dict(ENT, claim_id="x5-rec3", verdict="bogus"), chapter="ising",
                                      run_info={}, figure_labels=["fig-x"], seed=5), ValueError,
     r"^entry\['verdict'\] must be one of"),
    ("a0544", lambda c: ledger.record("quick", dict(ENT, claim_id="x5-rec4"), chapter="ising",
                                      run_info={"profile": "full", "chapter": "deq"}, figure_labels=["fig-x"], seed=5),
     ValueError, r"^run_info must not set \['chapter', 'profile'\]"),
    ("a0551", lambda c: ledger.apply_decisions({"x5-ad": _decision("ising")}, "", profile="quick"), ValueError,
     r"^commit must be a git commit"),
    ("a0552", lambda c: ledger.apply_decisions({"x5-ad": _decision("bogus")}, "abc1234", profile="quick"), ValueError,
     r"^chapter must be one of"),
    ("a0563", lambda c: ledger.citation({"claim_id": "x", "verdict": "reproduced", "profile": 3}), ValueError,
     r"^e\['profile'\]"),
    ("a0568", lambda c: ledger.robustness_text({"robustness": "bogus"}), ValueError, r"^e\['robustness'\]"),
    ("a0579", lambda c: ledger.claim_block(dict(ENT, evidence="fig-x")), TypeError, r"^e\['evidence'\] must be a list"),
    ("a0586", lambda c: ledger.verdict_table([dict(ENT, verdict=3)]), ValueError, r"^e\['verdict'\]"),
    ("a0596", lambda c: manifest.digest_of(["mfattn/../../etc/passwd"], None), ValueError, r"^modules must name"),
    ("a0597", lambda c: manifest.digest_of(["mfattn.ising"], c.fifo("do.fifo")), ValueError, r"^notebook must be a path"),
    ("a0598", lambda c: manifest.digest_of(["mfattn.ising"], c.folder("dodir")), ValueError, r"^notebook must be"),
    ("a0606", lambda c: manifest.mark_run("quick", 6, "ising", "started", git_commit=3), TypeError,
     r"^git_commit must be the commit"),
    ("a0621", lambda c: report_keys.key_text("a_b", np.float16("inf")), ValueError, r"^value must be finite"),
    ("a0622", lambda c: report_keys.key_text("a_b", np.longdouble("nan")), ValueError, r"^value must be finite"),
    ("a0623", lambda c: report_keys.key_text("a_b", torch.tensor(float("nan"))), ValueError, r"^value must be finite"),
    ("a0625", lambda c: report_text.paper_of("is", [("P", "T", "ising")]), TypeError, r"chapters must be a list"),
    ("a0626", lambda c: report_text.paper_of(["ising"]), TypeError, r"^chapter must be a chapter's name"),
    ("a0631", lambda c: report_text.report_summary([dict(ENT, verdict="bogus")]), ValueError, r"^e\['verdict'\]"),
    ("a0632", lambda c: report_text.report_summary([dict(ENT, robustness=["robust"])]), ValueError,
     r"^e\['robustness'\]"),
    ("a0635", lambda c: report_text.report_details([dict(ENT, chapter="ising")], papers={"T": "ising"}), TypeError,
     r"^papers\['T'\] must be a list"),
    ("a0665", lambda c: premises.Threshold("t", 1.0, "theorem", "a reason of more than twenty characters", log="yes"),
     ValueError, r"log must be True or False"),
    ("a0679", lambda c: premises.one_unit_cap({"n": float("nan")}), TypeError, r"^spread\['n'\]"),
    ("a0683", lambda c: premises.sensitivity("holds", [premises.Alternative("a", "reading", lambda s: "fails")], {}, str,
                                             cap=lambda g: "bogus"), ValueError, r"^cap returned 'bogus'"),
    ("a0810", lambda c: (c.figures("f", {FIG: '{"fig-x5": {"file": "x.png", "sha256": ""}}'}),
                         citation.figure_citation("fig-x5")), ValueError, r"entry 'fig-x5' has sha256 ''"),
    ("a0814", lambda c: (c.figures("f", {"full/runs.json": '{"ising": {"status": "finished"}, "bogus": {"status": "s"}}'}),
                         manifest.check("full")), ValueError, r"runs entry 'bogus': chapter must be one of"),
    ("a0816", lambda c: (c.figures("f", {"ledger.json": '{"x5": {"claim_id": "x5", "verdict": "bogus", "profile": "full"}}'}),
                         report_text.report_summary(list(ledger.read_ledger("full").values()))), ValueError,
     r"^e\['verdict'\]"),
    ("a0817", lambda c: (c.figures("f", {"ledger.json": '{"x5": {"claim_id": "y5", "verdict": "reproduced"}}'}),
                         ledger.read_ledger("full")), ValueError, r"ledger entry 'x5' holds claim_id 'y5'"),
    ("a0818", lambda c: (c.figures("f", {"ledger.json": json.dumps({"x5": dict(ENT, claim_id="x5", evidence="fig-x",
                                                                               chapter="ising")})}),
                         report_text.report_details(list(ledger.read_ledger("full").values()))), TypeError,
     r"^e\['evidence'\]"),
    ("a0430", lambda c: caches.cache_record({"a": 1}, "k", files={3: c.planted("cr.bin", "x")}), TypeError,
     r"^files: a file's name must be a string"),
    ("a0434", lambda c: caches.check_cache_record(dict(caches.cache_record({"a": 1}, "k"), files={"x": "a"}), {"a": 1},
                                                  "k", folder=b"/tmp"), TypeError, r"^folder must be a path"),
    ("a0446", lambda c: caches.save_cached_json(c.path("sj.json"), {"a": object()}, key="k"), TypeError,
     r"sj\.json: \['a'\]: object .* has no JSON form"),
    ("a0447", lambda c: caches.save_cached_json(c.path("sj.json"), {"a": {1, 2}}, key="k"), TypeError,
     r"\['a'\]: set \{1, 2\} has no JSON form"),
    ("a0448", lambda c: caches.save_cached_json(c.path("sj.json"), {"a": lambda: 1}, key="k"), TypeError,
     r"\['a'\]: function"),
    # deep rows: malformed values refused where they sit, by name
    ("a0239", lambda c: store_write.atomic_write_json(c.path("s.json"), {"a": np.datetime64("2020-01-01")}), TypeError,
     r"\['a'\]: .* datetime64"),
    ("a0353", lambda c: store.config_hash({"a": torch.zeros(2, device="meta")}), TypeError,
     r"^config_hash: config\['a'\]: .* no values"),
    ("a0354", lambda c: store.config_hash({"a": torch.zeros(2, dtype=torch.complex64)}), TypeError,
     r"^config_hash: config\['a'\]\[0\]: .* complex"),
    ("a0355", lambda c: store.config_hash({"a": np.complex128(1j)}), TypeError, r"^config_hash: config\['a'\]: .* complex"),
    ("a0356", lambda c: store.config_hash({"a": np.datetime64("2020-01-01")}), TypeError, r"^config_hash: config\['a'\]"),
    ("a0387", lambda c: store_write.finite_or_none(torch.zeros(2, device="meta")), TypeError, r"^finite_or_none: obj"),
    ("a0388", lambda c: store_write.finite_or_none(_self_list()), ValueError, r"^finite_or_none: obj refers to itself"),
    ("a0391", lambda c: store_write.atomic_write_json(c.path("a.json"), {"a": np.datetime64("2020-01-01")}), TypeError,
     r"a\.json: \['a'\]"),
    ("a0392", lambda c: store_write.atomic_write_json(c.path("a.json"), {"a": np.complex128(1j)}), TypeError,
     r"a\.json: \['a'\]: .* complex"),
    ("a0393", lambda c: store_write.atomic_write_json(c.path("a.json"), {"a": torch.zeros(2, dtype=torch.complex64)}),
     TypeError, r"a\.json: \['a'\]\[0\]"),
    ("a0402", lambda c: store_write.atomic_write_bytes(c.path("a.bin"), np.zeros((2, 2))[:, 0].data), ValueError,
     r"a\.bin: data must be a C-contiguous buffer"),
    ("a0404", lambda c: store_write.atomic_save_npz(c.path("a.npz"), a=torch.zeros(2, requires_grad=True)), TypeError,
     r"a\.npz: array 'a'"),
    ("a0405", lambda c: store_write.atomic_save_npz(c.path("a.npz"), a=torch.zeros(2, device="meta")), TypeError,
     r"a\.npz: array 'a'"),
    ("a0406", lambda c: store_write.atomic_save_npz(c.path("a.npz"), a=[[1.0], [1.0, 2.0]]), ValueError,
     r"a\.npz: array 'a' is not an array"),
    ("a0414", lambda c: store_write.temporary_path(c.tmp, "\ud800"), ValueError, r"^name must be text a file name"),
    ("a0422", lambda c: caches.content_digest(torch.zeros(2, device="meta")), TypeError, r"^content_digest: a tensor"),
    ("a0423", lambda c: caches.content_digest(torch.zeros(2, dtype=torch.bfloat16)), TypeError,
     r"^content_digest: a tensor of dtype torch\.bfloat16"),
    ("a0425", lambda c: caches.content_digest(_self_list()), ValueError, r"^content_digest: obj refers to itself"),
    ("a0436", lambda c: caches.save_cached_npz(c.path("sc.npz"), {"a": torch.zeros(2, requires_grad=True)}), TypeError,
     r"sc\.npz: array 'a'"),
    ("a0438", lambda c: caches.save_cached_npz(c.path("sc.npz"), {3: np.zeros(2)}), TypeError,
     r"^arrays: every name must be a string"),
    ("a0442", lambda c: caches.cached_npz(c.path("cn.npz"), lambda: {"a": torch.zeros(2, device="meta")}, key="k"),
     TypeError, r"cn\.npz: array 'a'"),
    ("a0449", lambda c: caches.save_cached_json(c.path("sj.json"), {"a": np.datetime64("2020-01-01")}, key="k"),
     TypeError, r"sj\.json: \['a'\]"),
    ("a0517", lambda c: reproduce.strip_notebook(types.SimpleNamespace(metadata={}, cells=[3])), TypeError,
     r"^nb\.cells\[0\] must be a notebook cell"),
    ("a0522", lambda c: ledger.make_entry("x5-claim", "src", "c", "reproduced", "fig-x",
                                          numbers={"a": torch.tensor(1.0, device="meta")}, how="h"), ValueError,
     r"^numbers\['a'\] is a tensor on the meta device"),
    ("a0555", lambda c: ledger.key_number({"numbers": [1, 2]}), TypeError, r"^e\['numbers'\] must be a mapping"),
    ("a0556", lambda c: ledger.key_number({"numbers": {"a": 1}, "key": ["a"]}), TypeError, r"^e\['key'\]"),
    ("a0557", lambda c: ledger.key_number({"numbers": "ab"}), TypeError, r"^e\['numbers'\]"),
    ("a0564", lambda c: ledger.quote_text({"quote": "a plain string"}), TypeError, r"^e\['quote'\] must be a mapping"),
    ("a0565", lambda c: ledger.quote_text({"quote": {"text": "t"}}), ValueError, r"^e\['quote'\] lacks the key 'section'"),
    ("a0566", lambda c: ledger.quote_text({"quote": {"text": "t", "section": "s", "paper": ["x"]}}), TypeError,
     r"^e\['quote'\]\['paper'\]"),
    ("a0567", lambda c: ledger.robustness_text({"robustness": "fragile", "alternatives": [{"verdict": "x"}]}),
     ValueError, r"^e\['alternatives'\]\[0\] lacks the key 'name'"),
    ("a0569", lambda c: ledger.robustness_text({"robustness": "robust", "alternatives": "ab"}), TypeError,
     r"^e\['alternatives'\] must be a list"),
    ("a0570", lambda c: ledger.thresholds_text({"thresholds": [{}]}), ValueError, r"^e\['thresholds'\]\[0\] lacks"),
    ("a0571", lambda c: ledger.thresholds_text({"thresholds": [{"name": "a", "value": "x", "basis": "b", "reason": "r"}]}),
     TypeError, r"^e\['thresholds'\]\[0\]\['value'\]"),
    ("a0572", lambda c: ledger.thresholds_text({"thresholds": [{"name": "a", "value": 1.0, "basis": "b", "reason": "r",
                                                                "borne_out": "yes"}]}), ValueError,
     r"^e\['thresholds'\]\[0\]\['borne_out'\]"),
    ("a0573", lambda c: ledger.alternatives_text({"alternatives": [{"name": "a"}]}), ValueError,
     r"^e\['alternatives'\]\[0\] lacks the key 'verdict'"),
    ("a0574", lambda c: ledger.alternatives_text({"alternatives": 3}), TypeError, r"^e\['alternatives'\]"),
    ("a0575", lambda c: ledger.spread_text({"spread": {"unit": "seed", "values": {"a": ["x"]}}}), TypeError,
     r"^e\['spread'\]\['values'\]\['a'\]\[0\]"),
    ("a0576", lambda c: ledger.spread_text({"spread": {"values": {}}}), ValueError, r"^e\['spread'\] lacks the key 'unit'"),
    ("a0577", lambda c: ledger.spread_text({"spread": "seeds"}), TypeError, r"^e\['spread'\] must be a mapping"),
    ("a0583", lambda c: ledger.verdict_table([dict(ENT)], show_chapter=True), ValueError, r"^show_chapter=True needs"),
    ("a0592", lambda c: manifest.code_fingerprint("/etc/passwd"), ValueError, r"^notebook must be a path inside"),
    ("a0593", lambda c: manifest.code_fingerprint(c.planted("cf.ipynb", "[1, 2]")), ValueError, r"^notebook"),
    ("a0594", lambda c: manifest.code_fingerprint(c.planted("cfc.ipynb", b"\xff\xfe")), ValueError, r"^notebook"),
    ("a0637", lambda c: report_text.report_details([dict(ENT, chapter=["ising"])]), TypeError, r"^e\['chapter'\]"),
    ("a0642", lambda c: report_table.rows([dict(ENT, chapter="ising")], papers=[("P", "T")]), TypeError,
     r"^papers\[0\] must be a \(short name, title, chapters\) triple"),
    ("a0662", lambda c: premises.Threshold("t", 10**400, "theorem", "a reason of more than twenty characters"),
     ValueError, r"threshold 't': value must be a finite real number"),
    ("a0663", lambda c: premises.Threshold("t", 1.0, "theorem", "a reason of more than twenty characters",
                                           noise=10**400), ValueError, r"threshold 't': noise must be"),
    ("a0666", lambda c: premises.Threshold("t", 1.0, "seed spread", "a reason of more than twenty characters",
                                           check=lambda s: (True, "ok"), noise=lambda s: 10**400).noise_of({}),
     ValueError, r"threshold 't': its measured noise"),
    ("a0668", lambda c: premises.Threshold("t", 1.0, "seed spread", "a reason of more than twenty characters",
                                           check=lambda s: 3).examine({}), ValueError,
     r"threshold 't': check must return"),
    ("a0673", lambda c: premises.spread_of(premises.Spread("seed", values=lambda s: {"a": [1.0, "x"]}), {}),
     ValueError, r"the per-unit values of 'a'"),
    ("a0674", lambda c: premises.spread_of(premises.Spread("seed", values=lambda s: {"a": 3}), {}), ValueError,
     r"the per-unit values of 'a'"),
    ("a0675", lambda c: premises.spread_of(premises.Spread("seed", values=lambda s: {"a": [np.float16(1), None]}), {}),
     ValueError, r"the per-unit values of 'a'"),
    ("a0677", lambda c: premises.one_unit_cap({"n": "1"}), TypeError, r"^spread\['n'\]"),
    ("a0678", lambda c: premises.one_unit_cap({"n": None}), TypeError, r"^spread\['n'\]"),
    ("a0745", lambda c: stats.t_quantile_975(10**400), ValueError, r"^df must be a positive integer of at most"),
    ("a0747", lambda c: stats.paired_difference(torch.tensor([True]).to("meta"), np.array([True])), TypeError,
     r"^correct_a must be a boolean array"),
    ("a0750", lambda c: stats.pooled_over_seeds([1e160, -1e160], [1e300, 1e300]), ValueError,
     r"^variances are too large"),
    ("a0806", lambda c: (c.figures("f", {FIG: json.dumps({"fig-x5": {"file": "x.png", "sha256": GOOD_SHA,
                                                                      "code_modules": 3, "code_digest": "d"}})}),
                         manifest.check("full")), ValueError, r"figure entry 'fig-x5': modules must be"),
    ("a0807", lambda c: (c.figures("f", {FIG: json.dumps({"fig-x5": {"file": "x.png", "sha256": GOOD_SHA,
                                                                      "code_modules": ["mfattn.ising"],
                                                                      "notebook": "/etc/passwd", "code_digest": "d"}})}),
                         manifest.check("full")), ValueError, r"figure entry 'fig-x5': notebook must be"),
    ("a0808", lambda c: (c.figures("f", {FIG: '{"fig-x5": {"file": "x.png", "sha256": "a", "chapter": 3}}'}),
                         citation.figures_table("full")), ValueError, r"entry 'fig-x5': chapter must be a string"),
    ("a0812", lambda c: (c.figures("f", {FIG: json.dumps({"fig-x5": {"file": "x.png", "sha256": GOOD_SHA,
                                                                      "git_commit": ["a"]}})}),
                         citation.figures_table("full")), ValueError, r"entry 'fig-x5': git_commit must be a string"),
    ("a0819", lambda c: (c.figures("f", {"ledger.json": json.dumps({"x5": dict(ENT, claim_id="x5", chapter="ising",
                                                                               quote="q")})}),
                         report_table.table_html(list(ledger.read_ledger("full").values()))), TypeError,
     r"^e\['quote'\] must be a mapping"),
]


class _PathLike:
    def __init__(self, p):
        self.p = p

    def __fspath__(self):
        return self.p


def _self_list():
    held = []
    held.append(held)
    return held


def _decision(chapter_name):
    return dict(chapter=chapter_name, source="s", claim="c", verdict="reproduced", evidence=["fig-ising-rmse"],
                numbers={}, note="", how="h", measured="", origin="paper")


@pytest.fixture
def ctx(tmp_path, monkeypatch):
    for name in list(os.environ):
        if name.startswith("MFATTN_") and name not in ("MFATTN_OFFLINE",):
            monkeypatch.delenv(name)
    monkeypatch.setenv("MFATTN_OFFLINE", "1")
    monkeypatch.setenv("MFATTN_OUTPUT", str(tmp_path / "out"))
    return Ctx(tmp_path, monkeypatch)


@pytest.mark.parametrize("row, call, error, names", ROWS, ids=[r[0] for r in ROWS])
def test_refused_by_name(row, call, error, names, ctx):
    with pytest.raises(error, match=names):
        call(ctx)


def test_the_command_line_says_a_bad_json_budget_in_one_line(ctx, capsys):
    """a0975: `mfattn verdicts` with MFATTN_MAX_JSON_BYTES=1e19 (an OverflowError before) exits 2 naming it; a0974:
    `mfattn figures` with 3e9 (a MemoryError before) lists the stored figures."""
    from mfattn.__main__ import main

    ctx.env("MFATTN_MAX_JSON_BYTES", "1e19")
    assert main(["verdicts"]) == 2
    assert "MFATTN_MAX_JSON_BYTES must be" in capsys.readouterr().err
    ctx.env("MFATTN_MAX_JSON_BYTES", "3e9")
    assert main(["figures", "--profile", "full"]) == 0


def test_rows_are_unique():
    ids = [r[0] for r in ROWS]
    assert len(ids) == len(set(ids))


def test_a_notebook_inside_the_root_that_is_no_notebook_is_refused_by_name(tmp_path, monkeypatch):
    """a0593/a0594/a0598 with a notebook where one belongs (inside the root): its content is checked too."""
    monkeypatch.setattr(manifest.store, "project_root", lambda start=None: tmp_path)
    (tmp_path / "book").mkdir()
    (tmp_path / "book" / "list.ipynb").write_text("[1, 2]")
    (tmp_path / "book" / "binary.ipynb").write_bytes(b"\xff\xfe")
    (tmp_path / "book" / "folder.ipynb").mkdir()
    with pytest.raises(ValueError, match=r"list\.ipynb is not a notebook"):
        manifest.digest_of([], "book/list.ipynb")
    with pytest.raises(ValueError, match=r"binary\.ipynb: expected a UTF-8 notebook"):
        manifest.digest_of([], "book/binary.ipynb")
    with pytest.raises(ValueError, match=r"folder\.ipynb: expected a regular notebook"):
        manifest.digest_of([], "book/folder.ipynb")
    assert manifest.digest_of([], "book/missing.ipynb") is None   # a missing file: None, as documented
    (tmp_path / "book" / "ok.ipynb").write_text(json.dumps({"cells": [{"cell_type": "code", "source": ["x = 1"]}]}))
    assert manifest.digest_of([], "book/ok.ipynb") is not None


# --- valid controls: unchanged results -------------------------------------------------------------------------------
def test_readers_read_within_a_large_limit_without_allocating_it(ctx):
    path = ctx.planted("rt.txt", "abc")
    assert store_read.read_text_file(path, limit=2**40) == "abc"             # a0375
    ctx.env("MFATTN_MAX_JSON_BYTES", "3e9")                                   # a0881, a0882
    assert store_read.read_json(ctx.planted("m.json", '{"a": 1}')) == {"a": 1}
    assert store_read.read_text_file(path) == "abc"
    big = "x" * (3 << 20)                                                     # read over several blocks
    assert store_read.read_text_file(ctx.planted("big.txt", big)) == big
    with pytest.raises(store_read.RefusedFileError, match="at most 10 bytes"):
        store_read.read_text_file(ctx.planted("eleven.txt", "x" * 11), limit=10)


def test_npz_members_without_the_suffix(ctx):
    path = ctx.path("mixed.npz")
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("raw", b"plain bytes")            # numpy returns these bytes as they are
        buf = __import__("io").BytesIO()
        np.save(buf, np.arange(3.0))
        archive.writestr("arr", buf.getvalue())            # an array without .npy: its header is checked, then read
    # table 11's a0130: the bytes member is refused (no writer of an .npz stores one, no reader wants it)
    with pytest.raises(store_read.DamagedFileError, match="member 'raw' is not an array"):
        store_read.load_npz(path)
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("arr", buf.getvalue())
    assert store_read.load_npz(path)["arr"].tolist() == [0.0, 1.0, 2.0]


def test_valid_values_hash_and_store_as_before(ctx):
    config = {"a": np.arange(3), "t": torch.ones(2), "b": np.bool_(True), "o": np.array([1, 2], dtype=object),
              "s": [1.5, "x", None]}
    assert store.config_hash(config) == "ead02d46834b3a2d"   # computed at 2f565f2, before these checks
    assert caches.content_digest({"a": np.arange(3.0), "n": [1, 2.5, "x"]}) == (
        "6f1f598a8208b4b2734ff00168e8c60f81e4cb688e07a718a8b12b036cbd8c34")
    assert store_write.finite_or_none(decimal.Decimal("NaN")) is None      # a0390: documented, as a NaN float
    assert store_write.finite_or_none([decimal.Decimal("1.5"), float("inf")]) == [decimal.Decimal("1.5"), None]
    path = caches.save_cached_json(ctx.path("ok.json"), {"a": np.float32(1.5), "b": [1, 2]}, key="k")
    assert caches.load_cached_json(path, key="k") == {"a": 1.5, "b": [1, 2]}
    store_write.atomic_write_bytes(ctx.path("c.bin"), memoryview(b"abc"))
    assert open(ctx.path("c.bin"), "rb").read() == b"abc"


def test_valid_ledger_and_report_calls(ctx):
    entry = dict(ENT, chapter="ising", robustness="robust", alternatives=[{"name": "a", "kind": "reading",
                                                                            "verdict": "reproduced"}], moved_by=[],
                 thresholds=[{"name": "t", "value": 1, "basis": "b", "reason": "r", "borne_out": None}],
                 spread={"unit": "seed", "n": 2, "values": {"a": [1.0, None]}},
                 quote={"text": "t", "section": "s", "paper": "bal2021"})
    assert ledger.anchor("x-claim") == "claim-x-claim"
    assert "**reproduced** (robust) · `x-claim`" in ledger.claim_block(entry)
    assert "| **reproduced** | robust |" in ledger.verdict_table([entry], show_chapter=True)
    html = report_table.table_html([entry])
    assert 'data-verdict="reproduced"' in html and 'href="#claim-x-claim"' in html
    assert report_text.paper_of("ising") == "Ising mean field (background)"
    assert report_text.report_summary([entry]).startswith("1 claims: 1 reproduced.")
    assert "1 of 0" not in ledger.robustness_text(entry)


def test_valid_urls_and_profiles(ctx):
    assert citation.figures_table(base="https://example.org/book").startswith(("<p>", "<p><em>"))
    assert citation.figures_table(base="..").startswith(("<p>", "<p><em>"))
    assert profiles.get_profile("ising", "quick", n=2)["n"] == 2
    # with a protocol other than "short" the protocol's steps and transient replace the profile's: setting either is
    # refused as having no effect (outside table 8a's sibling), the protocol alone is valid
    with pytest.raises(ValueError, match="'transient' of chapter 'dmft' has no effect"):
        profiles.get_profile("dmft", "quick", protocol="paper-code", transient=30000)
    assert profiles.get_profile("dmft", "quick", protocol="paper-code")["protocol"] == "paper-code"
    assert profiles.get_profile("dmft", "quick", transient=19999)["transient"] == 19999


def test_valid_chapter_run_calls(ctx):
    run = ctx.run()
    assert torch.equal(torch.rand(3, generator=run.generator(offset=1)),
                       torch.rand(3, generator=torch.Generator().manual_seed(6)))
    assert run.rng(offset=np.int64(2)).integers(10**9) == np.random.default_rng(7).integers(10**9)
    assert run.generator(offset=-5).initial_seed() == 0
    assert run.number("x5", 3.5, fmt="{:.1f}") is None
    assert premises.one_unit_cap({"n": 1})("holds") == "partly" and premises.one_unit_cap(None)("holds") == "holds"
    assert stats.t_quantile_975(10**6) == pytest.approx(1.96, abs=1e-3)
