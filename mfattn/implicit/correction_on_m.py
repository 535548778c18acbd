r"""deq-correction-onsager-form read on the models whose f_θ acts on the means (a referee's reading).

The chapter's primary model applies its correction to the naive update g (the public code at the commit that added the
MNIST example); the blog's displayed update applies it to the means, :math:`m_i = \sum_j J_{ij} m_j + X_i -
f_\theta(m_i)`. Both are trained with the same protocol and seeds and stored (``data/full/deq/runs``: ``blog-seed*``,
``m-seed*``). At either model's fixed point the correction is :math:`f = g - m` (B, N, d), and the claim compares it
with the reaction term :math:`V_i m_i` of the blog's explicit layer with the learned couplings at the prior
:math:`\Sigma = 1` (:func:`mfattn.implicit.correction.correction_report`: ``reaction_cosine``). This module reads that
cosine, with its chance level, on the stored ``m`` models, from the stored weights (nothing is trained)::

    python -m mfattn.implicit.correction_on_m --out data/full/deq/correction_on_m.json
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Any, Optional, Sequence

import torch

from ..companion import store
from ..companion.checks import contract
from . import correction, trained
from .mnist import load_mnist

__all__ = ["reaction_cosines", "main"]


@contract(digits="int:1", variant="choice:m|blog")
def reaction_cosines(digits: int = 1000, variant: str = "m", runs: Optional[dict[str, Any]] = None) -> list[dict]:
    """Per stored seed of ``variant`` (``m``: f_θ on the means; ``blog``: on g), on the first ``digits`` test digits:
    the cosine of f with the Σ = 1 reaction term (``reaction_cosine``), the chance level (median and 95th percentile
    of |cos| with random site-shared linear maps of m, :func:`mfattn.implicit.seed_numbers.chance_cosine`), the
    fixed-point residual and the seed. ``runs`` maps run names to TrainResults; one without a run of ``variant``
    gives no rows (``[]``; documented: a checkout without the stored runs)."""
    from collections.abc import Mapping

    from ..companion.checks import check_choice, check_int
    from .seed_numbers import chance_cosine

    check_int("digits", digits, 12, 10_000)   # more than d + 1 (the per-site affine fit), at most the test set
    check_choice("variant", variant, ("m", "blog"))
    if runs is not None and not isinstance(runs, Mapping):
        raise TypeError(f"runs must be the restored runs (trained.restore()'s mapping) or None; got "
                        f"{type(runs).__name__}")
    runs = trained.restore() if runs is None else runs
    from .runs import TrainResult
    bad = sorted(n for n in runs if isinstance(n, str) and n.startswith(f"{variant}-seed")
                 and not isinstance(runs[n], TrainResult))
    if bad:
        raise TypeError(f"runs[{bad[0]!r}] must be a TrainResult (trained.restore()'s); got {type(runs[bad[0]]).__name__}")
    images, _ = load_mnist("test", None, limit=digits).tensors()
    out = []
    for name in sorted(n for n in runs if isinstance(n, str) and n.startswith(f"{variant}-seed")):
        model = runs[name].load_model()
        with torch.no_grad():
            rep = correction.correction_report(model, images)
            fields = correction.fixed_point_fields(model, images)
        chance = chance_cosine(fields["f"], fields["m"])
        out.append({"run": name, "seed": int(runs[name].config.seed), "reaction_cosine": rep["reaction_cosine"],
                    "chance_median": chance["median"], "chance_q95": chance["q95"], "residual": rep["residual"],
                    "digits": digits})
    return out


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Read the cosine on the stored runs of both models and write ``--out`` atomically."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--digits", type=int, default=1000)
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args(argv)
    torch.set_num_threads(1)
    store.check_file_target(args.out, "--out")
    t0 = time.perf_counter()
    runs = trained.restore()
    rows = {v: reaction_cosines(args.digits, v, runs) for v in ("m", "blog")}
    store.atomic_write_json(args.out, {"rows": rows, "seconds": time.perf_counter() - t0})
    for v, got in rows.items():
        print(v, [round(r["reaction_cosine"], 4) for r in got], flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
