"""The commit a ``git archive`` of the repository was made from (a release archive has no ``.git``).

``.gitattributes`` marks this file ``export-subst``, so ``git archive`` writes the commit into
:data:`COMMIT`; in a checkout the placeholder stays and :func:`archived_commit` returns None.
"""

import re

COMMIT = "$Format:%H$"


def archived_commit() -> str | None:
    """The 40-hex commit written by ``git archive``, or None in a checkout."""
    return COMMIT if re.fullmatch(r"[0-9a-f]{40}", COMMIT) else None
