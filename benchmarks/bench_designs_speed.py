"""Chapter 5's full profile before and after issue 30's speed-ups, side by side in one run (one thread, CPU time).

Each training part of ``python -m mfattn reproduce --profile full --chapter designs`` (the parts of
``bench_designs_profile.py``) runs for ``--steps`` steps at the full profile's sizes with no cache, once with
the package as it was before the speed-ups ("old": ``mfattn/`` of commit ``--base``, extracted with
``git archive`` into a temporary folder) and once as it is ("new"), each in its own subprocess, alternating
``--repeats`` times (the fastest of each kept, so that a busy machine's slow spells count against neither).
A run of one step gives the part's fixed cost (the held-out evaluation; the replay's skipped streams); its CPU
time per further step, (t(steps) - t(1)) / (steps - 1), times the profile's steps estimates the part's time in the
full profile, before and after.
A digest of every array of a part's results (the cache key, which names the code, left out) is compared old
and new, and a part whose results differ is marked.

The speed-ups (issue 30, item 2), bit for bit: multi-hop draws each step's batches for all seeds with
``sample_multihop_batches`` (each seed's draws from its own streams, the arithmetic batched) and takes one
backward pass for all models; expanding attention's sweep loop calls the unchecked forms of ``effective_q`` and
``geometric_horizon``, and runs as ``_sweep_without_graph`` / ``_sweep_with_graph`` (the steps that round exactly
in numpy, each row recorded once at its stopping sweep). Not bit for bit: multi-hop's paired training computes in the token-major layout
(``multihop._forward_token_major``: the same functions summed in another order, equal to float64 rounding, see
tests/test_multihop.py), so its three paired parts are marked as differing; chapter 5's full-profile re-run on
the new code is what shows its verdicts unchanged. The replay keeps the public code's arithmetic and stays
identical.

``--save`` writes ``data/benchmarks/bench_designs_speed.json`` with the machine.

Run:  python benchmarks/bench_designs_speed.py [--steps 100] [--repeats 2] [--parts multihop-paper,...] [--save]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
#: main before issue 30's chapter-5 speed-ups
BASE = "06b6e3085d5727aae14d95e40b8dc7883c30e8a7"


def parts(F):
    """(name, key, full-profile steps, run(n) -> results, replay?) for every training part of the full profile,
    with whichever ``mfattn`` is first on the path (the worker's)."""
    from mfattn.structural import analysis, expanding as ex, multihop as mh

    common = dict(seeds=F["seeds"], batch_size=F["batch_size"], hops=F["hops"], record_every=F["record_every"],
                  test_size=F["test_size"], cache=False)
    paper = mh.MultihopTask(mode="paper", rank=F["rank"])
    abl = mh.MultihopTask(mode="paper", rank=F["rank"], root="noise")
    replay = dict(task=mh.MultihopTask(mode="code"), protocol="code", record_every=1000, test_size=F["test_size"],
                  cache=False)
    ec = dict(ps=F["exp_ps"], seeds=F["exp_seeds"], batch_size=F["exp_batch"], cache=False)
    d0 = F["exp_dims"][0]
    out = [("multi-hop, paper's task, 5 models", "multihop-paper", F["steps"], lambda n: mh.train_multihop(
               mh.MODEL_NAMES + mh.CONTROL_NAMES, task=paper, steps=n, **common), False),
           ("multi-hop, code's task, 3 models", "multihop-code", F["steps"], lambda n: mh.train_multihop(
               mh.MODEL_NAMES, task=mh.MultihopTask(mode="code"), steps=n, **common), False),
           ("multi-hop ablation, 5 models", "multihop-ablation", F["abl_steps"], lambda n: mh.train_multihop(
               mh.MODEL_NAMES + mh.CONTROL_NAMES, task=abl, steps=n, **{**common, "seeds": F["abl_seeds"]}), False),
           ("replay of the public code's run", "replay", F["repro_steps"], lambda n: mh.train_multihop(
               ("multihop", "one_layer"), F["repro_seeds"], steps=n, **replay), True),
           (f"expanding, learnable prior, d = {d0}", "expanding-learn", F["exp_steps"], lambda n: ex.train_expanding(
               d=d0, steps=n, learn_prior=True, models=("expanding",), **ec), False)]
    for d in F["exp_dims"]:
        todo = {"paper": {}, "code": analysis.CODE_SETTING}
        if d == d0:
            todo.update({k: {**kw, "models": ("expanding",)} for k, kw in analysis.PRIOR_VARIANTS.items()
                         if "learn_prior" not in kw})
        out.append((f"expanding, {len(todo)} settings in one loop, d = {d}", f"expanding-{d}", F["exp_steps"],
                    lambda n, todo=todo, d=d: ex.train_expanding_variants(todo, d=d, steps=n, **ec), False))
    return out


def _digest(result) -> str:
    """sha256 of every array of a part's results, by name (the cache key, which names the code, left out)."""
    items = result.items() if "loss/expanding" in result or "record_steps" in result else (
        (f"{name}/{k}", v) for name, run in result.items() for k, v in run.items())
    h = hashlib.sha256()
    for k, v in sorted((k, np.asarray(v)) for k, v in items if not k.endswith("config")):
        h.update(f"{k}:{v.dtype}:{v.shape}".encode())
        h.update(np.ascontiguousarray(v).tobytes())
    return h.hexdigest()


def worker(key: str, steps: int) -> None:
    """Run one part (in a subprocess whose path starts with the old or the new package) and print its CPU time."""
    import torch

    from mfattn.companion import profiles

    torch.set_num_threads(1)
    F = profiles.get_profile("designs", "full")
    run = next(p for p in parts(F) if p[1] == key)[3]
    c0 = time.process_time()
    run(1)                     # one step: the fixed cost (the held-out evaluation, the replay's skipped streams)
    out = {"fixed_s": time.process_time() - c0}
    c0 = time.process_time()
    result = run(steps)
    out["cpu_s"] = time.process_time() - c0
    out["digest"] = _digest(result)
    print("RESULT " + json.dumps(out))


def _spawn(root: Path, key: str, steps: int, cache: str) -> dict:
    env = dict(os.environ, PYTHONPATH=str(root), OMP_NUM_THREADS="1", MKL_NUM_THREADS="1", MFATTN_CACHE=cache)
    cmd = [sys.executable, str(Path(__file__).resolve()), "--worker", key, "--steps", str(steps),
           "--root", str(root)]
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True, cwd=str(root))
    line = next((x for x in proc.stdout.splitlines() if x.startswith("RESULT ")), None)
    if proc.returncode != 0 or line is None:
        raise RuntimeError(f"worker {key} ({root}) failed:\n{proc.stderr[-3000:]}")
    return json.loads(line[len("RESULT "):])


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=100, help="steps timed per part and variant")
    parser.add_argument("--repeats", type=int, default=2, help="old/new alternations (the fastest of each kept)")
    parser.add_argument("--parts", default="", help="comma-separated part keys (default: all)")
    parser.add_argument("--base", default=BASE, help="the commit whose mfattn/ is 'old'")
    parser.add_argument("--save", action="store_true", help="write data/benchmarks/bench_designs_speed.json")
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    parser.add_argument("--root", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        sys.path.insert(0, args.root)
        return worker(args.worker, args.steps)
    sys.path.insert(0, str(ROOT))
    from mfattn.companion import profiles, store
    from mfattn.companion.machine import cpu_model

    F, N = profiles.get_profile("designs", "full"), args.steps
    if N < 2:
        raise ValueError(f"--steps must be at least 2 (one step gives the fixed cost); got {N}")
    chosen = [(name, key, full) for name, key, full, _, _ in parts(F)
              if not args.parts or key in args.parts.split(",")]
    rows = []
    with tempfile.TemporaryDirectory(prefix="bench-designs-") as tmp:
        old_root = Path(tmp) / "old"
        old_root.mkdir()
        archive = subprocess.run(["git", "-C", str(ROOT), "archive", "--format=tar", args.base, "mfattn", "_toc.yml"],
                                 capture_output=True, check=True).stdout
        (Path(tmp) / "old.tar").write_bytes(archive)
        with tarfile.open(Path(tmp) / "old.tar") as tf:
            tf.extractall(old_root, filter="data")
        roots = {"old": old_root, "new": ROOT}
        for name, key, full_steps in chosen:
            best, fixed, digests = {"old": np.inf, "new": np.inf}, {"old": np.inf, "new": np.inf}, {}
            for _ in range(args.repeats):
                for variant in ("old", "new"):
                    res = _spawn(roots[variant], key, N, str(Path(tmp) / "cache"))
                    fixed[variant] = min(fixed[variant], res["fixed_s"])
                    best[variant] = min(best[variant], res["cpu_s"] - res["fixed_s"])   # steps 2..N
                    digests.setdefault(variant, set()).add(res["digest"])
            same = len(digests["old"] | digests["new"]) == 1
            row = {"part": name, "key": key, "full_steps": full_steps, "identical": same}
            for variant in ("old", "new"):
                per_step = best[variant] / (N - 1)
                row[f"{variant}_fixed_s"] = fixed[variant]
                row[f"{variant}_ms_per_step"] = 1e3 * per_step
                row[f"{variant}_estimate_s"] = fixed[variant] + per_step * (full_steps - 1)
            row["ratio"] = row["old_estimate_s"] / row["new_estimate_s"]
            rows.append(row)
            print(f"{name:44s} {row['old_ms_per_step']:7.2f} -> {row['new_ms_per_step']:7.2f} ms/step x "
                  f"{full_steps:>6}: {row['old_estimate_s']:6.1f} -> {row['new_estimate_s']:6.1f} s "
                  f"({row['ratio']:.2f}x){'' if same else '  RESULTS DIFFER'}", flush=True)
    old, new = (sum(r[f"{v}_estimate_s"] for r in rows) for v in ("old", "new"))
    print(f"{'training, full profile (estimate)':44s} {old:7.0f} -> {new:7.0f} s = {old / 60:.1f} -> "
          f"{new / 60:.1f} min ({old / new:.2f}x); results identical: {all(r['identical'] for r in rows)}")
    if args.save:
        import torch

        path = ROOT / "data" / "benchmarks" / "bench_designs_speed.json"
        meta = {"steps_timed": N, "repeats": args.repeats, "threads": 1, "base": args.base,
                "head": subprocess.run(["git", "-C", str(ROOT), "rev-parse", "HEAD"], capture_output=True,
                                       text=True).stdout.strip(),
                "times": "process CPU time of each part in its own subprocess, fastest of the repeats, "
                         "extrapolated to the full profile's steps",
                "machine": f"{cpu_model()}, {os.cpu_count()} cores, {platform.system()} {platform.machine()}",
                "python": platform.python_version(), "torch": torch.__version__,
                "command": "python benchmarks/bench_designs_speed.py --save"}
        store.atomic_write_json(path, {"meta": meta, "rows": rows, "old_total_s": old, "new_total_s": new})
        print(f"saved {path.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
