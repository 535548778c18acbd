"""Attention as Implicit Structural Inference (Singh & Buckley, 2023): chapters 4-5 of the book.

Attention as a posterior expectation over graph edges (:mod:`~mfattn.structural.edges`), the partition
function and the Gaussian step behind it (:mod:`~mfattn.structural.potentials`), other priors over edges
(:mod:`~mfattn.structural.edge_priors`: binary edges, temperature, relative positions); Hopfield
networks, slot attention and predictive coding as collapsed inference; the two new designs,
multi-hop and expanding attention, with the op-for-op Adam they share (:mod:`~mfattn.structural.optim`).
"""
