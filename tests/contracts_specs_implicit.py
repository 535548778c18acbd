"""Contract specs of ``mfattn.implicit`` (chapters 2-3), see contracts_registry.py."""

from __future__ import annotations

import numpy as np
import torch
from hypothesis import strategies as st

from contracts_registry import Exempt, Spec
from contracts_specs_foundations import RESULT, gen, randn, rng, seed
from contracts_strategies_a import (RunPlaceholder, in_tmp, is_type, mnist_present, root_choice, stored, tmpdir,
                                    variant_table, with_run)

I = "mfattn.implicit."
FIG = "draws a figure from stored run histories (their producers are generated or tested)"
STORED = "reads stored results/runs (chapter 2-3 summaries); its inputs are package-made"
CLI = "a command-line entry point: its user errors are the CLI rows of tests/test_bad_inputs.py"
MNIST_NEEDED = "needs the MNIST data set and minutes of training; its options are checked by TrainConfig"


def layer(d, softmax=False, n=3, dim=2, lin=False):
    from mfattn.implicit.meanfield import MeanFieldAttention

    opts = {"interaction": "softmax", "lin_response": lin, "symmetry": None} if softmax else {}
    return MeanFieldAttention(n, dim, generator=gen(d), **opts).double()


def src(d, n=3, dim=2, B=2):
    return randn(d, B, n, dim)


def model(d):
    from mfattn.implicit.models import build_model

    return build_model(seed(d) % 7)


def images(d, B=2):
    return randn(d, B, 1, 28, 28).float()


def onsager_data(d):
    from mfattn.implicit.onsager import onsager_dataset

    return onsager_dataset(3, [0.3], 2, seed=seed(d) % 5)


def _couplings(d, n=3, dim=2):
    return randn(d, n, n, dim, dim) * 0.1


