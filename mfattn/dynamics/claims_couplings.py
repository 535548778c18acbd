"""Chapter 6's claims on the couplings: what the paper's §1 says of asymmetric couplings (its model is an asymmetric
Hopfield network out of equilibrium, with tori and chaos) and our two controls of it, the query-key pair made
symmetric (W^k := W^q) and the effective token couplings made symmetric (W^v := W^o), each declared with its rule and
premises (:mod:`mfattn.companion.premises`). :mod:`.claims` gathers them with the other claims.

The §1 sentence ("symmetric random couplings lead to spin-glass behaviour, asymmetric ones to non-equilibrium steady
states with order-disorder transitions and chaotic dynamics") is background on a bipartite Hopfield network whose
output is fed back as its input; the paper then studies attention as such an asymmetric network. It does not say
that W^k ≠ W^q is what makes the chaos of its attention model: that counterfactual is ours
(``dmft-query-key-control``), and so is the output-value one (``dmft-symmetric-couplings``).

The controls are stored by :func:`~mfattn.dynamics.verdict_numbers.symmetric_control`: the paper's model and both
symmetrisations over 401 β, and (runs from 0.4 on) W^o := W^v, a rows-cycled asymmetric J and the next three weight
seeds over every 8th of those β, each with its per-β periods and λ_max.
"""

from __future__ import annotations

from mfattn.companion.stored_views import MissingNumber  # a KeyError naming the stored number a rule lacks

import numpy as np

from ..companion.checks import check_bool, check_edges, check_probability
from ..companion.premises import Alternative, Spread, Threshold
from ..companion.verdicts import Claim, Undecidable, finite_rule
from ..structural.claims_rules import same_units
from . import claims_lambda as lam_
from .claims_lambda import guarded
from .claims_quotes import QUOTES
from .claims_stored import PAPER

__all__ = ["CLAIMS_COUPLINGS"]

M = "tests/test_dynamics_model.py::"
D = "tests/test_dynamics_diagnostics.py::"
# the seeds' readers live in a module of their own (SEEDS with them); re-exported for the rules and their tests
from .claims_couplings_seeds import SEEDS, _forbidden_mask, _key, _seeds, _seeds_same_beta  # noqa: E402,F401
_COUNTS = ("tori", "chaotic", "long_periods", "nontrivial")


# --- the paper's reading: its model is out of equilibrium ----------------------------------------------------------

def _diagram_kinds(s, lt=lam_.LT, lc=lam_.LC) -> dict[str, list[int]]:
    """Tori and chaotic orbits of each stored diagram (Fig. 3a's and the zoom's start chains)."""
    out = {"tori": [], "chaotic": []}
    for p in ("a", "z"):
        b, lam, per = lam_.orbits(s, p)
        c = lam_.classes(b, lam, per, s.get("ns_beta"), lt, lc)
        out["tori"].append(int((c == lam_.TORUS).sum()))
        out["chaotic"].append(int((c == lam_.CHAOTIC).sum()))
    return out


def nonequilibrium_at(lt: float, lc: float, chaos_only: bool = False):
    """The paper's model has the attractors of a non-equilibrium steady state that a symmetric coupling forbids: tori
    and chaos in its diagrams holds, one of the two kinds partly, neither fails (``chaos_only``: chaos holds).
    ``0 < lt < lc``."""
    check_edges("lt", lt, "lc", lc, minimum=0.0, open_range=True)
    check_bool("chaos_only", chaos_only)

    @finite_rule
    def rule(s):
        k = _diagram_kinds(s, lt, lc)
        tori, chaos = sum(k["tori"]) > 0, sum(k["chaotic"]) > 0
        if chaos_only:
            return "holds" if chaos else "fails"
        return "holds" if tori and chaos else "partly" if tori or chaos else "fails"
    return rule


def _control_sweep(s):
    """The same rule on the symmetric control's own sweep of the paper's model (401 β from the token, tori and
    chaos by |λ| ≤ 1e-3)."""
    tori, chaos = s["sym_paper_tori"] > 0, s["sym_paper_chaotic"] > 0
    return "holds" if tori and chaos else "partly" if tori or chaos else "fails"


