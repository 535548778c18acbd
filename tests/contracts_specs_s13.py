"""Contract specs of public API added in the thirteenth session (the replay through each run's own trainer), see
contracts_registry.py."""

from __future__ import annotations

from hypothesis import strategies as st

from contracts_registry import Spec

I = "mfattn.implicit."


def _runs(d):
    """An index's runs with how each was trained: ensembles of 1-3 seeds of one variant, and solo runs."""
    out = {}
    for v in range(d(st.integers(1, 4))):
        seeds = list(range(d(st.integers(1, 3))))
        if d(st.booleans()):
            for s in seeds:
                out[f"v{v}-solo{s}"] = {"config": {"seed": s, "epochs": v}, "code": "x", "ensemble": None}
        else:
            for i, s in enumerate(seeds):
                out[f"v{v}-seed{s}"] = {"config": {"seed": s, "epochs": v}, "code": "x",
                                        "ensemble": {"member": i, "seeds": seeds}}
    return out


def _groups_check(kwargs, result):
    solo, groups = result
    runs = kwargs["runs"]
    assert sorted(solo + [n for g in groups for n in g]) == sorted(runs)      # every run once
    assert all(runs[n]["ensemble"] is None for n in solo)
    for g in groups:                                                         # one variant, in member order
        assert len({runs[n]["config"]["epochs"] for n in g}) == 1
        assert [runs[n]["ensemble"]["member"] for n in g] == list(range(len(g)))


SPECS = {
    I + "replay_runner:ensemble_groups": Spec(lambda d: {"runs": _runs(d)}, check=_groups_check),
}
