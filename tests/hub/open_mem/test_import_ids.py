"""An imported observation id is a reference inside the document, never a row id: a team
token's mem-import with ids at the edge of what the store's id columns hold leaves every other
project's saves and lists their ordinary ids, on SQLite and PostgreSQL and in both protocol
eras; ids past what the columns hold are refused whole, in plain words."""

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Final

import pytest
from fastapi.testclient import TestClient

from aletheia_hub.app import create_app
from aletheia_hub.mcp.formats import unwrap_recalled
from aletheia_hub.settings import Settings
from aletheia_shared import headers
from tests.helpers import McpHttpClient, StatelessClient
from tests.team.conftest import issue_token, table_rows

OPEN_MEM: Final = "/mcp/open-mem"
CREATED: Final = 1_780_000_000_000
LARGEST_INT32: Final = 2**31 - 1
LARGEST_INT64: Final = 2**63 - 1  # SQLite's rowid, PostgreSQL's bigint


def team_hub(store_url: str, tmp_path: Path) -> TestClient:
    settings = Settings(database_url=store_url, team_mode=True, data_dir=tmp_path, cwd=tmp_path)
    return TestClient(create_app(settings), base_url="http://127.0.0.1")


@pytest.fixture
def tokens(store_url: str) -> dict[str, str]:
    """A sync token for shop (the importer) and one for billing (another project)."""
    return {
        project: issue_token(store_url, scope="sync", projects=[project])[1]
        for project in ("shop", "billing")
    }


@pytest.fixture
def team(store_url: str, tmp_path: Path) -> Iterator[TestClient]:
    with team_hub(store_url, tmp_path) as client:
        yield client


def session(http: TestClient, token: str, project: str, path: str = "/mcp") -> McpHttpClient:
    client = McpHttpClient(http, path, project=project, tool="tests", token=token)
    client.initialize()
    return client


def document(*numbers: int, **parts: list[dict[str, Any]]) -> str:
    """An export document of shop holding an observation for each number, each one revising
    the one before, and whatever else `parts` adds."""
    observations = []
    for position, number in enumerate(numbers):
        observation: dict[str, Any] = {
            "id": f"obs-{number}",
            "title": f"Imported note {position}",
            "narrative": f"Imported note {position}: the details.",
            "createdAtMs": CREATED + position,
        }
        if position:
            observation["revisionOf"] = f"obs-{numbers[position - 1]}"
            observations[-1]["supersededAtMs"] = CREATED + position
        observations.append(observation)
    return json.dumps(
        {
            "format": "aletheia-export",
            "version": 1,
            "exportedAt": "2026-12-01T00:00:00.000Z",
            "project": "shop",
            "observations": observations,
            **parts,
        }
    )


def entry_ids(store_url: str) -> list[int]:
    return sorted(row["id"] for row in table_rows(store_url, "entries"))


def assert_writes_get_ordinary_ids(http: TestClient, token: str, next_id: int) -> int:
    """save_memory and work_state_write of billing, in both eras, take the next ids."""
    handshake = session(http, token, "billing")
    stateless = StatelessClient(
        http, token=token, **{headers.CALLER_PROJECT: "billing", headers.CALLER_TOOL: "tests"}
    )
    for client in (handshake, stateless):
        saved = client.text("save_memory", {"text": f"Invoices are numbered {next_id}"})
        assert saved.split("\n")[0] == f"Saved as #{next_id} in billing."
        listed = client.text("work_state_write", {"list": f"todo{next_id}", "items": ["pay"]})
        assert listed == f'Saved list "todo{next_id}" with 1 item(s) as #{next_id + 1}.'
        next_id += 2
    return next_id


