"""The export document (format aletheia-export, version 1) and its full validation.

Observations are named by the ids they had in the exporting store (`obs-<n>`); the document's
references (revisionOf, tombstones, facts' observation, rules' evidence) use those names. They
are names only: an import gives each observation a new id (see importer.py). `n` runs up to
OBS_ID_MAX, the largest id a store's id column holds on every backend, so a document from any
store is read by any other and nothing past that is taken for an id.
Times are epoch milliseconds (exact on every backend).
"""

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Annotated, Any, Final, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationError
from pydantic.alias_generators import to_camel
from pydantic_core import PydanticCustomError

from aletheia_hub.store.errors import StoreError

FORMAT: Final = "aletheia-export"
VERSION: Final = 1

OBS_ID_MAX: Final = 2**31 - 1  # memories.id is a 32-bit integer on PostgreSQL


def _observation_id(value: str) -> str:
    digits = value.removeprefix("obs-")
    if digits == value or not (digits.isascii() and digits.isdigit()) or digits[0] == "0":
        raise PydanticCustomError(
            "obs_id", "{name} is not an observation id (obs-<n>)", {"name": _shown(value)}
        )
    if len(digits) > len(str(OBS_ID_MAX)) or int(digits) > OBS_ID_MAX:
        raise PydanticCustomError(
            "obs_id_range",
            "{name} is out of range: observation ids run from obs-1 to obs-{largest}",
            {"name": _shown(value), "largest": OBS_ID_MAX},
        )
    return value


def _shown(value: str) -> str:
    return value if len(value) <= 40 else f"{value[:36]}..."


ObsId = Annotated[str, AfterValidator(_observation_id)]
Ms = Annotated[int, Field(ge=0, le=2**53)]
Text = Annotated[str, Field(max_length=100_000)]
Name = Annotated[str, Field(min_length=1, max_length=200)]
GIT_ID: Final = r"^(?:[0-9a-f]{40}|[0-9a-f]{64})$"  # a SHA-1 or SHA-256 object id
GitId = Annotated[str, Field(pattern=GIT_ID)]
GIT_FIELDS: Final = ("gitCommit", "gitBranch", "fileBlobs")
# A summary is a session's digest, written by the hub from captured work.
MemoryType = Literal[
    "decision", "gotcha", "bugfix", "feature", "refactor", "change", "discovery", "note", "summary"
]


@dataclass(frozen=True, slots=True)
class Viewer:
    """A caller who sees user-scope memories of one owner only (None: the local user)."""

    owner: str | None


class PayloadError(StoreError):
    """An import payload that is not a valid export document; nothing was written."""


class Part(BaseModel):
    model_config = ConfigDict(
        extra="forbid", strict=True, alias_generator=to_camel, populate_by_name=True, frozen=True
    )


class TrailEntry(Part):
    action: Literal["dismiss", "restore"]
    reason: Annotated[str, Field(max_length=300)] | None = None
    tool: Annotated[str, Field(max_length=100)] = "import"
    at_ms: Ms


class Observation(Part):
    id: ObsId
    title: Annotated[str, Field(max_length=100_000)]
    narrative: Text
    type: MemoryType = "note"
    kind: Annotated[str, Field(min_length=1, max_length=40)] = "observation"
    tool: Annotated[str, Field(min_length=1, max_length=100)] = "import"
    pinned: bool = False
    created_at_ms: Ms
    session_id: Annotated[str, Field(max_length=64)] | None = None
    scope: Literal["project", "user"] = "project"
    owner: Annotated[str, Field(max_length=40)] | None = None
    importance: Annotated[int, Field(ge=1, le=5)] = 3
    concepts: list[Annotated[str, Field(min_length=1, max_length=1000)]] = []
    files: list[Annotated[str, Field(min_length=1, max_length=1000)]] = []
    revision_of: ObsId | None = None
    superseded_at_ms: Ms | None = None
    revision_reason: Text | None = None
    removed_at_ms: Ms | None = None
    # The caller's checkout when saved (written only for a memory that kept it): HEAD's
    # commit and branch, and the blob each of its files had then.
    git_commit: Annotated[str, Field(pattern=GIT_ID)] | None = None
    git_branch: Annotated[str, Field(min_length=1, max_length=255)] | None = None
    file_blobs: dict[Annotated[str, Field(min_length=1, max_length=1000)], GitId] = {}


class Tombstone(Part):
    id: ObsId
    removed_at_ms: Ms
    trail: list[TrailEntry] = []


class FactEntry(Part):
    subject: Annotated[str, Field(min_length=1, max_length=500)]
    predicate: Annotated[str, Field(min_length=1, max_length=500)]
    object: Annotated[str, Field(min_length=1, max_length=500)]
    observation: ObsId | None = None
    valid_from_ms: Ms
    valid_to_ms: Ms | None = None
    dismissed_at_ms: Ms | None = None


