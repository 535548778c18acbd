"""Contract specs of the fields' width study (``mfattn.meanfield.field_width``) and its rules' helpers
(``mfattn.meanfield.claims_ising_widths``), see contracts_registry.py."""

from __future__ import annotations

from hypothesis import strategies as st

from contracts_registry import Exempt, Spec

F = "mfattn.meanfield.field_width:"
W = "mfattn.meanfield.claims_ising_widths:"


def _row(d):
    x = d(st.floats(0.01, 1.0))
    row = {"width": 0.6, "mean_abs_m": 0.3}
    for key in ("naive", "tap", "atap", "tsite"):
        row.update({f"{key}_m": x, f"{key}_c": x / 2})
    return {"fw": {"0.6": row, "1": row}}


SPECS = {
    F + "field_width_study": Spec(lambda d: {"n": d(st.integers(3, 6)), "instances": d(st.integers(1, 2)),
                                            "beta": d(st.floats(0.0, 1.0)),
                                            "widths": [d(st.floats(0.0, 1.0)), d(st.floats(0.0, 1.0))],
                                            "seed": d(st.integers(0, 5))},
                                  domain={"n": "int>=2", "instances": "int>=1", "beta": ">=0", "seed": "int>=0"},
                                  sizes={"n": 10**6, "instances": 10**13}),
    F + "main": Exempt("the command line: argparse refuses bad arguments (--profile is a choice; --out a path)"),
    W + "width_alternatives": Spec(lambda d: {"rule": lambda s: "holds", "what": d(st.sampled_from(["a", "b c"]))}),
    W + "width_text": Spec(lambda d: {"s": _row(d), "better": "atap", "worse": d(st.sampled_from(["tap", "tsite"])),
                                      "which": d(st.sampled_from(["m", "c"]))}),
    W + "with_widths": Spec(lambda d: {"note": lambda s: "x", "better": "tap", "worse": "naive",
                                       "which": d(st.sampled_from(["m", "c"]))}),
}
