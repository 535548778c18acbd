"""Speed of the mean-field map of the 1-bit transformer (chapter 6): this checkout against a baseline commit,
measured side by side in one run.

Rows (time per β-step, i.e. one step of the map for one β; CPU time of one thread, minimum over repeats):

1. the reference implementation (``muxitox/Dynamical-MF-Self-Attention`` at commit de41c41,
   class ``HopfieldTransformerMFInfNPE``: one Python object per β), run from a scratch checkout
   outside the repository (it has no licence: it is never copied here). Fetch it with::

       git clone https://github.com/muxitox/Dynamical-MF-Self-Attention .scratch/dmft-reference
       git -C .scratch/dmft-reference checkout de41c41

   and pass ``--reference .scratch/dmft-reference`` (the default); without it that row is skipped;
2. the per-β map of :mod:`mfattn.dynamics.map` (the readable reference, one β at a time) and the
   engine run with one β (:func:`mfattn.dynamics.engine.simulate`, B = 1);
3. the batched engine over ``--batch`` β (numpy float64; with the tangent map for λ_max; torch float64),
   for this checkout and for ``--baseline`` (a commit, default the last one before this engine's
   rewrite) and for the commits of ``--also`` (default: 0.1.0's engine, map only), each in its own worker
   process, alternated repeat by repeat;
4. with ``--diagram``: one whole Fig. 3a diagram (4001 β × 1.2×10⁵ steps: ``sweep.sweep`` with the
   online reductions of the saved steps, i.e. quantising every post-transient m^o_1, the band and
   stroboscopic sections, extent and period) for both, wall and CPU time, and a digest of the results of
   each, which must agree bit for bit.

The baseline's code is taken from git (``git archive``) into a temporary folder; nothing in the
checkout changes. The machine is shared: CPU time (``time.process_time``) counts only the time our
process ran, the wall time also counts waiting for a core; both are printed and stored.
``--save`` writes ``data/benchmarks/bench_dmft.json`` (the numbers, the commits and the machine:
CPU model, thread count, numpy/torch/python versions, load average). Targets (issue 30): ≤ 60 ns per
β-step batched numpy on one CPU thread; one diagram ≤ 40 s. Usage::

    python benchmarks/bench_dmft.py [--baseline COMMIT] [--repeats 5] [--diagram] [--save]
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import platform
import subprocess
import sys
import tarfile
import tempfile
import textwrap
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from mfattn.companion.machine import cpu_model  # noqa: E402
from mfattn.dynamics import map as mf_map  # noqa: E402
from mfattn.dynamics.engine import simulate  # noqa: E402
from mfattn.dynamics.model import paper_model  # noqa: E402

#: The engine before issue 30 (the last commit of main before the rewrite).
BASELINE = "38851a1"
#: Also timed, batched rows only: the last commit of 0.1.0 (the engine the issue's "111 ns" refers to).
ALSO = ("462c7dc",)
RESULTS = ROOT / "data" / "benchmarks" / "bench_dmft.json"
DIAGRAM = (4001, 120_000, 100_000)  # Fig. 3a: β grid size, steps, transient
THREADS = {"OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}

# Drives the reference model class through its public constructor (our own few lines, run in a
# separate process from inside the scratch checkout so that its imports resolve there).
REFERENCE_DRIVER = textwrap.dedent("""
    import sys, time, numpy as np
    sys.path.insert(0, ".")
    from models.Embedding import Embedding
    from models.HopfieldTransformerMFInfNPE import HopfieldTransformerMFInfNPE
    steps, beta = int(sys.argv[1]), float(sys.argv[2])
    vocab = Embedding(99, 2)
    np.random.seed(1)
    HT = HopfieldTransformerMFInfNPE(beta, 2.2, num_feat_patterns=3, positional_embedding_bitsize=2,
        vocab=vocab, context_size=4, max_sim_steps=steps, min_saved_step=0,
        normalize_weights_str_att="N**2*np.sqrt(M)", normalize_weights_str_o="N",
        reorder_weights=False, correlations_from_weights=3, num_segments_corrs=3, pe_mode=0,
        semantic_embedding_bitsize=99, epsilon_pe=0.02, compute_inf_normalization=True,
        N_normalization=9999, scaling_o=1, scaling_att=100)
    HT.reset_data()
    x0 = HT.Wo[0].copy(); x0[-2:] = -1
    t0 = time.process_time()
    HT.simulate(x0, max_steps=steps)
    dt = time.process_time() - t0
    print(dt, repr(HT.mf_statistics["mo_se"][-1].tolist()))
