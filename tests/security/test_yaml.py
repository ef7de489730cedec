"""Hostile YAML in scenario and content files is refused, before anything is expanded, as
an error naming the file and the line (never a traceback, a hang or a memory blow-up)."""

from __future__ import annotations

import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from arbiter import yamlsafe
from arbiter.core.content import read_content
from arbiter.core.errors import SchemaError
from arbiter.limits import YAML_ALIASES, YAML_BYTES, YAML_DEPTH, YAML_NODES
from arbiter.scenario import ScenarioError, run_file
from arbiter.scenario.loader import LineDict, LineList, load_yaml

BOMB = ('a: &a ["x","x","x","x","x","x","x","x","x"]\n'
        + "".join(f"{name}: &{name} [{','.join(['*' + prev] * 9)}]\n"
                  for prev, name in zip("abcdefgh", "bcdefghi", strict=True)))
"""The "billion laughs": nine levels of nine aliases each, 9**9 strings once expanded."""
BOMB_LINE = 6
"""``f`` is where the expanded size first passes YAML_NODES: a..e hold 74,733 nodes
expanded, and each ``*e`` adds 66,430 more."""

DEEP_LIST = "[" * 10_000 + "]" * 10_000
DEEP_MAPPING = "{a: " * 10_000 + "1" + "}" * 10_000
DEEP_BLOCK = ("".join(" " * i + "a:\n" for i in range(YAML_DEPTH + 1))
              + " " * (YAML_DEPTH + 1) + "1\n")
"""Block mappings, one per line, one more level than allowed: refused on the last 'a:'."""


def refusal(text: str) -> ScenarioError:
    with pytest.raises(ScenarioError) as info:
        load_yaml(text, "t.yaml")
    return info.value


