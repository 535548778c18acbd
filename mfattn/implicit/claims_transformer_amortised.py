"""The rules of Chapter 3's two claims on the amortised Onsager correction (:mod:`.claims_transformer` declares them):
the fixed-coupling net of §3.4 (transformer-amortised-onsager) and the feed-forward net of §4.3
(transformer-ffn-amortises), their alternatives and notes. The shared pieces (the grade, the site-shared level, the
per-draw statistics) are :mod:`.claims_transformer_rules`'.

The rules of the fixed-coupling net of §3.4 and the blog's net's numbers and note are
:mod:`.claims_transformer_fixed`'s (re-exported here); this module holds the feed-forward net's of §4.3."""

from __future__ import annotations

from typing import Any

import numpy as np

from mfattn.companion import stats, verdicts
from mfattn.companion.checks import check_choice, check_edges, check_grid, check_int, check_positive, check_real  # noqa: F401
from mfattn.companion.premises import Alternative, Threshold  # noqa: F401
from mfattn.companion.verdicts import finite_numbers, finite_rule

from .claims_transformer_rules import (AMORTISED, READING_FIXED, READING_G, READING_M, Numbers,  # noqa: F401
                                       _amortised_grade, _draws, _listed, _mean_over_draws, _same_draws, _t_upper,
                                       amortised_at, per_draw)
from .claims_transformer_numbers import NETS
from .claims_transformer_fixed import (ORACLE, ORACLE_THRESHOLDS, _oracle_check, _oracle_spread, _ratios,  # noqa: F401
                                       amortised_alternatives, amortised_note, amortised_numbers, fixed_alternatives,
                                       in_iteration, oracle_at, oracle_examples)

#: The nets whose per-draw errors are stored (``corr_<stat>_<tag>_seeds``).
_TAGS = tuple(NETS.values())


def straddle_at(tag: str):
    """:func:`amortised_at`'s rule, except that draws on both sides of the line of no correction (1) leave the claim
    undecided: which side the mean falls on then depends on the draw (the fit's initialisation and data), not on the
    net's input."""
    base = amortised_at(tag)

    def factory(tap_level: float, none: float):
        rule = base(tap_level, none)

        @finite_rule
        def decide(s):
            d = s.get(f"corr_mean_{tag}_seeds")
            if d and len(d) > 1 and min(d) < none <= max(d):
                raise verdicts.Undecidable(
                    f"the draws straddle the line of no correction ({', '.join(f'{x:.3f}' for x in d)} against "
                    f"{none:g}): inconclusive, the side the mean falls on depends on the draw")
            return rule(s)
        return decide
    return factory


def no_better_than(got, ref) -> bool:
    """Per-draw errors ``got`` no better than ``ref``: their mean not below ``ref``'s mean by more than the draws'
    spread of ``got`` (its s.d.; 0 for a single draw). Every floor and bound of the amortisation claims reads this.
    Each a non-empty sequence of finite numbers (a NaN draw would compare False)."""
    check_grid("got", got)
    check_grid("ref", ref)
    spread = float(np.std(got, ddof=1)) if len(got) > 1 else 0.0
    return float(np.mean(got)) >= float(np.mean(ref)) - spread


def blind_stand_in(s: Numbers, x: str = "g", width: int | None = None) -> None:
    """Raise :class:`~mfattn.companion.verdicts.Undecidable` where the stand-in cannot show what the claim asks: the
    best function of the site's scalar ``x`` (:mod:`mfattn.implicit.onsager_bound`, per draw) no better than the best
    single coefficient a·x by more than the draws' spread of that bound. ``width``: over the ``width`` largest training
    β instead of the whole range. Nothing stored: nothing raised (the rule reads on as before the bound). A NaN read is
    :class:`~mfattn.companion.verdicts.Undecidable` (:class:`~mfattn.companion.verdicts.FiniteNumbers`)."""
    s = finite_numbers(s)
    if f"bound_{x}_seeds" not in s:
        return
    if width is None:
        b, lin = s[f"bound_{x}_seeds"], s[f"bound_lin_{x}_seeds"]
    else:
        b = [d[width - 1] for d in s[f"bound_{x}_range_draws"]]
        lin = [d[width - 1] for d in s[f"bound_lin_{x}_range_draws"]]
    if no_better_than(b, lin):
        raise verdicts.Undecidable(
            f"in this stand-in no function of the site's scalar {x}_i does better than one coefficient a·{x}_i (best "
            f"function of {x}: {_listed(b)}; a·{x}: {_listed(lin)}, per draw): a net of it cannot show a correction "
            "that depends on its input, whatever it learns.")


