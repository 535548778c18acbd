"""Contract specs of ensemble training (``mfattn.implicit.ensemble``, ``mfattn.implicit.ensemble_train``),
see contracts_registry.py."""

from __future__ import annotations

import torch
from hypothesis import strategies as st

from contracts_registry import Exempt, Spec
from contracts_specs_foundations import seed

I = "mfattn.implicit."


def _stats(draw):
    from mfattn.deq import solve

    batch = 2 * draw(st.integers(1, 3))
    return solve(lambda z: 0.5 * z, torch.ones(batch, 3, dtype=torch.float64))[1]


SPECS = {
    I + "ensemble:EnsembleMNIST": Spec(lambda d: {"seeds": [seed(d) % 5, 7], "dim": 2, "channels": 2},
                                       domain={"dim": "int>=1", "channels": "int>=1"}, skip=("device", "dtype")),
    I + "ensemble:member_statistics": Spec(lambda d: {"stats": _stats(d), "size": 2}, domain={"size": "int>=1"}),
    I + "ensemble_train:train_ensemble": Exempt("needs the MNIST data set and minutes of training; its configurations "
                                                "are checked by TrainConfig, the rest by tests/test_ensemble.py"),
    I + "ensemble_train:ensemble_code_version": Spec(lambda d: {}),   # no arguments: the valid call alone
    I + "ensemble_train:train_into_cache": Exempt("trains (MNIST, minutes); its configurations are checked by "
                                                  "TrainConfig and train_ensemble, the rest by tests/test_prepare.py"),
    I + "prepare:jobs": Exempt("builds TrainConfigs from a profile's sizes (checked by get_profile and TrainConfig); "
                               "tests/test_prepare.py"),
    I + "prepare:run_names": Exempt("names the runs of prepare.jobs (same sizes, same checks); tests/test_prepare.py"),
    I + "prepare:main": Exempt("the command line: argparse refuses bad arguments; tests/test_prepare.py"),
    I + "trained:run_arrays": Exempt("reads a finished TrainResult's cache folder (MNIST training); tests/test_trained.py"),
    I + "trained:export_run": Exempt("writes a finished TrainResult (MNIST training); tests/test_trained.py"),
    I + "trained:export_finished": Exempt("exports the full profile's finished runs from the training cache; "
                                          "tests/test_trained.py exercises export_run and restore"),
    I + "trained:restore": Exempt("reads data/full/deq/runs (hash-checked, no pickle); tests/test_trained.py feeds it "
                                  "changed files and other code's runs"),
    I + "trained:runs_folder": Exempt("a path under the project folder; tests/test_trained.py"),
    I + "trained:main": Exempt("the command line: argparse refuses bad arguments"),
    I + "seed_numbers:analyse": Exempt("needs a TrainResult with kept weights (MNIST training); its inner calls are "
                                       "generated (stability, correction); tests/test_seed_numbers.py"),
    I + "seed_numbers:chance_cosine": Exempt("reads a trained layer's fixed-point fields (correction.fixed_point_fields "
                                             "builds them); run by test_deq_plain"),
    I + "reference_solver:reference_anderson": Exempt("takes the map f (a callable of the package's layers) and checks its "
                                                      "own settings; run against a linear solve by test_deq_plain"),
    I + "reference_solver:reference_converged_over_training": Exempt("needs a TrainResult with kept weights (MNIST "
                                                                     "training); run by chapter 2's full profile"),
    I + "seed_numbers:damped_plain_converged": Exempt("needs a trained mean-field layer and its sources (a model's); "
                                                      "run against a damped loop by test_deq_plain"),
    I + "claims_deq_plain:damped_plain": Exempt("a declared alternative rule of deq-anderson-plain (stored numbers); "
                                                "run at every outcome by test_deq_plain"),
    I + "claims_deq_plain:damped_text": Exempt("formats stored numbers for deq-anderson-plain's note; run by "
                                               "test_deq_plain"),
    I + "seed_numbers:per_seed": Spec(lambda d: {"numbers": [{"acc": d(st.floats(0, 1)), "n": 3, "name": "a"},
                                                             {"acc": 0.5, "n": 4, "name": "b"}]}),
    I + "seed_numbers:seeds_text": Spec(lambda d: {"numbers": {"acc_seeds": [d(st.floats(0, 1)), 0.5, None],
                                                               "acc": 0.5},
                                                   "key": d(st.sampled_from(["acc", "missing"]))}),
}
