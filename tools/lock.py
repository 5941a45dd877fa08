"""Write, or check, the lock of the three packages and the requirement files pip installs from.

uv.lock holds the resolution of the whole workspace. pip installs from two exports of it:
requirements.lock (everything `make install` puts in .venv: the packages' dependencies, every
extra and the dev group) and requirements-hub.lock (what the hub needs to run with its `embed`
extra: the Dockerfile, `make install-user` and the wheel-install test). Both pin every
package with its hashes and leave out the workspace's own packages, which are installed from
this checkout.

    python tools/lock.py           re-resolve uv.lock when a pyproject.toml changed, write both
    python tools/lock.py --check   exit 1 when uv.lock or an export disagrees with the sources
"""

import argparse
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Final

ROOT: Final = Path(__file__).resolve().parents[1]
EXPORT: Final = ("export", "--frozen", "--quiet", "--no-emit-workspace", "--no-header")
EXPORTS: Final = {
    "requirements.lock": ("--all-packages", "--all-extras", "--group", "dev"),
    "requirements-hub.lock": ("--package", "aletheia-memhub", "--extra", "embed", "--no-dev"),
}


def uv_command() -> str:
    """uv beside this interpreter (the dev group installs it), else on PATH."""
    beside = Path(sys.executable).with_name("uv")
    found = str(beside) if beside.exists() else shutil.which("uv")
    if found is None:
        raise SystemExit("uv is not installed: run `make install` first")
    return found


def run_uv(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [uv_command(), *args], cwd=ROOT, capture_output=True, text=True, check=False
    )


def exported(name: str) -> str:
    done = run_uv(*EXPORT, *EXPORTS[name])
    if done.returncode != 0:
        raise SystemExit(f"uv export for {name} failed:\n{done.stderr}")
    return done.stdout


def check() -> int:
    """Whether uv.lock fits every pyproject.toml and each export fits uv.lock."""
    locked = run_uv("lock", "--check", "--offline")
    if locked.returncode != 0:
        print(
            "uv.lock does not fit the pyproject.toml files: run `make lock`\n" + locked.stderr,
            file=sys.stderr,
        )
        return 1
    stale = [name for name in EXPORTS if (ROOT / name).read_text() != exported(name)]
    if stale:
        print(f"{', '.join(stale)} differ from uv.lock: run `make lock`", file=sys.stderr)
        return 1
    return 0


def write() -> int:
    locked = run_uv("lock")
    if locked.returncode != 0:
        print(locked.stderr, file=sys.stderr)
        return 1
    for name in EXPORTS:
        (ROOT / name).write_text(exported(name))
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument(
        "--check", action="store_true", help="only check; write nothing (exit 1 when stale)"
    )
    return check() if parser.parse_args().check else write()


if __name__ == "__main__":
    raise SystemExit(main())
