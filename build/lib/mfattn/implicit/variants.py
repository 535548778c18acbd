"""The variant table of Chapter 2: which ingredients of the blog's MNIST model matter.

Each variant retrains the model of :mod:`mfattn.implicit.models` with one option changed
(:data:`mfattn.implicit.train.VARIANTS`: correction on ``m``, no correction, plain iteration, phantom
gradient). This module turns finished runs into table rows, and stores the rows of the full
profile in ``data/`` so that the book, built in the quick profile, can show them::

    python -m mfattn.implicit.train --profile full --variants       # trains (hours on a CPU)
    python -m mfattn.implicit.variants --profile full --out data/full/deq_variants.json

The export reads the training cache only; it never trains.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any, Mapping, Optional

import numpy as np

from ..companion import store
from .train import VARIANTS, TrainResult, profile_config, run_dir, train_mnist

__all__ = ["variant_rows", "markdown_table", "binomial_se", "compare_to_blog", "cached_variant_results",
           "export_variants", "main"]

#: Short keys of the variants, in the order of :data:`mfattn.implicit.train.VARIANTS`.
KEYS = dict(zip(VARIANTS, ("blog", "m", "naive", "plain", "phantom")))


def variant_rows(results: Mapping[str, TrainResult]) -> list[dict[str, Any]]:
    """One row per run: test accuracy, training loss over the last fifth of the steps, mean
    forward/backward solver iterations per sample (``None`` without an adjoint solve),
    fraction of forward solves that converged, and wall-clock milliseconds per step
    (test evaluations included)."""
    rows = []
    for name, r in results.items():
        h = r.history
        tail = max(1, len(h["loss"]) // 5)
        bwd = r.summary["mean_backward_iterations"]
        rows.append({"variant": name, "key": KEYS.get(name, name), "test_accuracy": r.test_accuracy,
                     "test_examples": int(r.summary["test_examples"]), "steps": int(r.summary["steps"]),
                     "final_loss": float(np.mean(h["loss"][-tail:])),
                     "forward_iterations": float(r.summary["mean_forward_iterations"]),
                     "backward_iterations": None if bwd is None else float(bwd),
                     "forward_converged": float(np.nanmean(h["forward_converged"])),
                     "ms_per_step": 1e3 * float(r.summary["wall_time_s"]) / max(1, int(r.summary["steps"])),
                     "device": r.summary.get("device", "cpu")})
    return rows


def binomial_se(accuracy: float, n: int) -> float:
    """Standard error of the difference of two test accuracies near ``accuracy``, each
    measured on ``n`` independent examples: ``√(2 p (1 − p) / n)``."""
    if not (0 <= accuracy <= 1) or n < 1:
        raise ValueError(f"need 0 <= accuracy <= 1 and n >= 1; got {accuracy!r}, {n!r}")
    return math.sqrt(2 * accuracy * (1 - accuracy) / n)


def markdown_table(rows: list[dict[str, Any]]) -> str:
    """The rows of :func:`variant_rows` as a Markdown table."""
    lines = ["| variant | test accuracy | final training loss | forward iterations | backward iterations "
             "| converged (forward) | time per step |", "|---|---|---|---|---|---|---|"]
    for r in rows:
        bwd = "-" if r["backward_iterations"] is None else f"{r['backward_iterations']:.1f}"
        lines.append(f"| {r['variant']} | {100 * r['test_accuracy']:.2f}% | {r['final_loss']:.3f} | "
                     f"{r['forward_iterations']:.1f} | {bwd} | {100 * r['forward_converged']:.0f}% | "
                     f"{r['ms_per_step']:.0f} ms |")
    return "\n".join(lines)


def compare_to_blog(rows: list[dict[str, Any]]) -> tuple[float, list[str], list[str]]:
    """``(se, close, far)``: the standard error of a difference of two accuracies at the blog
    model's (:func:`binomial_se`), and the variants within / beyond two of them."""
    base = next((r for r in rows if r["key"] == "blog"), None)
    if base is None:
        raise ValueError("rows must include the blog model (key 'blog') to compare against")
    se = binomial_se(base["test_accuracy"], base["test_examples"])
    others = [r for r in rows if r is not base]
    close = [r["variant"] for r in others if abs(r["test_accuracy"] - base["test_accuracy"]) <= 2 * se]
    far = [r["variant"] for r in others if abs(r["test_accuracy"] - base["test_accuracy"]) > 2 * se]
    return se, close, far


def cached_variant_results(sizes: dict[str, Any], seed: int = 0, device: str = "cpu") -> dict[str, TrainResult]:
    """The finished variant runs of profile ``sizes`` found in the training cache (missing
    ones are left out, never trained)."""
    out = {}
    for name, options in VARIANTS.items():
        config = profile_config(sizes, seed, variant=True, **options)
        if (run_dir(config, device) / "result.json").is_file():
            out[name] = train_mnist(config, device=device)  # a cache hit: loads, does not train
    return out


def export_variants(profile: str = "full", path: Optional[str | Path] = None, seed: int = 0,
                    device: str = "cpu") -> dict[str, Any]:
    """Write the variant rows of ``profile`` found in the cache to ``path`` (atomically) and
    return them as ``{"profile", "seed", "rows", "missing"}``."""
    from ..companion.profiles import get_profile

    sizes = get_profile("deq", profile)
    results = cached_variant_results(sizes, seed, device)
    table = {"profile": profile, "seed": seed, "rows": variant_rows(results),
             "missing": [name for name in VARIANTS if name not in results]}
    if path is not None:
        store.atomic_write_json(path, table)
    return table


def main(argv: Optional[list[str]] = None) -> int:
    """``python -m mfattn.implicit.variants [--profile full] [--out JSON]``: export the cached variant table."""
    import argparse

    parser = argparse.ArgumentParser(prog="python -m mfattn.implicit.variants", description=main.__doc__.splitlines()[0])
    parser.add_argument("--profile", default="full", choices=("quick", "full"))
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--device", default="cpu", choices=("cpu", "cuda"))
    parser.add_argument("--out", default=None, help="JSON file to write (default: print only)")
    args = parser.parse_args(argv)
    table = export_variants(args.profile, args.out, args.seed, args.device)
    for row in table["rows"]:
        print(f"{row['variant']:<40} {100 * row['test_accuracy']:6.2f}%  loss {row['final_loss']:.3f}  "
              f"{row['ms_per_step']:5.0f} ms/step  ({row['steps']} steps)")
    if table["missing"]:
        print("not in the cache (train them with python -m mfattn.implicit.train --profile "
              f"{args.profile} --variants): {', '.join(table['missing'])}")
    return 0


if __name__ == "__main__":
    import sys

    sys.exit(main())