def _no_better(s: Numbers, net: str = "gbal", floor: str = "globalg") -> bool:
    """The net's error (mean over the training β, mean over the draws) is not below the single coefficient's by more
    than the draws' spread (s.d. of the net's per-draw errors): it has amortised nothing that depends on the input."""
    return no_better_than(s[f"corr_mean_{net}_seeds"], s[f"corr_mean_{floor}_seeds"])


def ffn_alternatives(tag: str = "gbal", plain: str = "g", blog: str = "mbal", blog_plain: str = "m"
                     ) -> tuple[Alternative, ...]:
    """The readings a referee tries on the feed-forward net of §4.3 (``tag``: f_θ(g) fitted with every training β
    weighted alike): the plain squared-error fit, the blog's net of m, the chapter's factor 2 on the site-shared
    level, and the statistics and ranges of :func:`amortised_alternatives`. Each tag one of the stored nets."""
    for name, value in (("tag", tag), ("plain", plain), ("blog", blog), ("blog_plain", blog_plain)):
        check_choice(name, value, _TAGS)
    band = lambda e: _amortised_grade(e, **AMORTISED)  # noqa: E731

    def floored(stat, net: str = tag, floor: str = "globalg"):
        """The rule with the statistic ``stat(s)``: the stand-in's bound (:func:`blind_stand_in`), then the floor (the
        net ``net`` no better than the single coefficient ``floor`` on the rule's statistic: not reproduced), then the
        band."""
        def rule(s):
            blind_stand_in(s, "m" if floor == "globalm" else "g")
            return "fails" if _no_better(s, net, floor) else band(stat(s))
        return rule

    def factor_two(s):
        floor = float(np.mean(s["corr_mean_shared_seeds"]))
        return "fails" if _no_better(s, tag) else _amortised_grade(_mean_over_draws(s, "mean", tag), floor, 2 * floor)
    return (Alternative("reading: the scalar site state g_i = h_i + Σ_j J_ij m_j, the net f_θ(g_i) (the rule until "
                        "the tenth referee round's last fix: the stand-in's bound, the single-coefficient floor, the "
                        "band)", "reading", ffn_at(tag)(**AMORTISED)),
            Alternative("threshold: the band alone on f_θ(g_i), no single-coefficient floor and no bound (the rule "
                        "until the tenth referee round): reproduced below the site-shared level 0.2, with differences "
                        "below 1", "threshold", straddle_at(tag)(**AMORTISED)),
            Alternative("reading: the two-part stand-in over the range matched to the fresh softmax layer's variation "
                        "of coupling strength (β 0.5 and 0.6 alone, 1.4-fold in β²), the same rule", "reading",
                        two_part_range_at(2)),
            Alternative("reading: the two-part stand-in at a single coupling strength (β = 0.6 alone), the same rule",
                        "reading", two_part_range_at(1)),
            Alternative("reading: the two-part stand-in over β 0.4 to 0.6 (2.25-fold in β²), the same rule", "reading",
                        two_part_range_at(3)),
            Alternative("two-part stand-in, the net's error read on the upper end of its Student-t 95 % interval over "
                        "the draws", "statistic",
                        lambda s: "fails" if _two_part_no_better(s) else _amortised_grade(
                            stats.t_interval(s["two_net_seeds"])["hi"], **AMORTISED)),
            Alternative("threshold: the single-coefficient floor without the stand-in's bound (the net must beat a·g_i "
                        "by more than the draws' spread, else not reproduced; then the band)", "threshold",
                        lambda s: "fails" if _no_better(s, tag) else straddle_at(tag)(**AMORTISED)(s)),
            Alternative("fit: the plain squared error of c = V m (each instance weighs as ‖V m‖² ∝ β⁴, so the largest "
                        "training β decide the fit while the statistic weighs every β alike), the same statistic and "
                        "rule", "reading", straddle_at(plain)(**AMORTISED)),
            Alternative("threshold: the chapter's factor 2 on the site-shared level: reproduced below the best "
                        "site-shared correction's error (mean over the draws), with differences below twice it, not "
                        "reproduced at twice it or above", "threshold", factor_two),
            Alternative(f"reading: {READING_M}, fitted alike (every training β weighted alike)", "reading",
                        floored(lambda s: _mean_over_draws(s, "mean", blog), blog, "globalm")),
            Alternative(f"reading: {READING_M}, fitted by the plain squared error", "reading",
                        floored(lambda s: _mean_over_draws(s, "mean", blog_plain), blog_plain, "globalm")),
            Alternative("statistic: the magnetisations inside the iteration: the net's RMSE of m over naive mean "
                        "field's (median over the training β, mean over the draws), as good as the site-shared net "
                        "given the temperature f(m, β̂²) or not, better than naive or not", "statistic",
                        in_iteration(tag)),
            Alternative("statistic: the median over the in-range β of each β's pooled error", "statistic",
                        floored(lambda s: _mean_over_draws(s, "median", tag))),
            Alternative("statistic: the error pooled over every in-range instance at once (each instance weighted by "
                        "‖V m‖², which grows like β⁴)", "statistic", floored(lambda s: _mean_over_draws(s, "pooled", tag))),
            Alternative("statistic: the median over the in-range test instances", "statistic",
                        floored(lambda s: _mean_over_draws(s, "instance", tag))),
            Alternative("statistic: the upper end of the Student-t 95 % interval over the draws", "statistic",
                        lambda s: (blind_stand_in(s), "fails" if _no_better(s, tag) else _t_upper(tag, band, "mean")(s))[1]),
            Alternative("reading: a narrower range of coupling strengths, the training β but the lowest (0.3 to 0.6), "
                        "the same mean over β", "reading", floored(lambda s: _mean_over_draws(s, "mean_upper", tag))),
            Alternative("reading: at every β of the training range (its worst β, in the worst draw)", "reading",
                        floored(lambda s: max(s[f"corr_worst_{tag}_seeds"]))),
            Alternative("reading: beyond the training range too (the median over β = 0.7 to 0.9)", "reading",
                        floored(lambda s: _mean_over_draws(s, "above", tag))),
            Alternative("reading: the range matched to the fresh softmax layer's own variation of coupling strength "
                        "(1.2-1.3-fold): the stored range of two training β, 0.5 and 0.6 (1.2-fold in β, 1.4-fold in "
                        "β²), the net fitted alike on them alone; the same rule, the bound and a·g_i of that range",
                        "reading", _range_rule(2, band)),
            Alternative("reading: couplings of a single strength (β = 0.6 alone), the net fitted on it; the same rule, "
                        "the bound and a·g_i of that β", "reading", _range_rule(1, band)))


