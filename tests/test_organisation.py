"""The organisation measures of the trained couplings (mfattn.implicit.organisation) against hand-computed values."""

import numpy as np
import pytest

from mfattn.implicit.organisation import column_shares, organisation_curves, row_shares


def test_curves_against_a_pattern_that_forms_then_grows():
    """Frames A_t = s_t · P_t with the pattern P_t = (1 − w_t) U + w_t F: the correlation with the final pattern
    depends on the shape only (scaling a frame leaves it unchanged), the distance closed on shape and size; both
    are checked against np.corrcoef and the Frobenius norms computed directly, and a frame that is a scaled copy of
    the final one has correlation 1 but not distance 1."""
    rng = np.random.default_rng(0)
    n = 7
    U, F = rng.random((n, n)), rng.random((n, n))
    w = np.array([0.0, 0.5, 1.0, 1.0])
    scale = np.array([1.0, 1.5, 2.0, 4.0])
    frames = np.stack([s * ((1 - v) * U + v * F) for s, v in zip(scale, w)])
    corr, closed = organisation_curves(frames)
    off = ~np.eye(n, dtype=bool)
    for t in range(4):
        assert corr[t] == pytest.approx(np.corrcoef(frames[t][off], frames[-1][off])[0, 1], abs=1e-12)
        assert closed[t] == pytest.approx(1 - np.linalg.norm(frames[t] - frames[-1]) / np.linalg.norm(frames[0] - frames[-1]),
                                          abs=1e-12)
    # frame 2 is 2F, half the size of the final 4F: the shape is there (correlation 1), the size is not
    assert corr[2] == pytest.approx(1.0, abs=1e-12)
    assert closed[2] == pytest.approx(1 - 2 * np.linalg.norm(F) / np.linalg.norm(U - 4 * F), abs=1e-12)
    assert closed[2] < 1
    assert closed[0] == 0.0 and closed[-1] == 1.0 and corr[-1] == pytest.approx(1.0)


def test_row_and_column_shares_by_hand():
    a = np.array([[0.0, 1.0, 3.0], [2.0, 0.0, 2.0], [1.0, 1.0, 0.0]])
    np.testing.assert_allclose(row_shares(a), [0.4, 0.4, 0.2], rtol=0, atol=1e-15)
    np.testing.assert_allclose(column_shares(a), [0.3, 0.2, 0.5], rtol=0, atol=1e-15)


@pytest.mark.parametrize("bad", [np.ones((1, 4, 4)), np.ones((3, 4, 5)), np.ones((3, 2, 2)), -np.ones((2, 4, 4)),
                                 np.full((2, 4, 4), np.nan), np.ones((2, 4, 4), dtype=complex)])
def test_bad_frames_are_refused_by_name(bad):
    with pytest.raises((ValueError, TypeError), match="norms"):       # complex: a TypeError (checks.check_array)
        organisation_curves(bad)


def test_equal_first_and_last_frames_and_zero_frames_are_refused():
    with pytest.raises(ValueError, match="first and last frames are equal"):
        organisation_curves(np.ones((3, 4, 4)))
    with pytest.raises(ValueError, match="all coupling norms are zero"):
        row_shares(np.zeros((4, 4)))
