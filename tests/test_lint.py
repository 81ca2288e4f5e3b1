"""ruff over the whole project, as part of the test command (style.md: lint in the test command)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from shared import ROOT


def test_ruff_clean():
    ruff = shutil.which("ruff") or str(Path(sys.executable).with_name("ruff"))
    if not Path(ruff).exists():
        pytest.skip("ruff is not installed (scripts/setup --test installs it)")
    p = subprocess.run([ruff, "check", "--no-cache", str(ROOT)], capture_output=True, text=True, cwd=ROOT)
    assert p.returncode == 0, p.stdout + p.stderr