def _range_rule(width: int, band):
    """The rule on the ``width`` largest training β: the stand-in's bound there, then the net against a·g_i of that
    range (by more than the draws' spread of the net), then the band."""
    def rule(s):
        blind_stand_in(s, "g", width)
        net = [d[width - 1] for d in s["range_gbal_draws"]]
        lin = [d[width - 1] for d in s["bound_lin_g_range_draws"]]
        return "fails" if no_better_than(net, lin) else band(float(np.mean(net)))
    return rule


def _two_part_no_better(s: Numbers) -> bool:
    """The two-part net no better than the best linear map of its input by more than the draws' spread of the net."""
    return no_better_than(s["two_net_seeds"], s["two_linear_seeds"])


def two_part_at(tap_level: float, none: float):
    """transformer-ffn-amortises' rule on the two-part site state u_i = (h_i, Σ_j J_ij m_j) (:mod:`.onsager_bound`):
    the stand-in must be able to show it (the best function of u_i below the best linear map a·u_i + b by more than the
    draws' spread of that bound; else not tested), the net must beat that linear map by more than the draws' spread
    of the net (else fails: nothing that depends on the input amortised), and then the band on the net's error (mean
    over the draws): below ``tap_level`` holds, below ``none`` partly (``0 < tap_level < none``)."""
    check_edges("tap_level", tap_level, "none", none, minimum=0.0, open_range=True)

    @finite_rule
    def rule(s):
        _same_draws(s, "two_")
        b, lin = s["two_binned_seeds"], s["two_linear_seeds"]
        if no_better_than(b, lin):
            raise verdicts.Undecidable(f"no function of the two-part site state does better than a linear map of it "
                                       f"(best function {_listed(b)}; linear {_listed(lin)}): the stand-in cannot show it.")
        if _two_part_no_better(s):
            return "fails"
        return _amortised_grade(float(np.mean(s["two_net_seeds"])), tap_level, none)
    return rule


