"""The packages as users and the image install them: wheels built as `make wheels` and the
Dockerfile build them (tools/install_user.py --wheel-dir), installed with `--no-index` into
fresh venvs that hold no development requirement, or with the registry reachable as a user
installs them.

Built once per content: the locked dependencies' wheels are kept per requirements-hub.lock,
the three packages' wheels and the venvs per digest of their sources (and, for the HOME that
tools/install_user.py installs into, of that script and the interpreter), in the user's cache
folder (as pip keeps its own), so a run with nothing changed, from any clone, only checks
that they are there.
"""

import contextlib
import fcntl
import functools
import hashlib
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Final

ROOT: Final = Path(__file__).resolve().parents[2]
CACHE: Final = (
    Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "aletheia" / "wheel-install"
)
LOCK: Final = ROOT / "requirements-hub.lock"
INSTALL_USER: Final = ROOT / "tools" / "install_user.py"
PACKAGES: Final = ("shared", "services/stdio-proxy", "services/hub")
SKIPPED_PARTS: Final = {"__pycache__", "build", "dist"}
BUILD_SECONDS: Final = 900
REGISTRY_SECONDS: Final = 60
# What a machine that reaches the registry through a mirror sets; kept in registry_env().
REGISTRY_SETTINGS: Final = ("PIP_INDEX_URL", "PIP_CERT")


@dataclass(frozen=True, slots=True)
class Installed:
    """A fresh venv holding the hub's wheels (with or without the `embed` extra)."""

    root: Path

    @property
    def bin(self) -> Path:
        return self.root / "bin"

    @property
    def python(self) -> Path:
        return self.bin / "python"

    def pip(self, *args: str) -> list[str]:
        """A pip command run on this venv from outside it (the venv holds no pip of its own)."""
        return pip_on(self.root, *args)


def pip_on(venv: Path, *args: str) -> list[str]:
    return [sys.executable, "-m", "pip", "--python", str(venv / "bin" / "python"), *args]


def pip_env(*, isolated: bool) -> dict[str, str]:
    """This environment without venv or ALETHEIA_* settings; isolated: no pip configuration
    either, so nothing but the given wheel folders can satisfy an install."""
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("ALETHEIA_", "VIRTUAL_ENV", "PYTHONPATH"))
        and not (isolated and key.startswith("PIP_"))
    }
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    if isolated:
        env["PIP_CONFIG_FILE"] = os.devnull
    return env


def assert_pip_check_is_clean(installed: Installed) -> None:
    """`pip check` in the venv finds every requirement of what is installed met."""
    done = subprocess.run(
        installed.pip("check"),
        env=pip_env(isolated=True),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stdout
    assert "No broken requirements found." in done.stdout


def registry_env() -> dict[str, str]:
    """pip_env(isolated=True) with the registry reachable: pip's default index, or the one
    PIP_INDEX_URL names here (a machine that reaches the registry through a mirror)."""
    env = pip_env(isolated=True)
    env.update({key: os.environ[key] for key in REGISTRY_SETTINGS if key in os.environ})
    return env


def registry_problem() -> str | None:
    """Why pip cannot reach the package registry from here, or None when it can."""
    probe = ["index", "versions", "pip", "--timeout", "10", "--retries", "1"]
    try:
        done = subprocess.run(
            [sys.executable, "-m", "pip", *probe],
            env=registry_env(),
            capture_output=True,
            text=True,
            timeout=REGISTRY_SECONDS,
            check=False,
        )
    except subprocess.TimeoutExpired:
        return (
            f"the package registry did not answer `pip index versions pip` in {REGISTRY_SECONDS} s"
        )
    if done.returncode == 0:
        return None
    said = (done.stderr.strip().splitlines() or ["no output"])[-1]
    return f"the package registry cannot be reached (`pip index versions pip`: {said})"


def _run(
    command: list[str], *, isolated: bool, cwd: Path = ROOT, env: dict[str, str] | None = None
) -> None:
    done = subprocess.run(
        command,
        cwd=cwd,
        env=pip_env(isolated=isolated) if env is None else env,
        capture_output=True,
        text=True,
        timeout=BUILD_SECONDS,
        check=False,
    )
    if done.returncode != 0:
        raise RuntimeError(
            f"{' '.join(command)} failed:\n{done.stdout[-3000:]}{done.stderr[-3000:]}"
        )


def _digest(paths: list[Path]) -> str:
    digest = hashlib.sha256()
    for path in sorted(paths):
        digest.update(str(path.relative_to(ROOT)).encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:16]


def source_files() -> list[Path]:
    """The files a wheel of the three packages is built from."""
    found = []
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*"):
            parts = set(path.relative_to(ROOT / package).parts)
            if path.is_file() and not parts & SKIPPED_PARTS and ".egg-info" not in str(path):
                found.append(path)
    return found


@contextlib.contextmanager
def _locked() -> Iterator[None]:
    """One builder at a time (test runs of two checkouts, or two workers, may meet here)."""
    CACHE.mkdir(parents=True, exist_ok=True)
    with (CACHE / ".lock").open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)  # released when the file closes
        yield


def _built(folder: Path, build: "list[list[str]]") -> Path:
    """folder, built by the commands (each given the folder last) unless it is there already."""
    if folder.exists():
        return folder
    partial = folder.with_name(folder.name + ".partial")
    shutil.rmtree(partial, ignore_errors=True)
    for command in build:
        _run([*command, str(partial)], isolated=False)
    partial.rename(folder)
    return folder


