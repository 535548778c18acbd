"""Contract specs of the stand-in's bound (``mfattn.implicit.onsager_bound``), see contracts_registry.py.

The data sets are tiny package-made Onsager data sets (contracts_strategies_a.onsager_data: 4 sites, 2 β, 3 instances);
the dicts get the generic hostile values (None, a string), the sizes and choices their domains.
"""

from __future__ import annotations

from hypothesis import strategies as st

from contracts_registry import Exempt, Spec
from contracts_strategies_a import mnist_present, onsager_data, onsager_pair

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

def _runs(d):
    """Seed 0's stored run of both models (restored once from data/full/deq/runs)."""
    from contracts_strategies_a import restored_runs

    runs = restored_runs()
    return {k: runs[k] for k in ("m-seed0", "blog-seed0") if k in runs}


SPECS.update({
    # 12 to 24 of the MNIST test digits on the two stored seed-0 runs: ~0.3 s a call
    "mfattn.implicit.correction_on_m:reaction_cosines": Spec(
        lambda d: {"digits": d(st.integers(12, 24)), "variant": d(st.sampled_from(["m", "blog"])), "runs": _runs(d)},
        # runs=None is the documented default (restore every stored run: seconds, past the child's cap on a loaded
        # machine), not a hostile value: runs is not mutated (its type checks: tests/test_contract_fixes_a.py)
        domain={"digits": "int>=1"}, sizes={"digits": 10**12}, skip=("runs",)) if mnist_present() else Exempt(
        "reads the MNIST test digits, not on this machine (python -m mfattn.companion.datasets fetches them); its "
        "digits, variant and runs are checked at its boundary (tests/test_contract_fixes_a.py)"),
    "mfattn.implicit.correction_on_m:main": Exempt("the command line: argparse refuses bad arguments"),
})
