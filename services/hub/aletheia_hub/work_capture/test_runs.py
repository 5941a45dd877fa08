"""Test runs read from a command and the tail of its output: pytest, jest, vitest, go test and
cargo test become "N passed, M failed" with the failing tests' names, without any model.

Only the tail of the output reaches the hub, so every reader works from the runner's closing
lines (its summary and the list of failures printed just before it)."""

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

FAILING_MAX: Final = 20  # failing names kept per run
NAME_MAX_CHARS: Final = 160  # one failing name

_ANSI: Final = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-_]")
# Colour codes whose escape character was already taken out as a control character upstream.
_BARE_SGR: Final = re.compile(r"\[(?:\d{1,3}(?:;\d{1,3})*)?m")


@dataclass(frozen=True, slots=True)
class TestRun:
    """What one run of a test runner said at its end."""

    __test__ = False  # not a pytest test class, whatever its name

    runner: str
    passed: int
    failed: int
    failing: tuple[str, ...] = ()


def strip_ansi(text: str) -> str:
    """The text without terminal colour and cursor codes."""
    return _BARE_SGR.sub("", _ANSI.sub("", text)).replace("\r\n", "\n")


def _names(found: list[str]) -> tuple[str, ...]:
    """Failing names in the order first seen, each once, cut and capped."""
    kept: list[str] = []
    for name in found:
        name = name.strip()
        if len(name) > NAME_MAX_CHARS:
            name = name[: NAME_MAX_CHARS - 1] + "…"
        if name and name not in kept:
            kept.append(name)
        if len(kept) == FAILING_MAX:
            break
    return tuple(kept)


def _count(pattern: str, text: str) -> int:
    found = re.search(pattern, text)
    return int(found.group(1)) if found else 0


# pytest: "=== 1 failed, 3 passed, 2 warnings in 0.12s ===" or, with -q, the same without "=".
_PYTEST_SUMMARY: Final = re.compile(
    r"^=*\s*((?:\d+ (?:failed|passed|skipped|deselected|xfailed|xpassed|warnings?|errors?)"
    r"(?:, )?)+|no tests ran)\s+in [\d.]+s(?: \([^)]*\))?\s*=*\s*$",
    re.MULTILINE,
)
_PYTEST_FAILED: Final = re.compile(r"^(?:\[gw\d+\] )?(?:FAILED|ERROR) (\S+)", re.MULTILINE)


def _pytest(text: str) -> TestRun | None:
    summaries = _PYTEST_SUMMARY.findall(text)
    if not summaries:
        return None
    last = summaries[-1]
    passed = _count(r"(\d+) passed", last)
    failed = _count(r"(\d+) failed", last) + _count(r"(\d+) errors?\b", last)
    failing = _names(_PYTEST_FAILED.findall(text)) if failed else ()
    return TestRun("pytest", passed, failed, failing)


# jest: "Tests:       1 failed, 4 passed, 5 total"; failures as "  ● Suite › test name".
_JEST_SUMMARY: Final = re.compile(r"^Tests:\s+(.*\d+ total)\s*$", re.MULTILINE)
_JEST_BULLET: Final = re.compile(r"^\s*● (.+?)\s*$", re.MULTILINE)
_JEST_CROSS: Final = re.compile(r"^\s*✕ (.+?)(?: \(\d+(?:\.\d+)? ?m?s\))?\s*$", re.MULTILINE)
_JEST_NOT_TESTS: Final = ("Console", "Test suite failed to run")


def _jest(text: str) -> TestRun | None:
    summaries = _JEST_SUMMARY.findall(text)
    if not summaries:
        return None
    last = summaries[-1]
    failed = _count(r"(\d+) failed", last)
    bullets = [name for name in _JEST_BULLET.findall(text) if not name.startswith(_JEST_NOT_TESTS)]
    failing = _names(bullets or _JEST_CROSS.findall(text)) if failed else ()
    return TestRun("jest", _count(r"(\d+) passed", last), failed, failing)


# vitest: "      Tests  1 failed | 4 passed (5)"; failures as " FAIL  file > suite > name".
_VITEST_SUMMARY: Final = re.compile(r"^\s*Tests\s{2,}(.*\(\d+\))\s*$", re.MULTILINE)
_VITEST_FAIL: Final = re.compile(r"^\s*FAIL\s+(\S.*? > .+?)\s*$", re.MULTILINE)
_VITEST_CROSS: Final = re.compile(r"^\s*[×✕] (.+?)(?: \d+ ?ms)?\s*$", re.MULTILINE)


