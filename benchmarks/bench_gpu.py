"""GPU timings of the book's heavy loops (issue 31, item 3), each beside its CPU counterpart, in one run.

Sections (each writes its numbers as soon as it has them; a section that fails records its error and the run goes on):

``dmft``
    Chapter 6's Fig. 3a on the GPU exactly as the chapter runs it with ``--device cuda`` (torch backend, float64):
    the token run at β = 3 for the start context, then :func:`mfattn.dynamics.sweep.sweep_many` over the 4001 β of
    Fig. 3a with λ_max, at the paper code's length (1.2×10⁵ steps, 10⁵ discarded). Reported: wall time of each
    part, and the classes against the stored CPU diagram (``data/full/dmft/fig3a_sections.npz``): same class per β.
    Then the cost per step of the map on the 4001 β (eager, with and without the tangent) and of the same steps
    replayed from a captured CUDA graph (:class:`torch.cuda.CUDAGraph` of one ring cycle, ``L`` steps), whose
    state is checked bit for bit against the eager steps. The 1.2×10⁶-step diagram is not run; its time is
    *estimated*: eager, the measured token run and sweep times ten; with graphs, the graph-replayed steps alone (a
    lower bound: the reductions of the saved steps are not counted). Said so wherever it is quoted.
``lambda_map``
    Chapter 6's λ map over (β, γ) at 4× the stored resolution on each axis (641 × 321 points instead of 161 × 81,
    3×10⁴ steps, 2×10⁴ discarded; :func:`mfattn.dynamics.engine.largest_lyapunov`), its wall time, and its λ at the
    stored grid's points against the stored CPU map where one is given (``--stored-map``).
``mnist``
    The blog's MNIST step (batch 60, Anderson 40 + 40 at tol 1e-4, Adam): median wall time per step on the GPU and
    on this machine's CPU with one thread, from initialisation and from trained weights (``--weights``, the end of
    the full protocol, where every solve uses all 40 + 40 evaluations), and the time per epoch (1000 steps) that
    follows. Needs MNIST (``--data``).
``lambda_map_cpu``
    The stored-resolution λ map on the CPU (numpy, one thread: set ``OMP_NUM_THREADS=1``): the baseline of
    ``lambda_map`` and the map it compares with (written to ``--stored-map``). Needs no GPU: run it first, where
    the CPU timings are taken, and carry the file to the GPU machine.

Usage::

    OMP_NUM_THREADS=1 python benchmarks/bench_gpu.py --sections lambda_map_cpu --stored-map map_cpu.npz
    python benchmarks/bench_gpu.py --data DIR [--weights model.pt] [--stored-map map_cpu.npz] [--out FILE]

``data/benchmarks/bench_gpu.json`` holds the measured numbers (the runs it merges are named in it).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import tempfile
import time
import traceback
from pathlib import Path

import numpy as np
import torch

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from mfattn.companion.machine import cpu_model  # noqa: E402


#: Where the GPU sections run; ``--dry-run`` sets "cpu" (small sizes, no graphs) to check this script without a GPU.
DEV = "cuda"


def _sync():
    if DEV == "cuda":
        torch.cuda.synchronize()


def _wall(fn):
    _sync()
    t = time.perf_counter()
    out = fn()
    _sync()
    return out, time.perf_counter() - t


# --- chapter 6: the Fig. 3a diagram ---------------------------------------------------------------------------------
def dmft(report, steps=120_000, transient=100_000, n_betas=4001, out_dir=None):
    from mfattn.dynamics import engine, sweep
    from mfattn.dynamics.model import paper_model

    betas = np.linspace(0.0, 3.0, n_betas)
    dev = torch.device(DEV)
    tok, t_tok = _wall(lambda: engine.simulate([3.0], steps, steps - 1, backend="torch", device=dev))
    res, t_sweep = _wall(lambda: sweep.sweep_many({"fig3a": (betas, tok.context_of(0))}, steps, transient,
                                                  lyapunov=True, backend="torch", device=dev, progress=False)["fig3a"])
    out = {"n_betas": n_betas, "steps": steps, "transient": transient, "token_run_s": t_tok, "sweep_s": t_sweep}
    if out_dir is not None:  # the GPU diagram, in the stored CPU diagram's format (sweep.save_diagram)
        sweep.save_diagram(Path(out_dir) / "fig3a_sections_cuda.npz", res)
    stored = ROOT / "data" / "full" / "dmft" / "fig3a_sections.npz"
    if stored.is_file() and steps == 120_000 and n_betas == 4001:
        cpu = np.load(stored)
        ours = res.classes()
        out["classes_gpu"] = np.bincount(ours, minlength=3).tolist()
        out["classes_cpu_stored"] = np.bincount(cpu["classes"], minlength=3).tolist()
        out["same_class"] = int((ours == cpu["classes"]).sum())
        out["same_period"] = int((res.period == cpu["period"]).sum())
        lam_c = cpu["lyapunov"]
        out["same_lambda_sign"] = int(((res.lyapunov > 1e-3) == (lam_c > 1e-3)).sum())
        per = (res.period > 0) & (cpu["period"] > 0)
        out["periodic_lambda_max_abs_diff"] = float(np.abs(res.lyapunov[per] - lam_c[per]).max()) if per.any() else None
    report["dmft"] = out
    # cost per step: eager (map only, map + tangent) and graph replay of one ring cycle (L steps)
    model = paper_model()
    L = model.context_size
    b, g, e = engine._grid(betas, 220.0, 0.02)
    per_step = {}
    for tangent in (False, True):
        eng, t0, _ = engine._init_engine(model, b, g, e, tok.context_of(0), "torch", dev, tangent=tangent)
        if tangent:
            eng.set_tangent(0)

        def run(n, t_start, eng=eng, tangent=tangent):
            for t in range(t_start, t_start + n):
                eng.step(t, L, None)
                if tangent:
                    eng.renormalise(True)

        run(4 * L, t0)  # warm-up
        n = 2000
        _, s = _wall(lambda: run(n, t0 + 4 * L))
        per_step[f"eager{'_tangent' if tangent else ''}_us"] = 1e6 * s / n
        if DEV != "cuda":
            continue
        # graph of one ring cycle, captured at a step t ≡ 0 mod L (so replays walk the ring in order)
        t_cap = t0 + 4 * L + n
        t_cap += (-t_cap) % L
        run(t_cap - (t0 + 4 * L + n), t0 + 4 * L + n)
        state0 = [x.clone() for x in (eng.A, eng.slots)]
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):  # warm the captured ops on a side stream (PyTorch's recipe), then restore
            run(L, t_cap)
        torch.cuda.current_stream().wait_stream(side)
        eng.A.copy_(state0[0]); eng.slots.copy_(state0[1])
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            run(L, t_cap)
        eng.A.copy_(state0[0]); eng.slots.copy_(state0[1])
        cycles = 500
        _, s = _wall(lambda: [graph.replay() for _ in range(cycles)])
        per_step[f"graph{'_tangent' if tangent else ''}_us"] = 1e6 * s / (cycles * L)
        if not tangent:  # the graph's steps are the eager steps, bit for bit
            replayed = [x.clone() for x in (eng.A, eng.slots)]
            eng.A.copy_(state0[0]); eng.slots.copy_(state0[1])
            run(cycles * L, t_cap)
            _sync()
            per_step["graph_equals_eager"] = bool(torch.equal(replayed[0], eng.A) and torch.equal(replayed[1], eng.slots))
    out["per_step"] = per_step
    if "graph_us" not in per_step:
        return
    # the 1.2e6-step diagram (the seed's text): estimates from the measured parts, not a run. Eager: the measured
    # token run and sweep, ten times longer. Graph: the graph-replayed steps alone (a lower bound: the reductions of
    # the saved steps and the copies to the host are not counted).
    scale = 1_200_000 / steps
    out["estimate_1e6_eager_s"] = (t_tok + t_sweep) * scale
    out["estimate_1e6_graph_steps_only_s"] = 1.2 * (per_step["graph_us"] + per_step["graph_tangent_us"])
    report["dmft"] = out


# --- chapter 6: the λ map at 4× the resolution ----------------------------------------------------------------------
def lambda_map(report, factor=4, steps=30_000, transient=20_000, stored_map=None, out_dir=None):
    from mfattn.dynamics import engine

    nb, ng = 160 * factor + 1, 80 * factor + 1
    gb, gg = np.linspace(1.0, 2.0, nb), np.linspace(100.0, 300.0, ng)
    BB, GG = np.meshgrid(gb, gg)
    lam, s = _wall(lambda: engine.largest_lyapunov(BB.ravel(), steps, transient, "token", gamma=GG.ravel(),
                                                   backend="torch", device=DEV))
    lam = lam.reshape(BB.shape)
    out = {"grid": [nb, ng], "points": int(lam.size), "steps": steps, "transient": transient, "wall_s": s,
           "chaotic_fraction": float((lam > 1e-3).mean())}
    coarse = lam[::factor, ::factor]
    out["chaotic_fraction_stored_grid"] = float((coarse > 1e-3).mean())
    if stored_map is not None and Path(stored_map).is_file():
        ref = np.load(stored_map)["lam"]
        out["same_sign_as_stored"] = int(((coarse > 1e-3) == (ref > 1e-3)).sum())
        out["stored_points"] = int(ref.size)
    np.savez_compressed(Path(out_dir or tempfile.gettempdir()) / "lambda_map_4x.npz", betas=gb, gammas=gg,
                        lam=lam.astype(np.float32))
    report["lambda_map"] = out


def lambda_map_cpu(report, out_path, steps=30_000, transient=20_000):
    """The stored-resolution λ map (161 × 81) on the CPU, numpy, one thread: the baseline and the comparison map."""
    from mfattn.dynamics import engine

    gb, gg = np.linspace(1.0, 2.0, 161), np.linspace(100.0, 300.0, 81)
    BB, GG = np.meshgrid(gb, gg)
    t = time.process_time()
    lam = engine.largest_lyapunov(BB.ravel(), steps, transient, "token", gamma=GG.ravel()).reshape(BB.shape)
    cpu_s = time.process_time() - t
    np.savez_compressed(out_path, betas=gb, gammas=gg, lam=lam, cpu_s=cpu_s)
    report["lambda_map_cpu"] = {"points": int(lam.size), "steps": steps, "transient": transient, "cpu_s": cpu_s,
                                "threads": torch.get_num_threads(), "cpu": cpu_model()}


# --- chapter 2: the MNIST step ---------------------------------------------------------------------------------------
def mnist(report, data, weights=None, steps=200, cpu_steps=40, warmup=10):
    """The blog's training step timed by ``bench_mnist_step.time_steps`` on each device (median wall time)."""
    from bench_mnist_step import time_steps  # benchmarks/ (this script's folder) is on sys.path

    from mfattn.implicit.mnist import load_mnist
    from mfattn.implicit.models import build_model
    from mfattn.implicit.train import epoch_order, make_optimizer

    x, y = load_mnist("train", data, download=False).tensors()
    order = epoch_order(len(y), 0, 0)
    out = {}
    starts = {"init": None}
    if weights is not None and Path(weights).is_file():
        starts["trained"] = torch.load(weights, map_location="cpu", weights_only=True)
    threads = torch.get_num_threads()
    for start, state in starts.items():
        for dev in (DEV, "cpu"):
            torch.set_num_threads(1 if dev == "cpu" else threads)
            model = build_model(0).to(dev)
            if state is not None:
                model.load_state_dict(state)
            _, wall, _, _ = time_steps([model], [lambda m: make_optimizer(m, 5e-4)], x.to(dev), y.to(dev), order,
                                       steps if dev == "cuda" else cpu_steps, warmup, 60, [lambda: 0],
                                       sync=_sync if dev == "cuda" else None)[0]
            out[f"{start}_{dev}_ms"] = 1e3 * wall
            out[f"{start}_{dev}_epoch_s"] = 1000 * wall  # 60000 digits / batch 60
        out[f"{start}_cpu_over_cuda"] = out[f"{start}_cpu_ms"] / out[f"{start}_{DEV}_ms"]
    torch.set_num_threads(threads)
    report["mnist"] = out


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--data", type=Path, default=None, help="MNIST folder")
    p.add_argument("--weights", type=Path, default=None, help="trained model.pt (end of the full protocol)")
    p.add_argument("--stored-map", type=Path, default=None, help="npz with the stored CPU λ map (key lam)")
    p.add_argument("--sections", default="dmft,lambda_map,mnist")
    p.add_argument("--out", type=Path, default=ROOT / "data" / "benchmarks" / "bench_gpu.json")
    p.add_argument("--dry-run", action="store_true", help="CPU, small sizes: check the script without a GPU")
    args = p.parse_args(argv)
    global DEV
    if args.dry_run:
        DEV = "cpu"
    elif not torch.cuda.is_available() and args.sections != "lambda_map_cpu":
        print("no CUDA device: nothing to measure")
        return 1
    report = {"device": torch.cuda.get_device_name(0) if torch.cuda.is_available() and not args.dry_run else "cpu", "torch": torch.__version__, "cuda": torch.version.cuda,
              "numpy": np.__version__, "python": platform.python_version(), "cpu": cpu_model(),
              "cpu_count": os.cpu_count(), "date": time.strftime("%Y-%m-%d"), "errors": {}}

    def save():
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(report, indent=1) + "\n")

    small = dict(dmft=dict(steps=300, transient=200, n_betas=41), lambda_map=dict(factor=1, steps=300, transient=200),
                 mnist=dict(steps=3, cpu_steps=3, warmup=1)) if args.dry_run else {}
    jobs = {"lambda_map_cpu": lambda: lambda_map_cpu(report, args.stored_map or args.out.parent / "lambda_map_cpu.npz"),
            "dmft": lambda: dmft(report, out_dir=args.out.parent, **small.get("dmft", {})),
            "lambda_map": lambda: lambda_map(report, stored_map=args.stored_map, out_dir=args.out.parent, **small.get("lambda_map", {})),
            "mnist": lambda: mnist(report, args.data, args.weights, **small.get("mnist", {}))}
    for name in args.sections.split(","):
        t = time.perf_counter()
        try:
            jobs[name]()
        except Exception:  # a failed section is recorded and the others still run
            report["errors"][name] = traceback.format_exc()[-2000:]
        print(f"{name}: {time.perf_counter() - t:.1f} s", flush=True)
        print(json.dumps(report.get(name, report["errors"].get(name)), indent=1)[:3000], flush=True)
        save()
    return 0


if __name__ == "__main__":
    sys.exit(main())
