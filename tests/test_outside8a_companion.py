"""Outside table 8, part A: the rows in mfattn/companion, the command line and field_width, and their siblings.

Each test names the call it pins (the function and the bad argument), asserts the refusal and that the valid
neighbour still works. None runs a chapter or a study: the checks come before any work."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest
import torch

from mfattn.companion import checks_arrays, checks_scalars, claim, datasets, ledger_text, manifest, profiles
from mfattn.companion import report_keys, reproduce, store, store_read


def _entry(**changes):
    e = {"claim_id": "deq-anderson", "verdict": "confirmed with differences", "profile": "full",
         "git_commit": "0123456789abcdef0123456789abcdef01234567", "source": "s", "claim": "c", "numbers": {"a": 1.5},
         "how": "h", "note": "n", "evidence": [], "basis": "full profile", "origin": "ours"}
    e.update(changes)
    return e


# --- a0023: check_int('n', np.timedelta64(3), 0) returned 3 --------------------------------------------------
def test_check_int_refuses_timedelta():
    with pytest.raises(ValueError, match="n must be an integer"):
        checks_scalars.check_int("n", np.timedelta64(3), 0)
    assert checks_scalars.check_int("n", np.int64(3), 0) == 3


# sibling: check_real('x', np.timedelta64(3)) and a 0-d timedelta array; check_grid of timedeltas
def test_check_real_and_grid_refuse_times():
    with pytest.raises(TypeError, match="x must be a real number"):
        checks_scalars.check_real("x", np.timedelta64(3))
    with pytest.raises(TypeError, match="x must be a real number"):
        checks_scalars.check_real("x", np.array(np.timedelta64(3)))
    with pytest.raises(TypeError, match="g must hold real numbers"):
        checks_arrays.check_grid("g", np.array([1, 2], dtype="timedelta64[s]"))
    assert checks_scalars.check_real("x", np.float32(2.0)) == 2.0
    assert checks_arrays.check_grid("g", [1, 2]).tolist() == [1.0, 2.0]


# --- a0136: check_choice('method', 'b', {'a', 'b'}) accepted a set as choices; sibling: a timedelta as a choice ----
def test_check_choice_refuses_set_and_time():
    with pytest.raises(TypeError, match="check_choice\\('method'\\): choices must be a tuple or list"):
        checks_scalars.check_choice("method", "b", {"a", "b"})
    with pytest.raises(ValueError, match="m must be one of"):
        checks_scalars.check_choice("m", np.timedelta64(3), (3, 4))
    assert checks_scalars.check_choice("method", "b", ("a", "b")) == "b"
    assert checks_scalars.check_choice("m", np.int64(3), (3, 4)) == 3


# sibling: check_probability(open_low='no') was refused under check_real's name 'strict'
def test_check_probability_names_open_low():
    with pytest.raises(TypeError, match="open_low"):
        checks_scalars.check_probability("p", 0.5, open_low="no")
    assert checks_scalars.check_probability("p", 0.5, open_low=True) == 0.5


# --- a0492: store.inside(T, 'a', nested='no') read 'no' as True --------------------------------------------------
def test_inside_nested_flag(tmp_path):
    with pytest.raises(TypeError, match="nested"):
        store.inside(tmp_path, "a", nested="no")
    with pytest.raises(TypeError, match="what"):   # sibling: what=5
        store.inside(tmp_path, "a", 5)
    assert store.inside(tmp_path, "a", nested=False) == tmp_path / "a"


# --- a0553: store.env_folder('MFATTN_OUTPUT', '') gave the working folder --------------------------------------
def test_env_folder_empty_value(tmp_path):
    with pytest.raises(ValueError, match="MFATTN_OUTPUT must be a non-empty path"):
        store.env_folder("MFATTN_OUTPUT", "")
    with pytest.raises(TypeError, match="variable"):   # sibling: the variable's name not a string
        store.env_folder(5, str(tmp_path))
    assert store.env_folder("MFATTN_OUTPUT", str(tmp_path)) == tmp_path.resolve()


# --- a0463: load_npz of an .npz whose .npy header is '[' * 5000 raised tokenize.TokenError -----------------------
def test_load_npz_untokenizable_header(tmp_path):
    import zipfile

    header = ("[" * 5000).encode()
    header += b" " * (-(10 + len(header) + 1) % 64) + b"\n"
    npy = b"\x93NUMPY\x01\x00" + len(header).to_bytes(2, "little") + header + b"\0" * 24
    path = tmp_path / "x.npz"
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("a.npy", npy)
    with pytest.raises(store_read.DamagedFileError, match="x.npz"):
        store_read.load_npz(path)
    good = tmp_path / "g.npz"
    np.savez(good, a=np.arange(3.0))
    assert store_read.load_npz(good)["a"].tolist() == [0.0, 1.0, 2.0]


# --- a0847: manifest.decides_only(None) raised AttributeError -----------------------------------------------------
def test_decides_only_refuses_non_names():
    with pytest.raises(TypeError, match="name must be a module's dotted name"):
        manifest.decides_only(None)
    with pytest.raises(ValueError, match="name must be a module's dotted name"):
        manifest.decides_only("")
    assert manifest.decides_only("mfattn.ising.claims") and not manifest.decides_only("mfattn.ising")


# --- a0947: ledger_text.citation(e) with git_commit=5 cited 'decided at commit `5`' -------------------------------
def test_citation_refuses_non_commit():
    with pytest.raises(TypeError, match="git_commit"):
        ledger_text.citation(_entry(git_commit=5))
    with pytest.raises(ValueError, match="git_commit"):
        ledger_text.citation(_entry(git_commit="not a commit"))
    assert "decided at commit `0123456789ab`" in ledger_text.citation(_entry())


# --- a1048: claim.Decision(verdict='maybe', ...) was built without a check ----------------------------------------
def test_decision_checks_its_fields():
    with pytest.raises(ValueError, match="verdict must be one of"):
        claim.Decision(verdict="maybe", grade="holds", note="", numbers={}, how="h")
    with pytest.raises(ValueError, match="does not go with grade"):
        claim.Decision("reproduced", "fails", "", {}, "h")
    with pytest.raises(TypeError, match="numbers must be a mapping"):
        claim.Decision("reproduced", "holds", "", [], "h")
    assert claim.Decision("not tested", None, "", {}, "h").grade is None
    assert claim.Decision("reproduced with differences", "partly", "n", {"a": 1}, "h").verdict.startswith("reproduced")


# --- a1144: report_keys.key_text('x', object()) printed the object's repr; siblings: None, True, a tensor's text ----
def test_key_text_refuses_non_numbers():
    with pytest.raises(TypeError, match="value must be a real number or a text"):
        report_keys.key_text("x", object())
    with pytest.raises(TypeError, match="value must be a real number or a text"):
        report_keys.key_text("x", True)
    with pytest.raises(TypeError, match="value must be a real number or a text"):
        report_keys.key_text("x", None)
    assert report_keys.key_text("acc_seed_sd", torch.tensor(2.0)) == "accuracy seed s.d.: 2"
    assert report_keys.key_text("acc_seed_sd", 0.12345) == "accuracy seed s.d.: 0.1235"


# sibling: ledger_text.numbers_text / key_number with values the ledger cannot hold; the flags given as text
def test_ledger_text_numbers_and_flags():
    with pytest.raises(TypeError, match="numbers\\['a'\\]"):
        ledger_text.numbers_text({"a": object()})
    with pytest.raises(ValueError, match="numbers\\['a'\\]"):
        ledger_text.numbers_text({"a": float("nan")})
    with pytest.raises(TypeError, match="numbers\\['a'\\]"):
        ledger_text.key_number(_entry(numbers={"a": [1, 2]}, key="a"))
    with pytest.raises(TypeError, match="cross_refs"):
        ledger_text.claim_block(_entry(), cross_refs="no")
    with pytest.raises(TypeError, match="anchors"):
        ledger_text.verdict_table([_entry()], anchors="no")
    assert ledger_text.numbers_text({"a": 1.5, "b": "missing"}) == "a = 1.5; b = missing"
    assert ledger_text.key_number(_entry(numbers={"a": 2}, key="a")) == ("a", 2)


# --- a2112 a2114 a2115: field_width.main checked --out only after the study ----------------------------------------
@pytest.mark.parametrize("where", ["/dev/null", "/", "fifo", "folder"])
def test_field_width_out_checked_first(where, tmp_path, monkeypatch):
    from mfattn.meanfield import field_width

    monkeypatch.setattr(field_width, "field_width_study", lambda *a, **k: pytest.fail("the study ran"))
    if where == "fifo":
        where = str(tmp_path / "q")
        os.mkfifo(where)
    elif where == "folder":
        where = str(tmp_path)
    with pytest.raises(OSError, match="--out"):
        field_width.main(["--out", where, "--profile", "quick"])


def test_field_width_valid_out_reaches_the_study(tmp_path, monkeypatch):
    from mfattn.meanfield import field_width

    monkeypatch.setattr(field_width, "field_width_study", lambda *a, **k: {"n": 2})
    assert field_width.main(["--out", str(tmp_path / "fw.json"), "--profile", "quick"]) == 0
    assert (tmp_path / "fw.json").is_file()


# sibling: store.check_file_target let a FIFO through
def test_check_file_target_refuses_fifo(tmp_path):
    os.mkfifo(tmp_path / "q")
    with pytest.raises(PermissionError, match="--out"):
        store.check_file_target(tmp_path / "q", "--out")
    assert store.check_file_target(tmp_path / "ok.json", "--out") == tmp_path / "ok.json"


# --- a1390: fetch copied a huge file:// mirror file before comparing its SHA-256 ---------------------------------
def test_copy_local_checks_size_first(tmp_path):
    big = tmp_path / "big"
    with open(big, "wb") as fh:
        fh.truncate(60 << 30)   # sparse: no disk used
    with pytest.raises(ValueError, match="published"):
        datasets._copy_local(big.as_uri(), str(tmp_path / "copy"), None, size=10)
    assert not (tmp_path / "copy").exists()
    small = tmp_path / "small"
    small.write_bytes(b"0123456789")
    datasets._copy_local(small.as_uri(), str(tmp_path / "copy"), None, size=10)
    assert (tmp_path / "copy").read_bytes() == b"0123456789"


# sibling: locate() hashed a huge local copy; fetch(download='no') read 'no' as True
def test_locate_checks_size_and_fetch_flag(tmp_path, monkeypatch):
    file = datasets.dataset_files("mnist")[0]
    with open(tmp_path / file, "wb") as fh:
        fh.truncate(60 << 30)
    monkeypatch.setenv("MFATTN_DATA", str(tmp_path))
    with pytest.raises(datasets.MissingDataError, match="not the published"):
        datasets.locate("mnist", file)
    with pytest.raises(TypeError, match="download"):
        datasets.fetch("mnist", file, download="no", folder=tmp_path / "dl")
    assert all(set(d.sizes) == set(d.files) for d in datasets.DATASETS.values())


# --- a1274 a1308: --set size_ns=[1] and explicit_size=[8] passed the up-front check -------------------------------
def test_overrides_declare_their_domain():
    with pytest.raises(ValueError, match="size_ns"):
        profiles.check_override("ising", "size_ns", [1])
    with pytest.raises(ValueError, match="explicit_size"):
        profiles.check_override("deq", "explicit_size", [8])
    with pytest.raises(ValueError, match="seed_offsets"):   # sibling: chapter 3 asserts the first offset is 0
        profiles.check_override("transformer", "seed_offsets", [2])
    with pytest.raises(ValueError, match="repro_seeds"):    # sibling: the public code stored seeds 0-9 only
        profiles.check_override("designs", "repro_seeds", [10])
    with pytest.raises(ValueError, match="hop_counts"):     # sibling: a count of patterns is >= 1
        profiles.check_override("structural", "hop_counts", [0, 2])
    assert profiles.check_override("ising", "size_ns", [10, 12]) == [10, 12]
    assert profiles.check_override("deq", "explicit_size", [4, 2]) == [4, 2]
    for chapter, sizes in profiles.PROFILES.items():   # the profiles' own values pass their declarations
        for name in PROFILE_NAMES:
            for key, value in sizes[name].items():
                if value is not None:
                    profiles._checked_value(chapter, key, value)


PROFILE_NAMES = profiles.PROFILE_NAMES


def test_cli_set_refused_before_the_run(monkeypatch, capsys):
    import papermill

    from mfattn.__main__ import main

    monkeypatch.setattr(papermill, "execute_notebook", lambda *a, **k: pytest.fail("a chapter run started"))
    assert main(["reproduce", "--chapter", "ising", "--set", "size_ns=[1]"]) == 2
    assert "size_ns" in capsys.readouterr().err
    assert main(["reproduce", "--chapter", "deq", "--set", "explicit_size=[8]"]) == 2
    assert "explicit_size" in capsys.readouterr().err


# --- a1348: MFATTN_MAX_WORK=0 started a run that failed in a cell ---------------------------------------------------
def test_reproduce_reads_budgets_first(monkeypatch, tmp_path):
    import papermill

    monkeypatch.setattr(papermill, "execute_notebook", lambda *a, **k: pytest.fail("a chapter run started"))
    monkeypatch.setenv("MFATTN_MAX_WORK", "0")
    with pytest.raises(ValueError, match="MFATTN_MAX_WORK"):
        reproduce.reproduce(chapters=["ising"], out=tmp_path, overrides={"instances": 2})
    monkeypatch.setenv("MFATTN_MAX_WORK", "1e12")
    monkeypatch.setenv("MFATTN_MAX_BYTES", "-1")
    with pytest.raises(ValueError, match="MFATTN_MAX_BYTES"):
        reproduce.reproduce(chapters=["ising"], out=tmp_path)


# sibling: reproduce.ChapterOutcome was built without checks
def test_chapter_outcome_checks_fields():
    with pytest.raises(TypeError, match="ok"):
        reproduce.ChapterOutcome("ising", "no", 1.0, Path("x"))
    with pytest.raises(ValueError, match="seconds"):
        reproduce.ChapterOutcome("ising", True, float("nan"), Path("x"))
    with pytest.raises(ValueError, match="error"):
        reproduce.ChapterOutcome("ising", True, 1.0, Path("x"), "it failed")
    assert reproduce.ChapterOutcome("ising", False, 0.0, Path("x"), "").ok is False


# sibling: content_digest and the JSON writer stored a timedelta as its count
def test_times_have_no_digest_or_json(tmp_path):
    from mfattn.companion.caches import content_digest

    with pytest.raises(TypeError, match="timedelta64"):
        content_digest({"a": np.timedelta64(3)})
    with pytest.raises(TypeError, match="timedelta64"):
        store.atomic_write_json(tmp_path / "t.json", {"a": np.timedelta64(3)})
    assert content_digest({"a": np.int64(3)}) == content_digest({"a": 3})


# sibling of a1274: real sizes narrower than ">= 0" and sizes that bound each other, refused before the first cell
def test_real_sizes_and_relations_declared():
    with pytest.raises(ValueError, match="dampings"):      # a damping is a fraction in (0, 1]
        profiles.check_override("ising", "dampings", [0.5, 2.0])
    with pytest.raises(ValueError, match="mask_density"):  # a probability
        profiles.check_override("structural", "mask_density", 5.0)
    with pytest.raises(ValueError, match="exp_ps"):
        profiles.check_override("designs", "exp_ps", [0.0])
    with pytest.raises(ValueError, match="slot_sigma"):    # the chapter reads slot_sigmas.index(slot_sigma)
        profiles.check_run_work("structural", "quick", {"slot_sigma": 0.7})
    with pytest.raises(ValueError, match="rhos"):          # the chapter shows max(r for r in rhos if r < 1)
        profiles.check_run_work("transformer", "quick", {"rhos": [1.1]})
    assert profiles.check_override("ising", "dampings", [0.5, 0.2]) == [0.5, 0.2]
    assert profiles.check_run_work("structural", "quick", {"slot_sigma": 1.0}) >= 0


# siblings: the public dataclasses DataSet and Chapter were built without checks; check_file_target's name;
# a numpy time as a profile size (its .item() is its count)
def test_dataclasses_and_names_checked(tmp_path):
    with pytest.raises(ValueError, match="name"):
        datasets.DataSet(5, "MFATTN_X", {})
    with pytest.raises(ValueError, match="sizes"):
        datasets.DataSet("x", "MFATTN_X", {"a.bin": "0" * 64}, sizes={"a.bin": -3})
    with pytest.raises(TypeError, match="name"):
        profiles.Chapter(5, "book/x.ipynb", "t")
    with pytest.raises(ValueError, match="notebook"):
        profiles.Chapter("x", "../x.ipynb", "t")
    with pytest.raises(TypeError, match="name"):
        store.check_file_target(tmp_path / "x", 5)
    with pytest.raises(ValueError, match="size 'n'"):
        profiles.check_override("ising", "n", np.timedelta64(3))
    assert datasets.DataSet("x", "MFATTN_X", {"a.bin": "0" * 64}, sizes={"a.bin": 3}).sizes == {"a.bin": 3}
    assert profiles.Chapter("x", "book/x.ipynb", "t").name == "x"
    assert profiles.check_override("ising", "n", np.int64(3)) == 3


# siblings: --set naming one size twice kept the last silently; dmft's steps/transient under a protocol that replaces
# them were ignored silently
def test_cli_set_twice_and_ignored_sizes(monkeypatch, capsys):
    import papermill

    from mfattn.__main__ import main

    monkeypatch.setattr(papermill, "execute_notebook", lambda *a, **k: pytest.fail("a chapter run started"))
    assert main(["reproduce", "--chapter", "ising", "--set", "n=2", "--set", "n=3"]) == 2
    assert "'n' given more than once" in capsys.readouterr().err
    with pytest.raises(ValueError, match="'steps' of chapter 'dmft' has no effect"):
        profiles.check_run_work("dmft", "full", {"steps": 30000})
    assert profiles.check_run_work("dmft", "quick", {"steps": 30000}) >= 1
