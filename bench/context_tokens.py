"""How far the hub's token estimate (characters / ratio) is from a real tokenizer's count, on
the texts the hub itself answers: session_start_context at several store sizes, search,
timeline and get_observations (also cut by max_tokens), from a hub seeded with memories,
rules and facts.

    .venv/bin/python bench/context_tokens.py --tokenizer PATH/tokenizer.json

The tokenizer is a Hugging Face tokenizer.json, read with the `tokenizers` package the hub
already installs. Anthropic's published one (Claude's tokenizer before Claude 3, the newest
Anthropic published) ships in the anthropic SDK's older wheels:

    .venv/bin/pip download anthropic==0.34.2 --no-deps -d /tmp/anthropic
    unzip -o /tmp/anthropic/anthropic-0.34.2-py3-none-any.whl anthropic/tokenizer.json -d /tmp

Prints figures only; nothing is asserted.
"""

import argparse
import random
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from statistics import mean
from typing import Any, Final

import httpx
from hubs import running_hub
from retrieval_shared import rpc
from tokenizers import Tokenizer

from aletheia_hub.token_budget import estimate_tokens

SIZES: Final = (3, 10, 30, 120)
TYPES: Final = ("decision", "gotcha", "note", "bugfix", "discovery")
VOCABULARY: Final = (
    "deploy staging VPN pnpm checkout flaky test migration PostgreSQL pgvector index cache "
    "token budget hook session proxy retry timeout docker compose release changelog schema "
    "rate limiter redis worker embedding search ranking console login OAuth refresh cursor "
    "src/api/routes.py services/hub/app.py package.json Makefile .github/workflows/ci.yml "
    "v0.4.2 2026-11-03 HTTP 429 p95 350ms --no-verify ALETHEIA_DATA_DIR"
)
WORDS: Final = VOCABULARY.split()

Call = Callable[[str, dict[str, Any]], str]


def sentence(rng: random.Random, words: int) -> str:
    text = " ".join(rng.choice(WORDS) for _ in range(words))
    return text[0].upper() + text[1:] + "."


def connect(client: httpx.Client, url: str) -> Call:
    hello = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "bench"}}
    answer = client.post(url, json=rpc("initialize", 1, **hello))
    client.headers["Mcp-Session-Id"] = answer.headers["Mcp-Session-Id"]
    client.post(url, json=rpc("notifications/initialized"))

    def call(name: str, arguments: dict[str, Any]) -> str:
        reply = client.post(url, json=rpc("tools/call", 2, name=name, arguments=arguments))
        result = reply.json()["result"]
        return "".join(part.get("text", "") for part in result["content"])

    return call


def seed(call: Call, project: str, count: int, rng: random.Random) -> list[int]:
    ids = []
    for index in range(count):
        answer = call(
            "save_memory",
            {
                "project": project,
                "title": sentence(rng, rng.randint(4, 10)).rstrip("."),
                "text": " ".join(sentence(rng, rng.randint(6, 18)) for _ in range(3)),
                "type": TYPES[index % len(TYPES)],
                "pinned": index % 9 == 0,
                "facts": [{"subject": project, "predicate": "uses", "object": rng.choice(WORDS)}]
                if index % 4 == 0
                else [],
            },
        )
        ids.append(int(answer.split("#", 1)[1].split()[0].rstrip(".,:")))
    return ids


def rendered(call: Call, rng: random.Random) -> Iterator[tuple[str, str]]:
    """(kind, text) of each answer measured."""
    for _ in range(4):
        call("add_rule", {"then": sentence(rng, 8), "when": sentence(rng, 4).rstrip(".")})
    for size in SIZES:
        project = f"shop-{size}"
        ids = seed(call, project, size, rng)
        yield f"context ({size} memories)", call("session_start_context", {"project": project})
        for _ in range(3):
            query = " ".join(rng.sample(WORDS, 2))
            yield "search", call("search", {"query": query, "project": project})
        yield "timeline", call("timeline", {"anchor": ids[len(ids) // 2], "project": project})
        yield "get_observations", call("get_observations", {"ids": ids[:5]})
        if size >= 30:  # cut by max_tokens: the real count should stay within the budget
            query = " ".join(rng.sample(WORDS, 2))
            budgeted = {"query": query, "project": project, "limit": 50, "max_tokens": 400}
            yield "search, max_tokens 400", call("search", budgeted)
            cut = {"ids": ids[:20], "max_tokens": 1000}
            yield "get_observations, max_tokens 1000", call("get_observations", cut)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tokenizer", type=Path, required=True, help="a tokenizer.json")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    tokenizer = Tokenizer.from_file(str(args.tokenizer))
    rng = random.Random(args.seed)
    rows: list[tuple[str, int, int, int]] = []
    with tempfile.TemporaryDirectory() as folder:
        settings = {"ALETHEIA_DATA_DIR": folder, "ALETHEIA_EMBEDDER": "off"}
        with running_hub(settings, Path(folder)) as url, httpx.Client(timeout=60) as client:
            call = connect(client, url)
            for kind, text in rendered(call, rng):
                real = len(tokenizer.encode(text, add_special_tokens=False).ids)
                rows.append((kind, len(text), estimate_tokens(text), real))
    print(
        f"{'answer':<33} {'chars':>6} {'estimate':>8} {'tokens':>7} {'error':>7} {'chars/tok':>9}"
    )
    errors = []
    for kind, chars, estimate, real in rows:
        error = (estimate - real) / real
        errors.append(error)
        print(f"{kind:<33} {chars:>6} {estimate:>8} {real:>7} {error:>+7.1%} {chars / real:>9.2f}")
    print(
        f"{len(rows)} answers: mean error {mean(errors):+.1%}, mean |error| "
        f"{mean(abs(e) for e in errors):.1%}, max |error| {max(abs(e) for e in errors):.1%}; "
        f"{sum(r[1] for r in rows) / sum(r[3] for r in rows):.2f} characters per token overall"
    )


if __name__ == "__main__":
    main()
