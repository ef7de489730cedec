"""The command and event catalogue: declarations, validation from them alone, authority,
sentences, and the documents made from them."""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Any

import pytest

from arbiter.core import Command, binding, catalogue, load_ruleset
from arbiter.core.binding import parse_args
from arbiter.core.catalogue import (
    Arg,
    InvalidArgument,
    NotAllowed,
    authorize,
    markdown,
    references,
    render,
    with_table,
)
from arbiter.scenario import scenario_files

from ..support import Played, installed, seeds

ROOT = Path(__file__).resolve().parents[2]
RULESETS = installed()


@pytest.mark.parametrize("name", RULESETS)
def test_every_command_and_event_is_declared(name: str) -> None:
    ruleset = load_ruleset(name)
    handlers = {a[3:] for a in dir(ruleset) if a.startswith("do_")}
    appliers = {a[6:] for a in dir(ruleset) if a.startswith("apply_")} - {"economy_of"}
    assert set(ruleset.catalogue) == handlers
    assert set(ruleset.events) == appliers
    for spec in ruleset.catalogue.values():
        assert spec.summary and spec.summary[0].isupper(), spec.name
        assert spec.who in ("gm", "player")
        if spec.who == "player":
            assert spec.actor != "none", f"{spec.name}: a player names the creature acting"
        spec.schema()  # compiles
    for event in ruleset.events.values():
        assert event.gm and event.player, event.type


def validate(command: dict[str, Any], ruleset: str = "realms") -> InvalidArgument:
    with pytest.raises(InvalidArgument) as caught:
        load_ruleset(ruleset).validate(Command.from_json(command))
    return caught.value


def test_validation_names_the_field_and_what_would_be_accepted() -> None:
    err = validate({"do": "damage", "target": "ogre", "amount": 1e400})
    assert err.field == "command.amount" and "whole number" in str(err)
    err = validate({"do": "damage", "target": "ogre", "amount": "lots"})
    assert err.field == "command.amount"
    err = validate({"do": "damage", "target": "ogre", "amount": 10**30})
    assert err.field == "command.amount" and "from" in str(err)
    err = validate({"do": "damage", "amount": 3})
    assert err.field == "command.target" and "missing argument 'target'" in str(err)
    err = validate({"do": "note", "text": "x", "txt": "y"})
    assert err.field == "command.txt" and "did you mean 'text'" in str(err)
    err = validate({"do": "damage", "target": "\ud800", "amount": 3})
    assert err.field == "command.target"
    err = validate({"do": "note", "text": "bell\x07"})
    assert err.field == "command.text"
    err = validate({"do": "fly"})
    assert err.field == "command.do" and "realms has no command 'fly'" in str(err)
    err = validate({"do": "damage", "actor": "nia", "target": "ogre", "amount": 3})
    assert err.field == "command.actor" and "takes no 'actor'" in str(err)
    err = validate({"do": "damage", "target": "ogre", "amount": True})
    assert err.field == "command.amount"


def test_an_actor_is_a_creature_id_however_many_were_seen_before() -> None:
    """``binding`` keeps the actor ids it matched (bounded): a good id seen before is
    taken without the pattern, a bad one is refused every time, and a full memo empties."""
    spec = load_ruleset("realms").spec("attack")

    def actor_error(actor: object) -> InvalidArgument | None:
        try:
            parse_args(spec, Command("attack", actor, {"target": "orc"}))  # type: ignore[arg-type]
        except InvalidArgument as err:
            return err
        return None

    for bad in ("", "no spaces", "x" * 500, "\ud800", 7, ["nia"], {"a": 1}):
        for _ in range(2):
            err = actor_error(bad)
            assert err is not None and err.field == "command.actor", bad
            assert "'actor' must be a creature id" in str(err)
    assert actor_error("nia") is None and "nia" in binding._ACTORS
    for i in range(binding._ACTORS_KEPT + 5):
        assert actor_error(f"c{i}") is None
    assert len(binding._ACTORS) <= binding._ACTORS_KEPT
    assert actor_error("no spaces") is not None


