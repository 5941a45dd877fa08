"""aletheia hook user-prompt and capture: <private> text never leaves the machine, and
ALETHEIA_CAPTURE_OFF_FOR in the hook's environment switches a host's capture off (nothing is
sent, no hub is reached)."""

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from aletheia_hub.hosts.hooks import HookFailed, prompt_to_send
from tests.conftest import free_port, process_env
from tests.hub.hosts.conftest import run_aletheia
from tests.hub.hosts.stand_in import Calls, StandIn, stand_in_hub


def user_prompt(cwd: Path, prompt: str) -> str:
    return json.dumps(
        {
            "session_id": "s",
            "cwd": str(cwd),
            "hook_event_name": "UserPromptSubmit",
            "prompt": prompt,
        }
    )


@pytest.fixture
def recorder() -> Iterator[StandIn]:
    """A stand-in hub that answers 201 to every prompt and keeps the bodies."""
    reply = b'{"id": 1, "project": "p", "captured": true, "times": 1, "note": null}'
    with stand_in_hub(Calls(reply=reply)) as server:
        yield server


def hook_env(url: str, **extra: str) -> dict[str, str]:
    return {**process_env(), "ALETHEIA_HUB_URL": url, **extra}


def test_the_hook_sends_the_prompt_without_its_private_text(
    recorder: StandIn, tmp_path: Path
) -> None:
    url = recorder.url
    prompt = "Fix the invoice total <private>my salary is 91k</private> before Friday"
    done = run_aletheia(
        "hook", "user-prompt", env=hook_env(url), home=tmp_path, stdin=user_prompt(tmp_path, prompt)
    )
    assert done.returncode == 0 and done.stderr == "", done.stderr
    [body] = recorder.calls.bodies
    assert body["request"] == "Fix the invoice total  before Friday"
    assert body["tool"] == "claude-code"


@pytest.mark.parametrize(
    "prompt",
    [
        'Fix the invoice total <private reason="hr">my salary is 91k</private> before Friday',
        "Fix the invoice total < private >my salary is 91k</ private > before Friday",
        "Fix the invoice total <PRIVATE>my salary is 91k</Private> before Friday",
    ],
)
def test_the_hook_sends_no_private_span_in_any_form_a_person_types(
    recorder: StandIn, tmp_path: Path, prompt: str
) -> None:
    url = recorder.url
    done = run_aletheia(
        "hook", "user-prompt", env=hook_env(url), home=tmp_path, stdin=user_prompt(tmp_path, prompt)
    )
    assert done.returncode == 0 and done.stderr == "", done.stderr
    assert [body["request"] for body in recorder.calls.bodies] == [
        "Fix the invoice total  before Friday"
    ]


@pytest.mark.parametrize(
    ("off_for", "prompt"),
    [
        ("claude-code", "Deploy the shop"),
        ("cursor, claude-code", "Deploy the shop"),
        ("Claude-Code", "Deploy the shop"),
        ('["CLAUDE-CODE "]', "Deploy the shop"),
        ("*", "Deploy the shop"),
        ("", "<private>only this</private>"),
        ("", "< Private reason='x'>only this, never closed"),
    ],
)
def test_nothing_is_sent_when_capture_is_off_for_the_host_or_all_of_it_is_private(
    tmp_path: Path, off_for: str, prompt: str
) -> None:
    # No hub listens there: a hook that tried to send would say so on stderr.
    env = hook_env(f"http://127.0.0.1:{free_port()}/mcp", ALETHEIA_CAPTURE_OFF_FOR=off_for)
    done = run_aletheia(
        "hook", "user-prompt", env=env, home=tmp_path, stdin=user_prompt(tmp_path, prompt)
    )
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")


def test_capture_off_for_another_host_still_sends(recorder: StandIn, tmp_path: Path) -> None:
    url = recorder.url
    env = hook_env(url, ALETHEIA_CAPTURE_OFF_FOR="cursor")
    done = run_aletheia(
        "hook", "user-prompt", env=env, home=tmp_path, stdin=user_prompt(tmp_path, "Deploy")
    )
    assert done.returncode == 0 and done.stderr == "", done.stderr
    assert [body["request"] for body in recorder.calls.bodies] == ["Deploy"]


def test_a_malformed_host_list_sends_nothing_and_says_why() -> None:
    with pytest.raises(HookFailed, match="ALETHEIA_CAPTURE_OFF_FOR names no hosts"):
        prompt_to_send("x", "cursor", {"ALETHEIA_CAPTURE_OFF_FOR": '["cursor", 1]'})
