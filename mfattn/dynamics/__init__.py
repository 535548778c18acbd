"""Dynamical mean-field theory of a 1-bit transformer (Poc-López & Aguilera, 2024): chapter 6.

The paper's weights and contexts (:mod:`~mfattn.dynamics.model`), the mean-field map for one β written
like the equations (:mod:`~mfattn.dynamics.map`), the batched engine and its tangent map
(:mod:`~mfattn.dynamics.engine`), orbit diagnostics (:mod:`~mfattn.dynamics.diagnostics`), resumable
sweeps (:mod:`~mfattn.dynamics.sweep`), the finite-N network (:mod:`~mfattn.dynamics.finite_n`), the
chapter's plots (:mod:`~mfattn.dynamics.figures`), the numbers behind its verdicts
(:mod:`~mfattn.dynamics.verdict_numbers`) and its declared claims (:mod:`~mfattn.dynamics.claims`).
"""
