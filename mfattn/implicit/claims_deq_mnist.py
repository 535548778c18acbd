"""Chapter 2's claims on the MNIST model and its variant table (Bal 2021, §3.4 and §4.4): the accuracy, the
solver, the implicit gradient, the learned correction and the other couplings, each decided from the stored
full-protocol runs of three seeds (:mod:`.claims_deq_numbers`); :mod:`.claims` gathers them into ``DECLARED``.

One reading runs through them: **where f_θ acts.** The blog's displayed update (§3.4, eq. diaupdate) corrects the
means, ⟨S_i⟩ = Σ_j J_ij ⟨S_j⟩ − f_θ(⟨S_i⟩) + X_i; the reference code at the commit that added the MNIST example
(mcbal/deep-implicit-attention 6c9687d, 3 May 2021, ``spin_mean - self.correction(spin_mean)`` after adding the
sources) corrects the naive update g_i = Σ_j J_ij m_j + X_i, and moved to m four days later (e7d7258). The book's
blog model is the code's (g); the variant "m" is stored with the same protocol and seeds, so each claim on the blog
model is decided on it too (an alternative of kind "reading"; a change of verdict there makes the verdict fragile).
"""

from __future__ import annotations

import numpy as np

from mfattn.companion import stats, verdicts
from mfattn.companion.premises import Alternative, Quote, Spread, Threshold
from mfattn.companion.verdicts import Claim
from mfattn.structural.claims_rules import same_units

from .claims_deq_numbers import ACCURACY_BAND, BAL, BLOG_ACCURACY, _band_check
from .claims_deq_seeds import down, measured, shown, up
from .claims_deq_couplings import MIXER, SWAP, _coupling_claim, _reliability_claim
from .claims_deq_plain import damped_plain, damped_text
from .claims_deq_layer import READING_G, READING_M
from .claims_deq_onsager import fixed_effect_interval, learned_onsager_claim  # noqa: F401 (re-exported)

__all__ = ["MNIST_CLAIMS", "READING_G", "READING_M"]

TD = "tests/test_deq.py::"
TV = "tests/test_variants.py::"
TC = "tests/test_implicit_claims.py::"
TP = "tests/test_deq_premises.py::"
MNIST_SECTION = "3.4. Fast and neural: parametrizing the Onsager selfcorrection term (Simple example: MNIST)"


# --- the accuracy --------------------------------------------------------------------------------------------------

def _accuracy_at(band: float, near: float, key: str = "acc_mean"):
    def rule(s):
        off = abs(s[key] - BLOG_ACCURACY)
        return "holds" if off <= band else "partly" if off <= near else "fails"
    return rule


def _t_band(s):
    t = stats.t_interval(s["acc_list"])
    off = max(abs(t["lo"] - BLOG_ACCURACY), abs(t["hi"] - BLOG_ACCURACY))
    return "holds" if off <= ACCURACY_BAND else "partly" if off <= 1.0 else "fails"


def _accuracy_note(s):
    return (f"Full protocol (20 epochs, all 60,000 digits), {s['seeds']} seeds on CPU: {s['accs']}; mean "
            f"{s['acc_mean']:.2f} % ± {s['acc_sd']:.2f} (s.d. over seeds), every seed at least {down(s['acc_min'])} %. "
            f"Protocol (Adam 5e-4, batch 60, 20 epochs) from the reference code's examples/mnist.py at 6c9687d, not the "
            f"blog's text. With f_θ on m (the blog's displayed update): {s['var_m_accs']} (mean {s['var_m']:.2f} %)."
            + (f" Without the mean-field layer, a separate model of the same conv front end with a linear map of the "
               f"16 flattened tokens (trained end to end, the same protocol and seeds) reaches {', '.join(f'{x:.2f}' for x in s['floor_flat_acc_list'])} % (mean "
               f"{s['floor_flat']:.2f} %), mean-pooled {', '.join(f'{x:.2f}' for x in s['floor_mean_acc_list'])} %: "
               f"the layer adds {s['acc_mean'] - s['floor_flat']:.2f} points to a linear readout of its front end, so "
               f"most of the 99.1 % is reached by the convolutional front end alone." if s.get("floor_flat_acc_list") else ""))