""")

# One engine (this checkout's or the baseline's, whichever ``root`` holds) in a process of its own: each
# stdin line is a job, each stdout line its JSON answer. Works with 0.1.0's module layout (mfattn.dmft) too.
WORKER = textwrap.dedent("""
    import hashlib, json, sys, time
    import numpy as np
    sys.path.insert(0, sys.argv[1])
    try:
        from mfattn.dynamics.engine import simulate
        from mfattn.dynamics.sweep import sweep
    except ImportError:
        from mfattn.dmft import simulate, sweep

    def digest(*arrays):
        h = hashlib.sha256()
        for a in arrays:
            h.update(np.ascontiguousarray(a).tobytes())
        return h.hexdigest()[:16]

    print(json.dumps({"ready": True}), flush=True)
    for line in sys.stdin:
        job = json.loads(line)
        w0, c0 = time.perf_counter(), time.process_time()
        if job["kind"] == "diagram":
            B, steps, transient = job["size"]
            res = sweep(np.linspace(0.0, 3.0, B), steps, transient, progress=None)
            c, w = time.process_time() - c0, time.perf_counter() - w0
            d = digest(np.concatenate(res.levels), np.concatenate(res.band), res.extent, res.period,
                       *(res.contexts[k] for k in sorted(res.contexts)))
        else:
            B, steps = job["size"]
            r = simulate(np.linspace(0.0, 3.0, B), steps, steps - 1, backend=job.get("backend", "numpy"),
                         lyapunov=job["kind"] == "tangent")
            c, w = time.process_time() - c0, time.perf_counter() - w0
            d = digest(r.m_o, *(r.context[k] for k in sorted(r.context)),
                       *([] if r.lyapunov is None else [r.lyapunov]))
        print(json.dumps({"cpu": c, "wall": w, "digest": d}), flush=True)
