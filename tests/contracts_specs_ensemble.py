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
    I + "seed_numbers:analyse": Exempt("runs every chapter-2 analysis of one trained run (the stability over training, "
                                       "the learned correction, the step budgets, damped iteration): 3.4 s on a stored "
                                       "run and 4 digits alone, too near the 5 s cap of a generated call on shared "
                                       "cores; each part is generated here (spectral_radius_over_training, "
                                       "chance_cosine, damped_plain_converged, reference_converged_over_training) and "
                                       "the whole on a tiny run by tests/test_seed_numbers.py"),
    I + "reference_solver:reference_converged_over_training": Exempt("needs a TrainResult with kept weights and the "
                                                                     "MNIST test digits, not on this machine; "
                                                                     "generated where they are (contracts_specs_implicit)"),
    I + "seed_numbers:per_seed": Spec(lambda d: {"numbers": [{"acc": d(st.floats(0, 1)), "n": 3, "name": "a"},
                                                             {"acc": 0.5, "n": 4, "name": "b"}]}),
    I + "seed_numbers:seeds_text": Spec(lambda d: {"numbers": {"acc_seeds": [d(st.floats(0, 1)), 0.5, None],
                                                               "acc": 0.5},
                                                   "key": "acc"}),   # a key not in numbers is refused (outside4b n0681)
}


# --- issue 44 item 5: the chance cosine and the public code's Anderson on drawn states, deq-anderson-plain's readings
from contracts_specs_foundations import randn  # noqa: E402
from contracts_strategies_a import is_type, stored  # noqa: E402


def _anderson(d):
    rho = d(st.floats(0.1, 0.8))
    return {"f": lambda z: rho * torch.tanh(z) + 0.5, "x0": randn(d, 2, 3), "m": d(st.integers(2, 5)),
            "max_iter": d(st.integers(3, 30))}


SPECS.update({
    I + "seed_numbers:chance_cosine": Spec(lambda d: {"f": randn(d, 2, 3, 4), "m": randn(d, 2, 3, 4),
                                                      "draws": d(st.integers(1, 50)), "seed": seed(d)},
                                           domain={"draws": "int>=1", "seed": "int>=0"}, sizes={"draws": 10**12}),
    I + "reference_solver:reference_anderson": Spec(_anderson, domain={"m": "int>=2", "max_iter": "int>=1",
                                                                       "lam": ">=0", "tol": ">0", "beta": "(0,1]"},
                                                    sizes={"max_iter": 10**15}),
    I + "claims_deq_plain:damped_plain": Spec(lambda d: {"s": stored("deq")}, check=is_type(str)),
    I + "claims_deq_plain:damped_text": Spec(lambda d: {"s": d(st.sampled_from([{}, stored("deq")]))},
                                             check=is_type(str)),
})


def _layer(d):
    from mfattn.implicit.meanfield import MeanFieldAttention
    from contracts_specs_foundations import gen

    return MeanFieldAttention(3, 2, generator=gen(d)).double()


SPECS[I + "seed_numbers:damped_plain_converged"] = Spec(
    lambda d: {"layer": _layer(d), "x": randn(d, 2, 3, 2), "damping": d(st.floats(0.1, 1.0)),
               "max_iter": d(st.integers(1, 40))},
    domain={"damping": "(0,1]", "max_iter": "int>=1", "tol": ">0"}, sizes={"max_iter": 10**15})
