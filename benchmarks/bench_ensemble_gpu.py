"""Chapter 2's ensemble training on a GPU (issue 46, item 1): the wall time of one training step of S members batched
as one :class:`~mfattn.implicit.ensemble.EnsembleMNIST` against S solo steps, on the GPU and on one CPU thread of the
same machine, in one run (ratios within one run only). Synthetic digits (uniform noise, random labels): the step's cost
does not depend on the pixels' content, only on the solver's evaluations, which are reported beside each time.

Usage (on a GPU machine): ``python benchmarks/bench_ensemble_gpu.py --out bench.json [--members 3 9 15]``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

import torch
import torch.nn.functional as F

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from mfattn.implicit.ensemble import EnsembleMNIST  # noqa: E402
from mfattn.implicit.train import make_optimizer  # noqa: E402


def _sync(device: str) -> None:
    if device == "cuda":
        torch.cuda.synchronize()


def time_steps(S: int, device: str, steps: int, warmup: int, batch: int = 60) -> dict:
    """Median wall ms per step of an S-member ensemble and of S solo models (interleaved), on ``device``."""
    gen = torch.Generator().manual_seed(0)
    x = torch.rand(S, batch * (steps + warmup), 1, 28, 28, generator=gen).to(device)
    y = torch.randint(0, 10, (S, batch * (steps + warmup)), generator=gen).to(device)
    ens = EnsembleMNIST(list(range(S))).to(device)
    ens_opt = make_optimizer(ens, 5e-4)
    solos = [ens.member_model(s).to(device) for s in range(S)]
    solo_opts = [make_optimizer(m, 5e-4) for m in solos]
    ens_t, solo_t = [], []
    for k in range(warmup + steps):
        sl = slice(k * batch, (k + 1) * batch)
        xb, yb = x[:, sl], y[:, sl]
        _sync(device)
        t0 = time.perf_counter()
        ens_opt.zero_grad(set_to_none=True)
        logits = ens(xb)
        torch.stack([F.cross_entropy(logits[s], yb[s]) for s in range(S)]).sum().backward()
        ens_opt.step()
        _sync(device)
        t1 = time.perf_counter()
        for s in range(S):
            solo_opts[s].zero_grad(set_to_none=True)
            F.cross_entropy(solos[s](xb[s]), yb[s]).backward()
            solo_opts[s].step()
        _sync(device)
        t2 = time.perf_counter()
        if k >= warmup:
            ens_t.append(t1 - t0), solo_t.append(t2 - t1)
    e, s_ = 1e3 * statistics.median(ens_t), 1e3 * statistics.median(solo_t)
    return {"device": device, "members": S, "ensemble_ms": e, "solo_total_ms": s_, "solo_ms": s_ / S,
            "ratio": e / s_, "ensemble_ms_per_member": e / S, "steps": steps}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--members", type=int, nargs="+", default=[3, 9, 15])
    parser.add_argument("--steps", type=int, default=15)
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--cpu-members", type=int, nargs="*", default=[3])
    parser.add_argument("--out", default=None)
    args = parser.parse_args(argv)
    rows = []
    if torch.cuda.is_available():
        for S in args.members:
            rows.append(time_steps(S, "cuda", args.steps, args.warmup))
            print(json.dumps(rows[-1]), flush=True)
    torch.set_num_threads(1)
    for S in args.cpu_members:
        rows.append(time_steps(S, "cpu", max(3, args.steps // 3), 1))
        print(json.dumps(rows[-1]), flush=True)
    info = {"torch": torch.__version__, "gpu": torch.cuda.get_device_name(0) if torch.cuda.is_available() else None,
            "rows": rows}
    if args.out:
        Path(args.out).write_text(json.dumps(info, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
