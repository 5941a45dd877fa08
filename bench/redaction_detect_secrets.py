"""The redaction bench with Yelp's detect-secrets as the redactor, alone and on top of the
hub's own patterns: the measurement behind keeping our patterns and no such dependency.

detect-secrets is not a dependency of the hub; install it beside the bench to compare:

    .venv/bin/python -m pip install --target /tmp/dslib detect-secrets==1.5.0
    PYTHONPATH=/tmp/dslib .venv/bin/python bench/redaction_detect_secrets.py

A memory is scanned line by line with every default plugin, as `detect-secrets scan --string`
does (`scan_line`, whose high-entropy plugins also look at unquoted strings), and each secret
value found is replaced in the text. --quoted-only runs the high-entropy plugins as a file
scan does instead (quoted strings only).
"""

import argparse
import json
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

if not __package__:  # run as a script: bench/ is on the path, the repository root is not
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from bench.redaction import (
    HUB,
    Redactor,
    corpus,
    false_positives,
    microseconds_per_memory,
    report_recall,
    typical_memories,
)


@dataclass(frozen=True, slots=True)
class Found:
    text: str
    count: int


@dataclass(frozen=True, slots=True)
class FoundJson:
    value: object
    count: int


_KEEP: list[object] = []


def detect_secrets_redactor(quoted_only: bool) -> Callable[[str], Found]:
    from detect_secrets.core import scan  # type: ignore[import-not-found]
    from detect_secrets.settings import (  # type: ignore[import-not-found]
        default_settings,
        get_plugins,
    )

    # Every plugin and the default filters, for this process (kept: on collection the context
    # would restore the settings it replaced).
    _KEEP.append(settings := default_settings())
    settings.__enter__()
    plugins = list(get_plugins())

    def secrets_of(line: str) -> set[str]:
        if not quoted_only:
            return {found.secret_value for found in scan.scan_line(line) if found.secret_value}
        context = scan.get_code_snippet(lines=[line], line_number=1)
        return {
            found.secret_value
            for plugin in plugins
            for found in scan._scan_line(
                plugin=plugin,
                filename="memory.txt",
                line=line,
                line_number=1,
                enable_eager_search=False,
                context=context,
            )
            if found.secret_value
        }

    def redact(text: str) -> Found:
        values = {value for line in text.splitlines() for value in secrets_of(line)}
        count = 0
        for value in sorted(values, key=len, reverse=True):
            text, found = re.subn(re.escape(value), "[REDACTED:detect-secrets]", text)
            count += found
        return Found(text, count)

    return redact


def with_json(redact: Callable[[str], Found]) -> Redactor:
    def redact_json(value: object) -> FoundJson:
        found = redact(json.dumps(value))
        try:
            return FoundJson(json.loads(found.text), found.count)
        except json.JSONDecodeError:
            return FoundJson(found.text, found.count)

    return Redactor(redact, redact_json)


def both(redact: Callable[[str], Found]) -> Callable[[str], Found]:
    """The hub's patterns, then detect-secrets on what they left."""

    def redact_both(text: str) -> Found:
        first = HUB.text(text)
        second = redact(first.text)
        return Found(second.text, first.count + second.count)

    return redact_both


def measure(name: str, redactor: Redactor) -> None:
    print(f"== {name}")
    report_recall(corpus(), redactor)
    lines, touched = false_positives(redactor)
    wrong = [line for line in touched if not line.fixture]
    print(f"code corpus: {lines} lines; false positives: {len(wrong)} lines")
    for line in wrong[:12]:
        print(f"  FP {line.file}: {line.line[:110]}")
    for kind, texts in typical_memories().items():
        cost = microseconds_per_memory(texts, redactor, repeat=3)
        print(f"cost: {cost:.1f} µs per memory ({kind})")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quoted-only", action="store_true")
    args = parser.parse_args(argv)
    detect = detect_secrets_redactor(args.quoted_only)
    measure("detect-secrets alone", with_json(detect))
    measure("hub patterns, then detect-secrets", with_json(both(detect)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
