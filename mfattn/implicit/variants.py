"""The variant table of Chapter 2: which ingredients of the blog's MNIST model matter.

Each variant retrains the model of :mod:`mfattn.implicit.models` with one option changed
(:data:`mfattn.implicit.train.VARIANTS`: correction on ``m``, no correction, plain iteration, phantom
gradient; :data:`INTERACTION_VARIANTS`: softmax and MLP-mixer couplings instead of learned ``J``), for
several seeds. This module turns finished runs into table rows (one per variant and seed, with the test
digits each run got right, bit-packed), summarises them over seeds (:func:`seed_summary`: mean and seed
spread of the accuracy, training loss, and the paired exact McNemar test against the blog model of the
same seed on the same test digits, :func:`mcnemar`), and stores the rows of the full profile in ``data/``
so that the book, built in the quick profile, can show them::

    python -m mfattn.implicit.variants --profile full --seeds 0 1 2 --interactions --train   # trains (CPU: hours)
    python -m mfattn.implicit.variants --profile full --seeds 0 1 2 --interactions --out data/full/deq_variants.json

Without ``--train`` the export reads the training cache only; it never trains.
"""

from __future__ import annotations

import base64
import math
from pathlib import Path
from typing import Any, Mapping, Optional, Sequence

import numpy as np

from ..companion.checks_scalars import _seed_option
from ..companion import store
from .train import VARIANTS, TrainResult, finished_result, profile_config, train_mnist
from ..companion.checks import check_bool, check_int, check_rule, contract

__all__ = ["variant_rows", "markdown_table", "binomial_se", "compare_to_blog", "mcnemar", "compare_paired", "seeds_statement", "pack_correct",
           "unpack_correct", "seed_summary", "summary_table", "cached_variant_results", "export_variants",
           "train_variants", "INTERACTION_VARIANTS", "ALL_VARIANTS", "main"]

#: The blog's other interactions (its layer's ``interaction`` option): couplings computed from the sources
#: by softmax attention, or an MLP across the site axis, in place of the learned ``J``.
INTERACTION_VARIANTS: dict[str, dict[str, Any]] = {
    "softmax couplings (attention)": {"interaction": "softmax", "symmetry": None},
    "MLP-mixer couplings": {"interaction": "mixer", "symmetry": None},
}
ALL_VARIANTS: dict[str, dict[str, Any]] = {**VARIANTS, **INTERACTION_VARIANTS}

#: Short keys of the variants, in the order of :data:`ALL_VARIANTS`.
KEYS = dict(zip(ALL_VARIANTS, ("blog", "m", "naive", "plain", "phantom", "softmax", "mixer")))


def pack_correct(correct: np.ndarray) -> str:
    """A (n,) bool array of correctly classified test digits as base64 of its packed bits (JSON-friendly)."""
    a = np.asarray(correct)
    if a.ndim != 1 or not (a.dtype == bool or (a.dtype.kind in "iu" and np.isin(a, (0, 1)).all())):
        raise ValueError(f"correct must be a 1-d array of booleans (or 0/1); got dtype {a.dtype}, shape {a.shape}")
    return base64.b64encode(np.packbits(a.astype(bool)).tobytes()).decode("ascii")


@contract(packed="str", n="int:0", alloc=lambda a: [("n", a["n"] + len(a["packed"]))])
def unpack_correct(packed: str, n: int) -> np.ndarray:
    """Inverse of :func:`pack_correct`: the (n,) bool array. A string that is not base64, or holds fewer
    than ``n`` bits (or more than ``n`` rounded up to whole bytes), is a ValueError naming ``packed``."""
    import binascii

    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 0:
        raise ValueError(f"n must be a non-negative integer (the number of test digits); got {n!r}")
    if not isinstance(packed, str):
        raise TypeError(f"packed must be a base64 string from pack_correct; got {type(packed).__name__}")
    try:
        raw = base64.b64decode(packed.encode("ascii"), validate=True)
    except (binascii.Error, UnicodeEncodeError, ValueError):
        raise ValueError(f"packed must be a base64 string from pack_correct; got {packed[:40]!r}") from None
    if len(raw) != (int(n) + 7) // 8:
        raise ValueError(f"packed holds {len(raw)} bytes ({8 * len(raw)} bits), but n={n} digits need "
                         f"{(int(n) + 7) // 8} bytes: it was packed from another test set")
    return np.unpackbits(np.frombuffer(raw, dtype=np.uint8), count=int(n)).astype(bool)


