"""YAML reading that remembers the line of every key, so errors can name it.

:func:`load_yaml` is the one way Arbiter reads YAML (scenario files through
:mod:`arbiter.scenario.loader`, content files through :func:`arbiter.core.content.read_content`;
it sits outside both, as they depend on it). It reads the parser's event stream in
a loop of its own, never PyYAML's recursive composer, and refuses a hostile file before
building it: more than :data:`~arbiter.limits.YAML_BYTES` bytes, nesting deeper than
:data:`~arbiter.limits.YAML_DEPTH`, more than :data:`~arbiter.limits.YAML_ALIASES` alias
uses, more than :data:`~arbiter.limits.YAML_NODES` nodes once aliases are expanded (each
alias counts the size of what it names, so an alias bomb is refused while its expansion is
still only counted), and an alias to a node that is still open (a self-reference).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import yaml

from .limits import YAML_ALIASES, YAML_BYTES, YAML_DEPTH, YAML_NODES


class YamlError(Exception):
    """A YAML file that cannot be read safely: ``source``, ``line`` (1-based), ``key``
    (when the problem is one key's) and ``reason`` (what is wrong)."""

    def __init__(self, source: str, line: int, key: str, message: str) -> None:
        self.source = source
        self.line = line
        self.key = key
        self.message = message
        self.reason = f"{key + ': ' if key else ''}{message}"
        super().__init__(f"{source}:{line}: {self.reason}")


class LineDict(dict[str, Any]):
    """A mapping that knows the line (1-based) of itself and of each key."""

    line: int
    lines: dict[str, int]


class LineList(list[Any]):
    line: int
    lines: list[int]


def plain(value: Any) -> Any:
    """The same data as plain dicts and lists (without the line numbers)."""
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    return value


_YAML = "tag:yaml.org,2002:"
_MERGE_TAG = _YAML + "merge"
_SCALAR_TAGS = frozenset(_YAML + name for name in
                         ("null", "bool", "int", "float", "binary", "timestamp", "str"))
_MAPPING_TAGS = frozenset({"!", _YAML + "map"})
_SEQUENCE_TAGS = frozenset({"!", _YAML + "seq"})


class _Merge:
    """The key ``<<`` of a mapping: its value is merged into the mapping."""


_MERGE = _Merge()
_NO_KEY = object()
_MERGE_NEEDS = ("a merge key '<<' takes a mapping, or a list of mappings, to merge into this "
                "one (usually an alias such as *base)")


class _Frame:
    """A mapping or sequence being read: its value so far and what it is waiting for."""

    __slots__ = ("anchor", "height", "key", "key_line", "merges", "start", "value")

    def __init__(self, value: LineDict | LineList, anchor: str | None, start: int) -> None:
        self.value = value
        self.anchor = anchor
        self.start = start  # nodes counted before this one (its size is the difference)
        self.height = 1  # levels of nesting in it, itself included
        self.key: object = _NO_KEY  # a mapping's pending key: text, _MERGE or _NO_KEY
        self.key_line = 0
        self.merges: list[LineDict] = []


def _copy(value: Any) -> Any:
    """An independent copy of an anchored value (its depth is bounded by YAML_DEPTH)."""
    if isinstance(value, LineDict):
        out = LineDict((k, _copy(v)) for k, v in value.items())
        out.line, out.lines = value.line, dict(value.lines)
        return out
    if isinstance(value, LineList):
        seq = LineList(_copy(v) for v in value)
        seq.line, seq.lines = value.line, list(value.lines)
        return seq
    return value  # scalars are immutable


class _Reader:
    """Builds LineDicts, LineLists and scalars from the parser's events, without recursion,
    counting nodes, aliases and depth as it goes."""

    def __init__(self, loader: yaml.SafeLoader, source: str) -> None:
        self.loader = loader
        self.source = source
        # PyYAML leaves these two untyped
        self.next_event: Callable[[], yaml.Event] = loader.get_event
        self.resolve: Callable[[type[yaml.Node], str, tuple[bool, bool]], str] = loader.resolve
        self.stack: list[_Frame] = []
        self.nodes = 0
        self.aliases = 0
        # anchor -> (value, nodes once expanded, levels of nesting)
        self.anchors: dict[str, tuple[Any, int, int]] = {}
        self.open: set[str] = set()
        # where an alias put the very object its anchor names: copied by unshare() once
        # the whole file is known to be within the limits
        self.slots: list[tuple[LineDict | LineList, Any]] = []
        self.result: Any = None

    def fail(self, line: int, message: str, key: str = "") -> YamlError:
        return YamlError(self.source, line, key, message)

    def read(self) -> tuple[bool, Any]:
        """(whether the file holds a document, its value)."""
        documents = 0
        while True:
            event = self.next_event()
            mark = event.start_mark
            line = mark.line + 1 if mark is not None else 1
            if isinstance(event, yaml.StreamEndEvent):
                self.unshare()
                return documents > 0, self.result
            if isinstance(event, yaml.DocumentStartEvent):
                if documents:
                    raise self.fail(line, "the file holds more than one YAML document "
                                          "(a second '---')")
                documents += 1
            elif isinstance(event, yaml.ScalarEvent):
                self.scalar(event, line)
            elif isinstance(event, yaml.AliasEvent):
                self.alias(event, line)
            elif isinstance(event, yaml.MappingStartEvent | yaml.SequenceStartEvent):
                self.start(event, line)
            elif isinstance(event, yaml.CollectionEndEvent):
                self.end()
            # StreamStart and DocumentEnd carry nothing

    def unshare(self) -> None:
        """Give each alias its own copy of what it names, as if written out in full (its
        size was counted already). Slots are in the order of the file, and an anchor's
        whole value comes before any alias to it, so a copy never holds a shared object."""
        for parent, where in self.slots:
            parent[where] = _copy(parent[where])
        self.slots.clear()

    def count(self, nodes: int, line: int) -> None:
        self.nodes += nodes
        if self.nodes > YAML_NODES:
            raise self.fail(line, f"more than {YAML_NODES:,} values (mappings, lists and "
                                  "scalars, counting each alias as what it repeats)")

    def check_anchor(self, anchor: str | None, line: int) -> None:
        if anchor is not None and (anchor in self.anchors or anchor in self.open):
            raise self.fail(line, f"the anchor &{anchor} is defined twice")

    def waiting_for_key(self) -> bool:
        return (bool(self.stack) and isinstance(self.stack[-1].value, LineDict)
                and self.stack[-1].key is _NO_KEY)

    def scalar(self, event: yaml.ScalarEvent, line: int) -> None:
        self.count(1, line)
        self.check_anchor(event.anchor, line)
        tag = event.tag
        if tag is None or tag == "!":
            tag = self.resolve(yaml.ScalarNode, event.value, event.implicit)
        value: Any
        if tag == _MERGE_TAG:
            value = _MERGE if self.waiting_for_key() else event.value
        elif tag not in _SCALAR_TAGS:
            raise self.fail(line, f"the tag {tag} is not allowed here (only plain text, "
                                  "numbers, booleans, dates and null)")
        else:
            node = yaml.ScalarNode(tag, event.value, style=event.style)
            try:
                value = self.loader.yaml_constructors[tag](self.loader, node)
            except (yaml.YAMLError, ValueError, OverflowError) as err:
                problem = getattr(err, "problem", None) or str(err)
                shown = event.value if len(event.value) <= 40 else event.value[:40] + "…"
                raise self.fail(line, f"cannot read {shown!r} as {tag[len(_YAML):]}: "
                                      f"{problem}") from None
        if event.anchor is not None:
            self.anchors[event.anchor] = (value, 1, 0)
        self.add(value, line, 0)

    def alias(self, event: yaml.AliasEvent, line: int) -> None:
        anchor = event.anchor or ""
        self.aliases += 1
        if self.aliases > YAML_ALIASES:
            raise self.fail(line, f"more than {YAML_ALIASES} aliases (*name)")
        if anchor in self.open:
            raise self.fail(line, f"the alias *{anchor} refers to the node it is in "
                                  "(a recursive alias)")
        if anchor not in self.anchors:
            raise self.fail(line, f"the alias *{anchor} names no anchor defined before it")
        value, size, height = self.anchors[anchor]
        self.count(size, line)
        if len(self.stack) + height > YAML_DEPTH:
            raise self.fail(line, f"the alias *{anchor} nests mappings and lists deeper "
                                  f"than {YAML_DEPTH} levels")
        self.add(value, line, height, shared=True)

    def start(self, event: yaml.MappingStartEvent | yaml.SequenceStartEvent, line: int) -> None:
        if self.waiting_for_key():
            raise self.fail(line, "keys must be text")
        if len(self.stack) >= YAML_DEPTH:
            raise self.fail(line, f"mappings and lists nest deeper than {YAML_DEPTH} levels")
        mapping = isinstance(event, yaml.MappingStartEvent)
        if event.tag is not None and event.tag not in (
                _MAPPING_TAGS if mapping else _SEQUENCE_TAGS):
            raise self.fail(line, f"the tag {event.tag} is not allowed here (only plain "
                                  "mappings and lists)")
        self.count(1, line)
        self.check_anchor(event.anchor, line)
        value: LineDict | LineList
        if mapping:
            value = LineDict()
            value.lines = {}
        else:
            value = LineList()
            value.lines = []
        value.line = line
        if event.anchor is not None:
            self.open.add(event.anchor)
        self.stack.append(_Frame(value, event.anchor, self.nodes - 1))

    def end(self) -> None:
        frame = self.stack.pop()
        if frame.merges:
            assert isinstance(frame.value, LineDict)
            self.merge(frame.value, frame.merges)
        if frame.anchor is not None:
            self.open.discard(frame.anchor)
            self.anchors[frame.anchor] = (frame.value, self.nodes - frame.start, frame.height)
        self.add(frame.value, frame.value.line, frame.height)

    def add(self, value: Any, line: int, height: int, shared: bool = False) -> None:
        shared = shared and isinstance(value, LineDict | LineList)
        if not self.stack:
            self.result = value
            return
        top = self.stack[-1]
        top.height = max(top.height, height + 1)
        parent = top.value
        if isinstance(parent, LineList):
            if shared:
                self.slots.append((parent, len(parent)))
            parent.append(value)
            parent.lines.append(line)
            return
        if top.key is _NO_KEY:
            if value is _MERGE:
                key = "<<"
            elif isinstance(value, str | int | bool | float):
                key = str(value)
            else:
                raise self.fail(line, "keys must be text")
            if key in parent or (key == "<<" and top.merges):
                raise self.fail(line, "duplicate key", key)
            top.key = _MERGE if value is _MERGE else key
            top.key_line = line
            return
        if top.key is _MERGE:
            sources = value if isinstance(value, LineList) else [value]
            if not sources or not all(isinstance(s, LineDict) for s in sources):
                raise self.fail(top.key_line, _MERGE_NEEDS, "<<")
            top.merges.extend(sources)
        else:
            assert isinstance(top.key, str)
            parent[top.key] = value
            parent.lines[top.key] = top.key_line
            if shared:
                self.slots.append((parent, top.key))
        top.key = _NO_KEY

    def merge(self, out: LineDict, merges: list[LineDict]) -> None:
        """YAML's merge key: the merged mappings' keys first (the first mapping to name a
        key wins), then the mapping's own keys, which win over any merged one."""
        own, own_lines = dict(out), out.lines
        out.clear()
        out.lines = {}
        for source in merges:
            for key, value in source.items():
                if key not in out and key not in own:
                    out[key] = value
                    out.lines[key] = source.lines[key]
                    if isinstance(value, LineDict | LineList):  # still the source's own
                        self.slots.append((out, key))
        for key, value in own.items():
            out[key] = value
            out.lines[key] = own_lines[key]


def _size_error(text: str) -> bool:
    if len(text) > YAML_BYTES:  # each character is at least one byte
        return True
    return len(text) * 4 > YAML_BYTES and len(text.encode("utf-8", "surrogatepass")) > YAML_BYTES


def load_yaml(text: str, source: str) -> Any:
    """Parse YAML safely, with line numbers on mappings and sequences.

    YamlError, naming ``source`` and the line, for a file that is not valid YAML, is
    empty, or is over one of the limits of :mod:`arbiter.limits` (``YAML_*``); nothing is
    built past the point where a limit is crossed."""
    if _size_error(text):
        raise YamlError(source, 1, "", f"file is larger than {YAML_BYTES:,} bytes")
    try:
        loader = yaml.SafeLoader(text)  # refuses a character YAML does not allow
    except yaml.reader.ReaderError as err:
        line = text.count("\n", 0, err.position) + 1
        code = err.character if isinstance(err.character, int) else 0
        raise YamlError(source, line, "", f"not valid YAML: the character #x{code:04x} "
                                              "is not allowed in YAML") from None
    try:
        found, value = _Reader(loader, source).read()
    except yaml.MarkedYAMLError as err:
        mark = err.problem_mark
        line = mark.line + 1 if mark is not None else 1
        problem = err.problem or str(err)
        raise YamlError(source, line, "", f"not valid YAML: {problem}") from None
    finally:
        loader.dispose()
    if not found:
        raise YamlError(source, 1, "", "the file is empty")
    return value