LAYER = dict(skip=("layer", "base", "model", "net"))
SPECS = {
    # meanfield layer
    I + "meanfield:MeanFieldAttention": Spec(
        lambda d: {"num_spins": d(st.integers(1, 4)), "dim": d(st.integers(1, 3)), "generator": gen(d)},
        domain={"num_spins": "int>=1", "dim": "int>=1", "max_iter": "int>=1", "tol": ">0", "phantom_tau": "(0,1]",
                "backward_max_iter": "int>=1", "backward_tol": ">0", "ff_mult": "int>=1", "heads": "int>=1",
                "phantom_steps": "int>=1"},
        sizes={"num_spins": 10**6}),
    I + "meanfield:FeedForward": Spec(lambda d: {"dim": d(st.integers(1, 4))}, domain={"dim": "int>=1", "mult": "int>=1"},
                                      sizes={"dim": 10**7}),
    I + "meanfield:symmetrise_couplings": Spec(lambda d: {"weight": _couplings(d), "symmetry": "internal"}),
    I + "meanfield:couplings_to_matrix": Spec(lambda d: {"J": _couplings(d)}),
    # correction
    I + "correction:fixed_point_fields": Spec(lambda d: {"model": model(d), "images": images(d)}, **LAYER),
    I + "correction:affine_fit": Spec(lambda d: {"inputs": randn(d, 12, 2), "outputs": randn(d, 12, 2)}),
    I + "correction:gaussian_cavity": Spec(lambda d: {"J": _couplings(d), "P": 2.0}),
    I + "correction:gaussian_correction": Spec(lambda d: {"P": 2.0, "g": randn(d, 3, 2)}),
    I + "correction:coupling_asymmetry": Spec(lambda d: {"J": _couplings(d)}, nonfinite_ok=True),
    I + "correction:correction_report": Spec(lambda d: {"model": model(d), "images": images(d, 12)}, nonfinite_ok=True,
                                             **LAYER),
    # onsager
    I + "onsager:onsager_dataset": Spec(lambda d: {"n": 3, "betas": [d(st.floats(0.1, 0.5))], "instances": 2},
                                        domain={"n": "int>=2", "instances": "int>=1", "field_std": ">=0",
                                                "seed": "int>=0"}, sizes={"instances": 10**12}),
    I + "onsager:onsager_features": Spec(lambda d: {k: onsager_data(d)[k] for k in ("J", "h", "m")} | {"inputs": "g"}),
    I + "onsager:OnsagerNet": Spec(lambda d: {"features": d(st.integers(1, 3)), "generator": gen(d)},
                                   domain={"features": "int>=1", "hidden": "int>=1"}, sizes={"hidden": 10**7}),
    I + "onsager:fit_onsager_net": Spec(lambda d: {"data": onsager_data(d), "inputs": "g", "steps": 2, "hidden": 4},
                                        domain={"steps": "int>=1", "lr": ">0", "hidden": "int>=1"}),
    I + "onsager:amortised_mean_field": Spec(lambda d: {k: onsager_data(d)[k] for k in ("J", "h")} | {"net": None},
                                             domain={"max_iter": "int>=1", "tol": ">0", "damping": "(0,1]"}),
    I + "onsager:amortisation_study": Spec(
        lambda d: {"n": 3, "train_betas": [0.3], "train_instances": 2, "test_betas": [0.3], "test_instances": 2,
                   "hidden": 2, "fit_steps": 2, "cache": False, "inputs": ("g",)},
        domain={"n": "int>=2", "train_instances": "int>=1", "test_instances": "int>=1", "fit_steps": "int>=1"},
        sizes={"train_instances": 10**12}, skip=("cache",)),
    # stability
    I + "stability:adjoint_map": Spec(lambda d: {"layer": layer(d), "x": src(d)}, **LAYER),
    I + "stability:jacobian_spectral_radius": Spec(lambda d: {"layer": layer(d), "x": src(d), "iters": 20},
                                                   domain={"iters": "int>=1"}, **LAYER),
    I + "stability:dense_jacobian": Spec(lambda d: {"layer": layer(d), "x": src(d)}, **LAYER),
    I + "stability:resolvent_norm": Spec(lambda d: {"layer": layer(d), "x": src(d)}, **LAYER),
    I + "stability:held_out_r2": Spec(lambda d: {"predictor": list(rng(d).normal(size=8)),
                                                 "target": list(rng(d).normal(size=8))},
                                      allow={"predictor": ("integer",), "target": ("integer",)}, nonfinite_ok=True),
    I + "stability:anderson_fixed_point": Spec(lambda d: {"layer": layer(d), "x": src(d)},
                                               domain={"max_iter": "int>=1", "tol": ">0"}, **LAYER),
    I + "stability:fixed_point_spectral_radius": Spec(lambda d: {"layer": layer(d), "x": src(d), "iters": 20},
                                                      domain={"max_iter": "int>=1", "iters": "int>=1"},
                                                      allow={"x": ("nan-entry", "inf-entry")}, nonfinite_ok=True,
                                                      **LAYER),
    I + "stability:truncated_logits": Spec(lambda d: {"model": model(d), "images": images(d), "steps": [1, 2]}, **LAYER),
    I + "stability:accuracy_by_steps": Spec(lambda d: {"model": model(d), "images": images(d),
                                                       "labels": torch.tensor([1, 2]), "steps": [1]},
                                            domain={"batch_size": "int>=1"}, **LAYER),
    I + "stability:unit_crossing": Spec(lambda d: {"steps": [1.0, 2.0, 3.0], "values": [0.5, d(st.floats(0, 2)), 1.5]},
                                        allow={"values": ("nan-entry", "inf-entry")}),
    I + "stability:crossing_text": Spec(lambda d: {"first": d(st.floats(-1, 99)), "stays": 3.0}),
    I + "stability:change_correlation": Spec(lambda d: {"a": list(rng(d).normal(size=6)), "b": list(rng(d).normal(size=6))},
                                             allow={"a": ("integer",), "b": ("integer",)}, nonfinite_ok=True),
    I + "stability:change_correlation_difference": Spec(
        lambda d: {"a": list(rng(d).normal(size=6)), "b": list(rng(d).normal(size=6)), "y": list(rng(d).normal(size=6)),
                   "draws": 50}, domain={"draws": "int>=2", "seed": "int>=0"},
        allow={"a": ("integer",), "b": ("integer",), "y": ("integer",)}, nonfinite_ok=True),
    # transformer
    I + "transformer:to_multihead_attention": Spec(lambda d: {"layer": layer(d, True)}),
    I + "transformer:to_transformer_block": Spec(lambda d: {"layer": layer(d, True, lin=True)}),
    I + "transformer:naive_trajectory": Spec(lambda d: {"layer": layer(d, True), "x": src(d), "steps": 3},
                                             domain={"steps": "int>=0"}, sizes={"steps": 10**12}, **LAYER),
    I + "transformer:softmax_naive_fixed_point": Spec(lambda d: {"layer": layer(d, True), "x": src(d)}, **LAYER),
    I + "transformer:naive_contraction_rate": Spec(lambda d: {"layer": layer(d, True), "x": src(d)}, **LAYER),
    I + "transformer:token_spread": Spec(lambda d: {"m": src(d)}),
    I + "transformer:one_step_identities": Spec(lambda d: {"x": src(d, 3, 4), "generators": {1: gen(d), 2: gen(d)}}),
    I + "transformer:steps_study": Spec(lambda d: {"base": layer(d, True), "x": src(d), "rhos": [0.5], "steps": 2},
                                        domain={"steps": "int>=0"}, sizes={"steps": 10**12}, **LAYER),
    I + "transformer:sharpness_study": Spec(lambda d: {"base": layer(d, True), "x": src(d), "rho": 0.5, "steps": 2,
                                                   "scales": [1.0, 3.0]},
                                            domain={"steps": "int>=0", "rho": ">0"}, sizes={"steps": 10**12}, **LAYER),
    I + "transformer:softmax_couplings": Spec(lambda d: {"layer": layer(d, True), "x": src(d)}, **LAYER),
    I + "transformer:off_head_block_fraction": Spec(lambda d: {"J": _couplings(d, 3, 4), "heads": 2},
                                                    domain={"heads": "int>=1"}, nonfinite_ok=True),
    # the explicit layer's operation count (chapter 3)
    I + "explicit_cost:linear_response_flops": Spec(lambda d: {"num_spins": d(st.integers(1, 6)), "dim": d(st.integers(1, 4))},
                                                    domain={"num_spins": "int>=1", "dim": "int>=1"}),
    I + "explicit_cost:cost_count": Spec(lambda d: {"sizes": [(2, 1), (d(st.integers(1, 3)), 2)], "execute_max_nd": 6},
                                         domain={"execute_max_nd": "int>=0", "seed": "int>=0"}, nonfinite_ok=True),
    # vector TAP
    I + "vector_tap:VectorSpinTAP": Spec(lambda d: {"num_spins": d(st.integers(1, 3)), "dim": 2, "generator": gen(d)},
                                         domain={"num_spins": "int>=1", "dim": "int>=1", "max_iter": "int>=1",
                                                 "tol": ">0"}, sizes={"num_spins": 10**6}),
    I + "transformer:value_map_off_block": Spec(
        lambda d: {"num_spins": 3, "dim": 8, "x": randn(d, 1, 3, 8), "generator": gen(d)},
        domain={"heads": "int>=1"}, skip=("generator",)),
    I + "vector_tap:explicit_tap_cost": Spec(lambda d: {"sizes": [(2, 2)], "repeats": 1},
                                             domain={"batch": "int>=1", "repeats": "int>=1"}),
    I + "vector_tap:cost_exponent": Spec(lambda d: {"nd": [4.0, 8.0, 16.0], "seconds": [1.0, 8.0, d(st.floats(20, 90))],
                                                    "fit_min_nd": 4.0}, domain={"fit_min_nd": ">=0"}),
    I + "vector_tap:explicit_cost_scaling": Spec(lambda d: {"sizes": [(2, 2), (3, 2)], "fit_min_nd": 4, "repeats": 1},
                                                 domain={"repeats": "int>=1"}),
    # variants (statistics of stored runs)
    I + "variants:binomial_se": Spec(lambda d: {"accuracy": d(st.floats(0, 1)), "n": d(st.integers(1, 10**4))},
                                     domain={"accuracy": "[0,1]", "n": "int>=1"}),
    I + "variants:mcnemar": Spec(lambda d: dict(zip(("correct_a", "correct_b"), rng(d).random((2, 30)) < 0.7))),
    I + "variants:pack_correct": Spec(lambda d: {"correct": rng(d).random(20) < 0.5}),
    I + "variants:unpack_correct": Spec(lambda d: {"packed": "/w==", "n": 8}, domain={"n": "int>=0"},
                                        sizes={"n": 10**13}),
    # training helpers
    I + "train:make_optimizer": Spec(lambda d: {"model": torch.nn.Linear(2, 2), "lr": 1e-3}, domain={"lr": ">0"},
                                     skip=("model",)),
    I + "evaluation:evaluate": Spec(lambda d: {"model": model(d), "x": images(d), "y": torch.tensor([3, 4])},
                               domain={"batch_size": "int>=1"}, **LAYER),
    I + "evaluation:confusion_matrix": Spec(lambda d: {"labels": np.array([0, 1, 2]), "pred": np.array([0, 2, 2])},
                                       domain={"classes": "int>=1"}, sizes={"classes": 10**7}),
    I + "train:epoch_order": Spec(lambda d: {"n": d(st.integers(1, 50)), "seed": seed(d), "epoch": 0},
                                  domain={"n": "int>=1", "seed": "int>=0", "epoch": "int>=0"}, sizes={"n": 10**12}),
    I + "evaluation:settling_curve": Spec(lambda d: {"norms": np.abs(rng(d).normal(size=(3, 2, 2))) + 0.1}),
    I + "runs:TrainConfig": Spec(lambda d: {"epochs": d(st.integers(1, 3)), "batch_size": 4},
                                  domain={"epochs": "int>=1", "batch_size": "int>=1", "lr": ">0", "seed": "int>=0"}),
    I + "runs:TrainResult": Exempt(RESULT),
    I + "train:train_mnist": Exempt(MNIST_NEEDED),
    I + "runs:run_dir": Exempt("a cache folder for a TrainConfig (path rules: issue 28 item 4)"),
    I + "train:profile_config": Exempt("builds a TrainConfig from a profile's sizes (checked by profiles and "
                                       "TrainConfig)"),
    I + "runs:run_progress": Exempt(STORED),
    I + "runs:code_version": Spec(lambda d: {}),   # no arguments: the valid call alone
    I + "train:main": Exempt(CLI),
    I + "feature_floor:FeatureFloor": Spec(lambda d: {"readout": d(st.sampled_from(["mean", "flat"])),
                                                      "dim": d(st.integers(1, 4)), "channels": 4},
                                           domain={"dim": "int>=1", "channels": "int>=1"}),
    I + "feature_floor:train_floor": Exempt("trains on the MNIST data set, not on this machine; generated at tiny sizes "
                                            "where it is (below)"),
    I + "feature_floor:main": Exempt(CLI),
    # models
    I + "models:PatchEmbedding": Spec(lambda d: {"dim": d(st.integers(1, 4))}, domain={"dim": "int>=1",
                                                                                       "channels": "int>=1"}),
    I + "models:MeanFieldMNIST": Spec(lambda d: {"dim": d(st.integers(1, 4)), "channels": 4},
                                      domain={"dim": "int>=1", "channels": "int>=1"}),
    I + "models:build_model": Spec(lambda d: {"seed": seed(d), "dim": 3, "channels": 4},
                                   domain={"seed": "int>=0", "dim": "int>=1", "channels": "int>=1"},
                                   skip=("device", "dtype")),
    # MNIST files
    I + "mnist:parse_idx": Spec(lambda d: {"data": bytes([0, 0, 8, 1, 0, 0, 0, 2, d(st.integers(0, 255)), 7])}),
    I + "mnist:normalize": Spec(lambda d: {"images": torch.randint(0, 256, (2, 28, 28), dtype=torch.uint8)}),
    I + "mnist:MNIST": Exempt(RESULT),
    I + "mnist:read_idx": Exempt("reads a file (bounded: MAX_IDX_BYTES; gzip bombs refused, tests/test_data.py "
                                 "and the hand table)"),
    I + "mnist:mnist_dir": Exempt("a folder from an argument or the environment (path rules: issue 28 item 4)"),
    I + "mnist:download_mnist": Exempt("network download (offline in tests); the hand table covers its errors"),
    I + "mnist:load_mnist": Exempt("reads the MNIST files; its errors are in tests/test_data.py and the hand table"),
    # export, claims, figures
    I + "export:condensed_run": Exempt(STORED),
    I + "export:export_run": Exempt(STORED),
    I + "export:main": Exempt(CLI),
    I + "variants:main": Exempt(CLI),
}
for _name in ("cached_variant_results", "export_variants", "train_variants"):
    SPECS[I + "variants:" + _name] = Exempt("trains the variant runs of a profile (MNIST, minutes) or reads their "
                                            "TrainResults; the rows it makes are generated below (markdown_table ...)")


