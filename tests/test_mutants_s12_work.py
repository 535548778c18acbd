"""Mutation round 4 (mut-s12): mfattn/companion/work.py -- the declared work of single entries, as exact numbers
(the floquet count, the Hopfield and CAVI per-iteration sizes, the Lyapunov spectrum's default k, the words)."""

from __future__ import annotations

import numpy as np
import pytest

from mfattn.companion import work

_D, _S = "mfattn.dynamics.", "mfattn.structural."


@pytest.mark.parametrize("steps, newton, period, name, units", [
    (10, 3, 5, "period=5", (10 + 4 * 5)),     # extra = (newton + 1) period = 20 > steps; period > newton + 1
    (20, 3, 5, "steps=20", (20 + 20)),        # steps == extra: named by steps
    (19, 3, 5, "period=5", (19 + 20)),        # one below
    (1, 3, 4, "newton=3", (1 + 16)),          # period == newton + 1: named by newton
    (1, 0, 1, "steps=1", (1 + 1)),            # newton = 0: one monodromy of period steps (== steps)
    (0, 0, 1, "newton=0", 1),                 # period == newton + 1 again
    (0, 2, 7, "period=7", 21),
])
def test_floquet_counts_steps_then_newton_plus_one_monodromies(steps, newton, period, name, units):
    """work.py: extra = (newton + 1) × period steps; a step of the grid's points (here 2) counts for at least
    MIN_UNITS_PER_ITERATION, of 3000 points for 3000 β-steps of BETA_STEP_UNITS each."""
    got = work.work_of(_D + "floquet:floquet_multipliers",
                       {"steps": steps, "newton": newton, "period": period, "betas": np.zeros(2)})
    assert got == (name, units * work.MIN_UNITS_PER_ITERATION, work._BS)
    big = work.work_of(_D + "floquet:floquet_multipliers",
                       {"steps": steps, "newton": newton, "period": period, "betas": np.zeros(3000)})
    assert big[1] == units * 3000 * work.BETA_STEP_UNITS


def test_hopfield_retrieve_counts_entries_of_xi_times_the_patterns():
    """work.py:201: per = entries of xi × the number of patterns (patterns' axis -2)."""
    got = work.work_of(_S + "hopfield:retrieve", {"xi": np.zeros((30, 100)), "patterns": np.zeros((50, 100)),
                                                   "steps": 7})
    assert got == ("steps=7", 7 * 3000 * 50, "pattern-coordinate products (steps × entries of xi × patterns)")
    small = work.work_of(_S + "hopfield:retrieve", {"xi": np.zeros(10), "patterns": np.zeros((2, 10)), "steps": 7})
    assert small[1] == 7 * work.MIN_UNITS_PER_ITERATION   # 20 per step: the floor


def test_cavi_start_dependence_counts_one_run_plus_one_per_first_window():
    """work.py:212: per = entries of scores × (1 + first_windows)."""
    key = _S + "cavi_starts:cavi_start_dependence"
    got = work.work_of(key, {"scores": np.zeros((1000, 100)), "first_windows": [1, 2, 3], "max_iter": 9})
    assert got == ("max_iter=9", 9 * 100_000 * 4, "score updates (max_iter × starts × entries of scores)")
    none = work.work_of(key, {"scores": np.zeros((1000, 100)), "first_windows": [], "max_iter": 9})
    assert none[1] == 9 * 100_000


def test_error_vs_n_words_keep_the_whole_map_word():
    """work.py:156: `_BS[:-1]` drops only the closing parenthesis."""
    got = work.work_of(_D + "finite_n:error_vs_n", {"betas": np.zeros(4), "Ns": [10, 20, 40], "steps": 100, "reps": 5})
    assert got == ("steps=100", 100 * max(work.BETA_STEP_UNITS * 4 * 3 * 5, work.MIN_UNITS_PER_ITERATION),
                   "β-steps (grid points × steps of the mean-field map, × reps × Ns)")
    big = work.work_of(_D + "finite_n:error_vs_n", {"betas": np.zeros(40), "Ns": [10] * 10, "steps": 3, "reps": 5})
    assert big[1] == 3 * work.BETA_STEP_UNITS * 40 * 10 * 5


def test_the_lyapunov_spectrums_default_k_is_the_models_state_dimension():
    """work.py:123: k = state_dimension(model or paper_model()): the given model's, else the paper model's."""
    from mfattn.dynamics.model import paper_model
    from mfattn.dynamics.tangent_space import state_dimension

    key = _D + "lyapunov:lyapunov_spectrum"
    paper_k = state_dimension(paper_model())
    other = paper_model(pe_bits=3)
    other_k = state_dimension(other)
    assert (paper_k, other_k) == (12, 24)
    betas = np.zeros(1000)
    per = 10 * 1000 * work.BETA_STEP_UNITS   # 10 steps of 1000 β-steps, each k tangent vectors
    assert work.work_of(key, {"k": None, "model": None, "steps": 10, "betas": betas})[1] == per * 12
    assert work.work_of(key, {"k": None, "model": other, "steps": 10, "betas": betas})[1] == per * 24
    assert work.work_of(key, {"k": 5, "model": other, "steps": 10, "betas": betas})[1] == per * 5
