"""The third outside table's (issue 44) silent, deep and hang rows of chapters 4-6, each now refused at the boundary
with a message naming the parameter (the table's own reproductions, shrunk where they allocated)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from mfattn.dynamics import diagnostics, finite_n, map as dmap, model as dmodel
from mfattn.structural import edge_priors, edges, multihop, optim, slots


def _adam(**kw):
    ps, st = [torch.zeros(3)], optim.AdamState([torch.zeros(3)], [torch.zeros(3)])
    grads = kw.pop("grads", [torch.ones(3)])
    optim.adam_update(ps, grads, st, **{"lr": 1e-3, **kw})
    return ps[0]


@pytest.mark.parametrize("kw, match", [
    (dict(weight_decay=float("inf")), "weight_decay"), (dict(lr="x"), "lr"), (dict(betas=(1.0, 0.999)), r"betas\[0\]"),
    (dict(betas=(0.9, 1.5)), r"betas\[1\]"), (dict(betas=0.9), "betas"), (dict(grads=[]), "grads"),
    (dict(grads=[torch.ones(4)]), r"grads\[0\]"), (dict(grads=[torch.full((3,), float("nan"))]), r"grads\[0\]"),
    (dict(eps=-1.0), "eps")])
def test_adam_refuses_what_made_nan_parameters_or_deep_errors(kw, match):
    with pytest.raises((ValueError, TypeError), match=match):
        _adam(**kw)


def test_adam_still_takes_its_step():
    """The checked step is torch 1.13's Adam: the first step moves every entry by lr (bias-corrected, g constant)."""
    assert torch.allclose(_adam(), torch.full((3,), -1e-3), atol=1e-9)


def test_chapter_5s_loops_and_references():
    with pytest.raises(ValueError, match="hops"):
        multihop.hop_operator(torch.randn(2, 5, 5), hops=10**9)
    with pytest.raises(ValueError, match="b .the reference"):
        multihop.relative_error(np.ones(3), np.zeros(3))
    assert multihop.relative_error([1.5, 1.0], [1.0, 2.0]).tolist() == [0.5, 0.5]
    with pytest.raises(ValueError, match="seed"):
        optim.generator(2**80)


def test_chapter_4s_overflow_sizes_and_flags():
    q = k = torch.ones(3, 2, dtype=torch.float64)   # q·k = 2: times 1e308 past a float64
    with pytest.raises(ValueError, match="beta"):
        edges.joint_edge_marginals(q, k, beta=1e308)
    with pytest.raises(ValueError, match="n_clusters"):
        slots.gaussian_mixture_2d(20, 10**12, generator=torch.Generator().manual_seed(0))
    # a huge label value is only a name: the index of two identical partitions is 1, without a 16 GB table
    assert float(slots.adjusted_rand_index(torch.tensor([0, 10**9, 0]), torch.tensor([0, 1, 0]))) == 1.0
    g = torch.Generator().manual_seed(0)
    a, b = torch.randint(0, 4, (5, 30), generator=g), torch.randint(0, 3, (5, 30), generator=g)
    assert torch.equal(slots.adjusted_rand_index(a * 1000 + 7, b), slots.adjusted_rand_index(a, b))
    with pytest.raises(TypeError, match="causal"):
        edge_priors.relative_position_log_prior(3, torch.zeros(3), causal=2)


def test_chapter_6s_models_states_and_series(tmp_path):
    with pytest.raises(ValueError, match="pe_bits"):
        dmodel.paper_model(pe_bits=64)
    with pytest.raises(ValueError, match="seed"):
        dmodel.paper_weights(seed=2**70)
    with pytest.raises(ValueError, match="state"):
        dmap.step(dmodel.paper_model(), {}, 0, 1.0)
    with pytest.raises(ValueError, match="N must"):
        finite_n.simulate_finite([1.0], 2**70, steps=20)
    with pytest.raises(ValueError, match="x must"):
        diagnostics.power_spectrum(np.sin(np.arange(64) * 0.3)[:0])
    with pytest.raises(TypeError, match="path"):
        dmodel.load_context(3)
    nan = tmp_path / "nan.npz"
    np.savez(nan, mv_window=np.full((2, 4, 3), np.nan), mk_window=np.full((2, 4, 3), np.nan),
             mq_window=np.full((2, 3), np.nan), att_window=np.full((2, 3), np.nan))
    with pytest.raises(ValueError, match="mv_window must hold finite"):
        dmodel.load_context(nan)


