"""mfattn: attention read as statistical physics.

An executable companion to three works: Deep Implicit Attention (Bal, 2021), Attention as
Implicit Structural Inference (Singh & Buckley, 2023) and the Dynamical Mean-Field Theory of
Self-Attention (Poc-López & Aguilera, 2024). One module per idea; the book's notebooks call them.

Layout: the foundations :mod:`mfattn.ising` (mean-field theory of Ising models) and :mod:`mfattn.deq`
(fixed-point solvers and implicit gradients); chapter 1's accuracy study of the mean-field theories,
:mod:`mfattn.meanfield`; one folder per paper, :mod:`mfattn.implicit`
(Bal 2021, chapters 2-3), :mod:`mfattn.structural` (Singh & Buckley 2023, chapters 4-5) and
:mod:`mfattn.dynamics` (Poc-López & Aguilera 2024, chapter 6); the book's machinery in
:mod:`mfattn.companion`. Sub-packages are imported on demand, so ``import mfattn`` stays light.
"""

__version__ = "0.3.0"

from .companion.chapter import ChapterRun  # noqa: E402  (the one name every notebook needs)

__all__ = ["ChapterRun", "__version__"]
