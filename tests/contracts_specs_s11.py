"""Contract specs of public API added in the eleventh session (issue 44's third outside table), see
contracts_registry.py."""

from __future__ import annotations

import os

from hypothesis import strategies as st

from contracts_registry import Spec


def _with_env(fn, kwargs):
    """Set the variable to a folder not made yet (a valid value), then call."""
    if isinstance(kwargs["var"], str) and kwargs["var"].startswith("MFATTN_"):
        os.environ[kwargs["var"]] = "/tmp/mfattn-contract-env-folder/not-made"
    return fn(**kwargs)


SPECS = {
    "mfattn.companion.datasets:env_folder": Spec(
        lambda d: {"var": d(st.sampled_from(["MFATTN_DATA", "MFATTN_PAPERS", "MFATTN_ASI_REFERENCE",
                                             "MFATTN_DMFT_REFERENCE"]))}, call=_with_env),
}