#: The keys each kind of row must hold (what the formatters and comparisons read).
_ROW_KEYS = ("key", "variant", "test_accuracy", "test_examples", "final_loss", "forward_iterations",
             "forward_converged", "backward_iterations", "ms_per_step")
_SUMMARY_KEYS = ("key", "variant", "n_seeds", "acc_mean", "acc_std", "delta", "mcnemar_p", "loss_mean",
                 "forward_iterations", "forward_converged")


def _check_rows(name: str, rows: Any, keys: Sequence[str] = ()) -> list:
    """``rows`` as a list if it is a sequence of mappings (the rows of :func:`variant_rows` or :func:`seed_summary`)
    each holding ``keys``, else a TypeError (ValueError for a missing key) naming ``name``."""
    if isinstance(rows, (str, bytes, Mapping)) or not isinstance(rows, Sequence):
        raise TypeError(f"{name} must be a list of rows (dicts); got {type(rows).__name__}")
    bad = [type(r).__name__ for r in rows if not isinstance(r, Mapping)]
    if bad:
        raise TypeError(f"{name} must be a list of rows (dicts); got an entry of type {bad[0]}")
    for i, r in enumerate(rows):
        missing = [k for k in keys if k not in r]
        if missing:
            raise ValueError(f"{name}[{i}] lacks {missing}: expected the rows of "
                             f"{'seed_summary' if 'n_seeds' in keys else 'variant_rows'}")
        _check_values(f"{name}[{i}]", r)
    return list(rows)


#: The numbers a row may hold, by kind: shares in [0, 1], finite reals (None allowed where a row may lack one),
#: counts >= 1.
_SHARES = ("test_accuracy", "forward_converged", "acc_mean")
_REALS = ("forward_iterations", "ms_per_step")
_OPTIONAL_REALS = ("backward_iterations", "acc_std", "delta")
_COUNTS = ("test_examples", "n_seeds")
#: A training loss may be NaN or inf (a run that diverged, e.g. a large initialisation): a number, not checked finite.
_LOSSES = ("final_loss", "loss_mean")


def _check_values(name: str, row: Mapping) -> None:
    """A ValueError (TypeError for a wrong type) naming ``name[key]`` for a number of the row that is not one: NaN,
    inf, a share outside [0, 1], a count < 1, p-values outside [0, 1], ``n_seeds`` other than ``len(seeds)``. A loss
    may be NaN or inf (a diverged run; documented), but must be a number."""
    from ..companion.checks import check_real

    for key in _SHARES + _REALS + _OPTIONAL_REALS:
        if key in row and not (key in _OPTIONAL_REALS and row[key] is None):
            check_real(f"{name}[{key!r}]", row[key], **(dict(minimum=0.0, maximum=1.0) if key in _SHARES else {}))
    for key in _LOSSES:
        if key in row and (isinstance(row[key], (bool, np.bool_)) or not isinstance(row[key], (int, float, np.number))
                           or isinstance(row[key], complex)):
            raise TypeError(f"{name}[{key!r}] must be a number (a training loss); got {row[key]!r:.60}")
    for key in _COUNTS:
        if key in row:
            check_int(f"{name}[{key!r}]", row[key], 1)
    if "mcnemar_p" in row:
        ps = row["mcnemar_p"]
        if isinstance(ps, (str, bytes, Mapping)) or not isinstance(ps, Sequence):
            raise TypeError(f"{name}['mcnemar_p'] must be a list of p-values; got {type(ps).__name__}")
        for p in ps:
            check_real(f"each entry of {name}['mcnemar_p']", p, minimum=0.0, maximum=1.0)
    if "seeds" in row:
        check_rule(f"{name}['seeds']", row["seeds"], "ints:0")
        if "n_seeds" in row and row["n_seeds"] != len(row["seeds"]):
            raise ValueError(f"{name}['n_seeds'] must count its seeds ({len(row['seeds'])}); got {row['n_seeds']!r}")


