"""The browser code's unit tests (``tests/js/*.test.mjs``, Node's own test runner): run by
``node --test tests/js/`` here, so ``make test`` runs them; skipped only when Node is missing."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def test_the_javascript_unit_tests_pass() -> None:
    node = shutil.which("node")
    if node is None:
        pytest.skip("Node.js is missing: the JavaScript unit tests (tests/js) need `node`")
    run = subprocess.run([node, "--test", "tests/js/"], cwd=ROOT, capture_output=True,
                         text=True, timeout=120, check=False)
    assert run.returncode == 0, run.stdout[-6000:] + run.stderr[-2000:]
    assert "# fail 0" in run.stdout