# --- the solver ----------------------------------------------------------------------------------------------------

def _share_sd(key: str):
    """A threshold's noise: the s.d. over the seeds of the share ``key`` the rule reads (None for one seed)."""
    def noise(s):
        x = s.get(key) or []
        return float(np.std(x, ddof=1)) if len(x) > 1 and np.std(x) > 0 else None
    return noise


def _anderson_at(reliable: float, most: float, key: str = "blog"):
    def rule(s):
        low = s[f"var_{key}_conv_min"]
        return "holds" if low >= reliable else "partly" if low >= most else "fails"
    return rule


def _late_anderson_at(reliable: float, most: float):
    """The primary rule of deq-anderson: the worst seed's share of forward-solve samples at tolerance over the last
    quarter of training (where the couplings are largest and the share lowest)."""
    return lambda s: _anderson_at(reliable, most, "a")({"var_a_conv_min": min(s["blog_conv_late_seeds"])})


#: The least Anderson must find for the comparison to have a reference at all: the fixed point in most steps
#: (deq-anderson's own "with differences" line).
PLAIN_CONTROL_MOST = 0.5


def _plain_at(anderson: float, plain: float):
    """Anderson is the comparison's positive control: where it misses the fixed point itself in most steps (below
    :data:`PLAIN_CONTROL_MOST` in some seed), plain iteration doing worse or as badly says nothing about the claim, so
    the rule cannot decide (Undecidable) rather than refute. Holds if Anderson reaches ``anderson`` and plain iteration
    stays below ``plain`` in every seed; partly if plain iteration converges less often than Anderson in every seed
    but one of those lines is missed; fails if as often."""
    def rule(s):
        a, p = s["blog_conv_min"], s["plain_conv_max"]
        if a < PLAIN_CONTROL_MOST:
            raise verdicts.Undecidable(f"Anderson itself reaches the tolerance in only {a:.0%} of the solves of its "
                                       f"worst seed (below {PLAIN_CONTROL_MOST:.0%}): the comparison's reference does "
                                       f"not find the fixed point either")
        if p >= a:
            return "fails"
        return "holds" if a >= anderson and p < plain else "partly"
    return rule


def _late(s) -> dict:
    """The shares over the last quarter of training (epochs 16 to 20), as deq-anderson reads them: Anderson's worst
    seed and plain iteration's best (an empty list of seeds: :class:`~mfattn.companion.verdicts.Undecidable` naming
    it)."""
    for key in ("blog_conv_late_seeds", "var_plain_conv_late_seeds"):
        if not s[key]:
            raise verdicts.Undecidable(f"{key} is an empty list in the stored numbers: no seed to read")
    same_units(s, "blog_conv_late_seeds", "var_plain_conv_late_seeds")
    return {"blog_conv_min": min(s["blog_conv_late_seeds"]), "plain_conv_max": max(s["var_plain_conv_late_seeds"])}


def _plain_late_at(anderson: float, plain: float):
    rule = _plain_at(anderson, plain)
    return lambda s: rule(_late(s))


def _plain_on_m(s):
    raise verdicts.Undecidable("plain iteration was not trained with f_θ on m (3 runs of about 7 CPU-min each)")


def _same_weights(s):
    """On the blog model's own trained layer (seed 0, 1,000 test digits): Anderson's share of solves at tolerance, and
    the share of digits whose fixed point repels plain iteration (ρ(∂f/∂m) > 1: a theorem, not a budget)."""
    control = s["blog_anderson_converged_40_seeds"][0] if "blog_anderson_converged_40_seeds" in s else \
        s["blog_anderson_converged"]   # at the blog's 40 evaluations where stored (before: at 100)
    if control < PLAIN_CONTROL_MOST:           # the positive control failed: nothing to compare with
        raise verdicts.Undecidable(f"Anderson reaches the tolerance on only {control:.0%} of the test digits of seed "
                                   f"0's trained layer at 40 evaluations")
    if s["rho_blog_unstable"] == 0:
        return "fails"
    return "holds" if s["rho_blog_unstable"] > 0.5 and control >= 0.9 else "partly"


