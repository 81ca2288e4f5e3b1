"""Issue 33: the API reference is generated from the docstrings, current, and every example in it runs."""

from __future__ import annotations

import doctest
import os

import genreport
from genreport import apidoc
from shared import ROOT


def test_the_reference_is_current():
    assert (ROOT / "docs" / "api.md").read_text(encoding="utf-8") == apidoc.text(), \
        "docs/api.md is out of date: run python -m genreport.apidoc"


def test_every_example_runs(monkeypatch):
    monkeypatch.chdir(ROOT)  # the examples name specs/ from the repository root
    globs = {"genreport": genreport, **{n: getattr(genreport, n) for n in genreport.__all__}}
    result = doctest.testfile(os.fspath(ROOT / "docs" / "api.md"), module_relative=False, globs=globs,
                              optionflags=doctest.ELLIPSIS, verbose=False)
    assert result.attempted >= 20 and result.failed == 0, result