def _stored_root(d):
    """A project folder (made once, removed at exit) holding a stored full-profile summary of chapters 2 and 3 as
    their full runs write them (a number drawn into each)."""
    import atexit
    import json
    import shutil
    import tempfile
    from pathlib import Path

    global _ROOT
    if _ROOT is None:
        _ROOT = Path(tempfile.mkdtemp(prefix="mfattn-contracts-"))
        atexit.register(shutil.rmtree, _ROOT, ignore_errors=True)
    deq = {"rho_blog_median": d(st.floats(0.5, 1.5)), "rho_blog_max": 1.6, "rho_blog_unstable": d(st.floats(0, 1)),
           "blog_anderson_converged": 0.98, "rho_blog_median_converged": d(st.sampled_from([None, 0.9])),
           "rho_plain_median": 1.3, "rho_plain_unstable": 1.0, "stability_digits": 1000, "acc_step_1": 0.2,
           "acc_fixed": 0.9916}
    tr = {"tap_slope": d(st.floats(2.0, 3.5)), **d(st.sampled_from([{}, {"tap_fit_min_nd": 512, "tap_fit_max_nd": 4096}]))}
    for chapter, numbers in (("deq", deq), ("transformer", tr)):
        folder = _ROOT / "data" / "full" / chapter
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "summary.json").write_text(json.dumps(numbers))
    return str(_ROOT) if d(st.booleans()) else _ROOT


