"""X-Aletheia-Git values: what is sent reads back, an oversized one drops blobs to fit, and
anything malformed reads as no header at all."""

import json

import pytest

from aletheia_shared.git_header import (
    MAX_BLOBS,
    MAX_HEADER_CHARS,
    GitState,
    decode_git_state,
    encode_git_state,
)

HEAD = "a" * 40
BLOB = "b" * 40


def test_a_state_reads_back_as_it_was_sent_and_stays_ascii() -> None:
    state: GitState = {
        "root_id": "0123456789abcdef",
        "head": HEAD,
        "branch": "feature/café",
        "blobs": {"src/café.py": BLOB},
    }
    value = encode_git_state(state)
    assert value.isascii()
    assert decode_git_state(value) == state


def test_blobs_are_left_out_until_the_value_fits() -> None:
    blobs = {f"src/{'x' * 200}/{number}.py": BLOB for number in range(MAX_BLOBS)}
    state: GitState = {"root_id": "0" * 16, "head": HEAD, "branch": "main", "blobs": blobs}
    value = encode_git_state(state)
    assert len(value) <= MAX_HEADER_CHARS
    decoded = decode_git_state(value)
    assert decoded is not None
    assert 0 < len(decoded["blobs"]) < MAX_BLOBS


@pytest.mark.parametrize(
    "value",
    [
        "",
        "{",
        "[" * 20_000,
        "null",
        json.dumps({"root_id": "/home/me/shop", "head": None, "branch": None}),
        json.dumps({"root_id": "0" * 16, "head": "HEAD", "branch": None}),
        json.dumps({"root_id": "0" * 16, "head": None, "branch": ["main"]}),
        "x" * (MAX_HEADER_CHARS * 4),
    ],
)
def test_a_malformed_value_reads_as_none(value: str) -> None:
    assert decode_git_state(value) is None


def test_malformed_blobs_are_dropped_and_the_rest_kept() -> None:
    value = json.dumps(
        {
            "root_id": "0" * 16,
            "head": None,
            "branch": None,
            "blobs": {"good.py": BLOB, "bad.py": "zz", "": BLOB, "nul\u0000.py": BLOB},
        }
    )
    decoded = decode_git_state(value)
    assert decoded is not None
    assert decoded["blobs"] == {"good.py": BLOB}
