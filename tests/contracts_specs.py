"""The contract registry, gathered: every public callable's entry (see contracts_registry.py)."""

from __future__ import annotations

import importlib
from pathlib import Path

from contracts_registry import Exempt, public_callables

REGISTRY: dict = {}
for _path in sorted(Path(__file__).parent.glob("contracts_specs_*.py")):
    REGISTRY.update(importlib.import_module(_path.stem).SPECS)

# Exception classes carry a message the package writes; nothing to validate.
for _key, _obj in public_callables().items():
    if isinstance(_obj, type) and issubclass(_obj, BaseException):
        REGISTRY.setdefault(_key, Exempt("an exception class: raised by the package with its own message"))
