"""Where a trained MNIST training step goes, and how fast it could be in eager PyTorch.

At the end of the full protocol both solvers of :mod:`mfattn.implicit.models` (forward and
adjoint, Anderson, tol 1e-4) use all 40 evaluations of their map for most batches, as the
reference implementation does: the speed-up over the reference is then the ratio of the cost
per evaluation (plus the embedding, which both sides compute with the same arithmetic). This
script splits our step into its parts on the same batches and weights, and bounds from below
what any eager-PyTorch implementation of the same algorithm must spend:

* ``map_us``: one evaluation of the forward mean-field map ``m -> g - f_θ(g)`` at the trained
  state (a coupling GEMM, the correction net's two GEMMs and its GELU);
* ``adjoint_us``: one evaluation of the adjoint map ``y -> J_fᵀ y + ∂L/∂z*`` (three GEMMs);
* ``anderson_kernels_us``: the four kernels an Anderson step cannot avoid: the new row of
  the residual Gram matrix (batched GEMM), the right-hand side (batched GEMM), the batched
  (m × m) solve and the extrapolation (batched GEMM), at the model's memory ``m``;
* ``rest_ms``: the step minus its two solves (embedding forward and backward, head, loss,
  optimiser), measured.

Each kernel time is the fastest of repeated blocks, run hot on identical operands: a floor,
not an estimate. The bound ``floor_ms = rest + K_f·map + K_b·adjoint + (K_f + K_b − 2)·kernels``
(``K``: evaluations per solve in the measured steps) leaves out everything else the solver must
do; ``eager_floor_ms`` adds, per iteration, the few operations no iteration can skip
(``bookkeeping_us``: the residual, its two norms and the stopping test, the Gram update's two
differences, its symmetric copy and the ridge), each once and run hot. ``floor_speedup`` and
``eager_floor_speedup`` are the reference's step time over these bounds: with the rest of the
step as it is, no eager implementation of the same solver can show more on this machine, at
these settings. The measured step minus ``floor_ms`` is ``solver_overhead_ms``. What a 3x
speed-up would leave for everything else (the Python calls of 80 iterations, the embedding but
its second convolution's kernels, head, loss, optimiser) is ``margin_for_3x_ms``.

The reference is timed in the same run on the same batches, alternating with ours step by step
(see bench_mnist_step.py for where to put it). Times are process CPU time on one thread; the
machine's noise only adds time, so the kernels' fastest blocks are the floors, while the step
times are medians.

Run:  python benchmarks/bench_mnist_floor.py --weights PATH/model.pt [--steps 40] [--save]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import bench_mnist_step as step_bench  # noqa: E402
from mfattn import deq  # noqa: E402
from mfattn.companion.machine import cpu_model  # noqa: E402
from mfattn.implicit import meanfield  # noqa: E402
from mfattn.implicit.models import build_model  # noqa: E402
from mfattn.implicit.train import make_optimizer  # noqa: E402


def fastest_us(fn, repeat: int = 100, blocks: int = 40) -> float:
    """Fastest mean CPU time of ``fn()`` over ``blocks`` blocks of ``repeat`` calls, in µs."""
    for _ in range(20):
        fn()
    best = float("inf")
    for _ in range(blocks):
        c0 = time.process_time()
        for _ in range(repeat):
            fn()
        best = min(best, (time.process_time() - c0) / repeat)
    return 1e6 * best


class _SolveClock:
    """Wraps :func:`mfattn.deq.solve` to time each call and count its evaluations."""

    def __init__(self):
        self.seconds, self.evaluations, self.original = [], [], deq.solve

    def __call__(self, f, z0, **options):
        c0 = time.process_time()
        z, stats = self.original(f, z0, **options)
        self.seconds.append(time.process_time() - c0)
        self.evaluations.append(stats.trace.shape[0])
        return z, stats


def split_steps(ref, counts, model, x, y, order, steps: int, warmup: int, batch: int):
    """Train the reference and our model on the same batches (``bench_mnist_step.time_steps``,
    alternating which steps first). Medians of the reference's step time and of ours, with ours
    split into its forward solve, adjoint solve and the rest."""
    clock = _SolveClock()
    parts = []  # per timed step of ours: (step, forward solve, adjoint solve) seconds and evaluations

    def on_step(i, seconds):
        if i == 1:  # our step just ran its two solves, the clock's last two entries
            parts.append((seconds, *clock.seconds[-2:], *clock.evaluations[-2:]))

    seen = {"evaluations": 0}

    def reference_evaluations():
        new, seen["evaluations"] = counts["iterations"] - seen["evaluations"], counts["iterations"]
        return float(new)

    deq.solve = clock
    try:
        (c_ref, _, k_ref, _), _ = step_bench.time_steps(
            [ref, model], [lambda m: torch.optim.Adam(m.parameters(), lr=5e-4), lambda m: make_optimizer(m, 5e-4)],
            x, y, order, steps, warmup, batch, [reference_evaluations, lambda: 0.0], on_step=on_step)
    finally:
        deq.solve = clock.original
    total, fwd, bwd, k_fwd, k_bwd = zip(*parts)
    med = statistics.median
    return {"reference_ms": 1e3 * c_ref, "reference_evaluations": k_ref,
            "step_ms": 1e3 * med(total), "forward_solve_ms": 1e3 * med(fwd), "adjoint_solve_ms": 1e3 * med(bwd),
            "rest_ms": 1e3 * med([t - a - b for t, a, b in zip(total, fwd, bwd)]),
            "forward_evaluations": statistics.mean(k_fwd), "adjoint_evaluations": statistics.mean(k_bwd)}


def kernel_floors(model, images: torch.Tensor) -> dict:
    """Hot kernel times at the model's fixed point for ``images``: per evaluation (µs) and the
    embedding's (ms)."""
    att = model.attention
    memory = att.solver_options.get("memory", deq.solver_defaults("anderson")["memory"])
    with torch.no_grad():
        X = model.sources(images)
        B, n, d = X.shape
        M = att.prepare(X)
        x2, weights = X.reshape(B, n * d), att._step_weights()
        z, _ = deq.solve(lambda m2: meanfield._linear_step(m2, x2, M.T, weights), torch.zeros_like(x2),
                         max_iter=att.max_iter, tol=att.tol, on_fail="ignore")
        vjp = att.adjoint_vjp(z.view(B, n, d), X, M)
        g = torch.randn_like(z)
        gen = torch.Generator().manual_seed(0)
        dG = torch.randn(B, memory, n * d, generator=gen)
        dXG = torch.randn(B, memory, n * d, generator=gen)
        gram = torch.bmm(dG, dG.transpose(1, 2))
        A = gram + 1e-5 * gram.diagonal(dim1=1, dim2=2).sum(1)[:, None, None] * torch.eye(memory)
        rhs = torch.bmm(g.unsqueeze(1), dG.transpose(1, 2)).transpose(1, 2)
        gamma = torch.linalg.solve_ex(A, rhs)[0]
        row_product = fastest_us(lambda: torch.bmm(g.unsqueeze(1), dG.transpose(1, 2)))
        kernels = {  # the Gram matrix's new row and the right-hand side are the same (B,1,n)·(B,n,m) product
            "gram_row_bmm": row_product, "rhs_bmm": row_product,
            "small_solve": fastest_us(lambda: torch.linalg.solve_ex(A, rhs)),
            "extrapolation_baddbmm": fastest_us(
                lambda: torch.baddbmm(g.unsqueeze(1), gamma.transpose(1, 2), dXG, alpha=-1)),
        }
        fx, lowest, tol = z + 1e-3 * g, torch.full((B,), 1.0), att.tol
        prev_fx, prev_g = fx + 1e-3, g + 1e-3
        eye_ridge, tiny = 1e-5 * torch.eye(memory), torch.zeros(1)

        def bookkeeping():
            # What a solver iteration does besides the kernels above, each once: the residual and
            # its two norms (the stopping test), the running best, the test itself, the two
            # differences of the Gram update, the symmetric copy and the ridge.
            r = fx - z
            rel = torch.linalg.vector_norm(r, dim=1) / torch.linalg.vector_norm(fx, dim=1).add_(1e-12)
            bool((torch.minimum(lowest, rel) >= tol).any())
            torch.sub(r, prev_g, out=dG[:, 0]), torch.sub(fx, prev_fx, out=dXG[:, 0])
            gram[:, :, 0].copy_(gram[:, 0, :])
            torch.addcmul(gram, gram.diagonal(dim1=1, dim2=2).sum(1, keepdim=True)[:, :, None], eye_ridge)

    # The embedding's largest arithmetic, its second convolution (forward, and backward to its
    # input and weights), by the aten kernels, on the shapes a step feeds it (cropped input).
    conv2 = model.embed.features[3]
    h = torch.randn(B, conv2.in_channels, 11, 11).contiguous(memory_format=torch.channels_last)
    grad = torch.randn(B, conv2.out_channels, 9, 9).contiguous(memory_format=torch.channels_last)
    w, bias = conv2.weight.detach(), conv2.bias.detach()

    def conv2_both():
        torch.conv2d(h, w, bias)
        torch.ops.aten.convolution_backward(grad, h, w, [w.shape[0]], [1, 1], [0, 0], [1, 1], False, [0, 0], 1,
                                            [True, True, True])

    def embedding():
        model.embed.zero_grad(set_to_none=True)
        model.embed(images).sum().backward()

    with torch.no_grad():
        timings = {"map_us": fastest_us(lambda: meanfield._linear_step(z, x2, M.T, weights)),
                   "bookkeeping_us": fastest_us(bookkeeping),
                   "dispatch_us": fastest_us(lambda: torch.add(tiny, tiny, out=tiny), repeat=1000),
                   "adjoint_us": fastest_us(lambda: torch.add(vjp(g), g)),
                   "anderson_kernels_us": sum(kernels.values()), "anderson_kernel_parts_us": kernels,
                   "anderson_memory": memory, "batch": B, "state_size": n * d,
                   "conv2_ms": 1e-3 * fastest_us(conv2_both, repeat=10, blocks=30)}
    return {**timings, "embedding_ms": 1e-3 * fastest_us(embedding, repeat=10, blocks=30)}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--weights", type=Path, required=True,
                        help="mfattn weights (model.pt of mfattn.implicit.train), e.g. the end of the full protocol")
    parser.add_argument("--label", default=None, help="name of this measurement in the saved file")
    parser.add_argument("--steps", type=int, default=40)
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--batch", type=int, default=60)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--reference", type=Path, default=ROOT / ".scratch" / "ref")
    parser.add_argument("--data", default=None, help="MNIST folder (default: $MFATTN_DATA or data/mnist)")
    parser.add_argument("--save", action="store_true", help="store in data/benchmarks/bench_mnist_floor.json")
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    batches = step_bench.training_batches(args)
    if batches is None:
        return 2
    x, y, order = batches
    state = torch.load(args.weights, map_location="cpu", weights_only=True)
    state = state.get("model", state)

    def fresh():
        model = build_model(args.seed)
        model.load_state_dict(state)
        return model.train()

    ref, counts = step_bench.reference_model(args.reference, args.seed, "g")
    step_bench.copy_into_reference(ref, state)  # identical weights, identical batches
    ours = split_steps(ref.train(), counts, fresh(), x, y, order, args.steps, args.warmup, args.batch)
    c_ref = 1e-3 * ours["reference_ms"]
    floors = kernel_floors(fresh(), x[:args.batch])
    k_f, k_b = ours["forward_evaluations"], ours["adjoint_evaluations"]
    floor_ms = (ours["rest_ms"] + 1e-3 * (k_f * floors["map_us"] + k_b * floors["adjoint_us"]
                                          + (k_f + k_b - 2) * floors["anderson_kernels_us"]))
    # The same with the bookkeeping each iteration cannot skip, run hot: still a lower bound.
    eager_floor_ms = floor_ms + 1e-3 * (k_f + k_b - 2) * floors["bookkeeping_us"]
    # What 3x leaves, per solver iteration, for everything but the kernels, the bookkeeping and the
    # second convolution: Python's calls, the rest of the embedding, head, loss, optimiser.
    solver_part_ms = eager_floor_ms - ours["rest_ms"]
    margin_ms = 1e3 * c_ref / 3 - solver_part_ms - floors["conv2_ms"]
    result = {**ours, **floors, "floor_ms": floor_ms,
              "eager_floor_ms": eager_floor_ms, "eager_floor_speedup": 1e3 * c_ref / eager_floor_ms,
              "speedup": 1e3 * c_ref / ours["step_ms"], "floor_speedup": 1e3 * c_ref / floor_ms,
              "target_ms_for_3x": 1e3 * c_ref / 3, "margin_for_3x_ms": margin_ms,
              "margin_for_3x_per_iteration_us": 1e3 * margin_ms / (k_f + k_b),
              "solver_overhead_ms": ours["step_ms"] - floor_ms,
              "weights": str(args.weights), "steps": args.steps, "warmup": args.warmup, "threads": 1,
              "torch": torch.__version__, "cpu": cpu_model(), "cpu_count": os.cpu_count()}
    print(f"reference {result['reference_ms']:.1f} ms/step; mfattn {ours['step_ms']:.1f} ms/step "
          f"({result['speedup']:.2f}x): forward solve {ours['forward_solve_ms']:.1f} ms ({k_f:.1f} evaluations), "
          f"adjoint solve {ours['adjoint_solve_ms']:.1f} ms ({k_b:.1f}), rest {ours['rest_ms']:.1f} ms")
    print(f"hot kernels: map {floors['map_us']:.0f} us, adjoint map {floors['adjoint_us']:.0f} us, "
          f"Anderson's four kernels {floors['anderson_kernels_us']:.0f} us {floors['anderson_kernel_parts_us']}")
    print(f"bookkeeping per iteration {floors['bookkeeping_us']:.0f} us; with it: {eager_floor_ms:.1f} ms/step -> "
          f"at most {result['eager_floor_speedup']:.2f}x")
    print(f"3x leaves {margin_ms:.1f} ms ({1e3 * margin_ms / (k_f + k_b):.0f} us per iteration) beyond the kernels, "
          f"the bookkeeping and the second convolution ({floors['conv2_ms']:.2f} ms; our embedding forward+backward "
          f"{floors['embedding_ms']:.2f} ms); one tensor operation's dispatch {floors['dispatch_us']:.1f} us")
    print(f"floor {floor_ms:.1f} ms/step -> at most {result['floor_speedup']:.2f}x; 3x needs "
          f"{result['target_ms_for_3x']:.1f} ms; solver overhead now {result['solver_overhead_ms']:.1f} ms")
    if args.save:
        from mfattn.companion import store

        path = ROOT / "data" / "benchmarks" / "bench_mnist_floor.json"
        runs = store.read_json(path, default={}) or {}
        runs[args.label or args.weights.parent.name] = result
        store.atomic_write_json(path, runs)
        print(f"saved to {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
