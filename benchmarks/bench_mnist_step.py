"""One MNIST training step: mfattn vs the reference implementation of Deep Implicit Attention.

Both sides train the blog's model (same conv embedding, N = 17 spins of dimension 10 with
internally symmetric couplings, correction net, Anderson solver with 40 forward / 40 backward
iterations at tol 1e-4, Adam lr 5e-4, batch 60) on the same MNIST batches, single-threaded,
in one process. Reported: median time of a full step (forward solve, implicit backward,
optimiser step) after a warm-up, the mean number of evaluations of the mean-field map per step
(forward plus backward, over the whole batch: our samples stop one by one, but the batch is
evaluated until its last sample stops, so this is the count that costs time), and the ratio.
Each side uses its own training code's optimiser: ``torch.optim.Adam`` for the reference
example, :func:`mfattn.implicit.train.make_optimizer` (the same Adam, fused kernel) for ours.

The reference is ``mcbal/deep-implicit-attention`` (MIT). It is not part of this project: put
a checkout of its ``deep_implicit_attention`` package under a scratch folder (default
``.scratch/ref``; git-ignored) together with ``einops`` (``pip install --target
.scratch/ref/site einops``). It calls ``torch.solve``, which current torch removed; this
script supplies that one function at run time (``torch.linalg.solve`` with the old argument
order) and touches nothing else of the reference. Its model class lives in a script that needs
torchvision, so the same model is assembled here from the reference's mean-field layer, DEQ
wrapper and Anderson solver and the example's embedding (standard torch layers).

Times are process CPU time (the machine may be shared; a single-threaded step's CPU time is
what it costs), with wall-clock medians printed beside them.

The reference's Anderson solver keeps a history of 5 iterates; ours defaults to 8 (more
samples reach the tolerance late in training). ``--memory 5`` runs ours with the reference's
history: identical solver settings. Both are recorded (``anderson_memory`` in the saved file).

Both models start from identical weights: our seed's initialisation, (``--trained``) the
model trained by chapter 2's quick profile (200 steps), where the solver needs more iterations
per step, or (``--weights``) any model of :func:`mfattn.implicit.train.train_mnist`, e.g. the end of the
full protocol (``python -m mfattn reproduce --profile full --chapter deq`` trains it), where
both solvers use all 40 + 40 iterations and only the cost per evaluation differs.

Before and after (``--baseline DIR``): DIR holds an earlier checkout of this project's ``mfattn``
package (e.g. ``git archive <commit> mfattn | tar -x -C DIR``); it is imported under another name and
its model, built from the same weights, is timed in the same loop as a third side. The saved entry then
has ``baseline_ms`` and ``speedup_baseline`` (reference / baseline) beside ``mfattn_ms`` and ``speedup``
(reference / mfattn), all from one run on one machine (``cpu``: the model name in /proc/cpuinfo).

Run:  python benchmarks/bench_mnist_step.py [--steps 40] [--trained] [--save] [--reference .scratch/ref]
                                            [--baseline DIR --baseline-label "commit 38851a1"]
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import os
import statistics
import sys
import time
import warnings
from collections import namedtuple
from pathlib import Path

import torch
import torch.nn.functional as F

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from mfattn.companion.machine import cpu_model  # noqa: E402
from mfattn.implicit.mnist import load_mnist  # noqa: E402
from mfattn.deq import solver_defaults  # noqa: E402
from mfattn.implicit.models import build_model  # noqa: E402
from mfattn.implicit.train import epoch_order, make_optimizer  # noqa: E402


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

    from einops.layers.torch import Rearrange

    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            # The reference example's embedding: standard torch layers, einops for the tokens.
            self.embed = torch.nn.Sequential(
                torch.nn.Conv2d(1, 32, kernel_size=3), torch.nn.ReLU(), torch.nn.MaxPool2d(3, stride=2),
                torch.nn.Conv2d(32, 32, kernel_size=3), torch.nn.ReLU(), torch.nn.MaxPool2d(3, stride=2),
                Rearrange("b c h w -> b (h w) c"), torch.nn.Linear(32, 10))
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


def copy_into_reference(ref, state: dict) -> None:
    """Give the reference model exactly our weights (both store the raw, unsymmetrised J)."""
    names = {"cls_token": "cls_token", "embed.features.0": "embed.0", "embed.features.3": "embed.3",
             "embed.project": "embed.7", "attention.weight": "deq.fun._weight",
             "attention.correction.0": "deq.fun.correction.net.0",
             "attention.correction.2": "deq.fun.correction.net.3", "head": "head"}
    mapped = {}
    for key, value in state.items():
        prefix = next(p for p in names if key == p or key.startswith(p + "."))
        mapped[names[prefix] + key[len(prefix):]] = value
    ref.load_state_dict(mapped, strict=True)


def baseline_package(folder: Path, name: str = "mfattn_baseline"):
    """The ``mfattn`` package found in ``folder`` (an earlier checkout), imported as ``name`` so that it
    lives beside the current one; returns its ``(models, train)`` modules."""
    init = folder / "mfattn" / "__init__.py"
    if not init.is_file():
        raise FileNotFoundError(f"--baseline: no mfattn package under {folder}")
    spec = importlib.util.spec_from_file_location(name, init, submodule_search_locations=[str(init.parent)])
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return importlib.import_module(f"{name}.implicit.models"), importlib.import_module(f"{name}.implicit.train")


def training_batches(args):
    """``(x, y, order)``: enough MNIST training digits for ``args.warmup + args.steps`` batches of
    ``args.batch``, and the epoch order of ``args.seed``; ``None`` (after saying why) when the
    reference package is not under ``args.reference``."""
    if not (args.reference / "deep_implicit_attention").is_dir():
        print(f"reference package not found under {args.reference} (see bench_mnist_step.py's docstring)")
        return None
    n = (args.warmup + args.steps) * args.batch
    x, y = load_mnist("train", args.data, limit=max(n, 600)).tensors()
    return x, y, epoch_order(len(y), args.seed, 0)


def time_steps(models, optimizers, x, y, order, steps, warmup, batch, iterations, on_step=None, sync=None):
    """Train each model of ``models`` (with the optimiser ``optimizers[i](model)`` its own
    training code uses) on the same batches, alternating which one steps first
    (so a change in machine load hits both alike). Per model: median CPU and wall seconds per
    Adam step over ``steps`` timed steps after ``warmup``, mean solver iterations per step,
    and the last loss. ``on_step(i, cpu_seconds)``, if given, is called after each timed step
    of model ``i``. ``sync``, if given (``torch.cuda.synchronize`` for a GPU), is called before a step's clocks
    start and before they stop, so that a step's time includes its queued device work."""
    # Unconverged solves are expected late in training; as in the training loop, they are not
    # reported one by one (printing a warning per solve would be timed on the mfattn sides only).
    # By message: the baseline package has its own ConvergenceWarning class.
    warnings.filterwarnings("ignore", message=r".*fixed-point solve .* did not converge", category=RuntimeWarning)
    opts = [make(m) for make, m in zip(optimizers, models)]
    cpu, wall, iters, last = ([[] for _ in models] for _ in range(4))
    for m in models:
        m.train()
    for k in range(warmup + steps):
        idx = order[k * batch:(k + 1) * batch]
        turn = range(len(models)) if k % 2 == 0 else reversed(range(len(models)))
        for i in turn:
            if sync is not None:
                sync()
            t0, c0 = time.perf_counter(), time.process_time()
            opts[i].zero_grad(set_to_none=True)
            loss = F.cross_entropy(models[i](x[idx]), y[idx])
            loss.backward()
            opts[i].step()
            if sync is not None:
                sync()
            c1, t1 = time.process_time(), time.perf_counter()
            its = iterations[i]()
            if k >= warmup:
                cpu[i].append(c1 - c0)
                wall[i].append(t1 - t0)
                iters[i].append(its)
                if on_step is not None:
                    on_step(i, c1 - c0)
            last[i] = loss.item()
    return [(statistics.median(cpu[i]), statistics.median(wall[i]), statistics.mean(iters[i]), last[i])
            for i in range(len(models))]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=40)
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--batch", type=int, default=60)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--correction", choices=("g", "m"), default="g")
    parser.add_argument("--memory", type=int, default=None,
                        help="Anderson memory of our solver (default: the model's, mfattn.implicit.models.ATTENTION_DEFAULTS)")
    parser.add_argument("--reference", type=Path, default=ROOT / ".scratch" / "ref")
    parser.add_argument("--data", default=None, help="MNIST folder (default: $MFATTN_DATA or data/mnist)")
    parser.add_argument("--weights", type=Path, default=None,
                        help="start both models from these mfattn weights (a model.pt or checkpoint.pt of "
                             "mfattn.implicit.train), e.g. a trained model, where the solver needs more iterations")
    parser.add_argument("--trained", action="store_true",
                        help="start from the model of chapter 2's quick profile (trained, or read from its cache)")
    parser.add_argument("--label", default=None,
                        help="name of this measurement in the saved file "
                             "(default: 'initialisation' or the weights' file name)")
    parser.add_argument("--baseline", type=Path, default=None,
                        help="folder with an earlier checkout of the mfattn package, timed in the same run (before/after)")
    parser.add_argument("--baseline-label", default=None, help="what the baseline is (e.g. its commit)")
    parser.add_argument("--save", action="store_true",
                        help="store the numbers in data/benchmarks/bench_mnist_step.json (read by chapter 2)")
    args = parser.parse_args(argv)
    torch.set_num_threads(args.threads)
    batches = training_batches(args)
    if batches is None:
        return 2
    x, y, order = batches

    memory = {} if args.memory is None else {"solver_options": {"memory": args.memory},
                                               "backward_options": {"memory": args.memory}}
    ours = build_model(args.seed, correction=args.correction, **memory)
    our_memory = ours.attention.solver_options.get("memory", solver_defaults("anderson")["memory"])
    last = {}

    def our_iterations():
        # Evaluations of the map over the batch, as counted on the reference side (our
        # samples stop one by one, but the batch is evaluated until the last one stops).
        stats = ours.attention.last_stats
        return float(stats["forward"].trace.shape[0] + stats["backward"].trace.shape[0])

    ref, counts = reference_model(args.reference, args.seed, args.correction)
    if args.trained:
        from mfattn.companion.profiles import get_profile
        from mfattn.implicit.train import profile_config, train_mnist

        trained = train_mnist(profile_config(get_profile("deq", "quick"), args.seed), data_root=args.data)
        args.weights = trained.folder / "model.pt"
        args.label = args.label or f"trained ({trained.summary['steps']} steps, chapter 2 quick profile)"
    if args.weights is not None:
        state = torch.load(args.weights, map_location="cpu", weights_only=True)  # a state dict: tensors only
        ours.load_state_dict(state.get("model", state) if isinstance(state, dict) else state)
    copy_into_reference(ref, ours.state_dict())  # identical starting point, identical batches
    base = None
    if args.baseline is not None:
        base_models, base_train = baseline_package(args.baseline)
        base = base_models.build_model(args.seed, correction=args.correction, **memory)
        base.load_state_dict(ours.state_dict())
    with torch.no_grad():
        probe = x[:8]
        ours.eval(), ref.eval()
        gap = (ours(probe) - ref(probe)).abs().max().item()
        print(f"  same weights: max |logit difference| on 8 digits = {gap:.1e} (solver tolerance 1e-4)")

    def ref_iterations():
        value = counts["iterations"] - last.get("ref", 0)
        last["ref"] = counts["iterations"]
        return float(value)

    def base_iterations():
        stats = base.attention.last_stats
        return float(stats["forward"].trace.shape[0] + stats["backward"].trace.shape[0])

    models = [ref, ours] + ([base] if base is not None else [])
    makers = [lambda m: torch.optim.Adam(m.parameters(), lr=5e-4), lambda m: make_optimizer(m, 5e-4)]
    counters = [ref_iterations, our_iterations]
    if base is not None:
        makers.append(lambda m: base_train.make_optimizer(m, 5e-4))
        counters.append(base_iterations)
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    timed = time_steps(models, makers, x, y, order, args.steps, args.warmup, args.batch, counters)
    (c_ref, w_ref, it_ref, loss_ref), (c_our, w_our, it_our, loss_our) = timed[:2]
    print(f"MNIST train step, batch {args.batch}, Anderson 40/40 @ tol 1e-4 (history: reference 5, mfattn "
          f"{our_memory}), correction on {args.correction}, "
          f"{args.threads} thread(s), torch {torch.__version__}, median of {args.steps} steps after "
          f"{args.warmup} warm-up steps")
    print(f"  reference (mcbal/deep-implicit-attention): {1e3 * c_ref:7.1f} ms CPU/step ({1e3 * w_ref:7.1f} ms wall)"
          f"  solver iterations/step (fwd+bwd) {it_ref:5.1f}  last loss {loss_ref:.3f}")
    print(f"  mfattn                                   : {1e3 * c_our:7.1f} ms CPU/step ({1e3 * w_our:7.1f} ms wall)"
          f"  solver iterations/step (fwd+bwd) {it_our:5.1f}  last loss {loss_our:.3f}")
    if base is not None:
        c_base, w_base, it_base, loss_base = timed[2]
        print(f"  mfattn baseline ({args.baseline_label or args.baseline}): {1e3 * c_base:7.1f} ms CPU/step "
              f"({1e3 * w_base:7.1f} ms wall)  solver iterations/step (fwd+bwd) {it_base:5.1f}  last loss {loss_base:.3f}")
        print(f"  speed-up (reference / baseline): {c_ref / c_base:.2f}x CPU time; baseline / mfattn {c_base / c_our:.2f}x")
    print(f"  speed-up (reference / mfattn): {c_ref / c_our:.2f}x CPU time, {w_ref / w_our:.2f}x wall time")
    if args.save:
        import platform

        from mfattn.companion import store

        label = args.label or ("initialisation" if args.weights is None else args.weights.name)
        path = ROOT / "data" / "benchmarks" / "bench_mnist_step.json"
        runs = store.read_json(path, default={}) or {}
        runs[label] = {
            "reference_ms": 1e3 * c_ref, "mfattn_ms": 1e3 * c_our, "speedup": c_ref / c_our,
            "reference_wall_ms": 1e3 * w_ref, "mfattn_wall_ms": 1e3 * w_our, "speedup_wall": w_ref / w_our,
            "reference_iterations_per_step": it_ref, "mfattn_iterations_per_step": it_our,
            "anderson_memory": our_memory, "reference_anderson_memory": 5,
            "batch": args.batch, "steps": args.steps, "warmup": args.warmup, "threads": args.threads,
            "correction": args.correction, "seed": args.seed, "torch": torch.__version__,
            "weights": str(args.weights) if args.weights else "initialisation (seed)",
            "machine": f"{platform.machine()}, {platform.system()}", "cpu": cpu_model(),
            "cpu_count": os.cpu_count(), "load_average_at_start": load,
            "python": platform.python_version()}
        if base is not None:
            runs[label].update({"baseline": args.baseline_label or str(args.baseline), "baseline_ms": 1e3 * c_base,
                                "baseline_wall_ms": 1e3 * w_base, "baseline_iterations_per_step": it_base,
                                "speedup_baseline": c_ref / c_base, "baseline_over_mfattn": c_base / c_our})
        store.atomic_write_json(path, runs)
        print(f"  saved to {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
