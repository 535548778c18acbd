"""One MNIST training step: mfattn vs the reference implementation of Deep Implicit Attention.

Both sides train the blog's model (same conv embedding, N = 17 spins of dimension 10 with
internally symmetric couplings, correction net, Anderson solver with 40 forward / 40 backward
iterations at tol 1e-4, Adam lr 5e-4, batch 60) on the same MNIST batches, single-threaded,
in one process. Reported: median wall time of a full step (forward solve, implicit backward,
optimiser step) after a warm-up, the mean number of solver iterations per step, and the ratio.

The reference is ``mcbal/deep-implicit-attention`` (MIT). It is not part of this project: put
a checkout of its ``deep_implicit_attention`` package under a scratch folder (default
``.scratch/ref``; git-ignored) together with ``einops`` (``pip install --target
.scratch/ref/site einops``). It calls ``torch.solve``, which current torch removed; this
script supplies that one function at run time (``torch.linalg.solve`` with the old argument
order) and touches nothing else of the reference. Its model class lives in a script that needs
torchvision, so its mean-field layer, DEQ wrapper and solver are wrapped here around the same
patch embedding as ours.

Run:  python benchmarks/bench_mnist_step.py [--steps 40] [--reference .scratch/ref]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections import namedtuple
from pathlib import Path

import torch
import torch.nn.functional as F

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from mfattn.data import load_mnist  # noqa: E402
from mfattn.models import PatchEmbedding, build_model  # noqa: E402
from mfattn.train import epoch_order  # noqa: E402


def _old_torch_solve():
    """``torch.solve(B, A) -> (X, LU)`` solving ``A X = B``, removed from torch in 1.13."""
    result = namedtuple("solve", ["solution", "LU"])
    return lambda B, A: result(torch.linalg.solve(A, B), A)


def reference_model(folder: Path, seed: int, correction: str):
    """The blog's MNIST model assembled from the reference package (see module docstring)."""
    for path in (folder / "site", folder):
        sys.path.insert(0, str(path))
    torch.solve = _old_torch_solve()  # current torch keeps the name only to raise an error
    from deep_implicit_attention import solvers
    from deep_implicit_attention.attention import DEQMeanFieldAttention
    from deep_implicit_attention.deq import DEQFixedPoint

    counts = {"iterations": 0}

    def counting_anderson(f, x0, **kw):
        def counted(z):  # one evaluation of the mean-field map = one solver iteration
            counts["iterations"] += 1
            return f(z)
        return solvers.anderson(counted, x0, **kw)

    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.embed = PatchEmbedding(10, 32)
            self.cls_token = torch.nn.Parameter(torch.randn(1, 1, 10))
            layer = DEQMeanFieldAttention(num_spins=17, dim=10, weight_sym_internal=True,
                                          weight_sym_sites=False, lin_response=True)
            if correction == "g":  # the published MNIST result: the net corrects g, not m
                def step(z, x, *args, _layer=layer):
                    m, = _layer.unpack_state(z)
                    g = torch.einsum("i j c d, b j d -> b i c", _layer.weight(), m) + x
                    return _layer.pack_state([g - _layer.correction(g)])
                layer.forward = step
            self.deq = DEQFixedPoint(layer, counting_anderson, solver_fwd_max_iter=40, solver_fwd_tol=1e-4,
                                     solver_bwd_max_iter=40, solver_bwd_tol=1e-4)
            self.head = torch.nn.Linear(10, 10)

        def forward(self, images):
            tokens = self.embed(images)
            x = torch.cat([self.cls_token.expand(len(tokens), -1, -1), tokens], 1)
            return self.head(self.deq(x)[:, 0])

    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        return Net(), counts


def time_steps(model, x, y, order, steps, warmup, batch, iterations):
    """Median seconds per Adam step over ``steps`` timed steps (after ``warmup``), and solver iterations."""
    opt = torch.optim.Adam(model.parameters(), lr=5e-4)
    model.train()
    times, iters = [], []
    for k in range(warmup + steps):
        idx = order[k * batch:(k + 1) * batch]
        t0 = time.perf_counter()
        opt.zero_grad(set_to_none=True)
        loss = F.cross_entropy(model(x[idx]), y[idx])
        loss.backward()
        opt.step()
        dt = time.perf_counter() - t0
        if k >= warmup:
            times.append(dt)
            iters.append(iterations())
    return statistics.median(times), statistics.mean(iters), loss.item()


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=40)
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--batch", type=int, default=60)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--correction", choices=("g", "m"), default="g")
    parser.add_argument("--reference", type=Path, default=ROOT / ".scratch" / "ref")
    parser.add_argument("--data", default=None, help="MNIST folder (default: $MFATTN_DATA or data/mnist)")
    parser.add_argument("--save", action="store_true",
                        help="store the numbers in data/benchmarks/bench_mnist_step.json (read by chapter 2)")
    args = parser.parse_args(argv)
    torch.set_num_threads(args.threads)
    if not (args.reference / "deep_implicit_attention").is_dir():
        print(f"reference package not found under {args.reference} (see this script's docstring)")
        return 2

    n = (args.warmup + args.steps) * args.batch
    x, y = load_mnist("train", args.data, limit=max(n, 600)).tensors()
    order = epoch_order(len(y), args.seed, 0)

    ours = build_model(args.seed, correction=args.correction)
    last = {}

    def our_iterations():
        stats = ours.attention.last_stats
        return float(stats["forward"].iterations.double().mean() + stats["backward"].iterations.double().mean())

    ref, counts = reference_model(args.reference, args.seed, args.correction)

    def ref_iterations():
        value = counts["iterations"] - last.get("ref", 0)
        last["ref"] = counts["iterations"]
        return float(value)

    t_ref, it_ref, loss_ref = time_steps(ref, x, y, order, args.steps, args.warmup, args.batch, ref_iterations)
    t_our, it_our, loss_our = time_steps(ours, x, y, order, args.steps, args.warmup, args.batch, our_iterations)
    print(f"MNIST train step, batch {args.batch}, Anderson 40/40 @ tol 1e-4, correction on {args.correction}, "
          f"{args.threads} thread(s), torch {torch.__version__}, {args.steps} timed steps")
    print(f"  reference (mcbal/deep-implicit-attention): {1e3 * t_ref:8.1f} ms/step  "
          f"fwd+bwd solver iterations/step {it_ref:5.1f}  loss {loss_ref:.3f}")
    print(f"  mfattn                                   : {1e3 * t_our:8.1f} ms/step  "
          f"fwd+bwd solver iterations/step {it_our:5.1f}  loss {loss_our:.3f}")
    print(f"  speed-up (reference / mfattn): {t_ref / t_our:.2f}x")
    if args.save:
        import platform

        from mfattn import store

        path = store.atomic_write_json(ROOT / "data" / "benchmarks" / "bench_mnist_step.json", {
            "reference_ms": 1e3 * t_ref, "mfattn_ms": 1e3 * t_our, "speedup": t_ref / t_our,
            "reference_iterations_per_step": it_ref, "mfattn_iterations_per_step": it_our,
            "batch": args.batch, "steps": args.steps, "warmup": args.warmup, "threads": args.threads,
            "correction": args.correction, "seed": args.seed, "torch": torch.__version__,
            "machine": f"{platform.machine()}, {platform.processor() or platform.system()}",
            "python": platform.python_version()})
        print(f"  saved to {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