def variant_rows(results: Mapping[str, TrainResult]) -> list[dict[str, Any]]:
    """One row per run: seed, test accuracy, training loss over the last fifth of the steps, mean
    forward/backward solver iterations per sample (``None`` without an adjoint solve),
    fraction of forward solves that converged, wall-clock milliseconds per step
    (test evaluations included), and which test digits it got right (``correct``, :func:`pack_correct`;
    ``None`` when the history has no predictions)."""
    if not isinstance(results, Mapping):
        raise TypeError(f"results must be a mapping of variant name -> TrainResult; got {type(results).__name__}")
    bad = [name for name, r in results.items() if not isinstance(r, TrainResult)]
    if bad:
        raise TypeError(f"results must map each variant to a TrainResult; {bad[0]!r} maps to "
                        f"{type(results[bad[0]]).__name__}")
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
                     "device": r.summary.get("device", "cpu"), "seed": int(getattr(r.config, "seed", 0)),
                     "correct": pack_correct(h["test_pred"] == h["test_labels"])
                     if "test_pred" in h and "test_labels" in h else None})
    return rows


@contract(accuracy="real:[0,1]", n="int:1")
def binomial_se(accuracy: float, n: int) -> float:
    """Standard error of the difference of two test accuracies near ``accuracy``, each
    measured on ``n`` independent examples: ``√(2 p (1 − p) / n)``."""
    if not (0 <= accuracy <= 1) or n < 1:
        raise ValueError(f"need 0 <= accuracy <= 1 and n >= 1; got {accuracy!r}, {n!r}")
    return math.sqrt(2 * accuracy * (1 - accuracy) / n)