def _seed_text(s, seed, kinds=("paper", "ov", "qk")) -> str:
    names = {"paper": "model", "ov": "W^v := W^o", "qk": "W^k := W^q"}
    parts = [f"{names[k]} {s[_key(seed, k) + '_nontrivial']} ({s[_key(seed, k) + '_tori']} tori, "
             f"{s[_key(seed, k) + '_chaotic']} chaotic)" for k in kinds if _key(seed, k) + "_nontrivial" in s]
    return f"seed {seed} ({s.get(_key(seed, 'paper') + '_n', '?')} β): " + ", ".join(parts)


def _other_seeds(s, kinds=("paper", "ov", "qk")) -> str:
    done = [_seed_text(s, k, kinds) for k in SEEDS[1:] if _key(k, "paper") + "_nontrivial" in s]
    return ("Forbidden orbits of the next weight seeds (every 8th β): " + "; ".join(done) + "."
            if done else "No other weight seed is stored.")


def _noneq_note(s):
    k = _diagram_kinds(s)
    return (f"Tori and chaotic orbits (the classes of dmft-lyapunov): Fig. 3a {k['tori'][0]} and {k['chaotic'][0]} of "
            f"{lam_.orbits(s, 'a')[0].size} β, the zoom {k['tori'][1]} and {k['chaotic'][1]}; the symmetric "
            f"control's own sweep of the paper's model: {s['sym_paper_tori']} tori, {s['sym_paper_chaotic']} chaotic "
            f"of {s['sym_paper_n']} β. The §1 sentence is background on a bipartite Hopfield network; the paper does "
            "not propose W^k := W^q, which is ours (dmft-query-key-control). 'Order-disorder transitions' is not "
            "tested. One weight seed, the paper's. " + _other_seeds(s, ("paper",)))


# --- our controls: a share of the paper model's forbidden orbits kept ------------------------------------------------

def kept_at(survive: float, pair: str = "qk", counts=("nontrivial",), same_beta: bool = True):
    """Ours: symmetrising ``pair`` keeps the paper model's forbidden orbits. Per seed with some: a ``survive`` share
    of them or more kept holds, some kept partly, none kept fails; over seeds: all hold holds, all fail fails,
    otherwise partly. ``same_beta``: kept means a forbidden orbit of the control at the same β (where the per-β
    arrays are stored); else the ratio of the two counts over the grid. ``survive`` a share in [0, 1]."""
    check_probability("survive", survive)
    check_bool("same_beta", same_beta)

    @finite_rule
    def rule(s):
        units = (_seeds_same_beta(s, pair, counts) if same_beta else None) or _seeds(s, pair, counts)
        if not units:
            raise Undecidable("no stored weight seed's paper model has such orbits: nothing to keep or remove")
        grades = {"holds" if kept >= survive * paper else "partly" if kept > 0 else "fails" for _, paper, kept in units}
        return grades.pop() if len(grades) == 1 else "partly"
    return rule


def removes_at(survive: float, pair: str = "ov"):
    """Ours: symmetrising ``pair`` removes the paper model's forbidden orbits. Per seed with some: none kept (and
    tori or chaos in the paper's model) holds, fewer than a ``survive`` share partly, that share or more fails;
    over seeds: all hold holds, any fails fails, otherwise partly."""
    def rule(s):
        units = _seeds(s, pair)
        if not units:
            raise Undecidable("no stored weight seed's paper model has forbidden orbits: nothing to remove")
        grades = set()
        for seed, paper, kept in units:
            p = _key(seed, "paper")
            grades.add("fails" if kept >= survive * paper else
                       "holds" if kept == 0 and s[f"{p}_tori"] + s[f"{p}_chaotic"] > 0 else "partly")
        return "fails" if "fails" in grades else "holds" if grades == {"holds"} else "partly"
    return rule