_ROOT = None


def _onsager_study(d):
    """One draw's stored corrections of chapter 3's Onsager study: 4 test beta (the last above the training range),
    two instances each."""
    r = rng(d)
    test_betas = [0.3, 0.5, 0.7, 0.9]
    beta_i = np.repeat(test_betas, 2)
    return {"corr_err_m": r.uniform(0.1, 2.0, 4), "test_beta": beta_i, "corr_diff_m": r.uniform(0.1, 1.0, 8),
            "c_norm": r.uniform(0.5, 1.5, 8)}, [0.3, d(st.floats(0.5, 0.7))], test_betas


def _fit_sizes(d):
    nd = [256.0, 512.0, 1024.0, 2048.0, 4096.0]
    slope = d(st.floats(2.0, 3.5))
    return {"nd": nd, "seconds": [float(1e-9 * n ** slope * e) for n, e in zip(nd, rng(d).uniform(0.9, 1.1, 5))],
            "fit_min_nd": d(st.sampled_from([0.0, 256.0, 512.0, 1024.0]))}


SPECS.update({
    I + "claims_deq_numbers:stability_prose": Spec(lambda d: {"root": _stored_root(d)}),
    I + "claims_deq_prose:variant_glue": Spec(lambda d: {"s": {}}, check=lambda kw, r: set(r.values()) == {"n/a"}),
    I + "claims_deq_numbers:stored_cost_exponent": Spec(lambda d: {"root": _stored_root(d)}),
    I + "claims_transformer_numbers:onsager_statistics": Spec(
        lambda d: dict(zip(("study", "train_betas", "test_betas"), _onsager_study(d)), name="m")),
    I + "claims_transformer_numbers:fit_with_se": Spec(_fit_sizes, domain={"fit_min_nd": ">=0"}),
    I + "claims_deq_couplings:breakdown_p": Spec(lambda d: {"broke": 1, "runs": 3, "ref_broke": 0, "ref_runs": 3},
                                                 domain={"broke": "int>=0", "runs": "int>=0", "ref_broke": "int>=0",
                                                         "ref_runs": "int>=0"}),
    I + "claims_deq_couplings:interaction_grade": Spec(lambda d: {"acc": d(st.floats(80, 100)), "blog": d(st.floats(98, 100)),
                                                              "margin": d(st.floats(0, 2)), "floor": d(st.floats(80, 95))}),
})


