"""Speed of the mean-field map of the 1-bit transformer (chapter 6), measured in one run.

Times, on this machine and in this run:

1. the reference implementation (``muxitox/Dynamical-MF-Self-Attention`` at commit de41c41,
   class ``HopfieldTransformerMFInfNPE``: one Python object per β), run from a scratch checkout
   outside the repository (it has no licence: it is never copied here). Fetch it with::

       git clone https://github.com/muxitox/Dynamical-MF-Self-Attention .scratch/dmft-reference
       git -C .scratch/dmft-reference checkout de41c41

   and pass ``--reference .scratch/dmft-reference`` (the default); without it that row is skipped;
2. a straightforward per-β loop of our own map (:func:`mfattn.dynamics.engine.simulate` with one β at a time);
3. the batched backends (numpy float64, torch float64) over a grid of ``--batch`` β.

Prints the time per β-step of each, the ratios, and the projected wall time of one paper
diagram (4001 β × 1.2×10⁵ steps). Targets (issue 5): ≥ 1000× less time per β-step than the
reference; a whole diagram in under 2 minutes on the 2-core CPU. ``--diagram`` also times one
whole diagram for real. Usage::

    python benchmarks/bench_dmft.py [--batch 4001] [--steps 1500] [--diagram]
"""

from __future__ import annotations

import argparse
import ast
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from mfattn.dynamics.engine import simulate  # noqa: E402
from mfattn.dynamics.sweep import sweep  # noqa: E402

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
    t0 = time.perf_counter()
    HT.simulate(x0, max_steps=steps)
    dt = time.perf_counter() - t0
    print(dt, repr(HT.mf_statistics["mo_se"][-1].tolist()))
""")


def time_reference(path: Path, steps: int, beta: float):
    if not (path / "models" / "HopfieldTransformerMFInfNPE.py").exists():
        return None
    out = subprocess.run([sys.executable, "-c", REFERENCE_DRIVER, str(steps), str(beta)], cwd=path,
                         capture_output=True, text=True, timeout=3600)
    if out.returncode != 0:
        print("reference failed:", out.stderr[-2000:])
        return None
    dt, last = out.stdout.strip().split(" ", 1)
    return float(dt), np.array(ast.literal_eval(last))  # a printed list of floats: parsed, never executed


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--reference", type=Path, default=ROOT / ".scratch" / "dmft-reference")
    ap.add_argument("--ref-steps", type=int, default=4000)
    ap.add_argument("--loop-betas", type=int, default=4)
    ap.add_argument("--loop-steps", type=int, default=4000)
    ap.add_argument("--batch", type=int, default=4001)
    ap.add_argument("--steps", type=int, default=1500)
    ap.add_argument("--diagram", action="store_true", help="also time one whole 4001 × 1.2e5 diagram")
    args = ap.parse_args(argv)

    import torch

    torch.set_num_threads(1)
    print(f"machine: {os.cpu_count()} cores, numpy {np.__version__}, torch {torch.__version__} "
          f"(1 thread); load average {os.getloadavg()[0]:.2f}")
    rows = {}

    ref = time_reference(args.reference, args.ref_steps, 3.0)
    if ref is not None:
        dt, last = ref
        rows["reference (de41c41, one β per process)"] = dt / args.ref_steps
        ours = simulate([3.0], steps=args.ref_steps, transient=args.ref_steps - 1).m_o[0, -1]
        print(f"reference vs ours, m^o at t={args.ref_steps - 1}, β=3: max |diff| = {np.abs(last - ours).max():.1e}")
    else:
        print(f"reference checkout not found at {args.reference}: skipping that row")

    betas = np.linspace(0.0, 3.0, args.batch)
    loop_betas = betas[np.linspace(0, args.batch - 1, args.loop_betas).astype(int)]
    t0 = time.perf_counter()
    for b in loop_betas:
        simulate([b], steps=args.loop_steps, transient=args.loop_steps - 1)
    rows["ours, per-β loop (numpy, B=1)"] = (time.perf_counter() - t0) / (args.loop_betas * args.loop_steps)

    for backend in ("numpy", "torch"):
        t0 = time.perf_counter()
        simulate(betas, steps=args.steps, transient=args.steps - 1, backend=backend)
        rows[f"ours, batched {backend} (B={args.batch})"] = (time.perf_counter() - t0) / (args.batch * args.steps)
    t0 = time.perf_counter()
    simulate(betas, steps=args.steps, transient=args.steps - 1, lyapunov=True)
    rows[f"ours, batched numpy + tangent (B={args.batch})"] = (time.perf_counter() - t0) / (args.batch * args.steps)

    base = rows.get("reference (de41c41, one β per process)")
    diagram = 4001 * 120_000
    print(f"\n{'implementation':50s} {'ns per β-step':>14s} {'× faster than ref':>18s} {'one diagram':>14s}")
    for name, sec in rows.items():
        ratio = f"{base / sec:18.0f}" if base else f"{'n/a':>18s}"
        proj = sec * diagram
        proj_s = f"{proj / 3600:11.1f} h" if proj > 3600 else f"{proj:11.0f} s"
        print(f"{name:50s} {sec * 1e9:14.0f} {ratio} {proj_s:>14s}")
    print("targets: >= 1000x less time per β-step than the reference; one diagram < 120 s on 2 CPU cores")

    if args.diagram:
        t0 = time.perf_counter()
        res = sweep(np.linspace(0, 3, 4001), progress=None)
        wall = time.perf_counter() - t0
        print(f"whole diagram (Fig 3a: 4001 β × 1.2e5 steps, sweep with online reductions): {wall:.0f} s; "
              f"{int((res.bin_counts() < 80).sum())} periodic β")


if __name__ == "__main__":
    main()
