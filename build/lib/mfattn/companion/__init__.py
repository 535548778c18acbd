"""The book's machinery, no physics: profiles, chapter runs, the figure manifest, the verdict ledger,
reproduction through papermill, atomic storage and caches, shared argument checks.

Nothing here imports a physics module (arrows point from the paper folders to ``companion``).
"""
