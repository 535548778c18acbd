"""The floor of Chapter 2's coupling variants: the MNIST model's convolutional features without the mean-field layer.

The blog model reads its class from the cls site after the layer; take the layer away and the cls site is a constant,
so the floor of "what these features give without the layer" needs a readout of the patch tokens themselves. Two
linear readouts of the 16 tokens X_i = PatchEmbedding(image) (B, 16, d), each trained with the blog's protocol (Adam
5e-4, batch 60, the same data order per seed and epoch as :func:`mfattn.implicit.train.epoch_order`, 20 epochs):

- ``mean``: logits = W · (1/16) Σ_i X_i + b, a bag of patch features (no position, as softmax couplings see them);
- ``flat``: logits = W · vec(X) + b, every patch at its place (what a readout with positions can do).

A model whose layer does worse than these floors learns less than its own front end with a linear readout. The
results are stored per seed with the test digits each run got right (bit-packed, as the variant table stores them)::

    python -m mfattn.implicit.feature_floor --seeds 0 1 2 --out data/full/deq/feature_floor.json
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Any, Optional, Sequence

import numpy as np
import torch
from torch import nn

from ..companion import store
from ..companion.checks import check_choice, contract
from .mnist import load_mnist
from .models import PatchEmbedding
from .train import epoch_order, make_optimizer
from .variants import pack_correct

__all__ = ["READOUTS", "FeatureFloor", "train_floor", "main"]

#: The two readouts of the patch tokens (module docstring).
READOUTS = ("mean", "flat")


class FeatureFloor(nn.Module):
    """The blog model's patch embedding with a linear readout of its tokens: (B, 1, 28, 28) -> (B, 10) logits."""

    # the weights (float32): the patch embedding's (two 3×3 convolutions, channels -> dim) and the readout's
    @contract(readout="choice:mean|flat", dim="int:1", channels="int:1",
              alloc=lambda a: [("dim", 4 * int(a["dim"]) * (int(a["channels"]) + 1 + 16 * 10)),
                               ("channels", 4 * int(a["channels"]) * (9 * int(a["channels"]) + 20))])
    def __init__(self, readout: str = "mean", dim: int = 10, channels: int = 32) -> None:
        super().__init__()
        self.readout = readout
        self.embed = PatchEmbedding(dim, channels)
        self.head = nn.Linear(dim if readout == "mean" else 16 * dim, 10)

    def forward(self, images: torch.Tensor) -> torch.Tensor:
        tokens = self.embed(images)                                   # (B, 16, d)
        return self.head(tokens.mean(dim=1) if self.readout == "mean" else tokens.flatten(1))


@contract(readout="choice:mean|flat", seed="int:0", epochs="int:1", batch_size="int:1", lr="real:>0",
          train_limit="int:1?", test_limit="int:1?")
@contract(seed="int:0", epochs="int:1", batch_size="int:1", lr="real:>0", train_limit="int:1?", test_limit="int:1?")
def train_floor(readout: str, seed: int = 0, *, epochs: int = 20, batch_size: int = 60, lr: float = 5e-4,
                train_limit: Optional[int] = None, test_limit: Optional[int] = None,
                data_root=None) -> dict[str, Any]:
    """Train :class:`FeatureFloor` with ``readout`` from the weights ``seed`` gives (the global RNG forked, as
    :func:`mfattn.implicit.models.build_model` does) on the blog's protocol; returns its row: ``readout``, ``seed``,
    ``test_accuracy``, ``test_examples``, ``final_loss`` (mean training loss of the last epoch), ``correct`` (the
    test digits it got right, bit-packed) and ``seconds``."""
    check_choice("readout", readout, READOUTS)
    train = load_mnist("train", data_root, limit=train_limit)
    test = load_mnist("test", data_root, limit=test_limit)
    x_train, y_train = train.tensors()
    x_test, y_test = test.tensors()
    n = len(y_train)
    if n < batch_size:
        raise ValueError(f"batch_size must be at most the {n} training examples; got {batch_size}")
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        model = FeatureFloor(readout)
    optimizer = make_optimizer(model, lr)
    loss_fn = nn.CrossEntropyLoss()
    t0, last = time.perf_counter(), []
    for epoch in range(epochs):
        order = epoch_order(n, seed, epoch)
        last = []
        for b in range(n // batch_size):            # the last, partial batch is dropped, as in training the blog model
            idx = order[b * batch_size:(b + 1) * batch_size]
            loss = loss_fn(model(x_train[idx]), y_train[idx])
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            optimizer.step()
            last.append(float(loss.detach()))
    with torch.no_grad():
        pred = torch.cat([model(x_test[i:i + 1000]).argmax(dim=1) for i in range(0, len(y_test), 1000)])
    correct = (pred == y_test).numpy()
    return {"readout": readout, "seed": int(seed), "epochs": int(epochs), "test_accuracy": float(correct.mean()),
            "test_examples": int(correct.size), "final_loss": float(np.mean(last)), "correct": pack_correct(correct),
            "seconds": time.perf_counter() - t0}


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Train both readouts for every seed and write the rows to ``--out`` (atomically, after each run: a killed run
    resumes from the rows already written)."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    ap.add_argument("--epochs", type=int, default=20)
    ap.add_argument("--readouts", nargs="+", choices=READOUTS, default=list(READOUTS))
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args(argv)
    torch.set_num_threads(1)             # a tiny model: one thread is fastest, and two runs fit two cores
    store.check_file_target(args.out, "--out")   # before any training: a folder there was found only at the write
    found = store.read_json(args.out) if args.out.is_file() else None
    rows = list((found or {}).get("rows", []))
    done = {(r["readout"], r["seed"], r["epochs"]) for r in rows}
    for seed in args.seeds:
        for readout in args.readouts:
            if (readout, seed, args.epochs) in done:
                continue
            rows.append(train_floor(readout, seed, epochs=args.epochs))
            store.atomic_write_json(args.out, {"rows": rows})
            print(f"{readout} seed {seed}: {100 * rows[-1]['test_accuracy']:.2f} % in {rows[-1]['seconds']:.0f} s",
                  flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