def _chaos_units(s, pair: str = "qk") -> list[tuple[int, float, float]] | None:
    """``(seed, chaotic β of the paper's model, of them chaotic in the control at the same β)`` for each stored seed
    whose paper model has chaotic β; KeyError where a seed's per-β arrays are not stored (runs before 0.4: the numbers
    predate the rule), None where the two models are stored on different β."""
    out = []
    for seed in SEEDS:
        p, c = _key(seed, "paper"), _key(seed, pair)
        if seed > 1 and f"{c}_nontrivial" not in s:
            continue
        missing = [f"{k}_{x}" for k in (p, c) for x in ("betas", "period", "lyapunov") if f"{k}_{x}" not in s]
        if missing:
            raise MissingNumber(missing[0])
        for k in (p, c):
            same_units(s, f"{k}_betas", f"{k}_period", f"{k}_lyapunov", units="β")
        bp, bc = (np.round(np.asarray(s[f"{k}_betas"], dtype=np.float64), 9) for k in (p, c))
        if bp.shape != bc.shape or not (bp == bc).all():
            return None
        mp = _forbidden_mask(s[f"{p}_period"], s[f"{p}_lyapunov"], ("chaotic",))
        mc = _forbidden_mask(s[f"{c}_period"], s[f"{c}_lyapunov"], ("chaotic",))
        if mp.any():
            out.append((seed, float(mp.sum()), float((mp & mc).sum())))
    return out


def chaos_removed_at(survive: float, seeds=SEEDS, pair: str = "qk"):
    """Ours: symmetrising ``pair`` removes the paper model's chaos. Per seed with chaotic β (of ``seeds``): the share
    of them still chaotic in the control at the same β more than two binomial standard deviations at one half
    (1/√count) below ``survive`` holds, more than that above fails, within partly (too few chaotic β to tell); over
    seeds: all hold holds, all fail fails, otherwise partly. ``survive`` a share in [0, 1]."""
    check_probability("survive", survive)

    @finite_rule
    def rule(s):
        units = _chaos_units(s, pair)
        if units is None:
            raise Undecidable("the control and the paper's model are stored on different β")
        units = [u for u in units if u[0] in seeds]
        if not units:
            raise Undecidable("no stored weight seed's paper model is chaotic: no chaos to remove")
        grades = set()
        for _, paper, kept in units:
            share, noise = kept / paper, 1 / np.sqrt(paper)   # two binomial standard deviations at p = 1/2
            grades.add("holds" if share < survive - noise else "fails" if share > survive + noise else "partly")
        return grades.pop() if len(grades) == 1 else "partly"
    return rule


def per_seed_at(survive: float):
    """The claim as the seeds show it: on the paper's seed the control removes the chaos (:func:`chaos_removed_at` on
    seed 1 holds) and on no further seed with chaos does it (each is partly or fails there) holds; seed 1 removing
    it and some further seed too partly, seed 1 partly partly; seed 1 keeping it fails. ``survive`` a share in
    [0, 1]."""
    check_probability("survive", survive)

    @finite_rule
    def rule(s):
        first = chaos_removed_at(survive, (1,))(s)
        others = [chaos_removed_at(survive, (k,))(s) for k in SEEDS[1:]
                  if any(u[0] == k for u in (_chaos_units(s) or []))]
        if first == "fails":
            return "fails"
        return "holds" if first == "holds" and "holds" not in others else "partly"
    return rule


def _chaos_check(s):
    units = _chaos_units(s) or []
    paper_seed = [u for u in units if u[0] == 1]
    ok = bool(paper_seed) and abs(paper_seed[0][2] / paper_seed[0][1] - 0.5) > 1 / np.sqrt(paper_seed[0][1])
    return ok, ("the share of the paper model's chaotic β still chaotic with W^k := W^q at the same β, per seed: "
                + ", ".join(f"seed {seed}: {kept:.0f} of {paper:.0f} = {kept / paper:.0%} (two binomial standard "
                            f"deviations at 1/2: {1 / np.sqrt(paper):.0%})" for seed, paper, kept in units)
                + f"; the paper's seed's {'lies' if ok else 'does not lie'} beyond them from one half (the further "
                  "seeds count too few chaotic β to be told from one half at that level)")


def _other_direction(s):
    """W^o := W^v (the other direction of the output-value pair) against the paper model on the same β."""
    paper, kept = s["sym_paper_on_vo_nontrivial"], s["sym_vo_nontrivial"]
    if paper == 0:
        raise Undecidable("the paper's model has no forbidden orbit on the β of the W^o := W^v control")
    return "holds" if kept == 0 else "partly" if kept < 0.5 * paper else "fails"


def _chaos_only(s) -> dict:
    """The query-key control's chaotic β counted only where the paper model is chaotic at the same β (per seed,
    where the per-β arrays are stored): chaos kept as chaos."""
    out = {}
    for seed in SEEDS:
        p, c = _key(seed, "paper"), _key(seed, "qk")
        if all(f"{k}_{x}" in s for k in (p, c) for x in ("period", "lyapunov")):
            both = (_forbidden_mask(s[f"{p}_period"], s[f"{p}_lyapunov"], ("chaotic",))
                    & _forbidden_mask(s[f"{c}_period"], s[f"{c}_lyapunov"], ("chaotic",)))
            out[f"{c}_chaotic"] = int(both.sum())
    return out


