"""Typed event payloads, made from each ``@event`` declaration (``core/catalogue.py``).

An event's payload stays a plain ``dict`` at run time (the simulator builds hundreds per
encounter, and a dict is what the log stores), and its *type* is a ``TypedDict`` made from
the declaration in two forms that cannot drift apart, since both are read from it:

- **for mypy**: :func:`module_text` writes each package's ``payloads.py`` (the kernel's
  :mod:`arbiter.core.kernel_payloads`, each ruleset's ``rulesets/NAME/payloads.py``;
  ``arbiter payloads --write`` regenerates them, a test checks they are current), and each
  ``apply_*`` method is annotated with its event's class, so a misspelt or mistyped field
  is a type error;
- **at run time**: :func:`payload_type` builds the same shape for msgspec, and
  :func:`problems` checks a stored or imported payload against it (unknown fields, missing
  ones, wrong types) before anything applies it.

A field is present in every payload of its event unless the declaration lists it as
``optional`` (absent or null). ``economy`` is carried by any event (:data:`CARRIED`): what
is left of the actor's turn after it, one kernel rule (``Ruleset.evolve``).
"""

from __future__ import annotations

import keyword
from collections.abc import Iterable, Mapping
from importlib import import_module
from pathlib import Path
from typing import TYPE_CHECKING, Any, NotRequired, Required, TypedDict

import msgspec

from .deferred import Deferred

if TYPE_CHECKING:
    from .catalogue import Arg, EventSpec

_STATIC = {
    "creature": "str", "creatures": "list[str]", "integer": "int", "number": "float",
    "flag": "bool", "choice": "str", "text": "str", "dice": "str",
    "square": "list[int]", "squares": "list[list[int]]",
    "mapping": "Mapping[str, Any]", "list": "Sequence[Any]", "value": "Any",
    "command": "Mapping[str, Any]",
}
"""The type mypy reads for a field of each kind (a mapping may be a dice breakdown written
out only when read: a :class:`~arbiter.core.deferred.Deferred`, which is a ``Mapping``)."""

_RUNTIME: dict[str, Any] = {
    "creature": str, "creatures": list[str], "integer": int, "number": float, "flag": bool,
    "choice": str, "text": str, "dice": str, "square": list[int],
    "squares": list[list[int]], "mapping": dict[str, Any], "list": list[Any], "value": Any,
    "command": dict[str, Any],
}
"""The type a stored payload's field is checked against (JSON: a square is a list)."""


def class_name(event_type: str) -> str:
    """``turn_started`` -> ``TurnStarted``: an event's payload class."""
    return "".join(part[:1].upper() + part[1:] for part in event_type.split("_"))


def static_type(arg: Arg, required: bool) -> str:
    """A field's type as mypy reads it, null allowed when the field is optional."""
    text = _STATIC[arg.kind]
    if required:
        return f"Required[{text}]"
    return "NotRequired[Any]" if text == "Any" else f"NotRequired[{text} | None]"


_MADE: dict[int, type] = {}


def payload_type(spec: EventSpec) -> type:
    """The msgspec type of an event's payload: a ``TypedDict`` of its declared fields (made
    once per declaration). Any field may also be null, as a null field reads as absent."""
    made: type | None = _MADE.get(id(spec))
    if made is None:
        fields: dict[str, Any] = {}
        for name, arg in spec.fields.items():
            kind = _RUNTIME[arg.kind] | None
            fields[name] = Required[kind] if spec.required(name) else NotRequired[kind]
        made = _typed_dict(class_name(spec.type), fields)
        _MADE[id(spec)] = made
    return made


_typed_dict: Any = TypedDict
"""``TypedDict`` called with a name made at run time (mypy wants a literal)."""


