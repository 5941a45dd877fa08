"""The redaction bench (bench/redaction.py): every generated secret redacted, no look-alike
touched, and no line of the false-positive code corpus changed but its fake fixture passwords."""

from collections import Counter
from pathlib import Path

from bench.redaction import CORPUS_DIR, TOKENS, corpus, false_positives, is_handled
from tests.docs.names import ROOT


def test_every_secret_of_the_corpus_is_redacted_and_no_look_alike_is() -> None:
    cases = corpus(seed=7, rounds=3)
    secrets = [case for case in cases if case.is_secret]
    look_alikes = [case for case in cases if not case.is_secret]
    missed = [(case.kind, case.place, case.text) for case in secrets if not is_handled(case)]
    touched = [(case.kind, case.text) for case in look_alikes if not is_handled(case)]
    assert missed == []
    assert touched == []
    # The corpus keeps its breadth: every token shape in every place, and every other kind.
    kinds = Counter(case.kind for case in secrets)
    assert set(TOKENS) <= set(kinds)
    assert {"secret-assignment", "url-password", "bearer-token", "private-key"} <= set(kinds)
    assert {"netrc-password", "aws-secret-key", "slack-webhook", "authorization"} <= set(kinds)
    assert {"cli-mysql", "pgpass", "cookie-header", "k8s-env-pair", "work-state-key-value"} <= set(
        kinds
    )
    assert {case.place for case in secrets} >= {"code", "env", "json", "yaml", "url", "log", "cli"}
    assert len(kinds) >= 120 and len(secrets) >= 1_900 and len(look_alikes) >= 100


def test_another_seed_gives_other_secrets_that_are_redacted_too() -> None:
    cases = corpus(seed=2026, rounds=1)
    assert {case.secret for case in cases} != {case.secret for case in corpus(seed=7, rounds=1)}
    assert all(is_handled(case) for case in cases)


def test_no_line_of_the_code_corpus_is_redacted_but_its_fake_fixture_passwords() -> None:
    lines, touched = false_positives()
    assert [(line.file, line.line) for line in touched if not line.fixture] == []
    # The fixtures' literal passwords are redacted on purpose (see FIXTURE_VALUES).
    assert 10 <= sum(line.fixture for line in touched) <= 20
    suffixes = {Path(name).suffix for name in map(str, CORPUS_DIR.iterdir())}
    assert {".py", ".ts", ".tsx", ".sh", ".yaml", ".sql"} <= suffixes
    assert lines >= 2_000


def test_the_redaction_and_operations_pages_give_the_figures_the_bench_measures() -> None:
    cases = corpus(seed=7, rounds=3)
    secrets = [case for case in cases if case.is_secret]
    redacted = sum(is_handled(case) for case in secrets)
    shapes = len({case.kind for case in secrets})
    look_alikes = [case for case in cases if not case.is_secret]
    touched = sum(not is_handled(case) for case in look_alikes)
    lines, changed = false_positives()
    fixtures = sum(line.fixture for line in changed)
    redaction = " ".join((ROOT / "docs" / "redaction.md").read_text().split())
    assert (
        f"{redacted:,} of {len(secrets):,} generated secrets of {shapes} shapes redacted, "
        f"{touched} of {len(look_alikes)} look-alikes and no line of a {lines:,}-line code "
        f"corpus touched (but {fixtures} lines with a test fixture's fake password"
    ) in redaction
    operations = " ".join((ROOT / "docs" / "operations.md").read_text().split())
    assert (
        f"{redacted:,} of {len(secrets):,} secrets redacted, of all {shapes} shapes, {touched} "
        f"of {len(look_alikes)} look-alikes touched"
    ) in operations
    assert f"`bench/redaction_corpus`, {lines:,} lines" in operations
    assert f"but the {fixtures} that hold a test fixture's fake password" in operations
