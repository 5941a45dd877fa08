"""The redaction bench: recall on generated secrets, false positives on a code corpus, and the
cost per saved memory.

    python bench/redaction.py [--seed N] [--rounds N] [--redactor-file PATH]

- recall: a secret of every shape the hub redacts (bench/redaction_secrets.py: gitleaks' and
  detect-secrets' token shapes, CLI password flags, connection strings, config lines, JSON),
  in code, .env, JSON, YAML, URLs, logs, command lines and work-state items; each must be gone.
  Look-alikes (git SHAs, UUIDs, digests, base64 images, `password_hash`) must be left alone.
- false positives: the files of bench/redaction_corpus (Python, TypeScript, shell, YAML, SQL
  that hold no secret), each redacted whole; every line the redaction changed counts, except
  the test fixtures with obviously fake passwords listed in FIXTURE_VALUES, which the hub
  redacts on purpose (a default password such as `changeme` is often a real one).
- cost: microseconds per memory, over the retrieval bench's 1,000 notes and over code chunks.

--redactor-file measures another redact module instead, --baseline-file times one beside the
hub's (passes interleaved), such as the one before the redact package:
`git show 8680862:services/hub/aletheia_hub/redact.py > /tmp/before.py`.
tests/hub/test_redaction_corpus.py holds the figures.
"""

import argparse
import difflib
import importlib.util
import json
import random
import sys
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Final, Protocol

from aletheia_hub import redact as hub_redact

if not __package__:  # run as a script: bench/ is on the path, the repository root is not
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from bench.redaction_secrets import TOKENS, Case, look_alike_cases, secret_cases

__all__ = ["TOKENS", "Case", "code_corpus", "corpus", "false_positives", "is_handled"]

CORPUS_DIR: Final = Path(__file__).parent / "redaction_corpus"
# The fake credentials of the corpus's test fixtures and examples. A literal under a secret's
# name is redacted whatever it says: the hub cannot tell `changeme` from a real password (and
# default passwords are often real ones), so these lines are counted apart, not as errors.
FIXTURE_VALUES: Final = (
    "changeme", "hunter2", "test-password", "not-a-real-secret", '"wrong"', '"nope"', '"short"',
    "a much longer passphrase", "test-token", "sk_shop_testkey", '"0123456789abcdef"',
)  # fmt: skip


class Cleaned(Protocol):
    @property
    def text(self) -> str: ...
    @property
    def count(self) -> int: ...


class CleanedJson(Protocol):
    @property
    def value(self) -> object: ...
    @property
    def count(self) -> int: ...


@dataclass(frozen=True, slots=True)
class Redactor:
    text: Callable[[str], Cleaned]
    json: Callable[[object], CleanedJson]


HUB: Final = Redactor(hub_redact.redact, hub_redact.redact_json)


def corpus(seed: int = 7, rounds: int = 3) -> list[Case]:
    """Every case of `rounds` rounds, the same for the same seed."""
    rng = random.Random(seed)
    cases: list[Case] = []
    for _ in range(rounds):
        cases += secret_cases(rng)
        cases += look_alike_cases(rng)
    return cases


def is_handled(case: Case, redactor: Redactor = HUB) -> bool:
    """A secret is gone from the redacted text; a look-alike is left untouched."""
    if case.place == "work-state":
        result = redactor.json(json.loads(case.text))
        text, count, same = json.dumps(result.value), result.count, result.value
        unchanged = same == json.loads(case.text)
    else:
        cleaned = redactor.text(case.text)
        text, count, unchanged = cleaned.text, cleaned.count, cleaned.text == case.text
    if case.secret is None:
        return count == 0 and unchanged
    return case.secret not in text and count > 0


def code_corpus() -> dict[str, str]:
    """The false-positive corpus: file name -> text."""
    return {path.name: path.read_text() for path in sorted(CORPUS_DIR.iterdir())}


@dataclass(frozen=True, slots=True)
class Touched:
    file: str
    line: str
    fixture: bool  # holds one of FIXTURE_VALUES


def false_positives(redactor: Redactor = HUB) -> tuple[int, list[Touched]]:
    """How many lines the corpus has, and every line the redaction changed."""
    lines = 0
    touched: list[Touched] = []
    for name, text in code_corpus().items():
        before = text.splitlines()
        after = redactor.text(text).text.splitlines()
        lines += len(before)
        matcher = difflib.SequenceMatcher(None, before, after, autojunk=False)
        for tag, start, end, _, _ in matcher.get_opcodes():
            for line in before[start:end] if tag != "equal" else ():
                fixture = any(value in line for value in FIXTURE_VALUES)
                touched.append(Touched(name, line.strip(), fixture))
    return lines, touched


