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
    with pytest.raises(TypeError, match="seeds must be a (list|sequence)"):
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


# --- chapters 1-3 and the training code ------------------------------------------------------------------------
def test_gaussian_vector_bound_reads_a_numpy_unsigned_size():
    # table 7: n as np.uint64 broke the model's indexing (IndexError, deep); now the same number as n = 3
    from mfattn.ising_vector import gaussian_vector_bound
    a = gaussian_vector_bound(np.uint64(3), 2, np.random.default_rng(0))
    assert a == gaussian_vector_bound(3, 2, np.random.default_rng(0))


def _ot(**kw):
    ot = {"step": [0, 10, 20], "rho_q25": [0.4, 0.5, np.nan], "rho_median": [0.5, 0.6, np.nan],
          "rho_q75": [0.6, 0.7, np.nan]}
    return {**ot, **kw}


@pytest.mark.parametrize("ot, h, match", [
    (_ot(step=[20, 10, 0]), None, r"ot\['step'\] must increase"),
    (_ot(step=[0, 0, 0]), None, r"ot\['step'\] must increase"),
    (_ot(rho_q25=[0.9, 0.5, np.nan]), None, "quartiles must be ordered"),
    (_ot(), {"forward_iterations": [-1, 3, 4], "backward_iterations": [1, 2, 3]}, r"values >= 0"),
    (_ot(), {"forward_iterations": [1, np.nan, 4], "backward_iterations": [1, 2, 3]}, "at every step or at none"),
])
def test_stability_over_training_refuses_series_it_would_draw_wrong(ot, h, match):
    # table 7: steps out of order, crossed quartiles and negative counts were drawn (silent)
    import matplotlib.pyplot as plt

    from mfattn.implicit.figures import stability_over_training
    good_h = {"forward_iterations": [10, 12, 13], "backward_iterations": [np.nan] * 3}
    with pytest.raises(ValueError, match=match):
        stability_over_training(ot, h or good_h)
    plt.close(stability_over_training(_ot(), good_h))


def test_sum_over_couplings_refuses_a_state_that_gives_non_finite_sums():
    # table 7: an inf in m gave inf/NaN sums (silent)
    from mfattn.implicit.meanfield import MeanFieldAttention
    layer = MeanFieldAttention(3, 2, interaction="linear")
    m = torch.zeros(1, 3, 2)
    cache = layer.prepare(m)
    assert torch.isfinite(layer.sum_over_couplings(m, cache)).all()
    with pytest.raises(ValueError, match="non-finite entries"):
        layer.sum_over_couplings(torch.full((1, 3, 2), float("inf")), cache)


def test_solver_stats_summary_refuses_a_converged_flag_the_residual_contradicts():
    # a1657: residual NaN with converged=True gave a summary with converged_fraction 1 (silent)
    from mfattn.deq import SolverStats
    def stats(residual, converged):
        return SolverStats(torch.tensor([3]), torch.tensor([residual]), torch.tensor([converged]), torch.zeros(1, 1),
                           torch.tensor([False]))
    for residual in (float("nan"), 1.0):
        with pytest.raises(ValueError, match="residual < tol"):
            stats(residual, True).summary()
    assert stats(1e-5, True).summary()["converged_fraction"] == 1.0
    assert stats(1.0, False).summary()["converged_fraction"] == 0.0
    with pytest.raises(TypeError, match="bool tensor"):
        SolverStats(torch.tensor([3]), torch.tensor([1e-5]), torch.tensor([1.0]), torch.zeros(1, 1),
                    torch.tensor([False])).summary()


def _onsager_data(I=2, n=4, dtype=torch.float64):
    g = torch.Generator().manual_seed(0)
    return {"J": torch.randn(I, n, n, dtype=dtype, generator=g) / n, "h": torch.randn(I, n, dtype=dtype, generator=g),
            "m": torch.rand(I, n, dtype=dtype, generator=g), "c": torch.randn(I, n, dtype=dtype, generator=g)}


def test_onsager_features_refuse_mixed_or_half_dtypes():
    # b0090: J in float16 reached einsum's "expected scalar type Half" (deep)
    from mfattn.implicit.onsager import onsager_features
    d = _onsager_data()
    with pytest.raises(TypeError, match="share one float dtype"):
        onsager_features(d["J"].half(), d["h"], d["m"], "g")
    assert onsager_features(d["J"], d["h"], d["m"], "m+s").shape == (2, 4, 2)


def test_fit_onsager_net_counts_its_steps_against_the_work_budget():
    # b0095: steps = 2**63 ran until killed (hang); each step counts at least its measured 250 µs
    from mfattn.companion.work import work_of
    from mfattn.implicit.onsager import fit_onsager_net
    with pytest.raises(ValueError, match="MFATTN_MAX_WORK"):
        fit_onsager_net(_onsager_data(), "g", steps=2 ** 63)
    _, units, _ = work_of("mfattn.implicit.onsager:fit_onsager_net",
                          {"data": _onsager_data(), "inputs": "g", "steps": 10, "hidden": 4})
    assert units == 10 * 1_000_000   # the floor: 8 × 8 sites × (4 + 16 + 4) products is less
    net, losses = fit_onsager_net(_onsager_data(), "g", hidden=4, steps=3)
    assert len(losses) == 3


