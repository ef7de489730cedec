"""Player authority, checked against the command catalogue for every declared command of
every ruleset, through the HTTP routes that take a command (submit and odds).

The matrix: each command is sent by a player with their own character as actor on and off
its turn, with another player's character, an enemy, a hidden creature and a creature that
does not exist; Polemos' ``declare`` carries every command nested. What the catalogue does
not give a player is refused (403) and changes nothing; what it gives is never refused for
authority (the rules may still refuse it, 422); a hidden creature answers exactly like a
missing one.
"""

from __future__ import annotations

import itertools
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from starlette.testclient import TestClient

from arbiter.core import load_ruleset
from arbiter.core.catalogue import Arg, CommandSpec
from arbiter.server import create_app

from ..support import installed

RULESETS = installed()
CHOSEN = {"demo": "guard"}
"""A template other than the ruleset's first, where the first cannot do what the matrix asks."""
HIDDEN, MISSING = "lurker", "ghost"
MATRIX: Counter[str] = Counter()


class Game:
    """A campaign of one ruleset: nia (Ann's), bram (Bo's), a foe and a hidden lurker that
    stays hidden on its turn, in turn-by-turn play with nia first, then bram, the lurker
    and the foe."""

    def __init__(self, client: TestClient, ruleset: str) -> None:
        self.client = client
        self.ruleset = ruleset
        r = client.post("/api/campaigns", json={"name": "Matrix", "ruleset": ruleset})
        assert r.status_code == 201, r.text
        cid, token = r.json()["campaign"]["id"], r.json()["gm_token"]
        self.gm = {"Authorization": f"Bearer {token}"}
        r = client.post(f"/api/campaigns/{cid}/encounters", json={"name": "E"}, headers=self.gm)
        self.eid = r.json()["encounter"]["id"]
        template = CHOSEN.get(ruleset) or next(iter(load_ruleset(ruleset).templates))
        for cid_, side, hidden in (("nia", "heroes", False), ("bram", "heroes", False),
                                   ("foe", "monsters", False), (HIDDEN, "monsters", True)):
            r = client.post(f"/api/encounters/{self.eid}/actors", headers=self.gm,
                            json={"id": cid_, "template": template, "side": side,
                                  "hidden": hidden})
            assert r.status_code == 201, r.text
        self.ann = self._player(cid, "Ann", ["nia"])
        self.bo = self._player(cid, "Bo", ["bram"])
        # the GM keeps the lurker hidden while it acts (the server's encounters reveal it)
        self.gm_command({"do": "reveal_on_turn", "enabled": False})
        self.gm_command({"do": "start", "initiative": {"nia": 40, "bram": 30, HIDDEN: 20,
                                                       "foe": 10}})

    def _player(self, cid: str, name: str, characters: list[str]) -> dict[str, str]:
        r = self.client.post(f"/api/campaigns/{cid}/players", headers=self.gm,
                             json={"name": name, "characters": characters})
        assert r.status_code == 201, r.text
        return {"Authorization": f"Bearer {r.json()['token']}"}

    def gm_command(self, command: dict[str, Any]) -> Any:
        r = self.client.post(f"/api/encounters/{self.eid}/commands", headers=self.gm,
                             json={"command": command})
        assert r.status_code == 201, r.text
        return r.json()

    def state(self) -> Any:
        return self.client.get(f"/api/encounters/{self.eid}", headers=self.gm).json()

    def post(self, route: str, command: dict[str, Any], headers: dict[str, str]) -> Any:
        """Send a command; one that is not carried out must leave the encounter as it was."""
        before = self.state()["version"]
        r = self.client.post(f"/api/encounters/{self.eid}/{route}", headers=headers,
                             json={"command": command})
        MATRIX["requests"] += 1
        if r.status_code != 201:
            assert self.state()["version"] == before, (command, r.text)
        return r

    def turn_of(self, who: str) -> None:
        """Make it ``who``'s turn (the GM ends turns until it is)."""
        for _ in range(8):
            if self.state()["current"] == who:
                return
            self.gm_command({"do": "next"})
        raise AssertionError(f"never {who}'s turn")

    def undo(self) -> None:
        r = self.client.post(f"/api/encounters/{self.eid}/undo", headers=self.gm, json={})
        assert r.status_code == 201, r.text


