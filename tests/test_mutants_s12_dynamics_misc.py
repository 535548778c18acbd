"""Mutation round 4 (mut-s12): mfattn/dynamics/claims_beyond.py (the staircase's distinct steps), claims_couplings.py
(the W^o := W^v control at one half of the paper's count) and claims_stored.py (a diagram's orbit counts)."""

from __future__ import annotations

from fractions import Fraction as F

import numpy as np
import pytest

from mfattn.dynamics import claims_beyond as B
from mfattn.dynamics import claims_couplings as C
from mfattn.dynamics import claims_stored as S


@pytest.mark.parametrize("fr, skipped", [
    ([F(0), F(0), F(1, 4), F(1, 4), F(1, 2)], [(F(1, 4), F(1, 2), F(1, 3))]),
    ([F(1, 4), F(1, 2)], [(F(1, 4), F(1, 2), F(1, 3))]),
    ([F(1, 3), F(1, 3), F(1, 2), F(1, 2), F(3, 4)], [(F(1, 2), F(3, 4), F(2, 3))]),
    ([F(1, 5), F(1, 5), F(2, 5), F(2, 5)], [(F(1, 5), F(2, 5), F(1, 3))]),
    ([F(1, 3), F(1, 3), F(1, 2), F(1, 2), F(1, 2)], []),
])
def test_the_staircase_reads_each_plateau_once(fr, skipped):
    """claims_beyond.py:141: consecutive distinct fractions (a repeated plateau is one step)."""
    assert B._skipped(fr) == skipped


@pytest.mark.parametrize("paper, kept, grade", [(10, 0, "holds"), (10, 4, "partly"), (10, 5, "fails"),
                                                (11, 5, "partly"), (9, 5, "fails"), (10, 10, "fails")])
def test_the_other_direction_control_at_one_half_of_the_papers_count(paper, kept, grade):
    """claims_couplings.py:247: `kept < 0.5 * paper` partly (exactly one half fails)."""
    assert C._other_direction({"sym_paper_on_vo_nontrivial": paper, "sym_vo_nontrivial": kept}) == grade


def test_a_diagrams_orbit_counts():
    """claims_stored.py:281: periodic (period > 0), torus (no period, λ <= 1e-3), chaotic (λ > 1e-3)."""
    per = np.array([4, 4, 0, 0, 0, 3, 0, 0, 2, 0])
    lam = np.array([-0.1, -0.1, 1e-5, -2e-4, 0.01, -0.1, 0.02, 0.04, -0.1, 0.03])
    got = S._diagram({"betas": np.linspace(1.0, 1.9, 10), "lyapunov": lam, "period": per})
    assert got["orbits periodic"] == 4 and got["orbits torus"] == 2 and got["orbits chaotic"] == 4
    assert got["n_betas"] == 10 and got["first torus beta"] == pytest.approx(1.2)
    assert got["windows"] == 2          # the periodic β strictly between the first and last chaotic β (1.5, 1.8)
    assert got["max period"] == 4 and got["lambda>1e-3"] == 4
