"""What capture never keeps and how it names hosts: <private> text, cut prompts, host lists."""

import pytest

from aletheia_hub.capture import (
    CaptureLimits,
    capture_is_off,
    cut_to_bytes,
    parse_hosts,
    prompt_to_keep,
    request_hash,
)
from aletheia_hub.private_tags import strip_private
from aletheia_hub.settings import Settings


@pytest.mark.parametrize(
    ("text", "kept"),
    [
        ("deploy <private>pw=hunter2</private> now", "deploy  now"),
        ("a <PRIVATE>x</Private> b <private >y</private > c", "a  b  c"),
        ("start <private>line one\nline two</private>\nend", "start \nend"),
        ("keep this <private>and hide\neverything after", "keep this "),
        ("a <private>x <private>nested</private> still hidden</private> b", "a  b"),
        ("a </private> b", "a  b"),
        ("no tags at all", "no tags at all"),
        ("<private>all of it</private>", ""),
        ('ask <private reason="x">PRIV09</private> end', "ask  end"),
        ("a < private>x</private> b < PRIVATE >y< /private > c", "a  b  c"),
        ("a <private>x</ private > b", "a  b"),
        ("a <private class='q' data-x=\"1>2\">x</private> b", "a  b"),
        ("a <Private\nreason=1>x</private>b", "a b"),
        ("a <private reason='x'>and hide everything after", "a "),
        ("a </ private > b", "a  b"),
        ("a <private/> b <private /> c", "a  b  c"),
        ("a <pri<private>x</private>vate>joined into a tag", "a "),
        (
            "<privateKey>k</privateKey> <private-repo> <privates>",
            "<privateKey>k</privateKey> <private-repo> <privates>",
        ),
    ],
)
def test_text_inside_private_tags_is_taken_out(text: str, kept: str) -> None:
    assert strip_private(text) == kept


def test_a_prompt_over_its_limit_is_cut_within_it_with_a_marker() -> None:
    text = "é" * 300  # 600 bytes, two per character: the cut must not split one
    cut = cut_to_bytes(text, 256)
    assert len(cut.encode()) <= 256
    assert cut.endswith(" […cut at 256 bytes]")
    assert cut.startswith("é" * 100)
    assert cut_to_bytes("short", 256) == "short"


def test_the_same_prompt_with_other_whitespace_has_the_same_hash() -> None:
    assert request_hash("fix  the\n tests ") == request_hash("fix the tests")
    assert request_hash("fix the tests") != request_hash("Fix the tests")


def test_hosts_are_named_by_commas_spaces_or_a_json_list() -> None:
    assert parse_hosts("cursor,codex") == ["cursor", "codex"]
    assert parse_hosts(" cursor  codex ") == ["cursor", "codex"]
    assert parse_hosts('["cursor", "gemini-cli"]') == ["cursor", "gemini-cli"]
    assert parse_hosts("") == []
    with pytest.raises(ValueError):
        parse_hosts('["cursor", 3]')
    assert capture_is_off(["cursor"], "cursor") and not capture_is_off(["cursor"], "codex")
    assert capture_is_off(["*"], "claude-code")


def test_host_names_are_compared_in_one_form_whatever_their_case_or_spacing() -> None:
    assert parse_hosts("Cursor, CODEX ,cursor") == ["cursor", "codex"]
    assert parse_hosts('[" Cursor ", "Gemini-CLI", " "]') == ["cursor", "gemini-cli"]
    for tool in ("Cursor", "CURSOR", "cursor ", "\tcursor"):
        assert capture_is_off(["cursor"], tool), tool
        assert capture_is_off(["Cursor "], tool), tool
    assert not capture_is_off(["cursor"], "cursor-agent")
    assert Settings(capture_off_for=["Cursor ", "CODEX"]).capture_off_for == ["cursor", "codex"]


def test_the_hub_reads_capture_settings_from_the_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("ALETHEIA_CAPTURE_OFF_FOR", "Cursor, CODEX ")
    monkeypatch.setenv("ALETHEIA_CAPTURE_MAX_AGE_DAYS", "7")
    monkeypatch.setenv("ALETHEIA_CAPTURE_MAX_PER_PROJECT", "50")
    monkeypatch.setenv("ALETHEIA_CAPTURE_MAX_BYTES_PER_PROJECT", "4096")
    monkeypatch.setenv("ALETHEIA_CAPTURE_MAX_PROMPT_BYTES", "8192")
    settings = Settings()
    assert settings.capture_off_for == ["cursor", "codex"]
    # A prompt never keeps more than its project may hold.
    assert settings.capture_limits() == CaptureLimits(7, 50, 4096, 8192)
    assert settings.capture_limits().prompt_bytes == 4096


def test_capture_is_bounded_by_default() -> None:
    limits = Settings().capture_limits()
    assert limits == CaptureLimits(30, 1_000, 5 * 1024 * 1024, 8 * 1024)
    assert Settings().capture_off_for == []


def test_context_a_host_put_before_the_prompt_is_not_captured() -> None:
    prompt = (
        "<hook_context>\n<aletheia-memory>\nRecalled memory ...\n</aletheia-memory>\n"
        "</hook_context>\nWhy is the build red?"
    )
    assert prompt_to_keep(prompt) == "Why is the build red?"
    assert prompt_to_keep("<aletheia-memory>x</aletheia-memory> and then") == "and then"
