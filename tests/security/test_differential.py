"""A player cannot tell whether a GM-hidden creature is there: for each ruleset's demo table
(``web/demo.py`` ``table_of``), two encounters that differ only by the hidden creature
(present, absent) get the same commands (the GM starts with fixed initiative putting the
hidden creature first, in the middle or last; for two rounds the player's character attacks
a foe and the player ends its turn, each foe the GM plays attacks it, the GM ends the
allies' turns; the hidden creature acts as the GM, out of sight: a condition, a note
naming it, and the GM ends its turn; every command rolls from one seed, so both tables
roll alike), and after each step the player's answers must be equal once the encounter
id, versions and sequence numbers are taken out: GET state, GET log (its events and their
sentences), GET /options and POST /odds for each of the player's legal options and targets.

The comparisons made are counted and printed (``pytest -s``).

Known differences, each an xfail with its reason:

- a record boundary. A record is one command, and the GM ends the hidden creature's turn
  with a command of its own: where it is absent, "X's turn ends" and "Y's turn starts"
  arrive in one record, where it is present in two (the time between them is the hidden
  creature's turn). The log is compared event by event, the grouping apart;
- while the hidden creature opens round 1, the player's state shows round 1 and the first
  creature they see (the turn header), but not what that creature's turn start brings (its
  action economy);
- realms with its default AR-8 (damage reductions reset as every creature's turn starts):
  the reset at the hidden creature's turn start shows in the player's log before the next
  turn they see instead of after it (with AR-8 ``own-turn`` the logs are equal).
"""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from starlette.testclient import TestClient

from arbiter.server import create_app
from arbiter.web.demo import demo_rulesets, table_of

COUNT = {"comparisons": 0}
ROUNDS = 2
PLACES = ("first", "middle", "last")
CONDITION = {"realms": {"name": "prone"}}
FRIENDS = {"realms": ("nia", "hound"), "zones": ("rook", "ash"), "polemos": ("vera", "doc")}
"""The player's side at each demo table."""
"""What the hidden creature does on its turn, beside a note: takes a condition (realms lists
its own; the others take one of the GM's)."""


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    """The server, every command of which rolls from the same seed: the two tables' rolls
    are alike (a command's dice come from ``SeededDice(secrets.randbits(64))``,
    ``store/service.py``)."""
    path: Path = tmp_path_factory.mktemp("differential") / "a.db"
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(secrets, "randbits", lambda bits: 20_261_204)
        with TestClient(create_app(db=path, rate_per_minute=100_000)) as c:
            yield c


