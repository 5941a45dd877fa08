"""The capture ceilings of each project as the console shows them: what each bounds, how much
is used, and how full that is."""

from collections.abc import Sequence
from dataclasses import dataclass

from aletheia_hub.settings import Settings
from aletheia_hub.store.episodes import CaptureUsage
from aletheia_hub.store.work_reads import WorkUsage


@dataclass(frozen=True, slots=True)
class Ceiling:
    project: str
    name: str  # what it bounds
    used: int
    limit: int
    in_bytes: bool = False

    @property
    def percent(self) -> int:
        return min(round(100 * self.used / self.limit), 999) if self.limit else 0


def ceilings(
    prompts: Sequence[CaptureUsage], work: Sequence[WorkUsage], settings: Settings
) -> list[Ceiling]:
    """Every ceiling of every project that captured something, projects in name order."""
    asked = settings.capture_limits()
    done = settings.work_limits()
    found: list[Ceiling] = []
    for usage in prompts:
        found.append(Ceiling(usage.project, "prompts", usage.requests, asked.max_per_project))
        found.append(
            Ceiling(usage.project, "prompt bytes", usage.bytes, asked.max_bytes_per_project, True)
        )
    for row in work:
        found.append(
            Ceiling(row.project, "events in 24 hours", row.today, done.max_per_project_day)
        )
        found.append(
            Ceiling(row.project, "events of the fullest session", row.fullest_session,
                    done.max_per_session)
        )  # fmt: skip
        found.append(
            Ceiling(row.project, "work bytes", row.bytes, done.max_bytes_per_project, True)
        )
    return sorted(found, key=lambda ceiling: ceiling.project)
