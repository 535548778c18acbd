"""Evaluating the MNIST model and reading its training: test accuracy, confusion, coupling norms.

:func:`evaluate` runs a model over a test set in evaluation mode (mean cross-entropy, accuracy,
predictions); :func:`confusion_matrix` counts true against predicted classes; ``_coupling_norms``
takes the snapshot of ``‖J_ij‖_F`` (N, N) the training loop logs, and :func:`settling_curve` measures
how those snapshots approach the final one.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import torch
import torch.nn.functional as F
from ..companion.checks import check_alloc, check_int, contract

__all__ = ["evaluate", "confusion_matrix", "settling_curve"]


def _convergence_warning() -> type[Warning]:
    from ..deq import ConvergenceWarning
    return ConvergenceWarning


@torch.no_grad()
@contract(x="tensor:4", y="inttensor:1", batch_size="int:1")
def evaluate(model, x: torch.Tensor, y: torch.Tensor, batch_size: int = 1000) -> dict[str, Any]:
    """Mean cross-entropy, accuracy and predictions (n,) of ``model`` on ``(x, y)``, in eval mode."""
    if len(y) != len(x) or (len(y) and not 0 <= int(y.min()) <= int(y.max()) < 10):
        raise ValueError(f"y must hold one class label in [0, 10) per image of x; got {len(y)} labels for {len(x)}")
    was_training = model.training
    model.eval()
    device = next(model.parameters()).device
    loss, preds = 0.0, []
    for start in range(0, len(y), batch_size):
        xb, yb = x[start:start + batch_size].to(device), y[start:start + batch_size].to(device)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", _convergence_warning())  # e.g. the plain-iteration variant
            logits = model(xb)
        loss += F.cross_entropy(logits, yb, reduction="sum").item()
        preds.append(logits.argmax(1).cpu())
    model.train(was_training)
    pred = torch.cat(preds)
    return {"loss": loss / len(y), "accuracy": (pred == y).double().mean().item(), "pred": pred.numpy()}


@contract(classes="int:1", alloc=lambda a: [("classes", 8 * a["classes"] ** 2)])
def confusion_matrix(labels: np.ndarray, pred: np.ndarray, classes: int = 10) -> np.ndarray:
    """Counts C[true, predicted] (classes, classes); labels and predictions are integers in [0, classes)."""
    check_int("classes", classes, 1)
    check_alloc("classes", 8 * classes * classes)
    labels, pred = np.asarray(labels), np.asarray(pred)
    for name, a in (("labels", labels), ("pred", pred)):
        if a.dtype.kind not in "iu" or a.ndim != 1:
            raise ValueError(f"{name} must be a 1-D array of integer class indices; got dtype {a.dtype}, "
                             f"shape {a.shape}")
    if labels.shape != pred.shape or (labels.size and not 0 <= min(labels.min(), pred.min()) <= max(labels.max(), pred.max()) < classes):
        raise ValueError(f"labels and pred must be integers in [0, {classes}) of one shape; got {labels.shape}, {pred.shape}")
    labels, pred = labels.astype(np.int64), pred.astype(np.int64)  # uint64 * int would give floats
    return np.bincount(labels * classes + pred, minlength=classes * classes).reshape(classes, classes)


def _coupling_norms(model) -> np.ndarray:
    """(N, N) ||J_ij||_F of learned couplings; NaN for the interaction variants, whose couplings
    depend on the input (softmax) or do not exist (MLP-mixer)."""
    layer = model.attention
    if layer.interaction == "linear":
        return layer.coupling_norms().detach().cpu().numpy()
    return np.full((layer.num_spins, layer.num_spins), np.nan, dtype=np.float32)


@contract(norms="array")
def settling_curve(norms: np.ndarray) -> np.ndarray:
    """Distance of each snapshot of the norm matrix to the final one (pattern and growth of the norms alike).

    ``||A_t - A_T||_F / ||A_T||_F`` for the snapshots ``A_t`` (S, N, N) of ``||J_ij||_F`` (norms: >= 0, the final
    snapshot not all zero); returns (S,).
    """
    norms = np.asarray(norms, dtype=np.float64)
    if norms.ndim != 3 or norms.shape[1] != norms.shape[2]:
        raise ValueError(f"norms must have shape (S, N, N); got {norms.shape}")
    if len(norms) < 1:
        raise ValueError(f"norms must hold at least one snapshot (S >= 1 in (S, N, N)); got shape {norms.shape}")
    if (norms < 0).any():
        raise ValueError("norms must hold Frobenius norms ||J_ij||_F (>= 0); got a negative entry")
    if not norms[-1].any():
        raise ValueError("norms' final snapshot must hold a positive norm (the distances are relative to it); "
                         "got an all-zero matrix")
    final = norms[-1]
    return np.linalg.norm((norms - final).reshape(len(norms), -1), axis=1) / np.linalg.norm(final)
