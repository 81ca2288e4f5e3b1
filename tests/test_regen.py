"""One command for every committed generated file: ``python -m genreport.regen [--check]`` (CI runs the check).

The expensive steps (formulas: every formula regenerated; math: the nine built-in reports built) run in CI's
``.ci/run`` step, not here; this file checks the command itself and runs the cheap steps.
"""

from __future__ import annotations

import re

from genreport import regen
from shared import ROOT


def test_the_cheap_steps_are_current(capsys):
    assert regen.main(["--check", "--only", "templates", "--only", "widths", "--only", "api"]) == 0
    out = capsys.readouterr().out
    assert re.search(r"^templates +current ", out, re.M) and re.search(r"^api +current ", out, re.M), out


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
    assert "python -m genreport.regen --check" in (ROOT / ".ci" / "run").read_text()