def test_chapters_1_to_3_rows():
    from mfattn.implicit import meanfield as imf, stability, transformer as itr, variants
    from mfattn.meanfield import accuracy

    with pytest.raises(ValueError, match="betas makes compare_mean_field"):
        accuracy.compare_mean_field(4, list(np.linspace(0.1, 1, 10**6)), 2)
    with pytest.raises(ValueError, match=r"m must hold magnetisations in \[-1, 1\]"):
        accuracy.plefka_parameter(0.5, np.array([1.5, 0.0]))
    assert np.isnan(accuracy.plefka_parameter(0.5, np.array([[np.nan, np.nan]]))[0])   # a missing solution stays NaN
    with pytest.raises(ValueError, match="steps must be strictly increasing"):
        stability.unit_crossing([3, 2, 1], [0.5, 0.9, 1.5])
    with pytest.raises(ValueError, match="J is zero"):
        itr.off_head_block_fraction(torch.zeros(4, 4, 6, 6), 2)
    with pytest.raises(ValueError, match="heads must divide dim"):
        itr.value_map_off_block(4, 6, torch.randn(2, 4, 6), torch.Generator(), heads=4)
    with pytest.raises(TypeError, match="layer must be a MeanFieldAttention"):
        itr.naive_trajectory(3, torch.randn(2, 4, 6), 3)
    with pytest.raises(ValueError, match="correct must be"):
        variants.pack_correct(np.array([0.5, 2.0]))
    assert variants.pack_correct(np.array([1, 0, 1])) == variants.pack_correct(np.array([True, False, True]))
    assert isinstance(imf.MeanFieldAttention, type)


def test_the_companions_rows(tmp_path, monkeypatch):
    import json as _json

    from mfattn.companion import checks, datasets, premises, stats, store, store_read, verdicts

    bad = tmp_path / "big.json"
    bad.write_text('{"a": 1e999}')
    with pytest.raises(ValueError, match="big.json"):
        store_read.read_json(bad)
    for test in (stats.sign_test, stats.signed_rank_test):
        with pytest.raises(ValueError, match="values"):
            test([])
        with pytest.raises(ValueError, match="values"):
            test([[1.0, 2.0]])
    assert stats.sign_test([0.0, 0.0])["p"] == 1.0          # all ties: no evidence either way (not an empty input)
    assert checks.check_alloc("n", 2.5) == 3
    with pytest.raises(ValueError, match="non-empty path"):
        checks.check_path("p", "")
    with pytest.raises(ValueError, match="255 bytes"):
        checks.check_path("p", "x" * 5000)
    with pytest.raises(ValueError, match="folder"):
        store.inside("", "x")
    with pytest.raises(ValueError, match="one JSON key"):
        store.config_hash({1: 2, "1": 3})
    assert store.config_hash({1: 2}) == store.config_hash({"1": 2})   # one key alone: the hash as before
    with pytest.raises(ValueError, match="length"):
        store.config_hash({"a": 1}, length=1000)
    loop: dict = {}
    loop["d"] = loop
    with pytest.raises(ValueError, match="refers to itself"):
        store.config_hash(loop)
    with pytest.raises(TypeError, match="minimum"):
        checks.check_int("n", 3, "a")
    with pytest.raises(ValueError, match="x must be a finite number"):
        checks.check_real("x", 10**400)
    with pytest.raises(verdicts.Undecidable, match="x"):
        verdicts.below("x", 1.0)({"x": float("nan")})
    with pytest.raises(TypeError, match="x"):
        verdicts.above("x", 1.0)({"x": "3"})
    assert verdicts.below("x", 1.0, 2.0)({"x": 1.5}) == "partly"
    for var in ("MFATTN_DATA", "MFATTN_PAPERS", "MFATTN_ASI_REFERENCE", "MFATTN_DMFT_REFERENCE"):
        monkeypatch.setenv(var, str(bad))
        with pytest.raises(ValueError, match=var):
            datasets.env_folder(var)
    with pytest.raises(ValueError, match="MFATTN_PAPERS"):
        premises.papers_dir()
    with pytest.raises(ValueError, match="MFATTN_ASI_REFERENCE"):
        datasets.folders("asi-reference")
    monkeypatch.setenv("MFATTN_PAPERS", str(tmp_path / "not-made"))
    assert premises.papers_dir() is None                      # a folder not made yet: absent, as before
    assert _json.loads('{"a": 1.5}') == store_read.read_json(bad.with_name("ok.json")) if bad.with_name(
        "ok.json").write_text('{"a": 1.5}') else True


def test_the_rerun_tables_last_rows(tmp_path):
    """The rows still silent or deep when the table was rerun after the fixes above."""
    from mfattn.__main__ import main
    from mfattn.companion import report_keys
    from mfattn.implicit import mnist, variants

    with pytest.raises(ValueError, match="name must be"):
        report_keys.key_words("")
    assert main(["verdicts", "--write", "--check"]) == 2
    for fn, rows in ((variants.seed_summary, [{"key": "x"}]), (variants.markdown_table, [{"junk": 1}]),
                     (variants.compare_paired, [{"key": "blog"}]), (variants.summary_table, [{"variant": "v"}])):
        with pytest.raises(ValueError, match=r"\[0\] lacks"):
            fn(rows)
    with pytest.raises(TypeError, match="uint8"):
        mnist.normalize(torch.full((2, 28, 28), 300.0))
    with pytest.raises(TypeError, match="dtype"):
        mnist.normalize(torch.zeros(2, 28, 28, dtype=torch.uint8), dtype=torch.int64)
    header = bytes([0, 0, 0x0D, 1]) + (1).to_bytes(4, "big")
    with pytest.raises(ValueError, match="NaN or inf"):
        mnist.parse_idx(header + np.array([np.nan], dtype=">f4").tobytes())
    with pytest.raises(ValueError, match="255 dimensions"):
        mnist.parse_idx(bytes([0, 0, 0x08, 255]) + bytes(4 * 255))
    with pytest.raises(TypeError, match="path"):
        mnist.read_idx(3)
