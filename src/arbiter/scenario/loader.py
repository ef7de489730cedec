"""YAML loading that remembers the line of every key, so errors can name it."""

from __future__ import annotations

from typing import Any

import yaml

from .errors import ScenarioError


class LineDict(dict[str, Any]):
    """A mapping that knows the line (1-based) of itself and of each key."""

    line: int
    lines: dict[str, int]


class LineList(list[Any]):
    line: int
    lines: list[int]


MAX_BYTES = 1_000_000


def plain(value: Any) -> Any:
    """The same data as plain dicts and lists (without the line numbers)."""
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    return value


def _build(node: yaml.Node, source: str, scalars: yaml.SafeLoader) -> Any:
    if isinstance(node, yaml.MappingNode):
        out = LineDict()
        out.line = node.start_mark.line + 1
        out.lines = {}
        for key_node, value_node in node.value:
            key = _build(key_node, source, scalars)
            if not isinstance(key, str | int | bool | float):
                raise ScenarioError(source, key_node.start_mark.line + 1, "", "keys must be text")
            key = str(key)
            if key in out:
                raise ScenarioError(source, key_node.start_mark.line + 1, key, "duplicate key")
            out[key] = _build(value_node, source, scalars)
            out.lines[key] = key_node.start_mark.line + 1
        return out
    if isinstance(node, yaml.SequenceNode):
        seq = LineList(_build(v, source, scalars) for v in node.value)
        seq.line = node.start_mark.line + 1
        seq.lines = [v.start_mark.line + 1 for v in node.value]
        return seq
    assert isinstance(node, yaml.ScalarNode)
    return scalars.construct_object(node, deep=True)


def load_yaml(text: str, source: str) -> Any:
    """Parse YAML safely, with line numbers on mappings and sequences."""
    if len(text.encode()) > MAX_BYTES:
        raise ScenarioError(source, 1, "", f"file is larger than {MAX_BYTES:,} bytes")
    try:
        node = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        line = mark.line + 1 if mark is not None else 1
        problem = getattr(err, "problem", None) or str(err)
        raise ScenarioError(source, line, "", f"not valid YAML: {problem}") from None
    if node is None:
        raise ScenarioError(source, 1, "", "the file is empty")
    scalars = yaml.SafeLoader("")  # resolves each scalar's tag as safe_load would
    try:
        return _build(node, source, scalars)
    finally:
        scalars.dispose()
