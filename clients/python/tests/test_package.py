"""The package as built and installed: lint and types of its own source, and what the wheel holds."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import tessera

PROJECT = Path(__file__).resolve().parents[1]


def test_the_package_is_typed() -> None:
    assert (Path(tessera.__file__).parent / "py.typed").exists()
    assert tessera.__version__


@pytest.mark.skipif(os.environ.get("TESSERA_EXPECT_INSTALLED") != "1", reason="running from the source tree")
def test_the_tests_ran_against_the_installed_wheel() -> None:
    # The vitest wrapper installs the wheel it built into a fresh venv and sets TESSERA_EXPECT_INSTALLED.
    assert "site-packages" in tessera.__file__
    assert not str(Path(tessera.__file__).resolve()).startswith(str(PROJECT / "src"))


def test_ruff_passes_on_the_source_and_the_tests() -> None:
    ruff = shutil.which("ruff", path=str(Path(sys.executable).parent)) or shutil.which("ruff")
    if ruff is None:
        pytest.skip("ruff is not installed")
    for args in (["check", "--no-cache", "src", "tests"], ["format", "--no-cache", "--check", "src", "tests"]):
        result = subprocess.run([ruff, *args], cwd=PROJECT, capture_output=True, text=True, check=False)
        assert result.returncode == 0, result.stdout + result.stderr


def test_mypy_strict_passes_on_the_package(tmp_path: Path) -> None:
    pytest.importorskip("mypy")
    result = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--cache-dir", str(tmp_path.parent / "mypy-cache"), "-p", "tessera"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={**os.environ, "MYPYPATH": "" if "site-packages" in tessera.__file__ else str(PROJECT / "src")},
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
