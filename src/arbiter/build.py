"""Which build of the rules engine this process runs: ``compiled`` when the modules
``tools/fast.py`` lists are mypyc's extension modules (``ARBITER_MYPYC=1 pip install .``,
docs/performance.md), else ``pure``. The server says it in ``/api/health`` and at start."""

from __future__ import annotations

from typing import Literal

Build = Literal["compiled", "pure"]


def build() -> Build:
    """``compiled`` when the engine's ``core/ruleset`` module was loaded from an extension
    module, ``pure`` when from its Python source."""
    from .core import ruleset

    return "pure" if str(ruleset.__file__).endswith(".py") else "compiled"
