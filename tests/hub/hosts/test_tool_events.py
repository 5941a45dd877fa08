"""Hosts' tool-call hook payloads, in the shapes their hook documentation gives, read into the
edits and commands the hub keeps; read-only tools and malformed payloads give nothing."""

import json
from pathlib import Path
from typing import Any

import pytest

from aletheia_hub.hosts.tool_events import (
    bodies,
    read_tool_event,
    read_tool_events,
    session_of,
)
from aletheia_hub.work_capture.events import (
    COMMAND_MAX_CHARS,
    EXCERPT_MAX_CHARS,
    FILE_MAX_CHARS,
    OUTPUT_TAIL_MAX_CHARS,
    CommandEvent,
    EditEvent,
)

ROOT = "/home/dev/shop"


def claude(tool: str, given: Any, response: Any = None, **extra: Any) -> dict[str, Any]:
    payload = {
        "session_id": "00893aaf-19fa-41d2-8238-13269b9b3ca0",
        "transcript_path": "/home/dev/.claude/projects/-home-dev-shop/0089.jsonl",
        "cwd": ROOT,
        "permission_mode": "default",
        "hook_event_name": "PostToolUse",
        "tool_name": tool,
        "tool_input": given,
        "tool_use_id": "toolu_01ABC",
        **extra,
    }
    if response is not None:
        payload["tool_response"] = response
    return payload


def edit(host: str, payload: object) -> EditEvent:
    found = read_tool_event(host, payload)
    assert isinstance(found, EditEvent), found
    return found


def command(host: str, payload: object) -> CommandEvent:
    found = read_tool_event(host, payload)
    assert isinstance(found, CommandEvent), found
    return found


# --- Claude Code -------------------------------------------------------------------------------


def test_a_claude_code_edit_counts_the_lines_it_changed_relative_to_the_project() -> None:
    payload = claude(
        "Edit",
        {
            "file_path": f"{ROOT}/src/upload.py",
            "old_string": "def retry():\n    return 1\n",
            "new_string": "def retry():\n    return 2\n    # twice\n",
        },
        {"filePath": f"{ROOT}/src/upload.py", "success": True},
    )
    found = edit("claude-code", payload)
    assert (found.file, found.added, found.removed, found.tool) == ("src/upload.py", 2, 1, "Edit")
    assert found.excerpt == "-    return 1\n+    return 2\n+    # twice"


def test_claude_codes_structured_patch_counts_when_it_is_sent() -> None:
    response = {
        "type": "update",
        "filePath": f"{ROOT}/a.py",
        "structuredPatch": [
            {
                "oldStart": 1,
                "oldLines": 2,
                "newStart": 1,
                "newLines": 3,
                "lines": [" keep", "-gone", "+new 1", "+new 2"],
            },
        ],
    }
    found = edit(
        "claude-code", claude("Write", {"file_path": f"{ROOT}/a.py", "content": "x"}, response)
    )
    assert (found.added, found.removed) == (2, 1)


def test_a_write_counts_every_line_it_wrote() -> None:
    found = edit(
        "claude-code", claude("Write", {"file_path": f"{ROOT}/new.txt", "content": "a\nb\nc\n"})
    )
    assert (found.file, found.added, found.removed) == ("new.txt", 3, 0)


def test_a_multi_edit_sums_its_edits() -> None:
    given = {
        "file_path": f"{ROOT}/m.py",
        "edits": [
            {"old_string": "a = 1", "new_string": "a = 2"},
            {"old_string": "b", "new_string": "b\nc"},
            "not an edit",
        ],
    }
    found = edit("claude-code", claude("MultiEdit", given))
    assert (found.added, found.removed) == (2, 1)


def test_a_passing_bash_command_sends_no_output() -> None:
    found = command(
        "claude-code",
        claude(
            "Bash",
            {"command": "ls -la", "description": "list"},
            {"stdout": "total 0\n", "stderr": "", "interrupted": False, "isImage": False},
        ),
    )
    assert (found.command, found.exit_code, found.output_tail, found.tool) == (
        "ls -la",
        0,
        "",
        "Bash",
    )


