"""Figures and results a reader can cite and verify: same bytes on the page and in the manifest,
the code digest behind each result, stale/dirty/incomplete detection, seeds kept apart."""

import os
import time
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402

from mfattn import ChapterRun  # noqa: E402
from mfattn.companion import chapter, manifest, store  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def glued(tmp_path, monkeypatch):
    monkeypatch.setenv("MFATTN_FIGURES", str(tmp_path))
    out = {}
    monkeypatch.setattr(chapter, "_glue", lambda name, value: out.__setitem__(name, value))
    return out


def _plot():
    fig, ax = plt.subplots(figsize=(4, 3))
    ax.plot([0, 1, 2], [0, 1, 4])
    return fig


def test_the_page_shows_the_bytes_the_manifest_hashes(glued, tmp_path):
    run = ChapterRun("ising", profile="quick", device="cpu")
    run.figure(_plot(), "fig-test-bytes", paper_figure="new")
    path = tmp_path / "quick" / "fig-test-bytes.png"
    image = glued["fig-test-bytes"]
    assert image.data == path.read_bytes()
    assert store.sha256_file(path) == manifest.read_manifest("quick")["fig-test-bytes"]["sha256"]
    # shown at its on-screen size: 4 in at the style's figure.dpi (110), stored at savefig.dpi (150)
    assert abs(image.width - 4 * 110) <= 60


def test_full_profile_figures_get_a_vector_copy_and_a_citable_note(glued, tmp_path):
    run = ChapterRun("ising", profile="full", device="cpu")
    run.figure(_plot(), "fig-test-vector", paper_figure="new")
    entry = manifest.read_manifest("full")["fig-test-vector"]
    pdf = tmp_path / "full" / entry["vector"]
    first_pdf = pdf.read_bytes()
    assert pdf.suffix == ".pdf" and first_pdf.startswith(b"%PDF")
    run.figure(_plot(), "fig-test-vector", paper_figure="new")  # deterministic bytes, PDF included
    assert manifest.read_manifest("full")["fig-test-vector"]["sha256"] == entry["sha256"]
    assert pdf.read_bytes() == first_pdf
    quick = ChapterRun("ising", profile="quick", device="cpu")
    entry = manifest.read_manifest("full")["fig-test-vector"]
    assert quick.stored_figure("fig-test-vector") == entry
    note = glued["fig-test-vector-full-note"]
    assert entry["sha256"][:8] in note and entry["git_commit"][:8] in note and "--chapter ising" in note
    with pytest.raises(FileNotFoundError, match="no full-profile result of 'fig-not-stored'"):
        quick.stored_figure("fig-not-stored")


def test_check_reports_current_stale_dirty_missing_and_incomplete(glued, tmp_path, monkeypatch):
    run = ChapterRun("ising", profile="full", device="cpu")
    import mfattn.ising  # noqa: F401  (a physics module the "chapter" imported)

    run.figure(_plot(), "fig-test-current", paper_figure="new")
    status = {r["key"]: r["status"] for r in manifest.check("full")}
    assert status["fig-test-current"] in ("current", "dirty")  # dirty when this checkout has changes
    entry = manifest.read_manifest("full")["fig-test-current"]
    assert "mfattn.ising" in entry["code_modules"] and entry["code_digest"]
    # the code changed since: stale
    manifest.update("full", 0, "manifest", "fig-test-current", {**entry, "code_digest": "0" * 16})
    assert {r["key"]: r["status"] for r in manifest.check("full")}["fig-test-current"] == "stale"
    # the file changed: missing
    (tmp_path / "full" / "fig-test-current.png").write_bytes(b"not the figure")
    assert {r["key"]: r["status"] for r in manifest.check("full")}["fig-test-current"] == "missing"
    # made from a dirty tree
    manifest.update("full", 0, "manifest", "fig-test-dirty", {**entry, "git_commit": "abc+dirty",
                                                              "file": "fig-test-vector.png"})
    run.figure(_plot(), "fig-test-vector", paper_figure="new")
    dirty = manifest.read_manifest("full")["fig-test-vector"]
    manifest.update("full", 0, "manifest", "fig-test-vector", {**dirty, "git_commit": "abc+dirty"})
    assert {r["key"]: r["status"] for r in manifest.check("full")}["fig-test-vector"] == "dirty"
    # the run never reached its end (no run.verdicts()): incomplete
    rows = manifest.check("full")
    assert {"kind": "run", "key": "ising", "chapter": "ising", "status": "incomplete"} in rows
    run.verdicts()
    assert not [r for r in manifest.check("full") if r["kind"] == "run"]


def test_results_are_recorded_with_their_code(glued, tmp_path):
    run = ChapterRun("ising", profile="full", device="cpu")
    target = store.atomic_write_json(tmp_path / "full" / "summary.json", {"x": 1})  # in the run's folder
    run.result(target, "a summary")
    (key, entry), = manifest.read_results("full").items()
    assert entry["sha256"] == store.sha256_file(target) and entry["description"] == "a summary"
    with pytest.raises(FileNotFoundError, match="does not exist"):
        run.result(tmp_path / "nothing.json", "nothing")


