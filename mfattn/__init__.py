"""mfattn: attention read as statistical physics.

An executable companion to three works: Deep Implicit Attention (Bal, 2021), Attention as
Implicit Structural Inference (Singh & Buckley, 2023) and the Dynamical Mean-Field Theory of
Self-Attention (Poc-López & Aguilera, 2024). One module per idea; the book's notebooks call them.
"""

__version__ = "0.1.0"

from .chapter import ChapterRun  # noqa: E402  (the one name every notebook needs)

__all__ = ["ChapterRun", "__version__"]
