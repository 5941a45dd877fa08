"""A session's digest built from its events: what was asked, files, commands, fixes and
failures left, the same text for the same events, never past its cap."""

import pytest

from aletheia_hub.work_capture.digest import EMPTY, KeptEvent, SessionWork, build_digest
from aletheia_hub.work_capture.events import CommandEvent, EditEvent
from aletheia_hub.work_capture.test_runs import TestRun, read_test_run


def edit(file: str, added: int, removed: int, at_ms: int = 0, repeats: int = 0) -> KeptEvent:
    return KeptEvent(EditEvent(file, added, removed, "Edit"), at_ms, repeats)


def command(
    line: str, exit_code: int | None, run: TestRun | None = None, repeats: int = 0
) -> KeptEvent:
    return KeptEvent(CommandEvent(line, exit_code, 100, "Bash"), 0, repeats, run)


FAILING = TestRun("pytest", 12, 1, ("tests/test_upload.py::test_upload_retry",))
PASSING = TestRun("pytest", 13, 0, ())


def test_an_empty_session_says_nothing_was_captured() -> None:
    assert build_digest(SessionWork(None, ())) == EMPTY
    assert build_digest(SessionWork("Fix the uploader", ())) == (
        f"Asked first: Fix the uploader\n{EMPTY}"
    )


def test_one_edit_gives_the_file_and_its_counts() -> None:
    digest = build_digest(SessionWork("Add retries", (edit("src/upload.py", 12, 3),)))
    assert digest == (
        "Asked first: Add retries\nFiles changed (1, +12 -3):\n- src/upload.py +12 -3"
    )


def test_a_failing_test_that_later_passes_is_named_as_fixed() -> None:
    work = SessionWork(
        "Make the upload retry",
        (
            edit("src/upload.py", 5, 1),
            command("pytest -q", 1, FAILING),
            edit("src/upload.py", 2, 2),
            command("pytest -q", 0, PASSING),
        ),
    )
    assert build_digest(work) == (
        "Asked first: Make the upload retry\n"
        "Files changed (1, +7 -3):\n"
        "- src/upload.py +7 -3 (2 edits)\n"
        "Commands (1, 2 calls):\n"
        "- `pytest -q`: 1 failed, 12 passed → 13 passed\n"
        "Fixed: test_upload_retry"
    )


def test_a_narrow_rerun_naming_the_test_counts_as_its_fix() -> None:
    narrow = TestRun("pytest", 1, 0, ())
    work = SessionWork(
        None,
        (
            command("pytest", 1, FAILING),
            command("pytest tests/test_upload.py::test_upload_retry", 0, narrow),
        ),
    )
    assert build_digest(work).endswith("Fixed: test_upload_retry")


def test_a_smaller_run_of_other_tests_does_not_fix_a_failure() -> None:
    other = TestRun("pytest", 3, 0, ())
    work = SessionWork(
        None, (command("pytest", 1, FAILING), command("pytest tests/x.py", 0, other))
    )
    digest = build_digest(work)
    assert "Fixed" not in digest
    assert digest.endswith("Still failing: test_upload_retry")


def test_a_command_that_exits_zero_after_failing_is_fixed_and_one_left_failing_is_named() -> None:
    work = SessionWork(
        None,
        (
            command("npm run build", 2),
            command("npm run build", 0),
            command("make lint", 1, repeats=2),
        ),
    )
    digest = build_digest(work)
    assert "- `make lint`: exit 1 ×3" in digest
    assert "- `npm run build`: exit 2 → ok" in digest
    assert "Fixed: `npm run build`" in digest
    assert digest.endswith("Still failing: `make lint` (exit 1)")


def test_a_test_passing_then_failing_again_is_still_failing_not_fixed() -> None:
    work = SessionWork(
        None,
        (
            command("pytest", 1, FAILING),
            command("pytest", 0, PASSING),
            command("pytest", 1, FAILING),
        ),
    )
    digest = build_digest(work)
    assert "Fixed" not in digest
    assert digest.endswith("Still failing: test_upload_retry")


def test_repeats_collapse_and_files_sort_by_lines_changed() -> None:
    work = SessionWork(
        None,
        (
            edit("b.py", 1, 0),
            edit("a.py", 1, 0),
            edit("c.py", 10, 5, repeats=1),
            command("ruff check .", 0),
            command("ruff check .", 0, repeats=3),
        ),
    )
    digest = build_digest(work)
    assert "- c.py +20 -10 (2 edits)\n- a.py +1 -0\n- b.py +1 -0" in digest
    assert "Commands (1, 5 calls):\n- `ruff check .`: ok ×5" in digest


def test_runner_output_read_into_runs_gives_the_fix() -> None:
    failing = read_test_run(
        "go test ./...", "--- FAIL: TestUpload (0.01s)\nFAIL\nFAIL\tex.com/up\t0.01s\n"
    )
    passing = read_test_run("go test ./...", "ok  \tex.com/up\t0.01s\n")
    work = SessionWork(
        None, (command("go test ./...", 1, failing), command("go test ./...", 0, passing))
    )
    assert build_digest(work).endswith("Fixed: TestUpload")


def session(size: int) -> SessionWork:
    events: list[KeptEvent] = []
    for n in range(size):
        if n % 5 == 0:
            run = FAILING if n % 10 == 0 else PASSING
            events.append(command(f"pytest tests/test_{n % 7}.py -q", run.failed, run))
        elif n % 5 == 1:
            events.append(command(f"./scripts/step_{n}.sh --flag {'x' * (n % 40)}", n % 3))
        else:
            events.append(edit(f"src/pkg_{n % 13}/module_{n}.py", n % 17, n % 4, at_ms=n))
    return SessionWork("Refactor the uploader " + "and more " * 80, tuple(events))


@pytest.mark.parametrize("size", [0, 1, 20, 500])
@pytest.mark.parametrize("max_chars", [2_000, 600, 120])
def test_digest_stays_within_its_cap_and_is_stable(size: int, max_chars: int) -> None:
    work = session(size)
    digest = build_digest(work, max_chars=max_chars)
    assert len(digest) <= max_chars
    assert digest == build_digest(session(size), max_chars=max_chars)
    assert digest.startswith("Asked first: Refactor the uploader")


def test_a_long_session_shortens_its_lists_with_a_count_of_the_rest() -> None:
    digest = build_digest(session(500))
    assert len(digest) <= 2_000
    assert "Files changed (" in digest
    assert "Commands (" in digest
    assert "more" in digest.splitlines()[-1] or any(
        line.startswith("- and ") for line in digest.splitlines()
    )


def test_long_command_lines_and_requests_are_cut() -> None:
    work = SessionWork("ask " * 500, (command("echo " + "y" * 5_000, 1),))
    digest = build_digest(work)
    assert all(len(line) < 400 for line in digest.splitlines())
