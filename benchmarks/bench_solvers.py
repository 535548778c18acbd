"""Fixed-point solvers: plain vs Anderson vs Broyden, iterations and wall time.

Problem: the mean-field map of the blog's layer at its MNIST size (N = 17 sites, d = 10,
so n = N·d = 170 unknowns per sample, batch 60), ``z = tanh(J z) + X`` and its linear
version ``z = J z + X``, with symmetric couplings ``J`` scaled to spectral radius
ρ = 0.5, 0.9, 0.97. Every solver runs in the same process on the same problems; ratios are
against plain iteration measured in this run. ``err`` is the largest deviation from the exact
fixed point ``(I - J)^-1 X`` (linear map only).

With ``--reference DIR`` (default ``.scratch/ref``, skipped when absent) the Anderson solver of
the reference implementation ``mcbal/deep-implicit-attention`` (MIT; a checkout of its
``deep_implicit_attention`` package in a git-ignored scratch folder, not part of this project)
runs on the same problems with its defaults (history 5, ridge 1e-4, one residual for the whole
batch). It calls ``torch.solve``, removed from current torch; this script supplies that one
function at run time and touches nothing else of the reference.

    .venv/bin/python benchmarks/bench_solvers.py [--tol 1e-6] [--batch 60] [--repeats 3] [--reference DIR]
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import namedtuple
from pathlib import Path

import torch

from mfattn.deq import SOLVERS, linear_contraction, solve


ROOT = Path(__file__).resolve().parents[1]


def reference_anderson(folder: Path):
    """The reference's Anderson solver, or None when no checkout is at ``folder``."""
    if not (folder / "deep_implicit_attention" / "solvers.py").exists():
        return None
    for path in (folder / "site", folder):
        sys.path.insert(0, str(path))
    result = namedtuple("solve", ["solution", "LU"])
    torch.solve = lambda B, A: result(torch.linalg.solve(A, B), A)  # removed from torch in 1.13
    from deep_implicit_attention.solvers import anderson
    return anderson


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, default=170)
    ap.add_argument("--batch", type=int, default=60)
    ap.add_argument("--tol", type=float, default=1e-6)
    ap.add_argument("--max-iter", type=int, default=2000)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--dtype", choices=["float32", "float64"], default="float64")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--reference", type=Path, default=ROOT / ".scratch" / "ref")
    args = ap.parse_args()
    ref = reference_anderson(args.reference)
    if ref is None:
        print(f"no reference checkout at {args.reference}: its rows are skipped")
    torch.set_num_threads(args.threads)
    dtype = getattr(torch, args.dtype)

    print(f"n={args.n} batch={args.batch} tol={args.tol:g} dtype={args.dtype} threads={args.threads} "
          f"torch={torch.__version__}")
    print(f"{'map':>7} {'rho':>5} {'solver':>10} {'iters':>7} {'conv':>5} {'err':>8} {'time ms':>9} "
          f"{'iters/plain':>12} {'time/plain':>11}")
    for kind in ("linear", "tanh"):
        for rho in (0.5, 0.9, 0.97):
            J = linear_contraction(args.n, rho, generator=torch.Generator().manual_seed(0), dtype=dtype)
            X = torch.randn(args.batch, args.n, generator=torch.Generator().manual_seed(1), dtype=dtype)
            f = (lambda z: z @ J.T + X) if kind == "linear" else (lambda z: torch.tanh(z @ J.T) + X)
            exact = None
            if kind == "linear":
                exact = torch.linalg.solve(torch.eye(args.n, dtype=torch.float64) - J.double(), X.double().T).T
            base = None
            rows = list(SOLVERS) + (["reference"] if ref is not None else [])
            for method in rows:
                best = float("inf")
                for _ in range(args.repeats):
                    t0 = time.perf_counter()
                    if method == "reference":
                        out = ref(f, torch.zeros_like(X), max_iter=args.max_iter, tol=args.tol)
                        z, its, conv = out["result"], float(out["nstep"]), float(out["lowest"] < args.tol)
                    else:
                        z, st = solve(f, torch.zeros_like(X), method=method, max_iter=args.max_iter,
                                      tol=args.tol, on_fail="ignore")
                        its, conv = st.iterations.double().mean().item(), st.converged.double().mean().item()
                    best = min(best, time.perf_counter() - t0)
                err = f"{(z.double() - exact).abs().max().item():8.1e}" if exact is not None else f"{'-':>8}"
                if base is None:
                    base = (its, best)
                print(f"{kind:>7} {rho:5.2f} {method:>10} {its:7.1f} {conv:5.2f} {err} "
                      f"{1e3 * best:9.2f} {its / base[0]:12.3f} {best / base[1]:11.3f}")
    if ref is not None:
        print("reference: iterations are for the whole batch (one residual norm over all samples); "
              "'conv' is 1 when that batch residual reached tol")

if __name__ == "__main__":
    main()