class Table:
    """One encounter of a ruleset's demo table, with or without its hidden creature."""

    def __init__(self, client: httpx.Client, ruleset: str, present: bool,
                 rulings: dict[str, str] | None = None, placed: bool = False,
                 fog: bool = False) -> None:
        """``fog``: the creature is concealed by standing in fog rather than by being
        hidden (the fog is on at both tables; the others stand off the grid, or in the
        zones revealed)."""
        self.client = client
        _title, actors = table_of(ruleset)
        self.hero = actors[0][0]
        self.hidden = next(i for i, spec in actors if spec.get("hidden"))
        self.visible = [i for i, spec in actors if not spec.get("hidden")]
        r = client.post("/api/campaigns", json={"name": "Twin", "ruleset": ruleset,
                                                "rulings": rulings or {}})
        assert r.status_code == 201, r.text
        cid, token = r.json()["campaign"]["id"], r.json()["gm_token"]
        self.cid = cid
        self.gm = {"Authorization": f"Bearer {token}"}
        r = client.post(f"/api/campaigns/{cid}/encounters", json={"name": "E"}, headers=self.gm)
        self.eid = r.json()["encounter"]["id"]
        if fog:
            shown = sorted({spec["zone"] for _i, spec in actors
                            if "zone" in spec and not spec.get("hidden")})
            self.gm_command({"do": "fog", "enabled": True, **({"zones": shown} if shown
                                                               else {})})
        for ident, spec in actors:
            if spec.get("hidden") and not present:
                continue
            if spec.get("hidden") and fog:  # seen by nobody: it stands in the fog
                spec = {**spec, "hidden": False,
                        **({"zone": "den"} if "zone" in spec else {"position": [60, 60]})}
                if "zone" not in spec:
                    spec = {**spec, "_placed": True}
            # off the map (where the demo places them, some are out of each other's reach):
            # every attack of the turns played is in reach, and lands alike at both tables
            keep = placed or spec.pop("_placed", False)
            spec = {k: v for k, v in spec.items() if keep or k != "position"}
            r = client.post(f"/api/encounters/{self.eid}/actors", headers=self.gm,
                            json={"id": ident, **spec})
            assert r.status_code == 201, r.text
        r = client.post(f"/api/campaigns/{cid}/players", headers=self.gm,
                        json={"name": "Ann", "characters": [self.hero]})
        self.player = {"Authorization": f"Bearer {r.json()['token']}"}
        self.present = present
        self.ruleset = ruleset

    def gm_command(self, command: dict[str, Any]) -> None:
        r = self.client.post(f"/api/encounters/{self.eid}/commands", headers=self.gm,
                             json={"command": command})
        assert r.status_code == 201, (command, r.text)

    def current(self) -> str | None:
        state = self.client.get(f"/api/encounters/{self.eid}", headers=self.gm).json()
        return state["current"] if state["in_combat"] else None

    def hidden_turns(self) -> None:
        """The hidden creature's turn, if it is now: it acts (out of sight), the GM ends it."""
        while self.present and self.current() == self.hidden:
            self.gm_command({"do": "condition", "target": self.hidden, **CONDITION.get(
                self.ruleset, {"name": "lurking", "custom": True})})
            self.gm_command({"do": "note", "text": f"{self.hidden} waits"})
            self.gm_command({"do": "next"})

    # -- what the player sees ----------------------------------------------------------
    def state(self) -> Any:
        return self.client.get(f"/api/encounters/{self.eid}", headers=self.player).json()

    def log(self) -> list[Any]:
        records: list[Any] = self.client.get(f"/api/encounters/{self.eid}/log",
                                             headers=self.player).json()["records"]
        return records

    def options(self) -> Any:
        r = self.client.get(f"/api/encounters/{self.eid}/options?actor={self.hero}",
                            headers=self.player)
        return r.status_code, r.json()

    def odds(self, command: dict[str, Any]) -> Any:
        r = self.client.post(f"/api/encounters/{self.eid}/odds", headers=self.player,
                             json={"command": command})
        return r.status_code, r.json()


def normal(value: Any) -> Any:
    """``value`` without what differs by construction: the encounter's id, versions and
    sequence numbers (a count of every record, the GM's included)."""
    if isinstance(value, dict):
        return {k: normal(v) for k, v in value.items()
                if k not in ("version", "encounter", "seq", "created_at")}
    if isinstance(value, list | tuple):
        return [normal(v) for v in value]
    return value


def events(log: list[Any]) -> list[Any]:
    """The log as a sequence: each event, and each record that has none (a marker, a
    placeholder) as itself."""
    out: list[Any] = []
    for record in log:
        if record.get("events"):
            out += [normal(e) for e in record["events"]]
        else:
            out.append(normal({k: v for k, v in record.items() if k != "text"}))
    return out


def sentences(log: list[Any]) -> str:
    return " ".join(r["text"] for r in log if r["text"])


def odds_questions(options: Any, hero: str) -> list[dict[str, Any]]:
    """A command for each legal option of the answer of /options (and each legal target)."""
    status, body = options
    if status != 200:
        return []
    out = []
    for option in body["options"]:
        if not option["legal"]:
            continue
        base = {"do": option["command"], "actor": hero}
        if option.get("target_arg"):
            out += [{**base, option["target_arg"]: t["id"]}
                    for t in option["targets"] if t["legal"]]
        else:
            out.append(base)
    return out


