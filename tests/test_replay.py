"""The certified replay that lets the stored runs stand for a changed training code (mfattn.implicit.replay)."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pytest

from mfattn.companion import store
from mfattn.implicit import replay, trained
from mfattn.implicit.runs import code_version

RUNS = trained.runs_folder()
CHANGE = "a sentence long enough to say what changed"


def _logs(names, n=5):
    out = {}
    for name in names:
        for key in replay.LOG_KEYS:
            out[f"{name}/{key}"] = (np.arange(10) if key == "eval.pred" else np.linspace(0.5, 2.0, n)).copy()
        out[f"{name}/backward_iterations"][:] = np.nan          # a run with no backward solve logs NaN
    return out


def test_identical_logs_are_identical_and_nan_equals_nan():
    old = _logs(["r"])
    got = replay.compare_logs(old, {k: v.copy() for k, v in old.items()}, ["r"])
    assert got == {"r": {"identical": True, "steps": 5, "first_difference": None, "max_abs_difference": 0.0}}


@pytest.mark.parametrize("key", replay.LOG_KEYS)
def test_one_bit_anywhere_breaks_identity(key):
    old = _logs(["r"])
    new = {k: v.copy() for k, v in old.items()}
    a = new[f"r/{key}"]
    if a.dtype.kind == "f":
        a[...] = np.where(np.isnan(a), 1.0, np.nextafter(a, np.inf))   # the smallest step a float can take
    else:
        a[0] += 1
    got = replay.compare_logs(old, new, ["r"])["r"]
    assert not got["identical"] and got["first_difference"] == key


def test_a_shorter_replay_is_not_identical():
    old, new = _logs(["r"], 5), _logs(["r"], 4)
    got = replay.compare_logs(old, new, ["r"])["r"]
    assert not got["identical"] and got["max_abs_difference"] == float("inf")


LINK = {"steps": 100, "eval_images": 1000, "runs": {"r": {"identical": True, "steps": 100}}}


def test_reaches_follows_certified_links_only():
    links = [{"from": "a", "to": "b", **LINK}, {"from": "b", "to": "c", **LINK}, {"from": "x", "to": "a", **LINK}]
    assert replay.reaches("c", "c", [])                    # today's code needs no link
    assert replay.reaches("a", "c", links) and replay.reaches("x", "c", links)
    assert not replay.reaches("c", "a", links)             # links have a direction
    assert not replay.reaches("a", "c", links, run="other")  # a link certifies only the runs it replayed
    assert not replay.reaches("a", "z", links + [{"from": "c", "to": "a", **LINK}])  # a cycle ends
    with pytest.raises(TypeError, match="code and today"):
        replay.reaches(None, "c", links)
    with pytest.raises(TypeError, match="links must be a list"):
        replay.reaches("a", "c", {"links": links})


def test_lineage_files_are_checked(tmp_path):
    assert replay.load_lineage(tmp_path) == []
    good = {"links": [{"from": "a", "to": "b", **LINK}]}
    store.atomic_write_json(tmp_path / replay.LINEAGE, good)
    assert replay.load_lineage(tmp_path) == good["links"]
    for bad in ({"links": [{"from": "a", "to": "b", **LINK, "runs": {"r": {"identical": False, "steps": 3}}}]},
                {"links": [{"from": "a", "to": "b", **LINK, "runs": {"r": {"identical": True, "steps": 2}}}]},
                {"links": [{"from": "a", "to": "b", **LINK, "runs": {}}]},
                {"links": [{"from": "a", "to": "b", "runs": LINK["runs"]}]},           # no steps, no eval_images
                {"links": [{"from": "", "to": "b", **LINK}]}, {"links": {}}, [1]):
        store.atomic_write_json(tmp_path / replay.LINEAGE, bad)
        with pytest.raises(ValueError, match="lineage.json: not a lineage of certified links"):
            replay.load_lineage(tmp_path)


def test_lineage_readers_refuse_what_is_not_a_folder_or_a_file(tmp_path):
    (tmp_path / "plain").write_text("x")
    with pytest.raises(NotADirectoryError, match="folder: .* is not a folder of stored runs"):
        replay.load_lineage(tmp_path / "plain")
    (tmp_path / "d" / replay.LINEAGE).mkdir(parents=True)          # a folder where the file goes
    with pytest.raises(Exception, match="lineage.json"):
        replay.load_lineage(tmp_path / "d")
    for index in (None, {}, {"runs": []}, {"runs": {"a": 3}}, {"runs": {"a": {"config": {}}}}):
        folder = tmp_path / f"i{len(list(tmp_path.iterdir()))}"
        folder.mkdir()
        if index is not None:
            store.atomic_write_json(folder / "index.json", index)
        with pytest.raises(ValueError, match="index.json: (not an index|no index) of stored runs"):
            replay.lineage_text(folder)


def test_reaches_refuses_uncertified_links():
    with pytest.raises(ValueError, match="certified links only"):
        replay.reaches("a", "b", [{"from": "a", "to": "b", **LINK, "runs": {"x": {"identical": False, "steps": 3}}}],
                       run="x")
    with pytest.raises(ValueError, match="non-empty digests"):
        replay.reaches("", "", [])


def test_the_stored_runs_reach_todays_code():
    """Every stored run restores: trained by today's code, or by code a certified replay links to it, each link
    having replayed that run bit-identically over at least 100 steps."""
    index = store.read_json(RUNS / "index.json")
    links = replay.load_lineage(RUNS)
    for name, entry in index["runs"].items():
        assert replay.reaches(entry["code"], code_version(), links, run=name), name
    for link in links:
        assert link["steps"] >= 100 and link["eval_images"] >= 1000
        assert set(link["runs"]) == set(index["runs"])     # every stored run, not a sample
        assert all(r["identical"] and r["steps"] == link["steps"] for r in link["runs"].values())


def test_restore_refuses_other_code_without_a_link(tmp_path, monkeypatch):
    folder = tmp_path / "runs"
    folder.mkdir()
    name = sorted(store.read_json(RUNS / "index.json")["runs"])[0]
    entry = store.read_json(RUNS / "index.json")["runs"][name]
    (folder / entry["file"]).write_bytes((RUNS / entry["file"]).read_bytes())
    store.atomic_write_json(folder / "index.json", {"runs": {name: {**entry, "code": "0000000000000000"}}, "missing": []})
    monkeypatch.setenv("MFATTN_CACHE", str(tmp_path / "cache"))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert trained.restore(folder) == {}
    assert any("no certified replay links the two" in str(w.message) for w in caught)


def test_compare_logs_refuses_what_is_not_a_numeric_log():
    old = _logs(["r"])
    for bad in (None, np.array(["a", "b"]), [1.0, 2.0]):
        new = {**old, "r/loss": bad}
        with pytest.raises(TypeError, match=r"new\['r/loss'\] must be a numeric numpy array"):
            replay.compare_logs(old, new, ["r"])


def test_certify_refuses_unknown_runs_and_commits():
    with pytest.raises(ValueError, match="names: .*not stored runs"):
        replay.certify("HEAD", CHANGE, names=["no-such-run"])
    with pytest.raises(ValueError, match="steps"):
        replay.certify("HEAD", CHANGE, steps=0)
    with pytest.raises(ValueError, match="old_commit: 'not-a-commit-anywhere' is not a commit"):
        replay.certify("not-a-commit-anywhere", CHANGE, names=[])
    with pytest.raises(TypeError, match="names must be an iterable of run names"):
        replay.certify("HEAD", CHANGE, names=3)


def test_the_stored_runs_hold_no_non_finite_number():
    """What makes deq.solve's one change of behaviour (refusing a map NaN or inf at every iterate) unable to have
    fired on a stored run: every stored loss, evaluation loss and weight is finite."""
    got = replay.stored_nonfinite()
    assert got["runs"] == len(store.read_json(RUNS / "index.json")["runs"]) and got["numbers"] > 6_000_000
    assert got["loss"] == got["test_loss"] == got["weights"] == 0


def test_a_link_below_the_floor_is_not_certified(tmp_path):
    short = {"links": [{"from": "a", "to": "b", "steps": 40, "eval_images": 1000,
                        "runs": {"r": {"identical": True, "steps": 40}}}]}
    store.atomic_write_json(tmp_path / replay.LINEAGE, short)
    with pytest.raises(ValueError, match="not a lineage of certified links"):
        replay.load_lineage(tmp_path)
    with pytest.raises(ValueError, match="change must say in a sentence"):
        replay.certify("HEAD", "x", names=[])
    with pytest.raises(ValueError, match="steps must be"):
        replay.certify("HEAD", "a sentence long enough to say what changed", steps=40, names=[])


def test_restore_refuses_another_device(tmp_path, monkeypatch):
    folder = tmp_path / "runs"
    folder.mkdir()
    index = store.read_json(RUNS / "index.json")
    name = sorted(index["runs"])[0]
    (folder / index["runs"][name]["file"]).write_bytes((RUNS / index["runs"][name]["file"]).read_bytes())
    (folder / replay.LINEAGE).write_bytes((RUNS / replay.LINEAGE).read_bytes())
    store.atomic_write_json(folder / "index.json", {"runs": {name: index["runs"][name]}, "missing": []})
    monkeypatch.setenv("MFATTN_CACHE", str(tmp_path / "cache"))
    with pytest.raises(ValueError, match=r"^device: .* was trained on cpu; restoring it as a cuda run"):
        trained.restore(folder, device="cuda")


def test_stored_nonfinite_counts_what_is_planted(tmp_path):
    runs = {}
    for name, loss, w in (("a", [1.0, np.nan], [0.5, np.inf]), ("b", [2.0, 3.0], [-np.inf, 1.0])):
        np.savez(tmp_path / f"{name}.npz", **{"history.loss": np.asarray(loss), "history.test_loss": np.asarray([np.nan]),
                                               "model.w": np.asarray(w), "kept.w": np.asarray([[1.0, np.nan]]),
                                               "history.forward_residual": np.asarray([np.nan])})   # not counted
        runs[name] = {"file": f"{name}.npz", "config": {}, "code": "x"}
    store.atomic_write_json(tmp_path / "index.json", {"runs": runs})
    got = replay.stored_nonfinite(tmp_path)
    assert got == {"runs": 2, "loss": 1, "test_loss": 2, "weights": 4, "numbers": 4 + 2 + 4 + 4,
                   "residual": 2, "steps": 2}                       # the logged residuals: counted apart
