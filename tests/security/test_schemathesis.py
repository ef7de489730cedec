"""Schemathesis against a live server, from the server's own /openapi.json: a short run (a
few examples per operation, every check, a fixed seed) as the game master and as a player.
``make fuzz`` runs the long one (bench/fuzz.py)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import requests
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.config import SchemathesisConfig

from arbiter import __version__
from arbiter.server.openapi import openapi_document

from .live import LiveServer

CONFIG = SchemathesisConfig.from_dict({"checks": {"positive_data_acceptance": {
    # A body the schema accepts may still be refused by the rules, which depend on the
    # encounter's state (a creature that is not there, a ruling choice of another
    # ruleset): 422 with the reason. Everything else the check expects stays as it is.
    "expected-statuses": ["2xx", "401", "403", "404", "405", "409", "422", "429"]},
    # A body over the size limit is refused with 413 before it is read, valid or not.
    "negative_data_rejection": {"expected-statuses": [
        "400", "401", "403", "404", "405", "406", "409", "413", "415", "422", "428", "429"]}}})


@pytest.fixture(scope="module")
def api_schema() -> Any:
    """The server's own description, loaded when the test runs (``from_fixture``): built at
    collection, its coverage cases cost every test process about 10 s, even one that
    deselects this test (``make test`` collects the suite in each worker)."""
    return schemathesis.openapi.from_dict(openapi_document(__version__), config=CONFIG)


schema = schemathesis.pytest.from_fixture("api_schema")


@pytest.fixture(autouse=True)
def _node_id(request: pytest.FixtureRequest) -> None:
    """Schemathesis' lazy loading reads ``node._nodeid``, which pytest 9 no longer keeps
    (its public ``nodeid`` is the same string)."""
    if not hasattr(request.node, "_nodeid"):
        request.node._nodeid = request.node.nodeid


class Table:
    """A demo campaign with an encounter, a creature and a player, on a live server."""

    def __init__(self, server: LiveServer) -> None:
        self.url = server.url
        # One session for every case: a kept-alive connection, and no proxy settings read
        # from the environment for each request (they cost the run about a fifth of its time)
        self.session = requests.Session()
        self.session.trust_env = False
        with httpx.Client(base_url=server.url) as h:
            r = h.post("/api/campaigns", json={"name": "Fuzz", "ruleset": "demo"})
            self.campaign, token = r.json()["campaign"]["id"], r.json()["gm_token"]
            self.gm = {"Authorization": f"Bearer {token}"}
            self.encounter = h.post(f"/api/campaigns/{self.campaign}/encounters",
                                    json={"name": "E"}, headers=self.gm
                                    ).json()["encounter"]["id"]
            h.post(f"/api/encounters/{self.encounter}/actors", headers=self.gm,
                   json={"id": "nia", "template": "guard", "side": "heroes"})
            h.post(f"/api/campaigns/{self.campaign}/characters", headers=self.gm,
                   json={"id": "nia", "template": "guard", "side": "heroes", "owner": "Ann"})
            h.post(f"/api/campaigns/{self.campaign}/bestiary", headers=self.gm,
                   json={"id": "ghoul", "template": "wolf", "health": 20})
            r = h.post(f"/api/campaigns/{self.campaign}/players", headers=self.gm,
                       json={"name": "Ann", "characters": ["nia"]})
            self.player = {"Authorization": f"Bearer {r.json()['token']}"}

    def ids(self) -> dict[str, str]:
        return {"campaign_id": self.campaign, "encounter_id": self.encounter,
                "ruling_id": "DEMO-1", "ruleset": "demo", "character_id": "nia",
                "creature_id": "ghoul"}


@pytest.fixture(scope="module")
def table(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Table]:
    with LiveServer(tmp_path_factory.mktemp("fuzz") / "fuzz.db") as server:
        table = Table(server)
        try:
            yield table
        finally:
            table.session.close()


def run(case: Any, table: Table) -> None:
    if case.path_parameters:
        ids = table.ids()
        case.path_parameters = {k: ids.get(k, v) for k, v in case.path_parameters.items()}
    for headers in (table.gm, table.player):
        case.call_and_validate(base_url=table.url, session=table.session, headers=headers)


@pytest.mark.long(120)
@schema.parametrize()
@settings(max_examples=4, derandomize=True, deadline=None,
          suppress_health_check=list(HealthCheck))
def test_the_api_conforms_to_its_own_description(case: Any, table: Table) -> None:
    run(case, table)


def test_the_description_is_served(tmp_path: Path) -> None:
    with LiveServer(tmp_path / "d.db") as server:
        served = httpx.get(f"{server.url}/openapi.json").json()
    assert served == openapi_document(__version__)
