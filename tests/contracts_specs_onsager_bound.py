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
    I + "main": Exempt("the command line: argparse refuses bad arguments"),
}