class RuleEntry(Part):
    id: Annotated[str, Field(min_length=1, max_length=12)]
    when: Text
    then: Annotated[str, Field(min_length=1, max_length=100_000)]
    scope_tier: Literal["everywhere", "project", "situation"]
    scope_name: Name | None = None
    source: Annotated[str, Field(min_length=1, max_length=100)] = "import"
    enabled: bool = True
    created_at_ms: Ms
    confirmed_at_ms: Ms
    reach: list[Name] | None = None
    evidence_observations: list[ObsId] = []
    evidence_facts: list[Annotated[int, Field(ge=0)]] = []  # positions in `facts`


class WorkStateEntry(Part):
    name: Name
    items: list[Any]
    tool: Annotated[str, Field(min_length=1, max_length=100)] = "import"
    updated_at_ms: Ms


class Filter(Part):
    type: MemoryType | None = None
    limit: Annotated[int, Field(ge=1)] | None = None


class Document(Part):
    format: Literal["aletheia-export"]
    version: Literal[1]
    exported_at: Annotated[str, Field(max_length=40)]
    project: Name
    filter: Filter = Filter()
    observations: list[Observation] = []
    tombstones: list[Tombstone] = []
    facts: list[FactEntry] = []
    rules: list[RuleEntry] = []
    work_state: list[WorkStateEntry] = []


def parse_document(payload: str) -> Document:
    """The document a payload holds, fully checked; PayloadError says what is wrong."""
    try:
        raw = json.loads(payload)
    except (ValueError, RecursionError) as error:
        raise PayloadError(f"Invalid payload: not JSON ({error}).") from None
    if not isinstance(raw, dict):
        raise PayloadError("Invalid payload: expected a JSON object from an export.")
    if raw.get("format") != FORMAT:
        raise PayloadError(f'Invalid payload: "format" must be "{FORMAT}".')
    if raw.get("version") != VERSION:
        raise PayloadError(
            f"Invalid payload: version {raw.get('version')!r} is not supported (this hub reads "
            f"version {VERSION})."
        )
    try:
        document = Document.model_validate_json(payload)
    except ValidationError as error:
        raise PayloadError(f"Invalid payload: {_problems(error)}") from None
    _check_references(document)
    return document


def _problems(error: ValidationError) -> str:
    shown = []
    for problem in error.errors()[:5]:
        where = ".".join(str(part) for part in problem["loc"]) or "document"
        shown.append(f"{where}: {problem['msg']}")
    more = error.error_count() - len(shown)
    return "; ".join(shown) + (f" (and {more} more)" if more > 0 else "") + "."


def _check_references(document: Document) -> None:
    ids = [observation.id for observation in document.observations]
    known = set(ids)
    if len(known) != len(ids):
        raise PayloadError("Invalid payload: an observation id appears twice.")
    removed = {o.id: o.removed_at_ms for o in document.observations}
    for index, tombstone in enumerate(document.tombstones):
        if removed.get(tombstone.id) is None:
            raise PayloadError(
                f"Invalid payload: tombstones.{index} names {tombstone.id}, which is not a "
                "removed observation of the document."
            )
    for index, fact in enumerate(document.facts):
        if fact.observation is not None and fact.observation not in known:
            raise PayloadError(
                f"Invalid payload: facts.{index} names {fact.observation}, which is not in "
                "the document."
            )
    for index, rule in enumerate(document.rules):
        if any(position >= len(document.facts) for position in rule.evidence_facts):
            raise PayloadError(f"Invalid payload: rules.{index} names a fact the document lacks.")
    names = [entry.name for entry in document.work_state]
    if len(set(names)) != len(names):
        raise PayloadError("Invalid payload: a work-state list name appears twice.")
    revision_order(document.observations)


def revision_order(observations: Sequence[Observation]) -> list[Observation]:
    """Observations with every one after the revision it replaces; a cycle is refused."""
    by_id = {observation.id: observation for observation in observations}
    ordered: list[Observation] = []
    state: dict[str, int] = {}  # 1: being placed, 2: placed
    for observation in observations:
        chain: list[Observation] = []
        current: Observation | None = observation
        while current is not None and state.get(current.id) != 2:
            if state.get(current.id) == 1:
                raise PayloadError(f"Invalid payload: revisionOf makes a cycle at {current.id}.")
            state[current.id] = 1
            chain.append(current)
            parent = current.revision_of
            current = by_id.get(parent) if parent is not None else None
        for placed in reversed(chain):
            state[placed.id] = 2
            ordered.append(placed)
    return ordered
