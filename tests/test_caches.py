"""Caches are verified on load (issue 28, item 3): a planted, copied, truncated or other-code entry is
recomputed with a warning naming its path; temporary files of a run still going are never removed."""

import json
import os
import shutil
import socket
import subprocess
import sys
import time
import warnings

import numpy as np
import pytest
import torch

from mfattn.companion import caches, store
from mfattn.companion.caches import CacheWarning
from mfattn.dynamics import sweep as sweep_module
from mfattn.dynamics.sweep import sweep

BETAS = np.linspace(1.2, 1.5, 6)
SWEEP = dict(steps=2000, transient=1000, chunk_size=3, progress=False)


def _same(a, b) -> bool:
    return (np.array_equal(a.extent, b.extent) and np.array_equal(a.period, b.period)
            and all(np.array_equal(x, y) for x, y in zip(a.band, b.band)))


@pytest.fixture(scope="module")
def straight(tmp_path_factory):
    """A sweep of two chunks, uncached: what every recomputation must give back."""
    return sweep(BETAS, **SWEEP)


def _cached_sweep(folder):
    with warnings.catch_warnings():
        warnings.simplefilter("error", CacheWarning)  # a first run or a clean rerun warns about nothing
        res = sweep(BETAS, out_dir=folder, **SWEEP)
    return res, next(folder.iterdir())


def _planted_extent(path):
    """The chunk's arrays with the extent of its first β changed: valid content, wrong numbers."""
    arrays = store.load_npz(path)
    arrays["extent"] = arrays["extent"].copy()
    arrays["extent"][0] += 0.25
    return arrays


def _plant_without_record(path):
    arrays = _planted_extent(path)
    arrays.pop(caches.RECORD)
    np.savez_compressed(path, **arrays)


def _plant_keeping_the_record(path):
    np.savez_compressed(path, **_planted_extent(path))  # the old record, new numbers


def _plant_another_chunk(path):
    shutil.copyfile(path.with_name("chunk-00001.npz"), path)  # a whole, valid entry, but of another chunk


