"""OpenCode's hooks: `aletheia install opencode --hooks` writes our plugin file, and that
plugin, loaded by Node as OpenCode loads it, adds the session context to the system prompt
once per session and records each prompt, against a real hub."""

import json
import os
import shutil
import subprocess
import time
from pathlib import Path
from typing import Any

from aletheia_hub.hosts import opencode_plugin
from tests.conftest import require_service
from tests.hub.hosts.conftest import ALETHEIA, Cli, LiveHub

PLUGIN = Path(".config/opencode/plugins/aletheia.js")
# Loads the plugin file and calls its two hooks as OpenCode does: (input, output), mutating
# output. Prints what the hooks left in output.system after two model calls of one session.
DRIVER = """
const [pluginPath, directory, prompt] = process.argv.slice(2);
const module = await import(pluginPath);
const hooks = await module.AletheiaMemory({ directory });
await hooks["chat.message"]({ sessionID: "s1" }, { parts: [{ type: "text", text: prompt }] });
const systems = [];
for (let call = 0; call < 2; call++) {
  const output = { system: [] };
  await hooks["experimental.chat.system.transform"]({ sessionID: "s1" }, output);
  systems.push(output.system);
}
console.log(JSON.stringify(systems));
"""


def node() -> str:
    found = shutil.which("node")
    require_service(None if found else "Node.js is not on PATH", "Node.js")
    assert found is not None
    return found


def test_install_writes_our_plugin_and_uninstall_removes_only_it(home: Path, cli: Cli) -> None:
    plugin = home / PLUGIN
    assert cli("install", "opencode", "--hooks", "--write").code == 0
    text = plugin.read_text()
    assert opencode_plugin.is_ours(text)
    assert '"hook", "session-start", "--tool", "opencode"' in text
    assert cli("install", "opencode", "--hooks", "--write").code == 0
    assert plugin.read_text() == text  # a second run changes nothing
    doctor = cli("doctor")
    assert "opencode hooks" in doctor.out
    assert "experimental.chat.system.transform, chat.message" in doctor.out
    assert cli("uninstall", "opencode", "--write").code == 0
    assert not plugin.exists()


def test_a_plugin_file_of_the_users_is_refused_and_left_alone(home: Path, cli: Cli) -> None:
    plugin = home / PLUGIN
    plugin.parent.mkdir(parents=True)
    plugin.write_text("export const Mine = async () => ({});\n")
    refused = cli("install", "opencode", "--hooks", "--write")
    assert refused.code != 0
    assert "is not Aletheia's plugin" in refused.err
    assert plugin.read_text() == "export const Mine = async () => ({});\n"
    assert cli("uninstall", "opencode", "--write").code == 0
    assert plugin.read_text() == "export const Mine = async () => ({});\n"


def installed_plugin(
    live_hub: LiveHub, tmp_path: Path, driver_source: str
) -> tuple[dict[str, str], Path, Path, Path]:
    """`aletheia install opencode --hooks` into a HOME of the test's own; the environment,
    the plugin as a module Node loads, a driver script and a new project folder."""
    home = tmp_path / "home"
    project = tmp_path / f"proj{os.getpid()}{time.monotonic_ns()}"
    project.mkdir()
    env = {**live_hub.env, "HOME": str(home)}
    done = subprocess.run(
        [ALETHEIA, "install", "opencode", "--hooks", "--write"], env=env, capture_output=True
    )
    assert done.returncode == 0, done.stderr
    # Node reads a .js file as CommonJS outside a module package: load a .mjs copy.
    module = tmp_path / "aletheia.mjs"
    shutil.copy(home / PLUGIN, module)
    driver = tmp_path / "driver.mjs"
    driver.write_text(driver_source)
    return env, module, driver, project


def test_the_plugin_adds_context_to_every_model_call_and_records_the_prompt(
    live_hub: LiveHub, tmp_path: Path
) -> None:
    env, module, driver, project = installed_plugin(live_hub, tmp_path, DRIVER)
    prompt = "Fix the checkout total; the staging password: Zq8vR2mLx7"
    ran = subprocess.run(
        [node(), str(driver), str(module), str(project), prompt],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert ran.returncode == 0, ran.stderr
    systems: list[list[Any]] = json.loads(ran.stdout)
    first, second = systems
    # OpenCode builds the system prompt anew for each call (its title request comes first,
    # with the same session id): every call of the session carries the context.
    assert second == first
    (context,) = first
    assert f"# Memory for {project.name}\n" in context
    assert "(opencode) Fix the checkout total; the staging password: [REDACTED" in context
    assert "Zq8vR2mLx7" not in context


# Reports two bash calls of session s1 (pytest failing, then passing) and ends the session at
# once, as OpenCode does when its last model turn is quick; then prints the context a new
# session s2 gets.
ENDING_DRIVER = """
const [pluginPath, directory, failing, passing] = process.argv.slice(2);
const module = await import(pluginPath);
const hooks = await module.AletheiaMemory({ directory });
const command = "pytest -q test_cart.py";
for (const [callID, output, exit] of [["c1", failing, 1], ["c2", passing, 0]]) {
  const call = { tool: "bash", sessionID: "s1", callID };
  await hooks["tool.execute.before"](call, { args: { command } });
  await hooks["tool.execute.after"](call, { title: command, output, metadata: { exit } });
}
await hooks.event({ event: { type: "session.idle", properties: { sessionID: "s1" } } });
const output = { system: [] };
await hooks["experimental.chat.system.transform"]({ sessionID: "s2" }, output);
console.log(JSON.stringify(output.system));
"""


def test_a_session_ends_only_once_its_tool_calls_are_reported(
    live_hub: LiveHub, tmp_path: Path
) -> None:
    env, module, driver, project = installed_plugin(live_hub, tmp_path, ENDING_DRIVER)
    failing = "F\nFAILED test_cart.py::test_total - assert 5 == 9\n1 failed in 0.02s\n"
    ran = subprocess.run(
        [node(), str(driver), str(module), str(project), failing, "1 passed in 0.01s\n"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert ran.returncode == 0, ran.stderr
    (context,) = json.loads(ran.stdout)
    assert "## Last sessions" in context
    assert "Fixed: test_total" in context