def test_a_failing_bash_command_keeps_its_exit_code_and_output_tail() -> None:
    payload = claude(
        "Bash",
        {"command": "pytest -q tests/test_upload.py"},
        hook_event_name="PostToolUseFailure",
        error="Exit code 1\nFAILED tests/test_upload.py::test_upload_retry\n1 failed in 0.1s",
    )
    found = command("claude-code", payload)
    assert found.exit_code == 1
    assert "FAILED tests/test_upload.py::test_upload_retry" in found.output_tail


def test_a_passing_test_run_sends_its_summary() -> None:
    found = command(
        "claude-code",
        claude("Bash", {"command": "pytest -q"}, {"stdout": "3 passed in 0.2s\n", "stderr": ""}),
    )
    assert found.exit_code == 0 and found.output_tail == "3 passed in 0.2s"


@pytest.mark.parametrize(
    "tool",
    [
        "Read",
        "Grep",
        "Glob",
        "LS",
        "WebFetch",
        "WebSearch",
        "TodoWrite",
        "Task",
        "mcp__aletheia__save_memory",
        "mcp__github__create_issue",
        "",
    ],
)
def test_read_only_and_other_tools_give_nothing(tool: str) -> None:
    assert (
        read_tool_events("claude-code", claude(tool, {"file_path": f"{ROOT}/a", "command": "x"}))
        == []
    )


# --- Codex -------------------------------------------------------------------------------------

CODEX_PATCH = """*** Begin Patch
*** Update File: src/app.py
@@ def main():
-    print("hi")
+    print("hello")
+    return 0
*** Add File: docs/notes.md
+# Notes
*** End Patch
"""


def codex(tool: str, given: Any, response: Any) -> dict[str, Any]:
    return {
        "session_id": "019a-codex",
        "transcript_path": None,
        "cwd": ROOT,
        "hook_event_name": "PostToolUse",
        "model": "gpt-5-codex",
        "turn_id": "t1",
        "tool_name": tool,
        "tool_use_id": "call_1",
        "tool_input": given,
        "tool_response": response,
    }


def test_a_codex_patch_gives_one_edit_per_file() -> None:
    found = read_tool_events("codex", codex("apply_patch", {"command": CODEX_PATCH}, "Success."))
    assert [(e.file, e.added, e.removed) for e in found if isinstance(e, EditEvent)] == [
        ("src/app.py", 2, 1),
        ("docs/notes.md", 1, 0),
    ]


def test_a_unified_diff_patch_names_the_new_file() -> None:
    diff = "--- a/x.py\n+++ b/x.py\n@@ -1 +1 @@\n-old\n+new\n--- a/gone.py\n+++ /dev/null\n-bye\n"
    found = read_tool_events("codex", codex("apply_patch", {"command": diff}, ""))
    assert [(e.file, e.added, e.removed) for e in found if isinstance(e, EditEvent)] == [
        ("x.py", 1, 1),
        ("gone.py", 0, 1),
    ]


def test_a_codex_command_reads_the_exit_code_from_its_output() -> None:
    output = "Exit code: 2\nWall time: 0.4 seconds\nOutput:\nerror: no such file\n"
    found = command("codex", codex("Bash", {"command": "cat nope"}, output))
    assert found.exit_code == 2 and "no such file" in found.output_tail


def test_a_codex_command_without_an_exit_code_is_sent_with_none() -> None:
    found = command("codex", codex("Bash", {"command": ["bash", "-lc", "make"]}, {"weird": 1}))
    assert (found.command, found.exit_code) == ("bash -lc make", None)


# --- Gemini CLI --------------------------------------------------------------------------------


def gemini(tool: str, given: Any, response: Any) -> dict[str, Any]:
    return {
        "session_id": "g-1",
        "transcript_path": "/home/dev/.gemini/tmp/x/chats/session.json",
        "cwd": ROOT,
        "hook_event_name": "AfterTool",
        "timestamp": "2026-01-01T00:00:00Z",
        "tool_name": tool,
        "tool_input": given,
        "tool_response": response,
    }


def test_a_gemini_replace_and_write_file_are_edits() -> None:
    replaced = edit(
        "gemini-cli",
        gemini(
            "replace",
            {"file_path": f"{ROOT}/a.go", "old_string": "x := 1", "new_string": "x := 2"},
            {"llmContent": "Successfully modified file", "returnDisplay": {}},
        ),
    )
    written = edit(
        "gemini-cli",
        gemini("write_file", {"file_path": "rel/b.go", "content": "package b\n"}, {}),
    )
    assert (replaced.file, replaced.added, replaced.removed) == ("a.go", 1, 1)
    assert (written.file, written.added) == ("rel/b.go", 1)


