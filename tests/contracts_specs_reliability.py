"""Contract specs of issue 44's budgets and of the store's split (readers, writers), see contracts_registry.py.

The readers and writers touch files: generation calls them inside a temporary folder of their own (a forked child
must not write into the test session's folders); their hostile files (FIFOs, devices, crafted ``.npz`` headers, zip
bombs, NaN in JSON, system folders, non-JSON objects) are the cases of tests/test_reliability.py.
"""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

from contracts_registry import Spec

K = "mfattn.companion."


def _scores():
    import torch

    return torch.zeros(3, 2, dtype=torch.float64)


CHAPTERS = ["ising", "deq", "transformer", "structural", "designs", "dmft"]

SPECS = {
    K + "store_json:finite_or_none": Spec(lambda d: {"obj": {"x": d(st.floats(0, 1))}}),
    K + "checks_budgets:check_work": Spec(lambda d: {"name": "steps", "units": d(st.integers(0, 10**6))},
                                          domain={"units": ">=0"}, sizes={"units": 10**30},
                                          skip=("name", "what", "unit", "env"), names={"units": ("steps",)}),
    K + "checks_budgets:max_work": Spec(lambda d: {}),
    K + "checks_budgets:admit_chapter_work": Spec(lambda d: {}),
    K + "stored_kinds:kind_of": Spec(lambda d: {"value": d(st.floats(0, 1))}, skip=("value",)),
    K + "stored_kinds:stored_kinds": Spec(lambda d: {}),
    K + "stored_kinds:check_kind": Spec(lambda d: {"key": "x", "value": d(st.floats(0, 1)), "kinds": {"x": "number"}},
                                        skip=("key", "value")),
    K + "stored_kinds:describe": Spec(lambda d: {"kind": ("list", "number"), "plural": d(st.booleans())},
                                      skip=("kind",)),
    K + "stored_views:StoredNumbers": Spec(lambda d: {"numbers": {"x": d(st.floats(0, 1))}}),
    K + "stored_views:stored_view": Spec(lambda d: {"s": {"x": d(st.floats(0, 1))}}),
    K + "stored_views:guard_claims": Spec(lambda d: {"namespace": {"__name__": "toy_claims"}}),
    K + "stored_views:check_key": Spec(lambda d: {"name": "key", "key": d(st.sampled_from(["acc_mean", "x_seeds"]))},
                                       skip=("name",), names={"key": ("key",)}, check=lambda kw, r: r == kw["key"]),
    K + "stored_views:check_keys": Spec(lambda d: {"name": "keys", "keys": d(st.sampled_from([["a"], ("a", "b_c")]))},
                                        skip=("name",), names={"keys": ("keys",)},
                                        check=lambda kw, r: r == tuple(kw["keys"])),
    K + "checks_budgets:env_positive": Spec(lambda d: {"name": "MFATTN_TEST_UNSET_BUDGET", "unit": "bytes"},
                                            skip=("name", "unit")),
    K + "store_read:max_json_bytes": Spec(lambda d: {}),
    K + "profiles:work_factor": Spec(lambda d: {}),
    K + "profiles:run_work": Spec(lambda d: {"chapter": d(st.sampled_from(CHAPTERS)), "sizes": {}}),
    K + "profiles:check_run_work": Spec(lambda d: {"chapter": "dmft", "profile": "quick",
                                                   # steps above the profile's transient (4000): it discards those
                                                   "overrides": {"steps": d(st.integers(4001, 10**5))}}),
    K + "work:work_of": Spec(lambda d: {"key": "mfattn.dynamics.engine:simulate",
                                        "arguments": {"betas": [1.0, 1.2], "steps": d(st.integers(1, 10**6))}}),
    K + "work:check_call_work": Spec(lambda d: {"key": "mfattn.structural.edges:sinkhorn_edge_marginals",
                                                "arguments": {"q": _scores(), "k": _scores(),
                                                              # at most 2e5 iterations: 50,000 units each (the floor
                                                              # of a tiny state) stay inside the default 1e10
                                                              "iters": d(st.integers(1, 2 * 10**5))}},
                                     skip=("what",)),
    # a record (a parameter's name and a function), no computation: every registry entry is checked by
    # tests/test_reliability.py (test_every_work_entry_names_a_function_with_its_loop_parameter)
    K + "work_units:Entry": Spec(lambda d: {"parameter": d(st.sampled_from(["steps", "n", "trials", "instances"])),
                                      "work": lambda arguments: ("steps", 1, "one step")}),
}


# --- the store's readers and writers, inside a folder of their own ----------------------------------------------
# Every call runs (in the forked child) with a private temporary folder as its working folder, so that a relative
# hostile path ("x") lands there, never in the checkout; the valid files are written there by ``valid``. Their
# special-file cases (FIFOs, devices, crafted .npz, system folders) stay in tests/test_reliability.py.
_TMP = None