def test_arguments_bound_before_bind_the_same_and_a_wrong_type_is_refused_every_time() -> None:
    """``binding`` keeps the arguments it converted (small scalars only, bounded): the same
    arguments bind to the same values, an argument equal to one seen before but of another
    type (``1`` for ``True``, ``0`` for ``False``) is still refused, a long text is not
    kept, and a full memo empties."""
    spec = load_ruleset("realms").spec("attack")

    def bind(args: dict[str, Any]) -> Any:
        return parse_args(spec, Command("attack", "nia", args))

    first = bind({"target": "orc", "unaware": True, "bonus": 2})
    again = bind({"target": "orc", "unaware": True, "bonus": 2})
    assert (again.target, again.unaware, again.bonus, again.defend) == ("orc", True, 2, False)
    assert again == first
    for wrong in ({"target": "orc", "unaware": 1, "bonus": 2},
                  {"target": "orc", "unaware": True, "bonus": True},
                  {"target": "orc", "unaware": True, "bonus": 2.0}):
        for _ in range(2):
            with pytest.raises(InvalidArgument):
                bind(wrong)
    assert bind({"target": "orc", "unaware": False}).unaware is False
    with pytest.raises(InvalidArgument):
        bind({"target": "orc", "unaware": 0})
    long = "o" * (binding._KEY_TEXT + 1)
    with contextlib.suppress(InvalidArgument):
        bind({"target": long})
    assert not any(long in key for key in binding._PARSED)
    for i in range(binding._PARSED_KEPT + 5):
        assert bind({"target": f"c{i}"}).target == f"c{i}"
    assert len(binding._PARSED) <= binding._PARSED_KEPT


def test_a_choice_refuses_what_it_does_not_list() -> None:
    for name in RULESETS:
        for spec in load_ruleset(name).catalogue.values():
            for key, arg in spec.args.items():
                if arg.kind == "choice":
                    command = Command(spec.name, "x" if spec.actor != "none" else None,
                                      {key: "no-such-choice"})
                    with pytest.raises(InvalidArgument) as caught:
                        spec.validate(command)
                    assert caught.value.field is not None


def test_authority_comes_from_the_catalogue_alone() -> None:
    catalogue = load_ruleset("demo").catalogue
    mine = frozenset({"nia"})

    def refuse(command: dict[str, Any], current: str | None = "nia") -> NotAllowed:
        with pytest.raises(NotAllowed) as caught:
            authorize(catalogue, Command.from_json(command), mine, current, True)
        return caught.value

    authorize(catalogue, Command.from_json({"do": "attack", "actor": "nia", "target": "orc"}),
              mine, "nia", True)
    assert "only the game master" in str(refuse({"do": "damage", "target": "orc",
                                                 "amount": 3}))
    assert refuse({"do": "attack", "actor": "orc", "target": "nia"}).field == "command.actor"
    assert "not nia's turn" in str(refuse({"do": "attack", "actor": "nia", "target": "orc"},
                                          "orc"))
    assert "own character's turn" in str(refuse({"do": "next"}, "orc"))
    authorize(catalogue, Command("next"), mine, "nia", True)
    # outside turn-by-turn play a character acts whenever the GM lets the story run
    authorize(catalogue, Command.from_json({"do": "attack", "actor": "nia", "target": "orc"}),
              mine, None, False)


def test_references_lists_every_creature_a_command_names() -> None:
    catalogue = load_ruleset("demo").catalogue
    command = Command.from_json({"do": "attack", "actor": "nia", "target": "orc"})
    assert references(catalogue, command) == ["nia", "orc"]


def test_sentences_leave_out_what_the_reader_may_not_see() -> None:
    fields = {"actor": Arg("creature"), "target": Arg("creature")}
    data = {"actor": "nia", "target": "ogre", "hit": True, "taken": 4, "health": 7}
    names = {"nia": "Nia", "ogre": "Ogre"}
    template = "{actor} {hit?hits|misses} {target}[ for {taken} damage][, {health} left]."
    assert render(template, data, names, fields) == "Nia hits Ogre for 4 damage, 7 left."
    del data["health"]
    assert render(template, data, names, fields) == "Nia hits Ogre for 4 damage."


