"""Test runs read from real runners' closing output: counts and failing names, colours
stripped, only the tail present, and commands that run no tests left alone."""

from aletheia_hub.work_capture.test_runs import (
    FAILING_MAX,
    NAME_MAX_CHARS,
    TestRun,
    read_test_run,
)

PYTEST_FAILING = """\
============================= test session starts ==============================
platform linux -- Python 3.12.3, pytest-8.3.4, pluggy-1.5.0
rootdir: /home/dev/uploader
collected 15 items

tests/test_upload.py ..F.......F....                                     [100%]

=================================== FAILURES ===================================
______________________________ test_upload_retry _______________________________

    def test_upload_retry():
>       assert retry(3) == 3
E       assert 2 == 3

tests/test_upload.py:41: AssertionError
=========================== short test summary info ============================
FAILED tests/test_upload.py::test_upload_retry - assert 2 == 3
FAILED tests/test_upload.py::TestChunks::test_last_chunk[big] - KeyError: 'size'
========================= 2 failed, 13 passed in 1.24s =========================
"""

PYTEST_COLOURED = (
    "\x1b[1m======= test session starts =======\x1b[0m\n"
    "tests/test_a.py \x1b[32m.\x1b[0m\x1b[31mF\x1b[0m\n"
    "\x1b[31mFAILED\x1b[0m tests/test_a.py::\x1b[1mtest_b\x1b[0m - assert 0\n"
    "\x1b[31m========= \x1b[31m\x1b[1m1 failed\x1b[0m, \x1b[32m1 passed\x1b[0m"
    "\x1b[31m in 0.05s\x1b[0m\x1b[31m =========\x1b[0m\n"
)

PYTEST_QUIET = """\
..F.E.                                                                   [100%]
FAILED tests/test_x.py::test_y - ValueError: bad
ERROR tests/test_x.py::test_z - fixture 'db' not found
1 failed, 4 passed, 1 warning, 1 error in 0.31s
"""

JEST_FAILING = """\
 FAIL  src/upload.test.js
  uploader
    ✓ sends one chunk (3 ms)
    ✕ retries after a timeout (12 ms)

  ● uploader › retries after a timeout

    expect(received).toBe(expected) // Object.is equality

    Expected: 3
    Received: 2

  ● Console

    console.log
      retrying

Test Suites: 1 failed, 2 passed, 3 total
Tests:       1 failed, 4 passed, 5 total
Snapshots:   0 total
Time:        1.532 s
Ran all test suites.
"""

VITEST_FAILING = """\
 ❯ src/sum.test.ts (3 tests | 1 failed) 6ms
   × sum > adds negatives 4ms
     → expected -1 to be 1

⎯⎯⎯⎯⎯⎯⎯ Failed Tests 1 ⎯⎯⎯⎯⎯⎯⎯

 FAIL  src/sum.test.ts > sum > adds negatives
AssertionError: expected -1 to be 1 // Object.is equality

⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯[1/1]⎯

 Test Files  1 failed | 1 passed (2)
      Tests  1 failed | 2 passed (3)
   Start at  10:21:07
   Duration  412ms (transform 38ms, setup 0ms, collect 41ms, tests 6ms)
"""

GO_VERBOSE = """\
=== RUN   TestParse
--- PASS: TestParse (0.00s)
=== RUN   TestUpload
=== RUN   TestUpload/retry
    upload_test.go:31: got 2 retries, want 3
--- FAIL: TestUpload (0.01s)
    --- FAIL: TestUpload/retry (0.00s)
=== RUN   TestChunks
--- PASS: TestChunks (0.00s)
FAIL
FAIL\texample.com/uploader\t0.014s
ok  \texample.com/uploader/cli\t(cached)
FAIL
"""

GO_PASSING = "ok  \texample.com/uploader\t0.012s\nok  \texample.com/uploader/cli\t0.004s\n"

CARGO_FAILING = """\
running 3 tests
test tests::parses ... ok
test tests::retries ... FAILED
test tests::chunks ... ok

failures:

---- tests::retries stdout ----
thread 'tests::retries' panicked at src/lib.rs:26:9:
assertion `left == right` failed
  left: 2
 right: 3
note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace


failures:
    tests::retries

test result: FAILED. 2 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s

error: test failed, to rerun pass `--lib`
"""

CARGO_PASSING = """\
running 2 tests
test tests::a ... ok
test tests::b ... ok

test result: ok. 2 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s

   Doc-tests uploader

running 1 test
test src/lib.rs - retry (line 5) ... ok

test result: ok. 1 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.21s
"""


def test_pytest_summary_gives_counts_and_failing_node_ids() -> None:
    run = read_test_run("pytest -x tests/", PYTEST_FAILING)
    assert run == TestRun(
        "pytest",
        13,
        2,
        (
            "tests/test_upload.py::test_upload_retry",
            "tests/test_upload.py::TestChunks::test_last_chunk[big]",
        ),
    )


def test_pytest_colour_codes_are_stripped_before_reading() -> None:
    run = read_test_run("python -m pytest --color=yes", PYTEST_COLOURED)
    assert run == TestRun("pytest", 1, 1, ("tests/test_a.py::test_b",))


def test_pytest_quiet_output_counts_errors_as_failures() -> None:
    run = read_test_run("uv run pytest -q", PYTEST_QUIET)
    assert run == TestRun("pytest", 4, 2, ("tests/test_x.py::test_y", "tests/test_x.py::test_z"))