def _tmp():
    import atexit
    import shutil
    import tempfile
    from pathlib import Path

    global _TMP
    if _TMP is None:
        _TMP = Path(tempfile.mkdtemp(prefix="mfattn-contracts-store-"))
        atexit.register(shutil.rmtree, _TMP, ignore_errors=True)
    return _TMP


def _inside(fn, kw):
    """``fn(**kw)`` with the temporary folder as the working folder; a missing file (FileNotFoundError, the
    documented answer of the readers to a path where nothing is) comes back as a marker."""
    import os

    here = _tmp() / "cwd" / getattr(fn, "__name__", "call")   # one working folder per callable
    here.mkdir(parents=True, exist_ok=True)
    os.chdir(here)
    try:
        return fn(**kw)
    except FileNotFoundError as err:
        return f"missing: {err}"


def _path(d, name):
    """A path in the temporary folder, as a Path or a string."""
    path = _tmp() / name
    return path if d(st.booleans()) else str(path)


def _json_file(d):
    import json

    path = _tmp() / f"numbers-{d(st.integers(0, 3))}.json"
    path.write_text(json.dumps({"a": {"name": "x", "value": d(st.floats(0, 1))}, "b": {"name": "y"}}))
    return path if d(st.booleans()) else str(path)


def _npz_file(d):
    import numpy as np

    path = _tmp() / "arrays.npz"
    np.savez(path, x=np.full(3, d(st.floats(0, 1))), n=np.arange(4))
    return path if d(st.booleans()) else str(path)


def _array(d):
    import numpy as np

    return np.full((2, 3), d(st.floats(-1, 1)))


def _held(fn, kw):
    """Hold the lock once (the context manager), inside the temporary folder."""
    def hold(**kwargs):
        with fn(**kwargs):
            return "held"
    return _inside(hold, kw)


def _cache_dir(fn, kw):
    """cache_dir under $MFATTN_CACHE pointed at the temporary folder (the forked child's environment only)."""
    import os

    os.environ["MFATTN_CACHE"] = str(kw["root"] / "cache-root")
    return fn(kw["part"])


def _record(d):
    from mfattn.companion.caches import cache_record

    content = {"x": _array(d)}
    code = d(st.sampled_from([None, "abc"]))
    return {"record": cache_record(content, "k", code), "content": content, "key": d(st.sampled_from(["k", "other"])),
            "code": code}


def _cached(d, kind):
    """A cache entry written in the temporary folder (its default key: <folder>/<file>)."""
    from mfattn.companion.caches import save_cached_json, save_cached_npz

    path = _tmp() / "cache" / f"entry.{kind}"
    if kind == "npz":
        save_cached_npz(path, {"x": _array(d)}, code="abc")
    else:
        save_cached_json(path, {"x": d(st.floats(0, 1))}, code="abc")
    return path if d(st.booleans()) else str(path)


def _inside_of(fn, kw):
    """store.inside on a name that stays inside (nested=False: a plain name only)."""
    name = kw["name"] if kw.get("nested", True) or not isinstance(kw["name"], str) else kw["name"].split("/")[-1]
    return fn(kw["folder"], name, nested=kw["nested"])


_ANY_ARRAY = ("nan-entry", "inf-entry", "complex", "integer")   # a writer stores whatever array it is given