def _same_beta_text(s, pair="qk"):
    units = _seeds_same_beta(s, pair)
    if not units:
        return ""
    chaos = _seeds_same_beta(s, pair, ("chaotic",)) or []
    both = _chaos_only(s)
    parts = [f"seed {seed}: {kept:.0f} of {paper:.0f}" for seed, paper, kept in units]
    parts_c = [f"seed {seed}: {kept:.0f} of {paper:.0f} (chaotic there too: {both.get(_key(seed, pair) + '_chaotic', '?')})"
               for seed, paper, kept in chaos]
    return (" At the same β (the same orbits, not a ratio of counts): of the paper model's β with a forbidden orbit "
            "the control has one at " + ", ".join(parts) + "; of its chaotic β, " + ", ".join(parts_c) + ".")


def _kept_share(s, pair, seed=1, counts=("nontrivial",)):
    paper = sum(s[f"{_key(seed, 'paper')}_{x}"] for x in counts)
    return sum(s[f"{_key(seed, pair)}_{x}"] for x in counts) / paper if paper else float("nan")


def _survive_noise(s):
    """The relative counting noise of the paper model's forbidden orbits (Poisson: 1/√count, seed 1's 401 β)."""
    return float(1 / np.sqrt(s["sym_paper_nontrivial"]))


def _survive_check(pair):
    def check(s):
        units = _seeds(s, pair)
        far = [(seed, kept / paper, 2 / np.sqrt(paper)) for seed, paper, kept in units]
        ok = bool(far) and all(abs(share - 0.5) > noise for _, share, noise in far)
        return ok, ("the share of the paper model's forbidden orbits the control keeps, per seed with some: "
                    + ", ".join(f"seed {seed}: {share:.0%} (two counting noises: {noise:.0%})"
                                for seed, share, noise in far)
                    + f"; {'every one' if ok else 'not every one'} lies more than two counting noises from one half")
    return check


def _survive(pair, reason):
    return Threshold("survive", 0.5, "stored distribution", reason, guarded(_survive_check(pair)),
                     noise=guarded(_survive_noise))


def _kinds_text(s, key):
    return (f"{s[key + '_nontrivial']} of {s[key + '_n']} β ({s[key + '_tori']} tori, {s[key + '_chaotic']} chaotic, "
            f"{s[key + '_long_periods']} with a period not dividing lcm(2, L) = 4; longest period {s[key + '_max_period']})")


def _per_seed(pair, counts=("nontrivial",)):
    return lambda s: {"share of the paper model's orbits kept, per seed with some":
                      [kept / paper for _, paper, kept in _seeds(s, pair, counts)]}


_SYMMETRIC_WHY = ("The premise 'symmetric couplings allow only fixed points and 2-cycles' is a theorem (a Lyapunov "
                  "function, Goles; Marcus-Westervelt) for x_{t+1} = F(J x_t + h), J symmetric and h constant. This "
                  "map is not of that form: each step is a softmax over a window of L past states (weights that depend "
                  "on the state) with a positional field of period L. So the premise is no theorem here; where the "
                  "data agree with it (periods dividing lcm(2, L) = 4) that is measured, one orbit per β from the token. "
                  "Forbidden orbits: tori and chaos by |λ| ≤ 1e-3 and periods not dividing lcm(2, L) = 4.")


def _cycled_text(s):
    if "sym_cyc_nontrivial" not in s:
        return ""
    return (f" A matched asymmetric J (W^v := W^o with its rows cycled, the same ±1 statistics) has "
            f"{_kinds_text(s, 'sym_cyc')} against the paper model's {s['sym_paper_on_cyc_nontrivial']} "
            f"({s['sym_paper_on_cyc_chaotic']} chaotic) on the same β: an asymmetric J is necessary here for the "
            "tori and chaos, and not shown sufficient.")


_N = dict(sym_paper_nontrivial=40, sym_paper_tori=5, sym_paper_chaotic=30, sym_paper_long_periods=5,
          sym_ov_nontrivial=0, sym_qk_nontrivial=30, sym_qk_tori=20, sym_qk_chaotic=5, sym_qk_long_periods=5)
