"""The initialisation study's runs (mfattn.implicit.init_scale): the couplings are drawn at the stated scale."""

import math

import pytest
import torch

from mfattn.implicit import init_scale
from mfattn.implicit.models import build_model

SIZES = {"init_epochs": 1, "init_steps": 5, "train_limit": 600, "test_limit": 100, "snapshot_every": 5}


def test_init_config_draws_the_couplings_at_the_stated_scale():
    """Factor 1 is the blog model itself (no override, so the chapter's cache key); factor 10 draws the raw
    couplings with ten times the blog's standard deviation 1/√(17·10²): measured on the built layer over its
    17·17·10·10 entries to within the sampling error of a standard deviation (≈ 1/√(2n), 0.25 %; 2 % allowed)."""
    assert init_scale.init_config(SIZES, 0, 1.0).attention == {}
    assert init_scale.blog_std(10) == pytest.approx(1 / math.sqrt(1700))
    for factor in (1.0, 10.0):
        cfg = init_scale.init_config(SIZES, 3, factor)
        assert cfg.epochs == 1 and cfg.steps_per_epoch == 5 and cfg.seed == 3
        w = build_model(3, dim=cfg.dim, channels=cfg.channels, **cfg.attention).attention.weight.detach()
        assert float(w.std()) == pytest.approx(factor / math.sqrt(1700), rel=0.02)
    assert init_scale.factor_key(math.sqrt(10)) == "init_x3.16"
    for bad in (0, -1.0, float("nan"), "1"):   # a string is a wrong kind (TypeError), the rest wrong values
        with pytest.raises(TypeError if isinstance(bad, str) else ValueError, match="^factor"):
            init_scale.init_config(SIZES, 0, bad)
