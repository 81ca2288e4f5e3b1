"""Rendered math shipped in the package (generator/present/mathship.py): what this machine would draw, and enough.

A first build with an empty cache must not render the built-in reports' formulas again, and every shipped
formula is the SVG ziamath draws here (same version, same font file).
"""

from __future__ import annotations

import functools
from importlib import metadata

import pytest
from genreport.present import mathship, mathsvg

FONT = mathsvg._font()
pytestmark = pytest.mark.skipif(FONT is None or mathship._table().get("font_sha256") != mathship._font_sha256(FONT),
                                reason="the shipped math was rendered with a math font this machine lacks")


@functools.cache
def used_formulas():
    """The formulas one built-in report draws (its HTML built in memory, 2 s), each call of ``mathsvg.svg`` seen, and
    the same as the build's own record of them.  Every built-in report's formulas are checked by
    ``python -m genreport.present.mathship --check`` (tests/test_golden.py, on the session's builds): each shipped,
    and every sixth drawn again and compared."""
    from unittest import mock

    from genreport.paths import specs_dir
    from genreport.write.build import build

    seen: dict[tuple[str, float, bool], None] = {}
    real = mathsvg.svg

    def record(tex, size=15.0, inline=False):
        seen.setdefault((tex, size, inline), None)
        return real(tex, size, inline)

    with mock.patch.object(mathsvg, "svg", record):
        built = build(specs_dir() / "llama8b-h100.yaml", formats=("html",))
    # what the build records (Built.formulas, which the shipped table's check reads) is every formula drawn
    assert sorted(built.formulas) == sorted(seen) and len(built.formulas) == len(seen)
    return sorted(seen)


def test_shipped_math_is_what_ziamath_draws_here():
    table = mathship._table()
    assert table["ziamath"] == metadata.version("ziamath")
    formulas = used_formulas()
    assert len(formulas) > 40
    for tex, size, inline in formulas[::8]:
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
