"""Protocol version negotiation."""

import pytest

from aletheia_shared.protocol import (
    LATEST_PROTOCOL_VERSION,
    SUPPORTED_PROTOCOL_VERSIONS,
    is_supported_version,
    negotiate_version,
)


def test_supported_versions_are_the_four_the_spec_names_newest_first() -> None:
    assert SUPPORTED_PROTOCOL_VERSIONS == ("2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05")
    assert LATEST_PROTOCOL_VERSION == "2025-11-25"


@pytest.mark.parametrize("version", ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"])
def test_a_supported_version_is_answered_with_itself(version: str) -> None:
    assert negotiate_version(version) == version
    assert is_supported_version(version)


@pytest.mark.parametrize("version", ["2099-01-01", "2026-07-28", "", "2025-11-25 ", "latest"])
def test_an_unknown_version_is_answered_with_the_latest(version: str) -> None:
    assert negotiate_version(version) == "2025-11-25"
    assert not is_supported_version(version)


@pytest.mark.parametrize("requested", [None, 20251125, 2025.11, ["2025-06-18"], {"v": 1}, True])
def test_a_version_that_is_not_a_string_is_answered_with_the_latest(requested: object) -> None:
    assert negotiate_version(requested) == "2025-11-25"
