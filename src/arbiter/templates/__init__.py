"""``arbiter new-ruleset NAME``: a ruleset package of the one shape (docs/extending.md),
written from the files of ``templates/ruleset/`` with the ruleset's name put in.

The package (``package/*.tmpl``) goes to ``DIR/NAME/``, its scenario
(``scenarios/*.tmpl``) to ``SCENARIOS/NAME/``, its page (``docs/page.md.tmpl``) to
``DOCS/NAME.md``. In a template, ``{{name}}`` is the ruleset's
name (``duel``), ``{{Name}}`` its class prefix (``Duel``) and ``{{PREFIX}}`` its rule ids'
namespace (``DUEL``: ``DUEL-ATK-1``, ambiguity ``ADUEL-1``)."""

from __future__ import annotations

import keyword
import re
from pathlib import Path

TEMPLATES = Path(__file__).resolve().parent / "ruleset"
NAME = re.compile(r"[a-z]{2,11}")
"""A new ruleset's name: 2 to 11 lowercase letters (its upper case is its rule ids' namespace,
which :data:`arbiter.coverage.ID` reads as up to 12 letters with the ambiguities' ``A``)."""
SUFFIX = ".tmpl"


class NewRulesetError(ValueError):
    """The name or the folder cannot take a new ruleset; the message says why."""


def entry_point(name: str, module: str | None = None) -> str:
    """The line to add under ``[project.entry-points."arbiter.rulesets"]`` in pyproject.toml."""
    return f'{name} = "{module or name}:RULESET"'


def fill(text: str, name: str) -> str:
    """A template's text with the ruleset's name put in."""
    return (text.replace("{{name}}", name).replace("{{Name}}", name.capitalize())
            .replace("{{PREFIX}}", name.upper()))


def planned(name: str, folder: Path, scenarios: Path, docs: Path) -> dict[Path, Path]:
    """Each file to write, from its template."""
    out: dict[Path, Path] = {}
    for part, target in (("package", folder / name), ("scenarios", scenarios / name)):
        for template in sorted((TEMPLATES / part).glob(f"*{SUFFIX}")):
            out[target / template.name.removesuffix(SUFFIX)] = template
    out[docs / f"{name}.md"] = TEMPLATES / "docs" / f"page.md{SUFFIX}"
    return out


def write_ruleset(name: str, folder: Path, scenarios: Path, docs: Path,
                  installed: tuple[str, ...] = ()) -> list[Path]:
    """Write the package ``folder/name``, its scenario under ``scenarios/name`` and its page
    ``docs/name.md`` (with the command table's markers, to fill with ``arbiter commands
    NAME --write``); the paths written. Nothing is written when the name is wrong or a file
    is already there."""
    if not NAME.fullmatch(name) or keyword.iskeyword(name):
        raise NewRulesetError(f"ruleset name {name!r}: give 2 to 11 lowercase letters "
                              "(it names the package, and its upper case the rule ids)")
    if name in installed:
        raise NewRulesetError(f"a ruleset named {name!r} is already installed")
    files = planned(name, folder, scenarios, docs)
    there = [str(path) for path in files if path.exists()]
    if there:
        raise NewRulesetError(f"{', '.join(there)} already exists: nothing written")
    for path, template in files.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(fill(template.read_text(encoding="utf-8"), name), encoding="utf-8")
    return list(files)