def _vitest(text: str) -> TestRun | None:
    summaries = _VITEST_SUMMARY.findall(text)
    if not summaries:
        return None
    last = summaries[-1]
    failed = _count(r"(\d+) failed", last)
    failing = _names(_VITEST_FAIL.findall(text) or _VITEST_CROSS.findall(text)) if failed else ()
    return TestRun("vitest", _count(r"(\d+) passed", last), failed, failing)


# go test: "--- FAIL: TestX (0.00s)" (subtests indented), then "FAIL\tpkg\t0.01s" or "ok  \tpkg".
_GO_RESULT: Final = re.compile(r"^( *)--- (PASS|FAIL): (\S+)", re.MULTILINE)
_GO_PACKAGE: Final = re.compile(
    r"^(ok|FAIL)[ \t]+(\S+)[ \t]+(?:[\d.]+s|\(cached\)|\[)", re.MULTILINE
)


def _go(text: str) -> TestRun | None:
    packages = _GO_PACKAGE.findall(text)
    results = _GO_RESULT.findall(text)
    if not packages and not results:
        return None
    top = [(state, name) for indent, state, name in results if not indent]
    passed = sum(1 for state, _ in top if state == "PASS")
    failed = sum(1 for state, _ in top if state == "FAIL")
    failing = [name for _, state, name in results if state == "FAIL"]
    if not top:
        # Without -v only failures and packages are printed: count packages then.
        passed = sum(1 for state, _ in packages if state == "ok")
        failed = failed or sum(1 for state, _ in packages if state == "FAIL")
    if failed and not failing:
        failing = [name for state, name in packages if state == "FAIL"]
    return TestRun("go test", passed, failed, _names(failing) if failed else ())


# cargo test: one "test result: FAILED. 3 passed; 1 failed; ..." per test binary, summed.
_CARGO_SUMMARY: Final = re.compile(
    r"^test result: (?:ok|FAILED)\. (\d+) passed; (\d+) failed", re.MULTILINE
)
_CARGO_LIST: Final = re.compile(r"^failures:\n((?:    \S+\n?)+)", re.MULTILINE)
_CARGO_STDOUT: Final = re.compile(r"^---- (\S+) stdout ----", re.MULTILINE)
_CARGO_LINE: Final = re.compile(r"^test (\S+) \.\.\. FAILED", re.MULTILINE)


def _cargo(text: str) -> TestRun | None:
    summaries = _CARGO_SUMMARY.findall(text)
    if not summaries:
        return None
    passed = sum(int(p) for p, _ in summaries)
    failed = sum(int(f) for _, f in summaries)
    listed = [name for block in _CARGO_LIST.findall(text) for name in block.split()]
    found = listed or _CARGO_STDOUT.findall(text) or _CARGO_LINE.findall(text)
    return TestRun("cargo test", passed, failed, _names(found) if failed else ())


_Reader = Callable[[str], TestRun | None]
_BY_COMMAND: Final[tuple[tuple[re.Pattern[str], _Reader], ...]] = (
    (re.compile(r"\bpytest\b|\bpy\.test\b"), _pytest),
    (re.compile(r"\bvitest\b"), _vitest),
    (re.compile(r"\bjest\b"), _jest),
    (re.compile(r"\bgo\s+test\b"), _go),
    (re.compile(r"\bcargo\s+(?:\+\S+\s+)?test\b"), _cargo),
)
# Wrappers that run whichever runner the project has: every reader is tried on the output.
_WRAPPER: Final = re.compile(
    r"\b(?:npm|pnpm|yarn|bun)\s+(?:run\s+)?test\b|\bnpx\s+\S*test|\bmake\s+(?:\S+\s+)*"
    r"(?:test|check)\b|\b(?:tox|nox)\b|\bhatch\s+(?:run\s+)?test\b|\bjust\s+test\b"
)
_ALL: Final[tuple[_Reader, ...]] = (_pytest, _vitest, _jest, _go, _cargo)


def read_test_run(command: str, output: str) -> TestRun | None:
    """The test run a command made, read from the runner named in the command (or any runner
    for wrappers like `npm test` and `make test`) and the summary lines in its output's tail;
    None when the command runs no tests we know or the output holds no summary."""
    readers = [reader for pattern, reader in _BY_COMMAND if pattern.search(command)]
    if not readers and _WRAPPER.search(command):
        readers = list(_ALL)
    if not readers:
        return None
    text = strip_ansi(output)
    for reader in readers:
        run = reader(text)
        if run is not None:
            return run
    return None