def _anderson_note(s):
    text = ("With the solver the quoted line configures, the public code's (history 5, absolute ridge), the claim is "
            "refuted: a declared reading (0 % of the analysed steps at tolerance over the last quarter). " if
            "ref_anderson_conv_last_seeds" in s and max(s["ref_anderson_conv_last_seeds"]) == 0 else "") + (
        f"Forward solves that reached the tolerance over training, per seed: Anderson {s['var_blog_convs']} (blog "
        f"model, f_θ on g); with f_θ on m, the blog's displayed update, {s['var_m_convs']}: there the solver misses "
        f"the fixed point in about half of the training steps" + (
            " and in almost every step of the last quarter (" + ", ".join(
                f"{100 * v:.1f} %" for v in s["var_m_conv_late_seeds"]) + " at tolerance)"
            if "var_m_conv_late_seeds" in s else "") + ".")
    if "ref_anderson_conv_seeds" in s:
        pct = lambda key: ", ".join(f"{100 * v:.0f} %" for v in s[key])  # noqa: E731
        text += (f" The public code's own Anderson (history 5, absolute ridge 1e-4, one residual per batch), on the "
                 f"same weights kept every 1000 steps, test batches of 60: at tolerance in {pct('ref_anderson_conv_seeds')}"
                 f" of the analysed steps per seed ({pct('ref_anderson_conv_last_seeds')} over the last quarter), first "
                 f"missing at step {', '.join(f'{v:.0f}' for v in s['ref_anderson_first_miss_seeds'])}; its median "
                 f"residual at the end {', '.join(f'{v:.1e}' for v in s['ref_anderson_residual_final_seeds'])}: the "
                 f"history length and the absolute ridge decide whether the solver reaches the tolerance at all "
                 f"once the couplings have grown, not only how fast (the batch-pooled residual only decides when it "
                 f"stops; a referee scoring the public solver per sample found it at tolerance on 0 to 0.7 % of the "
                 f"final layers' samples). The tolerance is what the rule counts, not the answer: stopped at residuals "
                 f"near 1e-3 to 1e-2, the public solver's classes can still be the fixed point's (a referee found them "
                 f"equal on every test digit they checked of each seed's final layer, 480 to 1,200 of them; not stored), so "
                 f"read by the answer both solvers would be "
                 f"confirmed.")
    if "blog_conv_last_epoch_seeds" in s:
        text += (" Over training as a whole, not at its end: the share falls after the first half of training, to "
                 + ", ".join(f"{100 * v:.1f} %" for v in s["blog_conv_last_epoch_seeds"]) + " in the last epoch and "
                 + ", ".join(f"{100 * v:.1f} %" for v in s["blog_conv_late_seeds"]) + " over the last quarter")
        if "blog_anderson_converged_40_seeds" in s:
            text += (", and on the final trained layers at the blog's 40 evaluations it brings "
                     + ", ".join(f"{100 * v:.1f} %" for v in s["blog_anderson_converged_40_seeds"])
                     + " of 1,000 test digits to tolerance (with 100 evaluations: "
                     + ", ".join(f"{100 * v:.0f} %" for v in s["blog_anderson_converged_seeds"]) + "); a referee's own "
                     "textbook Anderson of the same history (a relative ridge, each sample stopped on its own) brought "
                     "53, 96 and 59 % of them to tolerance within 40 evaluations (not stored): how far above the half "
                     "line the final layers sit depends on the solver's details, not only on the layer")
        text += "."
    return text