def problems(spec: EventSpec, data: Mapping[str, Any]) -> list[str]:
    """What is wrong with a payload of ``spec``'s event, in words (empty when it conforms):
    fields it does not declare, declared ones it lacks, values of the wrong type."""
    out = [f"{_short(k)!r} is not a field of {spec.type!r}" for k in data
           if k not in spec.fields]
    out += [f"{k!r} is missing" for k in spec.fields if spec.required(k) and k not in data]
    if out:
        return out
    # a value written out only when read (a Deferred) is a mapping, checked as one unbuilt
    shown = {k: ({} if type(v) is Deferred else v) for k, v in data.items()}
    try:
        msgspec.convert(shown, payload_type(spec), strict=True)
    except msgspec.ValidationError as err:
        return [_sentence(str(err))]
    return []


def _short(key: object) -> str:
    """A field name as a message shows it: at most 40 characters (an import names what it
    refuses, and a hostile file's keys can be long)."""
    text = str(key)
    return text if len(text) <= 40 else f"{text[:37]}..."


def _sentence(message: str) -> str:
    """msgspec's ``Expected `int`, got `str` - at `$.taken``` as ``taken: expected int,
    got str``."""
    text, _, where = message.partition(" - at `$")
    where = where.rstrip("`").lstrip(".")
    text = text.replace("`", "")
    return f"{where}: {text[:1].lower()}{text[1:]}" if where else text


def module_text(specs: Iterable[EventSpec], where: str) -> str:
    """The source of a package's ``payloads.py``: a ``TypedDict`` per event declared there."""
    body: list[str] = []
    ordered = sorted(specs, key=lambda s: s.type)
    for spec in ordered:
        name = class_name(spec.type)
        typed = [(k, static_type(a, spec.required(k))) for k, a in spec.fields.items()]
        if any(keyword.iskeyword(k) for k, _ in typed):  # ``from``, ``as``: the call form
            body += ["", "", f'{name} = TypedDict("{name}", {{']
            body += [f'    "{k}": {t},' for k, t in typed]
            body += ["}, total=False)"]
            continue
        body += ["", "", f"class {name}(TypedDict, total=False):"]
        body += [f"    {k}: {t}" for k, t in typed]
    text = "\n".join(body)
    abc = [n for n in ("Mapping", "Sequence") if f"{n}[" in text]
    typing = [n for n in ("Any", "NotRequired", "Required") if f"{n}[" in text or
              (n == "Any" and "Any]" in text)]
    head = [f'"""The payload of each event {where} declares, as a ``TypedDict`` for mypy.',
            "",
            "Written by ``arbiter payloads --write`` from the ``@event`` declarations",
            '(:mod:`arbiter.core.payloads`); do not edit by hand."""',
            "",
            "from __future__ import annotations",
            ""]
    if abc:
        head.append(f"from collections.abc import {', '.join(abc)}")
    head += [f"from typing import {', '.join([*typing, 'TypedDict'])}", "", "__all__ = ["]
    head += [f'    "{class_name(s.type)}",' for s in ordered]
    head.append("]")
    return "\n".join(head) + text + "\n"


KERNEL = "arbiter.core"
"""The kernel's package: its payload classes are in ``kernel_payloads.py`` (``payloads.py``
here is this module)."""


def _file_of(package: str) -> Path:
    folder = Path(str(import_module(package).__file__)).parent
    return folder / ("kernel_payloads.py" if package == KERNEL else "payloads.py")


def generated() -> dict[Path, str]:
    """Each package's ``payloads.py`` as :func:`module_text` writes it, for every event of
    every installed ruleset and of the campaign's roster, by the package that declares it."""
    from .catalogue import events_of
    from .registry import available, load_ruleset
    from .roster import Roster

    by_package: dict[str, dict[str, EventSpec]] = {}
    kinds: list[type] = [Roster, *(type(load_ruleset(name)) for name in available())]
    for kind in kinds:
        for spec in events_of(kind).values():
            package = spec.module.rpartition(".")[0] or spec.module
            by_package.setdefault(package, {})[spec.type] = spec
    out: dict[Path, str] = {}
    for package, specs in sorted(by_package.items()):
        where = "the kernel" if package == KERNEL else f"``{package}``"
        out[_file_of(package)] = module_text(specs.values(), where)
    return out

