"""Scenario files' YAML: the one safe reader (:mod:`arbiter.yamlsafe`), its errors as
:class:`ScenarioError`s."""

from __future__ import annotations

from typing import Any

from ..yamlsafe import LineDict, LineList, YamlError, plain
from ..yamlsafe import load_yaml as _load
from .errors import ScenarioError


def load_yaml(text: str, source: str) -> Any:
    """Parse YAML safely, with line numbers on mappings and sequences; ScenarioError
    naming ``source`` and the line for a file that is not valid YAML, is empty, or is over
    one of the ``YAML_*`` limits of :mod:`arbiter.limits`."""
    try:
        return _load(text, source)
    except YamlError as err:
        raise ScenarioError(err.source, err.line, err.key, err.message) from None


__all__ = ["LineDict", "LineList", "load_yaml", "plain"]