def typical_memories() -> dict[str, list[str]]:
    """Memory texts to time: the retrieval bench's notes, and 20-line chunks of the corpus."""
    from bench.retrieval_data import build_corpus

    notes = [memory.text for memory in build_corpus(1_000).memories]
    lines = [line for text in code_corpus().values() for line in text.splitlines()]
    chunks = ["\n".join(lines[i : i + 20]) for i in range(0, len(lines), 20)]
    return {"notes": notes, "code chunks": chunks}


def microseconds_per_memory(texts: list[str], redactor: Redactor, repeat: int = 5) -> float:
    """The best of `repeat` passes over every text, per text."""
    return interleaved_costs(texts, [redactor], repeat)[0]


def interleaved_costs(texts: list[str], redactors: list[Redactor], repeat: int) -> list[float]:
    """Per redactor, the best of `repeat` passes over every text, per text in microseconds;
    the passes alternate between redactors, so a busy machine slows them alike."""
    best = [float("inf")] * len(redactors)
    for _ in range(repeat):
        for index, redactor in enumerate(redactors):
            started = time.perf_counter()
            for text in texts:
                redactor.text(text)
            best[index] = min(best[index], time.perf_counter() - started)
    return [seconds / len(texts) * 1e6 for seconds in best]


def load_redactor(path: str) -> Redactor:
    spec = importlib.util.spec_from_file_location("redact_under_test", path)
    assert spec and spec.loader, path
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return Redactor(module.redact, module.redact_json)


def report_recall(cases: list[Case], redactor: Redactor) -> int:
    total: Counter[str] = Counter()
    good: Counter[str] = Counter()
    misses = []
    for case in cases:
        handled = is_handled(case, redactor)
        for key in (case.kind, f"place:{case.place}"):
            total[key] += 1
            good[key] += handled
        if not handled:
            misses.append(case)
    secrets = [case for case in cases if case.is_secret]
    alikes = [case for case in cases if not case.is_secret]
    redacted = sum(is_handled(case, redactor) for case in secrets)
    shapes = {case.kind for case in secrets}
    whole = {kind for kind in shapes if good[kind] == total[kind]}
    touched = sum(not is_handled(case, redactor) for case in alikes)
    print(f"secrets redacted: {redacted}/{len(secrets)} ({100 * redacted / len(secrets):.1f}%)")
    print(f"shapes redacted in every place: {len(whole)}/{len(shapes)}")
    print(f"look-alikes redacted: {touched}/{len(alikes)}")
    for key in sorted(total):
        if good[key] != total[key] or key.startswith("place:"):
            print(f"  {key:32} {good[key]:4}/{total[key]:<4}")
    for case in misses:
        print(f"MISS {case.kind} in {case.place}: {case.text[:160]!r}", file=sys.stderr)
    return len(misses)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--redactor-file", help="a redact.py to measure instead of the hub's")
    parser.add_argument("--baseline-file", help="a redact.py whose cost to print beside")
    parser.add_argument("--repeat", type=int, default=5, help="timed passes (the best counts)")
    args = parser.parse_args(argv)
    redactor = load_redactor(args.redactor_file) if args.redactor_file else HUB
    misses = report_recall(corpus(args.seed, args.rounds), redactor)
    lines, touched = false_positives(redactor)
    wrong = [line for line in touched if not line.fixture]
    fixtures = sum(line.fixture for line in touched)
    files = len(code_corpus())
    print(f"code corpus: {lines} lines in {files} files; false positives: {len(wrong)} lines")
    print(f"  fixture lines with fake passwords, redacted on purpose: {fixtures}")
    for line in wrong:
        print(f"  FP {line.file}: {line.line[:150]}")
    baseline = [load_redactor(args.baseline_file)] if args.baseline_file else []
    for name, texts in typical_memories().items():
        size = sum(map(len, texts)) // len(texts)
        cost, *before = interleaved_costs(texts, [redactor, *baseline], args.repeat)
        was = f" (baseline: {before[0]:.1f} µs)" if before else ""
        print(f"cost: {cost:.1f} µs per memory{was} ({len(texts)} {name}, {size} chars avg)")
    return 0 if not misses and not wrong else 1


if __name__ == "__main__":
    raise SystemExit(main())