def test_onsager_dataset_refuses_a_field_that_saturates_every_spin():
    # b0103: field_std = 1e308 overflowed adaptive TAP ("produced NaN/inf at iteration 1", no name)
    from mfattn.implicit.onsager import onsager_dataset
    with pytest.raises(ValueError, match="field_std"):
        onsager_dataset(4, [0.2], 1, field_std=1e308)
    assert onsager_dataset(4, [0.2], 1, field_std=0.3)["m"].shape == (1, 4)


@pytest.mark.parametrize("steps", [{0: 1, 1: 2}, {1, 2}, (k for k in (1, 2))])
def test_integer_sequences_refuse_dicts_sets_and_iterators(steps):
    # b0133 (and b0204): a dict's keys were read as the steps; an iterator was consumed by the check
    from mfattn.companion.checks import check_rule
    with pytest.raises(TypeError, match="sequence of integers"):
        check_rule("steps", steps, "ints:0")
    assert check_rule("steps", [1, 2], "ints:0") == [1, 2]
    assert list(check_rule("steps", range(3), "ints:0")) == [0, 1, 2]


def test_export_finished_refuses_folder_none(tmp_path):
    # b0741: folder=None reached Path(None) (deep)
    from mfattn.companion.profiles import get_profile
    from mfattn.implicit.trained import export_finished
    with pytest.raises(TypeError, match="folder must be a path"):
        export_finished(get_profile("deq", "quick"), None)
    with pytest.raises(PermissionError, match="folder"):
        export_finished(get_profile("deq", "quick"), "/")


def test_train_into_cache_refuses_progress_as_a_string():
    # b0704: progress='False' (truthy) passed unread (silent)
    from mfattn.implicit.ensemble_train import train_into_cache
    from mfattn.implicit.runs import TrainConfig
    with pytest.raises(TypeError, match="progress must be None, True or False"):
        train_into_cache([TrainConfig(seed=0)], progress="False")


def test_train_main_names_threads():
    # b0736: --threads 0 gave torch's "set_num_threads expects a positive integer" (no option named)
    from mfattn.implicit.train import main
    with pytest.raises(SystemExit) as exc:
        main(["--profile", "quick", "--threads", "0"])
    assert exc.value.code == 2


def test_offline_reads_false_as_online(monkeypatch):
    # MFATTN_OFFLINE=false read as set, hence offline
    from mfattn.companion.datasets import offline
    for text, want in (("", False), ("0", False), ("false", False), (" Off ", False), ("1", True), ("yes", True)):
        monkeypatch.setenv("MFATTN_OFFLINE", text)
        assert offline() is want
    monkeypatch.setenv("MFATTN_OFFLINE", "maybe")
    with pytest.raises(ValueError, match="MFATTN_OFFLINE must be"):
        offline()
    monkeypatch.delenv("MFATTN_OFFLINE")
    assert offline() is False


def _serve(folder):
    """A local HTTP server for ``folder`` in a thread: (server, base URL)."""
    import functools
    import http.server
    import threading
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(folder))
    handler.log_message = lambda *a, **k: None
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}"


def test_http_download_stops_at_the_published_size(tmp_path):
    # a huge file over http(s) was downloaded whole before its hash was compared (pooch has no size limit)
    from mfattn.companion.datasets import _bounded_http
    (tmp_path / "srv").mkdir()
    (tmp_path / "srv" / "f.bin").write_bytes(b"x" * 5000)
    server, base = _serve(tmp_path / "srv")
    try:
        with pytest.raises(ValueError, match="announces 5,000 bytes, not the published 100"):
            _bounded_http(f"{base}/f.bin", str(tmp_path / "out"), None, size=100)
        _bounded_http(f"{base}/f.bin", str(tmp_path / "ok"), None, size=5000)
        assert (tmp_path / "ok").read_bytes() == b"x" * 5000
    finally:
        server.shutdown()


def test_http_download_stops_streaming_past_the_published_size(tmp_path):
    # a server that announces no length: the download stops once it has sent more than the published size
    import http.server
    import threading

    from mfattn.companion.datasets import _bounded_http

    class Endless(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.0"

        def do_GET(self):
            self.send_response(200)
            self.end_headers()   # no Content-Length: the body runs until the connection closes
            try:
                for _ in range(64):
                    self.wfile.write(b"y" * 4096)
            except OSError:
                pass

        def log_message(self, *a):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Endless)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        with pytest.raises(ValueError, match="sent more than the published 1,000 bytes"):
            _bounded_http(f"http://127.0.0.1:{server.server_address[1]}/f", str(tmp_path / "out"), None, size=1000)
    finally:
        server.shutdown()
