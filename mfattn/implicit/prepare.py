"""Chapter 2's training runs, prepared ahead of ``mfattn reproduce`` by one or more workers.

The chapter's full profile reads about thirty MNIST runs (the blog model's seeds, the variant table, the
initialisation scales) from the training cache; this module trains them, the seeds of one architecture as one
ensemble (:func:`mfattn.implicit.ensemble_train.train_into_cache`: each member bit-equal to its solo run and
stored where the solo run lives), the softmax and MLP-mixer variants (which the ensemble does not batch) solo.
Jobs run in a fixed order (the blog model first: every analysis reads it; then the initialisation scales and the
plain-iteration variant, which the analyses read too; the rest of the variant table last); each worker takes the next job no
other worker holds (an exclusive lock on ``<cache>/deq/prepare/<job>.lock``, released when its process ends,
so a killed worker's job is taken again and resumes from its checkpoint)::

    python -m mfattn.implicit.prepare --profile full &    # two workers, one thread each
    python -m mfattn.implicit.prepare --profile full &
    python -m mfattn.implicit.prepare --profile full --list   # which jobs are finished
"""

from __future__ import annotations

import argparse
import fcntl
import os
from collections.abc import Mapping
from typing import Any, Callable

import torch

from ..companion import store
from ..companion.checks import check_path, check_rule
from .ensemble_train import train_into_cache
from .init_scale import FACTORS, factor_key, init_config
from .runs import finished_result
from .train import profile_config, train_mnist
from .variants import ALL_VARIANTS, KEYS, _run_device

__all__ = ["jobs", "run_names", "main"]

#: The seeds of each kind of job in a chapter-2 profile's sizes (each a non-empty list of seeds).
_SEED_KEYS = ("seeds", "init_seeds", "variant_seeds")


def _check_sizes(sizes: Any) -> Mapping:
    """``sizes`` if it is chapter 2's profile sizes (``get_profile("deq", ...)``) with a non-empty list of seeds >= 0
    under each of :data:`_SEED_KEYS` and the protocol's lengths; else a clear error naming ``sizes``."""
    if not isinstance(sizes, Mapping):
        raise TypeError(f"sizes must be chapter 2's profile sizes (a dict from get_profile('deq', ...)); "
                        f"got {type(sizes).__name__}")
    missing = [k for k in (*_SEED_KEYS, "init_epochs") if k not in sizes]
    if missing:
        raise ValueError(f"sizes lacks {missing}: expected chapter 2's profile sizes from get_profile('deq', ...)")
    for key in _SEED_KEYS:
        check_rule(f"sizes[{key!r}]", sizes[key], "ints:0")
    return sizes


def jobs(sizes: dict[str, Any], *, data_root=None, device: str = "cpu") -> dict[str, tuple[list, Callable[[], Any]]]:
    """``{job name: (its TrainConfigs, a function that trains them)}`` in the order the workers take them; ``sizes``
    must be chapter 2's profile sizes (every job names at least one seed); ``device`` one to train on here
    (``"cpu"``, or ``"cuda"``/``"cuda:N"`` with that CUDA device present) and ``data_root`` None or a folder path."""
    _check_sizes(sizes)
    _run_device(device, present=True)
    if data_root is not None:
        check_path("data_root", data_root)
    out: dict[str, tuple[list, Callable[[], Any]]] = {}

    def ensemble(configs):
        return configs, lambda: train_into_cache(configs, data_root=data_root, device=device)

    out["blog"] = ensemble([profile_config(sizes, s) for s in sizes["seeds"]])
    for f in FACTORS:
        out[factor_key(f)] = ensemble([init_config(sizes, s, f) for s in sizes["init_seeds"]])
    # the plain-iteration variant first: the chapter's stability analysis reads it beside the blog model
    for name, options in sorted(ALL_VARIANTS.items(), key=lambda item: KEYS[item[0]] != "plain"):
        if not options:
            continue  # the blog model's row is the chapter's own run
        configs = [profile_config(sizes, s, variant=True, **options) for s in sizes["variant_seeds"]]
        if options.get("interaction", "linear") == "linear":
            out[KEYS[name]] = ensemble(configs)
        else:
            for c in configs:
                out[f"{KEYS[name]}-seed{c.seed}"] = ([c], lambda c=c: train_mnist(c, data_root=data_root, device=device))
    return out


def run_names(sizes: dict[str, Any]) -> dict[str, Any]:
    """``{run name: its TrainConfig}`` for every run of :func:`jobs`, in job order: ``<job>-seed<s>`` for a member
    of an ensemble job, the job's own name for a solo job (already ``<variant>-seed<s>``)."""
    out: dict[str, Any] = {}
    for job, (configs, _) in jobs(sizes).items():
        for config in configs:
            out[job if len(configs) == 1 and job.endswith(f"-seed{config.seed}") else f"{job}-seed{config.seed}"] = config
    return out


def _finished(configs: list, device: str) -> bool:
    return all(finished_result(c, device) is not None for c in configs)


def main(argv: list[str] | None = None) -> int:
    """``python -m mfattn.implicit.prepare [--profile full] [--list] [--only JOB ...]``: train the chapter's runs."""
    from ..companion.profiles import get_profile

    parser = argparse.ArgumentParser(prog="python -m mfattn.implicit.prepare", description=main.__doc__.splitlines()[0])
    parser.add_argument("--profile", default="full", choices=("quick", "full"))
    parser.add_argument("--list", action="store_true", help="do not train: say which jobs are finished")
    parser.add_argument("--only", nargs="+", default=None, help="these jobs only")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--data", default=None, help="MNIST folder (default: $MFATTN_DATA or data/mnist)")
    args = parser.parse_args(argv)
    if args.threads < 1:
        parser.error(f"--threads must be a positive integer; got {args.threads}")
    torch.set_num_threads(args.threads)
    table = jobs(get_profile("deq", args.profile), data_root=args.data)
    unknown = sorted(set(args.only or ()) - set(table))
    if unknown:
        parser.error(f"--only: unknown job(s) {unknown}; known: {list(table)}")
    if args.list:
        for name, (configs, _) in table.items():
            print(f"{name}: {'finished' if _finished(configs, 'cpu') else 'to train'}")
        return 0
    locks = store.cache_dir("deq", "prepare", args.profile)
    locks.mkdir(parents=True, exist_ok=True)
    for name, (configs, train) in table.items():
        if (args.only and name not in args.only) or _finished(configs, "cpu"):
            continue
        fd = os.open(locks / f"{name}.lock", os.O_CREAT | os.O_RDWR, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:  # another worker has it
            os.close(fd)
            continue
        try:
            if not _finished(configs, "cpu"):
                print(f"{name}: training {len(configs)} run(s)", flush=True)
                results = train()
                results = results if isinstance(results, list) else [results]
                print(f"{name}: " + ", ".join(f"seed {r.config.seed} {r.test_accuracy:.4f}" for r in results), flush=True)
        finally:
            os.close(fd)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
