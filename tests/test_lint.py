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


def test_the_checkout_is_named_in_one_place():
    """Every test file takes the checkout's root from tests/shared.py (issue 31: 43 files each defined their own):
    none defines a ROOT or finds a folder from its own module's path (the checkout, tests/, specs/)."""
    import re

    own_path = "__" + "file__"  # spelled apart, so that this file does not name it
    own = [p.name for p in sorted((ROOT / "tests").glob("*.py")) if p.name != "shared.py"
           and re.search(r"^ROOT\s*[:=]|" + own_path, p.read_text(encoding="utf-8"), re.M)]
    assert not own, f"take the checkout from tests/shared.py (from shared import ROOT): {own}"