INNER: dict[str, Any] = {"do": "take_cover"}
"""The command a nested argument carries in the matrix (Polemos' ``declare``): a free
action a player may declare at any time (P-ACT-5)."""


def sample(arg: Arg, target: str) -> Any:
    """A well-formed value for a declared argument."""
    kind = arg.kind
    if kind == "creature":
        return target
    if kind == "creatures":
        return [target]
    if kind in ("integer", "number"):
        return max(arg.lo if arg.lo is not None else 1, min(1, arg.hi if arg.hi is not None
                                                           else 1))
    if kind == "choice":
        return arg.default if arg.default is not None else arg.choices[0]
    if kind == "flag":
        return True
    if kind == "dice":
        return "1d6"
    if kind == "square":
        return [1, 1]
    if kind == "squares":
        return [[1, 1]]
    if kind == "mapping":
        return {}
    if kind == "list":
        return []
    if kind == "command":
        return dict(INNER)
    return "x" if kind == "text" else 1


def build(spec: CommandSpec, actor: str | None, target: str) -> dict[str, Any]:
    """The command with its required arguments (every creature one naming ``target``)."""
    command: dict[str, Any] = {"do": spec.name}
    if actor is not None and spec.actor != "none":
        command["actor"] = actor
    for key, arg in spec.args.items():
        if arg.who == "gm" and not arg.required:
            continue  # the game master's to set: a player leaves it out
        if arg.required or arg.kind in ("creature", "creatures"):
            # an argument that must name the actor or the player's own creature names it
            whom = (actor or "nia") if arg.refers in ("self", "own") else target
            command[key] = sample(arg, whom)
    return command


def refused(r: Any) -> bool:
    status: int = r.status_code
    return status == 403 and "error" in dict(r.json())


def same_answer(a: Any, b: Any) -> bool:
    """Two answers that differ only by the name each request sent."""
    first: str = a.text.replace(HIDDEN, "?")
    second: str = b.text.replace(MISSING, "?")
    return bool(a.status_code == b.status_code) and first == second


@pytest.fixture(scope="module")
def games(tmp_path_factory: pytest.TempPathFactory) -> Any:
    path: Path = tmp_path_factory.mktemp("authority") / "arbiter.db"
    with TestClient(create_app(db=path)) as client:
        yield {name: Game(client, name) for name in RULESETS}


@pytest.mark.parametrize("ruleset", RULESETS)
def test_every_command_answers_a_player_as_the_catalogue_says(games: Any, ruleset: str) -> None:
    game: Game = games[ruleset]
    catalogue = load_ruleset(ruleset).catalogue
    for spec, route in itertools.product(catalogue.values(), ("commands", "odds")):
        game.turn_of("nia")
        mine = build(spec, "nia", "foe")
        r = game.post(route, mine, game.ann)
        if spec.who == "gm":
            assert refused(r), (spec.name, route, r.status_code, r.text)
        else:
            assert r.status_code != 403, (spec.name, route, r.text)
            if route == "commands" and r.status_code == 201:
                game.undo()
        assert r.status_code < 500, r.text
        for actor, headers in (("nia", game.bo), ("foe", game.ann), (HIDDEN, game.ann),
                               (MISSING, game.ann)):
            if spec.actor == "none":
                continue
            r = game.post(route, build(spec, actor, "foe"), headers)
            assert refused(r), (spec.name, route, actor, r.status_code, r.text)
        if spec.actor != "none":
            hidden = game.post(route, build(spec, HIDDEN, "foe"), game.ann)
            missing = game.post(route, build(spec, MISSING, "foe"), game.ann)
            assert same_answer(hidden, missing), (spec.name, hidden.text, missing.text)
        if spec.who == "player" and any(a.kind == "creature" and a.who == "player"
                                        and a.refers not in ("self", "own")
                                        for a in spec.args.values()):
            hidden = game.post(route, build(spec, "nia", HIDDEN), game.ann)
            missing = game.post(route, build(spec, "nia", MISSING), game.ann)
            assert same_answer(hidden, missing), (spec.name, hidden.text, missing.text)
            assert hidden.status_code in (403, 422), hidden.text
        # off the actor's turn: the lurker (hidden) acts
        game.turn_of(HIDDEN)
        r = game.post(route, mine, game.ann)
        if spec.who == "gm" or spec.when == "turn" or spec.name == "next":  # not a reaction
            assert refused(r), (spec.name, route, "off turn", r.status_code, r.text)
            assert HIDDEN not in r.text and "Lurker" not in r.text
        else:
            assert r.status_code != 403, (spec.name, route, "off turn", r.text)
            if route == "commands" and r.status_code == 201:
                game.undo()
        assert r.status_code < 500, r.text
        MATRIX[f"{ruleset}:{spec.who}"] += 1