def two_part_range_at(width: int):
    """:func:`two_part_at` (at the chapter's thresholds) on the two-part stand-in fitted on the ``width`` largest
    training β alone (``two_range_*_draws``: per draw, per range from the largest β down; ``width`` >= 1)."""
    check_int("width", width, 1)

    @finite_rule
    def rule(s):
        pick = {f"two_{k}_seeds": [d[width - 1] for d in s[f"two_range_{k}_draws"]] for k in ("linear", "binned", "net")}
        return two_part_at(**AMORTISED)({**s, **pick})
    return rule


@finite_rule   # its wording compares the ranges' ends: a NaN β cannot be read into it
def two_part_range_text(s: Numbers) -> str:
    """The two-part stand-in over each narrower range (mean over the draws of the linear map and the net)."""
    if "two_range_net_draws" not in s:
        return ""
    hi = max(s["train_betas"])
    rows = []
    for i, low in enumerate(s["two_range_low"]):
        lin = float(np.mean([d[i] for d in s["two_range_linear_draws"]]))
        net = float(np.mean([d[i] for d in s["two_range_net_draws"]]))
        rows.append(f"{'β = ' + format(hi, 'g') + ' alone' if low >= hi else f'β {low:g} to {hi:g}'}: linear {lin:.3f}, "
                    f"net {net:.3f}")
    return (" The two-part stand-in over narrower ranges of coupling strength (mean over the draws): " + "; ".join(rows)
            + ": the net beats a linear map of its input clearly only over the wider ranges (the declared readings).")


def two_part_note(s: Numbers) -> str:
    """The two-part stand-in per draw ("" where it is not stored); an empty list of its draws is
    :class:`~mfattn.companion.verdicts.Undecidable` naming it."""
    if "two_net_seeds" not in s:
        return ""
    for key in ("two_linear_seeds", "two_binned_seeds", "two_net_seeds"):
        _draws(s, key)
    return (f" The site state in two parts, the source h_i and the field of the other sites Σ_j J_ij m_j (a "
            f"transformer's X'_i is a d-vector that can keep its parts apart; g_i is their sum), per draw: the best "
            f"linear map a·u_i + b (fitted alike) has error {_listed(s['two_linear_seeds'])}, a binned estimate of the "
            f"best function of u_i (a conditional mean on quantile cells: an upper estimate, finer cells still lower "
            f"it) {_listed(s['two_binned_seeds'])}, the net f_θ(u_i) (the chapter's net and fit, "
            f"every β weighted alike) {_listed(s['two_net_seeds'])}: it does better than any linear map of its input, "
            "so it amortises a correction that depends on the input, between the site-shared level and no correction; "
            "the rule reads this stand-in." + two_part_range_text(s))


def ffn_at(tag: str = "gbal"):
    """transformer-ffn-amortises' rule: the net must beat the best single coefficient a·g_i for every instance and β
    (fitted alike, ``corr_mean_globalg_seeds``) by more than the draws' spread (s.d. of the net's errors): a net that
    does no better has amortised nothing that depends on the input, and fails. Past that floor, :func:`straddle_at`'s
    band: reproduced below ``tap_level``, with differences below ``none``."""
    def factory(tap_level: float, none: float):
        band = straddle_at(tag)(tap_level, none)

        @finite_rule
        def rule(s):
            blind_stand_in(s)
            return "fails" if _no_better(s, tag) else band(s)
        return rule
    return factory


