"""Lazy windowed (expanding) attention vs full attention for one query over a long context.

One batch of B sequences of n_max keys/values in R^d is drawn; the query's parent (the key aligned
with the query) lies at a distance t ~ 1 + Geometric(p), so a recency prior fits. Each length n
uses the last n tokens of that batch: the recent tokens, which hold every parent and everything any
window reaches, are the same at every n, so every row times the same windows and the same number
of iterations (the script checks it), and the rows differ only in the length of the context. Three
ways to compute the query's attention output are timed, single-threaded:

* ``full``: scores q·k_t for all n - 1 keys, softmax, weighted sum (what standard attention does);
* ``dense expanding``: :func:`mfattn.structural.expanding.expanding_attention` on all n scores (the window
  is a mask, so every dot product is still computed);
* ``lazy expanding``: :func:`mfattn.structural.expanding.lazy_expanding_attention`, which computes only the
  dot products of the tokens that the growing window reaches (the largest window in the batch).

Printed per n: median wall time of each (after a warm-up) and its ratio to ``full``, beside the
operation counts per query, full n·d, lazy (m·d + k) with m the final window and k the iterations
(the paper's count), and as run (r·d + k) with r the widest window each query's sweeps scored.
Times are process CPU time (the machine may be shared), wall-clock medians beside them.

``--save`` writes the table to ``data/benchmarks/bench_windowed_attention.json`` (one row per n, with
the machine and versions), which Chapter 5 shows beside its operation counts.

Run:  python benchmarks/bench_windowed_attention.py [--lengths 256 1024 4096 16384 32768] [--d 64] [--batch 16] [--save]
"""

from __future__ import annotations

import argparse
import json
import math
import platform
import statistics
import sys
import time
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from mfattn.structural import expanding as ex  # noqa: E402


def make_batch(n: int, d: int, batch: int, p: float, generator: torch.Generator):
    """(query, keys, values) for ``batch`` sequences of ``n`` tokens; slice ``keys[:, -m:]`` for length m."""
    keys = torch.randn(batch, n, d, generator=generator)
    values = torch.randn(batch, n, 1, generator=generator)
    query = torch.randn(batch, d, generator=generator)
    u = torch.rand(batch, generator=generator, dtype=torch.float64)
    dist = torch.clamp(torch.floor(torch.log1p(-u) / math.log1p(-p)) + 2, max=n - 1).long()
    rows = torch.arange(batch)
    keys[rows, n - 1 - dist] = query * 1.5          # the parent: a strong score at distance dist
    return query, keys, values


def full_attention(query, keys, values):
    scores = torch.einsum("btd,bd->bt", keys[:, :-1], query) / math.sqrt(query.shape[1])
    return torch.einsum("bt,btv->bv", torch.softmax(scores, -1), values[:, :-1])


def dense_expanding(query, keys, values):
    scores = torch.einsum("btd,bd->bt", keys, query) / math.sqrt(query.shape[1])
    return ex.expanding_attention(scores, values, 0.1, 0.9).output


def lazy_expanding(query, keys, values):
    return ex.lazy_expanding_attention(query, keys, values, 0.1, 0.9)[0].output


def timed(fn, args, repeats: int):
    fn(*args)                                        # warm-up
    cpu, wall = [], []
    for _ in range(repeats):
        c0, w0 = time.process_time(), time.perf_counter()
        fn(*args)
        cpu.append(time.process_time() - c0)
        wall.append(time.perf_counter() - w0)
    return statistics.median(cpu), statistics.median(wall)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lengths", type=int, nargs="+", default=[256, 1024, 4096, 16384, 32768])
    parser.add_argument("--d", type=int, default=64)
    parser.add_argument("--batch", type=int, default=16)
    parser.add_argument("--p", type=float, default=0.1, help="recency bias of the parent's distance")
    parser.add_argument("--repeats", type=int, default=15)
    parser.add_argument("--save", action="store_true", help="write data/benchmarks/bench_windowed_attention.json")
    args = parser.parse_args(argv)
    rows = []
    torch.set_num_threads(1)
    gen = torch.Generator().manual_seed(0)
    print(f"d = {args.d}, batch = {args.batch}, parent distance 1 + Geometric({args.p}); "
          f"median of {args.repeats}, single thread")
    print(f"{'n':>6} {'full ms':>9} {'dense ms':>9} {'lazy ms':>9} {'lazy/full':>10} {'dense/full':>11} "
          f"{'ops lazy/full':>14} {'scored':>7} {'iters':>6} {'max |diff|':>11}")
    n_max = max(args.lengths)
    q, k_all, v_all = make_batch(n_max, args.d, args.batch, args.p, gen)
    for n in sorted(args.lengths):
        k, v = k_all[:, -n:].contiguous(), v_all[:, -n:].contiguous()
        t_full, w_full = timed(full_attention, (q, k, v), args.repeats)
        t_dense, w_dense = timed(dense_expanding, (q, k, v), args.repeats)
        t_lazy, w_lazy = timed(lazy_expanding, (q, k, v), args.repeats)
        res, scored = ex.lazy_expanding_attention(q, k, v, 0.1, 0.9)
        iters = res.iterations.double().mean().item()
        per_query = (torch.clamp(res.window, max=n) * args.d + res.iterations).double().mean().item()
        ops_ratio = per_query / ((n - 1) * args.d)
        as_run = (res.reach * args.d + res.iterations).double().mean().item() / ((n - 1) * args.d)
        diff = (res.output - dense_expanding(q, k, v)).abs().max().item()
        print(f"{n:>6} {1e3 * t_full:>9.3f} {1e3 * t_dense:>9.3f} {1e3 * t_lazy:>9.3f} "
              f"{t_lazy / t_full:>10.2f} {t_dense / t_full:>11.2f} {ops_ratio:>14.3f} {scored:>7d} "
              f"{iters:>6.1f} {diff:>11.1e}")
        print(f"{'':>6} wall: full {1e3 * w_full:.3f} ms, dense {1e3 * w_dense:.3f} ms, lazy {1e3 * w_lazy:.3f} ms "
              f"(lazy/full {w_lazy / w_full:.2f})")
        rows.append({"n": n, "full_ms": 1e3 * t_full, "dense_ms": 1e3 * t_dense, "lazy_ms": 1e3 * t_lazy,
                     "full_wall_ms": 1e3 * w_full, "dense_wall_ms": 1e3 * w_dense, "lazy_wall_ms": 1e3 * w_lazy,
                     "ops_ratio": ops_ratio, "ops_ratio_as_run": as_run, "scored": scored, "iterations": iters,
                     "max_abs_diff": diff})
    same = len({(r["iterations"], r["scored"]) for r in rows}) == 1
    print("every row times the same windows and iterations:", same)
    if not same:
        raise SystemExit("rows differ in their iterations: raise the shortest length (a window reached its start)")
    if args.save:
        path = ROOT / "data" / "benchmarks" / "bench_windowed_attention.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        meta = {"n_max": n_max, "same_iterations": same,
                "batch_rule": "one batch of n_max tokens; each row uses its last n tokens", "d": args.d,
                "batch": args.batch, "p": args.p, "repeats": args.repeats, "threads": 1,
                "times": "median process CPU time (ms) and wall-clock (ms), after one warm-up",
                "machine": f"{platform.machine()}, {platform.system()}", "python": platform.python_version(),
                "torch": torch.__version__, "command": "python benchmarks/bench_windowed_attention.py --save"}
        path.write_text(json.dumps({"meta": meta, "rows": rows}, indent=1) + "\n")
        print(f"saved {path.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
