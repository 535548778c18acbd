"""Ensemble training of chapter 2's MNIST model: S members as one batched model vs S solo runs.

Both sides train the blog's model (conv embedding, N = 17 spins of dimension 10, correction net on g,
Anderson 40/40 at tol 1e-4, fused Adam at lr 5e-4, batch 60) on real MNIST batches, each member with
its own seed and its own data order (:func:`mfattn.implicit.train.epoch_order`), single-threaded, in
one process: :class:`mfattn.implicit.ensemble.EnsembleMNIST` with S members against S solo
:func:`mfattn.implicit.models.build_model` models, stepped alternately (ensemble first on even steps,
the solo models first on odd ones, so that a change in machine load hits both alike). Reported: median
process CPU time of one ensemble step and of the S solo steps of the same batches (the sum per step),
their ratio (target <= 0.6 for S = 3), ms per step each, and the map evaluations per step (forward plus
adjoint trace lengths: the batch is evaluated until its last sample stops, so the ensemble pays for
its slowest member's slowest sample). As a check the ensemble's members must end with the weights of
the solo models (``max_weight_gap``: bit-equal on CPU, tests/test_ensemble.py). The embedding's forward and
backward (the convolutions) are also timed alone on both sides, to split the ratio into the part batching
cannot save (arithmetic-bound convolutions) and the rest (``rest_ratio``: DEQ layer, head, Adam).

Two starting points: the members' initialisation, and (``--pretrain K``, default 200) the same members
after K Adam steps (trained here as an ensemble, which equals solo training), where the solver needs
more iterations per step.

Run:  python benchmarks/bench_ensemble.py [--members 3] [--steps 30] [--pretrain 200] [--save]
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import time
import warnings
from pathlib import Path

import torch
import torch.nn.functional as F

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from mfattn.companion.machine import cpu_model  # noqa: E402
from mfattn.implicit.ensemble import EnsembleMNIST  # noqa: E402
from mfattn.implicit.mnist import load_mnist  # noqa: E402
from mfattn.implicit.models import build_model  # noqa: E402
from mfattn.implicit.train import epoch_order, make_optimizer  # noqa: E402


def _evaluations(stats: dict) -> float:
    """Map evaluations of the latest step over the whole batch (forward + adjoint trace lengths)."""
    return float(stats["forward"].trace.shape[0] + stats["backward"].trace.shape[0])


def ensemble_step(model, opt, xb, yb) -> None:
    """One step of the ensemble on (S, B) batches: Σ_s of each member's mean cross-entropy."""
    opt.zero_grad(set_to_none=True)
    logits = model(xb)
    torch.stack([F.cross_entropy(logits[s], yb[s]) for s in range(len(yb))]).sum().backward()
    opt.step()


def solo_step(model, opt, xb, yb) -> None:
    opt.zero_grad(set_to_none=True)
    F.cross_entropy(model(xb), yb).backward()
    opt.step()


def time_pair(ens, ens_opt, solos, solo_opts, x, y, orders, first, steps, warmup, batch):
    """Interleaved timing of ``warmup + steps`` steps from batch ``first`` on: per timed step the CPU and wall
    seconds of the ensemble step and of the S solo steps together, and the map evaluations of each side."""
    rows = {"ens_cpu": [], "ens_wall": [], "solo_cpu": [], "solo_wall": [], "ens_evals": [], "solo_evals": []}
    S = len(solos)
    for k in range(warmup + steps):
        t = first + k
        idx = torch.stack([o[t * batch:(t + 1) * batch] for o in orders])          # (S, B): each member's batch
        xb, yb = x[idx], y[idx]

        def run_ensemble():
            c0, w0 = time.process_time(), time.perf_counter()
            ensemble_step(ens, ens_opt, xb, yb)
            return time.process_time() - c0, time.perf_counter() - w0

        def run_solos():
            c0, w0 = time.process_time(), time.perf_counter()
            for s in range(S):
                solo_step(solos[s], solo_opts[s], xb[s], yb[s])
            return time.process_time() - c0, time.perf_counter() - w0

        if k % 2 == 0:
            (ec, ew), (sc, sw) = run_ensemble(), run_solos()
        else:
            (sc, sw), (ec, ew) = run_solos(), run_ensemble()
        if k >= warmup:
            rows["ens_cpu"].append(ec), rows["ens_wall"].append(ew)
            rows["solo_cpu"].append(sc), rows["solo_wall"].append(sw)
            rows["ens_evals"].append(_evaluations(ens.last_stats))
            rows["solo_evals"].append(sum(_evaluations(m.attention.last_stats) for m in solos))
    return rows


def embedding_times(ens, solos, x, y, orders, first, steps, batch) -> tuple[float, float]:
    """Median CPU ms of the embedding's forward and backward alone (the convolutions, arithmetic-bound):
    the ensemble's (S members) and the S solo models' together, interleaved; the weights are not changed."""
    ens_t, solo_t = [], []
    for k in range(steps):
        idx = torch.stack([o[(first + k) * batch:(first + k + 1) * batch] for o in orders])
        xb = x[idx]
        c0 = time.process_time()
        ens.sources(xb).sum().backward()
        c1 = time.process_time()
        for s, solo in enumerate(solos):
            solo.sources(xb[s]).sum().backward()
        c2 = time.process_time()
        ens_t.append(c1 - c0), solo_t.append(c2 - c1)
    for model in (ens, *solos):
        model.zero_grad(set_to_none=True)
    return 1e3 * statistics.median(ens_t), 1e3 * statistics.median(solo_t)


