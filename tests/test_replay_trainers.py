"""The replay through the trainer that trained each stored run (ensembles as their summaries record them), the state
after the last replayed step and the stored weights' evaluations (mfattn.implicit.replay), and the public solver's
"ignore" of a map that is NaN everywhere."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from mfattn import deq
from mfattn.companion import store
from mfattn.implicit import public_trained, replay, trained


def test_the_stored_runs_group_into_the_ensembles_that_trained_them():
    folder = trained.runs_folder()
    runs = store.read_json(folder / "index.json")["runs"]
    solo, groups = replay.ensemble_groups({n: {**e, "ensemble": replay._summary(folder, e).get("ensemble")}
                                           for n, e in runs.items()})
    assert solo == [f"{v}-seed{s}" for v in ("mixer", "softmax") for s in range(3)]     # softmax and mixer: solo
    assert len(groups) == 10 and all(len(g) == 3 for g in groups)                      # ten ensembles of three seeds
    assert all(g == [g[0][:-1] + str(s) for s in range(3)] for g in groups)           # one variant, member order


def _run(seed, member=None, seeds=(0, 1, 2), epochs=20):
    ens = None if member is None else {"member": member, "seeds": list(seeds)}
    return {"config": {"seed": seed, "epochs": epochs, "attention": {}}, "code": "x", "ensemble": ens}


def test_an_ensemble_is_replayed_whole_and_in_member_order():
    runs = {"a1": _run(1, 1), "a0": _run(0, 0), "a2": _run(2, 2), "s": _run(0)}
    assert replay.ensemble_groups(runs) == (["s"], [["a0", "a1", "a2"]])
    assert replay.ensemble_groups({"z": _run(0, 0), "a": _run(1, 1)}) == ([], [["z", "a"]])   # member order, not name
    with pytest.raises(ValueError, match=r"^runs: the ensemble of \['a0', 'a2'\] lacks members"):
        replay.ensemble_groups({"a0": _run(0, 0), "a2": _run(2, 2)})
    with pytest.raises(ValueError, match=r"^runs\['a0'\]\['ensemble'\] must be None or"):
        replay.ensemble_groups({"a0": _run(5, 0)})                    # its seed is not the member's
    with pytest.raises(TypeError, match=r"^runs must be an index's runs"):
        replay.ensemble_groups([_run(0)])
    two = replay.ensemble_groups({"a0": _run(0, 0), "b0": _run(0, 0, epochs=5)})
    assert sorted(map(tuple, two[1])) == [("a0",), ("b0",)]          # another protocol is another ensemble


def _logs(n=3):
    out = {}
    for key in replay.LOG_KEYS + replay.TRAINED_KEYS:
        out[f"r/{key}"] = (np.arange(10) if key.endswith("pred") else np.zeros(32, np.uint8) if key == "state.sha256"
                           else np.asarray(1) if key == "trainer" else np.linspace(0.5, 2.0, n))
    return out


@pytest.mark.parametrize("key", replay.TRAINED_KEYS)
def test_the_state_and_the_trained_weights_are_compared_bit_for_bit(key):
    old = _logs()
    new = {k: v.copy() for k, v in old.items()}
    a = new[f"r/{key}"]
    if a.dtype.kind == "f":
        a[...] = np.nextafter(a, np.inf)
    else:
        a[...] = a + 1
    got = replay.compare_logs(old, new, ["r"], replay.LOG_KEYS + replay.TRAINED_KEYS)["r"]
    assert not got["identical"] and got["first_difference"] == key
    assert replay.compare_logs(old, old, ["r"], replay.LOG_KEYS + replay.TRAINED_KEYS)["r"]["identical"]
    assert replay.compare_logs(old, new, ["r"])["r"]["identical"]            # the default keys do not read it


def test_an_empty_kept_evaluation_equals_an_empty_one_and_the_keys_count_steps():
    old = {**_logs(), "r/kept.loss": np.zeros(0)}
    new = {**_logs(), "r/kept.loss": np.zeros(0)}
    assert replay.compare_logs(old, new, ["r"], replay.LOG_KEYS + replay.TRAINED_KEYS)["r"]["identical"]
    with pytest.raises(ValueError, match=r"^keys must include 'loss'"):
        replay.compare_logs(old, new, ["r"], ("eval.loss",))


def test_certify_needs_steps_at_a_checkpoint():
    with pytest.raises(ValueError, match=r"^steps must be a multiple of every replayed run's checkpoint_every; 150"):
        replay.certify("HEAD", "a sentence long enough to say what changed", steps=150, names=["softmax-seed0"])


def test_public_solve_ignores_a_nan_map_only_when_asked():
    out, stats = public_trained.public_solve(lambda z: z * float("nan"), torch.zeros(2, 4), on_fail="ignore")
    assert bool(stats.diverged.all()) and not bool(stats.converged.any())
    with pytest.raises(deq.SolverDivergedError, match=r"NaN or inf at every iterate"):
        public_trained.public_solve(lambda z: z * float("nan"), torch.zeros(2, 4))


def test_the_solver_refuses_a_map_that_is_non_finite_not_one_that_is_large():
    """deq.solve's guard reads f itself: a finite f beyond float32's norms (residual NaN) is returned flagged
    diverged, as before the guard; only an f that is NaN or inf at every iterate raises."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out, stats = deq.solve(lambda z: torch.full_like(z, 3e30), torch.zeros(2, 4))
    assert torch.isfinite(out).all() and bool(stats.diverged.all())
    with pytest.raises(deq.SolverDivergedError, match=r"NaN or inf at every iterate of 1 of 2"):
        deq.solve(lambda z: torch.stack([z[0] * float("nan"), torch.ones_like(z[1])]), torch.zeros(2, 4))


def test_the_training_digest_covers_the_ensemble_trainer_and_the_data_reader():
    from pathlib import Path

    from mfattn import deq as deq_module, deq_steppers
    from mfattn.implicit import ensemble, evaluation, meanfield, meanfield_kernels, mnist, models, runs

    here = Path(runs.__file__)
    # the steppers and the layer's kernels (split out of deq.py and meanfield.py) are training code too
    assert runs.code_version() == store.code_digest(
        deq_module, deq_steppers, meanfield, meanfield_kernels, models, here.with_name("train.py"), evaluation,
        runs.__file__, ensemble, here.with_name("ensemble_train.py"), mnist)
