"""What a session's commands came to: each command's outcomes in order, repeats collapsed, and
which failures later passed ("fixed") or were still failing at the end."""

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from aletheia_hub.work_capture.events import CommandEvent
from aletheia_hub.work_capture.kept import KeptEvent
from aletheia_hub.work_capture.test_runs import TestRun

COMMAND_SHOWN_CHARS: Final = 120


def shown_command(command: str) -> str:
    """A command line on one line, cut to what a digest shows."""
    line = " ".join(command.split())
    return line if len(line) <= COMMAND_SHOWN_CHARS else line[: COMMAND_SHOWN_CHARS - 1] + "…"


@dataclass(frozen=True, slots=True)
class CommandHistory:
    """One command line's outcomes in the order they came, equal neighbours collapsed."""

    command: str
    steps: tuple[str, ...]
    calls: int


def _outcome(event: CommandEvent, run: TestRun | None) -> str:
    if run is not None:
        if run.failed:
            return f"{run.failed} failed, {run.passed} passed"
        return f"{run.passed} passed"
    if event.exit_code is None:
        return "ran"
    return "ok" if event.exit_code == 0 else f"exit {event.exit_code}"


def command_histories(events: Sequence[KeptEvent]) -> list[CommandHistory]:
    """Every command line once, in the order first run, with its collapsed outcomes."""
    runs: dict[str, list[tuple[str, int]]] = {}
    for kept in events:
        if not isinstance(kept.event, CommandEvent):
            continue
        outcome = _outcome(kept.event, kept.test_run)
        steps = runs.setdefault(kept.event.command, [])
        times = 1 + kept.repeats
        if steps and steps[-1][0] == outcome:
            steps[-1] = (outcome, steps[-1][1] + times)
        else:
            steps.append((outcome, times))
    return [
        CommandHistory(
            command,
            tuple(f"{outcome} ×{times}" if times > 1 else outcome for outcome, times in steps),
            sum(times for _, times in steps),
        )
        for command, steps in runs.items()
    ]


def short_test_name(name: str) -> str:
    """A pytest node id without its file ("test_upload_retry"); other runners' names as is."""
    head, sep, rest = name.partition("::")
    return rest if sep and ("/" in head or head.endswith(".py")) else name


@dataclass(slots=True)
class _Failure:
    command: str
    total: int


def _covers(run: TestRun, command: str, name: str, failure: _Failure) -> bool:
    """Whether a later run of the same runner ran the test that failed: the same command, a
    command naming the test or its file, or a run at least as large as the failing one."""
    if run.failed > len(run.failing):
        return False  # names were capped: a missing name proves nothing
    file = name.partition("::")[0]
    return (
        command == failure.command
        or short_test_name(name) in command
        or (file != name and file in command)
        or run.passed + run.failed >= failure.total
    )


def find_fixes(events: Sequence[KeptEvent]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Tests and commands that failed and later passed, and those failing at the end: tests by
    name, and commands by their line when no test name tells what failed."""
    failing_tests: dict[tuple[str, str], _Failure] = {}
    fixed: dict[str, None] = {}
    failing_commands: dict[str, int] = {}
    for kept in events:
        event, run = kept.event, kept.test_run
        if not isinstance(event, CommandEvent):
            continue
        if run is not None:
            for (runner, name), failure in list(failing_tests.items()):
                passed_now = runner == run.runner and name not in run.failing
                if passed_now and _covers(run, event.command, name, failure):
                    del failing_tests[(runner, name)]
                    fixed[short_test_name(name)] = None
            for name in run.failing:
                failing_tests[(run.runner, name)] = _Failure(event.command, run.passed + run.failed)
                fixed.pop(short_test_name(name), None)
        named = run is not None and bool(run.failing)
        if event.exit_code is not None and event.exit_code != 0 and not named:
            failing_commands[event.command] = event.exit_code
            fixed.pop(f"`{shown_command(event.command)}`", None)
        elif event.exit_code == 0 and event.command in failing_commands:
            del failing_commands[event.command]
            fixed[f"`{shown_command(event.command)}`"] = None
    still = [short_test_name(name) for _, name in failing_tests]
    still += [f"`{shown_command(line)}` (exit {code})" for line, code in failing_commands.items()]
    return tuple(fixed), tuple(dict.fromkeys(still))