def test_a_gemini_shell_command_reads_its_exit_code_line() -> None:
    response = {
        "llmContent": "Command: go test ./...\nDirectory: (root)\nOutput: --- FAIL: TestX\n"
        "FAIL\nError: (none)\nExit Code: 1\nSignal: (none)",
        "returnDisplay": "--- FAIL: TestX",
    }
    found = command(
        "gemini-cli", gemini("run_shell_command", {"command": "go test ./..."}, response)
    )
    assert found.exit_code == 1 and "--- FAIL: TestX" in found.output_tail


def test_gemini_read_tools_give_nothing() -> None:
    for tool in (
        "read_file",
        "read_many_files",
        "glob",
        "search_file_content",
        "list_directory",
        "web_fetch",
        "google_web_search",
        "save_memory",
    ):
        assert read_tool_events("gemini-cli", gemini(tool, {"file_path": "a"}, {})) == []


# --- Cursor ------------------------------------------------------------------------------------


def cursor(event: str, **fields: Any) -> dict[str, Any]:
    return {
        "conversation_id": "7c1f2d9e",
        "generation_id": "3e8d1a90",
        "hook_event_name": event,
        "workspace_roots": [ROOT],
        **fields,
    }


def test_a_cursor_file_edit_sums_its_edits() -> None:
    found = edit(
        "cursor",
        cursor(
            "afterFileEdit",
            file_path=f"{ROOT}/src/main.ts",
            edits=[{"old_string": "const foo = 1", "new_string": "const foo = 2\nconst bar = 3"}],
        ),
    )
    assert (found.file, found.added, found.removed, found.tool) == ("src/main.ts", 2, 1, "Edit")


def test_a_cursor_shell_execution_keeps_its_duration() -> None:
    found = command(
        "cursor",
        cursor("afterShellExecution", command="npm test", output="Tests: 1 failed", duration=150),
    )
    assert (found.command, found.duration_ms, found.exit_code) == ("npm test", 150, None)
    assert found.output_tail == "Tests: 1 failed"


def test_other_cursor_events_give_nothing() -> None:
    assert read_tool_events("cursor", cursor("beforeReadFile", file_path="a", content="x")) == []
    assert read_tool_events("cursor", cursor("afterMCPExecution", tool_name="x")) == []


# --- OpenCode ----------------------------------------------------------------------------------


def opencode(tool: str, args: Any, output: Any = "", metadata: Any = None) -> dict[str, Any]:
    return {
        "hook_event_name": "tool.execute.after",
        "session_id": "ses_1",
        "cwd": ROOT,
        "tool": tool,
        "args": args,
        "output": output,
        "metadata": metadata or {},
    }


def test_opencode_edits_and_commands() -> None:
    edited = edit(
        "opencode",
        opencode("edit", {"filePath": f"{ROOT}/a.ts", "oldString": "1", "newString": "2"}),
    )
    ran = command("opencode", opencode("bash", {"command": "vitest run"}, "1 failed", {"exit": 1}))
    assert (edited.file, edited.added, edited.removed) == ("a.ts", 1, 1)
    assert (ran.exit_code, ran.output_tail) == (1, "1 failed")
    assert read_tool_events("opencode", opencode("read", {"filePath": "a"})) == []
    assert read_tool_events("opencode", opencode("webfetch", {"url": "x"})) == []


# --- odd payloads ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "payload",
    [
        None,
        [],
        "text",
        3,
        {},
        {"tool_name": "Edit"},
        {"tool_name": "Edit", "tool_input": "x"},
        {"tool_name": "Edit", "tool_input": {"file_path": 3}},
        {"tool_name": "Bash", "tool_input": {"command": ""}},
        {"tool_name": "Bash", "tool_input": {"command": None}},
        {"tool_name": 7, "tool_input": {}},
    ],
)
@pytest.mark.parametrize("host", ["claude-code", "codex", "gemini-cli", "cursor", "opencode", "x"])
def test_a_malformed_payload_gives_nothing(payload: object, host: str) -> None:
    assert read_tool_events(host, payload) == []