def no_expansion(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """Make copying an anchored value (what expanding an alias means here) and PyYAML's
    recursive composer fail the test if they are called."""
    calls: list[Any] = []

    def forbidden(*args: Any, **kwargs: Any) -> Any:
        calls.append(args)
        raise AssertionError("expanded or composed recursively before the refusal")

    monkeypatch.setattr(yamlsafe, "_copy", forbidden)
    monkeypatch.setattr(yaml.composer.Composer, "compose_node", forbidden)
    return calls


def measured(call: Callable[[], object]) -> tuple[BaseException, float, int]:
    """(the exception ``call`` raised, its CPU seconds, its peak traced bytes)."""
    tracemalloc.start()
    started = time.process_time()
    try:
        call()
    except Exception as err:  # returned for the caller to check
        caught: BaseException = err
    else:
        raise AssertionError("not refused")
    finally:
        cpu = time.process_time() - started
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    return caught, cpu, peak


BOMB_CPU = 0.100
"""CPU seconds a refusal may take, tracemalloc on. The refusal takes a few milliseconds (up to
12 ms on a slow host in the parallel suite, where 10 ms was the bound); the expansion it
refuses (9**9 strings) would take minutes and gigabytes, so the bound still tells them
apart. That nothing was expanded is asserted directly (``no_expansion``, the peak memory)."""


# -- the tester's inputs ------------------------------------------------------------------

def test_the_bomb_is_small() -> None:
    assert len(BOMB.encode()) < 600 and BOMB.count("*") == 72 < YAML_ALIASES


def test_the_alias_bomb_is_refused_before_expansion(monkeypatch: pytest.MonkeyPatch) -> None:
    load_yaml("a: [1, {b: 2}]\n", "warm.yaml")  # PyYAML's first-use set-up is not the bomb's
    calls = no_expansion(monkeypatch)
    err, cpu, peak = measured(lambda: load_yaml(BOMB, "bomb.yaml"))
    assert isinstance(err, ScenarioError)
    assert str(err) == (f"bomb.yaml:{BOMB_LINE}: more than {YAML_NODES:,} values (mappings, "
                        "lists and scalars, counting each alias as what it repeats)")
    assert (err.source, err.line) == ("bomb.yaml", BOMB_LINE)
    assert calls == []
    assert cpu < BOMB_CPU, f"{cpu * 1000:.1f} ms of CPU"
    assert peak < 2_000_000, f"{peak:,} bytes at the peak"


def test_the_alias_bomb_in_a_content_file_names_the_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "templates.yaml"
    path.write_text("schema: 1\n" + BOMB, encoding="utf-8")
    err, cpu, peak = measured(lambda: read_content(path))
    assert isinstance(err, SchemaError)
    assert str(err).startswith(f"{path}:{BOMB_LINE + 1}: cannot read this content file: "
                               f"more than {YAML_NODES:,} values")
    assert cpu < BOMB_CPU and peak < 2_000_000


def test_the_alias_bomb_as_a_scenario_file_is_a_scenario_error(tmp_path: Path) -> None:
    path = tmp_path / "bomb.yaml"
    path.write_text(BOMB, encoding="utf-8")
    with pytest.raises(ScenarioError, match=rf"^{path}:{BOMB_LINE}: more than "):
        run_file(path)


@pytest.mark.parametrize(("text", "line"), [(DEEP_LIST, 1), (DEEP_MAPPING, 1),
                                             (DEEP_BLOCK, YAML_DEPTH + 1)],
                         ids=["list", "flow-mapping", "block-mapping"])
def test_deep_nesting_is_refused_without_recursion(monkeypatch: pytest.MonkeyPatch, text: str,
                                                   line: int) -> None:
    calls = no_expansion(monkeypatch)
    err, cpu, peak = measured(lambda: load_yaml(text, "deep.yaml"))
    assert isinstance(err, ScenarioError)
    assert str(err) == f"deep.yaml:{line}: mappings and lists nest deeper than {YAML_DEPTH} levels"
    assert calls == []
    assert peak < 4_000_000, f"{peak:,} bytes at the peak"
    assert cpu < 2.0  # PyYAML's scanner looks about 1,024 tokens ahead; no more


def test_nesting_up_to_the_limit_is_read() -> None:
    data = load_yaml("[" * YAML_DEPTH + "]" * YAML_DEPTH, "t.yaml")
    for _ in range(YAML_DEPTH - 1):
        assert isinstance(data, LineList) and len(data) == 1
        data = data[0]
    assert data == []


def test_deep_nesting_in_a_content_file_names_the_file(tmp_path: Path) -> None:
    path = tmp_path / "templates.yaml"
    path.write_text("schema: 1\nwolf: " + DEEP_LIST + "\n", encoding="utf-8")
    with pytest.raises(SchemaError) as info:
        read_content(path)
    assert str(info.value) == (f"{path}:2: cannot read this content file: mappings and lists "
                               f"nest deeper than {YAML_DEPTH} levels")


@pytest.mark.parametrize(("text", "line"), [
    ("&a [*a]\n", 1),
    ("a: &a\n  b: *a\n", 2),
    ("a: &a [1, [2, *a]]\n", 1),
])
def test_a_self_referencing_alias_is_refused(monkeypatch: pytest.MonkeyPatch, text: str,
                                             line: int) -> None:
    calls = no_expansion(monkeypatch)
    err = refusal(text)
    assert str(err) == (f"t.yaml:{line}: the alias *a refers to the node it is in "
                        "(a recursive alias)")
    assert calls == []


MERGE_NEEDS = ("<<: a merge key '<<' takes a mapping, or a list of mappings, to merge into "
               "this one (usually an alias such as *base)")


@pytest.mark.parametrize(("text", "line"), [
    ("<<: 5\n", 1),
    ("<<: [1, 2]\n", 1),
    ("a:\n  <<: 5\n", 2),
    ("a:\n  <<: [1, 2]\n", 2),
    ("base: &b {x: 1}\na:\n  <<: [*b, 2]\n", 3),
    ("a:\n  <<: []\n", 2),
    ("a:\n  <<:\n", 2),
])
def test_a_malformed_merge_key_is_refused(text: str, line: int) -> None:
    assert str(refusal(text)) == f"t.yaml:{line}: {MERGE_NEEDS}"


def test_a_malformed_merge_key_in_a_content_file_names_the_file(tmp_path: Path) -> None:
    path = tmp_path / "templates.yaml"
    path.write_text("schema: 1\nwolf:\n  <<: 5\n", encoding="utf-8")
    with pytest.raises(SchemaError) as info:
        read_content(path)
    assert str(info.value) == f"{path}:3: cannot read this content file: {MERGE_NEEDS}"


# -- every other limit ----------------------------------------------------------------------

def test_too_many_aliases_are_refused_at_the_one_past_the_limit() -> None:
    text = "a: &a 1\nb:\n" + "- *a\n" * (YAML_ALIASES + 1)
    assert str(refusal(text)) == (f"t.yaml:{YAML_ALIASES + 3}: more than {YAML_ALIASES} "
                                  "aliases (*name)")
    allowed = load_yaml("a: &a 1\nb:\n" + "- *a\n" * YAML_ALIASES, "t.yaml")
    assert allowed["b"] == [1] * YAML_ALIASES


def test_too_many_nodes_are_refused_counting_as_they_come(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(yamlsafe, "YAML_NODES", 10)
    # the list and nine scalars are ten nodes; the tenth scalar is one too many
    assert load_yaml("- 1\n" * 9, "t.yaml") == [1] * 9
    err = refusal("- 1\n" * 10 + "- 1\n" * 1000)
    assert (err.line, str(err).split(": ", 1)[1]) == (
        10, "more than 10 values (mappings, lists and scalars, counting each alias as what it "
            "repeats)")


def test_an_alias_counts_what_it_repeats(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(yamlsafe, "YAML_NODES", 20)
    # the mapping, 'a', the list and its four items: 7 nodes; each *a adds 5 more
    assert len(load_yaml("a: &a [1, 2, 3, 4]\nb: [*a, *a]\n", "t.yaml")["b"]) == 2
    assert refusal("a: &a [1, 2, 3, 4]\nb: [*a, *a]\nc: [*a]\n").line == 3


def test_an_alias_counts_its_depth() -> None:
    inner = "[" * (YAML_DEPTH - 1) + "]" * (YAML_DEPTH - 1)
    assert load_yaml(f"- &a {inner}\n", "t.yaml")  # 64 levels with the outer list
    err = refusal(f"- &a {inner}\n- [*a]\n")
    assert str(err) == (f"t.yaml:2: the alias *a nests mappings and lists deeper than "
                        f"{YAML_DEPTH} levels")


def test_a_file_over_the_size_limit_is_refused_before_it_is_parsed(
        monkeypatch: pytest.MonkeyPatch) -> None:
    calls = no_expansion(monkeypatch)
    monkeypatch.setattr(yamlsafe._Reader, "read", lambda self: calls.append("read"))
    for text in ("#" * (YAML_BYTES + 1), "#" + "é" * (YAML_BYTES // 2)):  # bytes, not chars
        assert str(refusal(text)) == f"t.yaml:1: file is larger than {YAML_BYTES:,} bytes"
    assert calls == []


def test_a_content_file_over_the_size_limit_is_not_even_read(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "templates.yaml"
    path.write_text("schema: 1\n" + "#" * YAML_BYTES, encoding="utf-8")
    monkeypatch.setattr(Path, "read_text", lambda *a, **k: pytest.fail("read"))
    with pytest.raises(SchemaError) as info:
        read_content(path)
    assert str(info.value) == (f"{path}:1: cannot read this content file: it is larger than "
                               f"{YAML_BYTES:,} bytes")


# -- every YAML error is an error naming the file and the line ---------------------------------

@pytest.mark.parametrize(("text", "line", "message"), [
    ("ruleset: demo\nsteps: [}", 2, "not valid YAML: expected the node content, but found '}'"),
    ("a: 1\nb: \x00\n", 2, "not valid YAML: the character #x0000 is not allowed in YAML"),
    ("a: 1\nb: *nope\n", 2, "the alias *nope names no anchor defined before it"),
    ("a: &x 1\nb: &x 2\n", 2, "the anchor &x is defined twice"),
    ("a: 1\n---\nb: 2\n", 2, "the file holds more than one YAML document (a second '---')"),
    ("a: 2020-13-45\n", 1, "cannot read '2020-13-45' as timestamp: month must be in 1..12"),
    ("a: !!int x\n", 1, "cannot read 'x' as int: invalid literal for int() with base 10: 'x'"),
    ("a:\n  b: !!python/object:os.system x\n", 2,
     "the tag tag:yaml.org,2002:python/object:os.system is not allowed here (only plain text, "
     "numbers, booleans, dates and null)"),
    ("a: !!set {x, y}\n", 1,
     "the tag tag:yaml.org,2002:set is not allowed here (only plain mappings and lists)"),
    ("a: 1\n? [b]\n: 2\n", 2, "keys must be text"),
    ("a: 1\na: 2\n", 2, "a: duplicate key"),
    ("", 1, "the file is empty"),
])
def test_yaml_errors_name_the_file_and_the_line(text: str, line: int, message: str) -> None:
    assert str(refusal(text)) == f"t.yaml:{line}: {message}"


def test_a_yaml_error_in_a_content_file_is_a_schema_error(tmp_path: Path) -> None:
    path = tmp_path / "templates.yaml"
    for text, message in [("schema: 1\nwolf: [}\n", "2: cannot read this content file: not "
                           "valid YAML: expected the node content, but found '}'"),
                          ("schema: 1\nwolf: &w [*w]\n", "2: cannot read this content file: "
                           "the alias *w refers to the node it is in (a recursive alias)")]:
        path.write_text(text, encoding="utf-8")
        with pytest.raises(SchemaError) as info:
            read_content(path)
        assert str(info.value) == f"{path}:{message}"
    path.write_bytes(b"schema: 1\nwolf: \xff\n")
    with pytest.raises(SchemaError, match=r":2: cannot read this content file: it is not UTF-8"):
        read_content(path)


# -- what still works ------------------------------------------------------------------------

def test_aliases_and_merges_keep_their_lines_and_are_independent_copies() -> None:
    data = load_yaml(
        "base: &b {x: 1, y: [1, 2]}\n"    # 1
        "more: &m {y: 9, z: 3}\n"         # 2
        "copy: *b\n"                      # 3
        "list: [*b, *m]\n"                # 4
        "merged:\n"                       # 5
        "  <<: [*b, *m]\n"                # 6
        "  x: 5\n",                       # 7
        "t.yaml")
    assert isinstance(data, LineDict)
    assert data == {"base": {"x": 1, "y": [1, 2]}, "more": {"y": 9, "z": 3},
                    "copy": {"x": 1, "y": [1, 2]},
                    "list": [{"x": 1, "y": [1, 2]}, {"y": 9, "z": 3}],
                    "merged": {"y": [1, 2], "z": 3, "x": 5}}
    assert data.lines == {"base": 1, "more": 2, "copy": 3, "list": 4, "merged": 5}
    assert data["copy"].line == 1 and data["list"].lines == [4, 4]
    assert data["merged"].lines == {"y": 1, "z": 2, "x": 7}  # where each value was written
    containers: list[Any] = []

    def walk(value: Any) -> None:
        if isinstance(value, dict | list):
            containers.append(value)
            for item in value.values() if isinstance(value, dict) else value:
                walk(item)

    walk(data)
    assert len({id(c) for c in containers}) == len(containers)  # nothing shared


def test_scenarios_are_read_without_pyyaml_s_recursive_composer(
        monkeypatch: pytest.MonkeyPatch) -> None:
    def forbidden(*args: Any) -> Any:
        raise AssertionError("PyYAML's recursive composer was used")

    monkeypatch.setattr(yaml.composer.Composer, "compose_node", forbidden)
    root = Path(__file__).resolve().parents[2] / "scenarios"
    path = sorted(root.glob("*/*.yaml"))[0]
    assert run_file(path).passed