def dependency_wheels() -> Path:
    """Wheels of every package requirements-hub.lock pins, hashes checked."""
    pip_wheel = [sys.executable, "-m", "pip", "wheel", "--quiet", "--require-hashes", "--no-deps"]
    return _built(CACHE / f"deps-{_digest([LOCK])}", [[*pip_wheel, "-r", str(LOCK), "--wheel-dir"]])


def package_wheels(digest: str) -> Path:
    """Wheels of the three packages, built as `make wheels` and the Dockerfile build them:
    from copies of their folders without build leftovers (setuptools builds in the tree it
    is given, and packs whatever a stale build/lib holds)."""
    return _built(
        CACHE / f"packages-{digest}", [[sys.executable, str(INSTALL_USER), "--wheel-dir"]]
    )


def our_wheels() -> Path:
    """The folder holding the three packages' wheels of the current sources."""
    with _locked():
        return package_wheels(_sources_digest())


@functools.cache
def _sources_digest() -> str:
    """Once per test process: sources edited while tests run must not swap the venvs. The
    script that builds the wheels counts as a source."""
    return _digest([LOCK, INSTALL_USER, *source_files()])


def fresh_venv(requirement: str) -> Installed:
    """A venv with only `requirement` (and what it needs) installed from the built wheels,
    `pip check` clean. Kept per digest of the sources and the lock.

    The venv gets no pip of its own and its modules are compiled on first import, not at
    install: this interpreter's pip installs into it (`pip --python`), which takes about 4 s
    where ensurepip and compiling every module took about 28 (a user's venv differs only in
    holding pip and the .pyc files)."""
    with _locked():
        digest = _sources_digest()
        deps = dependency_wheels()
        ours = package_wheels(digest)
        name = "venv-" + hashlib.sha256(requirement.encode()).hexdigest()[:8] + f"-{digest}"
        folder = CACHE / name
        if not (folder / ".complete").exists():
            shutil.rmtree(folder, ignore_errors=True)
            _run([sys.executable, "-m", "venv", "--without-pip", str(folder)], isolated=True)
            _run(
                [
                    *pip_on(folder, "install", "--quiet", "--no-compile"),
                    "--no-index",
                    "--find-links",
                    str(deps),
                    "--find-links",
                    str(ours),
                    requirement,
                ],
                isolated=True,
            )
            _run(pip_on(folder, "check"), isolated=True)
            (folder / ".complete").touch()
        _prune(digest, deps)
        return Installed(folder)


def registry_venv(folder: Path, requirement: str) -> Installed:
    """A fresh venv in folder where pip installed `requirement` as a user does: the three
    packages' wheels through --find-links, everything else from the registry; no lock, no
    --no-index. Made anew each time, since what the registry holds may change."""
    ours = our_wheels()
    _run([sys.executable, "-m", "venv", "--without-pip", str(folder)], isolated=True)
    install = pip_on(folder, "install", "--quiet", "--no-compile", "--find-links", str(ours))
    _run([*install, requirement], isolated=True, env=registry_env())
    return Installed(folder)


@dataclass(frozen=True, slots=True)
class UserInstall:
    """A HOME that tools/install_user.py installed Aletheia into, and what it printed."""

    home: Path
    printed: str

    @property
    def bin_dir(self) -> Path:
        return self.home / ".local" / "bin"

    @property
    def venv(self) -> Path:
        return self.home / ".local" / "share" / "aletheia" / "venv"


def user_install() -> UserInstall:
    """HOME after `tools/install_user.py --find-links <dependency wheels> --find-links
    <package wheels>`, run as a user runs it (defaults for the venv and the bin dir), offline:
    no pip configuration, no index. Kept per digest of the sources, the lock, the script and
    the interpreter; the venv cannot move, so it is made where it is kept."""
    with _locked():
        digest = _sources_digest()
        deps = dependency_wheels()
        ours = package_wheels(digest)
        script = hashlib.sha256(INSTALL_USER.read_bytes() + sys.version.encode())
        script.update(sys.executable.encode())
        folder = CACHE / f"user-{script.hexdigest()[:8]}-{digest}"
        if not (folder / ".complete").exists():
            shutil.rmtree(folder, ignore_errors=True)
            (folder / "home").mkdir(parents=True)
            printed = _install_for_user(folder / "home", [deps, ours])
            (folder / "printed.txt").write_text(printed)
            (folder / ".complete").touch()
        _prune(digest, deps)
        return UserInstall(folder / "home", (folder / "printed.txt").read_text())


def _install_for_user(home: Path, find_links: list[Path]) -> str:
    env = pip_env(isolated=True)
    env["HOME"] = str(home)
    env.pop("XDG_DATA_HOME", None)
    command = [sys.executable, str(INSTALL_USER)]
    for folder in find_links:
        command += ["--find-links", str(folder)]
    done = subprocess.run(
        command, env=env, capture_output=True, text=True, timeout=BUILD_SECONDS, check=False
    )
    if done.returncode != 0:
        raise RuntimeError(f"install_user.py failed:\n{done.stdout[-3000:]}{done.stderr[-3000:]}")
    return done.stdout


def _prune(digest: str, deps: Path) -> None:
    """Remove what earlier sources left: keep the dependency wheels of the current lock and
    whatever was built from the current sources."""
    for path in CACHE.iterdir():
        built = path.name.startswith(("venv-", "packages-", "deps-", "user-"))
        if built and path.name != deps.name and not path.name.endswith(f"-{digest}"):
            shutil.rmtree(path, ignore_errors=True)
