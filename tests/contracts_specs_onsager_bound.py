"""Contract specs of the stand-in's bound (``mfattn.implicit.onsager_bound``), see contracts_registry.py."""

from __future__ import annotations

from contracts_registry import Exempt

I = "mfattn.implicit.onsager_bound:"

_DATA = ("takes an Onsager data set (mfattn.implicit.onsager.onsager_dataset's dict of tensors, package-made); "
         "tests/test_onsager_bound.py checks it against closed forms")
SPECS = {
    I + "site_variable": Exempt(_DATA),
    I + "binned_bound": Exempt(_DATA),
    I + "range_bounds": Exempt(_DATA),
    I + "two_part_stand_in": Exempt(_DATA + " and fits a net (seconds to minutes)"),
    I + "main": Exempt("the command line: argparse refuses bad arguments"),
}

SPECS.update({
    "mfattn.implicit.correction_on_m:reaction_cosines": Exempt(
        "reads the stored trained runs (MNIST, restored from data/full/deq/runs); tests/test_deq_premises.py checks "
        "its blog-model cosines against the chapter's stored ones"),
    "mfattn.implicit.correction_on_m:main": Exempt("the command line: argparse refuses bad arguments"),
})