""")


class Worker:
    """A process timing one checkout's engine (see ``WORKER``)."""

    def __init__(self, root: Path, label: str):
        self.label = label
        env = dict(os.environ, **THREADS)
        self.proc = subprocess.Popen([sys.executable, "-c", WORKER, str(root)], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True, env=env, cwd=tempfile.gettempdir())
        assert json.loads(self.proc.stdout.readline())["ready"]

    def run(self, **job) -> dict:
        self.proc.stdin.write(json.dumps(job) + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError(f"the {self.label} worker stopped (job {job})")
        return json.loads(line)

    def close(self):
        self.proc.stdin.close()
        self.proc.wait()


def checkout(commit: str, folder: Path) -> Path:
    """The package of ``commit`` (``git archive``), unpacked under ``folder``; the checkout is not touched."""
    data = subprocess.run(["git", "-C", str(ROOT), "archive", "--format=tar", commit, "mfattn"],
                          capture_output=True, check=True).stdout
    folder.mkdir(parents=True, exist_ok=True)
    tar = folder / "package.tar"
    tar.write_bytes(data)
    with tarfile.open(tar) as tf:
        tf.extractall(folder, filter="data")
    return folder


def git(*args: str) -> str:
    out = subprocess.run(["git", "-C", str(ROOT), *args], capture_output=True, text=True)
    return out.stdout.strip() if out.returncode == 0 else "unknown"


def machine() -> dict:
    model = cpu_model()
    import torch

    return {"cpu": model, "cores": os.cpu_count(), "threads": 1, "numpy": np.__version__, "torch": torch.__version__,
            "python": platform.python_version(), "system": f"{platform.system()} {platform.machine()}"}


def time_reference(path: Path, steps: int, beta: float):
    if not (path / "models" / "HopfieldTransformerMFInfNPE.py").exists():
        return None
    out = subprocess.run([sys.executable, "-c", REFERENCE_DRIVER, str(steps), str(beta)], cwd=path,
                         capture_output=True, text=True, timeout=3600, env=dict(os.environ, **THREADS))
    if out.returncode != 0:
        print("reference failed:", out.stderr[-2000:])
        return None
    dt, last = out.stdout.strip().split(" ", 1)
    return float(dt), np.array(ast.literal_eval(last))  # a printed list of floats: parsed, never executed


def per_beta_rows(betas, steps: int, repeats: int) -> dict:
    """CPU seconds per β-step of map.py's per-β map and of the engine with B = 1 (min over repeats)."""
    model = paper_model()
    out = {"per-β map (map.py, the readable reference)": [], "engine, one β at a time (B = 1)": []}
    for _ in range(repeats):
        c0 = time.process_time()
        for b in betas:
            mf_map.trajectory(model, b, steps)
        out["per-β map (map.py, the readable reference)"].append((time.process_time() - c0) / (len(betas) * steps))
        c0 = time.process_time()
        for b in betas:
            simulate([b], steps=steps, transient=steps - 1)
        out["engine, one β at a time (B = 1)"].append((time.process_time() - c0) / (len(betas) * steps))
    return {k: min(v) for k, v in out.items()}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--baseline", default=BASELINE, help="commit whose engine is timed beside this checkout's")
    ap.add_argument("--also", nargs="*", default=list(ALSO),
                    help="more commits whose batched engine is timed in the same loop (default: 0.1.0's engine)")
    ap.add_argument("--reference", type=Path, default=ROOT / ".scratch" / "dmft-reference")
    ap.add_argument("--ref-steps", type=int, default=4000)
    ap.add_argument("--loop-betas", type=int, default=4)
    ap.add_argument("--loop-steps", type=int, default=2000)
    ap.add_argument("--batch", type=int, default=4001)
    ap.add_argument("--steps", type=int, default=1500)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--diagram", action="store_true", help="also time one whole 4001 × 1.2e5 diagram with each")
    ap.add_argument("--save", action="store_true", help=f"store the numbers in {RESULTS.relative_to(ROOT)}")
    args = ap.parse_args(argv)

    import torch

    torch.set_num_threads(1)
    info = machine()
    load0 = os.getloadavg()
    head = git("rev-parse", "--short", "HEAD") + ("+dirty" if git("status", "--porcelain", "--", "mfattn") else "")
    base = git("rev-parse", "--short", args.baseline)
    also = [git("rev-parse", "--short", c) for c in args.also]
    print(f"machine: {info['cpu']}, {info['cores']} cores, 1 thread; numpy {info['numpy']}, torch {info['torch']}; "
          f"load average {load0[0]:.2f}")
    print(f"this checkout: {head}; baseline: {base}")
    rows: dict[str, dict] = {}
    ns = lambda sec: sec * 1e9  # noqa: E731

    ref = time_reference(args.reference, args.ref_steps, 3.0)
    if ref is not None:
        dt, last = ref
        rows["reference (de41c41, one β per process)"] = {"cpu_ns": ns(dt / args.ref_steps)}
        ours = simulate([3.0], steps=args.ref_steps, transient=args.ref_steps - 1).m_o[0, -1]
        print(f"reference vs ours, m^o at t={args.ref_steps - 1}, β=3: max |diff| = {np.abs(last - ours).max():.1e}")
    else:
        print(f"reference checkout not found at {args.reference}: skipping that row")

    betas = np.linspace(0.0, 3.0, args.batch)
    loop_betas = betas[np.linspace(0, args.batch - 1, args.loop_betas).astype(int)]
    for name, sec in per_beta_rows(loop_betas, args.loop_steps, max(1, args.repeats // 2)).items():
        rows[name] = {"cpu_ns": ns(sec)}

    with tempfile.TemporaryDirectory() as tmp:
        workers = {"this checkout": Worker(ROOT, "current"),
                   "baseline": Worker(checkout(args.baseline, Path(tmp) / "baseline"), "baseline")}
        for c in also:
            workers[f"commit {c}"] = Worker(checkout(c, Path(tmp) / c), c)
        jobs = {"batched numpy": {"kind": "batched"}, "batched numpy + tangent (λ_max)": {"kind": "tangent"}}
        timings = {(j, w): [] for j in jobs for w in workers if j == "batched numpy" or not w.startswith("commit")}
        digests = {}
        for _ in range(args.repeats):  # alternate the engines job by job
            for (j, w) in timings:
                r = workers[w].run(size=[args.batch, args.steps], **jobs[j])
                timings[j, w].append(r)
                digests.setdefault(j, set()).add(r["digest"])
        workers["this checkout"].run(kind="batched", backend="torch", size=[args.batch, 10])  # torch's first call
        r = workers["this checkout"].run(kind="batched", backend="torch", size=[args.batch, args.steps])
        rows[f"batched torch (B = {args.batch}), this checkout"] = {
            "cpu_ns": ns(r["cpu"] / (args.batch * args.steps)), "wall_ns": ns(r["wall"] / (args.batch * args.steps))}
        for (j, w), rs in timings.items():
            per = args.batch * args.steps
            rows[f"{j} (B = {args.batch}), {w}"] = {
                "cpu_ns": ns(min(x["cpu"] for x in rs) / per), "wall_ns": ns(min(x["wall"] for x in rs) / per),
                "cpu_ns_repeats": [ns(x["cpu"] / per) for x in rs]}
        identical = {j: len(d) == 1 for j, d in digests.items()}
        diagram = {}
        if args.diagram:
            for w in ("this checkout", "baseline"):
                worker = workers[w]
                r = worker.run(kind="diagram", size=list(DIAGRAM))
                diagram[w] = {"cpu_s": r["cpu"], "wall_s": r["wall"], "digest": r["digest"]}
                print(f"whole Fig. 3a diagram ({DIAGRAM[0]} β × {DIAGRAM[1]:.1e} steps, online reductions), {w}: "
                      f"{r['cpu']:.1f} s CPU, {r['wall']:.1f} s wall")
            identical["diagram"] = len({d["digest"] for d in diagram.values()}) == 1
        for worker in workers.values():
            worker.close()

    ref_ns = rows.get("reference (de41c41, one β per process)", {}).get("cpu_ns")
    n_diagram = DIAGRAM[0] * DIAGRAM[1]
    print(f"\n{'implementation':58s} {'ns per β-step':>13s} {'(wall)':>8s} {'× ref':>7s} {'one diagram':>12s}")
    for name, row in rows.items():
        row["projected_diagram_s"] = row["cpu_ns"] * 1e-9 * n_diagram
        ratio = f"{ref_ns / row['cpu_ns']:7.0f}" if ref_ns else f"{'n/a':>7s}"
        wall = f"{row['wall_ns']:8.0f}" if "wall_ns" in row else f"{'':8s}"
        proj = row["projected_diagram_s"]
        print(f"{name:58s} {row['cpu_ns']:13.1f} {wall} {ratio} "
              f"{(f'{proj / 3600:9.1f} h' if proj > 3600 else f'{proj:9.0f} s'):>12s}")
    cur = rows[f"batched numpy (B = {args.batch}), this checkout"]["cpu_ns"]
    old = rows[f"batched numpy (B = {args.batch}), baseline"]["cpu_ns"]
    cur_t = rows[f"batched numpy + tangent (λ_max) (B = {args.batch}), this checkout"]["cpu_ns"]
    old_t = rows[f"batched numpy + tangent (λ_max) (B = {args.batch}), baseline"]["cpu_ns"]
    print(f"this checkout against the baseline ({base}), same run: {old / cur:.2f}× (map), {old_t / cur_t:.2f}× "
          f"(map + tangent); bit for bit the same results: {identical}")
    targets = {"ns_per_beta_step_max": 60.0, "diagram_s_max": 40.0, "ns_per_beta_step_met": cur <= 60.0}
    if diagram:
        targets["diagram_met_cpu"] = diagram["this checkout"]["cpu_s"] <= 40.0
        targets["diagram_met_wall"] = diagram["this checkout"]["wall_s"] <= 40.0
    print(f"targets (issue 30): <= 60 ns per β-step batched ({cur:.1f}: {'met' if cur <= 60 else 'not met'})"
          + (f"; one diagram <= 40 s ({diagram['this checkout']['cpu_s']:.1f} s CPU, "
             f"{diagram['this checkout']['wall_s']:.1f} s wall)" if diagram else ""))
    load1 = os.getloadavg()
    if args.save:
        from mfattn.companion import store

        record = {"machine": info, "load_average": {"start": load0[0], "end": load1[0]},
                  "commits": {"this checkout": head, "baseline": base, "also": also},
                  "settings": {"batch": args.batch, "steps": args.steps, "repeats": args.repeats,
                               "loop_betas": args.loop_betas, "loop_steps": args.loop_steps,
                               "timer": "CPU time of one thread (time.process_time), minimum over repeats"},
                  "rows": rows, "speedup_vs_baseline": {"map": old / cur, "map_and_tangent": old_t / cur_t},
                  "bit_identical_to_baseline": identical, "diagram": diagram, "targets": targets,
                  "measured": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
        store.atomic_write_json(RESULTS, record)
        print(f"saved to {RESULTS.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
