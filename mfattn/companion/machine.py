"""What machine a run or a benchmark ran on: the processor's model name (benchmarks and manifests record it)."""

from __future__ import annotations

import platform

__all__ = ["cpu_model"]


def cpu_model() -> str:
    """The processor's model name from /proc/cpuinfo (Linux), else what :mod:`platform` knows, else ``"cpu"``."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as fh:
            for line in fh:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "cpu"