_E = {"betas": np.linspace(1.2, 1.3, 60), "lyapunov": np.array([-0.1] * 20 + [1e-5] * 20 + [0.1] * 20),
      "period": np.array([4] * 20 + [0] * 40)}
_NOTE_ = {"a_orbit_arrays": _E, "z_orbit_arrays": _E}

def _qk_example(chaos: int, kept: int, seed2_kept: int, n: int = 60) -> dict:
    """Stored numbers of two seeds with per-β arrays: ``chaos`` chaotic β of the paper's model (seed 1; 20 on seed 2),
    ``kept`` (``seed2_kept``) of them still chaotic with W^k := W^q, the rest of those β tori."""
    out = dict(_N)
    for seed, c, k in ((1, chaos, kept), (2, 20, seed2_kept)):
        betas = np.linspace(0.0, 3.0, n)
        lam_p = np.array([0.1] * c + [-0.1] * (n - c))
        lam_c = np.array([0.1] * k + [1e-5] * (c - k) + [-0.1] * (n - c))
        per = np.array([0] * c + [4] * (n - c))
        for kind, lam in (("paper", lam_p), ("qk", lam_c)):
            key = _key(seed, kind)
            out.update({f"{key}_betas": betas, f"{key}_period": per, f"{key}_lyapunov": lam,
                        f"{key}_nontrivial": c, f"{key}_tori": 0 if kind == "paper" else c - k,
                        f"{key}_chaotic": c if kind == "paper" else k, f"{key}_long_periods": 0, f"{key}_n": n,
                        f"{key}_max_period": 4})
    return out


_QK = _qk_example(30, 1, 0)   # 1 of 30 (two noises: 37 %) and 0 of 20 (45 %) still chaotic

