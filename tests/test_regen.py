"""One command for every committed generated file: ``python -m genreport.regen [--check]``, which CI runs here.

With GENREPORT_SLOW (CI) the first test runs the whole check: every formula regenerated (two processes) and each
other step but the math, which tests/test_golden.py checks on the builds it makes anyway; tests/conftest.py collects
this file first, so the check runs beside the other worker's files.  Without it, only the cheap steps (a second).
"""

from __future__ import annotations

import os
import re

from genreport import regen
from shared import ROOT

EVERY_STEP = bool(os.environ.get("GENREPORT_SLOW"))


# The "math" step's check builds the nine committed reports; tests/test_golden.py runs the same check
# (genreport.present.mathship.check) on the builds it compares with out/, so here it is left out.
ON_THE_GOLDEN_BUILDS = ("math",)


def test_every_generated_file_is_current(capsys):
    """``python -m genreport.regen --check``: all steps in CI (GENREPORT_SLOW) but the one tests/test_golden.py runs
    on its builds, the cheap ones otherwise."""
    cheap = ["--only", "templates", "--only", "widths", "--only", "api"]
    every = [arg for s in regen.STEPS if s.name not in ON_THE_GOLDEN_BUILDS for arg in ("--only", s.name)]
    code = regen.main(["--check", *(every if EVERY_STEP else cheap)])
    out = capsys.readouterr()
    assert code == 0, out.out + out.err
    steps = [s.name for s in regen.STEPS if s.name not in ON_THE_GOLDEN_BUILDS] if EVERY_STEP else ["templates", "api"]
    for name in steps:
        assert re.search(rf"^{name} +current ", out.out, re.M), out.out


def test_a_stale_file_fails_the_check_and_is_named(monkeypatch, capsys):
    """docs/api.md differs from what the docstrings give: exit 1, the file and its command named."""
    from genreport import apidoc

    real = apidoc.text
    monkeypatch.setattr(apidoc, "text", lambda: real() + "a hand edit\n")
    assert regen.main(["--check", "--only", "api"]) == 1
    captured = capsys.readouterr()
    assert re.search(r"^api +stale ", captured.out, re.M), captured.out
    assert "docs/api.md (python -m genreport.apidoc)" in captured.err
    assert "run: python -m genreport.regen" in captured.err


def test_every_generated_file_is_a_step():
    """Each module with a ``--check`` that compares a committed file is one of regen's steps (a new generated file
    added without it would not be checked by CI), and each step's files exist."""
    with_check = set()
    for folder in ("generator", "formulas"):
        for path in (ROOT / folder).rglob("*.py"):
            text = path.read_text(encoding="utf-8")
            if '"--check"' in text and "_jinja" not in path.parts:
                rel = path.relative_to(ROOT / folder).with_suffix("")
                with_check.add(".".join(("genreport" if folder == "generator" else "genreport.formulas", *rel.parts)))
    # the CLI's own --check (a report against its committed build), jsgen (run by formulas.generate) and regen
    covered = {s.module for s in regen.STEPS} | {"genreport.commands.cli", "genreport.formulas.jsgen",
                                                   "genreport.regen"}
    assert with_check <= covered, sorted(with_check - covered)
    for step in regen.STEPS:
        for rel in step.files:
            assert (ROOT / rel).exists(), rel


def test_ci_runs_the_check():
    """CI runs the suite with GENREPORT_SLOW=1, so the whole check above."""
    ci = (ROOT / ".ci" / "run").read_text()
    assert "GENREPORT_SLOW=1" in ci and "pytest" in ci
