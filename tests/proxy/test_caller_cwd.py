"""The proxy tells a hub on this machine its working directory, and no other hub."""

from pathlib import Path
from urllib.parse import unquote

from aletheia_proxy.config import load_config
from aletheia_proxy.transport import HubClient
from aletheia_shared import headers


def client_headers(environ: dict[str, str]) -> dict[str, str]:
    client = HubClient(load_config(environ))
    try:
        return dict(client.client.headers)
    finally:
        client.close()


def test_a_local_hub_is_sent_the_working_directory_percent_encoded(tmp_path: Path) -> None:
    folder = tmp_path / "café" / "shop"  # the project (the last name) stays ASCII
    folder.mkdir(parents=True)
    sent = client_headers({"ALETHEIA_CWD": str(folder)})
    value = sent[headers.CALLER_CWD.lower()]
    assert value.isascii()
    assert unquote(value) == str(folder.resolve())


def test_a_remote_hub_is_not_sent_the_working_directory(tmp_path: Path) -> None:
    sent = client_headers(
        {"ALETHEIA_CWD": str(tmp_path), "ALETHEIA_HUB_URL": "https://team.example/mcp"}
    )
    assert headers.CALLER_CWD.lower() not in sent
    assert sent[headers.CALLER_PROJECT.lower()] == tmp_path.name


def test_a_project_and_tool_of_any_text_reach_the_hub_intact(tmp_path: Path) -> None:
    folder = tmp_path / "Café 100%"
    folder.mkdir()
    sent = client_headers({"ALETHEIA_CWD": str(folder), "ALETHEIA_TOOL": "Cursör"})
    project, tool = sent[headers.CALLER_PROJECT.lower()], sent[headers.CALLER_TOOL.lower()]
    assert project.isascii() and tool.isascii()
    assert headers.decode_text(project) == "Café 100%"
    assert headers.decode_text(tool) == "Cursör"
