"""How long the book's notebooks take to execute in the quick profile (the book build's cost).

Each page of ``_toc.yml`` that is a notebook is executed once with papermill, in its own process, in
the order of the table of contents, with fresh output and cache folders (``$MFATTN_OUTPUT`` and
``$MFATTN_CACHE`` under a temporary directory), so no run cache from an earlier build makes a chapter
look fast. Per notebook: wall-clock seconds and the CPU seconds of the process tree (kernel included),
beside the machine's load average when it started: on a shared machine wall time exceeds CPU time.

Targets (issue "Readers", build time), on an idle 2-core machine: all notebooks together ≤ 180 s and
none over 60 s. The table says which are met, by wall time and by CPU time; nothing fails: this is a
measurement, not a test.

``--save`` writes the table to ``data/benchmarks/bench_book.json`` with the machine and versions.

Run:  OMP_NUM_THREADS=1 python benchmarks/bench_book.py [--only 05_new_attention_designs] [--save]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from mfattn.companion.machine import cpu_model  # noqa: E402
TOTAL_TARGET_S = 180.0
EACH_TARGET_S = 60.0


def notebooks() -> list[Path]:
    """The notebook pages of ``_toc.yml``, in its order (``file:`` entries with a ``.ipynb`` beside them)."""
    names = re.findall(r"^\s*-?\s*(?:root|file):\s*(\S+)", (ROOT / "_toc.yml").read_text(), flags=re.M)
    return [ROOT / f"{name}.ipynb" for name in names if (ROOT / f"{name}.ipynb").exists()]


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_one(path: Path, scratch: Path) -> dict:
    """Execute ``path`` with papermill in a child process; wall and CPU seconds of the process tree."""
    env = dict(os.environ, MFATTN_OUTPUT=str(scratch / "output"), MFATTN_CACHE=str(scratch / "cache"),
               PYTHONHASHSEED="0")
    load = os.getloadavg()[0]
    cpu0, t0 = children_cpu(), time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "papermill", str(path), str(scratch / path.name),
                           "--cwd", str(path.parent), "-k", "python3", "--no-progress-bar"],
                          env=env, capture_output=True, text=True)
    wall, cpu = time.perf_counter() - t0, children_cpu() - cpu0
    row = {"notebook": path.stem, "wall_s": round(wall, 1), "cpu_s": round(cpu, 1), "load_at_start": round(load, 2),
           "ok": proc.returncode == 0}
    if proc.returncode:
        row["error"] = proc.stderr.strip().splitlines()[-1:] or ["(no message)"]
    return row


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="*", default=None, help="notebook stems to run (default: every page)")
    parser.add_argument("--save", action="store_true", help="write data/benchmarks/bench_book.json")
    args = parser.parse_args(argv)
    pages = notebooks()
    if args.only:
        unknown = sorted(set(args.only) - {p.stem for p in pages})
        if unknown:
            parser.error(f"--only: no notebook page named {', '.join(unknown)}; pages: {', '.join(p.stem for p in pages)}")
        pages = [p for p in pages if p.stem in args.only]
    rows = []
    with tempfile.TemporaryDirectory(prefix="mfattn-bench-book-") as tmp:
        for page in pages:
            row = run_one(page, Path(tmp))
            rows.append(row)
            flag = "" if row["ok"] else "  FAILED: " + " ".join(row.get("error", []))
            print(f"{row['notebook']:32s} wall {row['wall_s']:7.1f} s   cpu {row['cpu_s']:7.1f} s   "
                  f"load {row['load_at_start']:.2f}{flag}", flush=True)
    total_wall = sum(r["wall_s"] for r in rows)
    total_cpu = sum(r["cpu_s"] for r in rows)
    over = [r["notebook"] for r in rows if r["wall_s"] > EACH_TARGET_S]
    print(f"{'total':32s} wall {total_wall:7.1f} s   cpu {total_cpu:7.1f} s   "
          f"(targets: total ≤ {TOTAL_TARGET_S:.0f} s, each ≤ {EACH_TARGET_S:.0f} s; over by wall time: {over or 'none'})")
    if args.save:
        import numpy
        import torch

        result = {"notebooks": rows, "total_wall_s": round(total_wall, 1), "total_cpu_s": round(total_cpu, 1),
                  "targets": {"total_s": TOTAL_TARGET_S, "each_s": EACH_TARGET_S},
                  "machine": {"cpu": cpu_model(), "cores": os.cpu_count(), "platform": platform.platform(),
                              "python": platform.python_version(), "numpy": numpy.__version__,
                              "torch": torch.__version__, "OMP_NUM_THREADS": os.environ.get("OMP_NUM_THREADS")},
                  "date": time.strftime("%Y-%m-%d"), "complete": args.only is None}
        out = ROOT / "data" / "benchmarks" / "bench_book.json"
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(result, indent=2) + "\n")
        print(f"saved {out.relative_to(ROOT)}")
    return 0 if all(r["ok"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