def markdown_table(rows: list[dict[str, Any]]) -> str:
    """The rows of :func:`variant_rows` as a Markdown table."""
    rows = _check_rows("rows", rows, _ROW_KEYS)
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
    model's (:func:`binomial_se`), and the variants within / beyond two of them. With rows of several seeds the
    first blog row is the base (documented: the stored table's seed 0; :func:`seed_summary` pairs the seeds)."""
    rows = _check_rows("rows", rows, ("key", "variant", "test_accuracy"))
    i = next((i for i, r in enumerate(rows) if r["key"] == "blog"), None)
    if i is None:
        raise ValueError("rows must include the blog model (key 'blog') to compare against")
    base = rows[i]
    if "test_examples" not in base:
        raise ValueError(f"rows[{i}] (the blog model) lacks ['test_examples']: expected the rows of variant_rows")
    se = binomial_se(base["test_accuracy"], base["test_examples"])
    others = [r for r in rows if r is not base]
    close = [r["variant"] for r in others if abs(r["test_accuracy"] - base["test_accuracy"]) <= 2 * se]
    far = [r["variant"] for r in others if abs(r["test_accuracy"] - base["test_accuracy"]) > 2 * se]
    return se, close, far


#: The most test examples :func:`mcnemar` pairs: MNIST's test set (its exact binomial tail costs ~ n² bit operations).
MAX_TEST_EXAMPLES = 10_000


def mcnemar(correct_a: np.ndarray, correct_b: np.ndarray) -> dict[str, float]:
    """Exact (binomial) two-sided McNemar test of two classifiers on the SAME test examples.

    ``b`` = examples only A gets right, ``c`` = only B gets right; under the null hypothesis of equal
    accuracy each discordant example is a fair coin, so ``p = min(1, 2 P[X <= min(b, c)])`` for
    ``X ~ Binomial(b + c, 1/2)`` (``p = 1`` without discordant examples). Unlike a standard error of two
    independent accuracies it uses the pairing: examples both get right or both get wrong carry no
    information about the difference. Returns ``{"b", "c", "p"}``. Each array holds 1 to
    :data:`MAX_TEST_EXAMPLES` examples.
    """
    for name, value in (("correct_a", correct_a), ("correct_b", correct_b)):
        raw = np.asarray(value)
        if raw.dtype.kind not in "biu" or (raw.dtype.kind != "b" and not np.isin(raw, (0, 1)).all()):
            raise TypeError(f"{name} must hold booleans (or 0/1) per test example; got dtype {raw.dtype}"
                            + ("" if raw.dtype.kind not in "iu" else " with values other than 0 and 1"))
    a, bb = np.asarray(correct_a, dtype=bool), np.asarray(correct_b, dtype=bool)
    if a.shape != bb.shape or a.ndim != 1:
        raise ValueError(f"correct_a and correct_b must be 1-d and of one length (the same test examples); "
                         f"got {a.shape} and {bb.shape}")
    if not 1 <= a.size <= MAX_TEST_EXAMPLES:
        raise ValueError(f"correct_a and correct_b must cover 1 to {MAX_TEST_EXAMPLES:,} test examples (MNIST's test "
                         f"set; the exact tail's cost grows with their square); got {a.size:,}")
    b, c = int(np.sum(a & ~bb)), int(np.sum(~a & bb))
    n, k = b + c, min(b, c)
    tail = sum(math.comb(n, i) for i in range(k + 1)) / 2 ** n if n else 1.0
    return {"b": float(b), "c": float(c), "p": min(1.0, 2 * tail)}


def seed_summary(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Rows of :func:`variant_rows` (one per variant and seed) summarised per variant, in the order of first
    appearance: ``seeds``, ``n_seeds``, ``acc_mean``, ``acc_std`` (sample s.d. over seeds; None for one seed),
    ``loss_mean``, ``forward_iterations``, ``forward_converged``, and against the blog model of the same
    seed: ``delta`` (mean paired difference of accuracies), ``mcnemar_p`` (the exact McNemar p-value of each
    paired seed, :func:`mcnemar`; empty where the test digits of a run are not stored)."""
    rows = _check_rows("rows", rows, ("key", "variant", "test_accuracy", "test_examples", "final_loss",
                                       "forward_iterations", "forward_converged"))
    by_key: dict[str, list[dict[str, Any]]] = {}
    for r in rows:
        by_key.setdefault(r["key"], []).append(r)
    blog = {r.get("seed", 0): r for r in by_key.get("blog", [])}
    out = []
    for key, runs in by_key.items():
        acc = np.array([r["test_accuracy"] for r in runs])
        deltas, ps = [], []
        for r in runs:
            base = blog.get(r.get("seed", 0))
            if key == "blog" or base is None:
                continue
            deltas.append(r["test_accuracy"] - base["test_accuracy"])
            if r.get("correct") and base.get("correct") and r["test_examples"] == base["test_examples"]:
                n = int(r["test_examples"])
                ps.append(mcnemar(unpack_correct(r["correct"], n), unpack_correct(base["correct"], n))["p"])
        out.append({"key": key, "variant": runs[0]["variant"], "seeds": [int(r.get("seed", 0)) for r in runs],
                    "n_seeds": len(runs), "acc_mean": float(acc.mean()),
                    "acc_std": float(acc.std(ddof=1)) if len(acc) > 1 else None,
                    "loss_mean": float(np.mean([r["final_loss"] for r in runs])),
                    "forward_iterations": float(np.mean([r["forward_iterations"] for r in runs])),
                    "forward_converged": float(np.mean([r["forward_converged"] for r in runs])),
                    "delta": float(np.mean(deltas)) if deltas else None, "mcnemar_p": ps,
                    "test_examples": int(runs[0]["test_examples"])})
    return out


def summary_table(summary: list[dict[str, Any]]) -> str:
    """:func:`seed_summary` as a Markdown table (accuracy: mean ± s.d. over seeds; Δ and McNemar against
    the blog model of the same seed, on the same test digits)."""
    summary = _check_rows("summary", summary, _SUMMARY_KEYS)
    lines = ["| variant | seeds | test accuracy (mean ± s.d. over seeds) | Δ vs blog model (paired) "
             "| McNemar p per seed | final training loss | forward iterations | converged (forward) |",
             "|---|---|---|---|---|---|---|---|"]
    for r in summary:
        acc = f"{100 * r['acc_mean']:.2f}%" + (f" ± {100 * r['acc_std']:.2f}" if r["acc_std"] is not None else "")
        delta = "-" if r["delta"] is None else f"{100 * r['delta']:+.2f} points"
        ps = ", ".join(f"{p:.2g}" for p in r["mcnemar_p"]) or "-"
        lines.append(f"| {r['variant']} | {r['n_seeds']} | {acc} | {delta} | {ps} | {r['loss_mean']:.3g} | "
                     f"{r['forward_iterations']:.1f} | {100 * r['forward_converged']:.0f}% |")
    return "\n".join(lines)


@contract(alpha="real:(0,1)")
def compare_paired(summary: list[dict[str, Any]], alpha: float = 0.05) -> dict[str, list[str]]:
    """Variants of :func:`seed_summary` sorted by the paired McNemar test against the blog model:
    ``"same"`` (p >= alpha for every paired seed), ``"different"`` (p < alpha for every seed), ``"mixed"``
    (seeds disagree) and ``"untested"`` (no stored test digits to pair)."""
    summary = _check_rows("summary", summary, _SUMMARY_KEYS)
    out: dict[str, list[str]] = {"same": [], "different": [], "mixed": [], "untested": []}
    for r in summary:
        if r["key"] == "blog":
            continue
        ps = r["mcnemar_p"]
        group = ("untested" if not ps else "same" if min(ps) >= alpha else "different" if max(ps) < alpha
                 else "mixed")
        out[group].append(r["variant"])
    return out


def seeds_statement(summary: list[dict[str, Any]]) -> str:
    """What a table has, in words: seeds per variant (and a note when fewer than the three the book asks for);
    ``summary`` holds the rows of :func:`seed_summary` (each with ``n_seeds`` and ``seeds``)."""
    summary = _check_rows("summary", summary, ("n_seeds", "seeds"))
    counts = sorted({r["n_seeds"] for r in summary})
    if not counts:
        return "no variant runs"
    seeds = sorted({s for r in summary for s in r["seeds"]})
    text = (f"{counts[0]} seed{'s' * (counts[0] > 1)} per variant" if len(counts) == 1
            else f"{counts[0]} to {counts[-1]} seeds per variant") + f" (seed{'s' * (len(seeds) > 1)} " + \
        ", ".join(map(str, seeds)) + ")"
    return text + ("" if counts[0] >= 3 else "; fewer than the three seeds per variant a seed spread needs")


def _run_device(device: Any, *, present: bool = False) -> str:
    """``device`` if it names a device a run is keyed by (``"cpu"``, ``"cuda"``, ``"cuda:N"`` or a torch.device of
    either type), else a ValueError (TypeError for another type) naming ``device``: never ``""``, ``"meta"``,
    ``"cpu\\n"``. ``present``: the device must also be here to train on (CUDA available, N below the count); without
    it a CUDA run is named on any machine, but its index must be below the machine's device count (at least 1)."""
    import re

    import torch

    if not isinstance(device, (str, torch.device)):
        raise TypeError(f"device must be 'cpu', 'cuda', 'cuda:N' or a torch.device; got {type(device).__name__}")
    text = str(device)
    if not re.fullmatch(r"cpu|cuda(:[0-9]{1,4})?", text):
        raise ValueError(f"device must be 'cpu', 'cuda', 'cuda:N' or a torch.device of those types; got {text!r:.60}")
    if text.startswith("cuda"):
        count = torch.cuda.device_count() if torch.cuda.is_available() else 0
        if present and not count:
            raise ValueError(f"device={text!r} was asked for, but torch sees no CUDA device; use 'cpu'")
        index = int(text[5:]) if ":" in text else 0
        if index >= max(count, 1):
            raise ValueError(f"device={text!r}: no CUDA device of index {index} (this machine has {count})")
    return device


def _distinct_seeds(seeds: Any, name: str = "seeds") -> list[int]:
    """``seeds`` as a list if it is a non-empty list of distinct integers >= 0, else an error naming ``name``."""
    check_rule(name, seeds, "ints:0")
    seeds = list(seeds)
    if len(set(int(s) for s in seeds)) != len(seeds):
        raise ValueError(f"{name} must name each seed once (a run per seed); got {seeds!r:.80}")
    return seeds


def _variant_options(interactions: bool) -> dict[str, dict[str, Any]]:
    return ALL_VARIANTS if interactions else dict(VARIANTS)


def cached_variant_results(sizes: dict[str, Any], seed: int = 0, device: str = "cpu", *,
                           interactions: bool = False) -> dict[str, TrainResult]:
    """The finished variant runs of profile ``sizes`` and ``seed`` found in the training cache (missing
    ones are left out, never trained); ``interactions`` (True or False) adds :data:`INTERACTION_VARIANTS`."""
    interactions = check_bool("interactions", interactions)
    _run_device(device)
    out = {}
    for name, options in _variant_options(interactions).items():
        config = profile_config(sizes, seed, variant=True, **options)
        result = finished_result(config, device)  # verified; never trains
        if result is not None:
            out[name] = result
    return out


def export_variants(profile: str = "full", path: Optional[str | Path] = None, seed: int | Sequence[int] = 0,
                    device: str = "cpu", *, interactions: bool = False) -> dict[str, Any]:
    """Write the variant rows of ``profile`` for the seed(s) found in the cache to ``path`` (atomically) and
    return them as ``{"profile", "seeds", "rows", "missing"}`` (``missing``: "variant (seed s)" strings). ``seed``: one
    seed >= 0 or a non-empty list of them."""
    from ..companion.profiles import get_profile

    interactions = check_bool("interactions", interactions)
    if isinstance(seed, (int, np.integer)) and not isinstance(seed, bool):
        seeds = [check_int("seed", seed, 0)]
    else:
        seeds = list(seed) if hasattr(seed, "__iter__") and not isinstance(seed, (str, bytes)) else seed
        seeds = [int(s) for s in _distinct_seeds(seeds, "seed")]
    _run_device(device)
    sizes = get_profile("deq", profile)
    rows, missing = [], []
    for s in seeds:
        results = cached_variant_results(sizes, s, device, interactions=interactions)
        rows += variant_rows(results)
        missing += [f"{name} (seed {s})" for name in _variant_options(interactions) if name not in results]
    table = {"profile": profile, "seeds": seeds, "rows": rows, "missing": missing}
    if path is not None:
        store.atomic_write_json(path, table)
    return table


def train_variants(profile: str, seeds: Sequence[int], device: str = "cpu", *, interactions: bool = False,
                   data_root=None) -> None:
    """Train (or resume, or load) every variant run of ``profile`` for ``seeds`` (distinct seeds >= 0) into the
    training cache."""
    from ..companion.profiles import get_profile

    sizes = get_profile("deq", profile)
    seeds = _distinct_seeds(seeds)
    _run_device(device, present=True)
    interactions = check_bool("interactions", interactions)
    for s in seeds:
        for name, options in _variant_options(interactions).items():
            res = train_mnist(profile_config(sizes, s, variant=True, **options), data_root=data_root, device=device)
            print(f"{name} (seed {s}): test accuracy {res.test_accuracy:.4f} ({res.folder})", flush=True)


def main(argv: Optional[list[str]] = None) -> int:
    """``python -m mfattn.implicit.variants [--profile full] [--seeds S ...] [--interactions] [--train] [--out JSON]``:
    export (or first train) the variant table."""
    import argparse

    import torch

    parser = argparse.ArgumentParser(prog="python -m mfattn.implicit.variants", description=main.__doc__.splitlines()[0])
    parser.add_argument("--profile", default="full", choices=("quick", "full"))
    parser.add_argument("--seed", "--seeds", dest="seeds", type=_seed_option, nargs="+", default=[0],
                        help="seeds of every variant (the book asks for at least three: 0 1 2)")
    parser.add_argument("--interactions", action="store_true", help="add the softmax and MLP-mixer couplings")
    parser.add_argument("--train", action="store_true", help="train the missing runs first (hours on a CPU)")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--device", default="cpu", choices=("cpu", "cuda"))
    parser.add_argument("--out", default=None, help="JSON file to write (default: print only)")
    args = parser.parse_args(argv)
    if any(s < 0 for s in args.seeds):
        parser.error(f"seeds must be non-negative integers; got {args.seeds}")
    if args.threads < 1:
        parser.error(f"--threads must be a positive integer; got {args.threads}")
    if args.out is not None:
        try:
            store.check_file_target(args.out, "--out")
        except OSError as err:  # one line on stderr, exit 2 (no usage text)
            parser.exit(2, f"{parser.prog}: error: {err}\n")
    torch.set_num_threads(args.threads)
    try:
        if args.train:
            train_variants(args.profile, args.seeds, args.device, interactions=args.interactions)
        table = export_variants(args.profile, args.out, args.seeds, args.device, interactions=args.interactions)
    except (OSError, ValueError, RuntimeError) as err:  # a folder that cannot be used, missing data: one line
        parser.exit(2, f"{parser.prog}: error: {err}\n")
    for row in seed_summary(table["rows"]):
        sd = f" ± {100 * row['acc_std']:.2f}" if row["acc_std"] is not None else ""
        print(f"{row['variant']:<40} {row['n_seeds']} seed(s)  {100 * row['acc_mean']:6.2f}%{sd}  "
              f"loss {row['loss_mean']:.3g}  McNemar p vs blog: {', '.join(f'{p:.2g}' for p in row['mcnemar_p']) or '-'}")
    if table["missing"]:
        print("not in the cache (train them with --train): " + ", ".join(table["missing"]))
    return 0


if __name__ == "__main__":
    import sys

    sys.exit(main())