@pytest.mark.parametrize("ruleset", RULESETS)
def test_every_argument_of_a_player_command_answers_as_declared(games: Any,
                                                               ruleset: str) -> None:
    """Each declared argument of each player command, sent by the player on their own turn
    with a well-formed value: one the rules leave to the game master (``who="gm"``) is
    refused with a 403 naming it, on both routes; any other is never refused for
    authority (the rules may still refuse the command, 422)."""
    game: Game = games[ruleset]
    catalogue = load_ruleset(ruleset).catalogue
    for spec in catalogue.values():
        if spec.who != "player":
            continue
        for key, arg in spec.args.items():
            command = build(spec, "nia", "foe")
            command[key] = sample(arg, "nia" if arg.refers in ("self", "own") else "foe")
            for route in ("odds", "commands"):
                game.turn_of("nia")
                r = game.post(route, command, game.ann)
                assert r.status_code < 500, (spec.name, key, r.text)
                if arg.who == "gm":
                    assert r.status_code == 403, (spec.name, key, route, r.text)
                    assert r.json()["field"] == f"command.{key}", r.text
                    assert f"only the game master may set {key!r}" in r.json()["error"]
                else:
                    assert r.status_code != 403, (spec.name, key, route, r.text)
                    if route == "commands" and r.status_code == 201:
                        game.undo()
            MATRIX[f"arguments:{arg.who}"] += 1


def test_polemos_declare_checks_the_declared_command_as_if_issued_directly(
        games: Any) -> None:
    game: Game = games["polemos"]
    catalogue = load_ruleset("polemos").catalogue
    assert catalogue["declare"].who == "player"
    for spec in catalogue.values():
        game.turn_of("nia")
        inner = build(spec, None, "foe")
        r = game.post("commands", {"do": "declare", "actor": "nia", "action": inner}, game.ann)
        if spec.who == "gm":
            assert refused(r), (spec.name, r.status_code, r.text)
        else:
            assert r.status_code != 403, (spec.name, r.text)
            if r.status_code == 201:
                game.undo()
    # the issue's own case: declare a removal, then resolve
    r = game.post("commands", {"do": "declare", "actor": "nia",
                               "action": {"do": "remove", "target": "foe"}}, game.ann)
    assert r.status_code == 403 and "only the game master" in r.json()["error"]
    assert refused(game.post("commands", {"do": "resolve"}, game.ann))


def test_a_player_never_ends_another_creatures_turn(games: Any) -> None:
    for game in games.values():
        game.turn_of(HIDDEN)
        for command in ({"do": "next"}, {"do": "next", "actor": "nia"},
                        {"do": "next", "actor": HIDDEN}):
            r = game.post("commands", command, game.ann)
            assert refused(r), r.text
            assert HIDDEN not in r.text.replace(f"'{HIDDEN}'", "") or "actor" in command
        game.turn_of("nia")
        r = game.post("commands", {"do": "next", "actor": "nia"}, game.ann)
        assert r.status_code == 201, r.text
        game.undo()


def test_a_player_sees_no_tell_while_a_hidden_creature_acts(games: Any) -> None:
    for game in games.values():
        game.turn_of(HIDDEN)
        state = game.client.get(f"/api/encounters/{game.eid}", headers=game.ann).json()
        assert state["current"] == "bram"  # the last creature Ann can see that acted
        assert HIDDEN not in str(state)
        log = game.client.get(f"/api/encounters/{game.eid}/log", headers=game.ann).json()
        assert HIDDEN not in str(log) and "Lurker" not in str(log)


