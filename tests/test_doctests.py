"""The doctests in the formula modules and the unit parser run as part of the suite (style.md: tested docstrings)."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import genreport.formulas
import pytest

MODULES = sorted({f"genreport.formulas.{m.name}" for m in pkgutil.iter_modules(genreport.formulas.__path__)}
                 | {"genreport.load.units", "genreport.present.fmt", "genreport.model.measured", "genreport.model.stages"})


@pytest.mark.parametrize("name", MODULES)
def test_doctests(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0, f"{result.failed} doctest(s) failed in {name}"
