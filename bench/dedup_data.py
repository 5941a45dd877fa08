"""The labelled pairs bench/dedup.py reads: a saved note and a later one, each pair either a
planted duplicate (a rewording, the same fact with a newer value, the same decision restated)
or related but distinct (the same files or the same topic, a different decision). Built from
fixed lists in a fixed order, so every run writes the same pairs; `python bench/dedup_data.py`
rewrites bench/dedup_pairs.jsonl."""

import itertools
import json
from pathlib import Path
from typing import Final

PAIRS_FILE: Final = Path(__file__).parent / "dedup_pairs.jsonl"

SERVICES: Final = [
    "billing service",
    "auth gateway",
    "search indexer",
    "upload worker",
    "report builder",
    "session store",
    "notification relay",
    "payment webhook",
    "audit logger",
    "image resizer",
]
FILES: Final = [
    "src/billing/charge.py",
    "src/auth/tokens.py",
    "src/search/index.py",
    "src/upload/queue.py",
    "src/reports/build.py",
    "src/session/store.py",
    "src/notify/relay.py",
    "src/pay/hooks.py",
    "src/audit/log.py",
    "src/images/resize.py",
]
CHOICES: Final = [
    ("Redis", "caching", "it is already running in production"),
    ("PostgreSQL", "persistence", "we need transactions across tables"),
    ("Celery", "background jobs", "the team knows it well"),
    ("gRPC", "internal calls", "the payloads are large and typed"),
]
OTHER: Final = {
    "Redis": ("an in-process LRU", "rate limits"),
    "PostgreSQL": ("SQLite", "local tests"),
    "Celery": ("cron", "nightly cleanup"),
    "gRPC": ("plain HTTP", "health checks"),
}
SETTINGS: Final = [
    ("port", "8080", "9090"),
    ("timeout", "30 seconds", "45 seconds"),
    ("worker count", "4", "8"),
    ("Python version", "3.11", "3.12"),
]


def _pair(
    kind: str, label: bool, first: tuple[str, str], second: tuple[str, str]
) -> dict[str, object]:
    return {
        "kind": kind,
        "duplicate": label,
        "first": {"title": first[0], "text": first[1]},
        "second": {"title": second[0], "text": second[1]},
    }


def build_pairs() -> list[dict[str, object]]:
    pairs: list[dict[str, object]] = []
    for (index, service), (choice, purpose, reason) in itertools.product(
        enumerate(SERVICES), CHOICES
    ):
        file = FILES[index]
        other, other_purpose = OTHER[choice]
        setting, old, new = SETTINGS[index % len(SETTINGS)]
        pairs.append(
            _pair(
                "reworded",
                True,
                (
                    f"{service} uses {choice} for {purpose}",
                    f"The {service} uses {choice} for {purpose}, because {reason}. See {file}.",
                ),
                (
                    f"{choice} chosen for {service} {purpose}",
                    f"For {purpose} the {service} relies on {choice} since {reason} ({file}).",
                ),
            )
        )
        pairs.append(
            _pair(
                "newer value",
                True,
                (f"{service} {setting}", f"The {service} {setting} is {old}, set in {file}."),
                (
                    f"{service} {setting} changed",
                    f"The {service} {setting} is now {new} (was {old}), set in {file}.",
                ),
            )
        )
        pairs.append(
            _pair(
                "decision restated",
                True,
                (
                    f"Decision: {choice} for {service} {purpose}",
                    f"Decided that the {service} will use {choice} for {purpose}; {reason}.",
                ),
                (
                    f"Decided {choice} for {purpose} in {service}",
                    f"We settled on {choice} for {purpose} in the {service} because {reason}.",
                ),
            )
        )
        pairs.append(
            _pair(
                "same files",
                False,
                (
                    f"{service} retries in {file}",
                    f"In {file} the {service} retries failed {purpose} calls three times "
                    "with backoff.",
                ),
                (
                    f"{service} logging in {file}",
                    f"In {file} the {service} logs every {purpose} failure at warning level "
                    "with the request id.",
                ),
            )
        )
        pairs.append(
            _pair(
                "same topic",
                False,
                (
                    f"Decision: {choice} for {service} {purpose}",
                    f"Decided that the {service} will use {choice} for {purpose}; {reason}.",
                ),
                (
                    f"Decision: {other} for {service} {other_purpose}",
                    f"Decided that the {service} will use {other} for {other_purpose}, kept apart "
                    f"from {purpose}.",
                ),
            )
        )
    return pairs


def write_pairs() -> None:
    with PAIRS_FILE.open("w") as out:
        for pair in build_pairs():
            out.write(json.dumps(pair, sort_keys=True) + "\n")


def read_pairs() -> list[dict[str, object]]:
    with PAIRS_FILE.open() as lines:
        return [json.loads(line) for line in lines]


if __name__ == "__main__":
    write_pairs()