def test_a_path_outside_the_project_is_kept_from_home_or_as_given(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("HOME", "/home/dev")
    home = edit("claude-code", claude("Write", {"file_path": "/home/dev/.bashrc", "content": ""}))
    other = edit("claude-code", claude("Write", {"file_path": "/etc/hosts", "content": "x"}))
    windows = edit(
        "claude-code",
        claude(
            "Write",
            {"file_path": "C:\\work\\shop\\src\\a.py", "content": "x"},
            cwd="C:\\work\\shop",
        ),
    )
    assert (home.file, other.file, windows.file) == ("~/.bashrc", "/etc/hosts", "src/a.py")


@pytest.mark.parametrize("opened_through_link", [True, False])
def test_a_project_opened_through_a_link_keeps_its_paths_relative(
    tmp_path: Path, opened_through_link: bool
) -> None:
    # The host may name the file by its real path while the cwd is the link, or the reverse.
    real = tmp_path / "work" / "shop"
    (real / "src").mkdir(parents=True)
    link = tmp_path / "shop-link"
    link.symlink_to(real)
    cwd, named = (link, real) if opened_through_link else (real, link)
    payload = claude(
        "Write", {"file_path": str(named / "src" / "a.py"), "content": "x\n"}, cwd=str(cwd)
    )
    assert edit("claude-code", payload).file == "src/a.py"


def test_huge_outputs_and_texts_are_cut_to_the_caps() -> None:
    output = "".join(f"line {n}\n" for n in range(200_000)) + "FAILED test_last\n"
    ran = command(
        "claude-code",
        claude("Bash", {"command": "pytest " + "x" * 5_000}, error="Exit code 1\n" + output),
    )
    assert len(ran.output_tail) <= OUTPUT_TAIL_MAX_CHARS and ran.output_tail.endswith(
        "FAILED test_last"
    )
    assert ran.output_tail.startswith("…\nline ")
    assert len(ran.command) <= COMMAND_MAX_CHARS
    big = edit(
        "claude-code",
        claude("Write", {"file_path": f"{ROOT}/{'d/' * 400}f.txt", "content": "a\n" * 3_000_000}),
    )
    assert len(big.excerpt) <= EXCERPT_MAX_CHARS and len(big.file) <= FILE_MAX_CHARS
    assert big.added > 0


def test_binary_text_loses_its_control_characters() -> None:
    found = command(
        "claude-code",
        claude(
            "Bash", {"command": "cat blob\x00\x1b[31m"}, error="Exit code 1\n\x00\x01\x02ok\x1b"
        ),
    )
    assert "\x00" not in found.command and "\x1b" not in found.command
    assert found.output_tail.endswith("ok") and "\x00" not in found.output_tail


def test_private_spans_are_taken_out_of_every_field() -> None:
    ran = command(
        "claude-code",
        claude(
            "Bash",
            {"command": "deploy <private>--token s3cret</private> now"},
            error="Exit code 1\n<private>s3cret</private> refused",
        ),
    )
    changed = edit(
        "claude-code",
        claude(
            "Edit",
            {
                "file_path": f"{ROOT}/a",
                "old_string": "x",
                "new_string": "<private>hunter2</private>",
            },
        ),
    )
    assert "s3cret" not in ran.command + ran.output_tail
    assert "hunter2" not in changed.excerpt


def test_the_session_is_read_from_each_hosts_field() -> None:
    assert session_of(claude("Bash", {})) == "00893aaf-19fa-41d2-8238-13269b9b3ca0"
    assert session_of(cursor("stop")) == "7c1f2d9e"
    assert session_of({"session_id": " ", "conversation_id": "c"}) == "c"
    assert session_of([1]) is None and session_of({}) is None


def test_events_become_the_bodies_post_api_work_takes() -> None:
    events = read_tool_events("codex", codex("apply_patch", {"command": CODEX_PATCH}, ""))
    events += read_tool_events("codex", codex("Bash", {"command": "make"}, "Exit code: 0\n"))
    sent = bodies(events)
    assert json.loads(json.dumps(sent)) == sent
    assert sent[0]["kind"] == "edit" and set(sent[0]) == {
        "kind",
        "file",
        "added",
        "removed",
        "tool",
        "excerpt",
    }
    assert sent[-1] == {
        "kind": "command",
        "command": "make",
        "exit_code": 0,
        "duration_ms": None,
        "tool": "Bash",
        "output_tail": "",
    }