def _truncate(path):
    data = path.read_bytes()
    path.write_bytes(data[:len(data) // 2])


@pytest.mark.parametrize("plant, why", [
    (_plant_without_record, "records no content hash"),
    (_plant_keeping_the_record, "does not match its recorded content hash"),
    (_plant_another_chunk, "is the entry of '.*chunk-00001.npz', not of '.*chunk-00000.npz'"),
    (_truncate, "is truncated or damaged"),
])
def test_a_planted_or_damaged_sweep_chunk_is_recomputed_and_named(plant, why, straight, tmp_path):
    first, folder = _cached_sweep(tmp_path)
    assert _same(first, straight)
    chunk = folder / "chunk-00000.npz"
    plant(chunk)
    with pytest.warns(CacheWarning, match=f"cache entry {chunk}.* {why}.*recomputing it"):
        again = sweep(BETAS, out_dir=tmp_path, **SWEEP)
    assert _same(again, straight)  # the old code used the planted numbers: extent[0] off by 0.25
    rerun, _ = _cached_sweep(tmp_path)  # the recomputed chunk was written back, verified: no warning now
    assert _same(rerun, straight)


def test_a_chunk_made_by_other_code_is_recomputed(straight, tmp_path, monkeypatch):
    _cached_sweep(tmp_path)
    monkeypatch.setattr(sweep_module, "_chunk_code", lambda: "0123456789abcdef")
    with pytest.warns(CacheWarning, match="was computed by other code") as seen:
        again = sweep(BETAS, out_dir=tmp_path, **SWEEP)
    assert len(seen) == 2 and _same(again, straight)  # both chunks


def test_a_truncated_npz_names_its_path(tmp_path):
    path = store.atomic_save_npz(tmp_path / "x.npz", a=np.arange(10_000.0), b=np.ones((30, 30)))
    whole = path.read_bytes()
    for cut in (10, len(whole) // 2, len(whole) - 5):
        path.write_bytes(whole[:cut])
        with pytest.raises(ValueError, match=f"^{path} is not a readable .npz file .*truncated or damaged"):
            store.load_npz(path)
    flipped = bytearray(whole)
    flipped[len(whole) // 3] ^= 0xFF  # a flipped bit inside the compressed data: the CRC says so
    path.write_bytes(bytes(flipped))
    with pytest.raises(ValueError, match=str(path)):
        store.load_npz(path)
    with pytest.raises(FileNotFoundError):
        store.load_npz(tmp_path / "none.npz")


def test_content_digest_depends_on_values_not_on_storage(tmp_path):
    arrays = {"a": np.arange(6, dtype=np.float32).reshape(2, 3), "s": np.array("text"), "i": np.int64(3)}
    store.atomic_save_npz(tmp_path / "x.npz", **arrays)
    assert caches.content_digest(store.load_npz(tmp_path / "x.npz")) == caches.content_digest(
        {k: np.asarray(v) for k, v in arrays.items()})
    summary = {"acc": 0.975, "steps": 20, "config": {"betas": (0.9, 0.999), "x": None}, "ok": True}
    assert caches.content_digest(json.loads(json.dumps(summary))) == caches.content_digest(summary)
    t = torch.arange(4.0)
    assert caches.content_digest({"w": t}) == caches.content_digest({"w": t.numpy()})
    # any change of value, dtype, shape, key or kind changes it
    base = caches.content_digest(arrays)
    for other in ({**arrays, "a": arrays["a"].astype(np.float64)}, {**arrays, "a": arrays["a"].reshape(3, 2)},
                  {**arrays, "i": np.int64(4)}, {**arrays, "j": arrays["i"]}, {"a": arrays["a"]}):
        assert caches.content_digest(other) != base
    assert caches.content_digest([1, True]) != caches.content_digest([1, 1])
    assert caches.content_digest(["1"]) != caches.content_digest([1])
    with pytest.raises(TypeError, match="no canonical content"):
        caches.content_digest({"f": object()})


def test_cached_npz_computes_once_and_again_only_for_a_bad_entry(tmp_path):
    calls = []

    def compute():
        calls.append(1)
        return {"x": np.arange(5.0)}

    path = tmp_path / "designs" / "run-abc.npz"
    for _ in range(3):
        np.testing.assert_array_equal(caches.cached_npz(path, compute, code="c1")["x"], np.arange(5.0))
    assert len(calls) == 1 and sorted(store.load_npz(path)) == sorted(["x", caches.RECORD])
    with pytest.warns(CacheWarning, match="other code"):
        caches.cached_npz(path, compute, code="c2")
    assert len(calls) == 2
    shutil.copyfile(path, tmp_path / "designs" / "run-def.npz")  # another key's entry under this key's name
    with pytest.warns(CacheWarning, match="run-def.npz.* is the entry of 'designs/run-abc.npz'"):
        caches.cached_npz(tmp_path / "designs" / "run-def.npz", compute, code="c2")
    assert len(calls) == 3
    caches.cached_npz(path, compute, code="c2", use_cache=False)
    assert len(calls) == 4
    with pytest.raises(ValueError, match="reserved"):
        caches.save_cached_npz(path, {caches.RECORD: np.zeros(1)})


# --- the MNIST training cache: result.json, its parts, checkpoints (no MNIST needed) ----------------------------


def _finished_run(folder):
    """A run folder as train_mnist leaves it, written by its own helpers (no training)."""
    from mfattn.implicit import train

    folder.mkdir(parents=True)
    cfg = train.TrainConfig(epochs=1, train_limit=60, test_limit=60, steps_per_epoch=1)
    store.atomic_save_npz(folder / "history.npz", loss=np.array([2.3]), test_pred=np.arange(3))
    store.atomic_write_bytes(folder / "model.pt", b"weights")
    (folder / "weights").mkdir()
    store.atomic_write_bytes(folder / "weights" / "step_000001.pt", b"w1")
    parts = ["history.npz", "model.pt", "weights/step_000001.pt"]
    caches.save_cached_json(folder / "result.json", {"config": cfg.to_dict(), "test_accuracy": 0.5},
                            key=f"{folder.name}/result.json", code=train.code_version(),
                            files={p: folder / p for p in parts})
    return cfg


@pytest.mark.parametrize("tamper, why", [
    (lambda f: f.joinpath("result.json").write_text(f.joinpath("result.json").read_text().replace(
        '"test_accuracy": 0.5', '"test_accuracy": 0.99')), "does not match its recorded content hash"),
    (lambda f: store.atomic_write_bytes(f / "model.pt", b"other weights"), "lists model.pt, whose bytes differ"),
    (lambda f: store.atomic_save_npz(f / "history.npz", loss=np.array([0.1]), test_pred=np.arange(3)),
     "lists history.npz, whose bytes differ"),
    (lambda f: (f / "weights" / "step_000001.pt").unlink(), "lists weights/step_000001.pt, which is missing"),
    (lambda f: f.joinpath("result.json").write_text('{"config": {}, "test_accuracy": 1.0}'),
     "records no content hash"),
    (lambda f: f.joinpath("result.json").write_text('{"config": '), "is not valid JSON"),
])
def test_a_tampered_finished_run_is_not_loaded(tamper, why, tmp_path):
    from mfattn.implicit import train

    folder = tmp_path / "0123abcd"
    cfg = _finished_run(folder)
    res = train.finished_result(cfg, folder=folder)
    assert res.test_accuracy == 0.5 and caches.RECORD not in res.summary
    tamper(folder)
    with pytest.warns(CacheWarning, match=f"cache entry {folder / 'result.json'} {why}"):
        assert train.finished_result(cfg, folder=folder) is None
    with pytest.warns(CacheWarning):
        assert train.run_progress(cfg, folder=folder) is None  # neither finished nor a usable checkpoint


def test_a_copied_result_of_another_run_is_not_loaded(tmp_path):
    from mfattn.implicit import train

    cfg = _finished_run(tmp_path / "run-a")
    shutil.copytree(tmp_path / "run-a", tmp_path / "run-b")
    with pytest.warns(CacheWarning, match="is the entry of 'run-a/result.json', not of 'run-b/result.json'"):
        assert train.finished_result(cfg, folder=tmp_path / "run-b") is None


def test_checkpoints_carry_a_record_and_a_bad_one_starts_afresh(tmp_path):
    from mfattn.implicit import train

    state = {"config": {"seed": 0}, "model": {"w": torch.arange(6.0).reshape(2, 3)}, "epoch": 1,
             "logs": {"loss": [2.3, float("nan")]}, "snapshots": [torch.ones(2, 2)]}
    path = tmp_path / "run-a" / "checkpoint.pt"
    train._save_checkpoint(path, state)
    back = train._load_checkpoint(path)
    assert torch.equal(back["model"]["w"], state["model"]["w"]) and back["epoch"] == 1
    # planted: the same record, other weights
    planted = torch.load(path, weights_only=True)
    planted["model"]["w"] += 1
    torch.save(planted, path)
    with pytest.warns(CacheWarning, match=f"{path} does not match its recorded content hash.*starting the run afresh"):
        assert train._load_checkpoint(path) is None
    train._save_checkpoint(path, state)
    other = tmp_path / "run-b" / "checkpoint.pt"
    other.parent.mkdir()
    shutil.copyfile(path, other)
    with pytest.warns(CacheWarning, match="is the entry of 'run-a/checkpoint.pt'"):
        assert train._load_checkpoint(other) is None
    _truncate(path)
    with pytest.warns(CacheWarning, match=f"{path} is truncated or damaged"):
        assert train._load_checkpoint(path) is None


# --- temporary files: a run still going keeps its own --------------------------------------------------------------


def _dead_pid() -> int:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


@pytest.fixture
def live_pid():
    proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
    yield proc.pid
    proc.kill()
    proc.wait()


def _temp(folder, name, pid, host=None, suffix="tmp", age=0.0):
    host = host or store._host()
    path = folder / f".{name}.pid{pid}-{host}.a1b2c3d4.{suffix}"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("partial")
    os.utime(path, (time.time() - age, time.time() - age))
    return path


def test_only_the_temporaries_of_runs_that_no_longer_run_are_removed(tmp_path, live_pid):
    old = 3600.0
    live = [_temp(tmp_path, "manifest.json", live_pid, age=old),          # a second run, still writing
            _temp(tmp_path / "sub", "01_ising_tap", os.getpid(), suffix="ipynb", age=old),
            _temp(tmp_path, "x.npz", 4242, host="another-host", age=old)]   # can't tell: kept for a week
    dead = [_temp(tmp_path, "manifest.json", _dead_pid()),                 # killed a moment ago
            _temp(tmp_path / "sub", "01_ising_tap", _dead_pid(), suffix="ipynb"),
            _temp(tmp_path, "y.npz", 4242, host="another-host", age=8 * 24 * 3600)]
    others = [tmp_path / "notes.tmp", tmp_path / ".hidden", tmp_path / "chunk-00000.npz"]
    for p in others:
        p.write_text("x")
        os.utime(p, (time.time() - old, time.time() - old))
    removed = store.clean_stale_temporaries(tmp_path, older_than=time.time())
    assert sorted(removed) == sorted(dead)
    assert all(p.exists() for p in live + others)
    assert store.clean_stale_temporaries(tmp_path / "sub", recursive=False) == []


def test_temporary_names_carry_the_pid_and_host(tmp_path):
    path = store.temporary_path(tmp_path, "manifest.json")
    match = store._TEMP_RE.match(path.name)
    assert match and int(match["pid"]) == os.getpid() and match["name"] == "manifest.json"
    assert match["host"] == store._host() and set(match["host"]) <= set("abcdefghijklmnopqrstuvwxyz"
                                                                          "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-")
    assert socket.gethostname()  # the tag is this machine's name, cleaned to letters, digits and '-'
    assert store.clean_stale_temporaries(tmp_path) == [] and path.exists()  # ours, and we run


def test_opening_a_cache_folder_removes_a_killed_runs_temporaries(tmp_path, monkeypatch, live_pid):
    monkeypatch.setenv("MFATTN_CACHE", str(tmp_path))
    folder = tmp_path / "designs"
    dead, live = _temp(folder, "run.npz", _dead_pid()), _temp(folder, "run2.npz", live_pid)
    assert store.cache_dir("designs") == folder
    assert not dead.exists() and live.exists()
    chunk_folder = tmp_path / "sweeps" / "0123456789abcdef"
    dead = _temp(chunk_folder, "chunk-00000.npz", _dead_pid())
    assert sweep_module._chunk_folder(tmp_path / "sweeps", "0123456789abcdef") == chunk_folder
    assert not dead.exists()


def test_a_second_reproduce_keeps_the_notebook_of_a_run_still_going(tmp_path, monkeypatch, live_pid, capsys):
    """Run 1 (alive) is writing its notebook in the output folder when run 2 starts: run 2 removes only what
    a killed run left (before: every temporary file older than its start, run 1's notebook included)."""
    from pathlib import Path

    import papermill

    from mfattn.companion import reproduce as rep

    monkeypatch.setenv("MFATTN_OUTPUT", str(tmp_path))
    monkeypatch.setenv("MFATTN_FIGURES", str(tmp_path / "figures"))
    monkeypatch.setenv("MFATTN_CACHE", str(tmp_path / "cache"))
    out = tmp_path / "reproduce" / "quick"
    running = _temp(out, "01_ising_tap", live_pid, suffix="ipynb", age=600)
    killed = _temp(out, "01_ising_tap", _dead_pid(), suffix="ipynb", age=600)
    killed_cache = _temp(tmp_path / "cache" / "deq" / "mnist" / "abc", "checkpoint.pt", _dead_pid(), age=600)
    monkeypatch.setattr(papermill, "execute_notebook", lambda source, target, **kw: Path(target).write_text("{}"))
    monkeypatch.setattr(rep, "_check_parameters", lambda source, params: None)
    (outcome,) = rep.reproduce(chapters=["ising"], progress=False)
    assert outcome.ok
    assert running.exists() and not killed.exists() and not killed_cache.exists()
    err = capsys.readouterr().err
    assert str(killed) in err and str(killed_cache) in err and str(running) not in err