# --- stored numbers, their readers and writers, and the variant table (issue 44 item 5) ----------------------------
def _rows(d):
    """The stored variant table's rows (data/full/deq_variants.json: variant_rows of the full profile), a drawn
    leading part of them (the blog model's rows come first)."""
    rows = variant_table()["rows"]
    keep = d(st.sampled_from([len(rows), 6, 3]))
    return [dict(r) for r in rows[:keep]]


def _summary(d):
    from mfattn.implicit.variants import seed_summary

    return seed_summary(_rows(d))


def _gain_key(d):
    s = stored("deq")
    return d(st.sampled_from(sorted(k[:-2] for k in s if k.endswith("_d") and f"{k[:-2]}_v" in s)))


SPECS.update({
    I + "claims_deq_numbers:deq_numbers": Spec(lambda d: {"root": d(st.sampled_from([None, _stored_root(d)]))},
                                               check=is_type(dict)),
    I + "claims_deq_numbers:full_numbers": Spec(lambda d: {"root": d(st.sampled_from([None, _stored_root(d)])),
                                                           "chapter": d(st.sampled_from(["deq", "transformer",
                                                                                         "ising"]))},
                                                check=is_type(dict)),
    I + "claims_deq_numbers:stored_numbers": Spec(lambda d: {"root": d(st.sampled_from([None, _stored_root(d)])),
                                                             "chapter": d(st.sampled_from(["deq", "transformer"]))}),
    I + "claims_deq_numbers:save": Spec(lambda d: {"root": tmpdir(), "chapter": d(st.sampled_from(["deq", "x"])),
                                                   "summary": {"acc": d(st.floats(0, 1)), "ok": True, "n": None,
                                                               "acc_seeds": [0.5, d(st.floats(0, 1))]}},
                                        call=in_tmp),
    # NaN: onsager_statistics' documented "no value" (mean_upper over one β, above with no finite error beyond)
    I + "claims_transformer_numbers:stored_numbers": Spec(lambda d: {"root": root_choice(d)}, nonfinite_ok=True),
    I + "claims_deq_onsager:learned_onsager_claim": Spec(lambda d: {}),   # no arguments: the valid call alone
    I + "claims_deq_onsager:fixed_effect_interval": Spec(lambda d: {"s": stored("deq"), "key": _gain_key(d)},
                                                         check=lambda kw, r: r[1] <= r[0] <= r[2] or (
                                                             _ for _ in ()).throw(AssertionError(f"{r}"))),
    I + "variants:markdown_table": Spec(lambda d: {"rows": _rows(d)}, check=is_type(str)),
    I + "variants:compare_to_blog": Spec(lambda d: {"rows": _rows(d)}),
    I + "variants:seed_summary": Spec(lambda d: {"rows": _rows(d)}),
    I + "variants:summary_table": Spec(lambda d: {"summary": _summary(d)}, check=is_type(str)),
    I + "variants:compare_paired": Spec(lambda d: {"summary": _summary(d), "alpha": d(st.floats(0.01, 0.2))},
                                        domain={"alpha": "(0,1)"}),
    I + "variants:seeds_statement": Spec(lambda d: {"summary": _summary(d)}, check=is_type(str)),
})