def max_weight_gap(ens, solos) -> float:
    """Largest |ensemble member − solo model| weight difference (0: bit-equal)."""
    gap = 0.0
    for s, solo in enumerate(solos):
        mine = ens.member_state_dict(s)
        for key, value in solo.state_dict().items():
            gap = max(gap, float((mine[key] - value).abs().max()))
    return gap


def measure(label, seeds, x, y, args, pretrain: int) -> dict:
    S = len(seeds)
    orders = [epoch_order(len(y), s, 0) for s in seeds]
    ens = EnsembleMNIST(seeds)
    ens_opt = make_optimizer(ens, 5e-4)
    for t in range(pretrain):           # the ensemble's training equals the members' solo training
        idx = torch.stack([o[t * args.batch:(t + 1) * args.batch] for o in orders])
        ensemble_step(ens, ens_opt, x[idx], y[idx])
    solos = [ens.member_model(s) for s in range(S)]
    solo_opts = [make_optimizer(m, 5e-4) for m in solos]
    # Each solo optimiser starts from its member's Adam state (copies: a loaded state shares tensors).
    state, first = ens_opt.state_dict(), 0
    for s, opt in enumerate(solo_opts):
        count = len(list(ens.members[s].parameters()))
        moments = {i: {k: v.clone() for k, v in state["state"][first + i].items()}
                   for i in range(count) if first + i in state["state"]}
        group = {**state["param_groups"][0], "params": list(range(count))}
        opt.load_state_dict({"state": moments, "param_groups": [group]})
        first += count
    rows = time_pair(ens, ens_opt, solos, solo_opts, x, y, orders, pretrain, args.steps, args.warmup, args.batch)
    emb_ens, emb_solo = embedding_times(ens, solos, x, y, orders, pretrain, args.steps, args.batch)
    med = {k: statistics.median(v) for k, v in rows.items()}
    out = {"members": S, "seeds": seeds, "pretrain_steps": pretrain,
           "ensemble_ms": 1e3 * med["ens_cpu"], "solo_ms": 1e3 * med["solo_cpu"] / S,
           "solo_total_ms": 1e3 * med["solo_cpu"], "ratio": med["ens_cpu"] / med["solo_cpu"],
           "ensemble_wall_ms": 1e3 * med["ens_wall"], "solo_total_wall_ms": 1e3 * med["solo_wall"],
           "ratio_wall": med["ens_wall"] / med["solo_wall"],
           "ensemble_evaluations_per_step": statistics.mean(rows["ens_evals"]),
           "solo_evaluations_per_step": statistics.mean(rows["solo_evals"]) / S,
           "embedding_ensemble_ms": emb_ens, "embedding_solo_total_ms": emb_solo,
           # the rest of a step (DEQ layer, head, loss, Adam): what batching the members can save on
           "rest_ratio": (1e3 * med["ens_cpu"] - emb_ens) / (1e3 * med["solo_cpu"] - emb_solo),
           "max_weight_gap": max_weight_gap(ens, solos)}
    print(f"{label}: ensemble of {S} {out['ensemble_ms']:7.1f} ms CPU/step, "
          f"{S} solo steps {out['solo_total_ms']:7.1f} ms "
          f"({out['solo_ms']:.1f} each): ratio {out['ratio']:.3f} (wall {out['ratio_wall']:.3f}); map evaluations "
          f"per step {out['ensemble_evaluations_per_step']:.1f} (ensemble) vs {out['solo_evaluations_per_step']:.1f} "
          f"(solo mean); max weight gap {out['max_weight_gap']:.1e}\n    of which embedding (fwd+bwd) "
          f"{emb_ens:.1f} ms vs {emb_solo:.1f} ms; the rest (DEQ layer, head, Adam) "
          f"{1e3 * med['ens_cpu'] - emb_ens:.1f} "
          f"vs {1e3 * med['solo_cpu'] - emb_solo:.1f} ms: ratio {out['rest_ratio']:.3f}", flush=True)
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--members", type=int, default=3)
    parser.add_argument("--steps", type=int, default=30)
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--batch", type=int, default=60)
    parser.add_argument("--pretrain", type=int, default=200, help="also time after this many steps (0: skip)")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--data", default=None, help="MNIST folder (default: $MFATTN_DATA or data/mnist)")
    parser.add_argument("--save", action="store_true", help="store the numbers in data/benchmarks/bench_ensemble.json")
    args = parser.parse_args(argv)
    torch.set_num_threads(args.threads)
    warnings.filterwarnings("ignore", message=r".*fixed-point solve .* did not converge", category=RuntimeWarning)
    seeds = list(range(args.members))
    need = (args.pretrain + args.warmup + args.steps) * args.batch
    x, y = load_mnist("train", args.data, limit=max(need, 6000)).tensors()
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"MNIST train step, batch {args.batch} per member, {args.threads} thread(s), torch {torch.__version__}, "
          f"median of {args.steps} steps after {args.warmup} warm-up steps; load average {load:.1f}")
    runs = {"initialisation": measure("initialisation", seeds, x, y, args, 0)}
    if args.pretrain:
        label = f"after {args.pretrain} steps"
        runs[label] = measure(label, seeds, x, y, args, args.pretrain)
    if args.save:
        from mfattn.companion import store

        path = ROOT / "data" / "benchmarks" / "bench_ensemble.json"
        meta = {"batch": args.batch, "steps": args.steps, "warmup": args.warmup, "threads": args.threads,
                "torch": torch.__version__, "cpu": cpu_model(), "cpu_count": os.cpu_count(),
                "machine": f"{platform.machine()}, {platform.system()}", "python": platform.python_version(),
                "load_average_at_start": load, "target_ratio": 0.6,
                "measured": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
        store.atomic_write_json(path, {label: {**run, **meta} for label, run in runs.items()})
        print(f"  saved to {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
