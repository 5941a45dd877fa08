"""What importing the hub costs: the web console's pages, export and import, the host code, the
OpenAI-compatible embedder and the redaction patterns load when first used, never with
`aletheia_hub.app` (which every hub start and test process imports), and `aletheia --help`
loads no command's module. Read in a fresh interpreter's sys.modules."""

import subprocess
import sys
from pathlib import Path
from typing import Final, get_args

from aletheia_hub.mcp.tools.open_mem import portable as portable_tools
from aletheia_hub.store.portable import import_run

# Loaded only when first used: the console's pages (and Jinja under them), export and import,
# the host catalog and rule files, the OpenAI-compatible embedder's HTTP client.
LOADED_WHEN_USED: Final = (
    "aletheia_hub.http.console.pages",
    "aletheia_hub.http.console.render",
    "jinja2",
    "aletheia_hub.store.portable",
    "aletheia_hub.hosts",
    "aletheia_hub.embed.openai_compatible",
    "httpx",
)


def _run(probe: str, cwd: Path | None = None) -> list[str]:
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, cwd=cwd
    )
    return done.stdout.splitlines()


def test_importing_the_app_loads_no_console_page_export_import_or_host_code() -> None:
    probe = (
        "import sys\n"
        "import aletheia_hub.app\n"
        f"print(sorted(name for name in {LOADED_WHEN_USED!r} if name in sys.modules))\n"
    )
    assert _run(probe) == ["[]"]


def test_importing_the_app_compiles_no_redaction_pattern_until_a_text_is_redacted() -> None:
    probe = (
        "import aletheia_hub.app\n"
        "from aletheia_hub.redact import PATTERNS, redact\n"
        "print(sum(secret.pattern.is_compiled for secret in PATTERNS))\n"
        "redact('export GITHUB_TOKEN=ghp_' + 'a1B2c3D4' * 5)\n"
        "print(sum(secret.pattern.is_compiled for secret in PATTERNS) > 0)\n"
    )
    assert _run(probe) == ["0", "True"]


def test_a_hub_answering_probes_and_tool_calls_loads_its_console_with_the_first_page(
    tmp_path: Path,
) -> None:
    probe = (
        "import sys\n"
        "from pathlib import Path\n"
        "from fastapi.testclient import TestClient\n"
        "from aletheia_hub.app import create_app\n"
        "from aletheia_hub.settings import Settings\n"
        "folder = Path.cwd()\n"
        "app = create_app(Settings(hub_db=folder / 'hub.db', data_dir=folder, cwd=folder))\n"
        "loaded = lambda: 'aletheia_hub.http.console.pages' in sys.modules\n"
        "with TestClient(app, base_url='http://127.0.0.1') as http:\n"
        "    print(http.get('/healthz').status_code, http.get('/mcp').status_code, loaded())\n"
        "    print(http.get('/api/nowhere').headers['content-type'], loaded())\n"
        "    page = http.get('/no-such-page')\n"
        "    print(page.status_code, page.headers['content-type'], loaded())\n"
        "    print(http.get('/').status_code, http.get('/rules').status_code)\n"
    )
    assert _run(probe, cwd=tmp_path) == [
        "200 405 False",
        "application/json False",
        "404 text/html; charset=utf-8 True",
        "200 200",
    ]


def test_help_loads_no_commands_module() -> None:
    probe = (
        "import contextlib, io, sys\n"
        "from aletheia_hub.cli import main\n"
        "with contextlib.suppress(SystemExit), contextlib.redirect_stdout(io.StringIO()):\n"
        "    main(['--help'])\n"
        "print(sorted(name for name in sys.modules if name.startswith('aletheia_hub.commands.')))\n"
        "print('sqlalchemy' in sys.modules)\n"
    )
    assert _run(probe) == ["['aletheia_hub.commands.store_error']", "False"]


def test_the_import_tools_modes_are_the_importers() -> None:
    assert get_args(portable_tools.ImportMode) == get_args(import_run.ImportMode)