def test_stale_temporaries_of_a_killed_run_are_removed(tmp_path):
    ours = [tmp_path / ".manifest.json.k2j4h5g6.tmp", tmp_path / "sub" / ".02_deep.x8s7d6f5.ipynb"]
    theirs = [tmp_path / "notes.tmp", tmp_path / ".hidden", tmp_path / "fig.png"]
    for p in ours + theirs:
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text("x")
    young = tmp_path / ".ledger.json.abcdefgh.tmp"  # written by a run still going: kept
    young.write_text("x")
    old = time.time() - 3600
    for p in ours + theirs:
        os.utime(p, (old, old))
    removed = manifest.clean_stale_temporaries(tmp_path, older_than=time.time() - 60)
    assert sorted(removed) == sorted(ours)
    assert all(p.exists() for p in theirs) and young.exists()


def test_a_lock_left_by_a_killed_process_is_broken_and_none_stays(tmp_path):
    target = tmp_path / "manifest.json"
    lock = tmp_path / ".manifest.json.lock"
    lock.write_text("999999999\nsomehost-that-is-this-one\n")  # a dead holder
    lock.write_text(f"999999999\n{os.uname().nodename}\n")
    with store.locked(target, timeout=5):
        store.atomic_write_json(target, {"ok": True})
    assert not lock.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["manifest.json"]


def test_a_run_records_the_commit_it_started_from(glued, monkeypatch):
    # a commit or merge made while a long run goes on must not relabel the figures it saves later
    monkeypatch.setattr(chapter, "git_commit", lambda: "a" * 40)
    run = ChapterRun("ising", profile="full", device="cpu")
    monkeypatch.setattr(chapter, "git_commit", lambda: "b" * 40 + "+dirty")
    run.figure(_plot(), "fig-test-commit", paper_figure="new")
    assert manifest.read_manifest("full")["fig-test-commit"]["git_commit"] == "a" * 40
    assert manifest.read_runs("full")["ising"]["git_commit"] == "a" * 40


def test_a_runs_own_stored_results_do_not_mark_it_dirty(tmp_path, monkeypatch):
    import subprocess

    def git(*args):
        subprocess.run(["git", *args], cwd=tmp_path, check=True, capture_output=True)

    git("init", "-q")
    (tmp_path / "data" / "full").mkdir(parents=True)
    (tmp_path / "data" / "full" / "manifest.json").write_text("{}")
    (tmp_path / "code.py").write_text("x = 1\n")
    git("add", ".")
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "init")
    monkeypatch.setattr(store, "project_root", lambda *a: tmp_path)
    assert not manifest.git_commit().endswith("+dirty")
    (tmp_path / "data" / "full" / "manifest.json").write_text('{"fig": 1}')   # the run's own output
    assert not manifest.git_commit().endswith("+dirty")
    (tmp_path / "code.py").write_text("x = 2\n")                              # a code change
    assert manifest.git_commit().endswith("+dirty")


def test_setting_the_repository_url_does_not_make_stored_results_stale(tmp_path):
    """.ci/set-repository rewrites the Colab install cells' URL: the code digest must not change, while any
    other edit of a code cell must."""
    import json

    from mfattn.companion import manifest

    nb = json.loads((Path(__file__).resolve().parents[1] / "book" / "02_deep_implicit_attention.ipynb").read_text())
    original = tmp_path / "a.ipynb"
    original.write_text(json.dumps(nb))
    moved = json.loads(json.dumps(nb).replace("https://github.com/mfattn/mfattn", "https://github.com/some-lab/mf-attn.v2"))
    assert json.dumps(moved) != json.dumps(nb)
    (tmp_path / "b.ipynb").write_text(json.dumps(moved))
    assert manifest._notebook_code(tmp_path / "b.ipynb") == manifest._notebook_code(original)
    code = next(c for c in moved["cells"] if c["cell_type"] == "code" and "profile" in "".join(c["source"]))
    code["source"] = "".join(code["source"]).replace('"quick"', '"full"', 1)
    (tmp_path / "c.ipynb").write_text(json.dumps(moved))
    assert manifest._notebook_code(tmp_path / "c.ipynb") != manifest._notebook_code(original)


