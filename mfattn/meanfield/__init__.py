"""How good are mean-field theories of the SK model? Chapter 1 of the book.

The accuracy study of naive mean field, TAP and adaptive TAP (solved by :mod:`mfattn.ising`) against exact
enumeration over β, with its two failure modes and the damping sweep that tells a slow iteration from a
lost solution (:mod:`~mfattn.meanfield.accuracy`), the chapter's plots (:mod:`~mfattn.meanfield.figures`)
and its declared claims (:mod:`~mfattn.meanfield.claims`). The folder is named after its subject, the
mean-field approximations and where they break down; the Ising models they approximate stay in the
foundation :mod:`mfattn.ising`, which later chapters use too.
"""
