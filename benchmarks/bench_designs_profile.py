"""Chapter 5's full profile, extrapolated from short runs of each of its training parts (one thread).

Each part of ``python -m mfattn reproduce --profile full --chapter designs`` that trains is run for
``--steps`` steps with the full profile's sizes (seeds, batch, test set) and no cache; its CPU time per
step, times the profile's steps (plus the fixed cost of the replay's skipped random streams), estimates
the part's time in the full profile. Figures and held-out evaluations are not counted (seconds).

Parts: multi-hop on the paper's task with the output-scale controls (five models), on the code's task
(three), the ablation (five models), the replay of the public code's run (torch's arithmetic), and
expanding attention: every setting of the prior at d = 10 in one loop, the learnable prior alone, and
the paper's and the code's settings at d = 50 in one loop.

``--save`` writes the table to ``data/benchmarks/bench_designs_profile.json`` with the machine.

Run:  python benchmarks/bench_designs_profile.py [--steps 200] [--save]
"""

from __future__ import annotations

import argparse
import platform
import sys
import time
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from mfattn.companion import profiles, store  # noqa: E402
from mfattn.structural import analysis, expanding as ex, multihop as mh  # noqa: E402


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=200, help="steps timed per part")
    parser.add_argument("--save", action="store_true", help="write data/benchmarks/bench_designs_profile.json")
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    F, N = profiles.get_profile("designs", "full"), args.steps
    rows = []

    def part(name, full_steps, fn, fixed=0.0):
        t0 = time.process_time()
        fn(N)
        per_step = (time.process_time() - t0 - fixed) / N
        rows.append({"part": name, "ms_per_step": 1e3 * per_step, "full_steps": full_steps,
                     "estimate_s": per_step * full_steps + fixed})
        print(f"{name:44s} {1e3 * per_step:7.2f} ms/step x {full_steps:>6} -> {rows[-1]['estimate_s']:7.1f} s",
              flush=True)

    common = dict(seeds=F["seeds"], batch_size=F["batch_size"], hops=F["hops"], record_every=F["record_every"],
                  test_size=F["test_size"], cache=False)
    paper = mh.MultihopTask(mode="paper", rank=F["rank"])
    part("multi-hop, paper's task, 5 models", F["steps"],
         lambda n: mh.train_multihop(mh.MODEL_NAMES + mh.CONTROL_NAMES, task=paper, steps=n, **common))
    part("multi-hop, code's task, 3 models", F["steps"],
         lambda n: mh.train_multihop(mh.MODEL_NAMES, task=mh.MultihopTask(mode="code"), steps=n, **common))
    part("multi-hop ablation, 5 models", F["abl_steps"],
         lambda n: mh.train_multihop(mh.MODEL_NAMES + mh.CONTROL_NAMES, task=mh.MultihopTask(
             mode="paper", rank=F["rank"], root="noise"), steps=n, **{**common, "seeds": F["abl_seeds"]}))
    replay = dict(task=mh.MultihopTask(mode="code"), protocol="code", record_every=1000, test_size=F["test_size"],
                  cache=False)
    t0 = time.process_time()
    mh.train_multihop(("multihop", "one_layer"), F["repro_seeds"], steps=1, **replay)
    fixed = time.process_time() - t0                      # the skipped streams and the evaluation
    part("replay of the public code's run", F["repro_steps"],
         lambda n: mh.train_multihop(("multihop", "one_layer"), F["repro_seeds"], steps=n, **replay), fixed)
    ec = dict(ps=F["exp_ps"], seeds=F["exp_seeds"], batch_size=F["exp_batch"], cache=False)
    d0 = F["exp_dims"][0]
    part(f"expanding, learnable prior, d = {d0}", F["exp_steps"],
         lambda n: ex.train_expanding(d=d0, steps=n, learn_prior=True, models=("expanding",), **ec))
    for d in F["exp_dims"]:
        todo = {"paper": {}, "code": analysis.CODE_SETTING}
        if d == d0:
            todo.update({k: {**kw, "models": ("expanding",)} for k, kw in analysis.PRIOR_VARIANTS.items()
                         if "learn_prior" not in kw})
        part(f"expanding, {len(todo)} settings in one loop, d = {d}", F["exp_steps"],
             lambda n: ex.train_expanding_variants(todo, d=d, steps=n, **ec))
    total = sum(r["estimate_s"] for r in rows)
    print(f"{'training, full profile (estimate)':44s} {total:28.0f} s = {total / 60:.1f} min")
    if args.save:
        path = ROOT / "data" / "benchmarks" / "bench_designs_profile.json"
        meta = {"steps_timed": N, "threads": 1, "times": "process CPU time, extrapolated to the full profile's steps",
                "machine": f"{platform.machine()}, {platform.system()}", "python": platform.python_version(),
                "torch": torch.__version__, "command": "python benchmarks/bench_designs_profile.py --save"}
        store.atomic_write_json(path, {"meta": meta, "rows": rows, "total_s": total})
        print(f"saved {path.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