def test_the_matrix_ran_in_full() -> None:
    """Every ruleset's commands went through the matrix (``pytest -s`` prints its size)."""
    if MATRIX["requests"]:
        print(f"\nauthority matrix: {dict(MATRIX)}")
        for name in RULESETS:
            assert MATRIX[f"{name}:player"] > 0 and MATRIX[f"{name}:gm"] > 0


# -- random values for every declared argument: never a 5xx -------------------------------
JSON = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(-(2**70), 2**70),
              st.floats(allow_nan=False), st.text(max_size=12),
              st.sampled_from(["nia", "foe", HIDDEN, MISSING, "1d6", "\ud800", "１d６"])),
    lambda inner: st.one_of(st.lists(inner, max_size=3),
                            st.dictionaries(st.text(max_size=6), inner, max_size=3)),
    max_leaves=8)


@st.composite
def random_commands(draw: st.DrawFn) -> tuple[str, dict[str, Any], bool]:
    ruleset = draw(st.sampled_from(RULESETS))
    catalogue = load_ruleset(ruleset).catalogue
    spec = draw(st.sampled_from(sorted(catalogue.values(), key=lambda s: s.name)))
    command: dict[str, Any] = {"do": spec.name}
    if spec.actor != "none" or draw(st.booleans()):
        command["actor"] = draw(st.one_of(st.sampled_from(["nia", "foe", HIDDEN]), JSON))
    for key in draw(st.lists(st.sampled_from([*spec.args, "bogus"]), max_size=4, unique=True)
                    if spec.args else st.just(["bogus"])):
        command[key] = draw(JSON)
    return ruleset, command, draw(st.booleans())


@settings(max_examples=150, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(random_commands())
def test_random_values_for_declared_arguments_never_give_a_5xx(
        games: Any, case: tuple[str, dict[str, Any], bool]) -> None:
    ruleset, command, as_gm = case
    game: Game = games[ruleset]
    headers = game.gm if as_gm else game.ann
    for route in ("odds", "commands"):
        r = game.client.post(f"/api/encounters/{game.eid}/{route}", headers=headers,
                             content=_dumps({"command": command}),
                             )
        assert r.status_code < 500, (command, r.text)
        assert "error" in r.json() or r.status_code in (200, 201)
        if route == "commands" and r.status_code == 201:
            game.undo()


def _dumps(value: Any) -> bytes:
    import json

    return json.dumps(value).encode()


def test_the_issues_own_cases_answer_as_the_catalogue_says(games: Any) -> None:
    """The cases that found the holes: a player dealing damage as a GM, a misspelt argument
    telling a hidden creature from a missing one, and hostile values giving a 5xx."""
    game: Game = games["realms"]
    game.turn_of("nia")
    r = game.post("commands", {"do": "damage", "actor": "nia", "target": "foe", "amount": 50},
                  game.ann)
    assert r.status_code == 403 and r.json()["field"] == "command.do"
    hidden = game.post("commands", {"do": "attack", "actor": "nia", "target": HIDDEN,
                                    "weapn": "bow"}, game.ann)
    missing = game.post("commands", {"do": "attack", "actor": "nia", "target": MISSING,
                                     "weapn": "bow"}, game.ann)
    assert same_answer(hidden, missing)
    assert "no argument 'weapn'" in hidden.json()["error"]
    for route in ("commands", "odds"):
        r = game.client.post(f"/api/encounters/{game.eid}/{route}", headers=game.ann,
                             content=b'{"command": {"do": "attack", "actor": "nia", '
                                     b'"target": "foe", "bonus": 1e400}}')
        assert r.status_code == 422 and r.json()["field"] == "command.bonus", r.text
        r = game.client.post(f"/api/encounters/{game.eid}/{route}", headers=game.ann,
                             content=b'{"command": {"do": "attack", "actor": "nia", '
                                     b'"target": "\\ud800"}}')
        assert r.status_code == 400 and "Unicode" in r.json()["error"], r.text
        assert r.json()["field"] == "command.target"
