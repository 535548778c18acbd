"""Chapter 6's verdict logic (mfattn.dynamics.claims): the numbers the full run stores are the ones it reads."""

import json

import numpy as np
import pytest

from mfattn.companion import store
from mfattn.dynamics import claims, diagnostics, engine, sweep


@pytest.fixture(scope="module")
def stored(tmp_path_factory):
    """A miniature full run: the same calls as the chapter's full-profile cells, on small sizes."""
    root = tmp_path_factory.mktemp("root")
    folder = root / "data" / "full" / "dmft"
    folder.mkdir(parents=True)
    diagrams = {"fig3a": sweep.sweep(np.linspace(0.5, 3.0, 9), 3000, 1000, lyapunov=True, progress=False),
                "fig3b": sweep.sweep(np.linspace(1.24, 1.28, 7), 3000, 1000, lyapunov=True, progress=False)}
    for key, res in diagrams.items():
        sweep.save_diagram(folder / f"{key}_sections.npz", res)
    b4 = np.array(claims.FIG4)
    planes = engine.simulate(b4, 6000, 2000, lyapunov=True)
    ours = engine.simulate(b4, 6000, 2000, init=engine.simulate([1.28], 500, 499).context_of(0), lyapunov=True)
    pp, po = (diagnostics.orbit_period(r.m_o, max_period=500) for r in (planes, ours))
    strobe = lambda r: diagnostics.stroboscopic_section(r.m_o, 4, 0, 2000)  # noqa: E731
    cmp4 = diagnostics.compare_attractors(strobe(planes), strobe(ours), pp, po)
    ctx = {3.0: diagrams["fig3a"], 2.0: diagrams["fig3a"]}
    Ns = np.array([1e3, 1e4, 1e5])
    errs = np.array([[0.1, 0.03, 0.01], [1.0, 0.05, 0.016]])
    sizes = {"protocol": "paper-code", "steps": 3000, "transient": 1000}
    s = claims.summary(sizes, diagrams, b4, planes, pp, ours, po, cmp4, True, ctx, np.zeros(9, bool), np.zeros(9, bool),
                       [-0.5, -0.9], Ns, errs)
    store.atomic_write_json(folder / "summary.json", s)
    return root


def test_every_number_the_prose_glues_is_stored(stored):
    full = claims.full_numbers(stored)
    glue = claims.glue_values(full)
    assert not [k for k, v in glue.items() if v == claims.MISSING]
    assert full["fig3a"]["exact bin counts"] and len(full["fig3b"]["confusion"]) == 3


def test_every_claim_is_decided_from_stored_numbers(stored):
    rows = claims.decide(claims.full_numbers(stored))
    assert len(rows) == len(claims.CLAIMS) >= 12
    assert {r[0] for r in rows} >= {"dmft-planes", "dmft-spectra", "dmft-memory", "dmft-bin-rule", "dmft-finite-n",
                                     "dmft-route-to-chaos", "dmft-zoom", "dmft-coexistence", "dmft-mean-field-map",
                                     "dmft-asymmetric-nonequilibrium", "dmft-path-probability"}
    assert all(r[3] != "not tested" for r in rows), [r[0] for r in rows if r[3] == "not tested"]
    json.dumps([r[5] for r in rows])  # the ledger's numbers are plain


def test_a_run_that_predates_a_number_says_not_tested(tmp_path):
    rows = {r[0]: r for r in claims.decide(claims.full_numbers(tmp_path))}
    assert rows["dmft-planes"][3] == "not tested" and "reproduce --profile full" in rows["dmft-planes"][6]
    assert all(v == claims.MISSING for k, v in claims.glue_values({}).items() if k != "full-protocol")


def test_memory_verdict_follows_the_decay_times():
    f4 = {"betas": list(claims.FIG4), "start": "paper", "tau_e": [None, None, 10, None, 10, 13],
          "tau_01": [None, None, 1600, None, 84, 212]}
    assert claims._memory({"summary": {"fig4": f4}})[0] == "reproduced"
    f4["tau_01"] = [None, None, 20, None, 30, 25]  # beyond the context, but not by much
    assert claims._memory({"summary": {"fig4": f4}})[0] == "reproduced with differences"
    f4["tau_01"] = [None, None, 3, None, 4, 2]  # correlations gone within the context: not what the paper says
    assert claims._memory({"summary": {"fig4": f4}})[0] == "not reproduced"
