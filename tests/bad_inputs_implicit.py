"""Bad-input rows of ``mfattn.implicit`` (chapters 2-3), gathered by test_bad_inputs.py.

Each row: (id, call, exception type(s), pattern naming the parameter).
"""

import numpy as np
import torch

from mfattn.implicit import claims, correction, meanfield, onsager, stability, train, transformer, variants, vector_tap
from mfattn.implicit.models import build_model

NAN = float("nan")


def _layer(**kw):
    return meanfield.MeanFieldAttention(4, 3, **kw)


ROWS = [
    ("implicit-layer-spins", lambda: meanfield.MeanFieldAttention(0, 3), ValueError, "num_spins"),
    ("implicit-layer-dim", lambda: meanfield.MeanFieldAttention(4, 0), ValueError, "dim"),
    ("implicit-layer-interaction", lambda: _layer(interaction="cubic"), ValueError, "interaction"),
    ("implicit-layer-symmetry", lambda: _layer(symmetry="mirror"), ValueError, "symmetry"),
    ("implicit-layer-x-shape", lambda: _layer()(torch.zeros(2, 5, 3)), ValueError, "x must have shape"),
    ("implicit-layer-x-dtype", lambda: _layer()(torch.zeros(2, 4, 3, dtype=torch.float64)), TypeError,
     "x has dtype torch.float64 but the layer"),
    ("implicit-layer-x-nan", lambda: _layer()(torch.full((2, 4, 3), NAN)), ValueError, "x contains NaN"),
    ("implicit-layer-x-int", lambda: _layer()(torch.zeros(2, 4, 3, dtype=torch.long)), TypeError, "floating-point"),
    ("implicit-layer-x-list", lambda: _layer()([[0.0]]), TypeError, "x must be a torch.Tensor"),
    ("implicit-tap-prior", lambda: vector_tap.VectorSpinTAP(3, 2, prior_precision=-1.0), ValueError, "prior"),
    ("implicit-tap-cost-sizes", lambda: vector_tap.explicit_tap_cost([(0, 2)]), ValueError, "sizes|num_spins"),
    ("implicit-stability-layer", lambda: stability.jacobian_spectral_radius(None, torch.zeros(1, 4, 3)), TypeError,
     "layer must be a MeanFieldAttention"),
    ("implicit-stability-iters", lambda: stability.jacobian_spectral_radius(_layer(), torch.zeros(1, 4, 3), iters=0),
     ValueError, "iters"),
    ("implicit-stability-m-star", lambda: stability.jacobian_spectral_radius(_layer(), torch.zeros(1, 4, 3),
                                                                            torch.zeros(2, 4, 3)), ValueError, "m_star"),
    ("implicit-stability-steps", lambda: stability.accuracy_by_steps(build_model(0), torch.zeros(2, 1, 28, 28),
                                                                     torch.zeros(2, dtype=torch.long), steps=(-1,)),
     ValueError, "steps"),
    ("implicit-variants-unpack-not-base64", lambda: variants.unpack_correct("not base64!", 10), ValueError,
     "packed must be a base64 string"),
    ("implicit-variants-unpack-length", lambda: variants.unpack_correct("AAAA", 100), ValueError,
     r"packed holds 3 bytes.*n=100"),
    ("implicit-variants-unpack-type", lambda: variants.unpack_correct(None, 10), TypeError, "packed"),
    ("implicit-variants-unpack-n", lambda: variants.unpack_correct("AAAA", -1), ValueError, "n must be"),
    ("implicit-variants-mcnemar-length", lambda: variants.mcnemar(np.ones(3, bool), np.ones(4, bool)), ValueError,
     "correct_a and correct_b"),
    ("implicit-transformer-heads-divide", lambda: transformer.off_head_block_fraction(torch.zeros(2, 2, 6, 6), 4),
     ValueError, "heads must divide"),
    ("implicit-tap-cost-window", lambda: vector_tap.cost_exponent([8, 16], [1.0, 2.0], 32), ValueError, "fit_min_nd"),
    ("implicit-tap-cost-negative", lambda: vector_tap.cost_exponent([8, 16], [1.0, -2.0], 8), ValueError, "seconds"),
    ("implicit-transformer-layer", lambda: transformer.to_multihead_attention(_layer(interaction="linear")),
     ValueError, "interaction='softmax'"),
    ("implicit-transformer-steps", lambda: transformer.naive_trajectory(_layer(interaction="softmax"),
                                                                        torch.zeros(1, 4, 3), -1), ValueError, "steps"),
    ("implicit-onsager-inputs", lambda: onsager.onsager_features(torch.zeros(3, 3), torch.zeros(3), torch.zeros(3), "q"),
     ValueError, "inputs"),
    ("implicit-train-config-lr", lambda: train.TrainConfig(lr=-1.0), ValueError, "lr"),
    ("implicit-train-config-epochs", lambda: train.TrainConfig(epochs=0), ValueError, "epochs"),
    ("implicit-train-config-batch", lambda: train.TrainConfig(batch_size=0), ValueError, "batch_size"),
    ("implicit-confusion-classes", lambda: train.confusion_matrix(np.array([0, 11]), np.array([0, 1])), ValueError,
     "labels|classes"),
    ("implicit-settling-shape", lambda: train.settling_curve(np.zeros(3)), ValueError, "norms"),
    ("implicit-variants-se", lambda: variants.binomial_se(1.5, 100), ValueError, "accuracy"),
    ("implicit-train-config-weights-every", lambda: train.TrainConfig(weights_every=0), ValueError, "weights_every"),
    ("implicit-correction-fit-shapes", lambda: correction.affine_fit(np.zeros((10, 3)), np.zeros((9, 2))), ValueError,
     "inputs and outputs"),
    ("implicit-correction-fit-nan", lambda: correction.affine_fit(np.full((10, 2), NAN), np.zeros((10, 2))), ValueError,
     "finite"),
    ("implicit-correction-cavity-p", lambda: correction.gaussian_cavity(torch.zeros(3, 3, 2, 2), -1.0), ValueError, "P must"),
    ("implicit-correction-p-zero", lambda: correction.gaussian_correction(0.0, torch.ones(4, 3)), ValueError,
     "P must be a positive scalar"),
    ("implicit-correction-p-singular", lambda: correction.gaussian_correction(torch.zeros(3, 3), torch.ones(4, 3)),
     ValueError, "P must be .* invertible"),
    ("implicit-correction-p-shape", lambda: correction.gaussian_correction(torch.eye(2), torch.ones(4, 3)), ValueError,
     r"P must be .*\(3, 3\) matrix; got shape \(2, 2\)"),
    ("implicit-correction-cavity-shape", lambda: correction.gaussian_cavity(torch.zeros(3, 2, 2, 2)), ValueError, "J must"),
    ("implicit-correction-cavity-singular", lambda: correction.gaussian_cavity(
        torch.eye(2).repeat(2, 2, 1, 1) * (1 - torch.eye(2))[:, :, None, None], 1.0), ValueError, "P − J is singular"),
    ("implicit-correction-model", lambda: correction.fixed_point_fields(build_model(0, interaction="softmax", symmetry=None),
                                                                        torch.zeros(2, 1, 28, 28)), ValueError, "model must"),
    ("implicit-stability-training-result", lambda: stability.spectral_radius_over_training(None, torch.zeros(2, 1, 28, 28)),
     TypeError, "result must be a TrainResult"),
    ("implicit-stability-crossing", lambda: stability.unit_crossing([0, 1000], [0.5]), ValueError,
     "steps and values must be 1-d and of one length"),
    ("implicit-model-dim", lambda: build_model(0, dim=0), ValueError, "dim"),
    ("implicit-stability-change-correlation", lambda: stability.change_correlation([1.0, 2.0, 3.0], [1.0, 2.0, 3.0]),
     ValueError, "a and b must be finite 1-d series"),
    ("implicit-claims-chapter", lambda: claims.stored_numbers(None, "ising"), ValueError, "chapter"),
    ("implicit-claims-interaction", lambda: claims.interaction_grade(NAN, 99.2), ValueError, "acc"),
]