def _range_error(s: Numbers, width: int) -> float:
    """f_θ(g)'s error (fitted with every β weighted alike) on the ``width`` largest training β, mean over the
    draws."""
    if "range_gbal_draws" not in s:
        raise verdicts.Undecidable("the fits on narrower ranges of coupling strength are not stored")
    return float(np.mean([d[width - 1] for d in s["range_gbal_draws"]]))


def range_note(s: Numbers) -> str:
    """How the error of f_θ(g) grows with the range of coupling strengths it is fitted over ("" if not stored; fewer
    than 2 ranges in ``range_low`` is :class:`~mfattn.companion.verdicts.Undecidable` naming it)."""
    if "range_gbal_draws" not in s:
        return ""
    s = finite_numbers(s)   # a NaN or infinity in range_low, train_betas or a draw's errors: Undecidable naming it
    if len(_draws(s, "range_low")) < 2:   # the narrowest stored range is its second entry (_strength_text)
        raise verdicts.Undecidable(f"range_low holds {len(s['range_low'])} range(s) in the stored numbers: the note "
                                   "reads at least 2")
    lows, hi = s["range_low"], max(s["train_betas"])
    means = [float(np.mean([d[i] for d in s["range_gbal_draws"]])) for i in range(len(lows))]
    rows = ", ".join(f"{m:.2f} for β {lo:g} to {hi:g} ({(hi / lo) ** 2:.1f}-fold in β²)" if lo < hi else
                     f"{m:.2f} at β = {hi:g} alone" for lo, m in zip(lows, means))
    below = [lo for lo, m in zip(lows, means) if m < AMORTISED["tap_level"]]
    return (f" The outcome is set by the range of coupling strengths, which the book chose: fitted alike on the "
            f"training β from each one up to {hi:g} and tested on the same β, f_θ(g)'s error (mean over the draws) is "
            f"{rows}; below the site-shared level 0.2 "
            + (f"only down to β = {min(below):g}" if below else "on no range") + "." + _strength_text(s))


def _strength_text(s: Numbers) -> str:
    """How much a softmax layer's coupling strength varies over sites and inputs, against the stored ranges."""
    folds = {x: s[f"strength_fold_{x:g}_seeds"] for x in s.get("sharp_scales", []) if f"strength_fold_{x:g}_seeds" in s}
    if not folds:
        return " How much the coupling strength of a softmax layer varies over its inputs is not measured here."
    return (" The range a transformer's net must span: a site's coupling strength Σ_j A_ij² of the chapter's softmax "
            "layer varies over sites and inputs by a factor (95th over 5th percentile, per draw) of " + "; ".join(
                f"{_listed(v, 2)} with the query map ×{x:g}" for x, v in folds.items())
            + ": at the fresh layer's the net would sit on the site-shared level 0.2, where one coefficient sits too (the "
            "narrowest stored range of two "
            + (f"β, {(max(s['train_betas']) / s['range_low'][1]) ** 2:.1f}-fold, reads "
               f"{np.mean([d[1] for d in s['range_gbal_draws']]):.2f}" if "range_gbal_draws" in s else "β")
            + "), with sharper attention within or beyond the ninefold range the verdict reads.")


