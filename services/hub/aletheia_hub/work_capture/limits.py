"""How much captured work the hub keeps: per session, per project per day, bytes per project
and age. At a limit the oldest captured events go first; memories, digests included, are
never pruned by capture."""

from dataclasses import dataclass

from aletheia_hub.clock import DAY_MS


@dataclass(frozen=True, slots=True)
class WorkLimits:
    max_per_session: int
    max_per_project_day: int  # events captured within any 24 hours
    max_bytes_per_project: int
    max_age_days: int
    digest_max_chars: int

    @property
    def max_age_ms(self) -> int:
        return self.max_age_days * DAY_MS
