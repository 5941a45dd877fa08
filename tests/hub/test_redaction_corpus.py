"""The generated secret corpus (bench/redaction.py): every secret redacted, no look-alike."""

from collections import Counter

from bench.redaction import TOKENS, corpus, is_handled


def test_every_secret_of_the_corpus_is_redacted_and_no_look_alike_is() -> None:
    cases = corpus(seed=7, rounds=3)
    secrets = [case for case in cases if case.is_secret]
    look_alikes = [case for case in cases if not case.is_secret]
    missed = [(case.kind, case.place, case.text) for case in secrets if not is_handled(case)]
    touched = [(case.kind, case.text) for case in look_alikes if not is_handled(case)]
    assert missed == []
    assert touched == []
    # The corpus keeps its breadth: every token kind in every place, and every other kind.
    kinds = Counter(case.kind for case in secrets)
    assert set(TOKENS) <= set(kinds)
    assert {"secret-assignment", "url-password", "bearer-token", "private-key"} <= set(kinds)
    assert {"netrc-password", "aws-secret-key", "slack-webhook", "authorization"} <= set(kinds)
    assert {case.place for case in secrets} >= {"code", "env", "json", "yaml", "url", "log"}
    assert len(secrets) >= 600 and len(look_alikes) >= 60


def test_another_seed_gives_other_secrets_that_are_redacted_too() -> None:
    cases = corpus(seed=2026, rounds=1)
    assert {case.secret for case in cases} != {case.secret for case in corpus(seed=7, rounds=1)}
    assert all(is_handled(case) for case in cases)
