"""Rendered math shipped in the package (generator/present/mathship.py): what this machine would draw, and enough.

A first build with an empty cache must not render the built-in reports' formulas again, and every shipped
formula is the SVG ziamath draws here (same version, same font file).
"""

from __future__ import annotations

import functools
import os
from importlib import metadata

import pytest
from genreport.present import mathship, mathsvg

FONT = mathsvg._font()
pytestmark = pytest.mark.skipif(FONT is None or mathship._table().get("font_sha256") != mathship._font_sha256(FONT),
                                reason="the shipped math was rendered with a math font this machine lacks")


@functools.cache
def used_formulas():
    """Building every built-in report's HTML takes about 15 s: once for this module's tests."""
    return mathship.used_formulas()


def test_shipped_math_is_what_ziamath_draws_here():
    table = mathship._table()
    assert table["ziamath"] == metadata.version("ziamath")
    formulas = used_formulas()
    sample = formulas[::6] if os.environ.get("GENREPORT_SLOW") else formulas[::15]  # every formula: 30 s more
    assert len(formulas) > 80
    for tex, size, inline in sample:
        assert mathship.lookup(table["ziamath"], FONT, size, inline, tex) == mathsvg.render(tex, size, inline, FONT), tex


def test_a_first_build_renders_no_formula_of_a_built_in_report(tmp_path, monkeypatch):
    from genreport.paths import specs_dir
    from genreport.write.build import build

    monkeypatch.setenv("GENREPORT_CACHE", str(tmp_path / "empty-cache"))
    mathsvg.svg.cache_clear()
    rendered = []
    real = mathsvg.render
    monkeypatch.setattr(mathsvg, "render", lambda *a: rendered.append(a) or real(*a))
    try:
        build(specs_dir() / "llama8b-h100.yaml", formats=("html",))
    finally:
        mathsvg.svg.cache_clear()
    assert rendered == []
    assert len(list((tmp_path / "empty-cache" / "math").glob("*.svg"))) > 80  # the cache was filled from it


def test_other_versions_or_fonts_are_not_served(tmp_path):
    table = mathship._table()
    tex, size, inline = used_formulas()[0]
    assert mathship.lookup(table["ziamath"], FONT, size, inline, tex) is not None
    assert mathship.lookup("0.0.1", FONT, size, inline, tex) is None
    other = tmp_path / "font.ttf"
    other.write_bytes(b"not the font")
    assert mathship.lookup(table["ziamath"], str(other), size, inline, tex) is None
    assert mathship.lookup(table["ziamath"], FONT, size, inline, tex + " ") is None


def test_shipped_figure_sizes_are_the_built_in_figures():
    """A first build lays its pages out early with these sizes (genreport.printing.pdf); stale ones only cost time."""
    import json

    from genreport.printing import pdf

    used_formulas()
    assert len(mathship._FIGURES) >= 6
    assert json.loads(open(pdf.SHIPPED_SIZES).read()) == pdf.sizes_of(mathship._FIGURES), \
        "regenerate: python -m genreport.present.mathship"
