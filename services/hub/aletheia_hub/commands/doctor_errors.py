"""aletheia doctor's error counters: what the local hub's /metrics says went wrong."""

import urllib.error
import urllib.request
from collections import Counter
from typing import Final

from aletheia_hub.settings import Settings

ERRORS_PREFIX: Final = "aletheia_errors_total{"
RATE_LIMITED: Final = "aletheia_rate_limited_calls_total"
# Failures of the hub itself; the other kinds are callers' mistakes the hub answered well.
HUB_FAULTS: Final = frozenset({"internal_error", "server_error"})
NAME: Final = "errors"
# (name, ok, detail): the fields of doctor's Check, which imports this module.
Finding = tuple[str, bool, str]


def error_counters(settings: Settings) -> Finding:
    """The local hub's error counts by kind; a problem when the hub itself failed."""
    url = f"http://127.0.0.1:{settings.port}/metrics"
    request = urllib.request.Request(url)
    if settings.api_key:
        request.add_header("Authorization", f"Bearer {settings.api_key}")
    try:
        with urllib.request.urlopen(request, timeout=2) as response:
            text = response.read().decode()
    except urllib.error.HTTPError as error:
        return (NAME, False, f"{url} answered HTTP {error.code}")
    except (urllib.error.URLError, OSError):
        return (NAME, True, "no hub answering: nothing counted")
    kinds = count_errors(text)
    if not kinds:
        return (NAME, True, "no failed requests since the hub started")
    faults = sum(count for kind, count in kinds.items() if kind in HUB_FAULTS)
    listed = ", ".join(f"{kind} {count}" for kind, count in sorted(kinds.items()))
    detail = f"since the hub started: {listed}"
    if faults:
        detail += "; the hub failed internally: see hub.log in the data dir"
    return (NAME, faults == 0, detail)


def count_errors(metrics_text: str) -> Counter[str]:
    """Failed requests by kind (and rate-limited calls) read from Prometheus text."""
    kinds: Counter[str] = Counter()
    for line in metrics_text.splitlines():
        if line.startswith(ERRORS_PREFIX):
            labels, _, value = line[len(ERRORS_PREFIX) :].partition("} ")
            kind = next(
                (part[6:-1] for part in labels.split(",") if part.startswith('kind="')), "other"
            )
            kinds[kind] += int(float(value))
        elif line.startswith(RATE_LIMITED + " ") and (count := int(float(line.split()[1]))):
            kinds["rate_limited_calls"] += count
    return kinds