# what records into a chapter's run (made in the child, under temporary output folders: contracts_strategies_a)
SPECS.update({
    I + "claims:record": Spec(lambda d: {"run": RunPlaceholder(), "root": d(st.sampled_from([None, _stored_root(d)])),
                                         "chapter": d(st.sampled_from(["deq", "transformer"]))}, call=with_run("deq")),
    I + "claims_deq_prose:glue": Spec(lambda d: {"run": RunPlaceholder(), "s": d(st.sampled_from([{}, stored("deq")]))},
                                      call=with_run("deq")),
})


# --- over training, on a stored run's kept weights (restored once into a temporary cache) and 4 MNIST test digits
def _kept(d):
    from contracts_strategies_a import mnist_digits, restored_runs

    result = restored_runs()[d(st.sampled_from(["blog-seed0", "blog-seed1"]))]   # the runs that kept weights
    kept = result.weight_steps()
    return {"result": result, "images": mnist_digits()[0], "steps": [kept[d(st.integers(0, len(kept) - 1))]]}


if mnist_present():
    SPECS.update({
        I + "stability:spectral_radius_over_training": Spec(
            lambda d: {**_kept(d), "iters": d(st.integers(2, 30)), "max_iter": d(st.integers(1, 30))},
            domain={"iters": "int>=2", "max_iter": "int>=1"}, sizes={"iters": 10**15, "max_iter": 10**15},
            nonfinite_ok=True),   # rho is NaN where a digit's fixed point is not finite (documented)
        I + "reference_solver:reference_converged_over_training": Spec(
            lambda d: {**_kept(d), "batch": d(st.integers(1, 4))}, domain={"batch": "int>=1"}),
    })
