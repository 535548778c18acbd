"""Chapters 2-3's claims on Deep Implicit Attention (Bal 2021), each with the rule that decides it from the full profile.

Chapter 2 reads the full-protocol MNIST runs (``data/full/deq_mnist_progress.json``: three seeds, 20 epochs
on all 60,000 digits), their variant table (``data/full/deq_variants.json``, with the test digits each run
got right), the stored CPU run of seed 0 (``data/full/deq_mnist_seed0_cpu.npz``) and the chapter's own
numbers (``data/full/deq/summary.json``); Chapter 3 its summary (``data/full/transformer/summary.json``).
:func:`stored_numbers` turns them into the numbers the rules read (reading and deriving only: every
number it derives is from stored files); :data:`DECLARED` declares each claim with its rule
(:class:`mfattn.companion.verdicts.Claim`) and :func:`record` decides them. Without the stored files a
claim is "not tested", with the command that makes them.

The work is split by topic: :mod:`.claims_deq_numbers` reads and flattens the stored numbers (with the per-seed
differences, variances and discordant digits behind every paired comparison), :mod:`.claims_deq_mnist` declares
the claims on the MNIST model and its variant table (:mod:`.claims_deq_couplings` the other couplings),
:mod:`.claims_deq_layer` those on the trained layer and the initial scale (:mod:`.claims_deq_stability` the solver's
work during training), :mod:`.claims_deq_organisation` those on the couplings' organisation; Chapter 3's are in :mod:`.claims_transformer`. This module gathers
Chapter 2's and keeps every public name importable from here.
"""

from __future__ import annotations

from pathlib import Path

from mfattn.companion import verdicts

from .claims_deq_layer import LAYER_CLAIMS
from .claims_deq_organisation import ORGANISATION_CLAIMS
from .claims_deq_couplings import INTERACTION_FLOOR, INTERACTION_MARGIN, interaction_grade
from .claims_deq_mnist import MNIST_CLAIMS
from .claims_deq_solver import SOLVER_CLAIMS
from .claims_deq_numbers import (ACCURACY_BAND, BAL, BLOG_ACCURACY, REMEDY, THREE_SE_10K, deq_numbers, full_numbers,
                                 save, stability_prose, stored_cost_exponent, stored_numbers)
from .claims_deq_seeds import down as _down, shown as _shown, up as _up  # noqa: F401  (the single module's helpers)

__all__ = ["deq_numbers", "save", "full_numbers", "stored_numbers", "stored_cost_exponent", "stability_prose",
           "interaction_grade", "BLOG_ACCURACY", "ACCURACY_BAND", "THREE_SE_10K", "INTERACTION_MARGIN",
           "INTERACTION_FLOOR", "BAL", "REMEDY", "DECLARED", "record"]

DECLARED = {"deq": [*MNIST_CLAIMS, *SOLVER_CLAIMS, *LAYER_CLAIMS, *ORGANISATION_CLAIMS]}


def record(run, root: Path | None, chapter: str) -> None:
    """One ``run.verdict`` per declared claim of ``chapter``, decided by the stored full-profile results."""
    verdicts.record_chapter(run, root, chapter)


from ..companion.stored_views import guard_claims  # noqa: E402  (last: it wraps what this module defines)

guard_claims(globals())   # public functions read the stored numbers through a checked view
