"""tools/runtime_sweep.py loaded as a module (it is a script, not part of the package)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

TOOL = Path(__file__).parent.parent / "tools" / "runtime_sweep.py"


def load() -> ModuleType:
    spec = importlib.util.spec_from_file_location("runtime_sweep", TOOL)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["runtime_sweep"] = module
    spec.loader.exec_module(module)
    return module