CLAIMS_COUPLINGS = [
    Claim("dmft-asymmetric-nonequilibrium", f"{PAPER}, §1 (Eqs. 1-3) and §4.1", "Attention is studied as an "
          "asymmetric Hopfield network (the query-key couplings may differ, W^k ≠ W^q), and the paper's model has the "
          "attractors that asymmetric couplings allow and a symmetric Hopfield network forbids: quasi-periodic tori "
          "and chaos", quote=QUOTES["dmft-asymmetric-nonequilibrium"],
          reading="the text's: §1's sentence is background on a bipartite Hopfield network fed back into itself, and "
                  "the paper studies attention as such an asymmetric network; it does not say that W^k ≠ W^q is what "
                  "makes the chaos of its model (W^k := W^q is ours: dmft-query-key-control). 'Order-disorder "
                  "transitions' is not tested, nor is a non-equilibrium steady state in the strict sense (broken "
                  "detailed balance, entropy production of the finite-N chain): the claim is the attractors measured; "
                  "the positional code is a periodic drive, which alone makes the model non-autonomous",
          measured="Tori and chaotic orbits among the 4001 β of Fig. 3a and the 4001 β of the zoom, each orbit "
                   "classed by the period search and λ_max (the classes of dmft-lyapunov)",
          rule_at=nonequilibrium_at, thresholds=lam_.thresholds(),
          alternatives=(Alternative("chaos only (the sentence names chaotic dynamics, 混沌; tori not asked)",
                                    "reading", nonequilibrium_at(lam_.LT, lam_.LC, chaos_only=True)),
                        Alternative("the symmetric control's own sweep of the paper's model (401 β from the token, "
                                    "tori and chaos by |λ| ≤ 1e-3)", "unit", _control_sweep)),
          spread=Spread("start chain (Fig. 3a's and the zoom's; the paper's weight seed)", _diagram_kinds),
          how="Holds if the paper's model has both tori and chaotic orbits (attractors of a non-equilibrium "
              "steady state); with differences if it has one of the two kinds; not reproduced if neither. The claim "
              "is what the paper's model shows; it does not say, and this rule does not test, that a symmetric "
              "coupling forbids tori and chaos: for a Hopfield network with symmetric couplings and parallel "
              "updates that is a theorem (fixed points and 2-cycles only), for this map with softmax attention over "
              "a window it is a premise, tested by the symmetric controls (dmft-symmetric-couplings, "
              "dmft-query-key-control). The text's sentence also names order-disorder transitions, which no "
              "number here tests. " + lam_.LAMBDA_HOW,
          evidence=("fig-dmft-bifurcation", "fig-dmft-all-values", D + "test_orbit_at_beta3_has_period_24"),
          note=_noneq_note,
          numbers=lambda s: {"tori, Fig. 3a and zoom": sum(_diagram_kinds(s)["tori"]),
                             "chaotic orbits, Fig. 3a and zoom": sum(_diagram_kinds(s)["chaotic"]),
                             "betas per diagram": int(lam_.orbits(s, "a")[0].size)},
          examples={"holds": _NOTE_,
                    "partly": {"a_orbit_arrays": {**_E, "lyapunov": np.array([-0.1] * 20 + [1e-2] * 40)},
                               "z_orbit_arrays": {**_E, "lyapunov": np.array([-0.1] * 20 + [1e-2] * 40)}},
                    "fails": {"a_orbit_arrays": {**_E, "period": np.full(60, 4), "lyapunov": np.full(60, -0.1)},
                              "z_orbit_arrays": {**_E, "period": np.full(60, 4), "lyapunov": np.full(60, -0.1)}}}),
    Claim("dmft-query-key-control", "ours (the query-key control)", "On the paper's weight seed, symmetrising the "
          "query-key pair (W^k := W^q), the asymmetry the paper names, stops most of the chaotic β being chaotic (at "
          "the same β); on the next seeds with chaos (2 and 4) it does not; on no seed does it remove the other "
          "orbits out of equilibrium (tori, long periods)", origin="ours", quote=QUOTES["dmft-query-key-control"],
          reading="ours: the paper names the k-q asymmetry (§1 sentence on chaotic dynamics, 混沌) and does not propose "
                  "this control; chaos is the kind the sentence names, so chaos decides; the other kinds are the "
                  "second clause, read in the note and as an alternative",
          measured="At the same β, in the paper's model and with W^k := W^q on the semantic units, from the token: "
                   "the paper model's chaotic β still chaotic in the control; the β where the paper's model has an "
                   "orbit a symmetric coupling forbids (torus, chaos, period not dividing lcm(2, L) = 4) and the control has one "
                   "of any kind. The paper's weight seed over 401 β on [0, 3], the next three seeds over every 8th",
          rule_at=per_seed_at,
          thresholds=(Threshold("survive", 0.5, "stored distribution", "half: a control that keeps half of the "
                                "chaotic β or more has not removed the chaos. Per seed the share is read with its "
                                "counting noise (2/√count): within it, too few chaotic β to tell (with differences)",
                                guarded(_chaos_check), noise=guarded(_survive_noise)),),
          alternatives=(Alternative("the former claim: it removes the chaos on every weight seed", "reading",
                                    chaos_removed_at(0.5)),
                        Alternative("the paper's weight seed only (401 β)", "unit", chaos_removed_at(0.5, (1,))),
                        Alternative("the last clause alone: at the same β the control keeps a forbidden orbit where the "
                                    "paper's model has one, on half of them or more on every seed", "reading",
                                    kept_at(0.5, "qk"))),
          spread=Spread("weight seed with chaotic β (the paper's and the next three)", lambda s: {
              "share of the paper model's chaotic betas still chaotic, per seed": [
                  kept / paper for _, paper, kept in (_chaos_units(s) or [])]}),
          how="Ours: the paper does not propose this control. Per weight seed whose paper model has chaotic β, the "
              "share of them still chaotic with W^k := W^q at the same β is read against one half with two binomial "
              "standard deviations (1/√count): below removes the chaos, above keeps it, within cannot tell. Confirmed "
              "if the paper's seed removes it and no further seed does (each keeps it or cannot tell); with "
              "differences if a further seed removes it too, or the paper's seed cannot tell; refuted if the paper's "
              "seed keeps it. Seeds 2 and 4 keep about two thirds (12 of 19, 17 of 26): within their noise of one "
              "half, not a removal. The second clause (tori and long periods kept) is read in the note: at "
              "nearly every β where the paper's model has a forbidden orbit the control has one too, so on the "
              "reading 'removes every orbit out of equilibrium' the claim is refuted. " + _SYMMETRIC_WHY,
          evidence=("fig-dmft-bifurcation", M + "test_symmetrised_models_have_symmetric_couplings_and_the_papers_forcing"),
          note=lambda s: (f"Paper's model: {_kinds_text(s, 'sym_paper')}; W^k := W^q: {_kinds_text(s, 'sym_qk')}. "
                          "Chaotic β still chaotic at the same β: " + ", ".join(
                              f"seed {seed}: {kept:.0f} of {paper:.0f} ({kept / paper:.0%})"
                              for seed, paper, kept in (_chaos_units(s) or [])) + "."
                          + " " + _other_seeds(s, ("paper", "qk")) + _same_beta_text(s)
                          + " One orbit per β and model, from the token."),
          numbers=lambda s: {"paper: chaotic betas": s["sym_paper_chaotic"],
                             "query-key symmetric: chaotic betas": s["sym_qk_chaotic"],
                             "chaotic betas still chaotic at the same beta, per seed": "; ".join(
                                 f"seed {seed}: {kept:.0f} of {paper:.0f}" for seed, paper, kept in (_chaos_units(s) or [])),
                             "paper: betas with forbidden orbits": s["sym_paper_nontrivial"],
                             "query-key symmetric: betas with forbidden orbits": s["sym_qk_nontrivial"],
                             "betas per model": s["sym_paper_n"]},
          examples={"holds": _qk_example(30, 1, 12), "partly": _QK, "fails": _qk_example(30, 30, 20)}),
    Claim("dmft-symmetric-couplings", "ours (the output-value control)", "Symmetrising the effective token couplings "
          "(W^v := W^o, so that J ∝ W^oᵀ W^v is symmetric) removes every orbit a symmetric coupling would forbid",
          origin="ours", quote=QUOTES["dmft-symmetric-couplings"],
          measured="The orbits a symmetric coupling forbids (tori, chaos, periods not dividing lcm(2, L) = 4) from the token in "
                   "the paper's model and with W^v := W^o on the semantic units: the paper's seed over 401 β on "
                   "[0, 3], the next three weight seeds over every 8th of them",
          rule_at=lambda survive: removes_at(survive, "ov"),
          thresholds=(_survive("ov", "half: a control that keeps half of the forbidden orbits or more has not removed "
                                     "them; every stored share lies more than two counting noises (2/√count; the "
                                     "further seeds count only 22 and 32 such orbits) from one half"),),
          alternatives=(Alternative("the other direction, W^o := W^v (the paper's seed, every 8th β)", "unit",
                                    _other_direction),),
          spread=Spread("weight seed with forbidden orbits (the paper's and the next three)", _per_seed("ov")),
          how="Per weight seed whose paper model has forbidden orbits: holds if W^v := W^o removes every one (and the "
              "paper's model has tori or chaos), with differences if it keeps fewer than half, refuted if it keeps "
              "half or more; over seeds, confirmed if every seed holds, refuted if any seed fails, otherwise with "
              "differences. A seed whose paper model has no forbidden orbit tests nothing and is left out. "
              + _SYMMETRIC_WHY,
          evidence=("fig-dmft-bifurcation", M + "test_symmetrised_models_have_symmetric_couplings_and_the_papers_forcing"),
          note=lambda s: (f"Paper's model: {_kinds_text(s, 'sym_paper')}; W^v := W^o: {_kinds_text(s, 'sym_ov')}. "
                          + _other_seeds(s, ("paper", "ov"))
                          + ("" if "sym_vo_nontrivial" not in s else
                             f" The other direction, W^o := W^v: {_kinds_text(s, 'sym_vo')} (the paper's model "
                             f"{s['sym_paper_on_vo_nontrivial']} on the same β).")
                          + _cycled_text(s) + " One orbit per β and model, from the token."),
          numbers=lambda s: {"paper: betas with forbidden orbits": s["sym_paper_nontrivial"],
                             "output-value symmetric: betas with forbidden orbits": s["sym_ov_nontrivial"],
                             "output-value symmetric: longest period": s["sym_ov_max_period"],
                             "seeds with forbidden orbits": len(_seeds(s, "ov"))},
          examples={"holds": {**_N, "sym_ov_max_period": 4}, "partly": {**_N, "sym_ov_nontrivial": 3},
                    "fails": {**_N, "sym_ov_nontrivial": 20}}),
]


from ..companion.stored_views import guard_claims  # noqa: E402  (last: it wraps what this module defines)

guard_claims(globals())   # public functions read the stored numbers through a checked view