def test_a_choice_on_a_null_field_says_its_else_and_a_missing_one_says_nothing() -> None:
    """Zones' region_set: a region drawn, then taken away (``rect`` null). The log showed
    "Zone ruins {rect?is drawn at 650, 100, 340, 460 on the scene|is no longer drawn on the
    scene}." (a field inside a choice), so a sentence with a stray brace is now refused
    when it is declared."""
    spec = load_ruleset("zones").events["region_set"]
    drawn = {"zone": "ruins", "rect": [650, 100, 340, 460]}
    assert spec.text(drawn, {}, True) == "Zone ruins is drawn at 650, 100, 340, 460 on the scene."
    assert spec.text({"zone": "ruins", "rect": None}, {}, True) == (
        "Zone ruins is no longer drawn on the scene.")
    # a field a view took out is not there: the choice says neither branch
    assert render("{actor} {hit?hits|misses}.", {"actor": "nia"}, {}) == "Nia ."
    with pytest.raises(TypeError, match=r"'region_set': the sentence .* has a brace that is "
                                        r"no field"):
        catalogue.event("Zone {zone} {rect?is drawn at {rect}|is gone}.", zone=Arg("text"))(
            apply_region_set)


def apply_region_set() -> None:
    """A handler for the refused declaration above."""


@pytest.mark.parametrize("name", seeds())
def test_the_docs_command_table_is_the_catalogue(name: str) -> None:
    """docs/rulesets/NAME.md holds ``arbiter commands NAME --markdown`` between its markers
    (write it with ``arbiter commands NAME --write docs/rulesets/NAME.md``)."""
    check_docs_table(name, ROOT / "docs" / "rulesets" / f"{name}.md")


def check_docs_table(name: str, path: Path) -> None:
    """The guard: the page at ``path`` holds ``name``'s command table between its markers."""
    document = path.read_text(encoding="utf-8")
    table = markdown(load_ruleset(name).catalogue)
    assert with_table(document, table) == document, (
        f"{path} is out of date: run arbiter commands {name} --write {path}")


@pytest.mark.parametrize("name", RULESETS)
def test_every_event_the_scenarios_make_is_declared_and_reads_as_a_sentence(
        name: str, played: Played) -> None:
    check_scenario_events(name, ROOT / "scenarios" / name, played)


def check_scenario_events(name: str, folder: Path, played: Played) -> None:
    """The guard: every event the scenarios under ``folder`` make is declared, checks against
    its declaration and reads as a sentence to the GM and to a player."""
    ruleset = load_ruleset(name)
    files = [p for p in scenario_files([folder])]
    checked = 0
    for path in files:
        result = played(path)
        encounter = result.encounter
        if encounter is None:
            continue
        names = {e.id: e.name for e in encounter.state.entities.values()}
        for event in encounter.events():
            spec = ruleset.events[event.type]
            assert spec.check(event.data) == [], (path.name, event.type, event.data)
            for gm in (True, False):
                text = spec.text(event.data, names, gm)
                assert text and "{" not in text and "[" not in text, (event.type, text)
            checked += 1
    assert checked > 0


@pytest.mark.parametrize("name", installed())
def test_each_command_says_its_topic_module_and_sends_it(name: str) -> None:
    """The console groups a creature's actions by the topic module that declares each
    command (app.js TOPIC_GROUPS), so the topic is that module's name, in the JSON too."""
    ruleset = load_ruleset(name)
    for command, spec in ruleset.catalogue.items():
        declaring = next(k for k in type(ruleset).__mro__ if f"do_{command}" in vars(k))
        assert spec.topic, command
        if spec.topic != "ruleset":  # (a compiled method has no __module__: its class's)
            assert spec.topic == declaring.__module__.rpartition(".")[2], (command, declaring)
        assert spec.to_json()["topic"] == spec.topic
