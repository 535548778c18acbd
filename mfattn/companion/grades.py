"""The words of a verdict (:mod:`mfattn.companion.verdicts` re-exports them): the three grades a claim's rule returns,
the verdict words of each origin of a claim (a paper's or ours), "not tested", and the two errors of the verdict
machinery: a claim declared wrongly (:class:`ClaimError`) and stored numbers that cannot decide a rule
(:class:`Undecidable`)."""

from __future__ import annotations

__all__ = ["GRADES", "SCALES", "ORIGINS", "NOT_TESTED", "ClaimError", "Undecidable"]


#: What a rule returns: the claim holds, holds only in part or with a measurable difference, or fails.
GRADES = ("holds", "partly", "fails")
#: The verdict words of each origin of a claim, in the order of :data:`GRADES`.
SCALES = {"paper": ("reproduced", "reproduced with differences", "not reproduced"),
          "ours": ("confirmed", "confirmed with differences", "refuted")}
ORIGINS = tuple(SCALES)
NOT_TESTED = "not tested"


class ClaimError(ValueError):
    """A claim declared wrongly (no negative example, an example that gives another grade, a bad field)."""


class Undecidable(Exception):
    """Raised by a rule whose stored numbers cannot decide it (e.g. no measurement in the range the claim is
    about): the claim is "not tested" and the message says why."""