def test_verdict_modules_are_out_of_the_digest_and_legacy_entries_use_their_source_at_their_commit(monkeypatch):
    """A rule changed after a result was made does not make it stale; a result recorded while the digest still
    held the verdict modules is checked with their source as of its commit (and only then)."""
    import hashlib

    from mfattn.companion import manifest as mf

    mods = ["mfattn.claims", "mfattn.ising"]
    ising = (Path(mf.__file__).resolve().parents[1] / "ising.py").read_bytes()
    old_rules = b"the rules as they were"
    h = hashlib.sha256()
    h.update(b"mfattn.claims\0" + old_rules)
    h.update(b"mfattn.ising\0" + ising)
    recorded = h.hexdigest()[:16]
    monkeypatch.setattr(mf, "_source_at", lambda commit, path: old_rules if commit == "abc1234" else None)
    entry = {"code_modules": mods, "notebook": None, "git_commit": "abc1234", "code_digest": recorded}
    assert mf._digest_of_entry(entry) == recorded
    assert mf._digest_of_entry({**entry, "git_commit": "def5678"}) is None        # source not found: not current
    new = hashlib.sha256(b"mfattn.ising\0" + ising).hexdigest()[:16]
    assert mf.digest_of(mods, None) == new == mf.digest_of(["mfattn.ising"], None)   # rules left out today
    assert mf.decides_only("mfattn.structural.claims_designs") and not mf.decides_only("mfattn.dynamics.verdict_numbers")


def test_source_at_reads_a_file_as_committed():
    import subprocess

    from mfattn.companion import manifest as mf

    root = Path(__file__).resolve().parents[1]
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=root, capture_output=True, text=True).stdout.strip()
    if not head:
        pytest.skip("not a git checkout")
    committed = subprocess.run(["git", "show", "HEAD:CHANGELOG.md"], cwd=root, capture_output=True).stdout
    assert mf._source_at(head, root / "CHANGELOG.md") == committed
    assert mf._source_at("not-a-commit; rm -rf /", root / "CHANGELOG.md") is None


# ---------------------------------------------------------------------------------------------
# JSON written by the package is standard JSON; cache keys need values with a stable representation
# ---------------------------------------------------------------------------------------------
import json  # noqa: E402
import math  # noqa: E402

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

SETTINGS = settings(max_examples=150, deadline=None, derandomize=True, database=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])


def _strict_load(text: str):
    def refuse(name):
        raise ValueError(f"{name} is not standard JSON")
    return json.loads(text, parse_constant=refuse)


def test_stored_json_is_standard_json():
    """Every JSON file under data/ parses with a strict parser (no NaN, Infinity), and the stored manifests,
    results, runs and ledger pass the entry checks of their readers."""
    files = sorted((ROOT / "data").rglob("*.json"))
    assert files
    for path in files:
        _strict_load(path.read_text(encoding="utf-8"))
    full = ROOT / "data" / "full"
    for name, required in (("figures/manifest.json", ("file", "sha256")), ("figures/results.json", ("sha256",)),
                           ("figures/runs.json", ("status",)), ("ledger.json", ("claim_id", "verdict"))):
        if (full / name).exists():
            store.read_entries(full / name, required)


_leaves = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=True, allow_infinity=True),
                    st.sampled_from([float("nan"), float("inf"), -float("inf")]), st.text(max_size=4))
_json_like = st.recursive(_leaves, lambda inner: st.one_of(st.lists(inner, max_size=3),
                                                           st.dictionaries(st.text(max_size=3), inner, max_size=3)),
                          max_leaves=8)


def _finite(obj) -> bool:
    if isinstance(obj, float):
        return math.isfinite(obj)
    if isinstance(obj, dict):
        return all(_finite(v) for v in obj.values())
    if isinstance(obj, list):
        return all(_finite(v) for v in obj)
    return True


@given(obj=_json_like)
@SETTINGS
def test_atomic_write_json_writes_standard_json_or_names_the_key(obj, tmp_path):
    path = tmp_path / "out.json"
    if _finite(obj):
        store.atomic_write_json(path, obj)
        assert _strict_load(path.read_text()) == json.loads(json.dumps(store._jsonable(obj)))
    else:
        with pytest.raises(ValueError, match=r"out.json: .* is NaN or infinite"):
            store.atomic_write_json(path, obj)


@given(obj=_json_like)
@SETTINGS
def test_config_hash_is_stable_or_refuses(obj):
    if _finite(obj):
        assert store.config_hash(obj) == store.config_hash(json.loads(json.dumps(obj)))
    else:
        with pytest.raises(ValueError, match="NaN or infinite"):
            store.config_hash(obj)


@pytest.mark.parametrize("value", [object(), {1, "a"}, [lambda x: x], {"x": type("T", (), {})()}])
def test_config_hash_refuses_values_without_a_stable_representation(value):
    with pytest.raises(TypeError, match="config"):
        store.config_hash({"key": value})


def test_config_hash_of_a_set_is_its_sorted_items_and_known_hashes_are_unchanged():
    import numpy as np

    assert store.config_hash({"s": {"b", "a", "c"}}) == store.config_hash({"s": ["a", "b", "c"]})
    # the keys of caches already on disk: supported values hash as they did before the strict checks
    cfg = {"a": 1, "b": [1.5, "x", None, True], "arr": np.arange(3), "f": np.float32(0.5), "p": Path("x/y"), "t": (1, 2)}
    assert store.config_hash(cfg) == "51a8af95e4e991fb"
