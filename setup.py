"""The package's build, for the compiled route only: ``pyproject.toml`` declares everything
else. With ``ARBITER_MYPYC=1`` the modules ``tools/fast.py`` lists are compiled with mypyc
into the wheel (needs mypy, setuptools and a C compiler in the building environment):

    ARBITER_MYPYC=1 pip install --no-build-isolation .

Without it, the package is pure Python, the default and the reference.
"""

from __future__ import annotations

import os
import runpy
from pathlib import Path
from typing import Any

from setuptools import setup

HERE = Path(__file__).resolve().parent
options: dict[str, Any] = {}
if os.environ.get("ARBITER_MYPYC") == "1":
    from mypyc.build import mypycify

    fast = runpy.run_path(str(HERE / "tools" / "fast.py"))
    files = [f"src/{rel}" for rel in fast["sources"](HERE / "src")]
    options["ext_modules"] = mypycify(files, opt_level="3", debug_level="0")
setup(**options)
