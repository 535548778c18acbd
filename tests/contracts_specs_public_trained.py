"""Contract specs of the public-solver training control (``mfattn.implicit.public_trained``), see
contracts_registry.py."""

from __future__ import annotations

import torch
from hypothesis import strategies as st

from contracts_registry import Exempt, Spec

I = "mfattn.implicit.public_trained:"


def _solve_args(draw):
    batch, dim = draw(st.integers(1, 3)), draw(st.integers(1, 4))
    return {"f": lambda z: 0.5 * z + 1.0, "z0": torch.zeros(batch, dim, dtype=torch.float64),
            "max_iter": draw(st.integers(3, 12)), "tol": 1e-4, "on_fail": "ignore"}


SPECS = {
    I + "public_solve": Spec(_solve_args, domain={"max_iter": "int>=2", "tol": ">0"}, skip=("method", "on_fail")),
    I + "public_config": Spec(lambda d: {"seed": d(st.integers(0, 3)), "profile": "quick",
                                         "every": d(st.integers(1, 50))},
                              domain={"seed": "int>=0", "every": "int>=1"}, skip=("profile",)),
    I + "public_anderson": Exempt("a context manager without arguments; tests/test_public_trained.py checks it is "
                                  "undone on exit and on an exception"),
    I + "public_run_dir": Exempt("names a cache folder from a TrainConfig (checked by TrainConfig); "
                                 "tests/test_public_trained.py"),
    I + "train_public": Exempt("trains on MNIST (minutes); its configuration is checked by TrainConfig, its folder "
                               "by tests/test_public_trained.py"),
    I + "analyse": Exempt("needs a trained run with kept weights (TrainResult); tests/test_public_trained.py"),
    I + "main": Exempt("the command line: argparse refuses bad arguments"),
}