def initiative(table: Table, place: str) -> dict[str, int]:
    values = {ident: 100 - 10 * n for n, ident in enumerate(table.visible)}
    spot = {"first": 200, "middle": 100 - 10 * (len(table.visible) // 2) + 5, "last": 1}
    return {**values, table.hidden: spot[place]}


def first_difference(one: Any, two: Any, path: str = "") -> str:
    """Where two JSON values first differ, and how."""
    if isinstance(one, dict) and isinstance(two, dict):
        for key in sorted(set(one) | set(two), key=str):
            if one.get(key, "<absent>") != two.get(key, "<absent>"):
                return first_difference(one.get(key, "<absent>"), two.get(key, "<absent>"),
                                        f"{path}.{key}")
    if isinstance(one, list) and isinstance(two, list):
        for n, (a, b) in enumerate(zip(one, two, strict=False)):
            if a != b:
                return first_difference(a, b, f"{path}[{n}]")
        if len(one) != len(two):
            return f"{path}: {len(one)} items with it, {len(two)} without"
    return f"{path}: with it {one!r:.300}, without {two!r:.300}"


class Differences:
    def __init__(self) -> None:
        self.grouping: list[str] = []
        self.opening: list[str] = []
        self.attacks = 0

    def same(self, what: str, one: Any, two: Any) -> None:
        COUNT["comparisons"] += 1
        assert one == two, (f"{what}: the player can tell the hidden creature is there:\n"
                            f"{first_difference(one, two)}")


TURN = ("round", "current", "in_combat", "order", "initiative")
"""What the turn header and the tracker show."""


def compare(with_: Table, without: Table, step: str, seen: Differences,
            opening: bool = False) -> None:
    """``opening``: the hidden creature opens round 1, and the player's state shows the turn
    as it would be without it (the first creature they see); what that creature's turn
    start would bring (its action economy, a turn's options) comes only as its turn
    really starts: the turn is compared, the rest is listed in ``seen.opening``."""
    state_with, state_without = normal(with_.state()), normal(without.state())
    if opening:
        seen.same(f"{step}: the turn", {k: state_with[k] for k in TURN},
                  {k: state_without[k] for k in TURN})
        if state_with != state_without:
            seen.opening.append(first_difference(state_with, state_without))
        return
    seen.same(f"{step}: state", state_with, state_without)
    log_with, log_without = with_.log(), without.log()
    seen.same(f"{step}: log events", events(log_with), events(log_without))
    seen.same(f"{step}: log sentences", sentences(log_with), sentences(log_without))
    if len(log_with) != len(log_without):
        seen.grouping.append(step)
    options = with_.options()
    seen.same(f"{step}: options", normal(options), normal(without.options()))
    for command in odds_questions(options, with_.hero):
        seen.same(f"{step}: odds of {command}", normal(with_.odds(command)),
                  normal(without.odds(command)))


def play(client: TestClient, ruleset: str, place: str,
         rulings: dict[str, str] | None = None, fog: bool = False) -> Differences:
    with_ = Table(client, ruleset, True, rulings, fog=fog)
    without = Table(client, ruleset, False, rulings, fog=fog)
    seen = Differences()
    compare(with_, without, "set up", seen)
    for table in (with_, without):
        table.gm_command({"do": "reveal_on_turn", "enabled": False})
    compare(with_, without, "reveal_on_turn off", seen)
    order = initiative(with_, place)
    for table in (with_, without):
        table.gm_command({"do": "start", "initiative": {k: v for k, v in order.items()
                                                        if table.present or k != table.hidden}})
    compare(with_, without, "start", seen, opening=with_.current() == with_.hidden)
    with_.hidden_turns()
    compare(with_, without, "start, the hidden creature's turn over", seen)
    turns = ROUNDS * len(with_.visible)
    for n in range(turns):
        current = without.current()
        assert with_.current() == current
        attacks = []
        for table in (with_, without):
            if current == table.hero:  # the player attacks a foe, then ends their turn
                foe = next(i for i in table.visible if i not in FRIENDS[ruleset])
                r = client.post(f"/api/encounters/{table.eid}/commands", headers=table.player,
                                json={"command": {"do": "attack", "actor": table.hero,
                                                  "target": foe}})
                assert r.status_code == 201, r.text
                attacks.append(r.status_code)
            elif current not in FRIENDS[ruleset]:  # a foe attacks the player's character
                r = client.post(f"/api/encounters/{table.eid}/commands", headers=table.gm,
                                json={"command": {"do": "attack", "actor": current,
                                                  "target": table.hero}})
                attacks.append(r.status_code)  # (an ogre with no ranged weapon cannot)
            if current == table.hero:  # the player ends their own turn
                r = client.post(f"/api/encounters/{table.eid}/commands", headers=table.player,
                                json={"command": {"do": "next", "actor": table.hero}})
                assert r.status_code == 201, r.text
            else:
                table.gm_command({"do": "next"})
        assert len(set(attacks)) <= 1, attacks
        seen.attacks += attacks.count(201) // 2
        with_.hidden_turns()
        compare(with_, without, f"turn {n + 1} ({current}'s) over", seen)
    return seen


RESET = pytest.mark.xfail(strict=True, reason=(
    "realms AR-8 (default: every turn start): damage reductions reset as any creature's turn "
    "starts, the hidden one's too, so the player's log shows their character's reset before "
    "the next turn they see rather than after its start; the state is the same"))
OWN_TURN = {"realms": {"AR-8": "own-turn"}}
"""Rulings under which a case differs only where a test says (see RESET)."""
CASES = [pytest.param(r, p, {}, marks=RESET if r == "realms" and p != "middle" else ())
         for r in demo_rulesets() for p in PLACES]
CASES += [pytest.param("realms", p, OWN_TURN["realms"], id=f"realms-{p}-AR8-own-turn")
          for p in PLACES if p != "middle"]


@pytest.mark.parametrize(("ruleset", "place", "rulings"), CASES)
def test_the_player_cannot_tell_a_hidden_creature_is_there(
        client: TestClient, ruleset: str, place: str, rulings: dict[str, str]) -> None:
    before = COUNT["comparisons"]
    seen = play(client, ruleset, place, rulings)
    print(f"\n{ruleset}, hidden creature {place} {rulings}: {COUNT['comparisons'] - before} "
          f"comparisons equal, {seen.attacks} attacks made at both tables (all "
          f"{COUNT['comparisons']})")
    assert seen.attacks >= ROUNDS  # the player's at least


@pytest.mark.xfail(strict=True, reason="a record is one command: the GM's command that ends "
                   "the hidden creature's turn is a record of its own, so the turn that "
                   "follows starts in a record apart (the time between is the hidden "
                   "creature's turn, which a live table cannot hide)")
@pytest.mark.parametrize("ruleset", demo_rulesets())
def test_the_log_groups_turns_alike(client: TestClient, ruleset: str) -> None:
    seen = play(client, ruleset, "middle", OWN_TURN.get(ruleset))
    assert seen.grouping == []


@pytest.mark.xfail(strict=True, reason="while the hidden creature opens round 1 the player's "
                   "state shows the turn of the first creature they see, but what that turn's "
                   "start brings (its action economy) comes only when it really starts")
@pytest.mark.parametrize("ruleset", demo_rulesets())
def test_the_opening_turn_of_a_hidden_creature_looks_like_the_next_one(
        client: TestClient, ruleset: str) -> None:
    seen = play(client, ruleset, "first", OWN_TURN.get(ruleset))
    assert seen.opening == []


@pytest.mark.parametrize("ruleset", demo_rulesets())
def test_a_creature_in_fog_is_absent_as_a_hidden_one_is(client: TestClient,
                                                          ruleset: str) -> None:
    """Fog of war (issue 34): the creature is not hidden but stands in fog (an unrevealed
    square, or zone); the player's answers are the same as at a table without it."""
    before = COUNT["comparisons"]
    seen = play(client, ruleset, "middle", OWN_TURN.get(ruleset), fog=True)
    print(f"\n{ruleset}, a creature in fog: {COUNT['comparisons'] - before} comparisons equal")
    assert seen.attacks >= ROUNDS
