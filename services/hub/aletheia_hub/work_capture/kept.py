"""An event as the hub keeps it and a session's events together: what the digest is built from."""

from collections.abc import Sequence
from dataclasses import dataclass, field

from aletheia_hub.work_capture.events import WorkEvent
from aletheia_hub.work_capture.test_runs import TestRun


@dataclass(frozen=True, slots=True)
class KeptEvent:
    """One event as the hub keeps it: when it came first, how many more times the same call
    came again with the same outcome (not stored again), and the test run read from it."""

    event: WorkEvent
    at_ms: int
    repeats: int = 0
    test_run: TestRun | None = None


@dataclass(frozen=True, slots=True)
class SessionWork:
    """What a session did, in the order the hub stored it."""

    first_request: str | None
    events: Sequence[KeptEvent] = field(default_factory=tuple)