def _plain_note(s):
    control = ""
    if "var_plain_conv_late_seeds" in s:
        control = (f"Over the last quarter of training, the rule's reading: Anderson "
                   f"{', '.join(f'{100 * x:.1f} %' for x in s['blog_conv_late_seeds'])}, plain iteration "
                   f"{', '.join(f'{100 * x:.1f} %' for x in s['var_plain_conv_late_seeds'])} per seed: Anderson misses "
                   f"the 90 % line in its worst seed, as in deq-anderson, so the comparison holds with differences; over "
                   f"training as a whole it holds without them. The tolerance is what is counted: a solve stopped above "
                   f"it can still give the fixed point's answer (the digits' classes), which this rule does not read. ")
    return control + (f"Forward solves that reached the tolerance over training, per seed: plain iteration {s['plain_convs']} "
            f"(at most {up(100 * s['plain_conv_max'], 0)} %), Anderson at least {down(100 * s['blog_conv_min'], 0)} % "
            f"in every seed. The plain-iteration models end at {s['var_plain_accs']} against {s['var_blog']:.2f} % "
            f"(blog model, mean); the blog model's paired gain over them pooled over seeds is {s['gain_plain_text']}: "
            f"how far a seed gets before its couplings leave the contracting regime varies too much for three seeds to "
            f"size the gap, so convergence decides. In seed 0 the divergence guard stops the forward solves after "
            f"{s['plain_fwd']:.1f} evaluations on average, the adjoint after {s['plain_bwd']:.1f}; training loss "
            f"{s['plain_loss']:.3g}. Plain iteration was not trained with f_θ on m." + damped_text(s))



# --- the implicit gradient -----------------------------------------------------------------------------------------

def _gradient_at(exact: float, direction: float):
    def rule(s):
        error = s["grad_rel_error"]            # missing: "not tested", the stored numbers predate the check
        if not s["grad_converged"]:
            raise verdicts.Undecidable("a forward solve of the gradient check did not reach its tolerance: no fixed "
                                       "point to differentiate there")
        return "holds" if error <= exact else "partly" if error <= direction else "fails"
    return rule


def _fd_floor_check(s):
    """Central differences with ε = 1e-5 carry a relative error of order ε² + 1e-12/ε = 1e-7 (the solves' tolerance
    over ε): the stored difference must sit at that floor (within a decade), so the reason describes the data."""
    err, floor = s["grad_rel_error"], 1e-12 / 1e-5
    ok = floor / 10 < err < floor * 10
    return ok, f"stored difference {err:.2e} against the finite-difference floor {floor:.0e}: " + (
        "at the floor, so the tolerance 1e-4 sits three decades above what the check can resolve" if ok else
        "not at the floor the reason names")


def _implicit_gradient_note(s):
    check = (f"On the trained layer of seed 0 the implicit gradient differs from finite differences by "
             f"{s['grad_rel_error']:.1e} (relative, {s['grad_digits']:.0f} test digits). " if s.get("grad_rel_error")
             is not None else "The trained layer's gradient check is not stored yet; the tests find the implicit "
             "gradient exact against finite differences on small layers. ")
    phantom = (f"The one-step phantom gradient (τ = 1) trains to {s['var_phantom_accs']} (mean {s['var_phantom']:.2f} %) "
               f"against {s['var_blog']:.2f} % (blog model); the blog model's paired gain pooled over seeds: "
               f"{s['gain_phantom_text']}: exactness matters in training." if "var_phantom" in s else "")
    return check + phantom


# --- the learned correction ----------------------------------------------------------------------------------------