@pytest.mark.parametrize(
    "numbers",
    [
        (LARGEST_INT32,),
        (LARGEST_INT32 - 1, LARGEST_INT32),
        (LARGEST_INT32, 1),
    ],
    ids=["largest", "revised-to-largest", "largest-revised-to-one"],
)
def test_importing_the_largest_id_a_column_holds_leaves_other_projects_ordinary_ids(
    team: TestClient,
    tokens: dict[str, str],
    store_url: str,
    tmp_path: Path,
    numbers: tuple[int, ...],
) -> None:
    next_id = assert_writes_get_ordinary_ids(team, tokens["billing"], 1)
    shop = session(team, tokens["shop"], "shop", OPEN_MEM)
    facts = [
        {
            "subject": "notes",
            "predicate": "are",
            "object": "kept",
            "observation": f"obs-{numbers[-1]}",
            "validFromMs": CREATED,
        }
    ]
    answer = shop.text("mem-import", {"payload": document(*numbers, facts=facts)})
    assert answer == (
        f"Imported into shop (mode skip): {len(numbers) + 1} added, 0 merged, 0 skipped, "
        "0 replaced."
    )
    imported = list(range(next_id, next_id + len(numbers)))
    assert entry_ids(store_url)[-len(numbers) :] == imported
    next_id = assert_writes_get_ordinary_ids(team, tokens["billing"], next_id + len(numbers))
    # The lineage and the fact's link survive under the ids the store gave.
    exported = json.loads(unwrap_recalled(shop.text("mem-export")))
    assert [o["id"] for o in exported["observations"]] == [f"obs-{n}" for n in imported]
    assert [o.get("revisionOf") for o in exported["observations"]] == [
        None,
        *[f"obs-{n}" for n in imported[:-1]],
    ]
    assert exported["facts"][0]["observation"] == f"obs-{imported[-1]}"
    # A restarted hub on the same store gives ordinary ids too.
    with team_hub(store_url, tmp_path / "restarted") as restarted:
        assert_writes_get_ordinary_ids(restarted, tokens["billing"], next_id)


PLACES: Final = ["observation", "revisionOf", "tombstone", "fact", "rule evidence"]


@pytest.mark.parametrize(
    "number", [LARGEST_INT32 + 1, 9_999_999_999, LARGEST_INT64, LARGEST_INT64 + 1, 10**30]
)
def test_an_id_past_what_the_store_holds_is_refused_wherever_it_stands_and_nothing_is_written(
    team: TestClient, tokens: dict[str, str], store_url: str, number: int
) -> None:
    shop = session(team, tokens["shop"], "shop", OPEN_MEM)
    name = f"obs-{number}"
    for where in PLACES:
        payload, location = _with_reference(name, where)
        text, is_error = shop.call_tool("mem-import", {"payload": payload})
        assert is_error, text
        assert text == (
            f"Invalid payload: {location}: {name} is out of range: observation ids run from "
            f"obs-1 to obs-{LARGEST_INT32}."
        )
    assert entry_ids(store_url) == []
    assert table_rows(store_url, "facts") == []
    assert table_rows(store_url, "rules") == []
    assert assert_writes_get_ordinary_ids(team, tokens["billing"], 1) == 5


def _with_reference(name: str, where: str) -> tuple[str, str]:
    """A document whose only out-of-range id is `name`, placed `where`; and that place."""
    if where == "observation":
        return document(1, 2).replace('"obs-2"', json.dumps(name)), "observations.1.id"
    if where == "revisionOf":
        return document(1, 2).replace('"revisionOf": "obs-1"', f'"revisionOf": "{name}"'), (
            "observations.1.revisionOf"
        )
    if where == "tombstone":
        tombstone = {"id": name, "removedAtMs": CREATED}
        return document(1, tombstones=[tombstone]), "tombstones.0.id"
    if where == "fact":
        fact = {"subject": "a", "predicate": "b", "object": "c", "observation": name}
        fact["validFromMs"] = CREATED
        return document(1, facts=[fact]), "facts.0.observation"
    rule = {
        "id": "r_0123456789",
        "when": "always",
        "then": "check the id",
        "scopeTier": "project",
        "scopeName": "shop",
        "createdAtMs": CREATED,
        "confirmedAtMs": CREATED,
        "evidenceObservations": ["obs-1", name],
    }
    return document(1, rules=[rule]), "rules.0.evidenceObservations.1"
