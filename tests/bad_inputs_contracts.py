"""Bad-input rows of issue 28 (contracts and sizes), gathered by test_bad_inputs.py.

The cases the issue names, which generation (tests/test_contracts_api.py) also reaches, kept here as fixed
rows: NaN queries, patterns and points to the attention and energy functions; out-of-domain hyper-parameters
(``slot_objective(sigma=-1)``, ``MeanFieldAttention(weight_init_std=nan)``); complex or integer arrays where
reals are expected (refused, never cast); and sizes whose buffers exceed the memory budget, refused at once with
the parameter and the bytes (``simulate_network(N=10**9)``, ``random_patterns(10**9, ...)``, a gzip stream that
inflates to gigabytes), also under a budget a reader sets (``MFATTN_MAX_BYTES``).

Each row: (id, call, exception type(s), pattern naming the parameter).
"""

from __future__ import annotations

import gzip
import os
import tempfile
import zlib
from pathlib import Path

import numpy as np
import torch

from mfattn import deq, ising
from mfattn.companion import checks
from mfattn.dynamics import finite_n, sweep
from mfattn.implicit import meanfield, mnist, transformer
from mfattn.structural import edges, hopfield, potentials, predictive_coding as pc, slots

NAN, INF = float("nan"), float("inf")
F64 = torch.float64
BYTES = r"need [\d,]+ bytes"  # the bytes a refused size would have needed


def _g(seed: int = 0) -> torch.Generator:
    return torch.Generator().manual_seed(seed)


def _nan(shape) -> torch.Tensor:
    t = torch.randn(*shape, generator=_g(), dtype=F64)
    t.view(-1)[0] = NAN
    return t


def _qkv():
    return [torch.randn(1, 3, 2, generator=_g(i), dtype=F64) for i in range(3)]


def _patterns():
    return hopfield.random_patterns(4, 6, generator=_g())


def _with_budget(nbytes: str, call):
    """Run ``call()`` with ``$MFATTN_MAX_BYTES`` set to ``nbytes`` (a reader's budget), then restore it."""
    old = os.environ.get("MFATTN_MAX_BYTES")
    os.environ["MFATTN_MAX_BYTES"] = nbytes
    try:
        return call()
    finally:
        if old is None:
            del os.environ["MFATTN_MAX_BYTES"]
        else:
            os.environ["MFATTN_MAX_BYTES"] = old


