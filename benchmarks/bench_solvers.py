"""Fixed-point solvers: plain vs Anderson vs Broyden, iterations and wall time.

Problem: the mean-field map of the blog's layer at its MNIST size (N = 17 sites, d = 10,
so n = N·d = 170 unknowns per sample, batch 60), ``z = tanh(J z) + X`` and its linear
version ``z = J z + X``, with symmetric couplings ``J`` scaled to spectral radius
ρ = 0.5, 0.9, 0.97. Every solver runs in the same process on the same problems; ratios are
against plain iteration measured in this run.

    .venv/bin/python benchmarks/bench_solvers.py [--tol 1e-6] [--batch 60] [--repeats 3]
"""

from __future__ import annotations

import argparse
import time

import torch

from mfattn.deq import SOLVERS, solve


def couplings(n: int, rho: float, seed: int, dtype: torch.dtype) -> torch.Tensor:
    g = torch.Generator().manual_seed(seed)
    A = torch.randn(n, n, generator=g, dtype=torch.float64)
    A = 0.5 * (A + A.T)
    return (A * (rho / torch.linalg.eigvalsh(A).abs().max())).to(dtype)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, default=170)
    ap.add_argument("--batch", type=int, default=60)
    ap.add_argument("--tol", type=float, default=1e-6)
    ap.add_argument("--max-iter", type=int, default=2000)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--dtype", choices=["float32", "float64"], default="float64")
    ap.add_argument("--threads", type=int, default=1)
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    dtype = getattr(torch, args.dtype)

    print(f"n={args.n} batch={args.batch} tol={args.tol:g} dtype={args.dtype} threads={args.threads} "
          f"torch={torch.__version__}")
    print(f"{'map':>7} {'rho':>5} {'solver':>9} {'iters':>7} {'conv':>5} {'time ms':>9} "
          f"{'iters/plain':>12} {'time/plain':>11}")
    for kind in ("linear", "tanh"):
        for rho in (0.5, 0.9, 0.97):
            J = couplings(args.n, rho, seed=0, dtype=dtype)
            X = torch.randn(args.batch, args.n, generator=torch.Generator().manual_seed(1), dtype=dtype)
            f = (lambda z: z @ J.T + X) if kind == "linear" else (lambda z: torch.tanh(z @ J.T) + X)
            base = None
            for method in SOLVERS:
                best = float("inf")
                for _ in range(args.repeats):
                    t0 = time.perf_counter()
                    _, st = solve(f, torch.zeros_like(X), method=method, max_iter=args.max_iter, tol=args.tol,
                                  on_fail="ignore")
                    best = min(best, time.perf_counter() - t0)
                its = st.iterations.double().mean().item()
                if base is None:
                    base = (its, best)
                print(f"{kind:>7} {rho:5.2f} {method:>9} {its:7.1f} {st.converged.double().mean().item():5.2f} "
                      f"{1e3 * best:9.2f} {its / base[0]:12.3f} {best / base[1]:11.3f}")


if __name__ == "__main__":
    main()