def ffn_note(s: Numbers, tag: str = "gbal", plain: str = "g") -> str:
    """The feed-forward net's two fits: the one the rule reads (every training β weighted alike) per draw and per β,
    inside the iteration, and the plain squared-error fit with where its draws sit against the line at 1. A stored
    ``corr_mean_<tag>_seeds`` that is empty is :class:`~mfattn.companion.verdicts.Undecidable` naming it."""
    text = ""
    d = _draws(s, f"corr_mean_{tag}_seeds") if f"corr_mean_{tag}_seeds" in s else None
    if d:
        text += (f" The net of the naive update's sum g_i fitted with every training β weighted alike, f_θ(g) (a declared "
                 f"reading: the scalar stand-in): error "
                 f"{_listed(d)} (mean over the training β, per draw), against the best site-shared correction "
                 f"{_listed(s['corr_mean_shared_seeds'])} and no correction 1; at its worst β "
                 f"{_listed(s[f'corr_worst_{tag}_seeds'], 2)}, above the range {_listed(s[f'corr_above_{tag}_seeds'], 2)}")
        if f"corr_beta_{tag}" in s:
            inside = [(b, e) for b, e in zip(s["test_betas"], s[f"corr_beta_{tag}"])
                      if min(s["train_betas"]) - 1e-9 <= b <= max(s["train_betas"]) + 1e-9]
            text += "; per training β (first draw) " + ", ".join(f"{e:.2f} (β = {b:g})" for b, e in inside)
        if f"merr_median_{tag}_seeds" in s:
            text += (f"; inside the iteration its error of m is {_listed(s[f'merr_median_{tag}_seeds'], 2)} of naive "
                     "mean field's (median over the training β)")
        if "corr_mean_mbal_seeds" in s:
            text += f"; the blog's net of m fitted alike {_listed(s['corr_mean_mbal_seeds'])}"
        text += (": a net of one site's naive update removes part of the correction over couplings whose strength "
                 "changes, not the site-shared level a correction that knows the coupling strength reaches.")
        if "corr_mean_globalg_seeds" in s:
            text += (f" It does no better than one coefficient for every instance and β: the best single a·g_i "
                     f"(fitted alike) has error {_listed(s['corr_mean_globalg_seeds'])}, a·m_i "
                     f"{_listed(s['corr_mean_globalm_seeds'])}, so what the net learns is a global Onsager "
                     "coefficient, not a correction that depends on the input." + (
                         f" Nor can any function of g_i in this stand-in: the best one (a binned conditional mean, "
                         f"fitted alike; mfattn.implicit.onsager_bound) has error {_listed(s['bound_g_seeds'])}, of "
                         f"m_i {_listed(s['bound_m_seeds'])}, so the net reaches all that its scalar input allows and "
                         "the stand-in cannot decide the claim (the band alone, the rule until the tenth referee round, "
                         "reads it 'with differences'; the single-coefficient floor without the bound, 'not "
                         "reproduced'). A transformer's X'_i is a d-vector, which may carry what a scalar g_i cannot."
                         if "bound_g_seeds" in s else ""))
    p = s.get(f"corr_mean_{plain}_seeds")
    if p and len(p) > 1:
        mean, sd = float(np.mean(p)), float(np.std(p, ddof=1))
        text += (f" Fitted by the plain squared error of c = V m instead, which weighs each instance by ‖V m‖² ∝ β⁴ (β = "
                 f"0.2 carries about 1 % of the loss while the statistic weighs every β alike), f_θ(g)'s error is "
                 f"{_listed(p, 4)} (mean {mean:.4f}, s.d. {sd:.4f}): its draws "
                 + ("straddle the line of no correction at 1, so that fit cannot decide the claim"
                    if min(p) < 1 <= max(p) else f"lie {'above' if mean >= 1 else 'below'} the line at 1")
                 + "; its failure at the lowest β is the loss's weighting, not the net's input.")
    return text


def ffn_numbers(s: Numbers) -> dict[str, Any]:
    """The feed-forward claim's numbers: the rule's fit (every β alike) beside the plain fit and the blog's net."""
    _same_draws(s, "corr_", "two_")
    out = amortised_numbers(s)
    for key in ("two_net", "two_linear", "two_binned"):
        if f"{key}_seeds" in s:
            out[key] = float(f"{float(np.mean(s[f'{key}_seeds'])):.3g}")
    for tag in ("gbal", "mbal"):
        if f"corr_mean_{tag}_seeds" in s:
            out[f"corr_mean_{tag}"] = float(f"{_mean_over_draws(s, 'mean', tag):.3g}")
    return out


from ..companion.stored_views import guard_claims  # noqa: E402  (last: it wraps what this module defines)

guard_claims(globals())   # public functions read the stored numbers through a checked view
