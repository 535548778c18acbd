"""Mutation round 4 (mut-s12): mfattn/companion/profiles.py -- the quick profile is the full experiment at smaller
sizes: the same model parameters (temperatures, precisions, priors, dampings), and grids that are points of the full
profile's grids, increasing and positive where they are temperatures. Pinned by name here (not derived from the
profiles under test), so that a quick value moved off the full run's is caught (profiles.py:53, 116, 121)."""

from __future__ import annotations

import pytest

from mfattn.companion.profiles import PROFILES

#: Keys whose quick value is the full value (parameters of the model, not sizes).
SAME = {
    "ising": ["field_std", "scatter_beta", "dampings", "damping_budget"],
    "deq": ["solver_tol", "explicit_size"],
    "transformer": ["rhos", "train_betas", "test_betas", "field_std", "sharp_scales"],
    "structural": ["enum_n", "enum_d", "enum_beta", "slot_sigma", "slot_spread", "pc_pi", "pc_pi_y", "ident_d",
                   "ident_beta", "mask_n", "mask_density", "prior_n", "prior_temperatures", "forms_steps"],
    "designs": ["batch_size", "hops", "rank", "exp_dims", "exp_ps", "exp_batch", "exp_code_extra_d",
                "exp_code_extra_p"],
    "dmft": ["fig4_betas", "context_betas", "validate_n", "validate_t", "error_ns", "error_betas", "error_t",
             "finite_ns", "spectrum_k", "network_n", "network_t"],
}
#: Lists whose quick values are points of the full list (a quick figure samples the full one's grid).
SUBSET = {
    "ising": ["betas", "damping_betas", "stress_betas"],
    "deq": ["solver_rhos", "seeds", "variant_seeds", "budget_steps", "init_seeds"],
    "transformer": ["tap_sizes", "seed_offsets"],
    "structural": ["hop_counts", "hop_betas", "slot_sigmas", "pc_lr_fractions"],
    "designs": ["seeds", "repro_seeds", "exp_seeds", "abl_seeds", "code_task_seeds", "exp_code_extra_seeds"],
    "dmft": ["basin_betas", "network_ns"],
}
#: Temperature grids: strictly increasing and positive in both profiles.
BETAS = {"ising": ["betas", "damping_betas", "stress_betas"], "transformer": ["train_betas", "test_betas"],
         "structural": ["hop_betas"], "dmft": ["basin_betas"]}


@pytest.mark.parametrize("chapter", sorted(SAME))
def test_the_quick_profile_keeps_the_full_profiles_model_parameters(chapter):
    quick, full = PROFILES[chapter]["quick"], PROFILES[chapter]["full"]
    for key in SAME[chapter]:
        assert quick[key] == full[key], (chapter, key, quick[key], full[key])


@pytest.mark.parametrize("chapter", sorted(SUBSET))
def test_the_quick_profiles_grids_are_points_of_the_full_grids(chapter):
    quick, full = PROFILES[chapter]["quick"], PROFILES[chapter]["full"]
    for key in SUBSET[chapter]:
        missing = [x for x in quick[key] if x not in full[key]]
        assert not missing and len(quick[key]) <= len(full[key]), (chapter, key, missing)


@pytest.mark.parametrize("chapter", sorted(BETAS))
def test_temperature_grids_are_positive_and_strictly_increasing(chapter):
    for profile in ("quick", "full"):
        for key in BETAS[chapter]:
            grid = PROFILES[chapter][profile][key]
            assert grid[0] > 0 and all(a < b for a, b in zip(grid, grid[1:])), (chapter, profile, key, grid)



#: Seed lists: the quick run's seeds are the full run's first seeds (a quick seed's run is the full run's seed).
SEEDS = {"deq": ["seeds", "variant_seeds", "init_seeds"], "transformer": ["seed_offsets"],
         "designs": ["seeds", "repro_seeds", "exp_seeds", "abl_seeds", "code_task_seeds", "exp_code_extra_seeds"]}


@pytest.mark.parametrize("chapter", sorted(SEEDS))
def test_the_quick_profiles_seeds_are_the_full_profiles_first_seeds(chapter):
    """profiles.py:148: e.g. the designs chapter's quick exp_seeds [0] is the first of the full [0, 1, 2]."""
    quick, full = PROFILES[chapter]["quick"], PROFILES[chapter]["full"]
    for key in SEEDS[chapter]:
        assert full[key][:len(quick[key])] == quick[key], (chapter, key, quick[key], full[key])
    if chapter == "designs":
        assert quick["exp_seeds"] == [0] and full["exp_seeds"][:1] == [0]
