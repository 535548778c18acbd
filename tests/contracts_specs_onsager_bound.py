"""Contract specs of the stand-in's bound (``mfattn.implicit.onsager_bound``), see contracts_registry.py.

The data sets are tiny package-made Onsager data sets (contracts_strategies_a.onsager_data: 4 sites, 2 β, 3 instances);
the dicts get the generic hostile values (None, a string), the sizes and choices their domains.
"""

from __future__ import annotations

from hypothesis import strategies as st

from contracts_registry import Exempt, Spec
from contracts_strategies_a import onsager_data, onsager_pair

I = "mfattn.implicit.onsager_bound:"


def _pair(draw, **extra):
    train, test = onsager_pair(draw)
    return {"train": train, "test": test, **extra}


SPECS = {
    I + "site_variable": Spec(lambda d: {"data": onsager_data(d(st.integers(0, 2))),
                                         "inputs": d(st.sampled_from(["g", "m"]))},
                              check=lambda kw, r: tuple(r.shape) == tuple(kw["data"]["m"].shape) or (
                                  _ for _ in ()).throw(AssertionError(f"shape {tuple(r.shape)}"))),
    I + "binned_bound": Spec(lambda d: _pair(d, inputs=d(st.sampled_from(["g", "m"])), bins=d(st.integers(2, 6))),
                             domain={"bins": "int>=2"}),
    I + "range_bounds": Spec(lambda d: _pair(d, inputs=d(st.sampled_from(["g", "m"])),
                                             bins=(d(st.integers(2, 4)), 5))),
    I + "two_part_stand_in": Spec(lambda d: _pair(d, hidden=d(st.integers(1, 4)), steps=d(st.integers(1, 5)),
                                                  seed=d(st.integers(0, 9)), bins=(2, 3)),
                                  domain={"hidden": "int>=1", "steps": "int>=1", "seed": "int>=0"},
                                  sizes={"hidden": 10**12, "steps": 10**15}),
    I + "main": Exempt("the command line (argv): argparse refuses bad arguments, and its numbers come from the "
                       "functions above, generated here"),
}

SPECS.update({
    "mfattn.implicit.correction_on_m:reaction_cosines": Exempt(
        "reads the stored trained runs (MNIST, restored from data/full/deq/runs); tests/test_deq_premises.py checks "
        "its blog-model cosines against the chapter's stored ones"),
    "mfattn.implicit.correction_on_m:main": Exempt("the command line: argparse refuses bad arguments"),
})