SPECS.update({
    K + "store_write:check_target_folder": Spec(lambda d: {"folder": _path(d, f"out-{d(st.integers(0, 9))}"),
                                                           "name": "out_dir"}, call=_inside),
    K + "store_write:make_folder": Spec(lambda d: {"folder": _path(d, f"made/{d(st.integers(0, 99))}"), "name": "out_dir"},
                                        call=_inside),
    K + "store_write:temporary_path": Spec(lambda d: {"folder": _path(d, "temps"), "name": d(st.sampled_from(
        ["result.json", "cache.npz", "notebook"])), "suffix": d(st.sampled_from([".tmp", ".ipynb"])),
        "draw": d(st.floats(0, 1))}, skip=("draw",),
        call=lambda fn, kw: _inside(fn, {k: v for k, v in kw.items() if k != "draw"})),
    K + "store_write:clean_stale_temporaries": Spec(lambda d: {"folder": _path(d, "temps"),
                                                               "older_than": 1.7e9 - d(st.floats(0, 1e6)),
                                                               "recursive": d(st.booleans())}, call=_inside),
    K + "store_write:atomic_write_bytes": Spec(lambda d: {"path": _path(d, "w/bytes.bin"),
                                                          "data": d(st.binary(max_size=64))}, call=_inside),
    K + "store_write:atomic_write_text": Spec(lambda d: {"path": _path(d, "w/text.txt"), "text": d(st.text(max_size=40))},
                                              call=_inside),
    K + "store_write:atomic_write_json": Spec(lambda d: {"path": _path(d, "w/numbers.json"),
                                                         "obj": {"x": d(st.floats(-1, 1)), "n": [1, 2], "s": "t"}},
                                              call=_inside),
    K + "store_write:atomic_save_npz": Spec(lambda d: {"path": _path(d, "w/arrays.npz"), "a": _array(d)},
                                            call=lambda fn, kw: _inside(fn, {"path": kw["path"], "a": kw["a"]}),
                                            allow={"a": _ANY_ARRAY}),
    K + "store_read:read_json": Spec(lambda d: {"path": _json_file(d), "default": d(st.sampled_from([None, {}]))},
                                     call=_inside),
    K + "store_read:read_object": Spec(lambda d: {"path": _json_file(d), "what": d(st.sampled_from(["summary", "index"]))},
                                       call=_inside),
    K + "store_read:read_entries": Spec(lambda d: {"path": _json_file(d), "required": ("name",),
                                                   "what": d(st.sampled_from(["entry", "run"]))}, call=_inside),
    K + "store_read:load_npz": Spec(lambda d: {"path": _npz_file(d)}, call=_inside),
    K + "store_read:check_regular_file": Spec(lambda d: {"path": _json_file(d), "what": "JSON file"}, call=_inside),
    K + "store_read:read_text_file": Spec(lambda d: {"path": _json_file(d), "what": "JSON file",
                                                     "limit": d(st.integers(1000, 10**6))},
                                          call=_inside, domain={"limit": "int>=0"}),
    # the result cache (mfattn.companion.caches): entries written and read back in the temporary folder
    K + "caches:cache_record": Spec(lambda d: {"content": {"x": _array(d), "n": 3}, "key": "chunk-0",
                                               "code": d(st.sampled_from([None, "abc123"]))}),
    K + "caches:check_cache_record": Spec(lambda d: _record(d), skip=("record",)),
    K + "caches:save_cached_npz": Spec(lambda d: {"path": _path(d, "cache/a.npz"), "arrays": {"x": _array(d)},
                                                  "key": d(st.sampled_from([None, "a/b"])), "code": "abc"},
                                       call=_inside),
    K + "caches:load_cached_npz": Spec(lambda d: {"path": _cached(d, "npz"), "key": None, "code": "abc"}, call=_inside),
    K + "caches:cached_npz": Spec(lambda d: {"path": _path(d, f"cache/c{d(st.integers(0, 2))}.npz"),
                                             "compute": lambda: {"x": np.arange(3.0)}, "code": "abc",
                                             "use_cache": d(st.booleans()), "draw": d(st.floats(0, 1))},
                                  skip=("draw",), call=lambda fn, kw: _inside(fn, {k: v for k, v in kw.items()
                                                                                   if k != "draw"})),
    K + "caches:save_cached_json": Spec(lambda d: {"path": _path(d, "cache/a.json"), "obj": {"x": d(st.floats(0, 1))},
                                                   "key": d(st.sampled_from([None, "a/b"])), "code": "abc"},
                                        call=_inside),
    K + "caches:load_cached_json": Spec(lambda d: {"path": _cached(d, "json"), "key": None, "code": "abc"},
                                        call=_inside),
    K + "store:inside": Spec(lambda d: {"folder": _path(d, "cache"), "name": d(st.sampled_from(["a.json", "b/c.npz"])),
                                        "nested": d(st.booleans()), "draw": d(st.floats(0, 1))}, skip=("draw",),
                             call=lambda fn, kw: _inside_of(fn, kw)),
    # the store's own helpers (mfattn.companion.store), in the temporary folder
    K + "store:sha256_file": Spec(lambda d: {"path": _json_file(d)}, call=_inside),
    K + "store:check_file_target": Spec(lambda d: {"path": _path(d, f"out/{d(st.integers(0, 9))}/f.json"),
                                                   "name": "--out", "draw": d(st.floats(0, 1))}, skip=("draw",),
                                        call=lambda fn, kw: _inside(fn, {"path": kw["path"], "name": kw["name"]})),
    K + "store:code_digest": Spec(lambda d: {"length": d(st.integers(1, 64))}, domain={"length": "int>=1"},
                                  call=lambda fn, kw: fn(np, **kw)),
    K + "store:locked": Spec(lambda d: {"path": _path(d, "locks/manifest.json"), "timeout": d(st.floats(1, 600))},
                             domain={"timeout": ">=0"}, allow={"timeout": ("inf",)}, call=_held),
    K + "store:cache_dir": Spec(lambda d: {"part": d(st.sampled_from(["dmft", "deq", "runs-1"])), "root": _tmp(),
                                           "draw": d(st.floats(0, 1))}, skip=("draw", "root"), call=_cache_dir,
                                names={"part": ("cache_dir part",)}),
    K + "checks_scalars:check_path": Spec(lambda d: {"name": "out_dir", "value": d(st.sampled_from(["a/b", "c.json"])),
                                                     "draw": d(st.floats(0, 1))}, skip=("name", "draw"),
                                          call=lambda fn, kw: fn(kw["name"], kw["value"]), names={"value": ("out_dir",)}),
})
