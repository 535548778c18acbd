"""Deep Implicit Attention (Bal, 2021): chapters 2-3 of the book.

Attention as the mean-field response of a vector-spin Ising model: the explicit adaptive-TAP layer
(:mod:`~mfattn.implicit.vector_tap`), the fast neural mean-field layer (:mod:`~mfattn.implicit.meanfield`),
one naive mean-field step as a transformer block (:mod:`~mfattn.implicit.transformer`), the 26k MNIST
model and its training (:mod:`~mfattn.implicit.models`, the loop :mod:`~mfattn.implicit.train`, its runs on
disk :mod:`~mfattn.implicit.runs`, evaluation :mod:`~mfattn.implicit.evaluation`, the data
:mod:`~mfattn.implicit.mnist`), the Onsager-amortisation study and the variant table.
"""
