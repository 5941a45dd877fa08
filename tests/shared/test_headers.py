"""Caller headers carry any text: percent-encoded UTF-8, plain ASCII left readable."""

import pytest

from aletheia_shared.headers import decode_text, encode_text


@pytest.mark.parametrize(
    "text", ["shop", "my shop (v2)", "Café", "100% done", "日本語", "a%20b", "tab\there"]
)
def test_any_text_survives_the_round_trip_as_ascii(text: str) -> None:
    encoded = encode_text(text)
    assert encoded.isascii()
    assert "\t" not in encoded
    assert decode_text(encoded) == text


def test_plain_printable_ascii_stays_readable() -> None:
    assert encode_text("shop-api_v2 (main)") == "shop-api_v2 (main)"


def test_raw_utf8_read_as_latin1_is_recovered() -> None:
    assert decode_text("Café".encode().decode("latin-1")) == "Café"


def test_a_bad_escape_becomes_a_replacement_character() -> None:
    assert decode_text("caf%C3") == "caf\ufffd"