def test_pytest_passing_run_has_no_failing_names() -> None:
    output = "....\n========== 4 passed, 1 skipped in 0.20s ==========\n"
    assert read_test_run("pytest", output) == TestRun("pytest", 4, 0, ())


def test_pytest_with_no_tests_collected_is_a_run_of_nothing() -> None:
    output = "collected 0 items\n\n============ no tests ran in 0.01s ============\n"
    assert read_test_run("pytest -k nothing", output) == TestRun("pytest", 0, 0, ())


def test_jest_counts_come_from_the_tests_line_and_names_from_the_bullets() -> None:
    run = read_test_run("npx jest src", JEST_FAILING)
    assert run == TestRun("jest", 4, 1, ("uploader › retries after a timeout",))


def test_jest_crossed_names_serve_when_the_bullets_were_cut_off() -> None:
    output = "    ✕ retries after a timeout (12 ms)\n\nTests:       1 failed, 1 passed, 2 total\n"
    run = read_test_run("jest", output)
    assert run == TestRun("jest", 1, 1, ("retries after a timeout",))


def test_vitest_counts_and_full_failing_names() -> None:
    run = read_test_run("npx vitest run", VITEST_FAILING)
    assert run == TestRun("vitest", 2, 1, ("src/sum.test.ts > sum > adds negatives",))


def test_go_verbose_counts_top_level_tests_and_names_subtests_too() -> None:
    run = read_test_run("go test -v ./...", GO_VERBOSE)
    assert run == TestRun("go test", 2, 1, ("TestUpload", "TestUpload/retry"))


def test_go_without_verbose_counts_packages() -> None:
    assert read_test_run("go test ./...", GO_PASSING) == TestRun("go test", 2, 0, ())
    failing = "--- FAIL: TestUpload (0.01s)\nFAIL\nFAIL\texample.com/up\t0.01s\n"
    assert read_test_run("go test ./...", failing) == TestRun("go test", 0, 1, ("TestUpload",))


def test_go_build_failure_names_the_package() -> None:
    output = "# example.com/up\n./up.go:3:1: syntax error\nFAIL\texample.com/up [build failed]\n"
    assert read_test_run("go test ./...", output) == TestRun("go test", 0, 1, ("example.com/up",))


def test_cargo_failures_list_names_the_failing_tests() -> None:
    run = read_test_run("cargo test", CARGO_FAILING)
    assert run == TestRun("cargo test", 2, 1, ("tests::retries",))


def test_cargo_sums_every_test_binary() -> None:
    assert read_test_run("cargo +nightly test --all", CARGO_PASSING) == TestRun(
        "cargo test", 3, 0, ()
    )


def test_only_the_tail_is_enough_to_read_a_run() -> None:
    tail = PYTEST_FAILING[-180:]  # starts in the middle of a line, as a hook's tail does
    run = read_test_run("pytest", tail)
    assert run is not None
    assert (run.passed, run.failed) == (13, 2)
    assert run.failing == ("tests/test_upload.py::TestChunks::test_last_chunk[big]",)


def test_a_tail_without_the_summary_is_not_a_run() -> None:
    assert read_test_run("pytest", PYTEST_FAILING[:400]) is None


def test_failing_names_are_capped_and_each_cut() -> None:
    lines = [f"FAILED tests/test_many.py::test_{n:03d}_{'x' * 300}" for n in range(40)]
    output = "\n".join([*lines, "=== 40 failed in 2.00s ==="]) + "\n"
    run = read_test_run("pytest", output)
    assert run is not None
    assert run.failed == 40
    assert len(run.failing) == FAILING_MAX
    assert all(len(name) <= NAME_MAX_CHARS for name in run.failing)
    assert run.failing[0].startswith("tests/test_many.py::test_000_")


def test_wrappers_are_read_with_whichever_runner_printed_the_summary() -> None:
    assert read_test_run("npm test", JEST_FAILING) == read_test_run("jest", JEST_FAILING)
    assert read_test_run("make test", PYTEST_QUIET) == read_test_run("pytest", PYTEST_QUIET)
    assert read_test_run("tox -e py312", CARGO_PASSING) is not None


def test_commands_that_run_no_tests_are_not_runs() -> None:
    assert read_test_run("ls -la", PYTEST_FAILING) is None
    assert read_test_run("git status", "On branch main\nnothing to commit\n") is None
    assert read_test_run("python build.py", "=== 1 failed, 2 passed in 0.1s ===\n") is None
    assert read_test_run("pytest --version", "pytest 8.3.4\n") is None


def test_the_runner_in_the_command_decides_how_output_is_read() -> None:
    # A go summary printed by a command that names pytest is not read as pytest.
    assert read_test_run("pytest", GO_PASSING) is None
    assert read_test_run("vitest run", JEST_FAILING) is None


def test_colour_codes_left_without_their_escape_character_are_stripped_too() -> None:
    # A hook that drops control characters leaves "[31m" behind.
    output = "FAILED tests/t.py::test_a - x\n[31m==== 1 failed, 41 passed in 1.90s ====[0m"
    assert read_test_run("pytest -q", output) == TestRun("pytest", 41, 1, ("tests/t.py::test_a",))
    assert read_test_run("pytest", "[32m==== 42 passed in 1.80s ====[0m") == TestRun(
        "pytest", 42, 0, ()
    )
