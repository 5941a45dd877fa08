"""Install Aletheia for use outside this checkout: a venv of its own, commands on your PATH.

The hub, the proxy and the shared package are installed (not editable, so the checkout may
move or go) into one virtual environment with the exact versions of requirements-hub.lock,
and `aletheia`, `aletheia-server`, `aletheia-sync` and `aletheia-mcp` are linked into a folder
on PATH. Running it again replaces the environment with the checkout's current version.
`aletheia install <host>` run from there writes that environment's `aletheia-mcp` path.

The packages are built from a copy of their folders without what earlier builds left there
(setuptools builds in the tree it is given: it would leave build/ in the checkout and ship
modules since deleted that a stale build/lib still holds). With `--find-links DIR` nothing is
built or downloaded: the locked dependencies and the three packages are installed from the
wheels in DIR (`pip wheel` output), with `--no-index`. `--wheel-dir DIR` (`make wheels`, the
Dockerfile) only builds the three packages' wheels into DIR, from such copies, for
`uv tool install --find-links DIR` or an install elsewhere.
"""

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import venv
from collections.abc import Sequence
from pathlib import Path
from typing import Final

ROOT: Final = Path(__file__).resolve().parents[1]
LOCK: Final = ROOT / "requirements-hub.lock"
PACKAGES: Final = ("shared", "services/stdio-proxy", "services/hub")
# The distributions the three package folders build, in the same order.
DISTRIBUTIONS: Final = ("aletheia-memhub-shared", "aletheia-memhub-proxy", "aletheia-memhub")
BUILD_LEFTOVERS: Final = ("build", "dist", "*.egg-info", "__pycache__")
COMMANDS: Final = ("aletheia", "aletheia-server", "aletheia-sync", "aletheia-mcp")


def default_venv() -> Path:
    data_home = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(data_home) / "aletheia" / "venv"


def default_bin_dir() -> Path:
    return Path.home() / ".local" / "bin"


def create_venv(environment: Path) -> None:
    venv.EnvBuilder(clear=True, with_pip=True).create(environment)


def pip(environment: Path, *args: str) -> None:
    python = environment / "bin" / "python"
    subprocess.run([str(python), "-m", "pip", "--quiet", *args], check=True)


def copy_packages(root: Path, scratch: Path, packages: Sequence[str] = PACKAGES) -> list[Path]:
    """Copies of the package folders (by default the three) in `scratch`, without build
    leftovers."""
    copies = []
    for package in packages:
        copy = scratch / package
        shutil.copytree(root / package, copy, ignore=shutil.ignore_patterns(*BUILD_LEFTOVERS))
        copies.append(copy)
    return copies


def build_wheels(root: Path, wheel_dir: Path, packages: Sequence[str] = PACKAGES) -> None:
    """Wheels of the packages in wheel_dir, built by pip from copies of their folders."""
    with tempfile.TemporaryDirectory(prefix="aletheia-wheels-") as scratch:
        copies = [str(copy) for copy in copy_packages(root, Path(scratch), packages)]
        pip_wheel = [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps"]
        subprocess.run([*pip_wheel, "--wheel-dir", str(wheel_dir), *copies], check=True)


def install(environment: Path, find_links: list[Path]) -> None:
    """A fresh environment holding the locked dependencies and the three packages: built
    from copies of the checkout's folders, or, given wheel folders, from those alone."""
    create_venv(environment)
    offline = ["--no-index"] if find_links else []
    for folder in find_links:
        offline += ["--find-links", str(folder)]
    pip(environment, "install", *offline, "--require-hashes", "--no-deps", "-r", str(LOCK))
    if find_links:
        pip(environment, "install", *offline, "--no-deps", *DISTRIBUTIONS)
    else:
        with tempfile.TemporaryDirectory(prefix="aletheia-install-") as scratch:
            copies = copy_packages(ROOT, Path(scratch))
            pip(environment, "install", "--no-deps", *(str(copy) for copy in copies))
    pip(environment, "check")


def link_commands(environment: Path, bin_dir: Path) -> list[str]:
    """Link each command into bin_dir; a file there that is not a link is left and named."""
    bin_dir.mkdir(parents=True, exist_ok=True)
    refused = []
    for name in COMMANDS:
        target = environment / "bin" / name
        link = bin_dir / name
        if link.exists() and not link.is_symlink():
            refused.append(str(link))
            continue
        if link.is_symlink():
            link.unlink()
        link.symlink_to(target)
    return refused


def on_path(bin_dir: Path) -> bool:
    folders = os.environ.get("PATH", "").split(os.pathsep)
    return any(Path(folder).expanduser().resolve() == bin_dir.resolve() for folder in folders)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="make install-user", description=__doc__.split("\n", 1)[0]
    )
    parser.add_argument(
        "--venv",
        type=Path,
        default=default_venv(),
        help="environment to install into "
        "(default $XDG_DATA_HOME/aletheia/venv, else ~/.local/share/aletheia/venv)",
    )
    parser.add_argument(
        "--bin-dir",
        type=Path,
        default=default_bin_dir(),
        help="folder on PATH for the commands (default ~/.local/bin)",
    )
    parser.add_argument(
        "--find-links",
        type=Path,
        action="append",
        default=[],
        metavar="DIR",
        help="install offline (--no-index) from the wheels in DIR: the locked dependencies' "
        "and the three packages' (repeat for several folders)",
    )
    parser.add_argument(
        "--wheel-dir",
        type=Path,
        metavar="DIR",
        help="only build the three packages' wheels into DIR (from clean copies); install nothing",
    )
    args = parser.parse_args(argv)
    if args.wheel_dir is not None:
        build_wheels(ROOT, args.wheel_dir.expanduser().absolute())
        print(f"Built the wheels of {', '.join(DISTRIBUTIONS)} into {args.wheel_dir}")
        return 0
    environment: Path = args.venv.expanduser().absolute()
    bin_dir: Path = args.bin_dir.expanduser().absolute()
    find_links = [folder.expanduser().absolute() for folder in args.find_links]
    print(f"Installing Aletheia into {environment}", flush=True)
    install(environment, find_links)
    refused = link_commands(environment, bin_dir)
    for path in refused:
        print(f"Left {path} as it is (not a link); remove it and run again to link it.")
    print(f"Linked {', '.join(COMMANDS)} into {bin_dir}")
    if not on_path(bin_dir):
        print(f'{bin_dir} is not on PATH: add `export PATH="{bin_dir}:$PATH"` to your shell.')
    print("Next: aletheia install <host> --write   (claude-code, cursor, codex, ...)")
    return 1 if refused else 0


if __name__ == "__main__":
    sys.exit(main())
