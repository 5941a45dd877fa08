"""`make install-user` (tools/install_user.py) builds from a clean copy of the packages, never
in the checkout, and with `--find-links` installs the given wheels offline. The real install,
into a fresh HOME, is in test_wheel_install.py; here pip is only watched, but for one real
wheel built by `--wheel-dir` (`make wheels`, the Dockerfile)."""

import zipfile
from pathlib import Path

import pytest

from tools import install_user

LEFTOVERS = (
    "build/lib/aletheia_x/deleted.py",
    "dist/aletheia_x-0.0.1-py3-none-any.whl",
    "aletheia_x.egg-info/PKG-INFO",
    "aletheia_x/__pycache__/kept.cpython-311.pyc",
)
SOURCES = ("pyproject.toml", "aletheia_x/__init__.py", "aletheia_x/kept.py")


def checkout_with_leftovers(root: Path) -> Path:
    """A checkout of the three package folders, each holding what earlier builds leave."""
    for package in install_user.PACKAGES:
        for name in (*SOURCES, *LEFTOVERS):
            path = root / package / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(name)
    return root


def files_under(folder: Path) -> list[str]:
    return sorted(str(path.relative_to(folder)) for path in folder.rglob("*") if path.is_file())


def test_install_user_copies_the_packages_without_what_earlier_builds_left(
    tmp_path: Path,
) -> None:
    root = checkout_with_leftovers(tmp_path / "checkout")
    copies = install_user.copy_packages(root, tmp_path / "scratch")
    assert copies == [tmp_path / "scratch" / package for package in install_user.PACKAGES]
    for copy in copies:
        assert files_under(copy) == sorted(SOURCES)


class PipCalls:
    """Every pip command install_user runs, with the package folders it named as they were
    when pip got them."""

    def __init__(self) -> None:
        self.commands: list[list[str]] = []
        self.folders: dict[str, list[str]] = {}

    def __call__(self, _environment: Path, *args: str) -> None:
        self.commands.append(list(args))
        for arg in args:
            if Path(arg).is_dir():
                self.folders[arg] = files_under(Path(arg))


@pytest.fixture
def pip_calls(monkeypatch: pytest.MonkeyPatch) -> PipCalls:
    calls = PipCalls()
    monkeypatch.setattr(install_user, "create_venv", lambda _environment: None)
    monkeypatch.setattr(install_user, "pip", calls)
    return calls


def test_install_user_hands_pip_copies_of_the_packages_outside_the_checkout(
    pip_calls: PipCalls, tmp_path: Path
) -> None:
    install_user.install(tmp_path / "venv", find_links=[])
    lock, packages, check = pip_calls.commands
    assert lock == ["install", "--require-hashes", "--no-deps", "-r", str(install_user.LOCK)]
    assert check == ["check"]
    assert packages[:2] == ["install", "--no-deps"]
    folders = [Path(arg) for arg in packages[2:]]
    scratch = folders[0].parent
    assert folders == [scratch / package for package in install_user.PACKAGES]
    for folder in folders:
        assert not folder.is_relative_to(install_user.ROOT), folder
        assert not folder.exists(), "the copies outlive the install"
        copied = pip_calls.folders[str(folder)]
        assert "pyproject.toml" in copied
        assert not [
            name
            for name in copied
            if name.startswith(("build/", "dist/")) or ".egg-info/" in name or "__pycache__" in name
        ]


def test_install_user_with_find_links_installs_the_given_wheels_offline(
    pip_calls: PipCalls, tmp_path: Path
) -> None:
    deps, ours = tmp_path / "deps", tmp_path / "ours"
    install_user.install(tmp_path / "venv", find_links=[deps, ours])
    offline = ["--no-index", "--find-links", str(deps), "--find-links", str(ours)]
    assert pip_calls.commands == [
        ["install", *offline, "--require-hashes", "--no-deps", "-r", str(install_user.LOCK)],
        [
            "install",
            *offline,
            "--no-deps",
            "aletheia-memhub-shared",
            "aletheia-memhub-proxy",
            "aletheia-memhub",
        ],
        ["check"],
    ]


def test_install_user_names_the_distributions_its_package_folders_build() -> None:
    for folder, name in zip(install_user.PACKAGES, install_user.DISTRIBUTIONS, strict=True):
        pyproject = (install_user.ROOT / folder / "pyproject.toml").read_text()
        assert f'\nname = "{name}"\n' in pyproject


TINY_PROJECT = """[build-system]
requires = ["setuptools>=68"]
build-backend = "setuptools.build_meta"

[project]
name = "aletheia-x"
version = "0.0.1"

[tool.setuptools]
packages = ["aletheia_x"]
"""


def test_wheels_leave_out_modules_a_stale_build_folder_holds(tmp_path: Path) -> None:
    # setuptools packs whatever build/lib holds: built in place, this wheel held stale_mod.py.
    package = tmp_path / "checkout" / "shared"
    for name, text in (
        ("pyproject.toml", TINY_PROJECT),
        ("aletheia_x/__init__.py", ""),
        ("build/lib/aletheia_x/stale_mod.py", "DELETED = True\n"),
    ):
        (package / name).parent.mkdir(parents=True, exist_ok=True)
        (package / name).write_text(text)
    before = files_under(package)
    install_user.build_wheels(package.parent, tmp_path / "wheels", packages=("shared",))
    (wheel,) = (tmp_path / "wheels").glob("*.whl")
    with zipfile.ZipFile(wheel) as built:
        modules = sorted(name for name in built.namelist() if name.startswith("aletheia_x/"))
    assert modules == ["aletheia_x/__init__.py"]
    assert files_under(package) == before  # nothing built in the checkout
