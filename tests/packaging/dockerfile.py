"""The Dockerfile's final stage as the tests read it: ENV, VOLUME, CMD and HEALTHCHECK."""

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

DOCKERFILE: Final = Path(__file__).resolve().parents[2] / "Dockerfile"


@dataclass
class FinalStage:
    env: dict[str, str] = field(default_factory=dict)
    volumes: list[str] = field(default_factory=list)
    cmd: list[str] = field(default_factory=list)
    healthcheck: list[str] = field(default_factory=list)
    user: str = ""


def instructions(text: str) -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) per instruction, continuation lines joined, comments left out."""
    joined: list[str] = []
    pending = ""
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.endswith("\\"):
            pending += line[:-1] + " "
            continue
        joined.append(pending + line)
        pending = ""
    return [(line.split(None, 1)[0].upper(), line.split(None, 1)[1]) for line in joined]


def final_stage(text: str) -> FinalStage:
    stage = FinalStage()
    for instruction, arguments in instructions(text):
        if instruction == "FROM":
            stage = FinalStage()
        elif instruction == "ENV":
            for pair in arguments.split():
                key, _, value = pair.partition("=")
                stage.env[key] = value
        elif instruction == "USER":
            stage.user = arguments
        elif instruction == "VOLUME":
            stage.volumes += arguments.split()
        elif instruction == "CMD":
            stage.cmd = json.loads(arguments)
        elif instruction == "HEALTHCHECK":
            stage.healthcheck = json.loads(arguments[arguments.index("CMD ") + 4 :])
    return stage


def copied_sources(text: str) -> list[str]:
    """What the COPY instructions of every stage take from the build context (COPY --from
    takes from a stage instead)."""
    sources: list[str] = []
    for instruction, arguments in instructions(text):
        words = arguments.split()
        if instruction != "COPY" or any(word.startswith("--from=") for word in words):
            continue
        paths = [word for word in words if not word.startswith("--")]
        sources += paths[:-1]
    return sources