MNIST_CLAIMS = [
    Claim("deq-mnist-accuracy", f"{BAL}, MNIST experiment",
          "The 26k-parameter deep-implicit-attention model reaches about 99.1 % test accuracy on MNIST",
          measured="Test accuracy on the 10,000 MNIST test digits after the blog's protocol (20 epochs, all 60,000 "
                   "training digits, Adam 5e-4, batch 60: the reference code's examples/mnist.py), mean over 3 seeds",
          quote=Quote(MNIST_SECTION, "You can train this small model (26k parameters) on MNIST to find a test set "
                                     "accuracy hovering around 99.1%."),
          reading=READING_G, rule_at=_accuracy_at,
          how="Holds if the mean over seeds lies within 0.3 points of the blog's 99.1 %: three binomial standard errors "
              "of a 10,000-digit accuracy near 99.1 % (3 × 0.094 = 0.28 points, the noise of the blog's single run: the "
              "stored seeds spread less than one such SE), rounded up to the blog's one decimal; within 1 point, with "
              "differences (a convention: still a 98 %+ classifier, the class the claim puts the model in, but off the "
              "stated number); further, it fails.",
          thresholds=(Threshold("band", ACCURACY_BAND, "resolution", "three binomial SEs of a 10,000-digit accuracy "
                                "at 99.1 % (0.28), rounded up to the blog's one decimal; the seeds spread less than "
                                "one SE", _band_check, noise=measured("acc_sd")),
                      Threshold("near", 1.0, "convention", "a 98 %+ classifier, the class the claim puts the model in, "
                                "but off the stated number")),
          alternatives=(Alternative("median over the seeds", "statistic", _accuracy_at(ACCURACY_BAND, 1.0, "acc_median")),
                        Alternative("every seed: the worst seed decides", "unit", lambda s: max(
                            (_accuracy_at(ACCURACY_BAND, 1.0, "a")({"a": a}) for a in s["acc_list"]),
                            key=verdicts.GRADES.index)),
                        Alternative("Student-t interval over the seeds inside the band", "statistic", _t_band),
                        Alternative(f"{READING_M}: mean over its seeds", "reading",
                                    _accuracy_at(ACCURACY_BAND, 1.0, "var_m"))),
          spread=Spread("seed", lambda s: {"accuracy (%)": s["acc_list"]}),
          evidence=("fig-deq-full-cpu", "fig-deq-mnist-training",
                    "tests/test_models.py::test_short_training_with_todays_code_reaches_the_pinned_loss_and_accuracy",
                    "tests/test_models.py::test_stored_full_protocol_reaches_the_blog_accuracy"),
          note=_accuracy_note, numbers=shown("acc_mean", "acc_sd", "acc_min", "acc_max", digits=4),
          examples={"holds": {"acc_mean": 99.39}, "partly": {"acc_mean": 99.41}, "fails": {"acc_mean": 98.09}}),
    Claim("deq-anderson", f"{BAL}'s MNIST configuration (Anderson, 40 evaluations, tolerance 1e-4; our test of it)",
          "Anderson acceleration with the blog's budget (at most 40 evaluations, tolerance 1e-4), as this book "
          "implements it (a history of 8, each sample stopped on its own, a ridge scaled to the residuals), finds the "
          "layer's fixed point during training, read over the last quarter of training, where the couplings are "
          "largest and the share lowest (training as a whole, the last epoch and the final layer are declared "
          "readings). The finding depends on the solver and on where f_θ acts: the public code's own Anderson, which "
          "the blog's configuration line sets up, does not reach the tolerance (decided apart: deq-anderson-public), "
          "and with f_θ acting on m (the blog's displayed update) this book's does not either (a declared reading)",
          measured="Fraction of the forward-solve samples over the last quarter of training (epochs 16 to 20; each "
                   "training digit's solve, 60 per step) that reach the layer's tolerance (1e-4) within 40 "
                   "evaluations, per seed (3 seeds), for the blog model", origin="ours",
          quote=Quote(MNIST_SECTION, "anderson, solver_fwd_max_iter=40, solver_fwd_tol=1e-4,"),
          reading=READING_G, rule_at=_late_anderson_at,
          how="Read over the last quarter of training: the share falls as the couplings grow, so the whole of "
              "training would average the easy early phase in (a referee's point; it is a declared reading). Confirmed "
              "if Anderson brings at least 90 % of the forward solves to tolerance in every seed (a convention: a "
              "solver that misses more than one solve in ten does not reliably find the point); with differences if "
              "at least half in every seed (it finds the point in most steps); refuted if fewer in some seed. The quoted line is the blog's configuration of its MNIST model, not a statement that the solver "
              "finds the fixed point: the claim is ours, built on that configuration.",
          thresholds=(Threshold("reliable", 0.9, "convention", "a solver that misses more than one solve in ten does "
                                "not reliably find the fixed point", noise=_share_sd("blog_conv_late_seeds")),
                      Threshold("most", 0.5, "convention", "it finds the fixed point in most of the training steps")),
          alternatives=(Alternative(f"{READING_M}: the model trained so, every seed", "reading",
                                    _anderson_at(0.9, 0.5, "m")),
                        Alternative("mean over the seeds instead of the worst seed", "statistic",
                                    lambda s: _anderson_at(0.9, 0.5, "a")(
                                        {"var_a_conv_min": sum(s["blog_conv_late_seeds"]) / len(s["blog_conv_late_seeds"])})),
                        Alternative("training as a whole (the rule before the seventh referee round): the worst seed's "
                                    "share over all 20 epochs", "reading", _anderson_at(0.9, 0.5)),
                        Alternative("the public code's own Anderson (history 5, absolute ridge 1e-4, one residual per "
                                    "batch; mfattn.implicit.reference_solver) on each seed's weights kept every 1000 "
                                    "steps, test batches of 60 (1,000 digits): its share of batches at tolerance over "
                                    "training, the worst seed", "reading",
                                    lambda s: _anderson_at(0.9, 0.5, "a")(
                                        {"var_a_conv_min": min(s["ref_anderson_conv_seeds"])})),
                        Alternative("at test time on each seed's trained layer (1,000 digits) at the blog's 40 "
                                    "evaluations: the worst seed", "unit",
                                    lambda s: _anderson_at(0.9, 0.5, "a")(
                                        {"var_a_conv_min": min(s["blog_anderson_converged_40_seeds"])})),
                        Alternative("the last epoch of training (1,000 steps), the worst seed", "reading",
                                    lambda s: _anderson_at(0.9, 0.5, "a")(
                                        {"var_a_conv_min": min(s["blog_conv_last_epoch_seeds"])}))),
          spread=Spread("seed", lambda s: {"converged share over the last quarter, f_θ on g": s["blog_conv_late_seeds"],
                                           "converged share, f_θ on g": s["var_blog_conv_list"],
                                           "converged share, f_θ on m": s["var_m_conv_list"]}),
          evidence=("fig-deq-mnist-training", TD + "test_linear_deq_matches_closed_form_and_its_gradients",
                    TC + "test_the_anderson_verdict_rests_on_convergence_in_every_seed"),
          note=_anderson_note,
          numbers=lambda s: {"blog_conv_late_min": float(f"{min(s['blog_conv_late_seeds']):.3g}"),
                             **shown("var_blog_conv_min", "var_m_conv_min", "var_blog_conv_sd")(s)},
          examples={"holds": {"blog_conv_late_seeds": [0.9, 0.95]}, "partly": {"blog_conv_late_seeds": [0.5, 0.95]},
                    "fails": {"blog_conv_late_seeds": [0.49, 0.95]}}),
    Claim("deq-anderson-plain", f"{BAL}'s solver against plain iteration (our comparison)",
          "Plain iteration with the same budget (40 evaluations) does not find the layer's fixed point during training, "
          "where Anderson acceleration does",
          measured="Fraction of the forward solves over the last quarter of training (epochs 16 to 20, as deq-anderson "
                   "reads them) that reach the layer's tolerance (1e-4) within 40 evaluations, per seed (3 seeds): the "
                   "blog model (Anderson) and the model trained with plain iteration",
          origin="ours", reading=READING_G, rule_at=_plain_late_at,
          quote=Quote("1. Introduction", "We use deep equilibrium models to solve a set of self-consistent mean-field "
                                         "equations"),
          how="Read over the last quarter of training, where the couplings are largest, as deq-anderson is (training "
              "as a whole is a declared reading). Confirmed if Anderson brings at least 90 % of the forward solves to "
              "tolerance in every seed and plain iteration fewer than half in every seed (conventions: it does not "
              "find the point); with differences if plain iteration converges less often than Anderson in every seed "
              "but one of those lines is missed (Anderson below 90 % in some seed, or plain iteration at half or more); "
              "refuted if plain iteration converges as often. Not tested if Anderson itself stays below half in some "
              "seed (the comparison's positive control failed: no reference to compare with). The budget is the same only nominally: the divergence guard stops plain "
              "iteration's solves long before 40 evaluations (the note), so what separates the two is that plain "
              "iteration diverges, not that it runs out of budget.",
          thresholds=(Threshold("anderson", 0.9, "convention", "a solver that misses more than one solve in ten does "
                                "not reliably find the fixed point", noise=_share_sd("blog_conv_late_seeds")),
                      Threshold("plain", 0.5, "convention", "a solver that misses most solves does not find the fixed "
                                "point", noise=_share_sd("var_plain_conv_late_seeds"))),
          alternatives=(Alternative(f"{READING_M}", "reading", _plain_on_m),
                        Alternative("the same weights: on the blog model's own trained layer (seed 0), Anderson at "
                                    "tolerance and the fixed point repelling plain iteration (ρ(∂f/∂m) > 1)", "reading",
                                    _same_weights),
                        Alternative("damped plain iteration (damping 0.5 and 0.25; the undamped iteration the variant "
                                    "trains with diverges where ρ(∂f/∂m) > 1, a damped one need not), 40 evaluations, "
                                    "on every seed's trained blog layer (1,000 test digits)", "reading", damped_plain),
                        Alternative("means over the seeds instead of the worst seeds", "statistic",
                                    lambda s: _plain_at(0.9, 0.5)({"blog_conv_min": float(np.mean(s["blog_conv_late_seeds"])),
                                                                    "plain_conv_max": float(np.mean(s["var_plain_conv_late_seeds"]))})),
                        Alternative("training as a whole (the rule before the ninth referee round), the worst seeds",
                                    "reading", _plain_at(0.9, 0.5)),
                        Alternative("Anderson's positive control on the final trained layers at the blog's 40 "
                                    "evaluations (1,000 test digits per seed), against damped plain iteration there",
                                    "reading",
                                    lambda s: _plain_at(0.9, 0.5)(
                                        {"blog_conv_min": min(s["blog_anderson_converged_40_seeds"]),
                                         "plain_conv_max": max(max(a, b) for a, b in zip(
                                             s["plain_damped_50_converged_seeds"], s["plain_damped_25_converged_seeds"]))}))),
          spread=Spread("seed", lambda s: {"converged share, last quarter, Anderson": s["blog_conv_late_seeds"],
                                           "converged share, last quarter, plain": s["var_plain_conv_late_seeds"],
                                           "converged share, training, Anderson": s["var_blog_conv_list"],
                                           "converged share, training, plain": s["var_plain_conv_list"]}),
          evidence=("fig-deq-solvers", "fig-deq-stability", TD + "test_anderson_needs_far_fewer_iterations_than_plain_near_rho_097",
                    TC + "test_the_anderson_verdict_rests_on_convergence_in_every_seed"),
          note=_plain_note, numbers=shown("plain_conv_max", "blog_conv_min", "var_plain", "var_plain_sd",
                                          "var_plain_min", "var_plain_max", "var_blog"),
          examples={"holds": {"blog_conv_late_seeds": [0.9, 0.95], "var_plain_conv_late_seeds": [0.49, 0.1]},
                    "partly": {"blog_conv_late_seeds": [0.89, 0.95], "var_plain_conv_late_seeds": [0.1, 0.1]},
                    "fails": {"blog_conv_late_seeds": [0.95, 0.96], "var_plain_conv_late_seeds": [0.95, 0.1]}}),
    Claim("deq-implicit-gradient", f"{BAL} (implicit differentiation of the fixed point, after Bai et al. 2019)",
          "Gradients through the fixed point follow from the implicit function theorem (an adjoint fixed point), "
          "without backpropagating through the solver",
          measured="Largest relative difference between the trained layer's implicit gradient and central finite "
                   "differences of its loss (seed 0 after 20 epochs, float64, forward and adjoint solved to 1e-12, "
                   "100 test digits, 4 random directions over all parameters); beside it, the accuracy of the model "
                   "trained with the crudest phantom gradient (one step, τ = 1: ∂f/∂θ at the fixed point, not the "
                   "tuned phantom gradients of Geng et al. 2021 with several damped steps)",
          quote=Quote(MNIST_SECTION, "solver_bwd_max_iter=40, solver_bwd_tol=1e-4,"), rule_at=_gradient_at,
          origin="ours",   # the blog configures a backward solver and cites Bai et al.; it states no theorem
          reading="ours, built on the blog's configuration of a backward (adjoint) solver and its citation of deep "
                  "equilibrium models (Bai et al. 2019): the blog states no theorem; the claim is that its layer's "
                  "gradients are those of the implicit function theorem",
          how="Finite differences with ε = 1e-5 carry a relative error of order ε² plus the solves' 1e-12/ε = 1e-7 (the "
              "stored difference sits at that floor): reproduced if the difference is at most 1e-4 with every solve "
              "converged (the implicit gradient is the gradient of the trained layer, ρ(J_f) > 1 included); at most "
              "1e-2, with differences (a convention: right in direction, inexact); larger, not reproduced. Not tested "
              "where a solve of the check did not converge (no fixed point to differentiate). One trained layer "
              "suffices: the gradient is an identity of any layer whose I − J_f is invertible at a converged fixed "
              "point, not a statistic over seeds. The blog's code solves the adjoint fixed point (its backward solver); "
              "the theorem is Bai et al.'s (2019), which the blog cites. The phantom comparison only says whether "
              "exactness matters in training; it does not decide the claim.",
          thresholds=(Threshold("exact", 1e-4, "round-off", "three decades above the finite-difference floor "
                                "ε² + 1e-12/ε = 1e-7 at which the stored difference sits", _fd_floor_check,
                                noise=10.0, log=True),
                      Threshold("direction", 1e-2, "convention", "an inexact gradient still right in direction",
                                noise=10.0, log=True)),
          spread=Spread("trained layer", lambda s: {"grad_rel_error": [s["grad_rel_error"]]},
                        one_suffices="the implicit-function-theorem gradient is exact for any layer whose I − J_f is "
                                     "invertible at a converged fixed point: an identity checked on one trained layer "
                                     "(and on small layers by the tests), not a statistic over seeds"),
          evidence=(TD + "test_gradcheck_with_respect_to_parameters_of_a_nonlinear_deq",
                    TD + "test_closed_form_adjoint_map_gives_the_closed_form_gradients",
                    "tests/test_stability.py::test_gradient_check_finds_the_implicit_gradient_exact_and_a_phantom_one_wrong",
                    TD + "test_phantom_gradient_is_the_truncated_neumann_series", "fig-deq-full-cpu"),
          note=_implicit_gradient_note,
          numbers=lambda s: {k: float(f"{s[k]:.3g}") for k in ("grad_rel_error", "var_phantom", "var_blog", "gain_phantom",
                                                               "gain_phantom_lo", "gain_phantom_hi") if s.get(k) is not None},
          examples={"holds": {"grad_rel_error": 1e-4, "grad_converged": True},
                    "partly": {"grad_rel_error": 1e-2, "grad_converged": True},
                    "fails": {"grad_rel_error": 0.011, "grad_converged": True}}),
    learned_onsager_claim(),
    _coupling_claim("softmax", "softmax couplings", "couplings computed from the sources by softmax attention, "
                    "J_ij = softmax_j(q_i·k_j/√d) W_O W_V with f_θ on g (the public code's DEQVanillaSoftmaxAttention "
                    "has no value map, a biased W_O and f_θ on m: this book's variant is the blog model's layer with "
                    "its couplings swapped),", SWAP),
    _coupling_claim("mixer", "MLP-mixer couplings", "an MLP mixing the sites (MLP-mixer)", MIXER),
    _reliability_claim("softmax", "softmax couplings"),
    _reliability_claim("mixer", "MLP-mixer couplings"),
]


from ..companion.stored_views import guard_claims  # noqa: E402  (last: it wraps what this module defines)

guard_claims(globals())   # public functions read the stored numbers through a checked view