def _sized(call):
    """``call`` under a 2 GB budget (``$MFATTN_MAX_BYTES``) and an address-space cap 2 GiB above the present use,
    so that a size check that went missing gives MemoryError here, never an out-of-memory kill of the machine."""
    import resource

    def capped():
        soft, hard = resource.getrlimit(resource.RLIMIT_AS)
        with open("/proc/self/statm") as fh:
            present = int(fh.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
        resource.setrlimit(resource.RLIMIT_AS, (present + 2 * 2**30, hard))
        try:
            return call()
        finally:
            resource.setrlimit(resource.RLIMIT_AS, (soft, hard))

    return _with_budget("2e9", capped)


def _gzip_bomb() -> None:
    """A 65 KiB gzip file that inflates past MNIST's largest file (64 MiB of zeros), read as IDX."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "bomb-idx3-ubyte.gz"
        squeezer = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
        chunk = bytes(2**20)
        with open(path, "wb") as fh:
            for _ in range(mnist.MAX_IDX_BYTES // len(chunk) + 2):
                fh.write(squeezer.compress(chunk))
            fh.write(squeezer.flush())
        mnist.read_idx(path)


def _gzip_truncated() -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "cut-idx1-ubyte.gz"
        path.write_bytes(gzip.compress(bytes([0, 0, 8, 1, 0, 0, 0, 3, 1, 2, 3]))[:-12])
        mnist.read_idx(path)


ROWS = [
    # NaN and inf never pass through silently
    ("contract-softmax-q-nan", lambda: edges.softmax_attention(_nan((1, 3, 2)), *_qkv()[1:]), ValueError,
     "q contains NaN"),
    ("contract-softmax-k-inf", lambda: edges.softmax_attention(_qkv()[0], _qkv()[1] * INF, _qkv()[2]), ValueError,
     "k contains NaN or infinite"),
    ("contract-brute-v-nan", lambda: edges.brute_force_attention(*_qkv()[:2], _nan((1, 3, 2))), ValueError,
     "v contains NaN"),
    ("contract-joint-marginals-q-nan", lambda: edges.joint_edge_marginals(_nan((1, 3, 2)), _qkv()[1]), ValueError,
     "q contains NaN"),
    ("contract-hopfield-energy-xi-nan", lambda: hopfield.hopfield_energy(_nan((6,)), _patterns(), 1.0), ValueError,
     "xi contains NaN"),
    ("contract-hopfield-update-patterns-nan", lambda: hopfield.hopfield_update(_patterns()[0], _nan((4, 6)), 1.0),
     ValueError, "patterns contains NaN"),
    ("contract-hopfield-retrieve-xi-nan", lambda: hopfield.retrieve(_nan((6,)), _patterns(), 1.0), ValueError,
     "xi contains NaN"),
    ("contract-slot-objective-x-nan", lambda: slots.slot_objective(_nan((1, 5, 2)), torch.zeros(1, 2, 2, dtype=F64),
                                                                   1.0), ValueError, "x contains NaN"),
    ("contract-free-energy-mu-nan", lambda: pc.free_energy(torch.zeros(2, 3, dtype=F64), torch.zeros(2, 2, dtype=F64),
                                                           torch.zeros(2, 2, 3, dtype=F64), _nan((2, 4, 3))),
     ValueError, "mu contains NaN"),
    ("contract-log-partition-scores-nan", lambda: potentials.log_partition(_nan((2, 3)), torch.ones(2, 3, dtype=bool)),
     ValueError, "scores contains NaN"),
    ("contract-deq-z0-nan", lambda: deq.solve(lambda z: 0.5 * z, _nan((2, 3))), ValueError, "z0 contains NaN"),
    ("contract-trajectory-x-nan", lambda: transformer.naive_trajectory(
        meanfield.MeanFieldAttention(3, 2, interaction="softmax", symmetry=None, generator=_g()).double(),
        _nan((1, 3, 2)), 2), ValueError, "x contains NaN"),
    # out-of-domain hyper-parameters
    ("contract-slot-objective-sigma-negative", lambda: slots.slot_objective(torch.zeros(1, 5, 2, dtype=F64),
                                                                            torch.zeros(1, 2, 2, dtype=F64), -1.0),
     ValueError, "sigma must be > 0"),
    ("contract-slot-update-sigma-inf", lambda: slots.slot_update(torch.zeros(1, 5, 2, dtype=F64),
                                                                 torch.zeros(1, 2, 2, dtype=F64), INF),
     ValueError, "sigma must be a finite number"),
    ("contract-layer-weight-init-std-nan", lambda: meanfield.MeanFieldAttention(4, 3, weight_init_std=NAN), ValueError,
     "weight_init_std must be a finite number"),
    ("contract-layer-weight-init-std-negative", lambda: meanfield.MeanFieldAttention(4, 3, weight_init_std=-0.1),
     ValueError, "weight_init_std must be >= 0"),
    ("contract-layer-tol-nan", lambda: meanfield.MeanFieldAttention(4, 3, tol=NAN), ValueError, "tol"),
    ("contract-retrieve-steps-negative", lambda: hopfield.retrieve(_patterns()[0], _patterns(), 1.0, steps=-1),
     ValueError, "steps"),
    # complex or integer arrays where reals are expected: refused, not cast
    ("contract-exact-J-complex", lambda: ising.exact_marginals(np.zeros((2, 2), complex), np.zeros(2)), TypeError,
     "J must hold real numbers"),
    ("contract-tap-J-integer", lambda: ising.tap(np.zeros((2, 2), dtype=np.int64), np.zeros(2)), TypeError,
     "J must be a floating-point array"),
    ("contract-tap-h-complex", lambda: ising.tap(np.zeros((2, 2)), np.zeros(2, complex)), TypeError, "h must hold"),
    ("contract-softmax-q-complex", lambda: edges.softmax_attention(_qkv()[0].to(torch.complex128), *_qkv()[1:]),
     TypeError, "q must be a real floating-point tensor"),
    ("contract-hopfield-patterns-integer", lambda: hopfield.retrieve(_patterns()[0], _patterns().long(), 1.0),
     TypeError, "patterns must be a real floating-point tensor"),
    ("contract-deq-z0-integer", lambda: deq.solve(lambda z: z, torch.zeros(2, 3, dtype=torch.long)), TypeError, "z0"),
    ("contract-check-array-bool", lambda: checks.check_array("m", np.ones(3, bool)), TypeError, "m must be an array"),
    # sizes checked before allocating: the parameter and the bytes, at once (under a 2 GB budget and cap)
    ("contract-size-random-patterns", lambda: _sized(lambda: hopfield.random_patterns(10**9, 1000, generator=_g())),
     ValueError, "n_patterns makes its buffers " + BYTES),
    ("contract-size-simulate-network-N", lambda: _sized(lambda: finite_n.simulate_network([1.0], 10**9, steps=10)),
     ValueError, "N makes its buffers " + BYTES),
    ("contract-size-simulate-network-steps", lambda: _sized(lambda: finite_n.simulate_network([1.0], 20,
                                                                                             steps=10**12)),
     ValueError, r"steps=1e\+12 makes simulate_network\(\) do .* MFATTN_MAX_WORK"),   # the loop's budget first
    ("contract-size-sweep-strobe", lambda: _sized(lambda: sweep.sweep([1.0], steps=50, transient=10,
                                                                      strobe_points=10**12)),
     ValueError, "strobe_points makes its buffers " + BYTES),
    ("contract-size-sk-couplings", lambda: _sized(lambda: ising.sk_couplings(10**6, 0.5)), ValueError,
     "n makes its buffers " + BYTES),
    ("contract-size-naive-trajectory", lambda: _sized(lambda: transformer.naive_trajectory(
        meanfield.MeanFieldAttention(3, 2, interaction="softmax", symmetry=None, generator=_g()).double(),
        torch.zeros(1, 3, 2, dtype=F64), 10**12)), ValueError,
     r"steps=1e\+12 makes naive_trajectory\(\) do .* MFATTN_MAX_WORK"),   # the loop's budget before the buffers
    ("contract-size-reader-budget", lambda: _with_budget("1e6", lambda: hopfield.random_patterns(
        1000, 1000, generator=_g())), ValueError, r"n_patterns makes its buffers need 16,000,000 bytes"),
    ("contract-size-budget-malformed", lambda: _with_budget("lots", lambda: checks.max_bytes()), ValueError,
     "MFATTN_MAX_BYTES must be a positive number of bytes \\(at least 1\\); got .lots."),
    ("contract-size-gzip-bomb", _gzip_bomb, ValueError, "inflates past 67,108,864 bytes"),
    ("contract-size-gzip-truncated", _gzip_truncated, ValueError, "corrupt gzip stream"),
    ("contract-idx-data-type", lambda: mnist.parse_idx("not bytes"), TypeError, "data must be the bytes"),
]