else:
    SPECS[I + "stability:spectral_radius_over_training"] = Exempt(
        "reads the MNIST test digits, not on this machine; generated where they are (on a stored run's kept weights)")


def _variant_results(d):
    from contracts_strategies_a import restored_runs

    runs = restored_runs()
    names = d(st.sampled_from([["blog-seed0"], ["blog-seed0", "m-seed1"]]))
    return {name.split("-seed")[0]: runs[name] for name in names}


SPECS[I + "variants:variant_rows"] = Spec(lambda d: {"results": _variant_results(d)}, check=is_type(list))


def _per_unit(d):
    """save_per_unit's arguments as chapter 3 passes them, at tiny sizes (two draws, two ρ, three sizes)."""
    r = rng(d)
    offsets = [0, d(st.integers(1, 3))]
    draws = {k: {"spread_res": r.uniform(0, 1, 3), "spread_nores": r.uniform(0, 1, 3), "off_block_dense": 0.1,
                 "onsager": {"corr_err_m": r.uniform(0.1, 1, 4), "test_beta": np.repeat([0.3, 0.5], 2)}}
             for k in offsets}
    spread = {rho: {"with source": [r.uniform(0, 1, 3)], "without source": [r.uniform(0, 1, 3)]} for rho in (0.5, 0.9)}
    nd = [8.0, 16.0, 32.0]
    scaling = {"Nd": nd, "seconds": [1e-5 * n ** 2.8 for n in nd], "fit_min_nd": 8.0, "exponent": 2.8}
    count = {"Nd": nd, "N": [4, 8, 16], "d": [2, 2, 2], "flops": [2 * n ** 3 for n in nd], "counted": [None, 1.0, 2.0],
             "max_dev": 0.0}
    return {"root": tmpdir(), "seed": d(st.integers(0, 3)), "seed_offsets": offsets, "draws": draws,
            "spread_by_rho": spread, "scaling": scaling, "train_betas": [0.3, 0.5], "test_betas": [0.3, 0.5, 0.7],
            "count": d(st.sampled_from([None, count]))}


SPECS[I + "claims_transformer_numbers:save_per_unit"] = Spec(_per_unit, domain={"seed": "int>=0"}, call=in_tmp)

if mnist_present():   # a tiny run: 8 training and 8 test digits, batches of 4 (about a second, most of it reading MNIST)
    SPECS[I + "feature_floor:train_floor"] = Spec(
        lambda d: {"readout": d(st.sampled_from(["mean", "flat"])), "seed": d(st.integers(0, 5)), "epochs": 1,
                   "batch_size": 4, "train_limit": 8, "test_limit": 8},
        domain={"seed": "int>=0", "epochs": "int>=1", "batch_size": "int>=1", "lr": ">0", "train_limit": "int>=1",
                "test_limit": "int>=1"}, sizes={"epochs": 10**15}, skip=("data_root",))
