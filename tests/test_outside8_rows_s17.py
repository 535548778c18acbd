"""Issue 44, table 8's rows left over after the sixteenth session (modules that key chapters 5 and 6): each hostile
call refused by one error naming the parameter, and its valid neighbour still computed. Tiny inputs only."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from mfattn.dynamics.diagnostics import bin_count_bounds
from mfattn.structural import analysis_vi as AV
from mfattn.structural.analysis_premises import task_premise
from mfattn.structural.expanding_prior import expanding_elbo
from mfattn.structural.multihop import MultihopTask


def test_task_premise_refuses_a_dict_of_seeds():
    # b0204: a dict's keys were read as the seeds (silent)
    task = MultihopTask(d=2)
    with pytest.raises(TypeError, match="seeds must be a list"):
        task_premise(task, {0: 5, 1: 6})
    out = task_premise(task, [0, 1])
    assert len(out["premise_nmse_single_seeds"]) == 2


def test_elbo_gradient_refuses_update_none():
    # b0209: update=None reached a TypeError inside expanding_attention (deep)
    scores = torch.zeros(1, 6, dtype=torch.float64)
    with pytest.raises(TypeError, match="update must be one of"):
        AV.elbo_gradient(scores, 1.0, 1.0, None)
    assert np.isfinite(AV.elbo_gradient(scores, 1.0, 1.0, "cavi"))


def _elbo_args(beta0):
    scores = torch.zeros(1, 4, dtype=torch.float64)
    attention = torch.tensor([[0.2, 0.3, 0.5, 0.0]], dtype=torch.float64)
    return scores, attention, 2.0, 3.0, 1.0, beta0


def test_expanding_elbo_refuses_beta_terms_that_overflow():
    # b0269: beta0 = 1e308 made lgamma(alpha0 + beta0) inf and the ELBO NaN (silent)
    with pytest.raises(ValueError, match="overflow the ELBO's Beta terms"):
        expanding_elbo(*_elbo_args(1e308))
    assert torch.isfinite(expanding_elbo(*_elbo_args(1e5))).all()


def test_bin_count_bounds_refuses_one_array_for_the_list():
    # b0427: one level array (not a list of them) gave 0-d items that np.concatenate refused (deep)
    levels = [np.array([3, 7, 900])]
    with pytest.raises(ValueError, match=r"levels\[0\] must be a 1-d array"):
        bin_count_bounds(levels[0], 1.0, 1000, 101)
    lo, hi = bin_count_bounds(levels, 1.0, 1000, 101)
    assert lo[0] <= hi[0] and hi[0] >= 2


def test_attractor_census_names_a_transient_past_steps():
    # b0507: transient = 2**63 gave negative bytes in the memory check ("nbytes must be >= 0", no name)
    from mfattn.dynamics.perturbed import attractor_census
    with pytest.raises(ValueError, match="steps - transient"):
        attractor_census([1.0], {}, 2, 1000, 2 ** 63)


def test_verdict_summary_refuses_errors_of_the_wrong_shape():
    # b0549: an empty errs array reached an IndexError (deep)
    import contracts_strategies_b as B
    from mfattn.dynamics import verdict_numbers as VN
    args = B.summary_inputs(lambda strategy: False if "booleans" in repr(strategy) else -0.5)   # fixed draws
    with pytest.raises(ValueError, match=r"errs must be \(betas"):
        VN.summary(**{**args, "errs": args["errs"][:0]})
    with pytest.raises(ValueError, match=r"errs must be \(betas"):
        VN.summary(**{**args, "errs": args["errs"][:, :2]})
